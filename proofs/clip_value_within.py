"""clip-value-within-threshold — if every microbatch gradient is within [−c, c], value clipping
and accumulation commute (both are the plain weighted mean).

    |g_1|, |g_2| ≤ c, α ∈ [0, 1]  ⇒  clip(α·g_1 + (1−α)·g_2) = α·clip(g_1) + (1−α)·clip(g_2)
"""

import sympy as sp

from derive.model.clipping import clip_then_combine, clip_value, combine, combine_then_clip
from derive.statements import PROVED, Certificate, Statement, calc, hypothesis

g1, g2, alpha = sp.symbols("g_1 g_2 alpha", real=True)
c = sp.Symbol("c", positive=True)
ws, gs = [alpha, 1 - alpha], [g1, g2]


def clip(g):
    return clip_value(g, c)


mean = combine(ws, gs)
h = {
    "α ≥ 0": hypothesis(alpha, "α ≥ 0"),
    "1 − α ≥ 0": hypothesis(1 - alpha, "α ≤ 1"),
    "c − g_1 ≥ 0": hypothesis(c - g1, "g_1 ≤ c"),
    "c + g_1 ≥ 0": hypothesis(c + g1, "g_1 ≥ −c"),
    "c − g_2 ≥ 0": hypothesis(c - g2, "g_2 ≤ c"),
    "c + g_2 ≥ 0": hypothesis(c + g2, "g_2 ≥ −c"),
}
upper = Certificate(
    "c − ḡ ≥ 0", c - mean,
    ((1, (h["α ≥ 0"], h["c − g_1 ≥ 0"])), (1, (h["1 − α ≥ 0"], h["c − g_2 ≥ 0"]))),
    "c − ḡ = α·(c − g_1) + (1−α)·(c − g_2)")
lower = Certificate(
    "c + ḡ ≥ 0", c + mean,
    ((1, (h["α ≥ 0"], h["c + g_1 ≥ 0"])), (1, (h["1 − α ≥ 0"], h["c + g_2 ≥ 0"]))),
    "c + ḡ = α·(c + g_1) + (1−α)·(c + g_2)")

STATEMENT = Statement(
    id="clip-value-within-threshold",
    title="Within the threshold, value clipping commutes with accumulation",
    title_zh="都在阈值内时,按值裁剪与累积可以交换",
    expect=PROVED,
    claim="|g_k| ≤ c  ⇒  clip(Σ_k w_k·g_k) = Σ_k w_k·clip(g_k)  (K = 2, w = (α, 1−α))",
    assumptions=("K = 2 microbatches with weights α, 1 − α, 0 ≤ α ≤ 1",
                 "−c ≤ g_k ≤ c for every k; c > 0"),
    lhs=combine_then_clip(ws, gs, clip),
    rhs=clip_then_combine(ws, gs, clip),
    facts=(*h.values(), upper, lower),
    proof=calc(
        combine_then_clip(ws, gs, clip),
        (mean, "−c ≤ ḡ ≤ c by the two certificates, so clip(ḡ) = ḡ"),
        (clip_then_combine(ws, gs, clip), "−c ≤ g_k ≤ c, so clip(g_k) = g_k"),
    ),
)
