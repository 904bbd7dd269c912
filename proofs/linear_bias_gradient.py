"""linear-bias-gradient — a linear layer's bias gradient is δ.

    z = W x + b,  δ = ∂L/∂z:   ∂L/∂b[p] = Σ_i δ_i ∂z_i/∂b[p] = δ_p
"""

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import LIN_A, LIN_A_GB
from .linear_weight_gradient import lin_delta
from .tensors import b, delta, z

lhs, rhs, (p,), facts = sized.entrywise(sized.backward(delta, z, b), delta)

STATEMENT = Statement(
    id="linear-bias-gradient",
    title="A linear layer's bias gradient is δ",
    title_zh="线性层偏置的梯度是 δ",
    expect=PROVED,
    claim="z = W x + b, δ = ∂L/∂z: Σ_i δ_i ∂z_i/∂b[p] = δ_p, i.e. ∂L/∂b = δ",
    assumptions=(
        "W is m×n, x an n-vector, b an m-vector, for any sizes m, n ≥ 1",
        "L depends on b only through z = W x + b (chain rule as the lhs); δ = ∂L/∂z is a given "
        "vector, as the board takes it",
        "entry p with 1 ≤ p ≤ m",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    proof=calc(
        lhs,
        (rhs, "∂z_i/∂b[p] = δ(i, p); the Σ over i keeps the term i = p, since 1 ≤ p ≤ m"),
    ),
    instances=(
        Instance(
            label="W 2×3, x, b, y of lin-a; δ = ∂ mse_loss/∂z",
            source="lessons 05–07 bank, lin-a (torch float64, 4 places)",
            compute=lambda: {"∂L/∂b": lin_delta(LIN_A)},
            expected={"∂L/∂b": [Rounded(v) for v in LIN_A_GB]},
        ),
    ),
)
