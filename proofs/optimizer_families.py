"""Witness shapes for optimizer statements: the lesson's model on one or two records, w, the
records' x and y, and η free; other hyperparameters at the values a statement fixes."""

import sympy as sp

from derive.model import linear
from derive.model.objective import mean
from derive.statements import Instantiation
from derive.statements.notation import text_of

w = sp.Symbol("w", real=True)
eta = sp.Symbol("eta", positive=True)


def records(n):
    xs = [sp.Symbol(f"x_{i}", real=True) for i in range(1, n + 1)]
    ys = [sp.Symbol(f"y_{i}", real=True) for i in range(1, n + 1)]
    return list(zip(xs, ys)), [v for pair in zip(xs, ys) for v in pair]


def batch_gradient(recs):
    """∂L/∂w of the batch-mean loss at w, as a function of w (by backward)."""
    return lambda v: mean([linear.backward(linear.prediction(v, x, 0), x, y) for x, y in recs])


def shapes():
    return [1, 2]


def instantiation(n, build, extra=()):
    """`build(G, w, η)` returns (lhs, rhs) for the batch gradient G of n symbolic records."""
    recs, variables = records(n)
    lhs, rhs = build(batch_gradient(recs), w, eta)
    names = {v: text_of(v.name) for v in (w, eta, *extra) if text_of(v.name) != v.name}
    return Instantiation(shape=f"{n} record{'s' if n > 1 else ''}", lhs=lhs, rhs=rhs,
                         variables=(w, eta, *variables, *extra), names=names)
