"""mse-convention — torch.nn.MSELoss (mean over all elements, no ½) gives twice the course's
gradient for the same records.

    ∂/∂w (1/N) Σ_i (w·x_i − y_i)²  =  2 · ∂/∂w (1/N) Σ_i (w·x_i − y_i)²/2
"""

import sympy as sp

from derive.model import linear, schemes
from derive.model.objective import batch_objective
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import THREE_RECORDS, THREE_W, TWO_RECORDS, TWO_W

X, Y = sp.IndexedBase("x", real=True), sp.IndexedBase("y", real=True)
N = sp.Symbol("N", integer=True, positive=True)
w = linear.w


def loss(convention):
    return batch_objective(lambda i: linear.record_loss(w, X[i], Y[i], convention=convention), N)


lhs = sp.Derivative(loss(linear.SQUARED), w)
rhs = 2 * sp.Derivative(loss(linear.HALF), w)


def both(mbs, w0):
    return {"MSELoss gradient": schemes.batch_gradient(mbs, w0, linear.SQUARED),
            "course gradient": schemes.batch_gradient(mbs, w0)}


STATEMENT = Statement(
    id="mse-convention",
    title="MSELoss (no ½, mean over elements) gives twice the course's gradient",
    title_zh="MSELoss(无 ½、对元素取均值)给出课程梯度的两倍",
    expect=PROVED,
    claim="∂/∂w mean((w·x − y)²) = 2·∂/∂w mean((w·x − y)²/2)",
    assumptions=("N ≥ 1 scalar records; MSELoss with reduction='mean' (its default)",),
    lhs=lhs,
    rhs=rhs,
    proof=calc(lhs, (rhs, "sympy.diff of each: 2·x_i·(w·x_i − y_i) against x_i·(w·x_i − y_i)")),
    instances=(
        Instance(label="the lesson's two records at w = 1", source="lesson, 小批次累积",
                 compute=lambda: both(TWO_RECORDS, TWO_W),
                 expected={"MSELoss gradient": -10, "course gradient": -5}),
        Instance(label="the reading's three records at w = 1",
                 source="reading (它不是torch.nn.MSELoss默认损失的原样表达)",
                 compute=lambda: both(THREE_RECORDS, THREE_W),
                 expected={"MSELoss gradient": "28/3", "course gradient": "14/3"}),
    ),
)
