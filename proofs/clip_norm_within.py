"""clip-norm-within-threshold — if every microbatch gradient has norm at most c, norm clipping
and accumulation commute, in any dimension d.

    ‖g_1‖, ‖g_2‖ ≤ c, α ∈ [0, 1]  ⇒  clip(α·g_1 + (1−α)·g_2) = α·clip(g_1) + (1−α)·clip(g_2)

The key fact is c² − ‖ḡ‖² = α(c² − ‖g_1‖²) + (1−α)(c² − ‖g_2‖²) + α(1−α)‖g_1 − g_2‖² ≥ 0.
"""

import sympy as sp

from derive.model.clipping import norm_scale
from derive.statements import PROVED, Certificate, Statement, calc, hypothesis

j, i = sp.symbols("j i", integer=True)
d = sp.Symbol("d", integer=True, positive=True)
g1, g2 = sp.IndexedBase("g_1", real=True), sp.IndexedBase("g_2", real=True)
alpha = sp.Symbol("alpha", real=True)
c = sp.Symbol("c", positive=True)


def norm_sq(v):
    """‖v‖² = Σ_{i=1}^{d} v_i², for v given coordinate-wise as a function of i."""
    return sp.Sum(v(i) ** 2, (i, 1, d))


def clip_coord(v):
    """Coordinate j of v clipped to norm c."""
    return norm_scale(norm_sq(v), c) * v(j)


def G1(i_):
    return g1[i_]


def G2(i_):
    return g2[i_]


def mean(i_):
    return alpha * g1[i_] + (1 - alpha) * g2[i_]


h_a = hypothesis(alpha, "α ≥ 0")
h_b = hypothesis(1 - alpha, "α ≤ 1")
h_1 = hypothesis(c**2 - norm_sq(G1), "‖g_1‖ ≤ c")
h_2 = hypothesis(c**2 - norm_sq(G2), "‖g_2‖ ≤ c")
inside = Certificate(
    "c² − ‖ḡ‖² ≥ 0", c**2 - norm_sq(mean),
    ((1, (h_a, h_1)), (1, (h_b, h_2)),
     (1, (h_a, h_b, sp.Sum((g1[i] - g2[i]) ** 2, (i, 1, d))))),
    "c² − ‖ḡ‖² = α(c² − ‖g_1‖²) + (1−α)(c² − ‖g_2‖²) + α(1−α)‖g_1 − g_2‖²")

lhs = clip_coord(mean)
rhs = alpha * clip_coord(G1) + (1 - alpha) * clip_coord(G2)

STATEMENT = Statement(
    id="clip-norm-within-threshold",
    title="Within the threshold, norm clipping commutes with accumulation (any dimension)",
    title_zh="都在阈值内时,按范数裁剪与累积可以交换(任意维度)",
    expect=PROVED,
    claim="‖g_k‖ ≤ c  ⇒  clip(Σ_k w_k·g_k) = Σ_k w_k·clip(g_k)  (K = 2, w = (α, 1−α), ε = 0)",
    assumptions=("K = 2 microbatch gradients in ℝ^d (symbolic d), weights α, 1 − α, 0 ≤ α ≤ 1",
                 "‖g_k‖ ≤ c for every k; c > 0; coordinate j of each side"),
    lhs=lhs,
    rhs=rhs,
    facts=(h_a, h_b, h_1, h_2, inside),
    proof=calc(
        lhs,
        (mean(j), "‖ḡ‖ ≤ c by the certificate, so clipping leaves ḡ unchanged"),
        (rhs, "‖g_k‖ ≤ c, so clip(g_k) = g_k"),
    ),
)
