"""torch.optim's optimizers, one parameter coordinate at a time, in exact arithmetic: each is
one module of derive/optimizers (its update rule stated once, as graph nodes); `step` takes one
step of any of them, derived from those nodes. Kept as the model layer's name for them."""

from derive.optimizers import REGISTRY, Optimizer, State, step

DEFAULTS = {name: spec.defaults() for name, spec in REGISTRY.items()}
"""PyTorch's defaults of every registered optimizer."""

__all__ = ["DEFAULTS", "Optimizer", "State", "step"]
