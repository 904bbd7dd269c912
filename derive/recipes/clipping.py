"""`clipping`: clipping the accumulated gradient versus accumulating clipped microbatch
gradients, by norm (`max_norm`, with torch's optional ε) or by value (`clip_value`)."""

from __future__ import annotations

import sympy as sp

from derive.kernel.exact import decimal_str
from derive.model.clipping import clip_norm, clip_value, combine, scale_all
from derive.model.objective import weights
from derive.recipes.base import Input, Quantity, Recipe
from derive.wording import plural


def _weights(c):
    if c.has("weights"):
        return list(c["weights"])
    return weights([1] * len(c["gradients"]))


def _clip(c):
    if c.has("max_norm"):
        eps = c["eps"] if c.has("eps") else 0
        return lambda g: clip_norm(g, c["max_norm"], eps)
    return lambda g: clip_value(g, c["clip_value"])


QUANTITIES = (
    Quantity("mean_gradient", "the accumulated gradient, unclipped", "ḡ = Σ_k w_k·g_k",
             lambda c: combine(_weights(c), list(c["gradients"])), zh="平均梯度"),
    Quantity("clipped_gradients", "each microbatch gradient clipped on its own", "clip(g_k)",
             lambda c: [_clip(c)(g) for g in c["gradients"]], zh="各微批裁剪后梯度"),
    Quantity("clip_then_mean", "clip each microbatch gradient, then accumulate",
             "Σ_k w_k·clip(g_k)",
             lambda c: combine(_weights(c), list(c["clipped_gradients"])),
             wrong=True, mistake_of=("mean_then_clip",), zh="先裁剪再平均"),
    Quantity("mean_then_clip", "accumulate, then clip once: the window's clipping",
             "clip(Σ_k w_k·g_k)", lambda c: _clip(c)(c["mean_gradient"]), zh="先平均再裁剪"),
    Quantity("scaled_mean_gradient", "what .grad holds under AMP after accumulation: S·ḡ",
             "S·ḡ", lambda c: scale_all(c["mean_gradient"], c["loss_scale"]),
             needs=("loss_scale",), zh="缩放后的平均梯度"),
    Quantity("clip_scaled_then_unscale", "clip the scaled gradient, then unscale (the order "
             "PyTorch warns against)", "clip(S·ḡ)/S",
             lambda c: scale_all(_clip(c)(c["scaled_mean_gradient"]), 1 / c["loss_scale"]),
             needs=("loss_scale",), wrong=True, mistake_of=("mean_then_clip",),
             zh="先裁剪再反缩放"),
)


def _shape(g):
    return tuple(_shape(x) for x in g) if isinstance(g, list) else None


def check(given):
    problems = []
    has_norm, has_value = given.get("max_norm") is not None, given.get("clip_value") is not None
    if has_norm == has_value:
        problems.append(("max_norm", "is given together with clip_value" if has_norm else
                         "is missing, and so is clip_value",
                         "give exactly one: max_norm (norm clipping) or clip_value"))
    if given.get("eps") is not None and not has_norm:
        problems.append(("eps", "only applies to norm clipping", "give max_norm, or drop eps"))
    gs = given.get("gradients") or []
    if len({_shape(g) for g in gs}) > 1:
        problems.append(("gradients", "mixes shapes (numbers, vectors or tensors of different "
                         "lengths)", "give every microbatch gradient the same shape"))
    ws = given.get("weights")
    if ws is not None:
        if len(ws) != len(gs):
            problems.append(("weights", f"has {plural(len(ws), 'weight')} for "
                             f"{plural(len(gs), 'gradient')}",
                             "give one weight per gradient"))
        elif sp.Add(*ws) != 1:
            problems.append(("weights", f"add up to {decimal_str(sp.Add(*ws))}",
                             "weights that add up to 1"))
    return problems


RECIPE = Recipe(
    name="clipping",
    title="Clipping the accumulated gradient versus accumulating clipped gradients",
    doc=__doc__,
    inputs=(
        Input("gradients", "gradients", "g_k: numbers, or vectors as lists of equal length"),
        Input("max_norm", "positive", "norm clipping threshold c", required=False),
        Input("clip_value", "positive", "value clipping threshold c", required=False),
        Input("weights", "nonnegatives", "w_k (default: equal, 1/K), adding up to 1",
              required=False),
        Input("eps", "nonnegative", "ε added to the norm (torch's clip_grad_norm_ uses 1e-6; "
              "default 0)", required=False),
        Input("loss_scale", "positive", "AMP's loss scale S: adds what .grad holds (S·ḡ) and "
              "the wrong order clip-then-unscale", required=False),
    ),
    quantities=QUANTITIES,
    check=check,
)
