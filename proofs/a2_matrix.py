"""a2-matrix — A2 for a matrix parameter W (m×n): at every entry (p, q), the batch-mean
gradient is the n_k/N-weighted sum of the microbatch mean gradients.

    (1/N) Σ_i ∂ℓ_i/∂W[p, q] = Σ_k (n_k/N)·(1/n_k) Σ_{i∈B_k} ∂ℓ_i/∂W[p, q]

A per-record gradient of a matrix is one more function of the record, with the entry's indices
as extra arguments: g(i, p, q) = ∂ℓ_i/∂W[p, q]. The windows are derive/model/objective.py's.
"""

import sympy as sp

from derive.graph import sized
from derive.model import objective
from derive.model.objective import (
    N,
    batch_objective,
    block_sum,
    microbatch_objective,
    over_microbatches,
    weight,
    weighted,
)
from derive.statements import PROVED, Instance, Rounded, Statement, calc, hypothesis

from .lessons_data import LINB_B, LINB_B_GW
from .linear_weight_gradient import lin_delta
from .tensors import m, n, numbers

p, q = sized.index("p"), sized.index("q")
record_gradient = sp.Function("g", real=True)
entries = (hypothesis(p - 1, "p ≥ 1"), hypothesis(m - p, "p ≤ m"),
           hypothesis(q - 1, "q ≥ 1"), hypothesis(n - q, "q ≤ n"))


def g(i):
    """∂ℓ_i/∂W[p, q], record i's gradient at the entry (p, q)."""
    return record_gradient(i, p, q)


lhs = batch_objective(g)
rhs = over_microbatches(lambda k: weighted(weight(objective.n(k), N), microbatch_objective(k, g)))


def linb_b():
    """The records of linb-b in microbatches of 2 and 1: each record's ∂ℓ_r/∂W = δ_r x_rᵀ,
    each microbatch's mean, weighted by 2/3 and 1/3."""
    grads = []
    for xr, yr in zip(LINB_B["X"], LINB_B["Y"]):
        dr = lin_delta({"W": LINB_B["W"], "x": xr, "b": LINB_B["b"], "y": yr})
        grads.append([[a * b for b in numbers(xr)] for a in dr])

    def mean(gs):
        return [[sum(col) / len(gs) for col in zip(*rows)] for rows in zip(*gs)]
    first, second = mean(grads[:2]), mean(grads[2:])
    weighted_sum = [[sp.Rational(2, 3) * a + sp.Rational(1, 3) * b for a, b in zip(r1, r2)]
                    for r1, r2 in zip(first, second)]
    return {"Σ_k (n_k/N)·∇_W L_k": weighted_sum}


STATEMENT = Statement(
    id="a2-matrix",
    title="A2 for a matrix parameter: the batch gradient weights microbatch means by n_k/N",
    title_zh="矩阵参数的 A2:整批梯度按 n_k/N 加权微批均值梯度",
    expect=PROVED,
    claim="(1/N) Σ_i ∂ℓ_i/∂W[p, q] = Σ_k (n_k/N)·(1/n_k) Σ_{i∈B_k} ∂ℓ_i/∂W[p, q]",
    assumptions=(
        "the assumptions of A2, for W an m×n matrix (any m, n ≥ 1) and entry (p, q)",
        "g(i, p, q) = ∂ℓ_i/∂W[p, q], any per-record gradient, every term at the same W",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=entries,
    proof=calc(
        lhs,
        (over_microbatches(lambda k: block_sum(g, k)) / N,
         "the blocks B_1 … B_K partition the records 1 … N"),
        (rhs, "n_k/N · 1/n_k = 1/N, since n_k ≥ 1"),
    ),
    instances=(
        Instance(
            label="the batch of 3 of linb-b in microbatches of 2 and 1, W 2×2",
            source="lessons 05–07 bank, linb-b: gW (torch float64, 4 places)",
            compute=linb_b,
            expected={"Σ_k (n_k/N)·∇_W L_k": [[Rounded(v) for v in row] for row in LINB_B_GW]},
        ),
    ),
)
