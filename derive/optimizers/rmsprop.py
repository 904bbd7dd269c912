"""torch.optim.RMSprop (`_single_tensor_rmsprop`, torch 2.13), one coordinate:

    g ← −g if maximize;  t ← t + 1;  g ← g + λ·θ;  v ← α·v + (1 − α)·g²;
    centered: a ← α·a + (1 − α)·g (torch's lerp), d = √(v − a²) + ε;  else d = √v + ε;
    momentum > 0: u ← μ·u + g/d, θ ← θ − η·u;  else θ ← θ − η·g/d

from zero state (fresh) or a saved square_avg, grad_avg and momentum_buffer. The step count
is kept but never read.
"""

from __future__ import annotations

from typing import NamedTuple

import sympy as sp

from derive.graph import Node, symbol
from derive.graph.evaluate import Undefined
from derive.graph.words import said
from derive.optimizers.chain import (
    STEPS,
    Chain,
    decayed_nodes,
    eps,
    mu,
    over,
    plus,
    saved_or_zero,
    t,
    times,
    update,
    used_gradient,
)
from derive.optimizers.common import BUFFER, EPS_INSIDE_SQRT, ONE, SQRT_FORGOTTEN
from derive.optimizers.spec import OptimizerMistake, OptimizerSpec, Option, StateSlot

alpha = symbol("opt_alpha", "alpha")

SQUARE_AVG = StateSlot(
    "square_avg", "square_avg", "square_avg_steps", "sqavg", "v", kind="nonnegative",
    words=("Running average of squared gradients", "梯度平方的滑动平均"),
    b_words=("Running average of b's squared gradients", "b 的梯度平方滑动平均"),
    doc="RMSprop's running average v_t of w's squared gradients after each step",
    header="v_t", claimable=("w",))
GRAD_AVG = StateSlot(
    "grad_avg", "grad_avg", "grad_avg_steps", "gavg", "a",
    used=lambda opt: bool(opt.centered), used_text="with centered = true",
    words=("Running average of gradients (centered)", "梯度的滑动平均(centered)"),
    b_words=("Running average of b's gradients", "b 的梯度滑动平均"),
    doc="centered RMSprop's running average a_t of w's gradients after each step",
    header="a_t", claimable=("w",))


class Shape(NamedTuple):
    decay: bool
    maximize: bool
    centered: bool
    momentum: bool
    resumed: bool
    """Resumed from a saved state: v_0 (a_0, u_0) in place of zeros."""


def shape(opt, saved: frozenset) -> Shape:
    return Shape(opt.weight_decay != 0, bool(opt.maximize), bool(opt.centered),
                 opt.momentum != 0, "step" in saved)


def _grad(s: Shape, c: Chain) -> sp.Expr:
    return used_gradient(c, s.maximize, s.decay)


def _ema(c: Chain, slot, value) -> sp.Expr:
    return plus(times(alpha, c.state(slot)[t - 1]), times(plus(1, -alpha), value))


def denominator(s: Shape, c: Chain, inside: bool = False, centered: bool | None = None,
                root: bool = True):
    """√(v_t − a_t²) + ε centered, else √v_t + ε (mistakes: `inside` √(… + ε), not `root`
    v_t + ε)."""
    centered = s.centered if centered is None else centered
    v = c.state(SQUARE_AVG)[t]
    radicand = plus(v, -sp.Pow(c.state(GRAD_AVG)[t], 2)) if centered else v
    if not root:
        return plus(radicand, eps)
    return sp.sqrt(plus(radicand, eps)) if inside else plus(sp.sqrt(radicand), eps)


def _step(s: Shape, c: Chain, denom: sp.Expr) -> tuple[list[tuple], sp.Expr]:
    """(u_t's definition when momentum > 0, the parameter's update)."""
    if s.momentum:
        u = c.state(BUFFER)
        return ([plus(times(mu, u[t - 1]), over(_grad(s, c), denom))], update(c, u[t]))
    return [], update(c, over(_grad(s, c), denom))


def nodes(s: Shape, c: Chain) -> list[Node]:
    out: list[Node] = decayed_nodes(c, s.maximize, s.decay)

    def start(slot):
        return saved_or_zero(c, slot, s.resumed)
    grad = _grad(s, c)
    out.append(Node(c.name(SQUARE_AVG.node), c.state(SQUARE_AVG),
                    _ema(c, SQUARE_AVG, sp.Pow(grad, 2)), STEPS, start=start(SQUARE_AVG)))
    if s.centered:
        out.append(Node(c.name(GRAD_AVG.node), c.state(GRAD_AVG), _ema(c, GRAD_AVG, grad),
                        STEPS, start=start(GRAD_AVG)))
    buffer, param = _step(s, c, denominator(s, c))
    if buffer:
        out.append(Node(c.name(BUFFER.node), c.state(BUFFER), buffer[0], STEPS,
                        start=start(BUFFER)))
    out.append(Node(c.param_node, c.param, param, STEPS, start=c.start))
    return out


def _replacing(s: Shape, c: Chain, denom) -> dict:
    buffer, param = _step(s, c, denom)
    return {c.name(BUFFER.node): buffer[0]} if buffer else {c.param_node: param}


