"""attention-scale-inverse-d — scaling the scores by 1/d is not scaling them by 1/√d.

    softmax(Q Kᵀ/√d)[i, t] = softmax(Q Kᵀ/d)[i, t]   is false (d = 1 agrees; d = 2 does not)
"""

import sympy as sp

from derive.graph import sized
from derive.statements import REFUTED, Statement

from .tensors import K_, Q, d

lhs, rhs, (i, t), facts = sized.entrywise(sized.attention_scores(Q, K_, 1 / sp.sqrt(d)),
                                          sized.attention_scores(Q, K_, 1 / d), "it")

STATEMENT = Statement(
    id="attention-scale-inverse-d",
    title="Attention scores scaled by 1/d are not the lecture's 1/√d",
    title_zh="注意力分数按 1/d 缩放,不是课上的 1/√d",
    expect=REFUTED,
    claim="softmax(Q Kᵀ/√d) = softmax(Q Kᵀ/d)",
    assumptions=("the assumptions of attention-rows-sum-to-one; entry (i, t)",),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    holds_when=("attention-rows-sum-to-one",),
)
