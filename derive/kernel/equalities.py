"""Equalities over index ranges as substitutions: each row of Y sums to 1.

A fact `every(equal(Σ_{c=1}^{C} Y[r, c] − 1, …), (r, 1, B))` is two facts E ≥ 0 and −E ≥ 0
for every integer 1 ≤ r ≤ B, so E = 0 at each such r. In normal form E is P(C, r) − 1, P the
prefix sum of Y[r, ·] (prefix.py). Wherever the Σ rules meet P(C, s) at an index s that the
context puts in 1..B (a bound index by the range of its Σ, branches.in_range; a free one by
the claim's facts), P(C, s) is replaced by its value 1: at every point the facts allow, the
two are equal, so the claim is unchanged wherever it is considered. The Σ over the rows then
sees the value instead of the row's sum: Σ_r x_r·Σ_c Y[r, c] becomes Σ_r x_r.

A plain equality with Σ (no range) is used after the normal form (normal_form.sum_equalities);
this one is applied inside it, as each Σ over the columns is rewritten, because its index is
known in range only there. The index must match an argument of the prefix sum exactly and
every other argument must be the fact's own: Σ_{c=1}^{C−1} Y[r, c] is not the fact's Σ, and a
row known only in 1..B − 1 is not B.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from derive.kernel.facts import Fact, Relation
from derive.kernel.prefix import Prefix

RULE = "equalities with Σ over index ranges from the facts"


@dataclass(frozen=True)
class RowEquality:
    """E = 0 for every index in `over` ((i, lo, hi), …), E with a prefix sum; `reason` names
    the fact."""

    expr: sp.Expr
    over: tuple[tuple[sp.Symbol, sp.Expr, sp.Expr], ...]
    reason: str


def _renamed(f: Fact, g: Fact) -> dict | None:
    """{g's index: f's index} when g ranges over the same ranges as f (every() gives each fact
    of a pair its own fresh index when it is called once per fact), else None."""
    if len(f.over) != len(g.over):
        return None
    ren = {j: i for (i, _, _), (j, _, _) in zip(f.over, g.over)}
    for (_, lo, hi), (_, lo2, hi2) in zip(f.over, g.over):
        if lo2.xreplace(ren) != lo or hi2.xreplace(ren) != hi:
            return None
    return ren


@lru_cache(maxsize=256)
def row_equalities(facts: tuple[Fact, ...]) -> tuple[RowEquality, ...]:
    """The equalities over index ranges among the facts: pairs E ≥ 0, −E ≥ 0 over the same
    ranges, E holding a prefix sum (the facts in normal form, as proof.context adds them)."""
    pairs = [f for f in facts if f.over and f.relation is Relation.NONNEGATIVE
             and f.expr.has(Prefix)]
    out = []
    for n, f in enumerate(pairs):
        for g in pairs[n + 1:]:
            ren = _renamed(f, g)
            if ren is not None and sp.expand(f.expr + g.expr.xreplace(ren)) == 0:
                out.append(RowEquality(sp.expand(f.expr), f.over, f.reason))
                break
    return tuple(out)


def _bind(pattern: Prefix, atom: Prefix, indices: set) -> dict | None:
    """{index: value} with pattern = atom at those values: every argument of the pattern
    that is not one of the indices must be the atom's own."""
    if type(pattern) is not type(atom) or len(pattern.args) != len(atom.args):
        return None
    sub: dict = {}
    for want, got in zip(pattern.args, atom.args):
        if want in indices:
            if sub.setdefault(want, got) != got:
                return None
        elif want != got:
            return None
    if set(sub) != indices or any(v.has(*indices) for v in sub.values()):
        return None
    return sub


def _value(atom: Prefix, eq: RowEquality, ctx) -> sp.Expr | None:
    """The value `eq` gives `atom` in the context, or None: an instance of its prefix sum at
    indices the context puts in the fact's ranges, E linear in it with a rational
    coefficient."""
    indices = {i for i, _, _ in eq.over}
    for pattern in eq.expr.atoms(Prefix):
        sub = _bind(pattern, atom, indices)
        if sub is None:
            continue
        if not all(ctx.nonnegative(sub[i] - lo.xreplace(sub))
                   and ctx.nonnegative(hi.xreplace(sub) - sub[i]) for i, lo, hi in eq.over):
            continue
        E = sp.expand(eq.expr.xreplace(sub))
        alpha = E.coeff(atom)
        rest = sp.expand(E - alpha * atom)
        if alpha.is_Rational and alpha != 0 and not rest.has(atom):
            return -rest / alpha
    return None


def substitute_rows(e: sp.Expr, ctx, rules: set[str]) -> sp.Expr:
    """`e` with each prefix sum that an equality over index ranges fixes (at indices the
    context puts in range) replaced by its value; the facts so used are named as used."""
    if not isinstance(e, sp.Basic) or not e.has(Prefix):
        return e
    found = row_equalities(tuple(ctx.facts))
    if not found:
        return e
    sub = {}
    for atom in sorted(e.atoms(Prefix), key=sp.default_sort_key):
        for eq in found:
            value = _value(atom, eq, ctx)
            if value is not None:
                sub[atom] = value
                ctx.used.add(eq.reason)
                break
    if not sub:
        return e
    rules.add(RULE)
    return e.xreplace(sub)
