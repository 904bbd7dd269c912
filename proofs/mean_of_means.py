"""mean-of-means — averaging microbatch means with 1/K is not the batch gradient.

    (1/K) Σ_k ∇L_k(θ) ≠ ∇L(θ)   in general; equal when all n_k are equal
    (statement mean-of-means-equal-sizes).
"""

from derive.model import schemes
from derive.model.objective import (
    K,
    batch_objective,
    grad,
    microbatch_objective,
    over_microbatches,
    sgd_update,
)
from derive.statements import REFUTED, Family, Instance, Statement

from .course_data import EXERCISE2_MEANS, EXERCISE2_SIZES, THREE_LR, THREE_RECORDS, THREE_W
from .families import lesson_window, partitions


def three_records():
    means = schemes.mean_gradients(THREE_RECORDS, THREE_W)
    wrong = schemes.mean_of_means(means)
    return {
        "mean of means": wrong,
        "∇L": schemes.batch_gradient(THREE_RECORDS, THREE_W),
        "w_new (mean of means)": sgd_update(THREE_W, THREE_LR, wrong),
    }


STATEMENT = Statement(
    id="mean-of-means",
    title="Averaging microbatch means with 1/K changes the objective",
    title_zh="用 1/K 平均微批均值会改变训练目标",
    expect=REFUTED,
    claim="(1/K) Σ_k ∇L_k(θ) = ∇L(θ)",
    assumptions=("the assumptions of A2", "the lesson's model ŷ = w·x, ℓ = (ŷ − y)²/2"),
    lhs=over_microbatches(lambda k: grad(microbatch_objective(k))) / K,
    rhs=grad(batch_objective()),
    family=Family(partitions, lesson_window),
    holds_when=("mean-of-means-equal-sizes",),
    instances=(
        Instance(
            label="three records at w = 1, microbatches of 2 and 1",
            source="reading, 三条记录",
            compute=three_records,
            expected={"mean of means": "5.75", "∇L": "14/3",
                      "w_new (mean of means)": "0.425"},
        ),
        Instance(
            label="microbatches of 2 and 1 records with mean gradients 3 and 9",
            source="lesson, exercise 2: (2×3 + 1×9)/3 = 5, not 6",
            compute=lambda: {
                "mean of means": schemes.mean_of_means(EXERCISE2_MEANS),
                "∇L": schemes.accumulated_gradient(EXERCISE2_SIZES, EXERCISE2_MEANS),
            },
            expected={"mean of means": 6, "∇L": 5},
        ),
    ),
)
