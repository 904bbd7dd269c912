"""Near misses: a claim one slip away from the right value. A slip is one digit written one
off (3 for 4, 14/4 for 14/3, 0.5 for 1.5) or a rounding of a rounding (2.45 → 2.5 for 2.449).

A known mistake whose value is also one slip from the right value cannot be told from the
slip, so the diagnosis offers it as a possibility instead of naming it (docs/diagnosis.md,
"No name by coincidence")."""

from __future__ import annotations

import dataclasses

from derive.exercises.claims import Claim, holds, round_places
from derive.exercises.reader import written
from derive.kernel.exact import ExactNumberError, fixed_str

EXTRA_PLACES = (1, 2)
"""A rounding of a rounding: the right value rounded to the claim's places plus one or two
first, then to the claim's places."""


def digit_slips(text: str, leading_zero: bool = False) -> list[str]:
    """`text` with one digit of its mantissa changed by ±1 (a new leading zero only where
    asked: 4/05 for 4/15 is compared as written), each once."""
    mantissa = text.lower().partition("e")[0]
    digits = [k for k, ch in enumerate(mantissa) if ch.isdigit()]
    out = []
    for k in digits:
        for step in (-1, 1):
            d = int(text[k]) + step
            leading = k == digits[0] or not text[k - 1].isdigit() and text[k - 1] != "."
            if 0 <= d <= 9 and not (d == 0 and leading and text[k + 1:k + 2].isdigit()
                                    and not leading_zero):
                out.append(text[:k] + str(d) + text[k + 1:])
    return [t for t in dict.fromkeys(out) if t != text]


def _value_text(c: Claim) -> str:
    return c.text.rsplit(" (", 1)[0] if c.test else c.text


def _right_text(c: Claim, expected) -> str | None:
    """The right value written the way the claim is: a fraction in lowest terms, a decimal
    to the claim's places, an integer as itself; None where it has no such form (an integer
    claim of a value that is not one)."""
    if c.places is not None:
        r = round_places(expected, c.places)
        return None if r is None else fixed_str(r, c.places)  # exact at any length
    if "/" in c.text:
        return str(expected) if getattr(expected, "is_Rational", False) else None
    if not getattr(expected, "is_Integer", False):
        return None  # 16 for 14.90…: an integer claim of a fraction is no slip of a digit
    return str(expected)


def _slipped(c: Claim, expected) -> bool:
    """Whether the number claim `c` is the right value, written as `c` is, with one digit off
    (a claim with a stated test: some digit of it put back one makes it hold). A fraction is
    a slip only as written: a slip of 43/15 is 33/15, and 11/5, its value, is worked out."""
    if c.test is None:
        right = _right_text(c, expected)
        if right is None:
            return False
        zero = ["-" + right] if written(right).value == 0 else []  # -0.0000 as printed
        if "/" in c.text:  # 11/5 is not a slip of 43/15, though 33/15 is
            return "".join(_value_text(c).split()).lstrip("+") in digit_slips(right, True)
        slips = [u for r in [right, *zero] for u in digit_slips(r)]
        for t in slips:
            try:
                if written(t).value == c.value:
                    return True
            except (ExactNumberError, ValueError, ZeroDivisionError):
                continue
        return False
    for t in digit_slips(_value_text(c)):
        try:
            w = written(t)
        except (ExactNumberError, ValueError, ZeroDivisionError):
            continue
        text = c.text.replace(_value_text(c), t, 1)
        if holds(dataclasses.replace(c, value=w.value, text=text), expected):
            return True
    return False


def _rounded_twice(c: Claim, expected) -> bool:
    """Whether the decimal claim `c` is the right value rounded to one or two places more and
    that rounded again to the claim's places."""
    d = c.places if c.test is None else (int(c.tolerance) if c.test == "places" else None)
    if d is None:
        return False
    for extra in EXTRA_PLACES:
        first = round_places(expected, d + extra)
        if first is not None and round_places(first, d) == c.value:
            return True
    return False


def near_miss(claim: Claim, expected) -> bool:
    """Whether a wrong claim is one slip from the right value: a number one digit off or
    rounded twice, or a list with exactly one wrong element that is."""
    if claim.formula is not None:
        return False
    if not claim.is_list:
        return _slipped(claim, expected) or _rounded_twice(claim, expected)
    if not isinstance(expected, (list, tuple)) or len(expected) != len(claim.value):
        return False
    wrong = [(c, e) for c, e in zip(claim.value, expected) if not holds(c, e)]
    return len(wrong) == 1 and near_miss(*wrong[0])
