"""Facts that contradict each other linearly: a > b, b > c, c > a, or w ≥ 2, w ≤ 1.

Each fact `e ≥ 0` or `e > 0` is read as a linear inequality over its terms: a term that is not
a rational multiple of a sum is an unknown of its own (|a − b|, x_1·x_2, a Σ), and the
symbols' declared signs bound the unknowns (η > 0; n_k ≥ 1 for a positive integer; a Σ of
positive integers over at least one index is at least its number of terms, so N = Σ_k n_k ≥ K).
If no real values of the unknowns satisfy the inequalities (Fourier–Motzkin elimination, in
exact rationals), no values of the symbols satisfy the facts: they contradict each other and
every claim would follow from them. The converse does not hold: a contradiction that needs
more than linear reasoning over these unknowns (x·y > 0, x > 0, y < 0) is not detected here.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import sympy as sp

MAX_ROWS = 4000
"""Most inequalities an elimination may hold; past it, no contradiction is claimed."""

Row = tuple[tuple[tuple[sp.Expr, Fraction], ...], Fraction, bool]
"""Σ coeff·unknown + constant > 0 (strict) or ≥ 0."""


def _linear(e: sp.Expr) -> tuple[dict, Fraction]:
    """e as Σ coeff·unknown + constant, each unknown a term that is not a rational multiple
    of a sum or a rational."""
    if e.is_Rational:
        return {}, Fraction(int(e.p), int(e.q))
    if isinstance(e, sp.Add):
        coeffs: dict = {}
        const = Fraction(0)
        for a in e.args:
            c, k = _linear(a)
            const += k
            for u, v in c.items():
                coeffs[u] = coeffs.get(u, 0) + v
        return {u: v for u, v in coeffs.items() if v != 0}, const
    if isinstance(e, sp.Mul):
        number, rest = e.as_coeff_Mul()
        if number.is_Rational and number != 1:
            c, k = _linear(rest)
            q = Fraction(int(number.p), int(number.q))
            return {u: v * q for u, v in c.items()}, k * q
    return {e: Fraction(1)}, Fraction(0)


def _bounds(u: sp.Expr) -> list[tuple[dict, Fraction, bool]]:
    """What the declared signs say about one unknown."""
    out = []
    integer = u.is_integer
    if u.is_positive:
        out.append(({u: Fraction(1)}, Fraction(-1 if integer else 0), not integer))
    elif u.is_nonnegative:
        out.append(({u: Fraction(1)}, Fraction(0), False))
    if u.is_negative:
        out.append(({u: Fraction(-1)}, Fraction(-1 if integer else 0), not integer))
    elif u.is_nonpositive:
        out.append(({u: Fraction(-1)}, Fraction(0), False))
    if isinstance(u, sp.Sum) and len(u.limits) == 1:
        _, lo, hi = u.limits[0]
        terms = sp.expand(hi - lo + 1)
        f = u.function
        if (terms - 1).is_nonnegative and f.is_integer and f.is_positive:
            c, k = _linear(terms)  # Σ ≥ its number of terms
            row = {w: -v for w, v in c.items()}
            row[u] = row.get(u, 0) + 1
            out.append(({w: v for w, v in row.items() if v != 0}, -k, False))
    return out


def _row(coeffs: dict, const: Fraction, strict: bool) -> Row:
    """A row scaled so that its largest |coefficient| is 1 (equal rows then compare equal)."""
    scale = max((abs(v) for v in coeffs.values()), default=abs(const)) or Fraction(1)
    return (tuple(sorted(((u, v / scale) for u, v in coeffs.items()), key=lambda uv:
                         sp.default_sort_key(uv[0]))), const / scale, strict)


def _eliminate(rows: set[Row]) -> bool | None:
    """True when the rows have no real solution, False when they have one, None past
    MAX_ROWS."""
    while True:
        for coeffs, const, strict in rows:
            if not coeffs and (const < 0 or const == 0 and strict):
                return True
        rows = {r for r in rows if r[0]}
        if not rows:
            return False
        unknowns: dict = {}
        for coeffs, _, _ in rows:
            for u, v in coeffs:
                pos, neg = unknowns.setdefault(u, [0, 0])
                unknowns[u] = [pos + (v > 0), neg + (v < 0)]
        u = min(unknowns, key=lambda w: (unknowns[w][0] * unknowns[w][1],
                                         sp.default_sort_key(w)))
        upper, lower, rest = [], [], set()
        for r in rows:
            v = dict(r[0]).get(u, 0)
            if v > 0:
                upper.append(r)
            elif v < 0:
                lower.append(r)
            else:
                rest.add(r)
        if len(rest) + len(upper) * len(lower) > MAX_ROWS:
            return None
        for pc, pk, ps in upper:
            a = dict(pc)[u]
            for nc, nk, ns in lower:
                b = -dict(nc)[u]
                combined: dict = {}
                for w, v in pc:
                    combined[w] = combined.get(w, 0) + b * v
                for w, v in nc:
                    combined[w] = combined.get(w, 0) + a * v
                combined = {w: v for w, v in combined.items() if v != 0 and w != u}
                rest.add(_row(combined, b * pk + a * nk, ps or ns))
        rows = rest


def contradictory(facts: Sequence[tuple[sp.Expr, bool]]) -> bool:
    """Whether the facts (expr, strict): expr > 0 when strict, else expr ≥ 0, have no common
    solution as linear inequalities over their terms, bounded by the terms' declared signs."""
    rows: set[Row] = set()
    unknowns: set = set()
    for expr, strict in facts:
        coeffs, const = _linear(sp.S(expr))
        rows.add(_row(coeffs, const, strict))
        unknowns |= set(coeffs)
    seen: set = set()
    while unknowns - seen:
        u = (unknowns - seen).pop()
        seen.add(u)
        for coeffs, const, strict in _bounds(u):
            rows.add(_row(coeffs, const, strict))
            unknowns |= set(coeffs)
    return _eliminate(rows) is True


def contradicting(facts: Sequence[tuple[sp.Expr, bool]]) -> list[int] | None:
    """The positions of a smallest-by-deletion set of facts that contradict each other
    linearly (every one of them needed), or None when the facts do not."""
    if not contradictory(facts):
        return None
    keep = list(range(len(facts)))
    for n in list(keep):
        trial = [m for m in keep if m != n]
        if contradictory([facts[m] for m in trial]):
            keep = trial
    return keep
