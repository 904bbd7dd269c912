"""Gradient clipping: by value (each coordinate into [−c, c]) and by norm (scale the whole
vector to norm at most c), and the two orders of clipping and averaging."""

from __future__ import annotations

import sympy as sp

from derive.model.objective import weighted_sum


def clip_value(g, c):
    """Each coordinate clamped into [−c, c]: max(−c, min(g, c))."""
    if isinstance(g, (list, tuple)):
        return [clip_value(v, c) for v in g]
    return sp.Max(-c, sp.Min(g, c))


def norm_scale(norm_sq, c, eps=0):
    """The factor norm clipping applies: 1 when ‖g‖ + ε ≤ c, else c/(‖g‖ + ε)
    (torch.nn.utils.clip_grad_norm_ uses ε = 1e-6)."""
    if eps == 0:
        return sp.Piecewise((1, norm_sq <= c**2), (c / sp.sqrt(norm_sq), True))
    norm = sp.sqrt(norm_sq)
    return sp.Piecewise((1, norm + eps <= c), (c / (norm + eps), True))


def clip_norm(g, c, eps=0):
    """g scaled to norm at most c; a number is a vector of one coordinate."""
    vec = list(g) if isinstance(g, (list, tuple)) else [g]
    scale = norm_scale(sp.Add(*[v**2 for v in vec]), c, eps)
    out = [scale * v for v in vec]
    return out if isinstance(g, (list, tuple)) else out[0]


def combine(ws, gradients):
    """Σ_k w_k·g_k for numbers or equal-length vectors."""
    if gradients and isinstance(gradients[0], (list, tuple)):
        return [weighted_sum(ws, coords) for coords in zip(*gradients)]
    return weighted_sum(ws, gradients)


def clip_then_combine(ws, gradients, clip):
    """Clip every microbatch gradient, then accumulate."""
    return combine(ws, [clip(g) for g in gradients])


def combine_then_clip(ws, gradients, clip):
    """Accumulate, then clip once (the window's own clipping)."""
    return clip(combine(ws, gradients))
