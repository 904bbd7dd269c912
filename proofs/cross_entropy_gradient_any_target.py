"""cross-entropy-gradient-any-target — without Σ_c y_c = 1, ∂CE/∂z is not softmax(z) − y.

    ∂/∂z_j [−Σ_c y_c log softmax(z)_c] = softmax(z)_j·Σ_c y_c − y_j ≠ softmax(z)_j − y_j
"""

from derive.statements import REFUTED, Statement

from .cross_entropy_gradient import facts, lhs, rhs

STATEMENT = Statement(
    id="cross-entropy-gradient-any-target",
    title="Without Σ_c y_c = 1, ∂CE/∂z is not softmax(z) − y",
    title_zh="目标之和不为 1 时,∂CE/∂z 不是 softmax(z) − y",
    expect=REFUTED,
    claim="∂/∂z_j [−Σ_c y_c log softmax(z)_c] = softmax(z)_j − y_j for any real y",
    assumptions=("the assumptions of cross-entropy-gradient but Σ_c y_c = 1",),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    holds_when=("cross-entropy-gradient",),
)
