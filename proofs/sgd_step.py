"""sgd-step — one update of ŷ = w·x with L = (ŷ − y)²/2, as the lesson computes it.

    g = ∂L/∂w = (w·x − y)·x,   w_new = w − η·g
"""

from derive.model import linear
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import EXERCISE1_LR, SINGLE_LR, SINGLE_RECORD, SINGLE_W

w, x, y = linear.w, linear.x, linear.y
loss = linear.record_loss(w, x, y)


def one_step(lr):
    (x_, y_), w_ = SINGLE_RECORD[0], SINGLE_W
    g = linear.record_gradient(w_, x_, y_)
    w_new = linear.sgd_update(w_, lr, g)
    return {
        "prediction": linear.prediction(w_, x_),
        "loss": linear.record_loss(w_, x_, y_),
        "gradient": g,
        "w_new": w_new,
        "prediction_new": linear.prediction(w_new, x_),
        "loss_new": linear.record_loss(w_new, x_, y_),
    }


STATEMENT = Statement(
    id="sgd-step",
    title="The lesson's gradient (w·x − y)·x is the derivative of (w·x − y)²/2",
    title_zh="课程中的梯度 (w·x − y)·x 是 (w·x − y)²/2 的导数",
    expect=PROVED,
    claim="∂/∂w [(w·x − y)²/2] = (w·x − y)·x",
    assumptions=("w, x, y real; no bias (b = 0)",),
    lhs=linear.gradient_formula("w").subs(linear.b, 0),
    rhs=(w * x - y) * x,
    proof=calc(
        linear.gradient_formula("w").subs(linear.b, 0),
        ((w * x - y) * x, "chain rule: ½·2·(w·x − y)·∂(w·x − y)/∂w"),
    ),
    instances=(
        Instance(
            label="x = 2, y = 4 from w = 1, η = 0.1",
            source="lesson, 从 w=1 开始",
            compute=lambda: one_step(SINGLE_LR),
            expected={"prediction": 2, "loss": 2, "gradient": -4, "w_new": "1.4",
                      "prediction_new": "2.8", "loss_new": "0.72"},
        ),
        Instance(
            label="the same record with η = 0.05",
            source="lesson, exercise 1 and its reference answer",
            compute=lambda: one_step(EXERCISE1_LR),
            expected={"prediction": 2, "loss": 2, "gradient": -4, "w_new": "1.2",
                      "loss_new": "1.28"},
        ),
    ),
)
