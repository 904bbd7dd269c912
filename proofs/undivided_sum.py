"""undivided-sum — adding microbatch gradients without dividing is not the batch gradient.

    Σ_k ∇L_k(θ) ≠ ∇L(θ); with equal sizes it is K·∇L(θ) (statement undivided-sum-scale):
    the update's step becomes K·η.
"""

from derive.model import schemes
from derive.model.objective import (
    batch_objective,
    grad,
    microbatch_objective,
    over_microbatches,
    sgd_update,
)
from derive.statements import REFUTED, Family, Instance, Statement

from .course_data import TWO_LR, TWO_RECORDS, TWO_W
from .families import lesson_window, partitions


def lesson():
    total = schemes.sum_of_means(schemes.mean_gradients(TWO_RECORDS, TWO_W))
    return {"sum of gradients": total, "w_new (sum)": sgd_update(TWO_W, TWO_LR, total)}


STATEMENT = Statement(
    id="undivided-sum",
    title="Adding microbatch gradients without dividing changes the step's scale",
    title_zh="微批梯度直接相加不除,会改变步长尺度",
    expect=REFUTED,
    claim="Σ_k ∇L_k(θ) = ∇L(θ)",
    assumptions=("the assumptions of A2", "the lesson's model ŷ = w·x, ℓ = (ŷ − y)²/2"),
    lhs=over_microbatches(lambda k: grad(microbatch_objective(k))),
    rhs=grad(batch_objective()),
    family=Family(partitions, lesson_window),
    holds_when=("undivided-sum-scale",),
    instances=(
        Instance(
            label="two records (1,2), (3,6) at w = 1, η = 0.1, gradients added",
            source="lesson, 如果直接把两个梯度相加再更新, 会得到 w=2",
            compute=lesson,
            expected={"sum of gradients": -10, "w_new (sum)": 2},
        ),
    ),
)
