"""Questions as the lecturer poses them (issue 37, item 4): the precision a question asks is the
author's declaration ([exercise.ask.<quantity>]), else chosen from the exact answer, never from
the digits of a claim; a declaration's label and prompt reach the page; a bad declaration is one
line naming its key, exit 2.

Expected values are hand-written or computed here in Fractions: a terminating decimal's places
and significant digits, and rounding to significant figures, are re-derived below without
derive.
"""

from __future__ import annotations

import contextlib
import io
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.cli.main import main
from derive.exercises.bank import load
from derive.exercises.check import check_exercise
from derive.exercises.page import Ask, Rule, rule_of
from derive.exercises.report import page_exercises

SIG4 = Rule("test", test="sig", tolerance=sp.Integer(4))


def R(text: str) -> sp.Rational:
    return sp.Rational(text)


# ------------------------------------------------------------ the rule from the exact answer

@pytest.mark.parametrize("value, rule", [
    (sp.Integer(-4), Rule("exact")),
    (R("7/5"), Rule("exact")),                     # 1.4
    (R("18/25"), Rule("exact")),                   # 0.72
    (R("-18657/2500"), Rule("exact")),             # -7.4628: 4 places
    (R("89097/31250"), SIG4),                      # 2.851104: 6 places
    (R("14/3"), SIG4),                             # does not terminate
    (R("1953125/131072"), SIG4),                   # 14.901161…: 17 places
    (sp.sqrt(2), SIG4),                            # irrational
    ([R("1/5"), R("27/50")], Rule("exact")),       # [0.2, 0.54]
    ([R("21/50"), R("8543/6250"), R("89097/31250")],  # 0.42, 1.36688, 2.851104
     Rule("test", test="sig", tolerance=sp.Integer(4))),
    ([R("1367/1000"), R("14/3")],                  # 1.367 asked whole: 4 figures suffice
     Rule("test", test="sig", tolerance=sp.Integer(4))),
    ([R("-6317/100"), R("14/3")],                  # -63.17: still 4
     Rule("test", test="sig", tolerance=sp.Integer(4))),
    ([R("-12345/100"), R("14/3")],                 # -123.45 must not pass as -123.5: 5
     Rule("test", test="sig", tolerance=sp.Integer(5))),
    ([[sp.Integer(1953125), R("14/3")], [sp.Integer(0), sp.Integer(1)]],  # a matrix: 7
     Rule("test", test="sig", tolerance=sp.Integer(7))),
])
def test_rule_from_the_exact_answer(value, rule):
    assert rule_of(value) == rule


def test_a_declaration_decides():
    declared = Rule("places", places=3)
    assert rule_of(R("14/3"), Ask(declared)) == declared
    assert rule_of(sp.Integer(2), Ask(Rule("test", test="abs", tolerance=R("1/200")))) == \
        Rule("test", test="abs", tolerance=R("1/200"))
    assert rule_of(R("14/3"), Ask(None, ("g", "g"))) == SIG4  # a label alone: derive chooses


def _places(x: Fraction) -> int | None:
    """Digits after the point of x's decimal, None when it does not terminate (Fractions)."""
    for p in range(0, 40):
        if (x * 10**p).denominator == 1:
            return p
    return None


def _round_sig(x: Fraction, sig: int) -> Fraction:
    """x rounded half away from zero to `sig` significant figures, in Fractions."""
    if x == 0:
        return x
    a, e = abs(x), 0
    while a >= 10:
        a, e = a / 10, e + 1
    while a < 1:
        a, e = a * 10, e - 1
    scaled = abs(x) * Fraction(10) ** (sig - 1 - e)
    n = int(scaled)
    if scaled - n >= Fraction(1, 2):
        n += 1
    r = n * Fraction(10) ** (e - sig + 1)
    return r if x > 0 else -r


rationals = st.builds(Fraction, st.integers(-10**7, 10**7),
                      st.sampled_from([1, 2, 4, 5, 8, 10, 20, 25, 100, 125, 1000, 3, 7, 9, 12,
                                       10**4, 2**5 * 5**3, 10**5, 10**6, 2**20, 3 * 10**4]))


@settings(max_examples=300, deadline=None)
@given(st.lists(rationals, min_size=1, max_size=6), st.booleans())
def test_the_rule_never_lets_a_coarser_entry_pass(values, as_list):
    """Exact when every entry's decimal ends within 4 places (Fractions); else significant
    figures, at least 4, at which every such entry rounds to itself (so it is asked whole: no
    coarser writing of it passes) and no entry that does not terminate is asked to fewer than
    4."""
    value = [sp.Rational(v.numerator, v.denominator) for v in values]
    rule = rule_of(value if as_list or len(value) > 1 else value[0])
    short = [v for v in values if (p := _places(v)) is not None and p <= 4]
    if len(short) == len(values):
        assert rule == Rule("exact")
        return
    assert rule.kind == "test" and rule.test == "sig" and rule.tolerance >= 4
    sig = int(rule.tolerance)
    for v in short:
        assert _round_sig(v, sig) == v
    if sig > 4:  # the fewest figures that keep every short entry whole
        assert any(_round_sig(v, sig - 1) != v for v in short)


# ------------------------------------------------------------ never from a claim's digits

BASE = """[[exercise]]
id = "mb"
title = "two microbatches"
recipe = "accumulation"
[exercise.given]
w = 0
lr = 0.1
microbatches = [[[1, -0.2]], [[1, -0.54]], [[3, 14]]]
[exercise.claims]
microbatch_mean_gradients = {claims}
gradient = {gradient}
"""


