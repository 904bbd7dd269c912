"""amp-scale-change — if the loss scale changes inside the window, unscaling once by the last
scale does not give the accumulated gradient.

    (S_1·g_1 + S_2·g_2)/S_2 ≠ g_1 + g_2   (weights folded into g_k)
"""

import sympy as sp

from derive.model.amp import scaled, unscaled
from derive.statements import REFUTED, Instantiation, Schema, Statement


def instantiate(K):
    gs = [sp.Symbol(f"g_{k}", real=True) for k in range(1, K + 1)]
    ss = [sp.Symbol(f"S_{k}", positive=True) for k in range(1, K + 1)]
    return Instantiation(
        shape=f"K = {K}",
        lhs=unscaled(sp.Add(*[scaled(g, s) for g, s in zip(gs, ss)]), ss[-1]),
        rhs=sp.Add(*gs),
        variables=tuple(gs + ss),
    )


STATEMENT = Statement(
    id="amp-scale-change",
    title="A loss scale that changes inside the window breaks the single unscale",
    title_zh="窗口内缩放因子变化时,一次反缩放不再正确",
    expect=REFUTED,
    claim="Σ_k S_k·g_k / S_K = Σ_k g_k when the scale S_k changes between microbatches",
    assumptions=("microbatch k's backward uses scale S_k > 0; one unscale_ by the last scale",),
    schema=Schema(lambda: [1, 2, 3], instantiate),
    holds_when=("amp-unscale",),
)
