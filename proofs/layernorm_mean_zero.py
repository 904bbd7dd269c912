"""layernorm-mean-zero — LayerNorm's output has mean 0 over the normalised dimension.

    y_k = (x_k − μ)/√(v + ε),  μ = (1/n) Σ_k x_k,  v = (1/n) Σ_k (x_k − μ)²:   (1/n) Σ_k y_k = 0
"""

import sympy as sp

from derive.graph import sized
from derive.graph.tensor import LAYER_NORM_EPS
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import LN_D, LN_D_Y
from .tensors import B, features, ln_eps, n, numbers, sizes_of

normalised = sized.layer_norm(features, eps=ln_eps)
lhs = sized.reduce("mean", normalised, 0).item
k = sp.Dummy("k", integer=True)
mu = sp.Sum(features[k], (k, 1, n)) / n
std = sp.sqrt(sp.Sum((features[k] - mu) ** 2, (k, 1, n)) / n + ln_eps)


def ln_d():
    X = numbers(LN_D["X"])
    Y = sized.concrete(sized.layer_norm(sized.given("X", B, n), eps=ln_eps), sizes_of(X, B, n),
                       {"X": X, "epsilon": LAYER_NORM_EPS})
    return {"Y": Y, "mean of each row": [sp.Add(*row) / len(row) for row in Y]}


STATEMENT = Statement(
    id="layernorm-mean-zero",
    title="LayerNorm's output has mean 0 over the normalised dimension",
    title_zh="LayerNorm 的输出在归一化的维度上均值为 0",
    expect=PROVED,
    claim="(1/n) Σ_k (x_k − μ)/√(v + ε) = 0",
    assumptions=("x a real n-vector, for any n ≥ 1; ε > 0 (torch's eps, inside the √)",
                 "torch's layer_norm without weight and bias, biased variance v"),
    lhs=lhs,
    rhs=sp.S.Zero,
    proof=calc(
        lhs,
        ((sp.Sum(features[k], (k, 1, n)) - n * mu) / (n * std),
         "1/√(v + ε) does not depend on k and leaves the Σ; Σ_k μ = n·μ"),
        (sp.S.Zero, "n·μ = Σ_k x_k"),
    ),
    instances=(
        Instance(
            label="the 2×3 batch of ln-d, eps 1e-5",
            source="lessons 05–07 bank, ln-d: Y (torch float64, 4 places)",
            compute=ln_d,
            expected={"Y": [[Rounded(v) for v in row] for row in LN_D_Y],
                      "mean of each row": [0, 0]},
        ),
    ),
)
