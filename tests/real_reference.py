"""An independent reference for what a claim `lhs = rhs` means (issue 22), under two semantics.
No tests here, and no import of derive: it walks the SymPy tree itself.

REAL (the kernel's one semantics, /work/notes/semantics.md): a point is in a claim's domain only
when EVERY evaluated subexpression of both sides and of every fact has a finite real value:
u^r needs u ≠ 0 or r ≥ 0 for an integer r, and u > 0 (or u = 0 < r) for any other r; log u needs
u > 0; a derivative needs the function to be differentiable at the point (decided from the
one-sided smooth forms of the function there); Max/Min evaluate all their arguments; Piecewise
is lazy; Σ/Π with concrete limits evaluate only their terms (Karr's convention).
Values are exact Fractions where they are rational and intervals (mpmath's interval arithmetic,
240 bits, rigorous) otherwise: a sign, an integer test or a comparison that an interval cannot
settle raises `Unsettled`, never a guess.

OLD (the "final value" semantics the kernel leaves): subexpressions take SymPy's complex
principal values (√−1 = i, log(−1) = iπ); only each side's (and each fact's) final value must
be finite and real. A derivative is SymPy's `diff` evaluated at the point with SymPy's
conventions (sign(0) = 0, Heaviside(0) = 1/2). Values are SymPy's exact numbers; where they are
not rational, realness and equality are read at 60 digits with a margin of 1e-40 (a clear
margin, not a proof: enough to show a claim false under OLD, which is all it is used for).

`judge` says where a point falls ("outside", "agree", "differ", "unsettled"); `search` walks a
deterministic grid of rational and integer points (respecting the symbols' assumptions and the
facts) for a counterexample.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp
from mpmath.ctx_iv import MPIntervalContext
from sympy.core.function import AppliedUndef

REAL, OLD = "real", "old"
SEMANTICS = (REAL, OLD)

IV = MPIntervalContext()  # a context of our own: never the global mpmath.iv that others use
IV.prec = 240
AGREE_WIDTH = Fraction(1, 2**150)
"""An interval of a difference that holds 0 and is narrower than this (relative to the size of
the values) counts as agreement: the point is no counterexample; a wider one is unsettled."""
OLD_DIGITS, OLD_MARGIN = 60, sp.Float("1e-40")
TAYLOR_ORDER = 8
"""How many derivatives the side sign of a smooth function at a point may need."""
MAX_TERMS = 2000


class Undefined(Exception):
    """A subexpression has no value at the point under the semantics in use."""


class Unsettled(Exception):
    """The reference cannot tell (an interval too wide, a function it does not model)."""


# --------------------------------------------------------------------------- intervals


def _frac(raw) -> Fraction:
    sign, man, exp, bc = raw
    if man == 0 and exp != 0:  # ±inf or nan
        raise Unsettled("an interval endpoint is not finite")
    v = Fraction(man) * (Fraction(2) ** exp)
    return -v if sign else v


def bounds(v) -> tuple[Fraction, Fraction]:
    """Exact rational bounds of a value (a Fraction is its own bounds)."""
    if isinstance(v, Fraction):
        return v, v
    lo, hi = v._mpi_
    return _frac(lo), _frac(hi)


def _iv(v):
    if isinstance(v, Fraction):
        return IV.mpf(v.numerator) / IV.mpf(v.denominator)
    return v


def _norm(v):
    """A degenerate interval is the exact binary rational it holds."""
    if isinstance(v, Fraction):
        return v
    lo, hi = bounds(v)
    return lo if lo == hi else v


def _from_bounds(lo: Fraction, hi: Fraction):
    return _norm(IV.mpf([IV.mpf(lo.numerator) / lo.denominator,
                         IV.mpf(hi.numerator) / hi.denominator]))


def sign(v) -> int:
    """-1, 0 or 1, exactly; Unsettled when an interval holds 0 and is not 0."""
    lo, hi = bounds(v)
    if lo > 0:
        return 1
    if hi < 0:
        return -1
    if lo == hi == 0:
        return 0
    raise Unsettled("the sign of an irrational value near 0")


def _as_integer(v) -> int | None:
    """The integer v is, None when v is surely not an integer, Unsettled when an interval
    holds an integer."""
    if isinstance(v, Fraction):
        return v.numerator if v.denominator == 1 else None
    lo, hi = bounds(v)
    if math.ceil(lo) <= math.floor(hi):
        raise Unsettled("an irrational value that may be an integer")
    return None


def _root(q: Fraction, n: int) -> Fraction | None:
    """The exact nonnegative n-th root of q ≥ 0 when it is rational."""
    out = []
    for m in (q.numerator, q.denominator):
        r = round(m ** (1.0 / n)) if m < 2**900 else None
        if r is None:
            return None
        for c in (r - 1, r, r + 1):
            if c >= 0 and c**n == m:
                out.append(c)
                break
        else:
            return None
    return Fraction(out[0], out[1])


def _add(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    return _norm(_iv(a) + _iv(b))


def _mul(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a * b
    if a == 0 or b == 0:  # an exact 0 times any finite value
        return Fraction(0)
    return _norm(_iv(a) * _iv(b))


def _pow(u, r):
    """u^r under REAL: Undefined where the semantics says so."""
    n = _as_integer(r)
    if n is not None:
        if n < 0 and sign(u) == 0:
            raise Undefined("0 to a negative integer power")
        if isinstance(u, Fraction):
            return u**n
        if n == 0:
            return Fraction(1)
        p = _iv(u) ** abs(n)
        return _norm(p if n > 0 else 1 / p)
    s = sign(u)
    if s < 0:
        raise Undefined("a negative base to a non-integer power")
    if s == 0:
        if sign(r) > 0:
            return Fraction(0)
        raise Undefined("0 to a non-positive non-integer power")
    if isinstance(u, Fraction) and isinstance(r, Fraction):
        base = _root(u, r.denominator)
        if base is not None:
            return base**r.numerator
    return _norm(IV.exp(_iv(r) * IV.log(_iv(u))))


def _extreme(values, pick):
    if all(isinstance(v, Fraction) for v in values):
        return pick(values)
    bs = [bounds(v) for v in values]
    return _from_bounds(pick(lo for lo, _ in bs), pick(hi for _, hi in bs))


def _floor(v) -> Fraction:
    if isinstance(v, Fraction):
        return Fraction(math.floor(v))
    lo, hi = bounds(v)
    if math.floor(lo) != math.floor(hi):
        raise Unsettled("the floor of an irrational value near an integer")
    return Fraction(math.floor(lo))


def _abs(v):
    if isinstance(v, Fraction):
        return abs(v)
    lo, hi = bounds(v)
    if lo >= 0:
        return v
    if hi <= 0:
        return _norm(-v)
    return _from_bounds(Fraction(0), max(-lo, hi))


def _smooth(name: str, v):
    """exp, log, sin, cos of a real value (exact at the rational points where they are)."""
    if name == "log":
        if sign(v) <= 0:
            raise Undefined("log of a value ≤ 0")
        if v == 1:
            return Fraction(0)
        return _norm(IV.log(_iv(v)))
    if v == 0:
        return {"exp": Fraction(1), "sin": Fraction(0), "cos": Fraction(1)}[name]
    return _norm(getattr(IV, name)(_iv(v)))


# --------------------------------------------------------------------------- REAL evaluation

_CONSTANTS = {sp.pi: lambda: IV.pi, sp.E: lambda: IV.e}


def real_value(expr, env: Mapping):
    """The value of `expr` at the point under REAL (every subexpression finite real).
    Raises Undefined or Unsettled. `env` maps Symbols (or their names) to exact numbers and
    undefined functions / IndexedBases to sp.Lambda or Python callables."""
    return _rv(sp.sympify(expr), _Env(env))


class _Env:
    def __init__(self, env: Mapping):
        self.env = dict(env)
        self.names = {str(k): v for k, v in self.env.items()}

    def get(self, key):
        if key in self.env:
            return self.env[key]
        if str(key) in self.names:
            return self.names[str(key)]
        raise KeyError(f"the point gives no value for {key}")

    def bind(self, key, value) -> _Env:
        out = _Env(self.env)
        out.env[key] = value
        out.names[str(key)] = value
        return out


def _number(e):
    """A closed SymPy number as a real value (Undefined when it is not real)."""
    e = sp.sympify(e)
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    return _rv(e, _Env({}))


def _rv(e, env: _Env):
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if e.is_Float:
        raise ValueError(f"the float {e} is not exact")
    if e in _CONSTANTS:
        return _CONSTANTS[e]()
    if e is sp.I or e in (sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise Undefined(f"{e} is not a finite real number")
    if isinstance(e, sp.Symbol):
        return _number(env.get(e))
    if isinstance(e, sp.Add):
        out = Fraction(0)
        for a in e.args:
            out = _add(out, _rv(a, env))
        return out
    if isinstance(e, sp.Mul):
        values = [_rv(a, env) for a in e.args]  # every factor is evaluated, even after a 0
        out = Fraction(1)
        for v in values:
            out = _mul(out, v)
        return out
    if isinstance(e, sp.Pow):
        return _pow(_rv(e.base, env), _rv(e.exp, env))
    if isinstance(e, sp.exp):
        return _smooth("exp", _rv(e.args[0], env))
    if isinstance(e, sp.log):
        if len(e.args) != 1:
            raise Unsettled("log with a base")
        return _smooth("log", _rv(e.args[0], env))
    if isinstance(e, (sp.sin, sp.cos)):
        return _smooth(type(e).__name__, _rv(e.args[0], env))
    if isinstance(e, sp.Abs):
        return _abs(_rv(e.args[0], env))
    if isinstance(e, (sp.Max, sp.Min)):
        values = [_rv(a, env) for a in e.args]
        return _extreme(values, max if isinstance(e, sp.Max) else min)
    if isinstance(e, sp.sign):
        return Fraction(sign(_rv(e.args[0], env)))
    if isinstance(e, sp.Heaviside):
        s = sign(_rv(e.args[0], env))
        if s == 0:
            return _rv(e.args[1], env) if len(e.args) > 1 else Fraction(1, 2)
        return Fraction(int(s > 0))
    if isinstance(e, (sp.floor, sp.ceiling)):
        v = _rv(e.args[0], env)
        f = _floor(v)
        return f if isinstance(e, sp.floor) or f == v else f + 1
    if isinstance(e, sp.Mod):
        a, b = (_rv(x, env) for x in e.args)
        if sign(b) == 0:
            raise Undefined("Mod(a, 0)")
        q = _floor(_mul(a, _pow(b, Fraction(-1))))
        return _add(a, _mul(_mul(b, q), Fraction(-1)))
    if isinstance(e, sp.Piecewise):
        for value, cond in e.args:
            if _condition(cond, env):
                return _rv(value, env)
        raise Undefined("no branch of a Piecewise applies")
    if isinstance(e, (sp.Sum, sp.Product)):
        return _rv_sum(e, env)
    if isinstance(e, sp.Derivative):
        return _rv_derivative(e, env)
    if isinstance(e, sp.Subs):
        inner = env
        for v, p in zip(e.variables, e.point):
            inner = inner.bind(v, _exact_sympy(_rv(p, env)))
        return _rv(e.expr, inner)
    if isinstance(e, (AppliedUndef, sp.Indexed)):
        return _applied(e, env, lambda a: _rv(a, env))
    raise Unsettled(f"{type(e).__name__} is not modelled by the reference")


def _exact_sympy(v) -> sp.Expr:
    if isinstance(v, Fraction):
        return sp.Rational(v.numerator, v.denominator)
    raise Unsettled("an irrational value bound to a variable")


def _function(env: _Env, e):
    """The point's function for an application f(a, …) or x[i], and its arguments."""
    if isinstance(e, sp.Indexed):
        return _lookup_base(env, e.base), e.indices
    return env.get(e.func), e.args


