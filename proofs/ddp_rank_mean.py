"""ddp-rank-mean — data parallelism that averages per-rank mean gradients (DDP's all-reduce
mean) over ranks holding unequal numbers of items is the 1/K mistake, with ranks for
microbatches.

    (1/R)·Σ_r ∇L_r ≠ ∇L   when the ranks' counts n_r differ
"""

from derive.model import schemes
from derive.statements import REFUTED, Instance, Schema, Statement

from .course_data import THREE_RECORDS, THREE_W
from .families import linear_window, partitions


def instantiate(sizes):
    inst = linear_window(sizes, lambda mbs, w: schemes.mean_of_means(
        schemes.mean_gradients(mbs, w)), schemes.batch_gradient)
    return type(inst)(**{**inst.__dict__, "shape": inst.shape.replace("n =", "items per rank")})


STATEMENT = Statement(
    id="ddp-rank-mean",
    title="Averaging per-rank means over unequal ranks is the 1/K mistake",
    title_zh="对记录数不等的各卡均值再取平均,就是 1/K 错误",
    expect=REFUTED,
    claim="(1/R)·Σ_r ∇L_r = ∇L, L_r the mean loss over rank r's n_r items",
    assumptions=("R ranks, rank r holds n_r ≥ 1 items; all-reduce averages the gradients",),
    schema=Schema(partitions, instantiate),
    holds_when=("ddp-count-weighting", "mean-of-means-equal-sizes"),
    instances=(
        Instance(
            label="the reading's three records on two ranks (2 and 1 items) at w = 1",
            source="reading, 三条记录 (ranks for microbatches)",
            compute=lambda: {"rank mean": schemes.mean_of_means(
                schemes.mean_gradients(THREE_RECORDS, THREE_W))},
            expected={"rank mean": "5.75"},
        ),
    ),
)
