"""derive.exercises.graded: the bands an LMS grades with, against references computed here in
Fractions (rounding half away from zero written out by hand), never from derive."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.exercises.graded import EXACT_SIGNIFICANT, band, carried_value
from derive.exercises.page import Rule

values = st.fractions(min_value=-10**6, max_value=10**6, max_denominator=10**4)


def half_away(x: F, places: int) -> F:
    """x rounded half away from zero to `places` digits (places may be negative)."""
    scale = F(10) ** places
    n = abs(x) * scale
    q = int(n)  # floor for n ≥ 0
    if n - q >= F(1, 2):
        q += 1
    return (q if x >= 0 else -q) / scale


def exponent(x: F) -> int:
    """e with 10^e ≤ |x| < 10^(e+1)."""
    e, a = 0, abs(x)
    while a >= 10:
        a, e = a / 10, e + 1
    while a < 1:
        a, e = a * 10, e - 1
    return e


def rat(x: F) -> sp.Rational:
    return sp.Rational(x.numerator, x.denominator)


def frac(r: sp.Rational) -> F:
    return F(int(r.p), int(r.q))


@settings(max_examples=300, deadline=None)
@given(values, st.integers(0, 6))
def test_places_band_is_the_rounding_plus_half_a_unit(v, d):
    b = band(rat(v), Rule("places", places=d))
    assert (frac(b.centre), frac(b.tolerance)) == (half_away(v, d), F(1, 2 * 10 ** d))
    assert frac(b.lo) <= v <= frac(b.hi)
    same = band(rat(v), Rule("test", test="places", tolerance=sp.Integer(d)))
    assert same == b


def sig_round(x: F, n: int) -> F:
    """x rounded half away from zero to n significant figures (0 stays 0)."""
    if x == 0:
        return x
    places = n - 1 - exponent(x)
    r = half_away(x, places)
    if r != 0 and exponent(r) != exponent(x):  # 9.99 → 10.0: one more figure before the point
        r = half_away(x, places - 1)
    return r


def assert_band_is_the_sig_window(b, v: F, n: int) -> None:
    """The band is the decimals the page's sig judge accepts (their n-figure rounding is v's):
    every point inside it rounds to v's rounding, nothing a step outside does, and each end is
    at most a tie away (Moodle takes both ends; the judge one of them)."""
    lo, hi, r = frac(b.lo), frac(b.hi), sig_round(v, n)
    assert lo <= v <= hi
    step = (hi - lo) / 1000 if hi > lo else F(1, 10**30)
    for k in range(1, 1000, 37):
        assert sig_round(lo + (hi - lo) * k / 1000, n) == r
    assert sig_round(lo - step, n) != r and sig_round(hi + step, n) != r


@settings(max_examples=300, deadline=None)
@given(values.filter(lambda v: v != 0), st.integers(1, 8))
def test_sig_band_is_the_n_figure_window(v, n):
    b = band(rat(v), Rule("test", test="sig", tolerance=sp.Integer(n)))
    assert_band_is_the_sig_window(b, v, n)


@pytest.mark.parametrize(("v", "n", "lo", "hi"), [
    (F(999963, 10**6), 4, F(99995, 10**5), F(10005, 10**4)),  # 1.000: 0.9996 is 0.9996
    (-F(999963, 10**6), 4, -F(10005, 10**4), -F(99995, 10**5)),
    (F(8, 15), 4, F(53325, 10**5), F(53335, 10**5)),
    (F(1, 1), 1, F(95, 100), F(15, 10)),
    (F(0), 3, F(0), F(0)),  # zero is zero alone: 0.3 rounds to 0.3, not to 0
])
def test_sig_windows_by_hand(v, n, lo, hi):
    """Written out: 0.999963 to 4 figures is 1.000, which 0.99995 … 1.0005 round to (0.9996
    keeps its 4 figures); an entry 0 of a list asked to 3 figures takes 0 alone."""
    b = band(rat(v), Rule("test", test="sig", tolerance=sp.Integer(n)))
    assert (frac(b.lo), frac(b.hi)) == (lo, hi)


@settings(max_examples=300, deadline=None)
@given(values, st.fractions(min_value=F(1, 10**8), max_value=10, max_denominator=10**8))
def test_abs_and_rel_bands_lie_inside_the_judges_interval(v, t):
    b = band(rat(v), Rule("test", test="abs", tolerance=rat(t)))
    assert v - t <= frac(b.lo) <= v <= frac(b.hi) <= v + t
    assert frac(b.tolerance) > t * F(999, 1000) - F(1, 10**6)  # loses at most a sliver
    if v != 0:
        r = band(rat(v), Rule("test", test="rel", tolerance=rat(t)))
        assert v - t * abs(v) <= frac(r.lo) <= v <= frac(r.hi) <= v + t * abs(v)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 10**6).filter(lambda k: int(k ** 0.5) ** 2 != k),
       st.sampled_from([F(1, 10), F(1, 1000), F(1, 10**9)]))
def test_an_irrational_value_gets_a_band_inside_its_interval(k, t):
    """√k ± t, compared exactly: lo ≥ √k − t ⟺ (lo + t)² ≥ k (both sides positive)."""
    b = band(sp.sqrt(k), Rule("test", test="abs", tolerance=rat(t)))
    lo, hi = frac(b.lo), frac(b.hi)
    assert (lo + t) ** 2 >= k and (hi - t) ** 2 <= k
    assert lo ** 2 <= k <= hi ** 2


@settings(max_examples=200, deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(1, 10**6))
def test_exact_values(p, q):
    v = F(p, q)
    b = band(rat(v), Rule("exact"))
    den = v.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den == 1:  # terminates: the value itself
        assert (frac(b.centre), b.tolerance) == (v, 0)
    else:  # EXACT_SIGNIFICANT figures ± half the last
        assert_band_is_the_sig_window(b, v, EXACT_SIGNIFICANT)


def test_carried_value_substitutes_exactly():
    """ŷ' = (w − η·g)·x at g = 4 (w = 1, η = 1/10, x = 2): 6/5; √(v) + g/2 at v = 9/4, g = 1:
    2; a list form at p[0], p[1]."""
    g, v = sp.Symbol("g"), sp.Symbol("v")
    form = (1 - sp.Rational(1, 10) * g) * 2
    assert carried_value(form, "g", sp.Integer(4)) == sp.Rational(6, 5)
    assert carried_value(sp.sqrt(v) + sp.Rational(1, 2), "v", sp.Rational(9, 4)) == 2
    p0, p1 = sp.Symbol("p[0]"), sp.Symbol("p[1]")
    assert carried_value([p0 + p1, p0 * p1], "p", [sp.Integer(2), sp.Integer(3)]) == [5, 6]
    assert carried_value(g + v, "g", sp.Integer(1)) is None  # another symbol left: no value
    assert carried_value("static", "g", sp.Integer(1)) is None
