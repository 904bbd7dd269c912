"""backward-chain-rule — backward from the prediction gives the same gradient as
differentiating the loss directly.

    ∂ℓ/∂ŷ · ∂ŷ/∂w = ∂ℓ/∂w   and   ∂ℓ/∂ŷ · ∂ŷ/∂b = ∂ℓ/∂b,   for (ŷ − y)²/2 and (ŷ − y)²
"""

import sympy as sp

from derive.model import linear
from derive.statements import PROVED, Statement, calc

at_prediction = {linear.yhat: linear.prediction(linear.w, linear.x, linear.b)}


def chain(param, convention):
    return (linear.output_gradient_formula(convention).xreplace(at_prediction)
            * linear.prediction_derivative(param))


lhs = sp.Matrix([chain(p, c) for p in ("w", "b") for c in linear.LOSS_CONVENTIONS])
rhs = sp.Matrix([linear.gradient_formula(p, c) for p in ("w", "b")
                 for c in linear.LOSS_CONVENTIONS])

STATEMENT = Statement(
    id="backward-chain-rule",
    title="Backward through ŷ gives the gradient of the loss (both conventions, w and b)",
    title_zh="经 ŷ 反向传播得到损失的梯度(两种约定,w 与 b)",
    expect=PROVED,
    claim="∂ℓ/∂ŷ(ŷ(w, b)) · ∂ŷ/∂θ = ∂ℓ/∂θ for θ ∈ {w, b}, ℓ = (ŷ − y)²/2 or (ŷ − y)²",
    assumptions=("ŷ = w·x + b", "w, b, x, y real"),
    lhs=lhs,
    rhs=rhs,
    proof=calc(lhs, (rhs, "sympy.diff: ∂ℓ/∂ŷ = ŷ − y (or 2(ŷ − y)); ∂ŷ/∂w = x, ∂ŷ/∂b = 1")),
)
