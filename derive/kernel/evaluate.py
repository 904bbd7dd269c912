"""Exact evaluation of a claim on concrete values: the ground truth a witness is checked against.

`instantiate` replaces the claim's symbols by values and its undefined functions (and indexed
bases) by Lambdas, writes every Σ with concrete limits out term by term under Karr's convention
(an empty Σ evaluates no term), chooses Piecewise branches lazily, and takes each derivative by
`sympy.diff` before its variable gets a value, remembering its kinks and the expression it
differentiates (which must be defined at the point: d(x + log y)/dx is 1, but not at y = 0).
An operation on concrete values that the real semantics leaves undefined (√−1, log 0) is
undefined when written out, not folded (√−1·√−2 is not −√2). `value_at` then gives the exact
value at a point, or None where the expression is undefined: a division by zero, a logarithm
of 0, a derivative at a kink, or a value that is not real.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.core.relational import Relational

from derive.kernel.definedness import (
    DefinedWhere,
    defined_where,
    kinks,
    operation_defined,
    value_if_defined,
)
from derive.kernel.exact import is_zero_exact

MAX_TERMS = 5000
"""Most Σ terms one instantiation writes out."""


class NotConcrete(ValueError):
    """An expression that cannot be written out on these values (a symbolic limit, too many
    terms, a non-smooth part whose derivative the kernel does not model)."""


@dataclass
class Instance:
    """An expression written out on concrete structure: closed in the shape's variables."""

    expr: sp.Expr
    kinks: list[sp.Expr] = field(default_factory=list)
    applications: list[tuple[sp.Expr, sp.Expr]] = field(default_factory=list)
    """(original application, its value) for each undefined function or subscript used."""
    defined: list[AtPoint] = field(default_factory=list)
    """What must be defined at the point (what a derivative differentiates, what a Subs
    substitutes into)."""


@dataclass(frozen=True)
class AtPoint:
    """`expr` at `sub` (a derivative's variables at their values), valued node by node only
    at a point: substituting first would let SymPy fold √(x−1)·√(x−2) at x = 0 into −√2, and
    substituting without evaluation costs SymPy's cache (5× the write-out of a claim)."""

    expr: sp.Expr
    sub: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()

    def then(self, sub: dict) -> AtPoint:
        """This at `sub` as well (the variables of a Subs around it)."""
        inner = {k: v.xreplace(sub) for k, v in self.sub}
        return AtPoint(self.expr, tuple({**sub, **inner}.items()))

    def defined(self, point: dict) -> bool:
        values = {}
        for k, v in self.sub:
            got = value_if_defined(v, point)
            if got is None:
                return False
            values[k] = got
        return value_if_defined(self.expr, {**point, **values}) is not None


