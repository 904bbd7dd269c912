"""micro-steps — stepping after every microbatch is a different trajectory.

    w_k = w_{k−1} − η·∇L_k(w_{k−1})  (k = 1 … K)   ≠   w − η·∇L(w)
"""

from derive.model import schemes
from derive.model.objective import sgd_update
from derive.statements import REFUTED, Instance, Schema, Statement

from .course_data import THREE_LR, THREE_RECORDS, THREE_W
from .families import linear_window, partitions


def instantiate(sizes):
    return linear_window(
        sizes,
        lambda mbs, w_, eta_: schemes.micro_steps(mbs, w_, eta_)[-1],
        lambda mbs, w_, eta_: sgd_update(w_, eta_, schemes.batch_gradient(mbs, w_)),
        with_eta=True,
    )


def reading():
    steps = schemes.micro_steps(THREE_RECORDS, THREE_W, THREE_LR)
    g = schemes.batch_gradient(THREE_RECORDS, THREE_W)
    return {
        "w after microbatch 1": steps[0],
        "gradient of microbatch 2 at that w":
            schemes.mean_gradients(THREE_RECORDS[1:], steps[0])[0],
        "w after microbatch 2": steps[1],
        "accumulated w_new": sgd_update(THREE_W, THREE_LR, g),
    }


STATEMENT = Statement(
    id="micro-steps",
    title="Stepping after each microbatch is not the accumulated update",
    title_zh="每个微批后都更新,不等于累积后的一次更新",
    expect=REFUTED,
    claim="w_K (one SGD step per microbatch, each at its own current w) = w − η·∇L(w)",
    assumptions=("the lesson's model ŷ = w·x, ℓ = (ŷ − y)²/2", "η > 0, K ≥ 2 microbatches"),
    schema=Schema(partitions, instantiate),
    notes=("the gap is measured by micro-steps-difference, micro-steps-scaled and "
           "micro-steps-first-order; no condition on the data makes it vanish in general",),
    instances=(
        Instance(
            label="three records from w = 1, η = 0.1: 1 → 0.75 → 0.075, not 8/15",
            source="reading, 逐微批更新为什么是另一条训练轨迹",
            compute=reading,
            expected={"w after microbatch 1": "0.75",
                      "gradient of microbatch 2 at that w": "6.75",
                      "w after microbatch 2": "0.075",
                      "accumulated w_new": "8/15"},
        ),
    ),
)
