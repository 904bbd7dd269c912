"""momentum-restore — resuming SGD with momentum from w alone (the buffer reset) changes the
next update: the lesson's question "why is saving only w not enough".

    step 2 from (w_1, b_1)  ≠  step 2 from (w_1, no buffer)
"""

import sympy as sp

from derive.optimizers import Optimizer, State, step
from derive.statements import REFUTED, Instance, Schema, Statement

from .course_data import SINGLE_LR, SINGLE_RECORD, SINGLE_W
from .optimizer_families import batch_gradient, instantiation, shapes

mu = sp.Symbol("mu", positive=True)


def second_steps(G, w, eta, momentum):
    opt = Optimizer.make("sgd", momentum=momentum)
    w1, state = step(w, G(w), State(), opt, eta)
    full, _ = step(w1, G(w1), state, opt, eta)
    reset, _ = step(w1, G(w1), State(), opt, eta)
    return w1, state.buffer, full, reset


def lesson():
    G = batch_gradient(SINGLE_RECORD)
    w1, buf, full, reset = second_steps(G, SINGLE_W, SINGLE_LR, sp.Rational(9, 10))
    return {"w_1": w1, "buffer after step 1": buf, "w_2 (w and buffer restored)": full,
            "w_2 (only w restored)": reset}


STATEMENT = Statement(
    id="momentum-restore",
    title="Resuming SGD with momentum from w alone changes the next update",
    title_zh="只恢复 w 就继续带动量的 SGD,会改变下一步更新",
    expect=REFUTED,
    claim="w_2 after restoring only w_1 (buffer reset) = w_2 after restoring w_1 and its buffer",
    assumptions=("torch.optim.SGD with momentum μ > 0, dampening 0",
                 "the lesson's model on the same batch at every step"),
    schema=Schema(shapes, lambda n: instantiation(
        n, lambda G, w, eta: second_steps(G, w, eta, mu)[3:1:-1], extra=(mu,))),
    holds_when=("momentum-full-state",),
    notes=("the exact gap is momentum-restore-difference: −η·(μ·b_1 − τ·g_2)",),
    instances=(
        Instance(
            label="the lesson's record (2, 4) from w = 1, η = 0.1, momentum 0.9",
            source="constructed from the lesson's numbers (读公式,核对更新语义)",
            compute=lesson,
            expected={"w_1": "1.4", "buffer after step 1": -4,
                      "w_2 (w and buffer restored)": "2", "w_2 (only w restored)": "1.64"},
        ),
    ),
)
