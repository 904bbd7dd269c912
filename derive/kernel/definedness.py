"""Where an expression is defined: the expressions that must be nonzero for it to have a value.

The kernel's semantics: a claim lhs = rhs is *proved* when the two sides are equal at every point
of the symbols' domains, satisfying the facts, at which both sides are defined. A rewrite may
therefore not turn an expression that is defined at a point into one that is not (the normal form
would then say nothing there); each rewrite that could records the conditions under which it is
an identity, and a proof must discharge them.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef

TOTAL_FUNCTIONS = (sp.exp, sp.sin, sp.cos, sp.Abs, sp.Max, sp.Min, sp.sign, sp.Heaviside,
                   sp.floor, sp.ceiling, sp.re, sp.im, sp.KroneckerDelta, sp.DiracDelta)
"""Functions with a value at every real (or complex) argument."""


class UnknownDomain(ValueError):
    """An expression with a function whose domain the kernel does not model (tan, Γ, …)."""


def conditions(e: sp.Expr) -> list[sp.Expr]:
    """Expressions that must all be nonzero for `e` to be defined (a superset is fine: more
    conditions only make the kernel prove less). Raises UnknownDomain."""
    out: list[sp.Expr] = []
    for entry in (e if isinstance(e, sp.MatrixBase) else (e,)):
        _collect(entry, out)
    return out


def _collect(e: sp.Basic, out: list[sp.Expr]) -> None:
    from derive.kernel.sums import is_prefix

    if e.is_Atom or isinstance(e, (sp.Symbol, sp.Indexed, sp.Idx)):
        if e in (sp.zoo, sp.nan, sp.oo, -sp.oo):
            out.append(sp.S.Zero)
        if isinstance(e, sp.Indexed):
            for i in e.indices:
                _collect(i, out)
        return
    if e.is_Pow:
        _collect(e.base, out)
        _collect(e.exp, out)
        if not (e.exp.is_Rational and e.exp >= 0):
            out.append(e.base)
        return
    if isinstance(e, sp.log):
        _collect(e.args[0], out)
        out.append(e.args[0])
        return
    if isinstance(e, sp.Mod):
        _collect(e.args[0], out)
        _collect(e.args[1], out)
        out.append(e.args[1])
        return
    if isinstance(e, sp.Piecewise):
        for value, cond in e.args:
            _collect(value, out)
            for rel in cond.atoms(sp.core.relational.Relational):
                _collect(rel.lhs, out)
                _collect(rel.rhs, out)
        return
    if isinstance(e, sp.Sum):
        _collect(e.function, out)  # with the index free: conservative
        for _, a, b in e.limits:
            _collect(a, out)
            _collect(b, out)
        return
    if isinstance(e, sp.Derivative):
        _collect(e.expr, out)
        return
    if isinstance(e, sp.Subs):  # the conditions of the expression, at the point
        inner: list[sp.Expr] = []
        _collect(e.expr, inner)
        sub = dict(zip(e.variables, e.point))
        out.extend(c.xreplace(sub) for c in inner)
        for p in e.point:
            _collect(p, out)
        return
    if is_prefix(e):
        for a in e.args:
            _collect(a, out)
        return
    if e.is_Add or e.is_Mul or isinstance(e, (AppliedUndef,) + TOTAL_FUNCTIONS):
        for a in e.args:
            _collect(a, out)
        return
    raise UnknownDomain(f"{type(e).__name__} has a domain the kernel does not model")


def guards(e: sp.Expr) -> list[sp.Expr]:
    """Expressions that are nonzero wherever `e` is defined: the bases of its negative powers
    and the arguments of its logarithms, outside any Σ summand or Piecewise branch (those may be
    skipped, so they guard nothing)."""
    out: list[sp.Expr] = []
    for entry in (e if isinstance(e, sp.MatrixBase) else (e,)):
        _guards(entry, out)
    return out


def _guards(e: sp.Basic, out: list[sp.Expr]) -> None:
    if e.is_Atom or isinstance(e, (sp.Symbol, sp.Indexed)):
        return
    if isinstance(e, sp.Piecewise):
        return
    if isinstance(e, sp.Subs):  # its variables are bound: only the point is the claim's
        for p in e.point:
            _guards(p, out)
        return
    if isinstance(e, sp.Sum):
        for _, a, b in e.limits:
            _guards(a, out)
            _guards(b, out)
        return
    if e.is_Pow and (e.exp.is_negative is True):
        out.append(e.base)
    if isinstance(e, sp.log):
        out.append(e.args[0])
    if isinstance(e, sp.Mod):
        out.append(e.args[1])
    for a in e.args:
        if isinstance(a, sp.Basic) and not isinstance(a, sp.Tuple):
            _guards(a, out)


SMOOTH_FUNCTIONS = (sp.exp, sp.sin, sp.cos)
"""Functions differentiable at every argument."""


def kinks(e: sp.Expr, variables: tuple[sp.Symbol, ...]) -> list[sp.Expr] | None:
    """Where `e` may fail to be differentiable in `variables`: expressions that must be nonzero
    (the argument of |·|, sign, Heaviside and DiracDelta, the difference of the arguments of max
    and min, the two sides of a Piecewise condition, the base of a power that is not a
    nonnegative integer power, the argument of a logarithm); None when `e` has a part the kernel
    does not know to be differentiable (floor, atan2, a condition that is not a comparison, any
    function not listed here). Undefined functions are differentiable by assumption."""
    out: list[sp.Expr] = []
    for node in sp.preorder_traversal(e):
        if not isinstance(node, sp.Basic) or not any(v in node.free_symbols for v in variables):
            continue
        if node.is_Atom or isinstance(node, (sp.Symbol, sp.Indexed)) or node.is_Add \
                or node.is_Mul:
            continue
        if node.is_Pow:
            if not (node.exp.is_Integer and node.exp >= 0):
                out.append(node.base)
        elif isinstance(node, sp.log):
            out.append(node.args[0])
        elif isinstance(node, (sp.Abs, sp.sign, sp.Heaviside, sp.DiracDelta)):
            out.append(node.args[0])
        elif isinstance(node, (sp.Max, sp.Min)):
            args = node.args
            out.extend(a - b for n, a in enumerate(args) for b in args[n + 1:])
        elif isinstance(node, sp.Piecewise):
            for _, cond in node.args:
                if cond is sp.true or cond is sp.false:
                    continue
                if not any(v in cond.free_symbols for v in variables):
                    continue
                if not isinstance(cond, sp.core.relational.Relational) or isinstance(
                        cond, (sp.Eq, sp.Ne)):
                    return None
                out.append(cond.lhs - cond.rhs)
        elif isinstance(node, (AppliedUndef, sp.Derivative, sp.Subs, sp.Sum,
                               sp.core.relational.Relational, sp.logic.boolalg.Boolean,
                               sp.Tuple) + SMOOTH_FUNCTIONS):
            continue
        else:
            return None
    return out


def defined_at(e: sp.Basic, point: dict) -> bool:
    """Whether `e` is defined at `point` by the kernel's own rules (no division by zero, no
    logarithm of 0, no function with an unmodelled domain, Piecewise branches taken lazily),
    rather than by what SymPy's automatic simplification leaves after substitution
    (0·lowergamma(0, 1) becomes 0 there, though lowergamma(0, 1) has no value)."""
    return value_if_defined(e, point) is not None


def value_if_defined(e: sp.Basic, point: dict, memo: dict | None = None):
    """The value of `e` at `point`, computed node by node once, or None where it is undefined
    by the rules of `defined_at`."""
    memo = {} if memo is None else memo
    if e in memo:
        return memo[e]
    out = _value(e, point, memo)
    memo[e] = out
    return out


def _value(e, point, memo):
    if not isinstance(e, sp.Basic):
        return e
    if isinstance(e, sp.Symbol):
        return point.get(e, e)
    if e.is_Atom or isinstance(e, sp.Idx):
        return None if e in (sp.zoo, sp.nan, sp.oo, -sp.oo) else e
    if isinstance(e, sp.Piecewise):
        for value, cond in e.args:
            c = cond.xreplace(point) if cond not in (sp.true, sp.false) else cond
            if c is sp.true:
                return value_if_defined(value, point, memo)
            if c is not sp.false:
                return None  # a condition not settled by the point (or itself undefined)
        return None
    if isinstance(e, sp.Indexed):
        idx = [value_if_defined(i, point, memo) for i in e.indices]
        return None if any(i is None for i in idx) else e.base[tuple(idx)]
    if isinstance(e, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
        return e.xreplace(point)
    if not (e.is_Add or e.is_Mul or e.is_Pow or isinstance(
            e, (sp.log, sp.Mod, AppliedUndef) + TOTAL_FUNCTIONS)):
        return None  # a function whose domain the kernel does not model
    args = [value_if_defined(a, point, memo) for a in e.args]
    if any(a is None for a in args):
        return None
    if e.is_Pow:
        base, exp = args
        if not (exp.is_Rational and exp >= 0) and (not base.is_number
                                                   or base.is_zero is not False):
            return None
    if isinstance(e, sp.log) and not (args[0].is_number and args[0].is_zero is False):
        return None
    if isinstance(e, sp.Mod) and not (args[1].is_number and args[1].is_zero is False):
        return None
    out = e.func(*args)
    return None if out.has(sp.zoo, sp.nan) else out
