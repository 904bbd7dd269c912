"""undivided-sum-scale — with K equal microbatches the undivided sum is K times the target.

    n_k = m for every k  ⇒  Σ_k ∇L_k(θ) = K·∇L(θ).
"""

from derive.model import schemes
from derive.model.objective import K, over_microbatches
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import TWO_RECORDS, TWO_W
from .equal_sizes import microbatch_gradient, target

total = over_microbatches(microbatch_gradient)

STATEMENT = Statement(
    id="undivided-sum-scale",
    title="With K equal microbatches, the undivided sum is K times the batch gradient",
    title_zh="K 个等长微批直接相加,是整批梯度的 K 倍",
    expect=PROVED,
    claim="n_k = m for all k  ⇒  Σ_k ∇L_k(θ) = K·∇L(θ)",
    assumptions=("the assumptions of A2", "every microbatch has the same size m ≥ 1, N = m·K"),
    lhs=total,
    rhs=K * target,
    proof=calc(total, (K * target, "Σ_k ∇L_k = K·(1/K)Σ_k ∇L_k, then mean-of-means-equal-sizes")),
    instances=(
        Instance(
            label="two records (1,2), (3,6) at w = 1: −10 = 2·(−5)",
            source="lesson, 小批次累积",
            compute=lambda: {
                "sum": schemes.sum_of_means(schemes.mean_gradients(TWO_RECORDS, TWO_W)),
                "K·∇L": 2 * schemes.batch_gradient(TWO_RECORDS, TWO_W),
            },
            expected={"sum": -10, "K·∇L": -10},
        ),
    ),
)
