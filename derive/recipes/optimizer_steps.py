"""`optimizer_steps`: several updates on the same batch, exactly as torch.optim computes them
(SGD with momentum, dampening, weight decay, Nesterov, maximize; Adam; AdamW).

At each step the gradient is the batch-mean gradient of the lesson's model at the current
parameters (by backward, as in `sgd_step`); the optimizer state carries over between steps.
"""

from __future__ import annotations

import sympy as sp

from derive.model import linear
from derive.model.objective import mean
from derive.model.optimizers import Optimizer, State, step
from derive.recipes.base import Input, Quantity, Recipe
from derive.recipes.sgd_step import MODEL_INPUTS, loss_convention


def _gradient(c, w, b, param):
    conv = loss_convention(c)
    return mean([linear.backward(linear.prediction(w, x, b), x, y, param, conv)
                 for x, y in c["records"]])


def _optimizer(c) -> Optimizer:
    return c.given["optimizer"] if c.has("optimizer") else Optimizer.make("sgd")


def trajectory(c) -> dict[str, list]:
    """Every step: the gradients at its start, the parameters and the state after it."""
    opt, lr = _optimizer(c), c["lr"]
    has_b = c.has("b")
    w, b = c["w"], (c["b"] if has_b else sp.S.Zero)
    sw, sb = State(), State()
    out = {k: [] for k in ("gradient", "b_gradient", "w", "b", "buffer", "b_buffer", "m", "v",
                           "b_m", "b_v")}
    claimed = c.overrides.get("gradient_steps")  # the author's own, when carrying errors
    for t in range(int(c["steps"]) if c.has("steps") else 1):
        gw = claimed[t] if claimed is not None and t < len(claimed) else _gradient(c, w, b, "w")
        gb = _gradient(c, w, b, "b") if has_b else None
        w_next, sw = step(w, gw, sw, opt, lr)
        if has_b:
            b, sb = step(b, gb, sb, opt, lr)
        w = w_next
        out["gradient"].append(gw)
        out["w"].append(w)
        out["buffer"].append(sw.buffer)
        out["m"].append(sw.m)
        out["v"].append(sw.v)
        if has_b:
            out["b_gradient"].append(gb)
            out["b"].append(b)
            out["b_buffer"].append(sb.buffer)
            out["b_m"].append(sb.m)
            out["b_v"].append(sb.v)
    return out


def _part(key):
    return lambda c: c.memo("trajectory", trajectory)[key]


def _momentum(given) -> bool:
    opt = given.get("optimizer")
    return opt is not None and opt.name == "sgd" and opt.momentum != 0


def _adam(given) -> bool:
    opt = given.get("optimizer")
    return opt is not None and opt.name in ("adam", "adamw")


QUANTITIES = (
    Quantity("gradient_steps", "∂L/∂w at each step's starting point", "g_t = ∂L/∂w(w_{t−1})",
             _part("gradient"), zh="各步梯度"),
    Quantity("b_gradient_steps", "∂L/∂b at each step's starting point", "∂L/∂b(b_{t−1})",
             _part("b_gradient"), needs=("b",), zh="各步偏置梯度"),
    Quantity("w_steps", "w after each step", "w_t", _part("w"), zh="各步权重"),
    Quantity("b_steps", "b after each step", "b_t", _part("b"), needs=("b",), zh="各步偏置"),
    Quantity("buffer_steps", "SGD's momentum buffer of w after each step (first: the gradient)",
             "b_t = μ·b_{t−1} + (1 − τ)·g_t", _part("buffer"), when=_momentum,
             when_text="an SGD optimizer with momentum > 0",
             zh="动量缓冲"),
    Quantity("m_steps", "Adam's first moment of w after each step",
             "m_t = β₁·m_{t−1} + (1 − β₁)·g_t", _part("m"), when=_adam,
             when_text='optimizer = { name = "adam" } or "adamw"', zh="一阶矩"),
    Quantity("v_steps", "Adam's second moment of w after each step",
             "v_t = β₂·v_{t−1} + (1 − β₂)·g_t²", _part("v"), when=_adam,
             when_text='optimizer = { name = "adam" } or "adamw"', zh="二阶矩"),
)


def check(given):
    opt = given.get("optimizer")
    problems = []
    if given.get("steps") is not None and given["steps"] > MAX_STEPS:
        problems.append(("steps", f"is {given['steps']}", f"at most {MAX_STEPS} steps"))
    if isinstance(opt, Optimizer) and opt.name in ("adam", "adamw") and given.get("steps") and \
            given["steps"] > MAX_ADAM_STEPS:
        problems.append(("steps", f"is {given['steps']}",
                         f"at most {MAX_ADAM_STEPS} exact Adam steps (the surds grow with each)"))
    return problems


MAX_STEPS = 1000
"""Most steps one exercise may ask for."""

MAX_ADAM_STEPS = 5
"""Exact Adam values nest a square root per step; their closed forms roughly triple in size
with each, and printing or rounding them past five steps takes seconds to minutes."""

RECIPE = Recipe(
    name="optimizer_steps",
    title="Several torch.optim updates on the same batch",
    doc=__doc__,
    inputs=(
        *MODEL_INPUTS,
        Input("steps", "count", "how many steps on the same batch (default 1)", required=False),
        Input("optimizer", "optimizer", '{ name = "sgd" | "adam" | "adamw", momentum, '
              "dampening, weight_decay, nesterov, maximize, betas = [β1, β2], eps, amsgrad }; "
              "what is left out takes PyTorch's default", required=False),
    ),
    quantities=QUANTITIES,
    check=check,
)
