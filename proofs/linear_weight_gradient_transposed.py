"""linear-weight-gradient-transposed — x δᵀ is not the weight gradient, even when W is square.

    z = W x + b (W n×n),  δ = ∂L/∂z:   Σ_i δ_i ∂z_i/∂W[p, q] = x_p δ_q   is false
"""

from derive.graph import sized
from derive.statements import REFUTED, Statement

from .tensors import n

W = sized.given("W", n, n)
x, b, delta = sized.given("x", n), sized.given("b", n), sized.given("delta", n)

lhs, rhs, (p, q), facts = sized.entrywise(sized.backward(delta, W @ x + b, W),
                                          sized.outer(x, delta))

STATEMENT = Statement(
    id="linear-weight-gradient-transposed",
    title="The transposed gradient x δᵀ is not ∂L/∂W (square W, where the shapes agree)",
    title_zh="转置的梯度 x δᵀ 不是 ∂L/∂W(方阵 W,形状相同也不行)",
    expect=REFUTED,
    claim="z = W x + b with W n×n, δ = ∂L/∂z: Σ_i δ_i ∂z_i/∂W[p, q] = x_p δ_q",
    assumptions=(
        "W is n×n, so δ xᵀ and x δᵀ have the same shape and only their entries can tell",
        "L depends on W only through z (chain rule as the lhs); δ a given vector",
        "entry (p, q) with 1 ≤ p, q ≤ n",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    holds_when=("linear-weight-gradient",),
)
