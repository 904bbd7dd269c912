"""clip-before-unscale — clipping the scaled gradient and then unscaling is not clipping the
true gradient (PyTorch asks for `scaler.unscale_(optimizer)` before `clip_grad_norm_`).

    clip(S·g, c)/S ≠ clip(g, c)
"""

import sympy as sp

from derive.model.amp import scaled, unscaled
from derive.model.clipping import clip_norm
from derive.statements import REFUTED, Instance, Instantiation, Schema, Statement

from .course_data import CLIP_THRESHOLD

c = sp.Symbol("c", positive=True)
S = sp.Symbol("S", positive=True)


def instantiate(d):
    gs = [sp.Symbol(f"g_{j}", real=True) for j in range(1, d + 1)]
    vec = gs if d > 1 else gs[0]
    wrong = clip_norm([scaled(g, S) for g in gs] if d > 1 else scaled(vec, S), c)
    wrong = wrong[0] if d > 1 else wrong
    right = clip_norm(vec, c)
    right = right[0] if d > 1 else right
    return Instantiation(shape=f"d = {d}", lhs=unscaled(wrong, S), rhs=right,
                         variables=(*gs, S, c))


def example():
    g, scale = sp.Rational(1, 2), 2**16
    return {"clip then unscale": unscaled(clip_norm(scaled(g, scale), CLIP_THRESHOLD), scale),
            "unscale then clip": clip_norm(g, CLIP_THRESHOLD)}


STATEMENT = Statement(
    id="clip-before-unscale",
    title="Clipping scaled gradients before unscaling clips the wrong vector",
    title_zh="先裁剪缩放后的梯度再反缩放,裁剪的是错误的向量",
    expect=REFUTED,
    claim="clip(S·g, c)/S = clip(g, c)  (norm clipping, ε = 0)",
    assumptions=("loss scale S > 0, threshold c > 0",),
    schema=Schema(lambda: [1, 2], instantiate),
    instances=(
        Instance(
            label="g = 0.5 under the course's threshold 1 with S = 2^16",
            source="constructed (the reading's threshold 1)",
            compute=example,
            expected={"clip then unscale": "1/65536", "unscale then clip": "0.5"},
        ),
    ),
)
