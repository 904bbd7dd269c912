"""Where an expression is defined: the kernel's one semantics.

A point belongs to the domain of an expression when EVERY subexpression it evaluates has a
finite real value there: u^r needs u ≠ 0 for a negative integer r and, for a non-integer r,
u > 0 (or u = 0 with r > 0); log u needs u > 0; Mod(a, b) needs b ≠ 0; a derivative needs a
differentiable point. Piecewise branches and Σ summands are evaluated lazily (only the chosen
branch, only the terms of a non-empty range).

A claim lhs = rhs is true when the sides are equal at every point of the symbols' domains that
satisfies the facts and belongs to the domain of both sides. So the domain's conditions are
facts a proof may assume (`domain`), a rewrite must keep every point of the claim's domain in
the domain of what it writes (`conditions`), and a witness must be a point of the domain
(`value_if_defined`).
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.core.function import AppliedUndef

from derive.kernel import functions
from derive.kernel.exact import exact_sign
from derive.kernel.facts import Fact, Relation
from derive.kernel.prefix import is_prefix

TOTAL_FUNCTIONS = (sp.exp, sp.sin, sp.cos, sp.Abs, sp.Max, sp.Min, sp.sign, sp.Heaviside,
                   sp.floor, sp.ceiling, sp.re, sp.im, sp.KroneckerDelta, sp.DiracDelta,
                   sp.tanh, *functions.OWN)
"""Functions with a real value at every real argument."""

NONNEGATIVE, POSITIVE, NONZERO = Relation.NONNEGATIVE, Relation.POSITIVE, Relation.NONZERO

Condition = tuple[sp.Expr, Relation]
"""`expr ≥ 0`, `expr > 0` or `expr ≠ 0`."""


def describe_condition(expr: sp.Expr, relation: Relation, listed: bool = False) -> str:
    """`x ≥ 0`, `x > 0`, `x ≠ 0` for messages; `listed`: as a decision's `conditions` list
    them, where a condition ≠ 0 is its expression alone."""
    if listed and relation is NONZERO:
        return sp.sstr(expr)
    symbol = {NONNEGATIVE: "≥", POSITIVE: ">", NONZERO: "≠"}[relation]
    return f"{sp.sstr(expr)} {symbol} 0"


DOMAIN_REASON = "where the claim is defined: "
"""How a fact of a claim's domain is named (a decision lists those it used in `conditions`)."""


def domain_fact(expr: sp.Expr, relation: Relation) -> Fact:
    """A condition of a claim's domain as a fact a proof may assume and a witness must meet
    (origin "domain": not one of the statement's own facts)."""
    return Fact(expr, DOMAIN_REASON + describe_condition(expr, relation), relation, "domain")


class UnknownDomain(ValueError):
    """An expression with a function whose domain the kernel does not model (tan, Γ, …)."""


# --------------------------------------------------------------------------- a written domain

RELATIONALS = {NONNEGATIVE: sp.Ge, POSITIVE: sp.Gt, NONZERO: sp.Ne}


class DefinedWhere(sp.Function):
    """DefinedWhere(v, c₁, …): the value v, defined only where every condition cᵢ (u ≥ 0,
    u > 0, u ≠ 0) holds. It keeps the domain of a formula as written where SymPy's evaluation
    folds it away inside a Σ term (√x_i² is x_i to SymPy, defined as written for x_i ≥ 0
    only): outside a Σ such conditions are facts of the claim instead."""

    @classmethod
    def eval(cls, value, *conditions):
        if any(c is sp.false for c in conditions):
            return sp.nan
        if all(c is sp.true for c in conditions):
            return value

    def _eval_is_real(self):
        return self.args[0].is_real

    @property
    def conditions(self) -> list[Condition]:
        rel = {v: k for k, v in RELATIONALS.items()}
        return [(c.lhs - c.rhs, rel[type(c)]) for c in self.args[1:]
                if isinstance(c, tuple(rel))]


def defined_where(value: sp.Expr, conditions: list[Condition]) -> sp.Expr:
    """`value` with the domain `conditions` kept (DefinedWhere), or `value` when there is none."""
    conds = [RELATIONALS[rel](e, 0) for e, rel in dict.fromkeys(conditions)]
    return DefinedWhere(value, *conds) if conds else value


