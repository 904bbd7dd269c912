"""a3-matrix — A3 for a matrix parameter: one SGD step with the accumulated gradient moves
every entry of W as the full-batch step does.

    W[p, q] − η·Σ_k (n_k/N)·∇_W L_k[p, q] = W[p, q] − η·∇_W L[p, q]
"""

import sympy as sp

from derive.model.objective import eta, sgd_update
from derive.statements import PROVED, Statement, calc

from .a2_matrix import entries, p, q
from .a2_matrix import lhs as batch_gradient
from .a2_matrix import rhs as accumulated

W = sp.IndexedBase("W", real=True)
lhs = sgd_update(W[p, q], eta, accumulated)
rhs = sgd_update(W[p, q], eta, batch_gradient)

STATEMENT = Statement(
    id="a3-matrix",
    title="A3 for a matrix parameter: one SGD step from accumulated gradients is the full step",
    title_zh="矩阵参数的 A3:用累积梯度做一次 SGD 更新,等于整批更新",
    expect=PROVED,
    claim="W[p, q] − η·Σ_k (n_k/N)·∇_W L_k[p, q] = W[p, q] − η·∇_W L[p, q]",
    assumptions=(
        "the assumptions of a2-matrix (W is m×n, entry (p, q)); plain SGD, η > 0",
        "every microbatch gradient is taken at the same W (the window is not stepped inside)",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=entries,
    proof=calc(lhs, (rhs, "a2-matrix at the entry (p, q)")),
    notes=("A1 is about the objective, a number: proofs/a1.py holds for any parameter",),
)
