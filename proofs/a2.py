"""A2 — unequal microbatches combine with weights n_k/N.

    ∇L(θ) = Σ_k (n_k/N)·∇L_k(θ)                 (line 1: weight the microbatch means)
          = (1/N) Σ_k ∇[Σ_{i∈B_k} ℓ_i(θ)]       (line 2: accumulate sums, divide once)

for symbolic K and n_k and an arbitrary per-record loss ℓ_i(θ).
"""

from derive.model import schemes
from derive.model.objective import (
    N,
    batch_objective,
    block_sum,
    grad,
    microbatch_objective,
    n,
    over_microbatches,
    record_loss,
    weight,
    weighted,
    weights,
)
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .course_data import (
    EXERCISE2_MEANS,
    EXERCISE2_SIZES,
    THREE_RECORDS,
    THREE_W,
    TWO_RECORDS,
    TWO_W,
)

ell = record_loss


def grad_ell(i):
    return grad(ell(i))


line1 = over_microbatches(lambda k: weighted(weight(n(k), N), grad(microbatch_objective(k))))
line2 = over_microbatches(lambda k: grad(block_sum(ell, k))) / N


def three_records():
    mbs, w = THREE_RECORDS, THREE_W
    means = schemes.mean_gradients(mbs, w)
    sizes = [len(mb) for mb in mbs]
    return {
        "record gradients": [g for mb in mbs for g in schemes.record_gradients(mb, w)],
        "microbatch gradient sums": schemes.gradient_sums(mbs, w),
        "microbatch mean gradients": means,
        "weights": weights(sizes),
        "∇L": schemes.batch_gradient(mbs, w),
        "line 1": schemes.accumulated_gradient(sizes, means),
        "line 2": sum(schemes.gradient_sums(mbs, w)) / sum(sizes),
    }


def two_records():
    mbs, w = TWO_RECORDS, TWO_W
    means = schemes.mean_gradients(mbs, w)
    return {
        "record gradients": means,
        "∇L": schemes.batch_gradient(mbs, w),
        "line 1": schemes.accumulated_gradient([1, 1], means),
    }


STATEMENT = Statement(
    id="A2",
    title="Unequal microbatches: weight the means by n_k/N, or sum and divide by N once",
    title_zh="不等长微批:按 n_k/N 加权微批均值,或先累加梯度和再统一除以 N",
    expect=PROVED,
    claim="∇L(θ) = Σ_k (n_k/N)·∇L_k(θ) = (1/N) Σ_k ∇[Σ_{i∈B_k} ℓ_i(θ)]",
    assumptions=(
        "the assumptions of A1 (K ≥ 1 nonempty disjoint microbatches covering N records)",
        "every ℓ_i is a differentiable function of θ alone (no term depends on other records)",
        "θ is the same in every term: no update inside the window",
        "θ is one real coordinate; for a vector θ the identity holds coordinate by coordinate",
    ),
    lhs=grad(batch_objective()),
    rhs=line2,
    proof=calc(
        grad(batch_objective()),
        (batch_objective(grad_ell), "∇ is linear and N does not depend on θ"),
        (over_microbatches(lambda k: block_sum(grad_ell, k)) / N,
         "the blocks B_1 … B_K partition the records 1 … N"),
        (over_microbatches(lambda k: weighted(weight(n(k), N), block_sum(grad_ell, k) / n(k))),
         "n_k/N · 1/n_k = 1/N, since n_k ≥ 1"),
        (line1, "∇ is linear: ∇L_k = (1/n_k) Σ_{i∈B_k} ∇ℓ_i  (line 1)"),
        (line2, "n_k/N · 1/n_k = 1/N, and ∇ is linear  (line 2)"),
    ),
    instances=(
        Instance(
            label="three records at w = 1, microbatches {(1,0), (2,0)} and {(3,0)}",
            source="reading, table and figure 1",
            compute=three_records,
            expected={
                "record gradients": [1, 4, 9],
                "microbatch gradient sums": [5, 9],
                "microbatch mean gradients": ["2.5", 9],
                "weights": ["2/3", "1/3"],
                "∇L": "14/3",
                "line 1": Rounded("4.666667"),
                "line 2": "14/3",
            },
        ),
        Instance(
            label="two records (1,2), (3,6) at w = 1, one per microbatch",
            source="lesson, 小批次累积",
            compute=two_records,
            expected={"record gradients": [-1, -9], "∇L": -5, "line 1": -5},
        ),
        Instance(
            label="microbatches of 2 and 1 records with mean gradients 3 and 9",
            source="lesson, exercise 2 and its reference answer",
            compute=lambda: {
                "∇L": schemes.accumulated_gradient(EXERCISE2_SIZES, EXERCISE2_MEANS),
            },
            expected={"∇L": 5},
        ),
    ),
)
