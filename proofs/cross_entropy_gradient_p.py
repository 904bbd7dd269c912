"""cross-entropy-gradient-p — p = softmax(z) alone is not ∂CE/∂z (the target not subtracted).

    ∂/∂z_j [−Σ_c y_c log softmax(z)_c] = softmax(z)_j   is false, even with Σ_c y_c = 1
"""

from derive.graph import sized
from derive.statements import REFUTED, Statement

from .cross_entropy_gradient import distribution, lhs
from .tensors import logits

_, rhs, (j,), facts = sized.entrywise(sized.softmax(logits), sized.softmax(logits), "j")

STATEMENT = Statement(
    id="cross-entropy-gradient-p",
    title="p = softmax(z) is not ∂CE/∂z: the target must be subtracted",
    title_zh="p = softmax(z) 不是 ∂CE/∂z:必须减去目标",
    expect=REFUTED,
    claim="Σ_c y_c = 1 ⇒ ∂/∂z_j [−Σ_c y_c log softmax(z)_c] = softmax(z)_j",
    assumptions=("the assumptions of cross-entropy-gradient (Σ_c y_c = 1)",),
    lhs=lhs,
    rhs=rhs,
    facts=facts + distribution,
    holds_when=("cross-entropy-gradient",),
)
