"""Exact evaluation of a fixed formula many times: a SymPy expression compiled once into
nested Python closures (no substitution, no floats).

Rational inputs are evaluated with `fractions.Fraction` (exact rational arithmetic on Python
ints) and the result returned as a SymPy Rational; symbolic inputs with SymPy arithmetic.
Supported: numbers, the argument symbols, +, · and integer powers, which is every formula of
the course's models (polynomials and rational functions of the inputs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import sympy as sp

from derive.kernel.exact import to_expr


class NotCompilable(ValueError):
    """A formula with a function the compiler does not handle (use substitution instead)."""


def _build(e: sp.Expr, index: dict, constant: Callable):
    if e in index:
        i = index[e]
        return lambda v: v[i]
    if e.is_Rational:
        c = constant(e)
        return lambda v: c
    if e.is_Add or e.is_Mul:
        parts = [_build(a, index, constant) for a in e.args]
        if e.is_Add:
            def add(v):
                out = parts[0](v)
                for p in parts[1:]:
                    out = out + p(v)
                return out
            return add

        def mul(v):
            out = parts[0](v)
            for p in parts[1:]:
                out = out * p(v)
            return out
        return mul
    if e.is_Pow and e.exp.is_Integer:
        base, n = _build(e.base, index, constant), int(e.exp)
        return lambda v: base(v) ** n
    raise NotCompilable(f"cannot compile {sp.srepr(e)[:60]}")


def compile_exact(expr: sp.Expr, args: Sequence[sp.Symbol]) -> Callable[..., sp.Expr]:
    """`f(*values)` equal to `expr.xreplace(dict(zip(args, values)))`, values exact or symbolic."""
    index = {a: i for i, a in enumerate(args)}
    expr = to_expr(expr)
    rational = _build(expr, index, lambda c: Fraction(int(c.p), int(c.q)))
    symbolic = _build(expr, index, lambda c: c)
    n = len(args)

    def evaluate(*values):
        if len(values) != n:
            raise TypeError(f"expected {n} values, got {len(values)}")
        if all(type(v) is int or (isinstance(v, sp.Basic) and v.is_Rational) for v in values):
            fr = [Fraction(v) if type(v) is int else Fraction(int(v.p), int(v.q)) for v in values]
            out = rational(fr)
            return sp.Rational(out.numerator, out.denominator)
        return symbolic([to_expr(v) for v in values])

    return evaluate
