"""An independent, brute-force judge of claims `lhs = rhs` (no tests in this module).

Nothing here imports `derive`: the judge evaluates SymPy expressions by walking the tree
itself, so that it can rule on the kernel's verdicts without sharing any of its code.

Semantics (the reading every verdict of the kernel is judged against):

* A claim `lhs = rhs` is about real numbers. Free symbols range over the values their own
  SymPy assumptions allow (an `integer=True` symbol over integers, `positive=True` over
  positives, a plain or `real=True` symbol over reals ...); the facts `(expr, relation)` with
  relation ">=", ">" or "!=" restrict the points further; an undefined function (sp.Function)
  or an IndexedBase may be any function allowed by its own assumptions.
* Σ_{i=a}^{b} follows Karr's convention for all integer limits (`karr_sum`); an empty sum
  (b = a − 1) is 0 without evaluating its summand. Π likewise (empty product 1, reversed
  product the reciprocal).
* A side is UNDEFINED at a point when any subterm it evaluates is not a finite real number
  (the real semantics of docs/kernel.md): division by zero, 0**negative, log of a number
  ≤ 0, a negative number to a non-integer power (SymPy's principal value is not real there),
  zoo/nan/±oo anywhere (also a value SymPy leaves symbolic but is infinite, such as
  lowergamma(0, 1)), an undefined function or IndexedBase applied to a non-real argument, or
  a derivative that does not exist: of sign/Heaviside/Piecewise/floor/ceiling/Mod taken where
  the kink's argument is 0 (SymPy's conventions Heaviside(0) = 1/2 and sign(0) = 0 are not
  used inside derivatives), or of Abs/Max/Min at a kink where the one-sided branches'
  derivatives differ (d|t|/dt at 0 is undefined; d(t·|t|)/dt at 0 is 0).
  sqrt(x)·sqrt(y) at x = y = −1 is undefined, not i·i = −1.
* `find_counterexample` looks for a point where both sides are defined and differ: the claim
  is then FALSE. `find_partial_point` looks for a point where exactly one side is defined:
  such a claim is still true (a claim says nothing where a side is undefined), but not on its
  whole stated domain (e.g. d/dt Max(t, 0) = 1 under t ≥ 0, undefined at t = 0). `classify`
  combines both.

Exact numbers are compared exactly when rational; irrational constants (sqrt(2), log(3),
exp(1) ...) are compared at 60 significant digits, a difference below 1e-40 counting as equal.
"""

from __future__ import annotations

import functools
import itertools
import random
from fractions import Fraction
from typing import NamedTuple

import sympy as sp
from sympy.core.function import AppliedUndef

__all__ = [
    "UNDEFINED",
    "OutOfDomain",
    "karr_sum",
    "evaluate",
    "in_domain",
    "function_assumptions",
    "respects",
    "differ",
    "fact_holds",
    "find_counterexample",
    "find_partial_point",
    "classify",
    "scan",
    "Scan",
    "claim_parts",
    "holds",
    "fails",
    "TRUE",
    "FALSE",
    "PARTIAL",
]

MAX_TERMS = 2000  # the most terms one Σ or Π may be written out with
TOLERANCE = sp.Float("1e-40")


class _UndefinedType:
    """The value of an expression that is undefined at a point."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNDEFINED"

    def __bool__(self) -> bool:  # so that `if value:` never mistakes it for a number
        return False


UNDEFINED = _UndefinedType()
_INFINITIES = (sp.zoo, sp.nan, sp.oo, -sp.oo)


class _Undefined(Exception):
    """Raised inside the walk as soon as a subterm is undefined."""


class OutOfDomain(ValueError):
    """A function table / Lambda returned a value its function's assumptions forbid."""


# --------------------------------------------------------------------------- Karr's Σ


def karr_sum(f, a, b):
    """Σ_{i=a}^{b} f(i) under Karr's convention, for integers a, b.

    b ≥ a: f(a) + … + f(b);  b = a − 1: 0 (f is not called);  b < a − 1: −(f(b+1) + … + f(a−1)).
    """
    a, b = int(a), int(b)
    if b >= a:
        return _plain_sum(f(v) for v in range(a, b + 1))
    if b == a - 1:
        return 0
    return -_plain_sum(f(v) for v in range(b + 1, a))