class _Writer:
    def __init__(self, symbols, functions, budget):
        self.symbols = symbols
        self.functions = functions
        self.budget = budget
        self.kinks: list[sp.Expr] = []
        self.apps: list[tuple[sp.Expr, sp.Expr]] = []
        self.defined: list[AtPoint] = []

    def run(self, e, env, held):
        if isinstance(e, sp.Symbol):
            if e in held:
                return e
            return env.get(e, e)
        if isinstance(e, sp.Indexed):  # an atom to SymPy, a function of its indices here
            idx = [self.run(i, env, held) for i in e.indices]
            if e.base in self.functions:
                value = self.run(self.functions[e.base](*idx), env, held)
                self.apps.append((e.base[tuple(idx)], value))
                return value
            return e.base[tuple(idx)]
        if not isinstance(e, sp.Basic) or e.is_Atom:
            return e
        if isinstance(e, AppliedUndef):
            args = [self.run(a, env, held) for a in e.args]
            if e.func in self.functions:
                value = self.run(self.functions[e.func](*args), env, held)
                self.apps.append((e.func(*args), value))
                return value
            return e.func(*args)
        if isinstance(e, sp.Sum):
            return self._sum(e, env, held)
        if isinstance(e, sp.Piecewise):
            pieces = []
            for value, cond in e.args:
                c = self._cond(cond, env, held)
                if c is sp.nan:  # a condition with an undefined side: no branch is chosen
                    return sp.nan
                if c is sp.false:
                    continue
                pieces.append((self.run(value, env, held), c))
                if c is sp.true:
                    break
            return sp.Piecewise(*pieces) if pieces else sp.nan
        if isinstance(e, sp.Derivative):
            return self._derivative(e, env, held)
        if isinstance(e, sp.Subs):
            return self._subs(e, env, held)
        if isinstance(e, sp.Lambda):
            return e
        if isinstance(e, DefinedWhere):
            return self._defined_where(e, env, held)
        args = [self.run(a, env, held) for a in e.args]
        if any(a is sp.nan for a in args):
            return sp.nan
        if all(isinstance(a, sp.Expr) and a.is_number for a in args) and not \
                operation_defined(e, args):
            return sp.nan  # √−1, log 0: undefined, even where SymPy would fold it away
        out = e.func(*args)
        if out.is_number and (not _finite(out) or out.is_finite is not True):
            return sp.nan  # undefined here: keep it so (SymPy would make 0·zoo, 1/zoo into 0)
        return out

    def _defined_where(self, e, env, held):
        """The value where every condition holds (decided exactly once concrete), nan where
        one fails: the domain of a formula as written (definedness.DefinedWhere)."""
        value = self.run(e.args[0], env, held)
        kept = []
        for c, relation in e.conditions:
            v = self.run(c, env, held)
            if v is sp.nan:
                return sp.nan
            if isinstance(v, sp.Expr) and v.is_number:
                if not relation.holds(v):
                    return sp.nan
                continue
            kept.append((v, relation))
        return sp.nan if value is sp.nan else defined_where(value, kept)

    def _cond(self, cond, env, held):
        if cond in (sp.true, sp.false):
            return cond
        if isinstance(cond, Relational):
            sides = [self.run(cond.lhs, env, held), self.run(cond.rhs, env, held)]
            if any(s is sp.nan for s in sides):
                return sp.nan
            return cond.func(*sides)
        if isinstance(cond, (sp.And, sp.Or, sp.Not)):
            parts = [self._cond(c, env, held) for c in cond.args]
            return sp.nan if any(p is sp.nan for p in parts) else cond.func(*parts)
        return cond.func(*[self.run(a, env, held) for a in cond.args])

    def _sum(self, e, env, held):
        i, a, b = e.limits[-1]
        body = sp.Sum(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function
        a, b = self.run(a, env, held), self.run(b, env, held)
        if not (isinstance(a, sp.Integer) and isinstance(b, sp.Integer)):
            raise NotConcrete(f"a Σ over {i} has limits {sp.sstr(a)}, {sp.sstr(b)}")
        lo, hi, sign = (int(a), int(b), 1) if b >= a else (int(b) + 1, int(a) - 1, -1)
        n = max(hi - lo + 1, 0)
        self.budget[0] -= n
        if self.budget[0] < 0:
            raise NotConcrete(f"more than {MAX_TERMS} terms to write out")
        terms = [self.run(body, {**env, i: sp.Integer(v)}, held - {i}) for v in range(lo, hi + 1)]
        return sign * sp.Add(*terms)

    def _subs(self, e, env, held):
        """expr at variables = point, its variables bound (the free symbols of the same names
        keep their own values outside), derivatives inside taken before the substitution."""
        variables = tuple(e.variables)
        point = [self.run(p, env, held) for p in e.point]
        inner_env = {k: v for k, v in env.items() if k not in variables}
        first, kinks, defined = len(self.apps), len(self.kinks), len(self.defined)
        inner = self.run(e.expr, inner_env, held | set(variables))
        sub = dict(zip(variables, point))
        self.kinks[kinks:] = [k.xreplace(sub) for k in self.kinks[kinks:]]
        self.apps[first:] = [(a.xreplace(sub), v.xreplace(sub)) for a, v in self.apps[first:]]
        self.defined[defined:] = [d.then(sub) for d in self.defined[defined:]]
        self.defined.append(AtPoint(inner, tuple(sub.items())))
        try:
            return inner.xreplace(sub)
        except ValueError:  # a derivative of an undefined function at a number
            raise NotConcrete("a derivative of an undefined function at a number") from None

    def _derivative(self, e, env, held):
        variables = tuple(v for v, _ in e.variable_count)
        if not all(isinstance(v, sp.Symbol) or (isinstance(v, sp.Indexed) and v.is_real)
                   for v in variables):
            raise NotConcrete("a derivative with respect to something other than a symbol")
        if any(isinstance(v, sp.Indexed) for v in variables):
            return self._derivative_by_entry(e, env, held)
        first = len(self.apps)
        inner = self.run(e.expr, env, held | set(variables))
        found = kinks(inner, variables)
        if found is None:
            raise NotConcrete("a derivative of a non-smooth part the kernel does not model")
        done = sp.diff(inner, *e.variable_count)
        sub = {v: env[v] for v in variables if v not in held and v in env}
        self.kinks.extend(k.xreplace(sub) for k in found)
        self.defined.append(AtPoint(inner, tuple(sub.items())))  # differentiable only there
        if sub:
            self.apps[first:] = [(a.xreplace(sub), v.xreplace(sub)) for a, v in self.apps[first:]]
        try:
            return done.xreplace(sub) if sub else done
        except ValueError:  # a derivative of an undefined function at a number
            raise NotConcrete("a derivative of an undefined function at a number") from None


    def _derivative_by_entry(self, e, env, held):
        """∂E/∂W[p, q] on concrete indices: E written out with W's entries left as subscripts
        (W[1, 2] a variable of its own), differentiated by sympy.diff, then every entry of W
        given its value; its kinks and E itself must be defined at the point."""
        bases = {v.base for v, _ in e.variable_count if isinstance(v, sp.Indexed)}
        plain = {v for v, _ in e.variable_count if isinstance(v, sp.Symbol)}
        if plain:
            raise NotConcrete("a derivative with respect to a symbol and a subscript at once")
        hidden = {b: self.functions.pop(b) for b in bases if b in self.functions}
        try:
            inner = self.run(e.expr, env, held)
            counts = [(v.base[tuple(self.run(i, env, held) for i in v.indices)], n)
                      for v, n in e.variable_count]
        finally:
            self.functions.update(hidden)
        if not all(i.is_Integer for v, _ in counts for i in v.indices):
            raise NotConcrete("a derivative with respect to an entry of no concrete index")
        found = kinks(inner, tuple(v for v, _ in counts))
        if found is None:
            raise NotConcrete("a derivative of a non-smooth part the kernel does not model")
        done = sp.diff(inner, *counts)
        entries = {}
        for atom in inner.atoms(sp.Indexed) | done.atoms(sp.Indexed):
            if atom.base in hidden:
                value = self.run(hidden[atom.base](*atom.indices), env, held)
                self.apps.append((atom, value))
                entries[atom] = value
        self.kinks.extend(k.xreplace(entries) for k in found)
        self.defined.append(AtPoint(inner.xreplace(entries)))
        return done.xreplace(entries)


def instantiate(expr: sp.Expr, symbols: dict, functions: dict,
                budget: list[int] | None = None) -> Instance:
    """`expr` written out with `symbols` (Symbol → value) and `functions` (undefined function or
    IndexedBase → Lambda); `budget` (a one-element list) bounds the Σ terms over several calls."""
    writer = _Writer(symbols, functions, budget if budget is not None else [MAX_TERMS])
    out = writer.run(expr, dict(symbols), frozenset())
    return Instance(out, writer.kinks, writer.apps, writer.defined)


def _finite(v: sp.Expr) -> bool:
    return not v.has(sp.zoo, sp.nan, sp.oo, -sp.oo)


def value_at(inst: Instance, point: dict) -> sp.Expr | None:
    """The exact real value of a written-out expression at `point`, or None where it is
    undefined or not real (or cannot be told exactly)."""
    for k in inst.kinks:
        kv = value_if_defined(k, point)  # node by node: max(x, √(x − y)) at y > x has none
        if kv is None or not kv.is_number or is_zero_exact(kv) is not False:
            return None
    if not all(d.defined(point) for d in inst.defined):
        return None
    v = value_if_defined(inst.expr, point)
    if v is None or not isinstance(v, sp.Expr) or not v.is_number or not _finite(v):
        return None
    if v.is_Rational:
        return v
    if v.is_extended_real is not True:
        return None
    return v


def differ(a: sp.Expr, b: sp.Expr) -> bool:
    """Whether two exact real numbers differ (certified: exact for rationals, else by an exact
    zero test of the difference)."""
    if a.is_Rational and b.is_Rational:
        return a != b
    return is_zero_exact(a - b) is False
