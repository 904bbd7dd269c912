"""Fraction references shared by tests (no tests here; nothing from derive): rounding half away
from zero, and the value of a self-check page's carried-forward form."""

from __future__ import annotations

from fractions import Fraction


def half_away(x: Fraction, places: int) -> Fraction:
    """x rounded half away from zero to `places` ≥ 0 digits after the point."""
    scaled = abs(x) * 10**places
    q, r = divmod(scaled.numerator, scaled.denominator)
    if 2 * r >= scaled.denominator:
        q += 1
    return Fraction(q if x >= 0 else -q, 10**places)


def form_value(e, answers: dict) -> Fraction:
    """A page's form tree (["n", "p/q"], ["a", key, i|None], ["+", …], ["*", …], ["^", b, k])
    at the answers (key → Fraction, or a list of them); ZeroDivisionError where it has none."""
    op = e[0]
    if op == "n":
        return Fraction(e[1])
    if op == "a":
        v = answers[e[1]]
        return v if e[2] is None else v[e[2]]
    if op == "+":
        return sum((form_value(a, answers) for a in e[1:]), Fraction(0))
    if op == "*":
        out = Fraction(1)
        for a in e[1:]:
            out *= form_value(a, answers)
        return out
    assert op == "^"
    return form_value(e[1], answers) ** e[2]
