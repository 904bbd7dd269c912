"""mean-of-means-equal-sizes — with equal microbatches, 1/K is the right weight.

    n_k = m for every k  ⇒  (1/K) Σ_k L_k(θ) = L(θ),  N = m·K.
"""

from derive.model import schemes
from derive.model.objective import K, over_microbatches
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import TWO_RECORDS, TWO_W
from .equal_sizes import microbatch_gradient, target

mean_of_means = over_microbatches(microbatch_gradient) / K

STATEMENT = Statement(
    id="mean-of-means-equal-sizes",
    title="When every microbatch has m records, the 1/K mean of means is the batch gradient",
    title_zh="各微批都有 m 条记录时,1/K 均值的均值就是整批梯度",
    expect=PROVED,
    claim="n_k = m for all k  ⇒  (1/K) Σ_k ∇L_k(θ) = ∇L(θ)",
    assumptions=("the assumptions of A2", "every microbatch has the same size m ≥ 1, N = m·K"),
    lhs=mean_of_means,
    rhs=target,
    proof=calc(
        mean_of_means,
        (target, "n_k/N = m/(m·K) = 1/K, then A2"),
    ),
    instances=(
        Instance(
            label="two records (1,2), (3,6), one per microbatch: (−1 − 9)/2",
            source="lesson, 小批次累积 (每份梯度除以 2 后累加)",
            compute=lambda: {
                "mean of means": schemes.mean_of_means(schemes.mean_gradients(TWO_RECORDS, TWO_W)),
                "∇L": schemes.batch_gradient(TWO_RECORDS, TWO_W),
            },
            expected={"mean of means": -5, "∇L": -5},
        ),
    ),
)
