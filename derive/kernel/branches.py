"""Choosing branches: Min, Max, Abs, sign, Heaviside and Piecewise replaced by the branch the
facts select, where their signs settle it.

Two boundaries are respected: a derivative is never entered (a fact that holds on a closed set
does not fix a derivative at its boundary; derivatives are taken before this, see
normal_form.py), and inside Σ_i no fact about a free symbol named i is used.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.relational import Relational

from derive.kernel.facts import Fact, Relation
from derive.kernel.signs import NEG, NONNEG, NONPOS, POS, ZERO, Context


def truth(cond, ctx: Context) -> bool | None:
    """Whether a Piecewise condition holds everywhere the facts allow (None: not settled)."""
    if cond is sp.true:
        return True
    if cond is sp.false:
        return False
    if isinstance(cond, sp.And):
        parts = [truth(c, ctx) for c in cond.args]
        return False if False in parts else (True if all(parts) else None)
    if isinstance(cond, sp.Or):
        parts = [truth(c, ctx) for c in cond.args]
        return True if True in parts else (False if all(p is False for p in parts) else None)
    if isinstance(cond, sp.Not):
        t = truth(cond.args[0], ctx)
        return None if t is None else not t
    if not isinstance(cond, Relational):
        return None
    s = ctx.signs(cond.lhs - cond.rhs)
    if s is None:
        return None
    if isinstance(cond, sp.Ge):
        return True if s <= NONNEG else (False if s <= NEG else None)
    if isinstance(cond, sp.Gt):
        return True if s <= POS else (False if s <= NONPOS else None)
    if isinstance(cond, sp.Le):
        return True if s <= NONPOS else (False if s <= POS else None)
    if isinstance(cond, sp.Lt):
        return True if s <= NEG else (False if s <= NONNEG else None)
    if isinstance(cond, sp.Eq):
        return True if s <= ZERO else (False if 0 not in s else None)
    if isinstance(cond, sp.Ne):
        return True if 0 not in s else (False if s <= ZERO else None)
    return None


def in_range(ctx: Context, i: sp.Symbol, a: sp.Expr, b: sp.Expr) -> Context:
    """The context for the terms of Σ_{i=a}^{b}: when the range is known not to be reversed
    (b − a + 1 ≥ 0), every term has a ≤ i ≤ b (Karr's reversed sums evaluate terms outside
    [a, b], so nothing is added then)."""
    if a.has(i) or b.has(i) or not ctx.nonnegative(b - a + 1):
        return ctx
    extra = [Fact(i - a, f"{i} ≥ {a} in the range of Σ"), Fact(b - i, f"{i} ≤ {b} in the range")]
    if ctx.positive(a):
        extra.append(Fact(i, f"{i} > 0 in the range", Relation.POSITIVE))
    elif ctx.nonnegative(a):
        extra.append(Fact(i, f"{i} ≥ 0 in the range"))
    if ctx.positive(-b):
        extra.append(Fact(-i, f"{i} < 0 in the range", Relation.POSITIVE))
    elif ctx.nonnegative(-b):
        extra.append(Fact(-i, f"{i} ≤ 0 in the range"))
    return Context(ctx.facts + tuple(extra), ctx.guards, ctx.used, ctx.discharged)


def _extremum(e, args, ctx: Context):
    """Drop every argument of Min/Max that another one dominates by the facts."""
    keep = list(args)
    is_max = isinstance(e, sp.Max)
    changed = True
    while changed and len(keep) > 1:
        changed = False
        for x in keep:
            for y in keep:
                if x is y:
                    continue
                s = ctx.signs(y - x)
                # for Max, y ≥ x makes x redundant; for Min, y ≤ x does
                if s is not None and (s <= NONNEG if is_max else s <= NONPOS):
                    keep.remove(x)
                    changed = True
                    break
            if changed:
                break
    return keep[0] if len(keep) == 1 else e.func(*keep)


def resolve_branches(e: sp.Expr, ctx: Context) -> sp.Expr:
    """`e` with every branch the facts settle chosen, outside derivatives."""
    if not isinstance(e, sp.Basic) or e.is_Atom or not e.args:
        return e
    if isinstance(e, (sp.Derivative, sp.Subs, sp.Tuple)):
        return e
    if isinstance(e, sp.Sum):
        inner = ctx
        for i, a, b in reversed(e.limits):
            inner = in_range(inner.without(i), i, a, b)
        body = resolve_branches(e.function, inner)
        limits = [(i, resolve_branches(a, ctx), resolve_branches(b, ctx)) for i, a, b in e.limits]
        return sp.Sum(body, *limits)
    if isinstance(e, sp.Piecewise):
        for n, (value, cond) in enumerate(e.args):
            t = truth(cond, ctx)
            if t is True:
                return resolve_branches(value, ctx)
            if t is None:
                return sp.Piecewise(*[(resolve_branches(v, ctx), c) for v, c in e.args[n:]])
        return e
    args = [resolve_branches(a, ctx) for a in e.args]
    if isinstance(e, (sp.Min, sp.Max)):
        return _extremum(e, args, ctx)
    if isinstance(e, sp.Abs):
        s = ctx.signs(args[0])
        if s is not None and s <= NONNEG:
            return args[0]
        if s is not None and s <= NONPOS:
            return -args[0]
        return sp.Abs(args[0])
    if isinstance(e, sp.sign):
        s = ctx.signs(args[0])
        return sp.Integer(next(iter(s))) if s is not None and len(s) == 1 else sp.sign(args[0])
    if isinstance(e, sp.DiracDelta):
        s = ctx.signs(args[0])
        return sp.S.Zero if s is not None and 0 not in s else e.func(*args)
    if isinstance(e, sp.Heaviside):
        s = ctx.signs(args[0])
        if s is not None and s <= POS:
            return sp.S.One
        if s is not None and s <= NEG:
            return sp.S.Zero
        if len(args) == 2 and ctx.nonzero(args[0]):  # its value at 0 is never taken
            return sp.Heaviside(args[0])
        return e.func(*args)
    if isinstance(e, sp.KroneckerDelta):
        s = ctx.signs(sp.expand(args[0] - args[1]))
        if s is not None and s <= ZERO:
            return sp.S.One
        if s is not None and 0 not in s:
            return sp.S.Zero
        return e.func(*args)
    return e.func(*args) if args != list(e.args) else e
