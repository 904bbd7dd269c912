"""adamw-vs-l2 — AdamW's decoupled weight decay is not Adam with L2 weight decay.

    AdamW:  θ ← θ·(1 − η·λ), then the Adam update of g
    Adam:   g ← g + λ·θ, then the Adam update of that g
"""

import sympy as sp

from derive.optimizers import Optimizer, State, step
from derive.statements import REFUTED, Instance, Schema, Statement

from .course_data import SINGLE_LR, SINGLE_RECORD, SINGLE_W
from .optimizer_families import batch_gradient, instantiation, shapes

lam = sp.Symbol("lambda", positive=True)


def one_step(G, w, eta, decay):
    adamw, _ = step(w, G(w), State(), Optimizer.make("adamw", weight_decay=decay), eta)
    adam, _ = step(w, G(w), State(), Optimizer.make("adam", weight_decay=decay), eta)
    return adamw, adam


def lesson():
    adamw, adam = one_step(batch_gradient(SINGLE_RECORD), SINGLE_W, SINGLE_LR,
                           sp.Rational(1, 100))
    return {"AdamW w_1": adamw, "Adam (L2) w_1": adam}


STATEMENT = Statement(
    id="adamw-vs-l2",
    title="AdamW's decoupled decay is not Adam with L2 weight decay",
    title_zh="AdamW 的解耦权重衰减不等于带 L2 衰减的 Adam",
    expect=REFUTED,
    claim="one AdamW step with weight decay λ = one Adam step with weight_decay λ",
    assumptions=("torch.optim.Adam/AdamW, β = (0.9, 0.999), ε = 1e-8; λ > 0",
                 "the lesson's model; the first step from a fresh state"),
    schema=Schema(shapes, lambda n: instantiation(
        n, lambda G, w, eta: one_step(G, w, eta, lam), extra=(lam,))),
    instances=(
        Instance(
            label="the lesson's record (2, 4) from w = 1, η = 0.1, λ = 0.01",
            source="constructed from the lesson's numbers",
            compute=lesson,
            expected={"AdamW w_1": "439600000999/400000001000",
                      "Adam (L2) w_1": "438900001/399000001"},
        ),
    ),
)
