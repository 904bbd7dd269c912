"""linear-input-gradient — a linear layer passes Wᵀδ back to its input.

    z = W x + b,  δ = ∂L/∂z:   ∂L/∂x[q] = Σ_i δ_i ∂z_i/∂x[q] = (Wᵀ δ)_q
"""

from derive.graph import sized
from derive.statements import PROVED, Statement, calc

from .tensors import W, delta, x, z

lhs, rhs, (q,), facts = sized.entrywise(sized.backward(delta, z, x), W.T @ delta, "q")

STATEMENT = Statement(
    id="linear-input-gradient",
    title="A linear layer passes Wᵀδ back to its input",
    title_zh="线性层传回输入的梯度是 Wᵀδ",
    expect=PROVED,
    claim="z = W x + b, δ = ∂L/∂z: Σ_i δ_i ∂z_i/∂x[q] = Σ_i W[i, q] δ_i, i.e. ∂L/∂x = Wᵀ δ",
    assumptions=(
        "W is m×n, x an n-vector, b an m-vector, for any sizes m, n ≥ 1",
        "L depends on x only through z = W x + b (chain rule as the lhs); δ = ∂L/∂z is a given "
        "vector, as the board takes it",
        "entry q with 1 ≤ q ≤ n",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    proof=calc(
        lhs,
        (rhs, "∂z_i/∂x[q] = Σ_k W[i, k]·δ(k, q) = W[i, q], since 1 ≤ q ≤ n"),
    ),
)