def unwrapped(e: sp.Expr) -> sp.Expr:
    """`e` with every DefinedWhere replaced by its value (a larger domain, the same values on
    the smaller one: a rewrite a proof may make)."""
    if not isinstance(e, sp.Basic) or not e.has(DefinedWhere):
        return e
    return e.replace(lambda x: isinstance(x, DefinedWhere), lambda x: x.args[0])


# --------------------------------------------------------------------------- powers

def power_condition(base: sp.Expr, exp: sp.Expr) -> Condition | None:
    """What `base` satisfies wherever base^exp is real, when one condition says it: a negative
    integer exponent needs base ≠ 0; a non-integer one base ≥ 0 (base > 0 if it is negative;
    one of unknown sign allows base = 0 where it is positive, so `conditions`, which must
    make the power defined, asks for base > 0 unless the exponent is known positive).
    None when nothing is needed (a nonnegative integer exponent) or when the condition is a
    disjunction (a symbolic exponent that may or may not be an integer: base > 0, or base < 0
    with an integer exponent)."""
    if exp.is_Integer:
        return (base, NONZERO) if exp < 0 else None
    integer = exp.is_integer
    if integer is True:
        return (base, NONZERO) if exp.is_negative else None
    if integer is False or (exp.is_Rational and not exp.is_Integer):
        # 0^r is defined for r > 0: base > 0 only for a negative r (x^(n+1/2) at x = 0, n = 0)
        return (base, POSITIVE) if exp.is_negative else (base, NONNEGATIVE)
    return None


def _simplest(expr: sp.Expr, relation: Relation) -> Condition | None:
    """The same condition, where the power is defined, on its base: u^(odd n) has the sign of
    u (and u ≠ 0 for n < 0); u^(even n) ≥ 0 always holds and u^(even n) > 0 is u ≠ 0; u^r
    for a non-integer r is ≥ 0, > 0 exactly where u > 0, and ≠ 0 where u ≠ 0; |u| ≥ 0 always
    holds, and |u| > 0 and |u| ≠ 0 are u ≠ 0 (the guard of r/|r|). None for a condition that
    always holds."""
    while isinstance(expr, sp.Abs) or expr.is_Pow and expr.exp.is_Rational:
        if isinstance(expr, sp.Abs):
            if relation is NONNEGATIVE:
                return None
            expr, relation = expr.args[0], NONZERO
            continue
        n, base = expr.exp, expr.base
        if n.is_Integer and n % 2 == 1:
            if n < 0 and relation is NONNEGATIVE:
                relation = POSITIVE
            expr = base
        elif relation is NONNEGATIVE:
            return None
        elif n.is_Integer:
            expr, relation = base, NONZERO
        else:
            expr = base
    if expr.is_Rational and relation.holds(expr):
        return None
    return expr, relation


# --------------------------------------------------------------------------- the domain

def at_point(e: sp.Expr, sub: dict) -> sp.Expr:
    """`e` at the point of a Subs: f′(x) at x = 0 is Subs(f′(x), x, 0) (xreplace would build
    a derivative with respect to 0, which SymPy refuses)."""
    try:
        return e.xreplace(sub)
    except ValueError:
        return e.subs(sub, simultaneous=True)


def domain(e: sp.Basic) -> list[Condition]:
    """Conditions that hold wherever `e` is defined: one per root, logarithm, negative power
    and Mod evaluated whenever `e` is (outside Σ summands and Piecewise branches, which may be
    skipped; inside a derivative and at the point of a Subs)."""
    if isinstance(e, sp.MatrixBase):
        return list(dict.fromkeys(c for entry in e for c in _domain_of(entry)))
    return list(_domain_of(e))


@lru_cache(maxsize=4096)
def _domain_of(e: sp.Basic) -> tuple[Condition, ...]:
    """domain(e), once per expression (a claim's context is built for each of its cases)."""
    out: list[Condition] = []
    _domain(e, out)
    return tuple(dict.fromkeys(out))


