"""Simpler forms of a claim's facts, each under the reason of the fact it comes from: what the
sign calculus matches directly (a fact is matched as a constant multiple of an expression).

- A fact's branches chosen by the facts and the domain: |√x|² − 1 ≥ 0 is x − 1 ≥ 0.
- A monotone root undone: k·u^r + c ≥ 0 (k > 0, r > 0 not an integer, c < 0) is
  u ≥ (−c/k)^(1/r) when that bound is rational, since t ↦ t^r increases on [0, ∞).
- A product read through its other factors: x·y ≥ 0 with y < 0 is −x ≥ 0; a product ≠ 0 has
  every factor ≠ 0.
"""

from __future__ import annotations

import sympy as sp

from derive.kernel.branches import resolve_branches
from derive.kernel.facts import Fact, Relation
from derive.kernel.signs import NEG, POS, Context


def consequences(facts: tuple[Fact, ...], ctx: Context) -> tuple[Fact, ...]:
    """Each fact in a simpler form, under the same reason: its branches chosen by the facts and
    the domain (|√x|² − 1 ≥ 0 is x − 1 ≥ 0), and k·u^r + c ≥ 0 (k > 0, r > 0 not an integer,
    c < 0) as u ≥ (−c/k)^(1/r) when that bound is rational: t ↦ t^r increases on [0, ∞)."""
    out = []
    for f in facts:
        e = resolve_branches(f.expr, ctx) if f.expr.has(
            sp.Abs, sp.Max, sp.Min, sp.sign, sp.Piecewise, sp.Heaviside) else f.expr
        if e != f.expr:
            out.append(Fact(e, f.reason, f.relation, f.origin, f.uses))
        if e.is_Mul:
            out.extend(_factor_facts(f, e, ctx))
        if f.relation is Relation.NONZERO or not e.is_Add or len(e.args) != 2:
            continue
        c, term = e.as_coeff_Add()
        k, power = term.as_coeff_Mul()
        if not (c.is_Rational and c < 0 and k > 0 and power.is_Pow and power.exp.is_Rational
                and power.exp > 0 and not power.exp.is_Integer):
            continue
        bound = (-c / k) ** (1 / power.exp)
        if bound.is_Rational:
            out.append(Fact(power.base - bound, f.reason, f.relation, f.origin, f.uses))
    return tuple(out)


def _factor_facts(f: Fact, e: sp.Expr, ctx: Context) -> list[Fact]:
    """What a fact about a product says of one factor when every other factor has a known
    strict sign (x·y ≥ 0 with y < 0: −x ≥ 0); a product ≠ 0 has every factor ≠ 0."""
    if f.relation is Relation.NONZERO:
        return [Fact(a, f.reason, f.relation, f.origin, f.uses) for a in e.args
                if not a.is_number]
    sign, unknown = 1, []
    for a in e.args:
        s = ctx.signs(a)
        if s == POS:
            continue
        if s == NEG:
            sign = -sign
        else:
            unknown.append(a)
    if len(unknown) != 1:
        return []
    return [Fact(sign * unknown[0], f.reason, f.relation, f.origin, f.uses)]
