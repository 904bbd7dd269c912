"""clip-value-then-accumulate — clipping each microbatch by value, then accumulating, is not
clipping the accumulated gradient.

    Σ_k w_k·clip(g_k, c) ≠ clip(Σ_k w_k·g_k, c),   clip(g, c) = max(−c, min(g, c))
"""

from derive.model.clipping import clip_then_combine, clip_value, combine_then_clip
from derive.model.objective import weights
from derive.statements import REFUTED, Family, Instance, Statement
from .clip_families import instantiate, shapes
from .course_data import CLIP_GRADIENTS, CLIP_THRESHOLD


def reading():
    ws = weights([1] * len(CLIP_GRADIENTS))
    clip = lambda g: clip_value(g, CLIP_THRESHOLD)  # noqa: E731
    return {"clip then average": clip_then_combine(ws, CLIP_GRADIENTS, clip),
            "average then clip": combine_then_clip(ws, CLIP_GRADIENTS, clip)}


STATEMENT = Statement(
    id="clip-value-then-accumulate",
    title="Value clipping does not commute with accumulation",
    expect=REFUTED,
    claim="Σ_k w_k·clip(g_k, c) = clip(Σ_k w_k·g_k, c)  (clip by value)",
    assumptions=("threshold c > 0", "equal weights w_k = 1/K"),
    family=Family(shapes, lambda s: instantiate(s, clip_value)),
    holds_when=("clip-value-within-threshold",),
    instances=(
        Instance(
            label="gradients 10 and −8, equal weights, threshold 1",
            source="reading, 裁剪、AMP和BatchNorm的额外边界",
            compute=reading,
            expected={"clip then average": 0, "average then clip": 1},
        ),
    ),
)
