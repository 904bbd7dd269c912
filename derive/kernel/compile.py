"""Exact evaluation of a fixed formula many times: a SymPy expression compiled once into
nested Python closures that do SymPy Integer/Rational arithmetic (no substitution, no floats).

Supported: numbers, the argument symbols, +, ·, and integer powers, which is every formula
of the course's models (polynomials and rational functions of the inputs).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from functools import reduce

import sympy as sp

from derive.kernel.exact import to_expr


class NotCompilable(ValueError):
    """A formula with a function the compiler does not handle (use substitution instead)."""


def compile_exact(expr: sp.Expr, args: Sequence[sp.Symbol]) -> Callable[..., sp.Expr]:
    """`f(*values)` equal to `expr.xreplace(dict(zip(args, values)))`, values exact or symbolic."""
    index = {a: i for i, a in enumerate(args)}

    def build(e: sp.Expr):
        if e in index:
            i = index[e]
            return lambda v: v[i]
        if e.is_Rational:
            return lambda v, c=e: c
        if e.is_Add or e.is_Mul:
            parts = [build(a) for a in e.args]
            op = operator.add if e.is_Add else operator.mul
            return lambda v: reduce(op, (p(v) for p in parts))
        if e.is_Pow and e.exp.is_Integer:
            base, n = build(e.base), e.exp
            return lambda v: base(v) ** n
        raise NotCompilable(f"cannot compile {sp.srepr(e)[:60]}")

    body = build(to_expr(expr))
    n = len(args)

    def evaluate(*values):
        if len(values) != n:
            raise TypeError(f"expected {n} values, got {len(values)}")
        return body([to_expr(v) for v in values])

    return evaluate
