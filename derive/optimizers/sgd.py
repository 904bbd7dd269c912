"""torch.optim.SGD (`_single_tensor_sgd`, torch 2.13), one coordinate:

    g ← −g if maximize;  g ← g + λ·θ;  u ← g (first step) else μ·u + (1 − τ)·g;
    g ← g + μ·u if nesterov else u;  θ ← θ − η·g
"""

from __future__ import annotations

from typing import NamedTuple

import sympy as sp

from derive.graph import Node, symbol
from derive.graph.words import said
from derive.optimizers.chain import (
    STEPS,
    Chain,
    decayed_nodes,
    fresh_first,
    lam,
    mu,
    plus,
    t,
    times,
    update,
    used_gradient,
)
from derive.optimizers.common import BUFFER, ONE, WEIGHT_DECAY_FORGOTTEN
from derive.optimizers.spec import OptimizerMistake, OptimizerSpec, Option

tau = symbol("opt_tau", "tau")


class Shape(NamedTuple):
    momentum: bool
    dampening: bool
    nesterov: bool
    decay: bool
    maximize: bool
    saved_buffer: bool
    """Resumed with its buffers: every step is μ·u_{t−1} + (1 − τ)·g̃_t."""


def shape(opt, saved: frozenset) -> Shape:
    momentum = opt.momentum != 0
    return Shape(momentum, momentum and opt.dampening != 0, momentum and bool(opt.nesterov),
                 opt.weight_decay != 0, bool(opt.maximize), momentum and "buffer" in saved)


def buffer_rule(s: Shape, c: Chain, grad: sp.Expr, fresh: bool | None = None) -> sp.Expr:
    """u_t = μ·u_{t−1} + (1 − τ)·g̃_t, the first buffer the gradient itself (u_0 = 0 gives
    that when τ = 0; with dampening the first step is a case of its own). Resumed with a saved
    buffer u_0 (not `fresh`), every step is the later rule (torch's momentum_buffer is not
    None); `fresh` forces torch's first-step rule at t = 1 (a lost buffer)."""
    fresh = not s.saved_buffer if fresh is None else fresh
    if not s.dampening:
        later = plus(times(mu, c.state(BUFFER)[t - 1]), grad)
        return fresh_first(grad, later) if fresh and s.saved_buffer else later
    later = plus(times(mu, c.state(BUFFER)[t - 1]), times(plus(1, -tau), grad))
    return fresh_first(grad, later) if fresh else later


def average_rule(s: Shape, c: Chain, grad: sp.Expr, from_zero: bool) -> sp.Expr:
    """A mistake: the buffer as an average, u_t = μ·u_{t−1} + (1 − μ)·g̃_t (torch's
    dampening = momentum: its first buffer is still g̃_1), or `from_zero` every step so,
    u_0 = 0 (an exponential average, as Adam's m_t)."""
    later = plus(times(mu, c.state(BUFFER)[t - 1]), times(plus(1, -mu), grad))
    return later if from_zero or s.saved_buffer else fresh_first(grad, later)


def nodes(s: Shape, c: Chain) -> list[Node]:
    out: list[Node] = decayed_nodes(c, s.maximize, s.decay)
    grad = used_gradient(c, s.maximize, s.decay)
    direction = grad
    if s.momentum:
        u = c.state(BUFFER)
        out.append(Node(c.name(BUFFER.node), u, buffer_rule(s, c, grad), STEPS,
                        start=c.saved(BUFFER) if s.saved_buffer else sp.S.Zero))
        direction = u[t]
        if s.nesterov:
            d = c.family("d", "d")
            out.append(Node(c.name("nesterov_direction"), d, plus(grad, times(mu, u[t])), STEPS))
            direction = d[t]
    out.append(Node(c.param_node, c.param, update(c, direction), STEPS, start=c.start))
    return out


def _check(opt) -> list[tuple[str, str, str]]:
    if opt.nesterov and (opt.momentum == 0 or opt.dampening != 0):
        return [("nesterov", "needs momentum > 0 and dampening = 0",
                 "as torch.optim.SGD requires; set momentum, or nesterov = false")]
    return []


def _describe(opt) -> str:
    return "SGD with momentum" if opt.momentum != 0 else "SGD without momentum"


def _used(s: Shape, c: Chain) -> sp.Expr:
    return used_gradient(c, s.maximize, s.decay)


_TWO = {**ONE, "steps": "2", "optimizer": {"name": "sgd", "momentum": "0.5"}}
"""Two steps with μ = 0.5 from the lesson's record: torch gives w = 1.4, 1.84 and
u = −4, −4.4 (u_2 = 0.5·(−4) + (2.8 − 4)·2)."""

