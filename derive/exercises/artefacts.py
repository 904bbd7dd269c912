"""What binary floating point and other rounding rules do to a value, decided exactly.

A claim pasted from a program's float output (`0.7000000000000001`) or rounded the way Python's
`round()` and STACK round a tie (to even) is wrong under derive's rules, but the mistake has a
name. These functions decide it with exact rationals: a double's value is exact as a
`fractions.Fraction`, and `float(Fraction)` is the correctly rounded double (so the floats
here only name doubles; every comparison is between exact rationals).
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy as sp

from derive.kernel import intervals

FLOAT_ULPS = 4
"""How far (in units in the last place of the double nearest the right value) a printed
double may lie from the right value to be called its float artefact: a few roundings."""

ENCLOSURE_BITS = 256
"""Precision of the enclosure of an irrational right value (far finer than any ulp)."""


def _fraction(q: sp.Rational) -> Fraction:
    return Fraction(int(q.p), int(q.q))


def printed_double(c: sp.Rational) -> bool:
    """Whether the decimal c is what Python prints for a double: repr of the double nearest c
    reads back as c (so c is that double's shortest round-trip decimal)."""
    try:
        f = float(_fraction(c))
    except OverflowError:
        return False
    return math.isfinite(f) and Fraction(repr(f)) == _fraction(c)


def _enclosure(r: sp.Expr) -> tuple[Fraction, Fraction] | None:
    """Exact (lo, hi) around the right value: itself when rational, else a certified
    enclosure (None when there is none)."""
    if r.is_Rational:
        return _fraction(r), _fraction(r)
    try:
        got = intervals.enclose(r, ENCLOSURE_BITS)
    except (ValueError, ArithmeticError, TypeError):  # NoEnclosure is a ValueError: a value
        return None  # the enclosures do not handle, about which nothing is claimed
    return None if got is None else (_fraction(got[0]), _fraction(got[1]))


def artefact_window(r: sp.Expr) -> tuple[Fraction, Fraction] | None:
    """The decimals c within FLOAT_ULPS ulps (of the double nearest r) of every point of r's
    enclosure, as an exact closed interval [lo, hi]; None where r has no such window."""
    box = _enclosure(r)
    if box is None:
        return None
    lo, hi = box
    try:
        near = float(lo)
    except OverflowError:
        return None
    if not math.isfinite(near):
        return None
    bound = FLOAT_ULPS * Fraction(math.ulp(near))
    if hi - bound > lo + bound:
        return None
    return hi - bound, lo + bound


def float_artefact(c: sp.Rational, r: sp.Expr) -> bool:
    """Whether the claimed c is a double's printed value within FLOAT_ULPS ulps of the right
    value r (the ulp of the double nearest r): decided on exact rationals, for an irrational r
    on a certified enclosure (every point of it must be that close)."""
    if not printed_double(c):
        return False
    window = artefact_window(r)
    return window is not None and window[0] <= _fraction(c) <= window[1]


def terminating(r: sp.Expr, limit: int = 17) -> str | None:
    """r as a terminating decimal of at most `limit` significant digits, or None."""
    if not r.is_Rational:
        return None
    q = int(r.q)
    twos = fives = 0
    while q % 2 == 0:
        q, twos = q // 2, twos + 1
    while q % 5 == 0:
        q, fives = q // 5, fives + 1
    if q != 1:
        return None
    places = max(twos, fives)
    scaled = abs(int(r.p)) * 10 ** places // int(r.q)
    digits = str(scaled).lstrip("0") or "0"
    if len(digits.rstrip("0")) > limit:
        return None
    sign = "-" if r < 0 else ""
    whole, frac = divmod(scaled, 10 ** places)
    if places == 0:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{str(frac).rjust(places, '0')}"


def _half_even(x: Fraction) -> int | None:
    """The integer nearest x when x is exactly halfway between two (the even one), else
    None: only a tie rounds differently to even and away from zero."""
    n = math.floor(x)
    if x - n != Fraction(1, 2):
        return None
    return n if n % 2 == 0 else n + 1


def half_even_places(r: sp.Expr, places: int) -> sp.Rational | None:
    """r rounded half to even at `places` digits after the point, when r is exactly a tie
    there (else None: there the two rules agree)."""
    if not r.is_Rational:
        return None
    m = _half_even(_fraction(r) * 10 ** places)
    return None if m is None else sp.Rational(m, 10 ** places)


def half_even_sig(r: sp.Expr, sig: int) -> sp.Rational | None:
    """r rounded half to even to `sig` significant digits, when r is exactly a tie there."""
    if not r.is_Rational or r == 0:
        return None
    x = abs(_fraction(r))
    shift = sig - 1 - intervals.decimal_exponent(x)
    m = _half_even(x * Fraction(10) ** shift)
    if m is None:
        return None
    out = Fraction(m) / Fraction(10) ** shift * (1 if r > 0 else -1)
    return sp.Rational(out.numerator, out.denominator)
