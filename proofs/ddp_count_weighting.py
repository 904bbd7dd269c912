"""ddp-count-weighting — dividing each rank's summed loss by the global item count N (what
`num_items_in_batch` gives) and multiplying by the world size R undoes the all-reduce mean:

    (1/R)·Σ_r R·(1/N)·∇Σ_{i∈B_r} ℓ_i = ∇L     (A2, line 2, with ranks)
"""

import sympy as sp

from derive.model import schemes
from derive.model.objective import (
    K,
    N,
    batch_objective,
    block_sum,
    grad,
    over_microbatches,
    record_loss,
)
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import THREE_RECORDS, THREE_W

R = K  # ranks play the role of microbatches
per_rank = over_microbatches(lambda r: R * grad(block_sum(record_loss, r)) / N)
lhs = per_rank / R
rhs = grad(batch_objective())


def reading():
    sums = schemes.gradient_sums(THREE_RECORDS, THREE_W)
    ranks, items = len(sums), sum(len(mb) for mb in THREE_RECORDS)
    return {"all-reduce mean": sp.Add(*[ranks * s / items for s in sums]) / ranks}


STATEMENT = Statement(
    id="ddp-count-weighting",
    title="Per-rank sums over the global count, times R, average back to the batch gradient",
    title_zh="各卡求和后除以全局个数再乘 R,平均后回到整批梯度",
    expect=PROVED,
    claim="(1/R)·Σ_r R·∇(Σ_{i∈B_r} ℓ_i)/N = ∇L",
    assumptions=("the assumptions of A2 with R ranks for K microbatches",
                 "N = Σ_r n_r, the global item count, known on every rank"),
    lhs=lhs,
    rhs=rhs,
    proof=calc(lhs, (rhs, "R/R = 1, then A2 line 2")),
    instances=(
        Instance(label="the reading's three records on two ranks at w = 1",
                 source="reading, 三条记录 (ranks for microbatches)", compute=reading,
                 expected={"all-reduce mean": "14/3"}),
    ),
)
