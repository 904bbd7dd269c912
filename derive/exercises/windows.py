"""What an answer may be, as an interval, for the formats that score a typed number by comparing
it with bounds (QTI's `qti-gte`/`qti-lt`; a learning platform's numerical question): each asked
value's window under its rule (`derive.exercises.page.Rule`), computed exactly here so that a
renderer prints bounds and computes nothing.

A window is what the page accepts of an answer typed to the places the question asks:
- `places` p (and a `places` test): the answers that round half away from zero to the value
  rounded to p places, [r − h, r + h) for r > 0 (h = 10⁻ᵖ/2), (r − h, r + h] for r < 0,
  (−h, h) for r = 0. The page also asks every place typed beyond p to be right (4.665 is wrong
  for 14/3 at 2 places there); a window cannot, and says so (`Window.digits_blind`).
- a `sig` test s: the answers that round to the value's s significant figures (below a power of
  ten the grid is ten times finer, so the window is lopsided there: [0.9995, 1.005) at 3).
- `abs` a and `rel` r: the closed interval v ± a, v ± r·|v|; a bound that is no terminating
  decimal is rounded inward to BOUND_DIGITS significant digits (no answer outside is accepted).
- `exact`: the value itself, when it is a terminating decimal; otherwise there is no window
  (a fraction such as 14/3 cannot be typed as one number of a float response).

A value that is not rational is bounded by a certified enclosure (derive.kernel.intervals); where
the enclosure cannot decide the rounding, there is no window (None), as the page says
undecided.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from derive.exercises.near_miss import digit_slips
from derive.exercises.page import Rule
from derive.kernel import intervals

__all__ = ["BOUND_DIGITS", "Window", "decimal_text", "exponent", "near_values", "window"]

BOUND_DIGITS = 30
"""Significant digits of a bound rounded inward (an abs or rel window around a value whose
bounds do not terminate): far finer than a double (about 17), which a player compares in."""
ENCLOSURE_BITS = 400


@dataclass(frozen=True)
class Window:
    """The answers [lo, hi] (each end open or closed) that count as the value, exact
    terminating decimals."""

    lo: Fraction
    hi: Fraction
    lo_open: bool = False
    hi_open: bool = False
    digits_blind: bool = False
    """True for a places rule: an answer with more places than asked is accepted when it rounds
    right at the places asked (the page also asks the extra places to be right)."""
    shown: Fraction = Fraction(0)
    """The answer a key shows: the value rounded as the rule asks (the value itself when it
    terminates, else the nearest of BOUND_DIGITS significant digits)."""

    def holds(self, x: Fraction) -> bool:
        """Whether the number x is in the window (for tests and for comparing windows)."""
        above = x > self.lo if self.lo_open else x >= self.lo
        below = x < self.hi if self.hi_open else x <= self.hi
        return above and below

    def meets(self, other: Window) -> bool:
        """Whether some number is in both windows."""
        if self.lo != other.lo:
            lo, lo_open = max((self.lo, self.lo_open), (other.lo, other.lo_open))
        else:
            lo, lo_open = self.lo, self.lo_open or other.lo_open
        if self.hi != other.hi:
            hi, hi_open = min((self.hi, self.hi_open), (other.hi, other.hi_open))
        else:
            hi, hi_open = self.hi, self.hi_open or other.hi_open
        return lo < hi or (lo == hi and not lo_open and not hi_open)


def _fraction(v) -> Fraction | None:
    if isinstance(v, int):
        return Fraction(v)
    if isinstance(v, Fraction):
        return v
    if isinstance(v, sp.Basic) and v.is_Rational:
        return Fraction(int(v.p), int(v.q))
    return None


def _enclosure(v) -> tuple[Fraction, Fraction] | None:
    """(lo, hi) certified around v: the value itself when it is rational."""
    q = _fraction(v)
    if q is not None:
        return q, q
    if not isinstance(v, sp.Basic):
        return None
    try:
        got = intervals.enclose(v, ENCLOSURE_BITS)
    except Exception:  # NoEnclosure: not a real constant the intervals handle
        return None
    if got is None:
        return None
    return _fraction(sp.Rational(got[0])), _fraction(sp.Rational(got[1]))


def _half_away(x: Fraction) -> int:
    """x rounded half away from zero to an integer."""
    n = abs(x)
    whole = int(n + Fraction(1, 2))  # floor(n + 1/2): half rounds up, away from zero
    return whole if x >= 0 else -whole


def _round_places(x: Fraction, places: int) -> Fraction:
    scale = Fraction(10) ** places
    return Fraction(_half_away(x * scale)) / scale


def exponent(x: Fraction) -> int:
    """floor(log10 |x|) for x ≠ 0, exactly."""
    x = abs(x)
    e = len(str(x.numerator)) - len(str(x.denominator))
    while Fraction(10) ** e > x:
        e -= 1
    while Fraction(10) ** (e + 1) <= x:
        e += 1
    return e


def _round_sig(x: Fraction, sig: int) -> Fraction:
    if x == 0:
        return x
    return _round_places(x, sig - 1 - exponent(x))


def _terminates(x: Fraction) -> bool:
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def _inward(x: Fraction, up: bool) -> Fraction:
    """x as a terminating decimal of BOUND_DIGITS significant digits, rounded up (a lower
    bound) or down (an upper bound): x itself when it terminates within them."""
    if x == 0 or (_terminates(x) and _round_sig(x, BOUND_DIGITS) == x):
        return x
    scale = Fraction(10) ** (BOUND_DIGITS - 1 - exponent(x))
    y = x * scale
    n = -((-y.numerator) // y.denominator) if up else y.numerator // y.denominator
    return Fraction(n) / scale


def _rounding_window(r: Fraction, below: Fraction, above: Fraction,
                     digits_blind: bool) -> Window:
    """The numbers that round half away from zero to r on a grid whose step is `below` under
    |r| and `above` over it."""
    if r == 0:
        return Window(-above / 2, above / 2, True, True, digits_blind, r)
    if r > 0:
        return Window(r - below / 2, r + above / 2, False, True, digits_blind, r)
    return Window(r - above / 2, r + below / 2, True, False, digits_blind, r)


def _places_window(v, places: int, digits_blind: bool) -> Window | None:
    got = _enclosure(v)
    if got is None:
        return None
    r = _round_places(got[0], places)
    if _round_places(got[1], places) != r:
        return None  # the enclosure straddles a rounding boundary: undecided
    step = Fraction(1, 10 ** places) if places >= 0 else Fraction(10 ** -places)
    return _rounding_window(r, step, step, digits_blind)


def _sig_window(v, sig: int) -> Window | None:
    got = _enclosure(v)
    if got is None:
        return None
    r = _round_sig(got[0], sig)
    if _round_sig(got[1], sig) != r:
        return None
    if r == 0:  # only 0 rounds to 0 at any number of significant figures
        return Window(r, r, shown=r)
    step = Fraction(10) ** (exponent(r) - sig + 1)
    mantissa_is_one = abs(r) == Fraction(10) ** exponent(r)
    return _rounding_window(r, step / 10 if mantissa_is_one else step, step, False)


def window(value, rule: Rule) -> Window | None:
    """The window of answers that count as `value` (one number) under `rule`, or None when it
    has none (an exact fraction that does not terminate, an irrational value asked exactly, a
    rounding the enclosure cannot decide)."""
    if rule.kind == "places":
        return _places_window(value, rule.places, True)
    if rule.kind == "test":
        t = _fraction(rule.tolerance)
        if rule.test == "places":
            return _places_window(value, int(t), False)
        if rule.test == "sig":
            return _sig_window(value, int(t))
        q = _fraction(value)
        if q is None:
            return None
        width = t if rule.test == "abs" else t * abs(q)
        return Window(_inward(q - width, up=True), _inward(q + width, up=False),
                      shown=q if _terminates(q) else _round_sig(q, BOUND_DIGITS))
    q = _fraction(value)
    if q is None or not _terminates(q):
        return None
    return Window(q, q, shown=q)


def decimal_text(x: Fraction) -> str:
    """A terminating decimal exactly as text (`-1.35`, `0.0005`, `16`), never an exponent."""
    if not _terminates(x):
        raise ValueError(f"{x} does not terminate")
    sign = "-" if x < 0 else ""
    x = abs(x)
    places = 0
    while (x * 10 ** places).denominator != 1:
        places += 1
    digits = str(int(x * 10 ** places)).rjust(places + 1, "0")
    whole, frac = digits[: len(digits) - places], digits[len(digits) - places:]
    return sign + whole + ("." + frac if frac else "")


def _fixed(x: Fraction, places: int) -> str:
    """x (a multiple of 10⁻ᵖ) with exactly `places` decimals, as the page writes a rounding."""
    text = decimal_text(x)
    whole, _, frac = text.partition(".")
    return whole + ("." + frac.ljust(places, "0") if places > 0 else "")


def near_values(value, rule: Rule) -> list[Fraction]:
    """Answers the page takes for a near miss of `value` rather than a mistake
    (derive.exercises.near_miss: one digit of the right value's rounding off by one, or the
    value rounded twice; and a tie rounded to even, derive.exercises.artefacts): at the places
    asked and one or two more (a window does not see how many places an answer has; an exact
    question at 0 to 6 places). Empty for a rule whose near misses depend on the answer's own
    digits (sig, abs, rel)."""
    q = _fraction(value)
    if q is None:
        return []
    if rule.kind == "places":
        places = range(rule.places, rule.places + 3)
    elif rule.kind == "test" and rule.test == "places":
        t = int(_fraction(rule.tolerance))
        places = range(t, t + 3)
    elif rule.kind == "exact":
        places = range(7)
    else:
        return []
    out: list[Fraction] = []
    for d in places:
        r = _round_places(q, d)
        texts = [_fixed(r, d)] + (["-" + _fixed(r, d)] if r == 0 else [])
        out += [Fraction(t) for text in texts for t in digit_slips(text)]
        out += [_round_places(_round_places(q, d + extra), d) for extra in (1, 2)]
        y = q * 10**d
        if y.denominator == 2:  # an exact tie at d places: its rounding to even
            n = y.numerator // 2  # floor(y)
            out.append(Fraction(n if n % 2 == 0 else n + 1, 10**d))
    return list(dict.fromkeys(x for x in out if x != q))
