"""Claims of issue 34 decided again, and the rules that decide them kept sound.

* `l1-formula`: mean_i(r_i/|r_i|·x_i) against the gradient of mean_i(|r_i|), which sympy.diff
  gives as sign(r_i)·x_i. The claim has a value only where every r_i ≠ 0, and there
  r/|r| = sign(r): equivalent. Two rules: |u| ≠ 0 (and |u| > 0) is u ≠ 0 in a claim's domain
  (definedness._simplest), and sign(u) = |u|/u where u ≠ 0 (normal_form.signs_as_quotients,
  tried when the normal form is not 0).

Expected values are worked out here by hand with SymPy rationals and Fractions, never taken
from derive's output; the soundness properties judge the kernel with tests/reference.py.
"""

from __future__ import annotations

import json
from fractions import Fraction

import reference as ref
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.cli.main import main

L1 = '''[[exercise]]
id = "l1-formula"
recipe = "formulas"
[exercise.given]
w = 0.5
lr = 0.1
records = { columns = ["x", "y"], rows = [[1, 2], [2, -1], [-1, 0.5]] }
[exercise.define]
r = "w*x_i - y_i"
loss = "mean_i(abs(r_i))"
gradient = "grad(loss, w)"
[exercise.claims]
gradient = { formula = "mean_i(r_i/abs(r_i)*x_i)" }
'''

def _check(tmp_path, capsys, text: str) -> tuple[int, dict]:
    path = tmp_path / "i34.toml"
    path.write_text(text, encoding="utf-8")
    code = main(["check", str(path), "--format", "json", "--no-cache"])
    out, err = capsys.readouterr()
    assert err == ""
    return code, json.loads(out)["exercises"][0]["claims"][0]


def test_l1_formula_is_equivalent(tmp_path, capsys):
    """r/|r|·x = sign(r)·x wherever r ≠ 0, the only points where the claim has a value."""
    code, claim = _check(tmp_path, capsys, L1)
    assert (code, claim["status"]) == (0, "equivalent"), claim


def test_l1_formula_with_the_sign_flipped_is_wrong(tmp_path, capsys):
    code, claim = _check(tmp_path, capsys, L1.replace('"mean_i(r_i/abs(r_i)*x_i)"',
                                                      '"-mean_i(r_i/abs(r_i)*x_i)"'))
    assert (code, claim["status"]) == (1, "wrong"), claim


# ------------------------------------------------------------------ soundness of the rules

x, y, z = sp.symbols("x y z", real=True)
LINEAR = st.tuples(st.integers(-2, 2), st.integers(-2, 2), st.integers(-2, 2)).filter(
    lambda c: c[0] or c[1])


def _form(c) -> sp.Expr:
    return c[0] * x + c[1] * y + c[2]


def _judge(lhs, rhs, facts=()):
    """The independent judge on a grid of small rationals: a point where both sides are
    defined and differ, else None."""
    grid = [Fraction(p, q) for q in (1, 2, 3) for p in range(-4, 5)]
    for px in grid:
        for py in grid:
            env = {x: sp.Rational(px), y: sp.Rational(py), z: sp.Rational(px + py, 3)}
            left, right = ref.evaluate(lhs, env), ref.evaluate(rhs, env)
            if left is not ref.UNDEFINED and right is not ref.UNDEFINED and ref.differ(
                    left, right):
                return env
    return None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(LINEAR, st.integers(-2, 2), st.sampled_from(["q", "r", "s"])),
                min_size=1, max_size=3),
       st.lists(st.tuples(LINEAR, st.integers(-2, 2)), min_size=0, max_size=2),
       st.booleans())
def test_sign_quotients_never_prove_a_false_claim(left, right, same):
    """Σ c·u/|u| (or c·|u|/u, or c·sign(u)) against Σ d·sign(v): proved only when the judge
    finds no point where both sides are defined and differ, refuted only at such a point.
    `same` adds the left side's own terms as signs, so that true claims occur too."""
    from derive.kernel import decide
    lhs, rhs = sp.S.Zero, sp.S.Zero
    for form, c, kind in left:
        u = _form(form)
        lhs += c * {"q": u / sp.Abs(u), "r": sp.Abs(u) / u, "s": sp.sign(u)}[kind] * z
        if same:
            rhs += c * sp.sign(u) * z
    for form, d in right:
        rhs += d * sp.sign(_form(form))
    decision = decide(lhs, rhs)
    found = _judge(lhs, rhs)
    if decision.verdict.value == "proved":
        assert found is None, f"{lhs} = {rhs} proved, but the sides differ at {found}"
    if decision.verdict.value == "refuted":
        at = dict(decision.witness.symbols)
        assert ref.differ(ref.evaluate(lhs, at), ref.evaluate(rhs, at))
    if same and not right:  # true wherever defined: the rules decide it
        assert decision.verdict.value == "proved", (lhs, rhs, decision)


def test_a_sign_that_may_be_zero_is_not_rewritten():
    """sign(x)²·y/|y| = y/|y| is false at x = 0 (0 against ±1), where both sides are defined:
    y/|y| makes y ≠ 0 known, never x."""
    from derive.kernel import decide
    d = decide(sp.sign(x) ** 2 * y / sp.Abs(y), y / sp.Abs(y))
    assert d.verdict.value == "refuted" and dict(d.witness.symbols)[x] == 0, d
