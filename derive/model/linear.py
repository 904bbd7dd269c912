"""The lesson's model: ŷ = w·x (+ b), per-record loss (ŷ − y)²/2 or (ŷ − y)², plain SGD.

Gradients are never typed by hand: they are `sympy.diff` of the loss, taken once here.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derive.kernel.compile import compile_exact
from derive.kernel.exact import to_expr
from derive.model.objective import sgd_update

__all__ = ["gradient_formula", "prediction", "record_gradient", "record_loss", "sgd_update",
           "squared_error"]

w, b, x, y = sp.symbols("w b x y", real=True)
yhat = sp.Symbol("yhat", real=True)
eta = sp.Symbol("eta", positive=True)

HALF = "half"
"""The course's per-record loss (ŷ − y)²/2."""
SQUARED = "squared"
"""The per-record loss (ŷ − y)², as torch.nn.MSELoss computes it (before its mean)."""
LOSS_CONVENTIONS = (HALF, SQUARED)


def prediction(w_, x_, b_=0):
    """ŷ = w·x + b."""
    return w_ * x_ + b_


def squared_error(yhat, y_, convention: str = HALF):
    """ℓ = (ŷ − y)²/2, or (ŷ − y)² with `convention="squared"`."""
    d = to_expr(yhat - y_)
    square = d * d if d.is_Rational else d**2  # Rational·Rational is plain arithmetic
    if convention == HALF:
        return sp.S.Half * square
    if convention == SQUARED:
        return square
    raise ValueError(f"unknown loss convention {convention!r}; use one of {LOSS_CONVENTIONS}")


def record_loss(w_, x_, y_, b_=0, convention: str = HALF):
    """The loss of one record (x, y) at parameters (w, b)."""
    return squared_error(prediction(w_, x_, b_), y_, convention)


@lru_cache(maxsize=None)
def gradient_formula(param: str = "w", convention: str = HALF) -> sp.Expr:
    """∂ℓ/∂w or ∂ℓ/∂b of the per-record loss, by `sympy.diff`."""
    symbol = {"w": w, "b": b}[param]
    return sp.expand(sp.diff(record_loss(w, x, y, b, convention), symbol))


@lru_cache(maxsize=None)
def output_gradient_formula(convention: str = HALF) -> sp.Expr:
    """∂ℓ/∂ŷ of the per-record loss, by `sympy.diff` (the first factor of backward)."""
    return sp.expand(sp.diff(squared_error(yhat, y, convention), yhat))


@lru_cache(maxsize=None)
def prediction_derivative(param: str = "w") -> sp.Expr:
    """∂ŷ/∂w or ∂ŷ/∂b, by `sympy.diff` (the second factor of backward)."""
    return sp.diff(prediction(w, x, b), {"w": w, "b": b}[param])


@lru_cache(maxsize=None)
def _backward(param: str, convention: str):
    return compile_exact(output_gradient_formula(convention) * prediction_derivative(param),
                         (yhat, x, y))


def backward(yhat_, x_, y_, param: str = "w", convention: str = HALF):
    """∂ℓ/∂param from a record's prediction: ∂ℓ/∂ŷ · ∂ŷ/∂param (the chain rule, statement
    backward-chain-rule), so a claimed prediction carries into the gradient."""
    return _backward(param, convention)(yhat_, x_, y_)


@lru_cache(maxsize=None)
def _compiled(kind: str, convention: str):
    formula = (record_loss(w, x, y, b, convention) if kind == "loss"
               else gradient_formula(kind, convention))
    return compile_exact(formula, (w, x, y, b))


def record_gradient(w_, x_, y_, b_=0, param: str = "w", convention: str = HALF):
    """The gradient of one record's loss with respect to `param`, at the given values."""
    return _compiled(param, convention)(w_, x_, y_, b_)


def record_loss_at(w_, x_, y_, b_=0, convention: str = HALF):
    """`record_loss` evaluated by its compiled formula (the same expression, faster)."""
    return _compiled("loss", convention)(w_, x_, y_, b_)
