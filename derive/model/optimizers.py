"""torch.optim's SGD, Adam and AdamW, one parameter coordinate at a time, in exact arithmetic.

Read from torch/optim/sgd.py and adam.py (`_single_tensor_sgd`, `_single_tensor_adam`;
torch 2.13), in the same order of operations:

SGD:   g ← −g if maximize;  g ← g + λ·θ;  b ← g (first step) else μ·b + (1 − τ)·g;
       g ← g + μ·b if nesterov else b;  θ ← θ − η·g
Adam:  g ← −g if maximize;  t ← t + 1;  θ ← θ·(1 − η·λ) (AdamW)  or  g ← g + λ·θ (Adam);
       m ← β₁·m + (1 − β₁)·g;  v ← β₂·v + (1 − β₂)·g²;
       θ ← θ − (η/(1 − β₁ᵗ))·m / (√v/√(1 − β₂ᵗ) + ε)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from derive.kernel.exact import decimal_str

R = sp.Rational

DEFAULTS = {
    "sgd": {"momentum": 0, "dampening": 0, "weight_decay": 0, "nesterov": False,
            "maximize": False},
    "adam": {"betas": (R(9, 10), R(999, 1000)), "eps": R(1, 10**8), "weight_decay": 0,
             "maximize": False, "amsgrad": False, "decoupled_weight_decay": False},
    "adamw": {"betas": (R(9, 10), R(999, 1000)), "eps": R(1, 10**8), "weight_decay": R(1, 100),
              "maximize": False, "amsgrad": False},
}
"""PyTorch's defaults (AdamW's weight_decay is 1e-2, Adam's 0). torch 2.13's Adam takes
`decoupled_weight_decay` (True makes it AdamW's update with Adam's defaults); AdamW has no such
option (it is always decoupled)."""


@dataclass(frozen=True)
class Optimizer:
    """One optimizer's hyperparameters; what is not given takes PyTorch's default."""

    name: str = "sgd"
    momentum: sp.Expr = 0
    dampening: sp.Expr = 0
    weight_decay: sp.Expr = 0
    nesterov: bool = False
    maximize: bool = False
    betas: tuple = (R(9, 10), R(999, 1000))
    eps: sp.Expr = R(1, 10**8)
    amsgrad: bool = False
    decoupled_weight_decay: bool = False

    @property
    def decoupled(self) -> bool:
        """Weight decay as AdamW applies it, θ·(1 − η·λ) before the moments (AdamW, or Adam
        with decoupled_weight_decay = true), rather than λ·θ added to the gradient."""
        return self.name == "adamw" or self.decoupled_weight_decay

    def __str__(self) -> str:
        """`adamw(betas=[0.9, 0.99], eps=1e-8, weight_decay=0.01)`: name and every option."""
        def show(v):
            if isinstance(v, bool):
                return str(v).lower()
            if isinstance(v, tuple):
                return "[" + ", ".join(show(x) for x in v) + "]"
            return decimal_str(v)
        opts = ", ".join(f"{k}={show(getattr(self, k))}" for k in DEFAULTS[self.name])
        return f"{self.name}({opts})"

    @classmethod
    def make(cls, name: str = "sgd", **given) -> "Optimizer":
        if name not in DEFAULTS:
            raise ValueError(f"unknown optimizer {name!r}; use one of {', '.join(DEFAULTS)}")
        unknown = set(given) - set(DEFAULTS[name])
        if unknown:
            raise ValueError(f"{name} has no option {sorted(unknown)[0]!r}")
        return replace(cls(name=name), **{**DEFAULTS[name], **given})


@dataclass(frozen=True)
class State:
    """The optimizer state of one coordinate: SGD's momentum buffer, Adam's m, v (and the
    running max of v for amsgrad) and its step count t."""

    buffer: sp.Expr | None = None
    m: sp.Expr = sp.S.Zero
    v: sp.Expr = sp.S.Zero
    v_max: sp.Expr = sp.S.Zero
    t: int = 0


def sgd_step(theta, grad, state: State, opt: Optimizer, lr) -> tuple[sp.Expr, State]:
    """One torch.optim.SGD step of one coordinate."""
    g = -grad if opt.maximize else grad
    if opt.weight_decay != 0:
        g = g + opt.weight_decay * theta
    if opt.momentum != 0:
        if state.buffer is None:
            buf = g
        else:
            buf = opt.momentum * state.buffer + (1 - opt.dampening) * g
        state = replace(state, buffer=buf, t=state.t + 1)
        g = g + opt.momentum * buf if opt.nesterov else buf
    else:
        state = replace(state, t=state.t + 1)
    return theta - lr * g, state


def adam_step(theta, grad, state: State, opt: Optimizer, lr) -> tuple[sp.Expr, State]:
    """One torch.optim.Adam (or AdamW: decoupled decay) step of one coordinate."""
    beta1, beta2 = opt.betas
    g = -grad if opt.maximize else grad
    t = state.t + 1
    if opt.weight_decay != 0:
        if opt.decoupled:
            theta = theta * (1 - lr * opt.weight_decay)
        else:
            g = g + opt.weight_decay * theta
    m = beta1 * state.m + (1 - beta1) * g
    v = beta2 * state.v + (1 - beta2) * g**2
    v_max = sp.Max(state.v_max, v) if opt.amsgrad else state.v_max
    step_size = lr / (1 - beta1**t)
    denom = sp.sqrt(v_max if opt.amsgrad else v) / sp.sqrt(1 - beta2**t) + opt.eps
    return theta - step_size * m / denom, State(state.buffer, m, v, v_max, t)


def step(theta, grad, state: State, opt: Optimizer, lr) -> tuple[sp.Expr, State]:
    """One step of the configured optimizer."""
    return (sgd_step if opt.name == "sgd" else adam_step)(theta, grad, state, opt, lr)
