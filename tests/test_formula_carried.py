"""A claim that follows from the author's own wrong formula answer is carried forward from it
(issue 24): the formula's value on the exercise's values, worked out here with Fractions from
the claimed formula by hand (never derive's own values), is what the later claim is compared
with."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.render.labels import explanation

W, LR, LAMBDA = F("0.8"), F("0.1"), F("0.01")
BATCHES = [[(F("0.3127"), F("1.1")), (F("1.5"), F("2.9"))], [(F("-1.0462"), F("-2.4"))]]

EXERCISE = """[[exercise]]
id = "acc"
recipe = "formulas"
[exercise.given]
w = 0.8
lr = 0.1
lambda_wd = 0.01
microbatches = [[[0.3127, 1.1], [1.5, 2.9]], [[-1.0462, -2.4]]]
[exercise.define]
ell = "(w*x_i - y_i)^2/2"
mb_loss = "mean_{{i in B_k}}(ell_i)"
mb_grad = "grad(mb_loss_k, w)"
accumulated = "sum_k(n_k/N*mb_grad_k)"
gradient = "accumulated + lambda_wd*w"
w_new = "w - lr*gradient"
[exercise.claims]
accumulated = {{ formula = "{formula}" }}
gradient = {gradient}
"""


def mb_grads() -> list[F]:
    return [sum((W * x - y) * x for x, y in b) / len(b) for b in BATCHES]


def one_over_k() -> F:
    """accumulated claimed as mean_k(mb_grad_k): 1/K for each microbatch."""
    g = mb_grads()
    return sum(g) / len(g)


def right() -> F:
    n = sum(len(b) for b in BATCHES)
    return sum(len(b) * g for b, g in zip(BATCHES, mb_grads())) / n


def places4(q: F) -> str:
    """q to 4 places (no tie here), as a decimal string."""
    n = round(q * 10_000)
    sign, n = ("-" if n < 0 else ""), abs(n)
    return f"{sign}{n // 10_000}.{n % 10_000:04d}"


def check(tmp_path, formula: str, gradient: str):
    path = tmp_path / "acc.toml"
    path.write_text(EXERCISE.format(formula=formula, gradient=gradient), encoding="utf-8")
    return {c.name: c for c in check_exercise(load_file(path)[0]).claims}


def test_a_value_from_the_authors_wrong_formula_is_carried_from_it(tmp_path):
    claimed = places4(one_over_k() + LAMBDA * W)
    assert claimed == "-1.5136"  # the bank's claim, from the hand-written formula
    got = check(tmp_path, "mean_k(mb_grad_k)", claimed)
    assert got["accumulated"].status == "wrong"
    d = got["gradient"].diagnosis
    assert got["gradient"].status == "wrong"
    assert d.carried_from == "accumulated" and d.carried == ("accumulated",)
    assert d.first_wrong == "accumulated"
    assert d.mistake is None
    assert ("follows correctly from your wrong accumulated (your formula's value on this "
            "exercise)") in d.explanation
    assert "你的公式在本题数值上的值" in explanation(d, "zh")


@pytest.mark.parametrize("formula, gradient", [
    # one digit off the value carried from the wrong formula (-1.5136)
    ("mean_k(mb_grad_k)", "-1.5137"),
    # another wrong formula (the sum): the 1/K value does not follow from it
    ("sum_k(mb_grad_k)", "-1.5136"),
])
def test_a_near_miss_or_another_formula_is_not_carried(tmp_path, formula, gradient):
    assert places4(one_over_k() + LAMBDA * W) == "-1.5136"
    got = check(tmp_path, formula, gradient)
    assert got["accumulated"].status == "wrong"
    d = got["gradient"].diagnosis
    assert got["gradient"].status == "wrong"
    assert d.carried_from is None and d.carried == ()


def test_a_right_formula_carries_nothing(tmp_path):
    # accumulated right (as a formula), gradient the 1/K value: no wrong claim to carry from
    got = check(tmp_path, "sum_k(n_k/N*mb_grad_k)", places4(one_over_k() + LAMBDA * W))
    assert got["accumulated"].status == "equivalent"
    d = got["gradient"].diagnosis
    assert d.carried_from is None and d.first_wrong == "gradient"
    assert places4(right() + LAMBDA * W) != places4(one_over_k() + LAMBDA * W)


MOMENTUM = """[[exercise]]
id = "mom"
recipe = "formulas"
[exercise.given]
w0 = 0.5
lr = 0.05
beta = 0.9
steps = 3
records = [[0.3127, 2.9381], [-1.0462, -1.1386], [1.5, 6.5]]
[exercise.define]
loss = "mean_i((w_{{t-1}}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{{t-1}})"
v = {{ formula = "beta*v_{{t-1}} + g_t", start = "0" }}
w = {{ formula = "w_{{t-1}} - lr*v_t", start = "w0" }}
[exercise.claims]
v = {{ formula = "g_t" }}
w = [{w}]
"""
RECORDS = [(F("0.3127"), F("2.9381")), (F("-1.0462"), F("-1.1386")), (F("1.5"), F("6.5"))]


def plain_sgd(w: F, lr: F, steps: int) -> list[F]:
    """w stepped along the gradient itself (the buffer v claimed as g_t: momentum forgotten)."""
    out = []
    for _ in range(steps):
        w = w - lr * sum((w * x - y) * x for x, y in RECORDS) / len(RECORDS)
        out.append(w)
    return out


def test_a_trajectory_from_a_wrong_per_step_formula_is_carried_from_it(tmp_path):
    ws = [places4(w) for w in plain_sgd(F("0.5"), F("0.05"), 3)]
    path = tmp_path / "mom.toml"
    path.write_text(MOMENTUM.format(w=", ".join(ws)), encoding="utf-8")
    got = {c.name: c for c in check_exercise(load_file(path)[0]).claims}
    assert got["v"].status == "wrong" and got["v"].diagnosis.mistake == "v_momentum_forgotten"
    d = got["w"].diagnosis
    assert got["w"].status == "wrong" and d.carried_from == "v"
    assert "your wrong v (your formula's value on this exercise)" in d.explanation
    # a near miss: the last step one digit off is not carried
    last = ws[-1][:-1] + str((int(ws[-1][-1]) + 1) % 10)
    path.write_text(MOMENTUM.format(w=", ".join([*ws[:-1], last])), encoding="utf-8")
    got = {c.name: c for c in check_exercise(load_file(path)[0]).claims}
    assert got["w"].status == "wrong" and got["w"].diagnosis.carried_from is None
