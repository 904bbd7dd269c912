"""mean-of-means-matrix — for a matrix parameter too, the 1/K mean of microbatch means is not
the batch gradient.

    (1/K) Σ_k (1/n_k) Σ_{i∈B_k} ∂ℓ_i/∂W[p, q] = (1/N) Σ_i ∂ℓ_i/∂W[p, q]   is false
"""

import dataclasses

import sympy as sp

from derive.model.objective import K, microbatch_objective, over_microbatches
from derive.statements import REFUTED, Family, Statement

from .a2_matrix import entries, g, lhs, p, q, record_gradient
from .families import lesson_window, partitions, w
from .tensors import m, n


def matrix_window(sizes):
    """lesson_window's records, the 1×1 matrix W = (w): g(i, 1, 1) = ∂ℓ_i/∂w = (w·x_i − y_i)·x_i,
    the lesson's record gradient (the same functions x, y of the record as lesson_window's)."""
    base = lesson_window(sizes)
    i_, p_, q_ = (sp.Dummy(s, integer=True) for s in "ipq")
    x, y = sp.Function("x"), sp.Function("y")
    one = sp.Integer(1)
    return dataclasses.replace(
        base, symbols={**base.symbols, m: one, n: one, p: one, q: one},
        functions={**base.functions,
                   record_gradient: sp.Lambda((i_, p_, q_), (w * x(i_) - y(i_)) * x(i_))})


STATEMENT = Statement(
    id="mean-of-means-matrix",
    title="For a matrix parameter too, averaging microbatch means with 1/K is not ∇_W L",
    title_zh="矩阵参数同样:用 1/K 平均微批均值梯度不是 ∇_W L",
    expect=REFUTED,
    claim="(1/K) Σ_k ∇_W L_k = ∇_W L, at every entry (p, q)",
    assumptions=("the assumptions of a2-matrix",),
    lhs=over_microbatches(lambda k: microbatch_objective(k, g)) / K,
    rhs=lhs,
    facts=entries,
    family=Family(partitions, matrix_window),
    holds_when=("a2-matrix", "mean-of-means-equal-sizes"),
)
