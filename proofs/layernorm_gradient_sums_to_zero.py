"""layernorm-gradient-sums-to-zero — LayerNorm's input gradient sums to 0 over the normalised
dimension, for any upstream gradient g (no affine; layernorm-affine-gradient-sums-to-zero adds
γ, β).

    L = Σ_k g_k·y_k,  y = layer_norm(x):   Σ_j ∂L/∂x_j = 0
"""

import sympy as sp

from derive.graph import sized
from derive.graph.tensor import LAYER_NORM_EPS
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import LN_D, LN_D_GX
from .tensors import features, ln_eps, n, numbers, upstream


def input_gradient_sum(weight=None, bias=None):
    """Σ_j ∂/∂x_j Σ_k g_k·layer_norm(x)_k: the sum over j of ∂L/∂x_j."""
    y = sized.layer_norm(features, eps=ln_eps, weight=weight, bias=bias)
    loss = sized.reduce("sum", upstream * y, 0)
    return sized.reduce("sum", sized.grad(loss, features), 0).item


def row_gradients(data, weight=None, bias=None):
    """∂L/∂X of L = Σ G ⊙ layer_norm(X) at a lesson's batch (eps 1e-5), row by row, written out
    and differentiated, and each row's sum."""
    X, G = numbers(data["X"]), numbers(data["G"])
    affine = {k: numbers(data[k]) for k in ("gamma", "beta") if k in data}
    rows = []
    for xr, gr in zip(X, G):
        y = sized.layer_norm(features, eps=ln_eps, weight=weight, bias=bias)
        loss = sized.reduce("sum", upstream * y, 0)
        rows.append(sized.concrete(sized.grad(loss, features), {n: len(xr)},
                                   {"x": xr, "g": gr, "epsilon": LAYER_NORM_EPS, **affine}))
    return {"∂L/∂X": rows, "Σ_j ∂L/∂X[r, j]": [sp.Add(*row) for row in rows]}


def through_each_output(weight=None):
    """Σ_k g_k·γ_k·Σ_j ∂ŷ_k/∂x_j, ŷ = layer_norm(x) without the affine (γ = 1 without it):
    the lecturer's order, each output's derivatives summed over the inputs first."""
    y = sized.layer_norm(features, eps=ln_eps)
    j, k = sp.Dummy("j", integer=True), sp.Dummy("k", integer=True)
    scale = upstream[k] * (weight[k] if weight is not None else 1)
    return sp.Sum(scale * sp.Sum(sp.Derivative(y[k], features[j]), (j, 1, n)), (k, 1, n))


SHIFT = ("Σ_j ∂ŷ_k/∂x_j = 0 for every k: ŷ(x + t·1) = ŷ(x), since x − μ and the variance do "
         "not change when every x_j moves by t")
lhs = input_gradient_sum()

STATEMENT = Statement(
    id="layernorm-gradient-sums-to-zero",
    title="LayerNorm's input gradient sums to 0 over the normalised dimension",
    title_zh="LayerNorm 对输入的梯度在归一化的维度上之和为 0",
    expect=PROVED,
    claim="L = Σ_k g_k·layer_norm(x)_k: Σ_j ∂L/∂x_j = 0",
    assumptions=(
        "x a real n-vector, g any real n-vector (the upstream gradient), for any n ≥ 1; ε > 0",
        "torch's layer_norm without weight and bias, biased variance, ε inside the √",
    ),
    lhs=lhs,
    rhs=sp.S.Zero,
    proof=calc(
        lhs,
        (through_each_output(), "∂/∂x_j is linear and g does not depend on x; the two Σ "
                                "exchange"),
        (sp.S.Zero, SHIFT),
    ),
    instances=(
        Instance(
            label="the 2×3 batch of ln-d, upstream gradient G, eps 1e-5",
            source="lessons 05–07 bank, ln-d: gX (torch float64, 4 places)",
            compute=lambda: row_gradients(LN_D),
            expected={"∂L/∂X": [[Rounded(v) for v in row] for row in LN_D_GX],
                      "Σ_j ∂L/∂X[r, j]": [Rounded("0.0000")] * 2},
        ),
    ),
)