MISTAKES = (
    OptimizerMistake(
        "weight_decay_forgotten", *WEIGHT_DECAY_FORGOTTEN,
        lambda s, cs: ({"decayed_gradient": -cs[0].grad[t] if s.maximize else cs[0].grad[t]}
                       if s.decay else None),
        example=({**ONE, "optimizer": {"name": "sgd", "weight_decay": "0.5"}},
                 {"w_steps": ["1.40"]})),
    OptimizerMistake(
        "maximize_negates_decay",
        said(r"maximize negating the decay term too: $-(g_t + \lambda \cdot w_{t-1})$; torch "
             r"negates only $g_t$"),
        said(r"maximize 把衰减项也取反了: $-(g_t + \lambda \cdot w_{t-1})$;torch 只对 $g_t$ 取反"),
        lambda s, cs: ({"decayed_gradient": -plus(cs[0].grad[t], times(lam, cs[0].param[t - 1]))}
                       if s.decay and s.maximize else None),
        example=({**ONE, "optimizer": {"name": "sgd", "weight_decay": "0.5",
                                       "maximize": "true"}}, {"w_steps": ["0.65"]})),
    OptimizerMistake(
        "buffer_first_damped",
        said(r"the first momentum buffer damped: $u_1 = (1 - \tau) \cdot g_1$; torch starts with "
             r"$u_1 = g_1$"),
        said(r"第一步的动量缓冲也乘了 $(1 - \tau)$: $u_1 = (1 - \tau) \cdot g_1$;torch 第一步 "
             r"$u_1 = g_1$"),
        lambda s, cs: ({"buffer_steps": plus(times(mu, cs[0].state(BUFFER)[t - 1]),
                                             times(plus(1, -tau), _used(s, cs[0])))}
                       if s.dampening else None),
        target="buffer_steps",
        example=({**ONE, "optimizer": {"name": "sgd", "momentum": "0.9", "dampening": "0.5"}},
                 {"buffer_steps": ["-2"]})),
    OptimizerMistake(
        "nesterov_as_momentum",
        said(r"Nesterov stepping along the buffer $u_t$ instead of $g_t + \mu \cdot u_t$"),
        said(r"Nesterov 沿缓冲 $u_t$ 更新,而不是 $g_t + \mu \cdot u_t$"),
        lambda s, cs: {"nesterov_direction": cs[0].state(BUFFER)[t]} if s.nesterov else None,
        example=({**ONE, "optimizer": {"name": "sgd", "momentum": "0.5", "nesterov": "true"}},
                 {"w_steps": ["1.4"]})),
    # resumed with u_0 = −2: u_1 = 0.5·(−2) + (−4) = −5; the buffer lost: u_1 = g_1 = −4
    OptimizerMistake(
        "saving_only_w",
        said(r"only $w$ saved (the parameters, not the optimizer): the momentum buffers of $w$ "
             r"and $b$ lost, so the resumed first step starts them anew, $u_1 = \tilde{g}_1$, "
             r"instead of $\mu \cdot u_0 + (1 - \tau) \cdot \tilde{g}_1$ from the saved $u_0$"),
        said(r"只保存了 $w$(参数,没有保存优化器状态): $w$ 和 $b$ 的动量缓冲丢失,恢复后的第一步"
             r"重新开始 $u_1 = \tilde{g}_1$,而不是由保存的 $u_0$ 得到 "
             r"$\mu \cdot u_0 + (1 - \tau) \cdot \tilde{g}_1$"),
        lambda s, cs: ({c.name(BUFFER.node): buffer_rule(s, c, _used(s, c), fresh=True)
                        for c in cs} if s.saved_buffer else None),
        target="buffer_steps", spreads=True,
        example=({**ONE, "optimizer": {"name": "sgd", "momentum": "0.5"},
                  "state": {"buffer": "-2"}}, {"buffer_steps": ["-4"]})),
    OptimizerMistake(
        "momentum_forgotten",
        said(r"momentum forgotten: plain SGD, $\theta_t = \theta_{t-1} - \eta \cdot \tilde{g}_t$, "
             r"instead of a step along the momentum buffer "
             r"$u_t = \mu \cdot u_{t-1} + (1 - \tau) \cdot \tilde{g}_t$"),
        said(r"忘了动量:按普通 SGD $\theta_t = \theta_{t-1} - \eta \cdot \tilde{g}_t$ 更新,而不是沿"
             r"动量缓冲 $u_t = \mu \cdot u_{t-1} + (1 - \tau) \cdot \tilde{g}_t$ 更新"),
        lambda s, cs: ({c.param_node: update(c, _used(s, c)) for c in cs}
                       if s.momentum else None),
        spreads=True, example=(_TWO, {"w_steps": ["1.4", "1.64"]})),
    # torch with dampening = 0.5 = μ: u_2 = 0.5·(−4) + 0.5·(−2.4) = −3.2, w_2 = 1.72
    OptimizerMistake(
        "buffer_as_average",
        said(r"the momentum buffer written as an average, "
             r"$u_t = \mu \cdot u_{t-1} + (1 - \mu) \cdot \tilde{g}_t$ (torch's dampening = "
             r"momentum), instead of $u_t = \mu \cdot u_{t-1} + (1 - \tau) \cdot \tilde{g}_t$"),
        said(r"把动量缓冲写成了平均: $u_t = \mu \cdot u_{t-1} + (1 - \mu) \cdot \tilde{g}_t$"
             r"(torch 的 dampening = momentum),而不是 "
             r"$u_t = \mu \cdot u_{t-1} + (1 - \tau) \cdot \tilde{g}_t$"),
        lambda s, cs: ({c.name(BUFFER.node): average_rule(s, c, _used(s, c), False)
                        for c in cs} if s.momentum else None),
        target="buffer_steps", spreads=True,
        example=(_TWO, {"buffer_steps": ["-4", "-3.2"], "w_steps": ["1.4", "1.72"]})),
    # u_1 = 0.5·(−4) = −2, w_1 = 1.2; u_2 = 0.5·(−2) + 0.5·(2.4 − 4)·2 = −2.6, w_2 = 1.46
    OptimizerMistake(
        "buffer_as_average_from_zero",
        said(r"the momentum buffer written as an average from $u_0 = 0$ at every step, "
             r"$u_t = \mu \cdot u_{t-1} + (1 - \mu) \cdot \tilde{g}_t$ with "
             r"$u_1 = (1 - \mu) \cdot \tilde{g}_1$ (as Adam's $m_t$), instead of torch's "
             r"$u_1 = \tilde{g}_1$, $u_t = \mu \cdot u_{t-1} + (1 - \tau) \cdot \tilde{g}_t$"),
        said(r"把动量缓冲写成了从 $u_0 = 0$ 开始的平均: "
             r"$u_t = \mu \cdot u_{t-1} + (1 - \mu) \cdot \tilde{g}_t$,"
             r"$u_1 = (1 - \mu) \cdot \tilde{g}_1$"
             r"(像 Adam 的 $m_t$),而不是 torch 的 $u_1 = \tilde{g}_1$、"
             r"$u_t = \mu \cdot u_{t-1} + (1 - \tau) \cdot \tilde{g}_t$"),
        lambda s, cs: ({c.name(BUFFER.node): average_rule(s, c, _used(s, c), True)
                        for c in cs} if s.momentum and not s.saved_buffer else None),
        target="buffer_steps", spreads=True,
        example=(_TWO, {"buffer_steps": ["-2", "-2.6"], "w_steps": ["1.2", "1.46"]})),
    # with b = 0, restarted at step 2: g_2 = (3 − 4)·(2, 1), u_2 = (−2, −1), w_2 = 1.6,
    # b_2 = 0.3, L_2 = (3.5 − 4)²/2 (right: u_2 = (−4, −2), w_2 = 1.8, b_2 = 0.4, L_2 = 0)
    OptimizerMistake(
        "buffer_reset_mid_run",
        said(r"the momentum buffer restarted in the middle of the run (a resumed run written as "
             r"one trajectory with the buffer lost at the resume step $k$): "
             r"$u_k = \tilde{g}_k$ instead of $\mu \cdot u_{k-1} + (1 - \tau) \cdot \tilde{g}_k$"),
        said(r"动量缓冲在训练中途重新开始(把恢复训练写成一条轨迹,恢复的第 $k$ 步丢了缓冲):"
             r"$u_k = \tilde{g}_k$,而不是 $\mu \cdot u_{k-1} + (1 - \tau) \cdot \tilde{g}_k$"),
        lambda s, cs, k: ({c.name(BUFFER.node): sp.Piecewise(
            (_used(s, c), sp.Eq(t, k)), (buffer_rule(s, c, _used(s, c)), True)) for c in cs}
            if s.momentum else None),
        target="buffer_steps", spreads=True, at_step=True,
        example=({**_TWO, "b": "0"}, {"buffer_steps": ["-4", "-2"], "w_steps": ["1.4", "1.6"],
                                     "b_steps": ["0.2", "0.3"],
                                     "loss_steps": ["0.5", "0.125"]})),
)


SPEC = OptimizerSpec(
    name="sgd",
    title="torch.optim.SGD: momentum, dampening, Nesterov, weight decay, maximize",
    options=(
        Option("momentum", sp.S.Zero, "nonnegative", "μ"),
        Option("dampening", sp.S.Zero, "number", "τ (torch does not check it)"),
        Option("weight_decay", sp.S.Zero, "nonnegative", "λ, added to the gradient"),
        Option("nesterov", False, "bool", "step along g̃_t + μ·u_t"),
        Option("maximize", False, "bool", "ascend: −g_t"),
    ),
    slots=(BUFFER,),
    shape=shape,
    nodes=nodes,
    symbols={"opt_mu": lambda o: o.momentum, "opt_tau": lambda o: o.dampening,
             "opt_lambda": lambda o: o.weight_decay},
    torch_class="SGD",
    keeps_step=False,
    mistakes=MISTAKES,
    words={
        "nesterov_direction": ("Nesterov's direction", "Nesterov 方向"),
        "b_nesterov_direction": ("Nesterov's direction for b", "b 的 Nesterov 方向"),
    },
    check=_check,
    describe=_describe,
)
