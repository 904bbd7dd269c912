"""clip-norm-then-accumulate — clipping each microbatch by norm, then accumulating, is not
clipping the accumulated gradient.

    Σ_k w_k·clip‖·‖(g_k, c) ≠ clip‖·‖(Σ_k w_k·g_k, c),   clip‖·‖(g, c) = g·min(1, c/‖g‖)
"""

from derive.model.clipping import clip_norm
from derive.statements import REFUTED, Instance, Schema, Statement

from .clip_families import instantiate, reading, shapes

STATEMENT = Statement(
    id="clip-norm-then-accumulate",
    title="Norm clipping does not commute with accumulation",
    title_zh="按范数裁剪与累积不能交换",
    expect=REFUTED,
    claim="Σ_k w_k·clip‖·‖(g_k, c) = clip‖·‖(Σ_k w_k·g_k, c)  (clip by norm, ε = 0)",
    assumptions=("threshold c > 0", "equal weights w_k = 1/K", "ε = 0 (see docs for torch's 1e-6)"),
    schema=Schema(shapes, lambda s: instantiate(s, clip_norm)),
    holds_when=("clip-norm-within-threshold",),
    instances=(
        Instance(
            label="gradients 10 and −8, equal weights, threshold 1",
            source="reading, 裁剪、AMP和BatchNorm的额外边界",
            compute=lambda: reading(clip_norm),
            expected={"clip then average": 0, "average then clip": 1},
        ),
    ),
)
