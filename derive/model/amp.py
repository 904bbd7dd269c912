"""Mixed precision's loss scaling (torch.amp.GradScaler): backward produces S·g; `unscale_`
divides the accumulated gradients by S once, before clipping and the step."""

from __future__ import annotations


def scaled(g, scale):
    """What backward of the scaled loss S·L leaves in .grad: S·g."""
    return scale * g


def unscaled(g, scale):
    """`scaler.unscale_`: the accumulated gradient divided by S."""
    return g / scale
