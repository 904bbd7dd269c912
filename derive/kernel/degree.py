"""Refutation by degree: a nonzero polynomial of degree ≤ d in a variable cannot vanish at d + 1
of its values, so a claim whose difference is a rational function of its symbols is false
exactly when the numerator is nonzero at some point of a small grid.

Given the normal form of lhs − rhs (normal_form.py) as a quotient A/B of polynomials in the
claim's symbols with rational coefficients, let Q = A·B·G, G the product of the claim's
polynomial guards (denominators, log arguments). Q ≠ 0 as a polynomial, so on any grid
S₁ × … × Sₙ with |Sᵥ| > deg_v Q there is a point where Q ≠ 0 (induction on n: Q as a
polynomial in v₁ has a nonzero coefficient, which vanishes at ≤ deg Q values of the
others, …). Each Sᵥ is the first deg_v Q + 1 (+ DEGREE_SLACK) values of v's domain sequence
(witness.py) that satisfy every fact about v alone. The grid's points where Q ≠ 0 are then
tried in the witness order, and each is confirmed on the claim itself (interpret.confirm): the
normal form only guides the choice, it never decides.
"""

from __future__ import annotations

from itertools import islice

import sympy as sp
from sympy.polys.domains import QQ
from sympy.polys.fields import FracField

from derive.kernel.algebra import NotPolynomial, in_domain
from derive.kernel.exact import exact_str
from derive.kernel.facts import Fact
from derive.kernel.interpret import Interpretation, _free_symbols, closed, confirm
from derive.kernel.timebound import Deadline
from derive.kernel.verdict import Witness
from derive.kernel.witness import admissible, assignments

DEGREE_SLACK = 2
"""Values per variable beyond its degree + 1: points the grid's count does not foresee
(a side undefined where no polynomial guard says so, a fact about several variables)."""

MAX_DEGREE = 300
"""Largest degree in one variable the grid is built for."""

MAX_GRID_POINTS = 4_000
"""Grids up to this size are searched in the witness order (by total height); a larger grid
lexicographically, value by value, keeping only values at which Q does not vanish identically
in the remaining variables (at most deg + 1 tries each)."""

MAX_CONFIRMED = 64
"""Points where Q ≠ 0 that are confirmed on the claim before the search gives up."""

MAX_CANDIDATES = 400
"""Values of a domain sequence examined to find a variable's admissible values."""


def _polynomials(exprs: list[sp.Expr], symbols: list[sp.Symbol]) -> list[tuple]:
    """Each expression as (numerator, denominator), polynomials over ℚ in `symbols` (in a
    sparse ring: no gcd when there is no denominator); NotPolynomial otherwise."""
    dummies = [sp.Dummy(s.name) for s in symbols]
    fractions = any(p.exp.is_negative for e in exprs for p in e.atoms(sp.Pow))
    field = FracField(dummies, QQ)
    domain = field if fractions else field.ring
    index = dict(zip(symbols, domain.gens))
    out = []
    for e in exprs:
        value = in_domain(e, index, domain, negative_powers=fractions)
        out.append((value.numer, value.denom) if fractions else (value, field.ring.one))
    return out


def _lexicographic(q, gens, values):
    """The grid's points where the polynomial q ≠ 0, lexicographically: a value of the first
    variable is kept only when q does not vanish identically at it."""
    if not gens:
        yield ()
        return
    for a in values[0]:
        rest = q.subs(gens[0], a)
        if rest.is_zero:
            continue
        for tail in _lexicographic(rest, gens[1:], values[1:]):
            yield (a, *tail)


def refute_by_degree(lhs: sp.Expr, rhs: sp.Expr, facts: tuple[Fact, ...], nf: sp.Expr,
                     guards: list[sp.Expr], deadline: Deadline) -> Witness | None:
    """A witness from the grid of the difference's degrees, confirmed on the claim; None when
    the normal form `nf` is not a nonzero rational function of the claim's symbols, or no grid
    point is confirmed."""
    claim = (lhs, rhs, *(f.expr for f in facts))
    symbols = sorted(_free_symbols(claim), key=lambda s: s.name)
    if not symbols or not nf.free_symbols <= set(symbols) or not all(
            isinstance(s, sp.Symbol) for s in nf.free_symbols):
        return None
    usable = [g for g in guards if g.free_symbols <= set(symbols)]
    try:
        converted = _polynomials([nf, *usable], symbols)
    except (NotPolynomial, ZeroDivisionError):
        return None
    (numer, denom), kept = converted[0], [g for g in converted[1:] if not g[0].is_zero]
    if numer.is_zero:
        return None
    q = numer * denom
    for g_numer, g_denom in kept:
        q *= g_numer * g_denom
    ring_gens = q.ring.gens
    shared = {v for f in facts if len(f.expr.free_symbols) > 1 for v in f.expr.free_symbols}
    values = []
    for n, v in enumerate(symbols):
        degree = q.degree(ring_gens[n])
        if degree > MAX_DEGREE:
            return None
        count = max(degree, 0) + 1 + DEGREE_SLACK + (degree + 1 if v in shared else 0)
        values.append(admissible(v, count, [(f.expr, f.relation) for f in facts],
                                 MAX_CANDIDATES))
        if not values[-1]:
            return None
    size = 1
    for vs in values:
        size *= len(vs)
    if size <= MAX_GRID_POINTS:
        points = (tuple(p[v] for v in symbols) for p in assignments(tuple(symbols), values)
                  if q(*(p[v] for v in symbols)) != 0)
    else:
        points = _lexicographic(q, list(ring_gens), values)
    # as the automatic shapes show them: a claim with Σ or functions names its integer symbols
    # in the shape (N = 8), a closed claim every symbol in the assignment
    shaped = [] if closed(claim) else [s for s in symbols if s.is_integer]
    for point in islice(points, MAX_CONFIRMED):
        deadline.check()
        at = dict(zip(symbols, point))
        interp = Interpretation(", ".join(f"{s} = {exact_str(at[s])}" for s in shaped),
                                symbols={s: at[s] for s in shaped})
        found = confirm(lhs, rhs, facts, interp, at)
        if found is not None:
            return found
    return None
