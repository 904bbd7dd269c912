"""tail-divisor-scale — with K equal microbatches in a window planned for d, dividing by d
scales the gradient by K/d.

    n_k = m for every k  ⇒  (1/d) Σ_{k=1}^{K} ∇L_k(θ) = (K/d)·∇L(θ)
"""

import sympy as sp

from derive.model import schemes
from derive.model.objective import K, over_microbatches
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import TWO_RECORDS, TWO_W
from .equal_sizes import microbatch_gradient, target

d = sp.Symbol("d", integer=True, positive=True)


divided = over_microbatches(microbatch_gradient) / d


def constructed():
    means = schemes.mean_gradients(TWO_RECORDS, TWO_W)
    return {"divided by 4": schemes.divisor_gradient(means, 4),
            "(K/d)·∇L": sp.Integer(len(TWO_RECORDS)) / 4
            * schemes.batch_gradient(TWO_RECORDS, TWO_W)}


STATEMENT = Statement(
    id="tail-divisor-scale",
    title="Dividing K equal microbatches by a planned count d scales the gradient by K/d",
    title_zh="K 个等长微批除以计划个数 d,梯度缩放为 K/d",
    expect=PROVED,
    claim="n_k = m for all k  ⇒  (1/d) Σ_{k=1}^{K} ∇L_k(θ) = (K/d)·∇L(θ)",
    assumptions=("the assumptions of A2", "every microbatch has m ≥ 1 records",
                 "the divisor d ≥ 1 is fixed in advance"),
    lhs=divided,
    rhs=K / d * target,
    proof=calc(divided, (K / d * target, "undivided-sum-scale, divided by d")),
    instances=(
        Instance(
            label="the lesson's two records as a tail of 2 microbatches planned for 4",
            source="constructed from the lesson's numbers (reading: 继续除以四)",
            compute=constructed,
            expected={"divided by 4": "-2.5", "(K/d)·∇L": "-2.5"},
        ),
    ),
)
