"""linear-batch-sum — with mean reduction, the batch sum Σ_r δ_r x_rᵀ is not the gradient.

    (1/B) Σ_r Σ_i D[r, i] ∂Z[r, i]/∂W[p, q] = Σ_r D[r, p]·X[r, q]   is false (B ≥ 2)
"""

from derive.graph import sized
from derive.statements import REFUTED, Statement

from .linear_batch_gradient import mean_gradient
from .tensors import D, X

lhs, rhs, (p, q), facts = sized.entrywise(mean_gradient, D.T @ X)

STATEMENT = Statement(
    id="linear-batch-sum",
    title="With mean reduction, the batch sum Σ_r δ_r x_rᵀ is not ∂L/∂W (the 1/B left out)",
    title_zh="批均值损失下,批内求和 Σ_r δ_r x_rᵀ 不是 ∂L/∂W(漏了 1/B)",
    expect=REFUTED,
    claim="Z = X Wᵀ + b, L = (1/B) Σ_r ℓ_r(z_r): ∂L/∂W[p, q] = Σ_r D[r, p]·X[r, q]",
    assumptions=("the assumptions of linear-batch-gradient",),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    holds_when=("linear-batch-gradient",),
)
