"""The one torch side of the differential tests: the torch.optim optimizer of any registered
optimizer (its class and arguments from its module), its per-parameter state by derive's
quantity names, and a saved state loaded into it. Floats live here only, to compare."""

from __future__ import annotations

from fractions import Fraction

import torch

from derive.optimizers import Optimizer

torch.set_default_dtype(torch.float64)


def make(params, lr, opt: Optimizer):
    """torch.optim.<the spec's class>(params, lr, **the options as torch's arguments)."""
    cls = getattr(torch.optim, opt.spec.torch_class)
    return cls(params, lr=float(lr),
               **{k: _plain(v) for k, v in opt.spec.torch_kwargs(opt).items()})


def _plain(v):
    """An exact option as torch takes it: bools as they are, numbers as floats."""
    if isinstance(v, bool):
        return v
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    return float(v)


def record_state(o, named_params, opt: Optimizer, out) -> None:
    """Append each kept state tensor of each parameter under derive's node name
    (buffer_steps, b_m_steps, sum_steps, …)."""
    for prefix, p in named_params:
        state = o.state[p]
        for slot in opt.spec.used_slots(opt):
            if state.get(slot.torch_key) is not None:
                out.setdefault(prefix + slot.node, []).append(state[slot.torch_key].item())


def saved_state(o, named_params, opt: Optimizer) -> dict:
    """The optimizer's state as an exercise's `state` table: exact Fractions of torch's
    float64 values (its step count an int)."""
    out = {}
    for prefix, p in named_params:
        state = o.state[p]
        if opt.spec.keeps_step and "step" in state:
            out["step"] = int(state["step"].item())
        for slot in opt.spec.used_slots(opt):
            if state.get(slot.torch_key) is not None:
                out[prefix + slot.key] = Fraction(state[slot.torch_key].item())
    return out
