"""`toward = "w"` for `recipe = "formulas"` (issue 24): every accepted variant moves w toward
the least-squares w* of its records, and every rejected candidate does not, checked against a
hand-written Fraction trajectory (never derive's values)."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from derive.exercises import load
from derive.exercises.errors import ExerciseError
from derive.exercises.variants import generate

RECORDS = [(1, 2), (2, 3)]
LRS = ("0.1", "0.5", "0.9")
STARTS = range(-2, 5)

RECURRENCE = """[[exercise]]
id = "fv"
recipe = "formulas"
[exercise.given]
w0 = 0
lr = 0.1
beta = 0.9
steps = 2
records = [[1, 2], [2, 3]]
[exercise.define]
loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{t-1})"
v = { formula = "beta*v_{t-1} + g_t", start = "0" }
w = { formula = "w_{t-1} - lr*v_t", start = "w0" }
[exercise.claims]
v = [-4, -6.6]
[exercise.vary]
lr = { choices = [0.1, 0.5, 0.9] }
w0 = { from = -2, to = 4 }
[exercise.require]
toward = "w"
"""

ONE_STEP = """[[exercise]]
id = "fv1"
recipe = "formulas"
[exercise.given]
w = 0
lr = 0.1
records = { columns = ["y", "x"], rows = [[2, 1], [3, 2]] }
[exercise.define]
g = "mean_i((w*x_i - y_i)*x_i)"
w_new = "w - lr*g"
[exercise.claims]
w_new = 0.8
[exercise.vary]
lr = { choices = [0.1, 0.5, 0.9] }
w = { from = -2, to = 4 }
[exercise.require]
toward = "w"
"""


def after(w0: F, lr: F, steps: int, beta: F = F(0)) -> F:
    """w after `steps` steps of SGD with momentum β (torch's buffer, no dampening)."""
    w, v = w0, F(0)
    for _ in range(steps):
        v = beta * v + sum((w * x - y) * x for x, y in RECORDS) / len(RECORDS)
        w -= lr * v
    return w


def value(written) -> F:
    """A variant's given as an exact Fraction (a decimal keeps its written text)."""
    return F(getattr(written, "text", str(written)))


def moves_toward(w0: F, lr: F, steps: int, beta: F = F(0)) -> bool:
    star = F(sum(x * y for x, y in RECORDS), sum(x * x for x, _ in RECORDS))  # 8/5
    return abs(after(w0, lr, steps, beta) - star) < abs(w0 - star)


def test_the_last_step_decides():
    """With momentum the first step and the last disagree for some starts: the test below
    can tell which one derive reads."""
    assert any(moves_toward(F(w0), F(lr), 1, F(9, 10)) != moves_toward(F(w0), F(lr), 2,
                                                                        F(9, 10))
               for w0, lr in itertools.product(STARTS, LRS))


@pytest.mark.parametrize("text, start, steps, beta",
                         [(RECURRENCE, "w0", 2, F(9, 10)), (ONE_STEP, "w", 1, F(0))])
def test_toward_for_formulas(tmp_path, text, start, steps, beta):
    path = tmp_path / "v.toml"
    path.write_text(text, encoding="utf-8")
    ex, = load([str(path)])
    gen = generate(ex, 50, allow_fewer=True)
    accepted = {(value(v.given[start]), value(v.given["lr"])) for v in gen.variants}
    expected = {(F(w0), F(lr)) for w0, lr in itertools.product(STARTS, LRS)
                if moves_toward(F(w0), F(lr), steps, beta)}
    assert accepted == expected
    assert 0 < len(expected) < len(STARTS) * len(LRS)  # the condition rejects some


def test_toward_for_formulas_needs_x_and_y(tmp_path):
    path = tmp_path / "v.toml"
    path.write_text(ONE_STEP.replace('["y", "x"]', '["y", "z"]').replace("x_i", "z_i"),
                    encoding="utf-8")
    with pytest.raises(ExerciseError) as exc:
        load([str(path)])
    assert "require.toward" in str(exc.value) and "columns x and y" in str(exc.value)
