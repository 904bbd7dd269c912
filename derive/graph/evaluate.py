"""Exact values of a node's expression: compiled once into closures over an environment
(name → number, or name → {member: number} for a family), Σ expanded by looping over its
index. Rationals run as `fractions.Fraction`; anything else (surds) in SymPy."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from derive.kernel.exact import to_expr

Env = Mapping[str, object]


class NotEvaluable(ValueError):
    """An expression with a construct the evaluator does not handle (a bug of a recipe)."""


def _exact(v):
    """A Fraction for a rational, else the SymPy number."""
    if isinstance(v, Fraction):
        return v
    if type(v) is int:
        return Fraction(v)
    e = to_expr(v)
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    return e


def _sym(v):
    return sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v


def _add(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    return _exact(_sym(a) + _sym(b))


def _mul(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a * b
    return _exact(_sym(a) * _sym(b))


def _pow(a, n):
    if isinstance(a, Fraction) and isinstance(n, Fraction) and n.denominator == 1:
        if a == 0 and n < 0:
            raise ZeroDivisionError("division by zero")
        return a ** int(n)
    return _exact(_sym(a) ** _sym(n))


def _less(a, b) -> bool:
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a < b
    from derive.kernel.exact import exact_sign
    sign = exact_sign(_sym(b) - _sym(a))
    if sign is None:
        raise NotEvaluable("a comparison that exact arithmetic cannot decide")
    return sign > 0


def _build(e: sp.Basic) -> Callable[[Env], object]:
    if e.is_Rational:
        c = Fraction(int(e.p), int(e.q))
        return lambda env: c
    if isinstance(e, sp.Symbol):
        name = e.name
        return lambda env: _exact(env[name])
    if isinstance(e, sp.Indexed):
        name = e.base.label.name
        idx = [_build(i) for i in e.indices]
        if len(idx) == 1:
            i0 = idx[0]
            return lambda env: _exact(env[name][int(i0(env))])
        return lambda env: _exact(env[name][tuple(int(i(env)) for i in idx)])
    if isinstance(e, sp.Add) or isinstance(e, sp.Mul):
        parts = [_build(a) for a in e.args]
        op = _add if isinstance(e, sp.Add) else _mul

        def fold(env):
            out = parts[0](env)
            for p in parts[1:]:
                out = op(out, p(env))
            return out
        return fold
    if isinstance(e, sp.Pow):
        base, exp = _build(e.base), _build(e.exp)
        return lambda env: _pow(base(env), exp(env))
    if isinstance(e, sp.Sum):
        (i, lo, hi), = e.limits if len(e.limits) == 1 else (None,)
        body, low, high, name = _build(e.function), _build(lo), _build(hi), i.name

        def total(env):
            out = Fraction(0)
            for m in range(int(low(env)), int(high(env)) + 1):
                out = _add(out, body(ChainMap({name: Fraction(m)}, env)))
            return out
        return total
    if isinstance(e, (sp.Min, sp.Max)):
        parts = [_build(a) for a in e.args]
        smaller = isinstance(e, sp.Min)

        def pick(env):
            best = parts[0](env)
            for p in parts[1:]:
                v = p(env)
                if _less(v, best) == smaller and v != best:
                    best = v
            return best
        return pick
    if isinstance(e, sp.Abs):
        inner = _build(e.args[0])

        def absolute(env):
            v = inner(env)
            return -v if isinstance(v, Fraction) and v < 0 else (
                v if isinstance(v, Fraction) else _exact(sp.Abs(v)))
        return absolute
    raise NotEvaluable(f"cannot evaluate {type(e).__name__} in a recipe's formula")


@lru_cache(maxsize=4096)
def compiled(expr: sp.Basic) -> Callable[[Env], object]:
    """`f(env)`: the exact value of `expr` with its symbols read from `env` (a SymPy number)."""
    f = _build(expr)
    return lambda env: _sym(f(env))