def _plain_sum(values):
    total = 0
    for v in values:
        total = total + v
    return total


def _karr_range(a, b):
    """The index values of Σ_{a}^{b} and the sign (+1 or −1) they are summed with."""
    if b >= a:
        values, sign = range(a, b + 1), 1
    else:
        values, sign = range(b + 1, a), -1
    if len(values) > MAX_TERMS:
        raise ValueError(f"a Σ/Π with {len(values)} terms is beyond the judge's bound {MAX_TERMS}")
    return values, sign


# --------------------------------------------------------------------------- domains

_KEYS = (
    "integer", "rational", "irrational", "noninteger", "real", "extended_real", "finite",
    "positive", "negative", "nonnegative", "nonpositive", "nonzero", "zero",
    "even", "odd", "prime", "composite",
)


@functools.lru_cache(maxsize=None)
def function_assumptions(func) -> dict[str, bool]:
    """The assumptions an undefined function class (or IndexedBase) puts on its values."""
    if isinstance(func, sp.IndexedBase):
        probe = func[sp.Dummy("k", integer=True)]
    else:
        probe = func(sp.Dummy("a"))  # an undefined function's assumptions ignore its arity
    out = {}
    for key in _KEYS:
        v = getattr(probe, "is_" + key, None)
        if v is not None:
            out[key] = bool(v)
    return out


def _value_has(value, key):
    return getattr(value, "is_" + key, None)


def respects(value, assumptions: dict[str, bool]) -> bool:
    """Whether the exact number `value` has every property in `assumptions`."""
    for key, wanted in assumptions.items():
        if key == "commutative":
            continue
        got = _value_has(value, key)
        if got is None or bool(got) != bool(wanted):
            return False
    return True


def in_domain(sym: sp.Symbol, value) -> bool:
    """Whether `value` satisfies ALL of the symbol's SymPy assumptions."""
    value = sp.sympify(value)
    if not value.is_number:
        return False
    return respects(value, sym.assumptions0)


# --------------------------------------------------------------------------- evaluation


def evaluate(expr, env):
    """The exact value of `expr` at the point `env`, or UNDEFINED.

    `env` maps Symbols → exact numbers, undefined function classes and IndexedBases →
    Python callables or sp.Lambda. Raises KeyError for a symbol or function without a value,
    OutOfDomain when a supplied function breaks its own assumptions.
    """
    try:
        value = _real(_ev(sp.sympify(expr), dict(env)))
    except _Undefined:
        return UNDEFINED
    return value


def _lookup(env, key, *alternatives):
    for k in (key, *alternatives):
        if k in env:
            return env[k]
    for k, v in env.items():  # the same symbol / function under another instance or a name
        if str(k) == str(key):
            return v
    raise KeyError(f"the point gives no value for {key}")


def _apply(fn, args, assumptions, what):
    args = [_real(a) for a in args]  # a real function of real arguments
    value = fn(*args)
    if isinstance(value, Fraction):
        value = sp.Rational(value.numerator, value.denominator)
    value = _check(sp.sympify(value))
    if assumptions and not respects(value, assumptions):
        raise OutOfDomain(f"{what} = {value} breaks the assumptions {assumptions}")
    return value


def _check(value):
    """`value` if it is a finite real number (every subterm must be: sqrt(−1) is undefined,
    not i), else raise _Undefined."""
    if value.is_Rational:
        return value
    if isinstance(value, sp.logic.boolalg.Boolean) and not isinstance(value, sp.Expr):
        return value
    if value.has(*_INFINITIES):
        raise _Undefined
    if not value.is_number:
        return value  # a symbolic leftover (only inside `_symbolic`)
    if value.is_finite is False:
        raise _Undefined
    if value.is_finite is None:
        approx = _approx(value)
        if approx.has(*_INFINITIES):
            raise _Undefined
        re, im = approx.as_real_imag()
        if not (re.is_number and im.is_number) or not (re.is_finite and im.is_finite):
            raise _Undefined
    return _real(value)


