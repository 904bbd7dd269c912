"""adam-step-count — resuming Adam with m and v restored but the step count reset changes the
next update: the bias corrections 1 − β₁ᵗ and 1 − β₂ᵗ depend on t.

    step 2 from (w_1, m_1, v_1, t = 1)  ≠  step 2 from (w_1, m_1, v_1, t = 0)
"""


from derive.optimizers import Optimizer, State, step
from derive.statements import REFUTED, Instance, Schema, Statement

from .course_data import SINGLE_LR, SINGLE_RECORD, SINGLE_W
from .optimizer_families import batch_gradient, instantiation, shapes

ADAM = Optimizer.make("adam")


def second_steps(G, w, eta):
    w1, state = step(w, G(w), State(), ADAM, eta)
    full, _ = step(w1, G(w1), state, ADAM, eta)
    reset, _ = step(w1, G(w1), state.replace(t=0), ADAM, eta)
    return w1, full, reset


def lesson():
    w1, full, reset = second_steps(batch_gradient(SINGLE_RECORD), SINGLE_W, SINGLE_LR)
    return {"w_1": w1}


STATEMENT = Statement(
    id="adam-step-count",
    title="Resuming Adam without its step count changes the bias correction",
    title_zh="恢复 Adam 时不恢复步数,会改变偏差校正",
    expect=REFUTED,
    claim="w_2 after restoring (w_1, m_1, v_1) with t reset to 0 = w_2 after restoring t = 1 too",
    assumptions=("torch.optim.Adam with PyTorch's defaults: β = (0.9, 0.999), ε = 1e-8",
                 "the lesson's model on the same batch at every step"),
    schema=Schema(shapes, lambda n: instantiation(
        n, lambda G, w, eta: second_steps(G, w, eta)[:0:-1])),
    instances=(
        Instance(
            label="the lesson's record (2, 4) from w = 1, η = 0.1: Adam's first step",
            source="constructed from the lesson's numbers",
            compute=lesson,
            expected={"w_1": "440000001/400000001"},
        ),
    ),
)
