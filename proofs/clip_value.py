"""clip-value-then-accumulate — clipping each microbatch by value, then accumulating, is not
clipping the accumulated gradient.

    Σ_k w_k·clip(g_k, c) ≠ clip(Σ_k w_k·g_k, c),   clip(g, c) = max(−c, min(g, c))
"""

from derive.model.clipping import clip_value
from derive.statements import REFUTED, Instance, Schema, Statement

from .clip_families import instantiate, reading, shapes

STATEMENT = Statement(
    id="clip-value-then-accumulate",
    title="Value clipping does not commute with accumulation",
    title_zh="按值裁剪与累积不能交换",
    expect=REFUTED,
    claim="Σ_k w_k·clip(g_k, c) = clip(Σ_k w_k·g_k, c)  (clip by value)",
    assumptions=("threshold c > 0", "equal weights w_k = 1/K"),
    schema=Schema(shapes, lambda s: instantiate(s, clip_value)),
    holds_when=("clip-value-within-threshold",),
    instances=(
        Instance(
            label="gradients 10 and −8, equal weights, threshold 1",
            source="reading, 裁剪、AMP和BatchNorm的额外边界",
            compute=lambda: reading(clip_value),
            expected={"clip then average": 0, "average then clip": 1},
        ),
    ),
)