def _approx(value):
    try:
        return sp.N(value, 50)
    except Exception:  # an evaluation failure counts as undefined
        raise _Undefined from None


def _real(value):
    """`value` if it is a finite real number, else raise _Undefined."""
    if not isinstance(value, sp.Basic) or value.has(*_INFINITIES):
        raise _Undefined
    if value.is_Rational or not isinstance(value, sp.Expr) or not value.is_number:
        return value
    real = value.is_extended_real
    if real is False:
        raise _Undefined
    if real is None:
        re, im = _approx(value).as_real_imag()
        if not im.is_number or abs(im) > TOLERANCE:
            raise _Undefined
    return value


def _is_real_number(v) -> bool:
    try:
        _real(v)
    except _Undefined:
        return False
    return True


def _int_limit(v):
    if not (isinstance(v, sp.Integer) or (v.is_number and v.is_integer)):
        raise ValueError(f"a Σ/Π limit {v} is not a concrete integer")
    return int(v)


def _ev(e, env):
    if isinstance(e, sp.Tuple):
        return sp.Tuple(*(_ev(a, env) for a in e.args))
    if isinstance(e, sp.logic.boolalg.BooleanAtom):
        return e
    if e.is_Number:
        if e.is_Float:
            return sp.Rational(e)
        return _check(e)
    if isinstance(e, sp.NumberSymbol):
        return e
    if e is sp.I:
        raise _Undefined
    if e in _INFINITIES:
        raise _Undefined
    if isinstance(e, sp.Symbol):
        return _real(sp.sympify(_lookup(env, e)))
    if isinstance(e, sp.Indexed):
        fn = _lookup(env, e.base, e.base.label)
        idx = [_ev(a, env) for a in e.indices]
        return _apply(fn, idx, function_assumptions(e.base), f"{e.base}{idx}")
    if isinstance(e, AppliedUndef):
        fn = _lookup(env, e.func)
        args = [_ev(a, env) for a in e.args]
        return _apply(fn, args, function_assumptions(e.func), f"{e.func}{tuple(args)}")
    if isinstance(e, sp.Sum):
        return _ev_sum(e, env, product=False)
    if isinstance(e, sp.Product):
        return _ev_sum(e, env, product=True)
    if isinstance(e, sp.Derivative):
        return _ev_derivative(e, env)
    if isinstance(e, sp.Subs):
        values = [_ev(p, env) for p in e.point]
        inner = dict(env)
        inner.update(zip(e.variables, values))
        return _ev(e.expr, inner)
    if isinstance(e, sp.Piecewise):
        for value, cond in e.args:
            c = _ev(cond, env)
            if c is sp.true:
                return _ev(value, env)
            if c is not sp.false:
                raise ValueError(f"cannot decide the condition {cond} at the point: {c}")
        raise _Undefined  # no branch applies: SymPy's Piecewise is nan there
    if isinstance(e, sp.Lambda):
        raise ValueError("a Lambda inside a claim is not supported")
    if isinstance(e, (sp.Integral, sp.Limit)):
        raise ValueError(f"{type(e).__name__} is not supported by the judge")
    if not e.args:
        raise ValueError(f"an atom the judge does not know: {e!r}")
    args = [_ev(a, env) for a in e.args]
    if isinstance(e, sp.Pow):
        base, exp = args
        if base == 0 and (exp.is_negative or (exp.is_number and exp.is_extended_real
                                              and sp.N(exp) < 0)):
            raise _Undefined
    if isinstance(e, (sp.log,)) and args[0] == 0:
        raise _Undefined
    try:
        value = e.func(*args)
    except ZeroDivisionError:  # e.g. Mod(x, 0)
        raise _Undefined from None
    except (TypeError, ValueError):
        if all(_is_real_number(a) for a in args if isinstance(a, sp.Expr)):
            raise
        raise _Undefined from None  # Max, Min or a comparison of non-real values
    if isinstance(value, sp.logic.boolalg.Boolean) and not isinstance(value, sp.Expr):
        return value
    return _check(value)


