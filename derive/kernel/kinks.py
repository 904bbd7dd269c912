"""Derivatives at a kink: where they exist, what they are, and where they do not exist.

At a point p where a kink's argument u is 0 (|u|, max/min of two arguments a − b = ±u), the
expression E agrees with E₊ (its branches for u > 0) wherever u ≥ 0 and with E₋ wherever u ≤ 0,
and E₊(p) = E₋(p) = E(p) since those branches meet at u = 0. So:
- if ∂E₊/∂x = ∂E₋/∂x at p, E is differentiable at p with that derivative (d(x|x|)/dx = 0 at 0);
- if they differ and ∂u/∂x ≠ 0 at p, the two one-sided derivatives differ: no derivative at p,
  so p is not in the domain of a claim that takes it (d|x|/dx at 0);
- so where ∂u/∂x ≠ 0, the derivative is ∂E₊/∂x wherever it exists, which is all a claim says.
The base u of a non-integer power (√u) at u = 0 with ∂u/∂x ≠ 0 has no derivative either: E is
undefined on the side where u < 0.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef

from derive.kernel.algebra import linear_roots
from derive.kernel.definedness import kinks
from derive.kernel.signs import Context


class NoDerivative(Exception):
    """At every point of the context, a derivative of the claim does not exist there: those
    points are outside the claim's domain."""


def same_up_to_sign(a: sp.Expr, b: sp.Expr) -> int:
    """1 when a = b, −1 when a = −b (after expansion), else 0."""
    a, b = sp.expand(a), sp.expand(b)
    if a == b:
        return 1
    if a == -b:
        return -1
    return 0


def _one_sided(e: sp.Expr, u: sp.Expr, side: int) -> sp.Expr | None:
    """`e` with every |w| (w = ±u) and two-argument max/min whose arguments differ by ±u
    replaced by its branch where u has the sign `side`; None when another kind of kink at u
    is present (sign, Heaviside, Piecewise, a power's base, a logarithm)."""
    if not isinstance(e, sp.Basic) or e.is_Atom or not e.args:
        return e
    if isinstance(e, (sp.Sum, sp.Derivative, sp.Subs)) and any(
            same_up_to_sign(k, u) for k in _direct_kinks(e)):
        return None
    args = []
    for a in e.args:
        new = _one_sided(a, u, side)
        if new is None:
            return None
        args.append(new)
    if isinstance(e, sp.Abs):
        s = same_up_to_sign(args[0], u)
        if s:
            return s * side * args[0]
    elif isinstance(e, (sp.Max, sp.Min)) and len(args) == 2:
        s = same_up_to_sign(args[0] - args[1], u)
        if s:
            first_larger = s * side > 0
            return args[0] if first_larger == isinstance(e, sp.Max) else args[1]
    elif isinstance(e, (sp.Max, sp.Min)):  # three or more: the branch is not one argument
        if any(same_up_to_sign(a - b, u) for k, a in enumerate(args) for b in args[k + 1:]):
            return None
    elif isinstance(e, (sp.sign, sp.Heaviside, sp.DiracDelta)):
        if same_up_to_sign(args[0], u):
            return None
    elif isinstance(e, sp.Piecewise):
        for _, cond in e.args:
            if isinstance(cond, sp.core.relational.Relational) and same_up_to_sign(
                    cond.lhs - cond.rhs, u):
                return None
    elif e.is_Pow and not (e.exp.is_Integer and e.exp >= 0) and same_up_to_sign(args[0], u):
        return None
    elif isinstance(e, sp.log) and same_up_to_sign(args[0], u):
        return None
    return e.func(*args)


def _direct_kinks(e: sp.Basic) -> list[sp.Expr]:
    found = kinks(e, tuple(s for s in e.free_symbols if isinstance(s, sp.Symbol)))
    return found or []


def _only_power_bases(e: sp.Expr, u: sp.Expr) -> bool:
    """Whether every kink at u in `e` is the base of a power whose exponent is never an
    integer (√u, u^(3/2), u^(n+1/2)): undefined where u < 0. Not u^n or u^y, which at a point
    where the exponent is an integer are defined on both sides (x² at y = 2)."""
    found = False
    for node in sp.preorder_traversal(e):
        if isinstance(node, (sp.Abs, sp.sign, sp.Heaviside, sp.DiracDelta, sp.log)):
            if same_up_to_sign(node.args[0], u):
                return False
        elif isinstance(node, (sp.Max, sp.Min, sp.Piecewise, sp.Sum)):
            return False  # (a Σ may evaluate none of its terms: Σ_{i=1}^{0} √x·i is 0)
        elif node.is_Pow and not node.exp.is_Integer and same_up_to_sign(node.base, u):
            if node.exp.is_integer is not False:
                return False
            found = True
    return found


def _solve(u: sp.Expr) -> dict | None:
    """{s: value} with u = 0 exactly when s = value, or None (algebra.linear_roots)."""
    return next(({s: v} for s, v in linear_roots(u)), None)


def derivative_at_kink(d: sp.Derivative, u: sp.Expr, ctx: Context, rules: set[str],
                       take, equal) -> sp.Expr | None:
    """The first derivative `d` = ∂E/∂x where the context has u = 0, by the rules of the module
    docstring; None when they do not settle it. Raises NoDerivative where it does not exist.
    `take` takes the one-sided derivatives (normal_form.take_derivatives) and `equal` decides
    an identity (normal_form.equal): passed in, as normal_form imports this module."""
    if len(d.variable_count) != 1 or d.variable_count[0][1] != 1:
        return None
    x = d.variable_count[0][0]
    sub = _solve(u)
    if sub is None:
        return None
    slope = sp.diff(u, x).xreplace(sub)
    if _only_power_bases(d.expr, u):
        if ctx.nonzero(slope):
            raise NoDerivative(f"{sp.sstr(d.expr)} is not defined on both sides of {sp.sstr(u)}"
                               f" = 0")
        return None
    plus, minus = _one_sided(d.expr, u, 1), _one_sided(d.expr, u, -1)
    if plus is None or minus is None or plus == d.expr:
        return None  # no branch at u written as such (min(x, y) resolved to x): not settled
    dp = take(sp.Derivative(plus, x), ctx, rules)
    dm = take(sp.Derivative(minus, x), ctx, rules)
    if any(not isinstance(a.expr, AppliedUndef) for e in (dp, dm) for a in e.atoms(
            sp.Derivative)):
        return None
    gap = (dp - dm).subs(sub)  # subs: f′(x) at x = 0 is a Subs (xreplace would fail)
    inner = Context(ctx.facts, ctx.guards, ctx.used, ctx.discharged)
    if equal(gap, sp.S.Zero, inner)[0]:
        rules.add("derivative at a kink (one-sided derivatives agree)")
        return dp
    if not ctx.nonzero(slope):
        return None
    if ctx.nonzero(gap):
        raise NoDerivative(f"the one-sided derivatives of {sp.sstr(d.expr)} differ where "
                           f"{sp.sstr(u)} = 0")
    # u changes sign here: where the gap is 0 the derivative is ∂E₊, elsewhere there is none,
    # so wherever the claim is defined it is ∂E₊ (d(y|x|)/dx at x = 0 is 0 = y for y = 0 only)
    rules.add("derivative at a kink (where it exists)")
    return dp
