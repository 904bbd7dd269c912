"""derive.exercises.graded: the bands an LMS grades with, against references computed here in
Fractions (rounding half away from zero written out by hand), never from derive."""

from __future__ import annotations

from fractions import Fraction as F

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


@settings(max_examples=300, deadline=None)
@given(values.filter(lambda v: v != 0), st.integers(1, 8))
def test_sig_band_is_the_n_figure_rounding(v, n):
    b = band(rat(v), Rule("test", test="sig", tolerance=sp.Integer(n)))
    places = n - 1 - exponent(v)
    r = half_away(v, places)
    if exponent(r) != exponent(v):  # 9.99 → 10.0: one more figure before the point
        places -= 1
        r = half_away(v, places)
    assert frac(b.centre) == r
    assert frac(b.tolerance) == F(1, 2) / F(10) ** places
    assert frac(b.lo) <= v <= frac(b.hi)


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
        assert frac(b.lo) <= v <= frac(b.hi)
        assert frac(b.tolerance) == F(1, 2) / F(10) ** (EXACT_SIGNIFICANT - 1 - exponent(v))


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