def _undefined(opt, state, exc):
    if isinstance(exc, Undefined):
        if state:
            return ("given.state", "makes v_t − a_t² negative at some step (a saved "
                    "square_avg below the saved grad_avg squared, or α > 1): the square root "
                    "of a negative number, where torch gives nan",
                    "a saved state with square_avg ≥ grad_avg² (as a run from zeros keeps it)")
        return ("given.optimizer.alpha", "makes the average of squares negative at some step "
                "(α > 1 weighs the new square by 1 − α < 0): the square root of a negative "
                "number, where torch gives nan", "give 0 ≤ alpha ≤ 1 (torch's default is 0.99)")
    return ("given.optimizer.eps", "is 0, and " + _zero_denominator(opt),
            "give eps > 0 (torch's default is 1e-8)" + (
                " or alpha > 0" if opt.centered and opt.alpha == 0 else
                " or alpha < 1" if opt.alpha == 1 else ""))


def _zero_denominator(opt) -> str:
    """Why the denominator is 0 at some step (with eps = 0), and what torch then gives: g̃_t/0
    is ±inf where the gradient used, g̃_t, is not 0, and nan where it is 0 too."""
    inf = "the update divides g̃_t by 0: torch gives ±inf (nan where g̃_t = 0)"
    if opt.centered and opt.alpha == 0:
        return f"centered with α = 0 makes v_t − a_t² = g̃_t² − g̃_t² = 0: {inf}"
    if opt.alpha == 1:
        return f"α = 1 keeps v_t (and a_t) at their start, here a denominator of 0: {inf}"
    if opt.centered:
        return ("at some step √(v_t − a_t²) + ε is 0 (every gradient so far 0, or a saved "
                f"square_avg of grad_avg²): {inf}")
    if opt.alpha < 1:  # v_t ≥ (1 − α)·g̃_t²: v_t = 0 only where g̃_t = 0 too
        return ("at some step √v_t + ε is 0 (every gradient so far 0, and a saved square_avg "
                "of 0): the update divides 0 by 0, where torch gives nan")
    return f"at some step √v_t + ε is 0: {inf}"


MISTAKES = (
    OptimizerMistake(
        "eps_inside_sqrt", *EPS_INSIDE_SQRT,
        lambda s, cs: _replacing(s, cs[0], denominator(s, cs[0], inside=True)),
        example=({**ONE, "optimizer": {"name": "rmsprop", "alpha": "0.75", "eps": "5"}},
                 {"w_steps": ["1.133333"]})),
    # v_1 = 0.25·16 = 4: w_1 = 1 + 0.1·4/4 = 1.1 (right: 1 + 0.1·4/√4 = 1.2)
    OptimizerMistake(
        "sqrt_forgotten", *SQRT_FORGOTTEN,
        lambda s, cs: {k: v for c in cs for k, v in
                       _replacing(s, c, denominator(s, c, root=False)).items()},
        spreads=True,
        example=({**ONE, "optimizer": {"name": "rmsprop", "alpha": "0.75", "eps": "0"}},
                 {"w_steps": ["1.1"]})),
    OptimizerMistake(
        "centered_as_uncentered",
        said(r"centered RMSprop computed as the plain one: $\sqrt{v_t} + \varepsilon$ instead of "
             r"$\sqrt{v_t - a_t^2} + \varepsilon$ (the running average of the gradients never "
             r"subtracted)"),
        said(r"把 centered RMSprop 算成了普通 RMSprop:用 $\sqrt{v_t} + \varepsilon$ 而不是 "
             r"$\sqrt{v_t - a_t^2} + \varepsilon$(没有减去梯度滑动平均的平方)"),
        lambda s, cs: (_replacing(s, cs[0], denominator(s, cs[0], centered=False))
                       if s.centered else None),
        example=({**ONE, "optimizer": {"name": "rmsprop", "alpha": "0.75", "centered": "true",
                                       "eps": "0"}}, {"w_steps": ["1.200"]})),
)


SPEC = OptimizerSpec(
    name="rmsprop",
    title="torch.optim.RMSprop: running average of squares, centered, momentum",
    options=(
        Option("alpha", sp.Rational(99, 100), "nonnegative", "α, the averages' decay"),
        Option("eps", sp.Rational(1, 10**8), "nonnegative", "ε, added to the root"),
        Option("weight_decay", sp.S.Zero, "nonnegative", "λ, added to the gradient"),
        Option("momentum", sp.S.Zero, "nonnegative", "μ"),
        Option("centered", False, "bool", "divide by √(v_t − a_t²) + ε"),
        Option("maximize", False, "bool", "ascend: −g_t"),
    ),
    slots=(SQUARE_AVG, GRAD_AVG, BUFFER),
    shape=shape,
    nodes=nodes,
    symbols={"opt_alpha": lambda o: o.alpha, "opt_eps": lambda o: o.eps,
             "opt_mu": lambda o: o.momentum, "opt_lambda": lambda o: o.weight_decay},
    torch_class="RMSprop",
    mistakes=MISTAKES,
    undefined=_undefined,
)
