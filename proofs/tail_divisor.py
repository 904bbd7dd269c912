"""tail-divisor — a tail window that keeps dividing by the planned count is not the mean of
the records it actually holds.

    (1/d) Σ_{k=1}^{K} ∇L_k(θ) ≠ ∇L(θ)   for a window of K < d microbatches
"""

from derive.model import schemes
from derive.statements import REFUTED, Instance, Schema, Statement

from .course_data import THREE_RECORDS, THREE_W
from .families import linear_window, partitions


def shapes():
    """Each window shape, planned for one microbatch more than it holds."""
    for sizes in partitions():
        yield sizes, len(sizes) + 1


def instantiate(shape):
    sizes, planned = shape
    inst = linear_window(sizes, lambda mbs, w: schemes.divisor_gradient(
        schemes.mean_gradients(mbs, w), planned), schemes.batch_gradient)
    return type(inst)(**{**inst.__dict__, "shape": f"{inst.shape}, planned count d = {planned}"})


def constructed():
    means = schemes.mean_gradients(THREE_RECORDS, THREE_W)
    return {"divided by 4": schemes.divisor_gradient(means, 4),
            "∇L": schemes.batch_gradient(THREE_RECORDS, THREE_W)}


STATEMENT = Statement(
    id="tail-divisor",
    title="A tail window that keeps dividing by the planned count is not the mean of its records",
    title_zh="尾部窗口继续除以计划的个数,不是其实际记录的均值",
    expect=REFUTED,
    claim="(1/d) Σ_{k=1}^{K} ∇L_k(θ) = ∇L(θ) for a tail window of K < d microbatches",
    assumptions=("the lesson's model ŷ = w·x, ℓ = (ŷ − y)²/2",
                 "the window was planned for d microbatches and holds K < d"),
    schema=Schema(shapes, instantiate),
    holds_when=("tail-divisor-scale",),
    instances=(
        Instance(
            label="the reading's three records as the tail of a window planned for 4 microbatches",
            source="constructed from the reading's numbers (最后一个窗口)",
            compute=constructed,
            expected={"divided by 4": "23/8", "∇L": "14/3"},
        ),
    ),
)
