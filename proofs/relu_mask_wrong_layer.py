"""relu-mask-wrong-layer — masking with the output layer's sign is not the ReLU backward.

    Σ_i (δ₂)_i ∂ŷ_i/∂z₁[p] = (W₂ᵀ (δ₂ ⊙ 1[ŷ > 0]))_p   is false
"""

from derive.graph import sized
from derive.statements import REFUTED, Statement

from .tensors import W2, delta2, out2, z1
from .two_layer_relu_delta import no_kink

wrong_mask = sized.compare(">", out2, sized.scalar(sized.sp.S.Zero))
lhs, rhs, (p,), facts = sized.entrywise(sized.backward(delta2, out2, z1),
                                        W2.T @ (delta2 * wrong_mask))

STATEMENT = Statement(
    id="relu-mask-wrong-layer",
    title="The ReLU mask taken on the output layer is not the hidden layer's backward",
    title_zh="把 ReLU 掩码用在输出层上,不是隐藏层的反向传播",
    expect=REFUTED,
    claim="ŷ = W₂ relu(z₁) + b₂: Σ_i (δ₂)_i ∂ŷ_i/∂z₁[p] = Σ_i W₂[i, p]·(δ₂)_i·1[ŷ_i > 0]",
    assumptions=("the assumptions of two-layer-relu-delta (no entry of z₁ is 0)",),
    lhs=lhs,
    rhs=rhs,
    facts=facts + no_kink,
    holds_when=("two-layer-relu-delta",),
)
