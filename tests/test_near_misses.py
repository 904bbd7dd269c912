"""No name by coincidence (issue 24): a claim one slip from the right value (one digit ±1, a
rounding of a rounding) is never named as a mistake, even when a mistake gives that value; a
mistake that is not one slip away keeps its name. Right values come from Fractions worked here
(the lesson's g = mean((w·x − y)·x), w_new = w − η·g) on decimals written as torch prints them
(four places)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.exercises.claims import literal
from derive.exercises.near_miss import near_miss
from derive.render.labels import explanation

TORCH = st.integers(-30000, 30000).map(lambda n: Decimal(n).scaleb(-4))
"""A value as torch prints a float tensor: four places (tensor(0.7312))."""


def _places(value: Fraction, places: int) -> str:
    q = Decimal(value.numerator) / Decimal(value.denominator)
    return str(q.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _slips(text: str) -> list[str]:
    """Each digit of `text` changed by ±1 (written independently of derive's own)."""
    out = []
    for k, ch in enumerate(text):
        if ch.isdigit():
            for d in (int(ch) - 1, int(ch) + 1):
                if 0 <= d <= 9:
                    out.append(text[:k] + str(d) + text[k + 1:])
    return out


def _check(tmp_path, given_text: str, claims: str):
    path = tmp_path / "ex.toml"
    path.write_text(f'[[exercise]]\nid = "e"\nrecipe = "sgd_step"\n[exercise.given]\n'
                    f"{given_text}[exercise.claims]\n{claims}", encoding="utf-8")
    return {c.name: c for c in check_exercise(load_file(path)[0]).claims}


@given(w=TORCH, lr=st.sampled_from(["0.1", "0.01", "0.05"]),
       records=st.lists(st.tuples(TORCH, TORCH), min_size=1, max_size=3), data=st.data())
def test_near_misses_of_right_values_are_never_named(tmp_path_factory, w, lr, records, data):
    wf, lf = Fraction(str(w)), Fraction(lr)
    xs = [(Fraction(str(x)), Fraction(str(y))) for x, y in records]
    g = sum((wf * x - y) * x for x, y in xs) / len(xs)
    right = {"gradient": g, "w_new": wf - lf * g}
    name = data.draw(st.sampled_from(sorted(right)))
    text = _places(right[name], 4)
    slip = data.draw(st.sampled_from(_slips(text)))
    assume(not slip.lstrip("-").startswith("0") or slip.lstrip("-").startswith("0."))
    rec = ", ".join(f"[{x}, {y}]" for x, y in records)
    claims = _check(tmp_path_factory.mktemp("n"), f"w = {w}\nlr = {lr}\nrecords = [{rec}]\n",
                    f"{name} = {slip}\n")
    c = claims[name]
    if c.status == "wrong":
        assert c.diagnosis.mistake is None, (slip, text, c.diagnosis)


@given(value=st.fractions(min_value=-100, max_value=100, max_denominator=64), data=st.data())
def test_a_digit_slip_is_a_near_miss(value, data):
    text = _places(value, 3)
    slip = data.draw(st.sampled_from(_slips(text)))
    assume(not slip.lstrip("-").startswith("0") or slip.lstrip("-").startswith("0."))
    exact = sp.Rational(value.numerator, value.denominator)
    assert near_miss(literal(slip), exact)


@pytest.mark.parametrize("claim,right,slip", [
    ("33/15", (43, 15), True),    # a digit of 43/15 one off, as written
    ("11/5", (43, 15), False),    # the same value, worked out: not a slip of the text
    ("14/4", (14, 3), True),
    ("7/2", (14, 3), False),      # 14/4 in lowest terms
    ("2.2", (43, 15), False),
    ("4/05", (4, 15), True),      # a typed 0 for 1, compared as written
    ("4/5", (4, 15), False),
])
def test_a_fraction_is_a_slip_only_as_written(claim, right, slip):
    assert near_miss(literal(claim), sp.Rational(*right)) is slip


def test_a_rounding_of_a_rounding_is_a_near_miss():
    # 2.449 to two places is 2.45, and 2.45 to one place half up is 2.5; right: 2.4
    assert near_miss(literal("2.5"), sp.Rational(2449, 1000))
    assert not near_miss(literal("2.7"), sp.Rational(2449, 1000))


def test_a_mistake_one_slip_away_is_offered_not_named(tmp_path):
    # records (1, 2), (3, 6), w = 1: g = ((1−2)·1 + (3−6)·3)/2 = −5; −10 (the other
    # convention, or the sum) is not one slip from −5: both listed as a tie
    claims = _check(tmp_path, "w = 1\nlr = 0.1\nrecords = [[1, 2], [3, 6]]\n",
                    "gradient = -10\nw_new = 0.5\n")
    d = claims["gradient"].diagnosis
    assert d.certainty == "tied" and d.candidates == ("gradient_other_convention",
                                                      "gradient_sum")
    # w_new = 1 + 0.5 = 1.5; w + η·g = 0.5 is w_new_sign, but 0.5 is 1.5 with one digit off
    d = claims["w_new"].diagnosis
    assert d.mistake is None and "w_new_sign" in d.also
    assert "could also be w_new_sign" in d.explanation
    assert explanation(d, "zh").startswith("与正确值只差一次笔误")
    assert "也可能是 w_new_sign" in explanation(d, "zh")


def test_a_mistake_more_than_a_slip_away_keeps_its_name(tmp_path):
    # lr = 0.3: w_new = 1 + 0.3·5 = 2.5 and w + η·g = −0.5, which no digit slip of 2.5 gives
    claims = _check(tmp_path, "w = 1\nlr = 0.3\nrecords = [[1, 2], [3, 6]]\n",
                    "w_new = -0.5\n")
    assert claims["w_new"].diagnosis.mistake == "w_new_sign"


@pytest.mark.parametrize("places", [3, 28, 29, 35, 59])
def test_a_slip_late_in_a_long_decimal_is_a_near_miss(places):
    """The right value is written out exactly however long the claim (a Decimal at its
    default 28 digits wrote 1/3 to 35 places as 0.3333…33330000000, so no slip matched)."""
    right = "0." + "3" * places
    late = right[:-1] + "4"
    early = "0.4" + "3" * (places - 1)
    assert near_miss(literal(late), sp.Rational(1, 3))
    assert near_miss(literal(early), sp.Rational(1, 3))
    assert not near_miss(literal(right[:-2] + "55"), sp.Rational(1, 3))  # two digits off