def _domain(e: sp.Basic, out: list[Condition]) -> None:
    if not isinstance(e, sp.Basic) or isinstance(e, sp.Symbol):
        return
    if isinstance(e, sp.Indexed):
        for i in e.indices:
            _domain(i, out)
        return
    if e.is_Atom or isinstance(e, (sp.Piecewise, sp.Tuple)):
        return
    if isinstance(e, sp.Sum):
        for _, a, b in e.limits:
            _domain(a, out)
            _domain(b, out)
        return
    if isinstance(e, sp.Subs):  # the conditions of the expression, at the point
        inner: list[Condition] = []
        _domain(e.expr, inner)
        sub = dict(zip(e.variables, e.point))
        for expr, rel in inner:
            found = _simplest(at_point(expr, sub), rel)
            if found is not None:
                out.append(found)
        for p in e.point:
            _domain(p, out)
        return
    if isinstance(e, sp.Derivative):  # taken at a point where its expression is defined
        _domain(e.expr, out)
        return
    if isinstance(e, DefinedWhere):
        _domain(e.args[0], out)
        out.extend(c for c in (_simplest(*c) for c in e.conditions) if c is not None)
        return
    for a in e.args:
        _domain(a, out)
    out.extend(operation_conditions(e.func, e.args))


def folded_away(written, *exprs: sp.Expr) -> list[Condition]:
    """The conditions of `written` (a formula's domain as written, `operation_conditions` of
    each operation) that the domain of `exprs`, the formula as SymPy evaluated it, lost:
    √x² is x, so x ≥ 0 is folded away."""
    kept = {c for e in exprs for c in domain(e)}
    return [c for c in dict.fromkeys(written) if c not in kept]


def operation_conditions(func, args) -> list[Condition]:
    """What the operands of one operation must satisfy for it to be defined (simplified):
    base^exp as `power_condition` says, log u needs u > 0, Mod(a, b) needs b ≠ 0. Also for a
    formula's operations before SymPy evaluates them (√x² is x to SymPy, defined for x ≥ 0
    as written)."""
    if func is sp.Pow:
        found = power_condition(*args)
    elif func is sp.log:
        found = (args[0], POSITIVE)
    elif func is sp.Mod:
        found = (args[1], NONZERO)
    else:
        return []
    simplest = None if found is None else _simplest(*found)
    return [] if simplest is None else [simplest]


def guards(e: sp.Expr) -> list[sp.Expr]:
    """Expressions that are nonzero wherever `e` is defined (its domain's conditions ≠ 0 and
    > 0): the bases of its negative powers and the arguments of its logarithms, outside any Σ
    summand or Piecewise branch."""
    return [expr for expr, rel in domain(e) if rel is not NONNEGATIVE]


# --------------------------------------------------------------------------- rewriting

def conditions(e: sp.Expr) -> list[Condition]:
    """Conditions that together make `e` defined (a superset is fine: more conditions only
    make the kernel prove less), Σ summands and Piecewise branches included. Raises
    UnknownDomain for a function whose domain the kernel does not model."""
    out: list[Condition] = []
    for entry in (e if isinstance(e, sp.MatrixBase) else (e,)):
        _collect(entry, out)
    return out


def _collect(e: sp.Basic, out: list[Condition]) -> None:
    if e.is_Atom or isinstance(e, (sp.Symbol, sp.Indexed, sp.Idx)):
        if e in (sp.zoo, sp.nan, sp.oo, -sp.oo) or (e.is_number and e.is_extended_real is False):
            out.append((sp.S.Zero, NONZERO))
        if isinstance(e, sp.Indexed):
            for i in e.indices:
                _collect(i, out)
        return
    if e.is_Pow:
        _collect(e.base, out)
        _collect(e.exp, out)
        if not (e.exp.is_integer and e.exp.is_nonnegative):
            found = power_condition(e.base, e.exp)
            if found is None:  # a disjunction: a nonzero base (integer exponent) or a
                found = (e.base, NONZERO if e.exp.is_integer else POSITIVE)  # positive one
            elif found[1] is NONNEGATIVE and e.exp.is_positive is not True:
                found = (e.base, POSITIVE)  # 0^r needs r > 0, which is not known
            out.append(found)
        return
    if isinstance(e, sp.log):
        _collect(e.args[0], out)
        out.append((e.args[0], POSITIVE))
        return
    if isinstance(e, sp.Mod):
        _collect(e.args[0], out)
        _collect(e.args[1], out)
        out.append((e.args[1], NONZERO))
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
        inner: list[Condition] = []
        _collect(e.expr, inner)
        sub = dict(zip(e.variables, e.point))
        out.extend((at_point(c, sub), rel) for c, rel in inner)
        for p in e.point:
            _collect(p, out)
        return
    if is_prefix(e):
        for a in e.args:
            _collect(a, out)
        return
    if isinstance(e, DefinedWhere):
        _collect(e.args[0], out)
        for c, relation in e.conditions:
            _collect(c, out)
            out.append((c, relation))
        return
    if e.is_Add or e.is_Mul or isinstance(e, (AppliedUndef,) + TOTAL_FUNCTIONS):
        for a in e.args:
            _collect(a, out)
        return
    raise UnknownDomain(f"{type(e).__name__} has a domain the kernel does not model")