def _rules(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "ex.toml"
    path.write_text(text, encoding="utf-8")
    (ex,) = load([str(path)])
    report = check_exercise(ex)
    [[page]] = page_exercises([report])
    return {a.name: a.rule for a in page.asked}


claim_texts = st.builds(lambda sign, whole, frac: f"{sign}{whole}" + (f".{frac}" if frac else ""),
                        st.sampled_from(["", "-"]), st.integers(0, 99),
                        st.text("0123456789", max_size=7))


@settings(max_examples=15, deadline=None)
@given(st.lists(claim_texts, min_size=3, max_size=3), claim_texts)
def test_the_rule_never_depends_on_the_claims_digits(tmp_path_factory, claims, gradient):
    """Whatever the author claims (right or wrong, with any digits), the rules are those of
    the exact answers: means 0.2, 0.54 and -42 (exact) and the gradient (0.2 + 0.54 - 42)/3 =
    -13.753333… (4 significant figures)."""
    rules = _rules(tmp_path_factory.mktemp("c"), BASE.format(
        claims="[" + ", ".join(claims) + "]", gradient=gradient))
    assert rules == {"microbatch_mean_gradients": Rule("exact"), "gradient": SIG4}


def test_regressions_of_issue_37(tmp_path):
    """A claim [0.2, 0.36] (the second value is 0.54) asked 1 place, so "0.2, 0.5" passed; a
    claim -5.5 asked 1 place. Now the means 0.2, 0.54, -5.52 are asked exactly, and the
    gradient (0.2 + 0.54 - 5.52)/3 = -1.593333… to 4 significant figures."""
    text = BASE.format(claims="[0.2, 0.36, -5.5]", gradient="-1.6").replace(
        "[[3, 14]]", "[[1, 5.52]]")
    assert _rules(tmp_path, text) == {"microbatch_mean_gradients": Rule("exact"),
                                      "gradient": SIG4}


# ------------------------------------------------------------ declarations

DECLARED = BASE.format(claims="[0.2, 0.54, -42]", gradient="-13.753") + """
[exercise.ask.gradient]
places = 3
label = { en = "mean gradient", zh = "平均梯度" }
prompt = "Average the three records' gradients."
[exercise.ask.w_new]
abs = "0.005"
"""


def test_a_declaration_sets_rule_label_and_prompt_and_adds_a_question(tmp_path):
    path = tmp_path / "ex.toml"
    path.write_text(DECLARED, encoding="utf-8")
    (ex,) = load([str(path)])
    [[page]] = page_exercises([check_exercise(ex)])
    asked = {a.name: a for a in page.asked}
    assert list(asked) == ["microbatch_mean_gradients", "gradient", "w_new"]  # w_new posed
    assert asked["gradient"].rule == Rule("places", places=3)
    assert asked["gradient"].words == ("mean gradient", "平均梯度")
    assert asked["gradient"].prompt == ("Average the three records' gradients.",) * 2
    assert asked["w_new"].rule == Rule("test", test="abs", tolerance=sp.Rational(1, 200))
    assert asked["microbatch_mean_gradients"].prompt == ("", "")


@pytest.mark.parametrize("body, line", [
    ("places = 1\nsig = 2", "key 'ask.gradient': declares places and sig; declare one "
     "precision: places, sig, abs, rel or exact"),
    ("place = 1", "key 'ask.gradient.place': is not a key of a question; did you mean "
     "'places'?"),
    ("abs = -0.1", "key 'ask.gradient.abs': is -0.1; a tolerance above 0, such as abs = "
     "\"0.005\" (or exact = true)"),
    ("rel = 0", "key 'ask.gradient.rel': is 0; a tolerance above 0, such as rel = \"1e-3\" (or "
     "exact = true)"),
    ("exact = false", "key 'ask.gradient.exact': is false; write exact = true, or leave it out "
     "for derive's choice"),
    ("sig = 0", "key 'ask.gradient.sig': is 0; write a whole number from 1 to 30"),
    ("places = 2.5", "key 'ask.gradient.places': is 2.5; write a whole number from 0 to 30"),
    ("label = 3", "key 'ask.gradient.label': is a number; write label = \"…\" or { en = \"…\", "
     "zh = \"…\" }"),
    ("label = { en = \"a\", fr = \"b\" }", "key 'ask.gradient.label.fr': is not a language; use "
     "one of: en, zh"),
    ("prompt = { zh = \"求\" }", "key 'ask.gradient.prompt': has no en; write prompt = \"…\" or "
     "{ en = \"…\", zh = \"…\" }"),
])
def test_a_bad_declaration_is_one_line(tmp_path, body, line):
    path = tmp_path / "bad.toml"
    path.write_text(BASE.format(claims="[0.2, 0.54, -42]", gradient="-13.753")
                    + "[exercise.ask.gradient]\n" + body + "\n", encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["check", str(path)])
    assert code == 2
    assert err.getvalue().strip() == f"derive check: {path}: exercise 'mb': {line}"


def test_a_declaration_of_no_quantity(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BASE.format(claims="[0.2, 0.54, -42]", gradient="-13.753")
                    + "[exercise.ask.gradeint]\nplaces = 1\n", encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main(["check", str(path)]) == 2
    assert "key 'ask.gradeint': is not a quantity of accumulation; did you mean 'gradient'?" \
        in err.getvalue()