def _applied(e, env: _Env, value_of: Callable):
    fn, args = _function(env, e)
    values = [value_of(a) for a in args]
    out = fn(*[_exact_sympy(v) if isinstance(v, Fraction) else v for v in values])
    return out if isinstance(out, Fraction) else _number(out)


def _lookup_base(env: _Env, base):
    try:
        return env.get(base)
    except KeyError:
        return env.get(base.label)


def _condition(cond, env: _Env) -> bool:
    if cond is sp.true or cond is True:
        return True
    if cond is sp.false or cond is False:
        return False
    if isinstance(cond, sp.And):
        return all(_condition(c, env) for c in cond.args)
    if isinstance(cond, sp.Or):
        return any(_condition(c, env) for c in cond.args)
    if isinstance(cond, sp.Not):
        return not _condition(cond.args[0], env)
    if isinstance(cond, sp.core.relational.Relational):
        s = sign(_add(_rv(cond.lhs, env), _mul(_rv(cond.rhs, env), Fraction(-1))))
        return _holds(type(cond), s)
    raise Unsettled(f"the condition {cond}")


def _holds(rel, s: int) -> bool:
    R = sp.core.relational
    return {R.StrictGreaterThan: s > 0, R.GreaterThan: s >= 0, R.StrictLessThan: s < 0,
            R.LessThan: s <= 0, R.Equality: s == 0, R.Unequality: s != 0}[rel]