SMOOTH_FUNCTIONS = (sp.exp, sp.sin, sp.cos)
"""Functions differentiable at every argument."""


def depends(e: sp.Basic, variables: tuple) -> bool:
    """Whether `e` may depend on one of `variables`: a Symbol by occurring in it; a subscript
    W[p, q] by any subscript of its base (W[i, k] is W[p, q] where i = p and k = q)."""
    for v in variables:
        if isinstance(v, sp.Indexed):
            if e.has(v.base):
                return True
        elif v in e.free_symbols:
            return True
    return False


def node_kinks(node: sp.Basic, variables: tuple) -> list[sp.Expr] | None:
    """The kinks of one node of an expression (not of its arguments): see `kinks`."""
    if not isinstance(node, sp.Basic) or not depends(node, variables):
        return []
    if node.is_Atom or isinstance(node, (sp.Symbol, sp.Indexed)) or node.is_Add or node.is_Mul:
        return []
    if node.is_Pow:
        return [] if node.exp.is_Integer and node.exp >= 0 else [node.base]
    if isinstance(node, sp.log):
        return [node.args[0]]
    if isinstance(node, (sp.Abs, sp.sign, sp.Heaviside, sp.DiracDelta)):
        return [node.args[0]]
    if isinstance(node, (sp.Max, sp.Min)):
        args = node.args
        return [a - b for n, a in enumerate(args) for b in args[n + 1:]]
    if isinstance(node, sp.Piecewise):
        out = []
        for _, cond in node.args:
            if cond is sp.true or cond is sp.false:
                continue
            if not depends(cond, variables):
                continue
            if not isinstance(cond, sp.core.relational.Relational) or isinstance(
                    cond, (sp.Eq, sp.Ne)):
                return None
            out.append(cond.lhs - cond.rhs)
        return out
    if isinstance(node, sp.KroneckerDelta):  # δ(i, p) of integers: constant in W[p, q]
        return None if depends(sp.Tuple(*node.args), variables) else []
    if isinstance(node, (AppliedUndef, sp.Derivative, sp.Subs, sp.Sum,
                         sp.core.relational.Relational, sp.logic.boolalg.Boolean,
                         sp.Tuple) + SMOOTH_FUNCTIONS):
        return []
    return None


def kinks(e: sp.Expr, variables: tuple[sp.Symbol, ...]) -> list[sp.Expr] | None:
    """Where `e` may fail to be differentiable in `variables`: expressions that must be nonzero
    (the argument of |·|, sign, Heaviside and DiracDelta, the difference of the arguments of max
    and min, the two sides of a Piecewise condition, the base of a power that is not a
    nonnegative integer power, the argument of a logarithm); None when `e` has a part the kernel
    does not know to be differentiable (floor, atan2, a condition that is not a comparison, any
    function not listed here). Undefined functions are differentiable by assumption. A variable
    may be a subscript W[p, q] (`depends`)."""
    out: list[sp.Expr] = []
    for node in sp.preorder_traversal(e):
        found = node_kinks(node, variables)
        if found is None:
            return None
        out.extend(found)
    return out


# --------------------------------------------------------------------------- at a point

def defined_at(e: sp.Basic, point: dict) -> bool:
    """Whether `e` is defined at `point` by the kernel's own rules (every subexpression finite
    and real, no function with an unmodelled domain, Piecewise branches taken lazily), rather
    than by what SymPy's automatic simplification leaves after substitution (0·lowergamma(0, 1)
    becomes 0 there, √−2·√−2 becomes −2)."""
    return value_if_defined(e, point) is not None


def value_if_defined(e: sp.Expr, point: dict, memo: dict | None = None):
    """The value of `e` at `point`, computed node by node once, or None where it is undefined
    by the rules of `defined_at`."""
    memo = {} if memo is None else memo
    if e in memo:
        return memo[e]
    out = _value(e, point, memo)
    memo[e] = out
    return out


