"""A claim whose sides have no value at any point its facts allow is not proved: relu′(0) = 7
given u = 0 would be as proved as relu′(0) = 0 (d relu(u)/du exists nowhere there). Where some
case has points, the other cases still carry the proof (d|x|/dx = 1 for x ≥ 0)."""

import pytest
import sympy as sp

from derive.kernel import Verdict, decide, hypothesis
from derive.kernel.functions import relu

u = sp.Symbol("u", real=True)
at_zero = [hypothesis(u, "u ≥ 0"), hypothesis(-u, "u ≤ 0")]


@pytest.mark.parametrize("value", [0, 1, 7, sp.Rational(1, 2)])
def test_a_derivative_that_exists_nowhere_proves_nothing(value):
    d = decide(sp.Derivative(relu(u), u), value, at_zero)
    assert d.verdict is Verdict.UNKNOWN
    assert "no value at any point the facts allow" in d.detail


@pytest.mark.parametrize(("expr", "value", "facts"), [
    (sp.Derivative(sp.Abs(u), u), 1, [hypothesis(u, "u ≥ 0")]),
    (sp.Derivative(relu(u), u), 1, [hypothesis(u, "u ≥ 0")]),
    (sp.Derivative(relu(u), u), 0, [hypothesis(-u, "u ≤ 0")]),
])
def test_cases_with_points_still_carry_a_proof(expr, value, facts):
    assert decide(expr, value, facts).verdict is Verdict.PROVED


@pytest.mark.parametrize(("expr", "value", "facts"), [
    (sp.Derivative(sp.Abs(u), u), 5, [hypothesis(u, "u ≥ 0")]),
    (sp.Derivative(relu(u), u), 0, [hypothesis(u, "u ≥ 0")]),
])
def test_false_on_the_points_that_exist_is_refuted(expr, value, facts):
    assert decide(expr, value, facts).verdict is Verdict.REFUTED
