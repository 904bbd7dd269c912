"""linear-weight-gradient — a linear layer's weight gradient is δ xᵀ.

    z = W x + b,  δ = ∂L/∂z:   ∂L/∂W[p, q] = Σ_i δ_i ∂z_i/∂W[p, q] = δ_p x_q
"""

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import LIN_A, LIN_A_GW
from .tensors import W, delta, m, n, numbers, sizes_of, write_out, x, z

lhs, rhs, (p, q), facts = sized.entrywise(sized.backward(delta, z, W), sized.outer(delta, x))


def lin_delta(data):
    """δ = ∂ mse_loss(z, y)/∂z at a lesson's W, x, b, y (torch's mean over the m entries)."""
    sizes = sizes_of(data["W"], m, n)
    zg, y = sized.given("z", m), sized.given("y", m)
    return sized.concrete(sized.grad(sized.mse_loss(zg, y), zg), sizes,
                          {"z": write_out(z, sizes, data), "y": numbers(data["y"])})


def lin_a():
    sizes = sizes_of(LIN_A["W"], m, n)
    return {"∂L/∂W": sized.concrete(sized.outer(delta, x), sizes,
                                    {"delta": lin_delta(LIN_A), "x": numbers(LIN_A["x"])})}


STATEMENT = Statement(
    id="linear-weight-gradient",
    title="A linear layer's weight gradient is δ xᵀ",
    title_zh="线性层权重的梯度是 δ xᵀ",
    expect=PROVED,
    claim="z = W x + b, δ = ∂L/∂z: Σ_i δ_i ∂z_i/∂W[p, q] = δ_p x_q, i.e. ∂L/∂W = δ xᵀ",
    assumptions=(
        "W is m×n, x an n-vector, b an m-vector, for any sizes m, n ≥ 1",
        "L depends on W only through z = W x + b, so ∂L/∂W[p, q] = Σ_i δ_i ∂z_i/∂W[p, q] by "
        "the chain rule; δ = ∂L/∂z is taken as a given vector, as the board does",
        "entry (p, q) with 1 ≤ p ≤ m, 1 ≤ q ≤ n",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    proof=calc(
        lhs,
        (rhs, "∂z_i/∂W[p, q] = δ(i, p)·x_q (sympy.diff of Σ_k W[i, k] x_k + b_i); the Σ over i "
              "keeps the term i = p, since 1 ≤ p ≤ m"),
    ),
    instances=(
        Instance(
            label="W 2×3, x, b, y of lin-a; δ = ∂ mse_loss/∂z = (z − y)",
            source="lessons 05–07 bank, lin-a (torch float64, 4 places)",
            compute=lin_a,
            expected={"∂L/∂W": [[Rounded(v) for v in row] for row in LIN_A_GW]},
        ),
    ),
)
