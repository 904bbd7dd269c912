"""logsumexp-gradient — the gradient of logsumexp is the softmax.

    ∂/∂z_j log Σ_k exp(z_k) = exp(z_j) / Σ_k exp(z_k)
"""

import sympy as sp

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import SM_A, SM_A_P
from .tensors import C, logits, numbers

lse = sized.logsumexp(logits)
lhs, rhs, (j,), facts = sized.entrywise(sized.grad(lse, logits), sized.softmax(logits), "j")
k = sp.Dummy("k", integer=True)
total = sp.Sum(sp.exp(logits[k]), (k, 1, C))


def sm_a():
    """∂ logsumexp/∂z written out and differentiated at each row of sm-a."""
    return {"∂ logsumexp/∂z": [sized.concrete(sized.grad(lse, logits), {C: len(row)},
                                              {"z": row})
                               for row in numbers(SM_A["Z"])]}


STATEMENT = Statement(
    id="logsumexp-gradient",
    title="The gradient of logsumexp is the softmax",
    title_zh="logsumexp 的梯度是 softmax",
    expect=PROVED,
    claim="∂/∂z_j log Σ_k exp(z_k) = softmax(z)_j",
    assumptions=("z a real C-vector, for any C ≥ 1", "entry j with 1 ≤ j ≤ C"),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    proof=calc(
        lhs,
        (sp.Sum(sp.exp(logits[k]) * sp.KroneckerDelta(k, j), (k, 1, C)) / total,
         "d log S = dS/S, and ∂exp(z_k)/∂z_j = exp(z_k)·δ(k, j)"),
        (rhs, "the Σ over k keeps k = j, since 1 ≤ j ≤ C"),
    ),
    instances=(
        Instance(
            label="the 2×3 logits of sm-a, row by row",
            source="lessons 05–07 bank, sm-a: P = softmax(Z) (torch float64, 4 places)",
            compute=sm_a,
            expected={"∂ logsumexp/∂z": [[Rounded(v) for v in row] for row in SM_A_P]},
        ),
    ),
)
