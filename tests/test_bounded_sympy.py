"""No unbounded SymPy call (issue 33): each call that may run on (radsimp, minimal_polynomial,
solve, cancel and factor outside a decision, the zero test's rewrites) runs under
`timebound.attempt`, whose passing means "no answer" for that call alone; and a value over
three steps of nested roots and powers (NAdam-like) is checked well inside its bound, its
claims against mpmath at 50 digits."""

from __future__ import annotations

import importlib

import sympy as sp

import derive.recipes.base as base
import derive.recipes.own_terms as own_terms
from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.kernel import timebound
from derive.kernel.timebound import DecisionTimeout, attempt, time_bound

exact = importlib.import_module("derive.kernel.exact")  # the package exports a function so named


def _spin(*args):
    """Work that never ends by itself (a SymPy call that runs on): only a bound ends it."""
    n = 0
    while True:
        n += 1


def test_attempt_gives_the_default_when_its_bound_passes():
    assert attempt(0.2, _spin, default="none") == "none"
    assert attempt(0.2, lambda x: x + 1, 1) == 2


def test_an_outer_bound_that_passed_is_not_swallowed():
    """The outer bound passes while the inner attempt runs: the caller's work ends too."""
    try:
        with time_bound(0.2):
            attempt(30, _spin)
        raise AssertionError("the outer bound was swallowed")
    except DecisionTimeout as exc:
        assert exc.seconds == 0.2


def _bounded(f, *args):
    """f(*args) under an outer bound of 20 s: a call left unbounded inside fails the test."""
    with time_bound(20):
        return f(*args)


def test_radsimp_is_bounded(monkeypatch):
    """expand_exact keeps a value whose radsimp runs past SIMPLIFY_SECONDS as computed (a
    one-step value with a fourth root ran past 20 s)."""
    monkeypatch.setattr(base, "SIMPLIFY_SECONDS", 0.2, raising=False)
    monkeypatch.setattr(sp, "radsimp", _spin)
    v = 1 / (1 + sp.Integer(2) ** sp.Rational(1, 4))
    assert _bounded(base.expand_exact, v) == v


def test_the_exact_zero_test_is_bounded(monkeypatch):
    """Each of SymPy's zero tests on a closed value (here the logs over a coprime base, made to
    run on) is under ZERO_TEST_SECONDS: past it, no answer."""
    monkeypatch.setattr(exact, "ZERO_TEST_SECONDS", 0.2, raising=False)
    monkeypatch.setattr(exact, "_zero_over_log_base", _spin)
    v = sp.log(16) - 2 * sp.log(4)  # 0; SymPy's assumptions do not say so
    assert _bounded(exact.is_zero_exact, v) is None


def test_factoring_a_derivative_s_piece_is_bounded(monkeypatch):
    monkeypatch.setattr(own_terms, "SIMPLIFY_SECONDS", 0.2, raising=False)
    monkeypatch.setattr(sp, "factor", _spin)
    x = sp.Symbol("x_bounded", real=True)
    assert _bounded(own_terms._candidates, x ** 2 - 1, ()) == ()


def test_the_bound_is_restored_after_an_attempt():
    attempt(0.1, _spin)
    assert not timebound._active


NADAM = '''
[[exercise]]
id = "nadam3"
recipe = "formulas"

[exercise.given]
w0 = 1
lr = 0.002
beta1 = 0.9
beta2 = 0.999
eps = 1e-8
steps = 3
records = [[1, 2], [3, 6]]

[exercise.define]
loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{t-1})"
mu = "beta1*(1 - 1/2*0.96^(t/250))"
m = { formula = "beta1*m_{t-1} + (1 - beta1)*g_t", start = "0" }
v = { formula = "beta2*v_{t-1} + (1 - beta2)*g_t^2", start = "0" }
w = { formula = "w_{t-1} - lr*(mu_t*m_t/(1 - beta1^(t+1)) + (1 - mu_t)*g_t/(1 - beta1^t))/(sqrt(v_t/(1 - beta2^t)) + eps)", start = "w0" }

[exercise.claims]
w = ["1.01147229206", "1.01785774995", "1.02259106764"]
'''


def test_three_nadam_like_steps_are_checked_within_the_bound(tmp_path):
    """Nested roots and 250th roots of 0.96 over three steps (sp.N of such a value ran past
    five minutes): every claim rounded as mpmath at 50 digits gives it, inside a bound of
    30 s of CPU time (it takes a few seconds)."""
    path = tmp_path / "nadam.toml"
    path.write_text(NADAM)
    report = _bounded(check_exercise, load_file(path)[0])
    assert report.ok, [(c.name, c.status) for c in report.claims]
    assert [c.status for c in report.claims] == ["rounded"]
