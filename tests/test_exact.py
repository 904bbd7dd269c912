"""derive.kernel.exact: reading exact numbers from text, rounding, printing."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from support import examples

from derive.kernel.exact import (
    MAX_DIGITS,
    ExactNumberError,
    decimal_str,
    exact,
    exact_str,
    fixed_str,
    is_zero_exact,
    parse_exact,
    round_half_away,
    terminating_places,
    to_expr,
)

R = sp.Rational


def frac(q: sp.Rational) -> Fraction:
    """A SymPy rational as a Fraction (an independent exact type for cross-checks)."""
    return Fraction(int(q.p), int(q.q))


# --------------------------------------------------------------------------- parse / exact

PARSE_TABLE = [
    ("8/15", R(8, 15)),
    ("-8/15", R(-8, 15)),
    ("+8/15", R(8, 15)),
    ("16/30", R(8, 15)),
    ("1 / 2", R(1, 2)),
    ("-0.425", R(-17, 40)),
    ("2e9", sp.Integer(2_000_000_000)),
    ("2E9", sp.Integer(2_000_000_000)),
    ("0.1", R(1, 10)),
    ("7", sp.Integer(7)),
    ("  7  ", sp.Integer(7)),
    ("+3.50", R(7, 2)),
    ("1e-3", R(1, 1000)),
    ("1e+3", sp.Integer(1000)),
    ("-1.5e-2", R(-3, 200)),
    ("5.", sp.Integer(5)),
    (".5", R(1, 2)),
    ("-0", sp.Integer(0)),
    ("0.000", sp.Integer(0)),
    ("007", sp.Integer(7)),
    ("1e30", sp.Integer(10) ** 30),
    ("1e-30", R(1, 10**30)),
    ("0.72", R(18, 25)),
    ("1.28", R(32, 25)),
    ("0.075", R(3, 40)),
]


@pytest.mark.parametrize(("text", "value"), PARSE_TABLE)
def test_parse_exact_table(text, value):
    got = parse_exact(text)
    assert isinstance(got, sp.Rational)
    assert got == value
    assert exact(text) == value


@pytest.mark.parametrize(("text", "value"), PARSE_TABLE)
def test_parse_exact_agrees_with_fraction(text, value):
    assert frac(parse_exact(text)) == Fraction(text.replace(" ", ""))


INVALID_TEXT = [
    "1e999999999",        # refused by its exponent, never computed
    "1e-999999999",
    "1e31",
    "1e0000000000000000000031",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1/0",
    "0/0",
    "-3/0",
    "",
    "   ",
    "abc",
    "1.2.3",
    "1..2",
    "--1",
    "+-1",
    ".",
    "-.",
    "e5",
    "1e",
    "1e+",
    "1/2/3",
    "1.5/2",
    "8/-15",
    "1/",
    "/2",
    "1_000",
    "0x10",
    "1 2",
    "1,5",
    "2+3",
    "2*3",
    "(1)",
    "sqrt(4)",
    "Rational(1, 2)",
    "S(1)/2",
    "__import__('os').getcwd()",
    "pi",
    "E",
    "oo",
    "zoo",
    "1j",
    "7" * 200,                      # a 200-digit number
    "0." + "3" * 200,               # 200 digits after the point
    "1" * 61,                       # one digit over MAX_DIGITS
    "1" * 61 + "/3",
    "3/" + "1" * 61,
]


@pytest.mark.parametrize("text", INVALID_TEXT)
def test_parse_exact_refuses(text):
    with pytest.raises(ExactNumberError):
        parse_exact(text)
    with pytest.raises(ExactNumberError):
        exact(text)


def test_max_digits_is_the_boundary():
    assert parse_exact("9" * MAX_DIGITS) == sp.Integer(10) ** MAX_DIGITS - 1
    assert parse_exact("1" * MAX_DIGITS + "/7") == R(int("1" * MAX_DIGITS), 7)
    with pytest.raises(ExactNumberError):
        parse_exact("9" * (MAX_DIGITS + 1))


@pytest.mark.parametrize("value", [True, False, 1.5, 0.1, float("nan"), float("inf"), None,
                                   [1], (1, 2), {"value": 1}, b"7", complex(1, 0),
                                   sp.Float("1.5"), sp.pi, sp.sqrt(2), sp.oo, sp.nan, sp.zoo])
def test_exact_refuses_non_exact_values(value):
    with pytest.raises(ExactNumberError):
        exact(value)


@pytest.mark.parametrize(("value", "expected"), [
    (7, sp.Integer(7)),
    (-3, sp.Integer(-3)),
    (10**40, sp.Integer(10**40)),
    (Fraction(8, 15), R(8, 15)),
    (Fraction(-17, 40), R(-17, 40)),
    (R(14, 3), R(14, 3)),
    (sp.Integer(0), sp.Integer(0)),
])
def test_exact_accepts_exact_values(value, expected):
    got = exact(value)
    assert isinstance(got, sp.Rational)
    assert got == expected


def test_to_expr_refuses_text_and_booleans():
    with pytest.raises(TypeError):
        to_expr("1/2")
    with pytest.raises(TypeError):
        to_expr(True)
    with pytest.raises(TypeError):
        to_expr(0.5)
    assert to_expr(Fraction(1, 3)) == R(1, 3)
    assert to_expr(4) == sp.Integer(4)


@given(p=st.integers(-10**30, 10**30), q=st.integers(1, 10**30))
def test_fraction_text_is_exact(p, q):
    assert exact(f"{p}/{q}") == R(p, q)
    assert exact(f" {p} / {q} ") == R(p, q)


@given(
    sign=st.sampled_from(["", "+", "-"]),
    digits=st.text(alphabet="0123456789", min_size=1, max_size=40),
    k=st.integers(0, 40),
)
def test_decimal_text_is_exact(sign, digits, k):
    k = min(k, len(digits))
    whole, point = digits[: len(digits) - k], digits[len(digits) - k:]
    text = f"{sign}{whole}.{point}" if k else f"{sign}{whole}"
    expected = Fraction(int(digits), 10**k) * (-1 if sign == "-" else 1)
    got = parse_exact(text)
    assert isinstance(got, sp.Rational)
    assert frac(got) == expected


@given(
    mantissa=st.integers(-10**12, 10**12),
    places=st.integers(0, 6),
    e=st.integers(-30, 30),
    letter=st.sampled_from("eE"),
)
def test_scientific_text_is_exact(mantissa, places, e, letter):
    digits = str(abs(mantissa)).rjust(places + 1, "0")
    body = digits[: len(digits) - places] + ("." + digits[len(digits) - places:] if places else "")
    text = f"{'-' if mantissa < 0 else ''}{body}{letter}{e}"
    expected = Fraction(mantissa, 10**places) * Fraction(10) ** e
    assert frac(parse_exact(text)) == expected


@given(e=st.integers(31, 10**12), sign=st.sampled_from(["", "+", "-"]))
def test_huge_exponents_are_refused(e, sign):
    with pytest.raises(ExactNumberError):
        parse_exact(f"1e{sign}{e}")


NUMBERISH = "0123456789+-./eE _()*xj"


@examples(150)
@given(text=st.one_of(st.text(max_size=300), st.text(alphabet=NUMBERISH, max_size=60)))
def test_random_text_only_raises_exact_number_error(text):
    try:
        value = parse_exact(text)
    except ExactNumberError:
        return
    assert isinstance(value, sp.Rational)
    # Whatever was accepted has at most MAX_DIGITS significant digits and a bounded size.
    assert abs(value.p) < 10 ** (MAX_DIGITS + 31) and value.q <= 10 ** (MAX_DIGITS + 31)


@given(q=st.fractions(max_denominator=10**12).filter(lambda f: abs(f.numerator) < 10**40))
def test_exact_str_round_trips(q):
    value = R(q.numerator, q.denominator)
    assert exact(exact_str(value)) == value


# --------------------------------------------------------------------------- rounding

@pytest.mark.parametrize(("value", "places", "expected"), [
    (R(5, 2), 0, sp.Integer(3)),
    (R(-5, 2), 0, sp.Integer(-3)),
    (R(3, 2), 0, sp.Integer(2)),
    (R(-3, 2), 0, sp.Integer(-2)),
    (R(49, 10), 0, sp.Integer(5)),
    (R(4445, 10000), 3, R(445, 1000)),      # half away from zero, exactly (no binary float)
    (R(-4445, 10000), 3, R(-445, 1000)),
    (R(4444, 10000), 3, R(444, 1000)),
    (R(14, 3), 6, R(4666667, 10**6)),
    (R(-14, 3), 6, R(-4666667, 10**6)),
    (R(8, 15), 6, R(533333, 10**6)),
    (R(2, 3), 0, sp.Integer(1)),
    (R(1, 3), 0, sp.Integer(0)),
    (R(-1, 3), 0, sp.Integer(0)),
    (R(1, 20), 1, R(1, 10)),
    (R(-1, 20), 1, R(-1, 10)),
    (R(125, 100), 1, R(13, 10)),
    (sp.Integer(7), 3, sp.Integer(7)),
    (sp.Integer(0), 2, sp.Integer(0)),
])
def test_round_half_away_table(value, places, expected):
    assert round_half_away(value, places) == expected


def reference_round(q: Fraction, places: int) -> Fraction:
    scaled = abs(q) * 10**places
    n = math.floor(scaled + Fraction(1, 2))
    return Fraction(n if q >= 0 else -n, 10**places)


@given(q=st.fractions(max_denominator=10**6).filter(lambda f: abs(f) < 10**9),
       places=st.integers(0, 12))
def test_round_half_away_properties(q, places):
    value = R(q.numerator, q.denominator)
    r = round_half_away(value, places)
    assert frac(r) == reference_round(q, places)
    assert (frac(r) * 10**places).denominator == 1
    assert abs(frac(r) - q) * 2 * 10**places <= 1
    assert round_half_away(-value, places) == -r


@given(n=st.integers(-10**9, 10**9), places=st.integers(1, 9))
def test_exact_ties_go_away_from_zero(n, places):
    # n + 1/2 units of the last place: a tie, which must round away from zero
    tie = R(2 * n + 1, 2 * 10**places)
    r = round_half_away(tie, places)
    away = (n + 1) if tie > 0 else n
    assert r == R(away, 10**places)


# --------------------------------------------------------------------------- printing

@pytest.mark.parametrize(("value", "text"), [
    (R(14, 3), "4.66666666666667"),
    (R(-14, 3), "-4.66666666666667"),
    (R(8, 15), "0.533333333333333"),
    (R(18, 25), "0.72"),
    (R(-17, 40), "-0.425"),
    (sp.Integer(-5), "-5"),
    (sp.Integer(0), "0"),
    (R(2, 3), "0.666666666666667"),
    (R(1, 3), "0.333333333333333"),
    (R(3, 40), "0.075"),
    (R(23, 8), "2.875"),
    (R(-11, 24), "-0.458333333333333"),
    (R(1, 1000), "0.001"),
    (R(1, 30), "0.0333333333333333"),
    (sp.Integer(2_000_000_000), "2000000000"),
    (R(5, 2), "2.5"),
    (R(3, 2), "1.5"),
    ([R(2, 3), sp.Integer(1)], "[0.666666666666667, 1]"),
])
def test_decimal_str_table(value, text):
    assert decimal_str(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (sp.Integer(5), "5"),
    (R(-14, 3), "-14/3"),
    (R(14, 3), "14/3"),
    (R(8, 15), "8/15"),
    (sp.Integer(0), "0"),
    (sp.Integer(-5), "-5"),
    (R(16, 30), "8/15"),
    (Fraction(-6, 4), "-3/2"),
    (7, "7"),
    ([sp.Integer(1), R(1, 2)], "[1, 1/2]"),
])
def test_exact_str_table(value, text):
    assert exact_str(value) == text


@given(q=st.fractions(max_denominator=10**9).filter(lambda f: f != 0 and abs(f) < 10**25))
def test_decimal_str_is_good_to_fifteen_digits(q):
    value = R(q.numerator, q.denominator)
    text = decimal_str(value)
    shown = frac(parse_exact(text))
    # rounded to 15 significant digits: off by at most half a unit in the 15th digit
    assert abs(shown - q) * 2 * 10**14 <= abs(q)
    places = terminating_places(value)
    if places is not None:
        digits = str(abs(q.numerator) * 10**places // q.denominator).strip("0")
        if len(digits) <= 15:          # a decimal of at most 15 significant digits: exact
            assert shown == q


@given(n=st.integers(-10**12, 10**12), places=st.integers(0, 3))
def test_decimal_str_is_exact_for_short_decimals(n, places):
    value = R(n, 10**places)
    assert exact(decimal_str(value)) == value


@given(q=st.fractions(max_denominator=10**6).filter(lambda f: abs(f) < 10**9),
       places=st.integers(0, 10))
def test_fixed_str_has_the_places_asked(q, places):
    value = R(q.numerator, q.denominator)
    text = fixed_str(value, places)
    assert (len(text.split(".")[1]) if "." in text else 0) == places
    assert exact(text) == round_half_away(value, places)


@pytest.mark.parametrize(("value", "places"), [
    (R(1, 8), 3), (R(3, 40), 3), (R(1, 3), None), (sp.Integer(5), 0), (R(7, 50), 2),
    (R(1, 6), None),
])
def test_terminating_places(value, places):
    assert terminating_places(value) == places


@pytest.mark.parametrize(("value", "zero"), [
    (sp.Integer(0), True),
    (R(1, 3), False),
    (sp.sqrt(2) * sp.sqrt(2) - 2, True),
    (sp.sqrt(2) - R(141421356, 10**8), False),
    ((1 + sp.sqrt(3)) ** 2 - 4 - 2 * sp.sqrt(3), True),
])
def test_is_zero_exact(value, zero):
    assert is_zero_exact(value) is zero


def test_is_zero_exact_declines_symbols():
    assert is_zero_exact(sp.Symbol("x")) is None


@given(st.integers(0, 80), st.integers(0, 80), st.sampled_from([1, 3, 7, 9, 11]),
       st.integers(1, 10**6))
def test_terminating_places_against_repeated_division(twos, fives, other, p):
    """The fast count of 2s and 5s against dividing one at a time."""
    from fractions import Fraction

    from derive.kernel.exact import terminating_places

    value = Fraction(p, 2**twos * 5**fives * other)
    q, a, b = value.denominator, 0, 0
    while q % 2 == 0:
        q, a = q // 2, a + 1
    while q % 5 == 0:
        q, b = q // 5, b + 1
    want = max(a, b) if q == 1 else None
    assert terminating_places(sp.Rational(value.numerator, value.denominator)) == want