def _limits(e, env, ev):
    var, lo, hi = e.limits[-1]
    inner = type(e)(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function
    a, b = (_as_integer(ev(x, env)) for x in (lo, hi))
    if a is None or b is None:
        raise Unsettled("a Σ/Π limit that is not an integer")
    values, flip = (range(a, b + 1), False) if b >= a else (range(b + 1, a), True)
    if len(values) > MAX_TERMS:
        raise Unsettled("a Σ/Π beyond the reference's bound")
    return var, inner, values, flip


def _rv_sum(e, env: _Env):
    var, inner, values, flip = _limits(e, env, _rv)
    product = isinstance(e, sp.Product)
    total = Fraction(1) if product else Fraction(0)
    for v in values:
        term = _rv(inner, env.bind(var, sp.Integer(v)))
        total = _mul(total, term) if product else _add(total, term)
    if flip:
        total = _pow(total, Fraction(-1)) if product else _mul(total, Fraction(-1))
    return total


# ------------------------------------------------------------------ REAL derivatives
#
# At a point p, a function of x built from +, ·, powers, exp, log, sin, cos and the kinked
# functions (|·|, sign, Heaviside, max, min, floor, ceiling, Piecewise) is, on each side of p,
# equal to a smooth form without kinks (each kink's branch chosen by the side sign of its
# argument, which the Taylor expansion of the smooth argument settles). It is n times
# differentiable at p when both one-sided forms are defined near p and their derivatives of
# orders 0…n agree at p, the order 0 with the value at p itself.


def _rv_derivative(e: sp.Derivative, env: _Env):
    if len(e.variable_count) != 1:
        raise Unsettled("a mixed derivative")
    x, n = e.variable_count[0]
    if not isinstance(x, sp.Symbol) or not isinstance(n, (int, sp.Integer)):
        raise Unsettled("a derivative the reference does not model")
    n = int(n)
    body = _inline(e.expr, env)
    at_p = _rv(body, env)  # defined at p itself
    forms = [_form(body, x, env, side) for side in (-1, 1)]
    values = []
    for k in range(n + 1):
        per_side = []
        for f in forms:
            d = f if k == 0 else sp.diff(f, x, k)
            try:
                per_side.append(_rv(d, env))
            except Undefined:
                raise Unsettled("a one-sided derivative the formula cannot evaluate") from None
        if k == 0:
            per_side.append(at_p)
        if not _all_equal(per_side):
            raise Undefined("the function is not differentiable at the point")
        values.append(per_side[-1])
    return values[-1]


def _all_equal(values) -> bool:
    first = values[0]
    for v in values[1:]:
        d = _add(v, _mul(first, Fraction(-1)))
        lo, hi = bounds(d)
        if lo > 0 or hi < 0:
            return False
        if not (lo == hi == 0 or _narrow(first, v)):
            raise Unsettled("one-sided derivatives that intervals cannot compare")
    return True


def _inline(e, env: _Env):
    """`e` with undefined functions and IndexedBases replaced by the point's Lambdas."""
    def rep(node):
        fn, args = _function(env, node)
        if not isinstance(fn, sp.Lambda):
            raise Unsettled("a function given as a table cannot be differentiated")
        return fn(*args)
    out = e
    for node in sorted(e.atoms(AppliedUndef, sp.Indexed), key=sp.default_sort_key):
        out = out.xreplace({node: rep(node)})
    return out


def _form(e, x, env: _Env, side: int):
    """A kink-free expression equal to `e` on the `side` (−1 left, +1 right) of the point,
    near it; Undefined when `e` is undefined there."""
    if x not in e.free_symbols:
        _rv(e, env)  # a constant part must be defined
        return e
    if e == x:
        return e
    if isinstance(e, (sp.Add, sp.Mul, sp.exp, sp.sin, sp.cos)):
        with sp.evaluate(False):
            return e.func(*(_form(a, x, env, side) for a in e.args))
    if isinstance(e, sp.log):
        u = _form(e.args[0], x, env, side)
        if _side_sign(u, x, env, side) <= 0:
            raise Undefined("log of a value ≤ 0 beside the point")
        with sp.evaluate(False):
            return sp.log(u)
    if isinstance(e, sp.Pow):
        u, r = (_form(a, x, env, side) for a in e.args)
        s = _side_sign(u, x, env, side)
        if x in r.free_symbols:
            if s <= 0:
                raise Undefined("a varying exponent of a base that is not positive")
        else:
            n = _as_integer(_rv(r, env))
            if n is None:
                if s < 0:
                    raise Undefined("a negative base to a non-integer power beside the point")
                if s == 0:
                    return sp.S.Zero if sign(_rv(r, env)) > 0 else _undefined()
            elif n < 0 and s == 0:
                raise Undefined("division by 0 beside the point")
        with sp.evaluate(False):
            return sp.Pow(u, r)
    if isinstance(e, sp.Abs):
        u = _form(e.args[0], x, env, side)
        return _times(_side_sign(u, x, env, side), u)
    if isinstance(e, sp.sign):
        return sp.Integer(_side_sign(_form(e.args[0], x, env, side), x, env, side))
    if isinstance(e, sp.Heaviside):
        s = _side_sign(_form(e.args[0], x, env, side), x, env, side)
        if s == 0:
            return e.args[1] if len(e.args) > 1 else sp.Rational(1, 2)
        return sp.Integer(int(s > 0))
    if isinstance(e, (sp.Max, sp.Min)):
        args = [_form(a, x, env, side) for a in e.args]
        best = args[0]
        for a in args[1:]:
            with sp.evaluate(False):
                d = sp.Add(a, sp.Mul(-1, best))
            s = _side_sign(d, x, env, side)
            if (s > 0) if isinstance(e, sp.Max) else (s < 0):
                best = a
        return best
    if isinstance(e, (sp.floor, sp.ceiling)):
        u = _form(e.args[0], x, env, side)
        v = _rv(u, env)
        f = _floor(v)
        if f != v:
            return sp.Integer(int(f) + (0 if isinstance(e, sp.floor) else 1))
        with sp.evaluate(False):
            s = _side_sign(sp.Add(u, -sp.Integer(int(f))), x, env, side)
        if isinstance(e, sp.floor):
            return sp.Integer(int(f) - (s < 0))
        return sp.Integer(int(f) + (s > 0))
    if isinstance(e, sp.Piecewise):
        for value, cond in e.args:
            if _side_condition(cond, x, env, side):
                return _form(value, x, env, side)
        raise Undefined("no branch of a Piecewise applies beside the point")
    raise Unsettled(f"{type(e).__name__} under a derivative is not modelled by the reference")


def _undefined():
    raise Undefined("0 to a non-positive non-integer power beside the point")


def _times(s: int, u):
    if s == 0:
        return sp.S.Zero
    if s == 1:
        return u
    with sp.evaluate(False):
        return sp.Mul(-1, u)


def _side_condition(cond, x, env, side) -> bool:
    if cond is sp.true or cond is True:
        return True
    if cond is sp.false or cond is False:
        return False
    if isinstance(cond, sp.And):
        return all(_side_condition(c, x, env, side) for c in cond.args)
    if isinstance(cond, sp.Or):
        return any(_side_condition(c, x, env, side) for c in cond.args)
    if isinstance(cond, sp.core.relational.Relational):
        with sp.evaluate(False):
            d = sp.Add(_form(cond.lhs, x, env, side),
                       sp.Mul(-1, _form(cond.rhs, x, env, side)))
        return _holds(type(cond), _side_sign(d, x, env, side))
    raise Unsettled(f"the condition {cond}")


def _side_sign(g, x, env: _Env, side: int) -> int:
    """The sign of the smooth form g on (p, p + ε) (side 1) or (p − ε, p) (side −1): that of its
    first nonzero derivative at p, with (−1)^k on the left; 0 when g is identically 0."""
    if x not in g.free_symbols:
        return sign(_rv(g, env))
    if isinstance(g, sp.exp):
        return 1
    if isinstance(g, sp.Mul):
        out = 1
        for a in g.args:
            out *= _side_sign(a, x, env, side)
        return out
    if isinstance(g, sp.Pow):
        s = _side_sign(g.base, x, env, side)
        if s > 0:
            return 1
        if s == 0:
            return 0
        n = _as_integer(_rv(g.exp, env)) if x not in g.exp.free_symbols else None
        if n is None:
            raise Undefined("a negative base to a non-integer power beside the point")
        return 1 if n % 2 == 0 else -1
    d = g
    for k in range(TAYLOR_ORDER + 1):
        if k:
            d = sp.diff(d, x)
        try:
            s = sign(_rv(d, env))
        except Undefined:
            raise Unsettled("a Taylor coefficient the formula cannot evaluate") from None
        if s:
            return s * (side if k % 2 else 1)
    if sp.simplify(g) == 0:
        return 0
    raise Unsettled("a side sign beyond the reference's Taylor order")


# --------------------------------------------------------------------------- OLD evaluation

_INFINITIES = (sp.zoo, sp.nan, sp.oo, -sp.oo)


def old_value(expr, env: Mapping) -> sp.Expr:
    """The final value of `expr` at the point under OLD: a finite real SymPy number (inner values
    may be complex). Raises Undefined or Unsettled."""
    v = _ov(sp.sympify(expr), _Env(env))
    if old_is_real(v):
        return v
    raise Undefined("the final value is not real")


def old_is_real(v: sp.Expr) -> bool:
    if v.is_Rational:
        return True
    real = v.is_extended_real
    if real is not None:
        return bool(real)
    im = sp.im(sp.N(v, OLD_DIGITS))
    if not im.is_number:
        raise Unsettled("the imaginary part of a value")
    return abs(im) <= OLD_MARGIN


def _finite(v):
    if isinstance(v, sp.logic.boolalg.Boolean) and not isinstance(v, sp.Expr):
        return v
    if v.has(*_INFINITIES) or v.is_finite is False:
        raise Undefined("not finite")
    if not v.is_number:
        raise Unsettled(f"a value that is not a number: {v}")
    return v


def _ov(e, env: _Env):
    if e.is_Number or isinstance(e, sp.NumberSymbol) or e is sp.I:
        if e in _INFINITIES:
            raise Undefined("not finite")
        return e
    if isinstance(e, sp.Symbol):
        return sp.sympify(env.get(e))
    if isinstance(e, (sp.Sum, sp.Product)):
        var, inner, values, flip = _limits(e, env, lambda a, en: _old_real_number(_ov(a, en)))
        terms = [_ov(inner, env.bind(var, sp.Integer(v))) for v in values]
        if isinstance(e, sp.Product):
            total = sp.Mul(*terms)
            return _finite(1 / total if flip else total)
        return _finite(-sp.Add(*terms) if flip else sp.Add(*terms))
    if isinstance(e, sp.Derivative):
        d = sp.diff(_inline(e.expr, env), *e.variable_count)
        if d.has(sp.Derivative):
            raise Unsettled("SymPy cannot take the derivative")
        return _ov(d, env)
    if isinstance(e, sp.Subs):
        inner = env
        for v, p in zip(e.variables, e.point):
            inner = inner.bind(v, _ov(p, env))
        return _ov(e.expr, inner)
    if isinstance(e, sp.Piecewise):
        for value, cond in e.args:
            c = _ov(cond, env) if isinstance(cond, sp.Basic) and cond.args else cond
            if c in (sp.true, True):
                return _ov(value, env)
            if c not in (sp.false, False):
                raise Undefined("a condition of non-real values")
        raise Undefined("no branch of a Piecewise applies")
    if isinstance(e, (AppliedUndef, sp.Indexed)):
        return sp.sympify(_applied(e, env, lambda a: _ov(a, env)))
    if not e.args:
        raise Unsettled(f"an atom the reference does not know: {e!r}")
    args = [_ov(a, env) for a in e.args]
    try:
        value = e.func(*args)
    except ZeroDivisionError:
        raise Undefined("division by 0") from None
    except (TypeError, ValueError):
        raise Undefined("a comparison or max/min of non-real values") from None
    return _finite(value)


def _old_real_number(v):
    v = sp.sympify(v)
    if v.is_Rational:
        return Fraction(int(v.p), int(v.q))
    raise Unsettled("a Σ limit that is not rational")


def _old_sign(v: sp.Expr) -> int:
    """The sign of a real value under OLD (exact for rationals, at 60 digits else)."""
    v = sp.sympify(v)
    if v.is_Rational:
        return int(bool(v > 0)) - int(bool(v < 0))
    if v == 0:
        return 0
    n = sp.re(sp.N(v, OLD_DIGITS))
    if abs(n) <= OLD_MARGIN:
        raise Unsettled("a value within the margin of 0")
    return 1 if n > 0 else -1


# --------------------------------------------------------------------------- claims and points


@dataclass(frozen=True)
class Claim:
    """lhs = rhs under facts (expr, relation) with relation ">=", ">" or "!="."""

    lhs: sp.Expr
    rhs: sp.Expr
    facts: tuple[tuple[sp.Expr, str], ...] = ()

    @property
    def symbols(self) -> list[sp.Symbol]:
        exprs = [self.lhs, self.rhs, *(f for f, _ in self.facts)]
        out: set = set()
        for e in exprs:
            e = sp.sympify(e)
            labels = {ind.base.label for ind in e.atoms(sp.Indexed)}
            out |= {s for s in e.free_symbols if isinstance(s, sp.Symbol) and s not in labels}
        return sorted(out, key=lambda s: s.name)


@dataclass(frozen=True)
class Judgement:
    """Where a point falls: outside the domain (or the facts), agree, differ, or unsettled."""

    kind: str
    lhs: object = None
    rhs: object = None
    why: str = ""


def respects(sym: sp.Symbol, value) -> bool:
    """Whether an exact value has every property the symbol's assumptions name."""
    v = sp.sympify(value)
    a = sym.assumptions0
    checks = {
        "integer": lambda: v.is_integer, "rational": lambda: v.is_rational,
        "positive": lambda: v.is_positive, "negative": lambda: v.is_negative,
        "nonnegative": lambda: v.is_nonnegative, "nonpositive": lambda: v.is_nonpositive,
        "nonzero": lambda: v.is_nonzero, "zero": lambda: v.is_zero,
        "even": lambda: v.is_even, "odd": lambda: v.is_odd,
    }
    if v.is_real is not True:
        return False
    return all(bool(checks[k]()) == bool(want) for k, want in a.items() if k in checks)


def _fact_holds(expr, relation: str, env, semantics: str) -> bool:
    if semantics == REAL:
        s = sign(real_value(expr, env))
    else:
        s = _old_sign(old_value(expr, env))
    return {">=": s >= 0, ">": s > 0, "!=": s != 0}[relation]


def judge(claim: Claim, point: Mapping, semantics: str = REAL) -> Judgement:
    """The claim at an exact point under a semantics."""
    for sym in claim.symbols:
        value = point.get(sym, point.get(sym.name))
        if value is None:
            raise KeyError(f"the point gives no value for {sym}")
        if not respects(sym, value):
            return Judgement("outside", why=f"{sym} = {value} breaks its assumptions")
    value_of = real_value if semantics == REAL else old_value
    try:
        for expr, relation in claim.facts:
            try:
                if not _fact_holds(expr, relation, point, semantics):
                    return Judgement("outside", why=f"the fact {expr} {relation} 0 fails")
            except Undefined as exc:
                return Judgement("outside", why=f"the fact {expr} is undefined: {exc}")
        try:
            left = value_of(claim.lhs, point)
            right = value_of(claim.rhs, point)
        except Undefined as exc:
            return Judgement("outside", why=str(exc))
        return _compare(left, right, semantics)
    except Unsettled as exc:
        return Judgement("unsettled", why=str(exc))


def _compare(left, right, semantics: str) -> Judgement:
    if semantics == REAL:
        lo, hi = bounds(_add(left, _mul(right, Fraction(-1))))
        if lo > 0 or hi < 0:
            return Judgement("differ", left, right)
        if lo == hi == 0 or _narrow(left, right):
            return Judgement("agree", left, right)
        return Judgement("unsettled", left, right, "an interval too wide to compare")
    d = sp.sympify(left - right)
    if d.is_Rational or d == 0:
        return Judgement("differ" if d != 0 else "agree", left, right)
    n = abs(sp.N(d, OLD_DIGITS))
    return Judgement("differ" if n > OLD_MARGIN else "agree", left, right)


def _narrow(*values) -> bool:
    """Whether the values' intervals are narrower than AGREE_WIDTH relative to their size."""
    scale = max([Fraction(1)] + [abs(v) for w in values for v in bounds(w)])
    lo, hi = bounds(_add(values[0], _mul(values[-1], Fraction(-1))))
    return hi - lo < AGREE_WIDTH * scale


def in_domain(claim: Claim, point: Mapping) -> bool:
    """Whether the point is in the claim's REAL domain (and satisfies its facts)."""
    return judge(claim, point, REAL).kind in ("agree", "differ")


# --------------------------------------------------------------------------- the sampler

POOL = [Fraction(v) for v in (0, 1, -1, 2, -2, "1/2", "-1/2", 3, -3, 4, -4, "1/4", "9/4",
                              "3/2", "-3/2", 5, -5, "1/3", "-1/3", 9, -8, 8, "2/3", "1/9",
                              16, 6, -6, 7, "-9/4", 25, 27, "5/2", -7, 10, "-1/4", 36)]
"""Rational candidates, small and special first (0, ±1, squares and cubes for exact roots)."""


def pool(sym: sp.Symbol) -> list[sp.Rational]:
    out = [sp.Rational(v.numerator, v.denominator) for v in POOL]
    return [v for v in out if respects(sym, v)]


@dataclass
class Search:
    """The first counterexample of a search (None if none) and how the points fell."""

    counterexample: dict | None = None
    judgement: Judgement | None = None
    counts: Counter = field(default_factory=Counter)

    @property
    def in_domain(self) -> int:
        return self.counts["agree"] + self.counts["differ"]


def grid(symbols: list[sp.Symbol], budget: int, seed: int = 0) -> Iterable[dict]:
    """Points: the product of the first k values of each symbol's pool (k as large as the
    budget allows), then random draws from the whole pools."""
    pools = [pool(s) for s in symbols]
    for s, p in zip(symbols, pools):
        if not p:
            raise ValueError(f"no candidate value respects the assumptions of {s}")
    k = 1
    while any(len(p) > k for p in pools) and math.prod(min(len(p), k + 1) for p in pools) \
            <= budget:
        k += 1
    seen = 0
    for values in itertools.product(*(p[:k] for p in pools)):
        seen += 1
        yield dict(zip(symbols, values))
    rng = random.Random(seed)
    for _ in range(max(budget - seen, 0) if symbols else 0):
        yield {s: rng.choice(p) for s, p in zip(symbols, pools)}


def search(claim: Claim, semantics: str = REAL, budget: int = 600,
           extra: Iterable[Mapping] = (), seed: int = 0) -> Search:
    """A counterexample of the claim under the semantics: the explicit `extra` points first,
    then the grid; stops at the first."""
    out = Search()
    symbols = claim.symbols
    for point in itertools.chain(extra, grid(symbols, budget, seed)):
        point = {s: sp.sympify(point.get(s, point.get(s.name))) for s in symbols}
        j = judge(claim, point, semantics)
        out.counts[j.kind] += 1
        if j.kind == "differ":
            out.counterexample, out.judgement = point, j
            return out
    return out


def shown(v) -> str:
    """A value for a message: a Fraction exactly, an interval by its midpoint."""
    if isinstance(v, Fraction):
        return str(v)
    if isinstance(v, sp.Basic):
        return sp.sstr(v)
    lo, hi = bounds(v)
    return f"≈{float((lo + hi) / 2):.12g}"