def _sign(value) -> int | None:

    return exact_sign(value)


def real_power(base: sp.Expr, exp: sp.Expr) -> bool:
    """Whether base^exp of two real numbers is a finite real number (principal value)."""
    if exp.is_Rational:
        integer = exp.is_Integer
    else:
        integer = exp.is_integer
        if integer is None:
            return False
    if integer:
        return exp >= 0 or _sign(base) not in (0, None)
    s = _sign(base)
    if s == 1:
        return True
    return s == 0 and _sign(exp) == 1


def operation_defined(e: sp.Basic, args: list) -> bool:
    """Whether one operation on concrete real values is defined by the real semantics: a power
    as `real_power` says, log of a positive number, Mod by a nonzero one; any other operation
    wherever its arguments are."""
    if e.is_Pow:
        return real_power(*args)
    if isinstance(e, sp.log):
        return _sign(args[0]) == 1
    if isinstance(e, sp.Mod):
        return _sign(args[1]) in (-1, 1)
    return True


def _truth(cond, point: dict, memo: dict):
    """sp.true or sp.false for a condition at `point`, its sides valued node by node (√x > 1
    has no value at x = −1, and √(x−1)·√(x−2) < 0 none at x = 0), or None."""
    if cond in (sp.true, sp.false):
        return cond
    if isinstance(cond, sp.core.relational.Relational):
        sides = [value_if_defined(a, point, memo) for a in (cond.lhs, cond.rhs)]
        if any(v is None for v in sides):
            return None
        try:
            out = cond.func(*sides)
        except TypeError:  # a comparison SymPy refuses (a side not real)
            return None
    elif isinstance(cond, (sp.And, sp.Or, sp.Not)):
        parts = [_truth(c, point, memo) for c in cond.args]
        if any(p is None for p in parts):
            return None
        out = cond.func(*parts)
    else:
        return None
    return out if out in (sp.true, sp.false) else None


def _real_number(v) -> bool:
    if v.is_Rational:
        return True
    return v.is_number and v.is_extended_real is True and not v.has(
        sp.zoo, sp.nan, sp.oo, -sp.oo)


def _value(e, point, memo):
    if not isinstance(e, sp.Basic):
        return e
    if isinstance(e, sp.Symbol):
        v = point.get(e, e)
        return sp.Integer(v) if type(v) is int else v
    if e.is_Atom or isinstance(e, sp.Idx):
        if e in (sp.zoo, sp.nan, sp.oo, -sp.oo) or (e.is_number and not _real_number(e)):
            return None
        return e
    if isinstance(e, sp.Piecewise):
        for value, cond in e.args:
            c = _truth(cond, point, memo)
            if c is sp.true:
                return value_if_defined(value, point, memo)
            if c is not sp.false:
                return None  # a condition not settled by the point (or itself undefined)
        return None
    if isinstance(e, sp.Indexed):
        idx = [value_if_defined(i, point, memo) for i in e.indices]
        return None if any(i is None for i in idx) else e.base[tuple(idx)]
    if isinstance(e, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
        return _truth(e, point, memo)
    if isinstance(e, DefinedWhere):
        for c, relation in e.conditions:
            v = value_if_defined(c, point, memo)
            if v is None or not (isinstance(v, sp.Expr) and v.is_number) or \
                    not relation.holds(v):
                return None
        return value_if_defined(e.args[0], point, memo)
    if not (e.is_Add or e.is_Mul or e.is_Pow or isinstance(
            e, (sp.log, sp.Mod, AppliedUndef) + TOTAL_FUNCTIONS)):
        return None  # a function whose domain the kernel does not model
    args = [value_if_defined(a, point, memo) for a in e.args]
    if any(a is None for a in args):
        return None
    if all(isinstance(a, sp.Expr) and a.is_number for a in args):
        if not operation_defined(e, args):
            return None
    elif isinstance(e, (sp.log, sp.Mod)) or (e.is_Pow and not (
            args[1].is_Integer and args[1] >= 0)):
        return None  # not settled at this point
    try:
        out = e.func(*args)
    except (ValueError, TypeError):  # max(x, log(2/3) + log(3/2)): SymPy cannot compare
        return None
    if out.has(sp.zoo, sp.nan) or (out.is_number and not _real_number(out)):
        return None
    return out
