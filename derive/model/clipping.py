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


def entries(g) -> list:
    """Every number of a gradient: a number, a vector, or several tensors (nested lists)."""
    if isinstance(g, (list, tuple)):
        return [x for part in g for x in entries(part)]
    return [g]


def scale_all(g, factor):
    """factor·g with g's nesting kept."""
    if isinstance(g, (list, tuple)):
        return [scale_all(part, factor) for part in g]
    return factor * g


def clip_norm(g, c, eps=0):
    """g scaled to total norm at most c, as torch.nn.utils.clip_grad_norm_ does over several
    parameter tensors: one norm over all their entries, one factor for all of them."""
    return scale_all(g, norm_scale(sp.Add(*[v**2 for v in entries(g)]), c, eps))


def combine(ws, gradients):
    """Σ_k w_k·g_k for numbers, vectors or several tensors of one shape."""
    if gradients and isinstance(gradients[0], (list, tuple)):
        return [combine(ws, list(parts)) for parts in zip(*gradients)]
    return weighted_sum(ws, gradients)


def clip_then_combine(ws, gradients, clip):
    """Clip every microbatch gradient, then accumulate."""
    return combine(ws, [clip(g) for g in gradients])


def combine_then_clip(ws, gradients, clip):
    """Accumulate, then clip once (the window's own clipping)."""
    return clip(combine(ws, gradients))