def _ev_sum(e, env, product):
    var, lo, hi = e.limits[-1]
    inner = (type(e)(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function)
    a = _int_limit(_ev(lo, env))
    b = _int_limit(_ev(hi, env))
    values, sign = _karr_range(a, b)
    total = sp.S.One if product else sp.S.Zero
    for v in values:
        local = dict(env)
        local[var] = sp.Integer(v)
        term = _ev(inner, local)
        total = total * term if product else total + term
    if product:
        if sign < 0:
            if total == 0:
                raise _Undefined
            total = 1 / total
        return _check(total)
    return _check(sign * total)


# ------------------------------------------------------------------ derivatives


_ENTRIES = "entries differentiated"
"""env's key for {(IndexedBase, integer indices): Dummy}: the entries a derivative is taken
with respect to (∂/∂W[p, q] at p, q of the point), each a real variable of its own."""


def _entry_variables(e, env):
    """(variable_count, env): each Indexed variable W[p, q] replaced by a Dummy standing for
    the entry at the point's indices, its value the entry's; other variables as they are."""
    counts, env = [], dict(env)
    entries = dict(env.get(_ENTRIES, {}))
    for v, c in e.variable_count:
        if isinstance(v, sp.Indexed):
            idx = tuple(int(_ev(a, env)) for a in v.indices)
            key = (v.base, idx)
            if key not in entries:
                entries[key] = sp.Dummy(str(v.base), real=True)
                env[entries[key]] = _ev(v.base[idx], env)
            v = entries[key]
        elif not isinstance(v, sp.Symbol):
            raise ValueError(f"derivative with respect to {v} is not supported")
        counts.append((v, c))
    env[_ENTRIES] = entries
    return counts, env


def _ev_derivative(e, env):
    variable_count, env = _entry_variables(e, env)
    variables = [v for v, _ in variable_count]
    symbolic = _symbolic(e.expr, env, frozenset(variables))
    _ev(symbolic, env)  # the function must be defined at the point itself
    values = []
    for branch in _kinks(symbolic, frozenset(variables), env, glue=True):
        d = sp.diff(branch, *variable_count)
        if d.has(sp.Derivative):
            raise ValueError(f"SymPy cannot differentiate {branch}")
        values.append(_ev(d, env))
    if any(differ(v, values[0]) for v in values[1:]):
        raise _Undefined  # the one-sided derivatives at a kink differ
    return values[0]


def _symbolic(e, env, keep):
    """`e` with every symbol outside `keep` replaced by its value, every Σ written out, every
    function applied: an expression in the symbols of `keep` alone, ready to differentiate."""
    if isinstance(e, sp.Symbol):
        if e in keep:
            return e
        return _real(sp.sympify(_lookup(env, e)))
    if isinstance(e, (sp.logic.boolalg.BooleanAtom,)) or e.is_Number or isinstance(
            e, sp.NumberSymbol):
        return _ev(e, env)
    if e is sp.I:
        return e
    if isinstance(e, (sp.Sum, sp.Product)):
        var, lo, hi = e.limits[-1]
        inner = (type(e)(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function)
        a = _int_limit(_ev(lo, env)) if not (lo.free_symbols & keep) else _bad_limit(e)
        b = _int_limit(_ev(hi, env)) if not (hi.free_symbols & keep) else _bad_limit(e)
        values, sign = _karr_range(a, b)
        terms = []
        for v in values:
            local = dict(env)
            local[var] = sp.Integer(v)
            terms.append(_symbolic(inner, local, keep - {var}))
        if isinstance(e, sp.Product):
            total = sp.Mul(*terms)
            return total if sign > 0 else 1 / total
        return sign * sp.Add(*terms)
    if isinstance(e, sp.Indexed):
        fn = _lookup(env, e.base, e.base.label)
        idx = [_symbolic(a, env, keep) for a in e.indices]
        entry = env.get(_ENTRIES, {}).get((e.base, tuple(
            int(i) if i.is_Integer else None for i in idx)))
        if entry is not None and entry in keep:
            return entry
        return _apply_symbolic(fn, idx, function_assumptions(e.base), e)
    if isinstance(e, AppliedUndef):
        fn = _lookup(env, e.func)
        args = [_symbolic(a, env, keep) for a in e.args]
        return _apply_symbolic(fn, args, function_assumptions(e.func), e)
    if isinstance(e, sp.Derivative):
        variable_count, env = _entry_variables(e, env)
        variables = [v for v, _ in variable_count]
        inner = _symbolic(e.expr, env, keep | set(variables))
        _ev(inner, env)
        inner = _kinks(inner, frozenset(variables), env)[0]
        out = sp.diff(inner, *variable_count)
        if out.has(sp.Derivative):
            raise ValueError(f"SymPy cannot differentiate {inner}")
        return out
    if isinstance(e, sp.Subs):
        point_env = dict(env)
        point_env.update(zip(e.variables, (_ev(p, env) for p in e.point)))
        inner = _symbolic(e.expr, point_env, keep | set(e.variables))
        return inner.xreplace({v: _symbolic(p, env, keep) for v, p in zip(e.variables, e.point)})
    if not e.args:
        raise ValueError(f"an atom the judge does not know: {e!r}")
    return e.func(*(_symbolic(a, env, keep) for a in e.args))


def _bad_limit(e):
    raise ValueError(f"a Σ/Π limit depends on a differentiation variable: {e}")


def _apply_symbolic(fn, args, assumptions, what):
    if all(sp.sympify(a).is_number for a in args):
        return _apply(fn, [_ev(sp.sympify(a), {}) for a in args], assumptions, what)
    if isinstance(fn, sp.Lambda):
        return fn(*args)
    try:
        return sp.sympify(fn(*args))
    except Exception as exc:
        raise ValueError(f"{what}: the function given cannot be differentiated ({exc})") from None


_KINKED = (sp.Abs, sp.sign, sp.Heaviside, sp.DiracDelta)
_STEPS = (sp.floor, sp.ceiling, sp.frac)


def _kinks(expr, variables, env, glue=False):
    """The expressions to differentiate for a derivative in `variables` of `expr` at the point:
    `expr` with its step functions (sign, Heaviside, floor, ceiling, frac, Mod), which are
    constant near a point that is not a kink, replaced by their values there; with `glue`,
    one expression per choice of branch of each |·|, max and min at a kink (those branches
    meet there, so the derivative exists when all of them give one value). Raises _Undefined
    at any other kink."""
    local = {}
    ties = []
    for node in sp.preorder_traversal(expr):
        if not isinstance(node, sp.Basic) or not (node.free_symbols & variables):
            continue
        if isinstance(node, sp.Abs) and glue and not differ(_ev(node.args[0], env), 0):
            ties.append((node, [node.args[0], -node.args[0]]))
        elif isinstance(node, _KINKED):
            if not differ(_ev(node.args[0], env), 0):
                raise _Undefined
            if isinstance(node, (sp.sign, sp.Heaviside)):
                local[node] = _ev(node, env)
            if isinstance(node, sp.DiracDelta):
                local[node] = sp.S.Zero
        elif isinstance(node, _STEPS):
            value = _ev(node.args[0], env)
            if value.is_integer:
                raise _Undefined
            floor = sp.floor(value)
            local[node] = {sp.floor: floor, sp.ceiling: floor + 1,
                           sp.frac: node.args[0] - floor}[type(node)]
        elif isinstance(node, (sp.Max, sp.Min)):
            values = [_ev(a, env) for a in node.args]
            best = max(values) if isinstance(node, sp.Max) else min(values)
            tied = [a for a, v in zip(node.args, values) if not differ(v, best)]
            if len(tied) > 1:
                if not glue:
                    raise _Undefined
                ties.append((node, tied))
        elif isinstance(node, sp.Mod):
            p, q = (_ev(a, env) for a in node.args)
            if q == 0 or (p / q).is_integer:
                raise _Undefined
            local[node] = node.args[0] - node.args[1] * sp.floor(p / q)
        elif isinstance(node, sp.Piecewise):
            for _, cond in node.args:
                for rel in _relationals(cond):
                    if not (rel.free_symbols & variables):
                        continue
                    if not differ(_ev(rel.lhs, env), _ev(rel.rhs, env)):
                        raise _Undefined
    expr = expr.xreplace(local) if local else expr
    if len(ties) > 4 or any(n.has(m) for n, _ in ties for m, _ in ties if m is not n):
        raise _Undefined  # too many, or nested, kinks at one point: not judged
    return [expr.xreplace(dict(zip([n for n, _ in ties], choice)))
            for choice in itertools.product(*[b for _, b in ties])]


def _relationals(cond):
    if isinstance(cond, sp.core.relational.Relational):
        yield cond
    elif isinstance(cond, sp.logic.boolalg.Boolean) and cond.args:
        for a in cond.args:
            yield from _relationals(a)


# --------------------------------------------------------------------------- comparisons


def differ(a, b) -> bool:
    """Whether two defined exact numbers differ (exactly for rationals; at 60 digits else)."""
    a, b = sp.sympify(a), sp.sympify(b)
    if a.is_Rational and b.is_Rational:
        return a != b
    d = a - b
    if d.is_Rational:
        return d != 0
    if d == 0:
        return False
    v = sp.N(d, 60)
    return bool(abs(v) > TOLERANCE)


def _sign(v) -> int:
    v = sp.sympify(v)
    if v.is_Rational:
        return int(bool(v > 0)) - int(bool(v < 0))
    if not differ(v, 0):
        return 0
    return 1 if sp.N(v, 60) > 0 else -1


def _fact_parts(fact):
    if isinstance(fact, (tuple, list)):
        expr, relation = fact
    else:
        expr, relation = fact.expr, fact.relation
    relation = getattr(relation, "value", relation)
    if relation not in (">=", ">", "!="):
        raise ValueError(f"unknown relation {relation!r}")
    return sp.sympify(expr), relation


def fact_holds(fact, env) -> bool:
    """Whether the fact holds at the point (False when its expression is undefined there)."""
    expr, relation = _fact_parts(fact)
    value = evaluate(expr, env)
    if value is UNDEFINED:
        return False
    s = _sign(value)
    return {">=": s >= 0, ">": s > 0, "!=": s != 0}[relation]


# --------------------------------------------------------------------------- sampling

_INTS = [0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, 7, 8]
_PRIMES = [2, 3, 5, 7, 11, 13, 17]
_FRACS = [sp.Rational(p, q) for p, q in
          [(1, 2), (-1, 2), (3, 2), (-3, 2), (1, 3), (-1, 3), (2, 3), (-2, 3), (5, 2), (-5, 2),
           (7, 3), (-4, 3), (1, 4), (-7, 4), (9, 4)]]
_IRRATIONALS = [sp.sqrt(2), -sp.sqrt(2), sp.sqrt(3), 1 + sp.sqrt(2), -sp.sqrt(3) / 2,
                sp.sqrt(2) / 2, 2 - sp.sqrt(5)]


def _pool(sym: sp.Symbol) -> list:
    """Candidate values of `sym`, small and special ones first, all inside its domain."""
    a = sym.assumptions0
    if a.get("prime"):
        candidates = [sp.Integer(v) for v in _PRIMES]
    elif a.get("integer"):
        candidates = [sp.Integer(v) for v in _INTS + _PRIMES[4:]]
    elif a.get("irrational"):
        candidates = list(_IRRATIONALS)
    elif a.get("rational"):
        candidates = [sp.Integer(v) for v in _INTS[:9]] + _FRACS
    else:
        # integers first (0 and ±1 are where things break), then fractions, then irrationals
        candidates = ([sp.Integer(v) for v in _INTS[:9]] + _FRACS[:10] + _IRRATIONALS[:3]
                      + [sp.Integer(v) for v in _INTS[9:]] + _FRACS[10:])
    pool = [v for v in candidates if in_domain(sym, v)]
    if not pool:
        raise ValueError(f"no sample value satisfies the assumptions of {sym}: {a}")
    return pool


def _value_pool(assumptions: dict[str, bool]) -> list:
    ints = [sp.Integer(v) for v in (0, 1, -1, 2, -2, 3, -3, 5, 7)]
    cands = ints if assumptions.get("integer") else ints + _FRACS[:8]
    pool = [v for v in cands if respects(v, assumptions)]
    if not pool:
        raise ValueError(f"no sample value satisfies {assumptions}")
    return pool


class Table:
    """A random function given by a table of small values (drawn lazily, memoized)."""

    def __init__(self, name, assumptions, rng):
        self.name, self.pool, self.values = name, _value_pool(assumptions), {}
        self._rng = random.Random(rng.random())

    def __call__(self, *args):
        key = tuple(sp.sympify(a) for a in args)
        if key not in self.values:
            self.values[key] = self._rng.choice(self.pool)
        return self.values[key]

    def __repr__(self) -> str:
        shown = ", ".join(f"{self.name}{tuple(k) if len(k) > 1 else '(' + str(k[0]) + ')'}={v}"
                          for k, v in sorted(self.values.items(), key=lambda kv: str(kv[0])))
        return f"Table({shown})"


def _polynomial(name, arity, assumptions, rng):
    """A random polynomial Lambda of degree ≤ 2 respecting positivity assumptions."""
    xs = sp.symbols(f"_{name}_x0:{arity}", real=True)
    small = [-3, -2, -1, 1, 2, 3]
    sign = assumptions.get
    if sign("positive") or sign("nonnegative") or sign("negative") or sign("nonpositive"):
        c0 = rng.choice([1, 2, 3]) if (sign("positive") or sign("negative")) else rng.choice(
            [0, 1, 2])
        body = c0 + sum(rng.choice([0, 1, 2]) * (x - rng.choice([-1, 0, 1])) ** 2 for x in xs)
        if sign("negative") or sign("nonpositive"):
            body = -body
    elif sign("nonzero"):
        body = rng.choice([1, -1]) * (1 + sum(rng.choice([0, 1]) * x ** 2 for x in xs))
    else:
        body = rng.choice([-2, -1, 0, 1, 2, 3])
        for x in xs:
            body += rng.choice(small) * x + rng.choice([-1, 0, 0, 1, 2]) * x ** 2
        if arity >= 2:
            body += rng.choice([-1, 0, 1]) * xs[0] * xs[1]
    return sp.Lambda(xs, sp.expand(body))


def claim_parts(exprs):
    """Free symbols, undefined functions (with arity) and IndexedBases of the expressions,
    and which of the functions occur under a derivative."""
    symbols, functions, bases, smooth = set(), {}, set(), set()
    for e in exprs:
        e = sp.sympify(e)
        for ind in e.atoms(sp.Indexed):
            bases.add(ind.base)
        for app in e.atoms(AppliedUndef):
            functions.setdefault(app.func, len(app.args))
        for d in e.atoms(sp.Derivative, sp.Subs):
            for app in d.atoms(AppliedUndef):
                smooth.add(app.func)
            for ind in d.atoms(sp.Indexed):
                smooth.add(ind.base)
        labels = {b.label for b in bases}
        symbols |= {s for s in e.free_symbols
                    if isinstance(s, sp.Symbol) and s not in labels}
    labels = {b.label for b in bases}
    symbols -= labels
    return sorted(symbols, key=str), functions, sorted(bases, key=str), smooth


def _points(symbols, functions, bases, smooth, samples, seed):
    """Deterministic points: first a grid of small values, then random draws."""
    pools = [_pool(s) for s in symbols]
    # a grid of the smallest values (k per symbol, as many as keep it within the budget),
    # then random draws from the whole pools
    budget = max(samples // 2, 81)  # at least {0, 1, -1} for each of four symbols

    def size(k):
        out = 1
        for p in pools:
            out *= min(len(p), k)
        return out

    k = 1
    while any(len(p) > k for p in pools) and size(k + 1) <= budget:
        k += 1
    grid = list(itertools.product(*(p[:k] for p in pools)))
    if not pools and not functions and not bases:
        samples = 1  # a closed claim: one evaluation decides it
    rng = random.Random(seed)
    draws = [tuple(rng.choice(p) for p in pools) for _ in range(max(samples - len(grid), 0))]
    for index, values in enumerate(grid + draws):
        frng = random.Random(f"{seed}/{index}")
        env = dict(zip(symbols, values))
        for func, arity in sorted(functions.items(), key=lambda kv: str(kv[0])):
            assumptions = function_assumptions(func)
            table_ok = func not in smooth
            polynomial_ok = not assumptions.get("integer") and not assumptions.get("rational")
            if table_ok and (not polynomial_ok or index % 2 == 0):
                env[func] = Table(str(func), assumptions, frng)
            else:
                env[func] = _polynomial(str(func), arity, assumptions, frng)
        for base in bases:
            assumptions = function_assumptions(base)
            if base in smooth and not assumptions.get("integer"):
                env[base] = _polynomial(str(base.label), 1, assumptions, frng)
            else:
                env[base] = Table(str(base.label), assumptions, frng)
        yield env


class Scan(NamedTuple):
    """What one pass over the sample found: the first counterexample, the first point where
    exactly one side is defined, and how many admitted points had both sides defined (a TRUE
    verdict on few such points is vacuous)."""

    counterexample: dict | None
    partial: dict | None
    compared: int
    admitted: int


def scan(lhs, rhs, facts=(), samples=None, seed=0, stop_early=False) -> Scan:
    """Evaluate the claim at every sample point (stopping at the first counterexample and
    partial point when `stop_early`)."""
    samples = DEFAULT_SAMPLES if samples is None else samples
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    facts = tuple(facts)
    fact_exprs = [_fact_parts(f)[0] for f in facts]
    symbols, functions, bases, smooth = claim_parts([lhs, rhs, *fact_exprs])
    counter = partial = None
    compared = admitted = 0
    for env in _points(symbols, functions, bases, smooth, samples, seed):
        if not all(fact_holds(f, env) for f in facts):
            continue
        admitted += 1
        left, right = evaluate(lhs, env), evaluate(rhs, env)
        l_def, r_def = left is not UNDEFINED, right is not UNDEFINED
        if l_def and r_def:
            compared += 1
            if counter is None and differ(left, right):
                counter = env
        elif l_def != r_def and partial is None:
            partial = env
        if stop_early == "counterexample" and counter is not None:
            break
        if stop_early == "partial" and partial is not None:
            break
        if stop_early is True and counter is not None and partial is not None:
            break
    return Scan(counter, partial, compared, admitted)


DEFAULT_SAMPLES = 160


def find_counterexample(lhs, rhs, facts=(), samples=DEFAULT_SAMPLES, seed=0):
    """A point (dict: symbols → values, functions/IndexedBases → Table or Lambda) where every
    fact holds, every value is in its domain, both sides are defined and they differ; or None."""
    return scan(lhs, rhs, facts, samples, seed, stop_early="counterexample").counterexample


def find_partial_point(lhs, rhs, facts=(), samples=DEFAULT_SAMPLES, seed=0):
    """A point allowed by the domains and facts where exactly one side is defined, or None."""
    return scan(lhs, rhs, facts, samples, seed, stop_early="partial").partial


TRUE, FALSE, PARTIAL = "true", "false", "partial"


def classify(lhs, rhs, facts=(), samples=DEFAULT_SAMPLES, seed=0) -> str:
    """FALSE when a counterexample exists; PARTIAL when none does but one side is undefined
    somewhere the other is defined; TRUE otherwise."""
    counter, partial, _, _ = scan(lhs, rhs, facts, samples, seed, stop_early=True)
    if counter is not None:
        return FALSE
    return PARTIAL if partial is not None else TRUE


def holds(lhs, rhs, facts=()) -> bool:
    """No counterexample over a deterministic, reasonably thorough sample."""
    return find_counterexample(lhs, rhs, facts) is None


def fails(lhs, rhs, facts=()) -> bool:
    """A counterexample exists (found by the sample)."""
    return find_counterexample(lhs, rhs, facts) is not None

