"""layernorm-affine-gradient-sums-to-zero — with the affine γ, β too, LayerNorm's input
gradient sums to 0 over the normalised dimension.

    L = Σ_k g_k·(γ_k·layer_norm(x)_k + β_k):   Σ_j ∂L/∂x_j = 0
"""

import sympy as sp

from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .layernorm_gradient_sums_to_zero import (
    SHIFT,
    input_gradient_sum,
    row_gradients,
    through_each_output,
)
from .lessons_data import LN_C, LN_C_GX
from .tensors import beta, gamma

lhs = input_gradient_sum(gamma, beta)

STATEMENT = Statement(
    id="layernorm-affine-gradient-sums-to-zero",
    title="With weight γ and bias β, LayerNorm's input gradient still sums to 0",
    title_zh="带权重 γ 与偏置 β 时,LayerNorm 对输入的梯度之和仍为 0",
    expect=PROVED,
    claim="L = Σ_k g_k·(γ_k·layer_norm(x)_k + β_k): Σ_j ∂L/∂x_j = 0",
    assumptions=(
        "the assumptions of layernorm-gradient-sums-to-zero; γ, β any real n-vectors",
        "the upstream gradient reaching the normalised vector is g ⊙ γ, any vector: the "
        "statement without the affine, for that upstream gradient",
    ),
    lhs=lhs,
    rhs=sp.S.Zero,
    proof=calc(
        lhs,
        (through_each_output(gamma), "∂(γ_k·ŷ_k + β_k)/∂x_j = γ_k·∂ŷ_k/∂x_j: γ, β do not depend "
                                     "on x; the two Σ exchange"),
        (sp.S.Zero, SHIFT),
    ),
    instances=(
        Instance(
            label="the 3×3 batch of ln-c with weight and bias, upstream gradient G, eps 1e-5",
            source="lessons 05–07 bank, ln-c: gX (torch float64, 4 places)",
            compute=lambda: row_gradients(LN_C, gamma, beta),
            expected={"∂L/∂X": [[Rounded(v) for v in row] for row in LN_C_GX],
                      "Σ_j ∂L/∂X[r, j]": [Rounded("0.0000")] * 3},
        ),
    ),
)
