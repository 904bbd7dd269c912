"""layernorm-unbiased — LayerNorm with the unbiased variance (1/(n − 1)) is not torch's.

    (x_j − μ)/√(Σ_k (x_k − μ)²/(n − 1) + ε) = (x_j − μ)/√(Σ_k (x_k − μ)²/n + ε)   is false
"""

from derive.graph import sized
from derive.graph.tensor import LAYER_NORM_EPS
from derive.statements import REFUTED, Instance, Rounded, Statement, hypothesis

from .lessons_data import LN_D, LN_D_Y_UNBIASED
from .tensors import B, features, ln_eps, n, numbers, sizes_of

lhs, rhs, (j,), facts = sized.entrywise(sized.layer_norm(features, eps=ln_eps, unbiased=True),
                                        sized.layer_norm(features, eps=ln_eps), "j")


def ln_d():
    X = numbers(LN_D["X"])
    return {"Y, unbiased variance": sized.concrete(
        sized.layer_norm(sized.given("X", B, n), eps=ln_eps, unbiased=True), sizes_of(X, B, n),
        {"X": X, "epsilon": LAYER_NORM_EPS})}


STATEMENT = Statement(
    id="layernorm-unbiased",
    title="LayerNorm with the unbiased variance 1/(n − 1) is not torch's (biased, 1/n)",
    title_zh="用无偏方差 1/(n − 1) 的 LayerNorm 不是 torch 的(有偏,1/n)",
    expect=REFUTED,
    claim="(x_j − μ)/√(v_unbiased + ε) = (x_j − μ)/√(v + ε)",
    assumptions=("the assumptions of layernorm-mean-zero; n ≥ 2, where 1/(n − 1) is defined",),
    lhs=lhs,
    rhs=rhs,
    facts=facts + (hypothesis(n - 2, "n ≥ 2: the unbiased variance divides by n − 1"),),
    holds_when=("layernorm-mean-zero",),
    instances=(
        Instance(
            label="the 2×3 batch of ln-d, as a student's x.var() (unbiased) computes it",
            source="lessons 05–07 bank, ln-d: the claimed Y, planted as unbiased_variance",
            compute=ln_d,
            expected={"Y, unbiased variance": [[Rounded(v) for v in row]
                                               for row in LN_D_Y_UNBIASED]},
        ),
    ),
)
