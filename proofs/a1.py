"""A1 — the batch objective and its denominator.

    L(θ) = (1/N) Σ_{i=1}^{N} ℓ_i(θ),   L_k(θ) = (1/n_k) Σ_{i∈B_k} ℓ_i(θ),
    L(θ) = Σ_k (n_k/N)·L_k(θ)   for every partition into K nonempty microbatches.
"""

import sympy as sp

from derive.model import linear
from derive.model.objective import (
    N,
    batch_objective,
    block_sum,
    mean,
    microbatch_objective,
    n,
    over_microbatches,
    record_loss,
    weight,
    weighted,
    weights,
)
from derive.statements import PROVED, Instance, Statement, calc

ell = record_loss

STATEMENT = Statement(
    id="A1",
    title="The batch objective is the n_k/N-weighted sum of microbatch objectives",
    title_zh="整批目标等于各微批目标按 n_k/N 加权之和",
    expect=PROVED,
    claim="L(θ) = (1/N) Σ_{i=1}^{N} ℓ_i(θ) = Σ_{k=1}^{K} (n_k/N)·L_k(θ)",
    assumptions=(
        "K ≥ 1 microbatches B_1 … B_K, disjoint, covering the N records of the batch",
        "n_k ≥ 1 records in B_k, N = n_1 + … + n_K (positive integer counts)",
        "records numbered so that B_k holds c_{k−1}+1 … c_k, c_k = n_1 + … + n_k",
        "ℓ_i(θ) is any per-record loss, every term evaluated at the same θ",
    ),
    lhs=batch_objective(),
    rhs=over_microbatches(lambda k: weighted(weight(n(k), N), microbatch_objective(k))),
    proof=calc(
        batch_objective(),
        (over_microbatches(lambda k: block_sum(ell, k)) / N,
         "the blocks B_1 … B_K partition the records 1 … N"),
        (over_microbatches(lambda k: block_sum(ell, k) / N),
         "1/N does not depend on k"),
        (over_microbatches(lambda k: weighted(weight(n(k), N), microbatch_objective(k))),
         "n_k/N · 1/n_k = 1/N, since n_k ≥ 1; L_k = (1/n_k) Σ_{i∈B_k} ℓ_i"),
    ),
    instances=(
        Instance(
            label="three records (1,0), (2,0), (3,0) at w = 1, microbatches of 2 and 1",
            source="derived from the reading's three records (the course does not print L)",
            compute=lambda: {
                "weights": weights([2, 1]),
                "L": mean([linear.record_loss(1, x, y) for x, y in [(1, 0), (2, 0), (3, 0)]]),
                "weighted L_k": sum(
                    (a * mean([linear.record_loss(1, x, y) for x, y in mb])
                     for a, mb in zip(weights([2, 1]), [[(1, 0), (2, 0)], [(3, 0)]])),
                    sp.S.Zero),
            },
            expected={"weights": ["2/3", "1/3"], "L": "7/3", "weighted L_k": "7/3"},
        ),
    ),
)
