"""torch.optim.Adam and AdamW (`_single_tensor_adam`, torch 2.13), one coordinate:

    g ← −g if maximize;  t ← t + 1;  θ ← θ·(1 − η·λ) (AdamW)  or  g ← g + λ·θ (Adam);
    m ← β₁·m + (1 − β₁)·g;  v ← β₂·v + (1 − β₂)·g²;  (amsgrad: v_max ← max(v_max, v));
    θ ← θ − (η/(1 − β₁ᵗ))·m / (√v/√(1 − β₂ᵗ) + ε)
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import NamedTuple

import sympy as sp

from derive.graph import Node, symbol
from derive.graph.words import said
from derive.optimizers.chain import (
    STEPS,
    Chain,
    decayed_nodes,
    eps,
    fresh_first,
    lam,
    plus,
    step_count,
    t,
    times,
    update,
    used_gradient,
)
from derive.optimizers.common import ONE, WEIGHT_DECAY_FORGOTTEN
from derive.optimizers.spec import OptimizerMistake, OptimizerSpec, Option, StateSlot

R = sp.Rational
beta1, beta2 = symbol("opt_beta1", "beta", sub="1"), symbol("opt_beta2", "beta", sub="2")

M = StateSlot("m", "exp_avg", "m_steps", "m", "m", words=("First moment", "一阶矩"),
              b_words=("First moment of b", "b 的一阶矩"),
              doc="Adam's first moment of w after each step", header="m_t", claimable=("w",))
V = StateSlot("v", "exp_avg_sq", "v_steps", "v", "v", kind="nonnegative",
              words=("Second moment", "二阶矩"), b_words=("Second moment of b", "b 的二阶矩"),
              doc="Adam's second moment of w after each step", header="v_t", claimable=("w",))
V_MAX = StateSlot("v_max", "max_exp_avg_sq", "v_max", "vmax", "v", sub=r"\max",
                  kind="nonnegative", used=lambda opt: bool(opt.amsgrad),
                  used_text="with amsgrad",
                  words=("Running maximum of the second moment (amsgrad)",
                         "二阶矩的历史最大值(amsgrad)"),
                  b_words=("Running maximum of b's second moment", "b 的二阶矩历史最大值"))


class Shape(NamedTuple):
    decay: bool
    maximize: bool
    amsgrad: bool
    resumed: bool
    """Resumed from a saved state: m_0, v_0 (v_{max,0}) and step count t_0."""
    decoupled: bool
    """AdamW's decay θ·(1 − η·λ) (AdamW, or Adam with decoupled_weight_decay)."""


def shape(opt, saved: frozenset, decoupled: bool | None = None) -> Shape:
    """Adam's shape; AdamW's always `decoupled` (it has no decoupled_weight_decay option)."""
    if decoupled is None:
        decoupled = bool(opt.decoupled_weight_decay)
    return Shape(opt.weight_decay != 0, bool(opt.maximize), bool(opt.amsgrad),
                 "step" in saved, decoupled)


def moments(c: Chain, grad: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    return (plus(times(beta1, c.state(M)[t - 1]), times(plus(1, -beta1), grad)),
            plus(times(beta2, c.state(V)[t - 1]), times(plus(1, -beta2), sp.Pow(grad, 2))))


def bias_corrected(s: Shape, c: Chain, count: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """m̂_t = m_t/(1 − β₁^count), v̂_t = v_t (or v_{max,t})/(1 − β₂^count)."""
    second = c.state(V_MAX)[t] if s.amsgrad else c.state(V)[t]
    return (c.state(M)[t] / plus(1, -beta1 ** count), second / plus(1, -beta2 ** count))


def _hats(c: Chain):
    return c.family("mhat", "m", accent="hat"), c.family("vhat", "v", accent="hat")


def direction(c: Chain) -> sp.Expr:
    """m̂_t / (√v̂_t + ε)."""
    m_hat, v_hat = _hats(c)
    return times(m_hat[t], sp.Pow(plus(sp.sqrt(v_hat[t]), eps), -1, evaluate=False))


def _grad(s: Shape, c: Chain) -> sp.Expr:
    return used_gradient(c, s.maximize, s.decay and not s.decoupled)


def nodes(s: Shape, c: Chain) -> list[Node]:
    out: list[Node] = decayed_nodes(c, s.maximize, s.decay and not s.decoupled)
    m_def, v_def = moments(c, _grad(s, c))
    start = (lambda slot: c.saved(slot)) if s.resumed else (lambda slot: sp.S.Zero)
    out += [Node(c.name(M.node), c.state(M), m_def, STEPS, start=start(M)),
            Node(c.name(V.node), c.state(V), v_def, STEPS, start=start(V))]
    if s.amsgrad:
        out.append(Node(c.name(V_MAX.node), c.state(V_MAX),
                        sp.Max(c.state(V_MAX)[t - 1], c.state(V)[t]), STEPS,
                        start=start(V_MAX)))
    m_hat, v_hat = bias_corrected(s, c, step_count(s.resumed))
    mh, vh = _hats(c)
    out += [Node(c.name("m_hat"), mh, m_hat, STEPS), Node(c.name("v_hat"), vh, v_hat, STEPS),
            Node(c.param_node, c.param, update(c, direction(c), shrink=s.decoupled and s.decay),
                 STEPS, start=c.start)]
    return out


# ---------------------------------------------------------------------------- mistakes

def _lost_moments(s: Shape, cs: list[Chain]) -> dict:
    """m, v (and v_max) of w and b as a fresh optimizer has them at the resumed step: zero
    before it, so m_1 = (1 − β₁)·g̃_1, v_1 = (1 − β₂)·g̃_1², v_{max,1} = v_1."""
    out = {}
    for c in cs:
        grad = _grad(s, c)
        m_def, v_def = moments(c, grad)
        out[c.name(M.node)] = fresh_first(times(plus(1, -beta1), grad), m_def)
        out[c.name(V.node)] = fresh_first(times(plus(1, -beta2), sp.Pow(grad, 2)), v_def)
        if s.amsgrad:
            v_max = c.state(V_MAX)
            out[c.name(V_MAX.node)] = fresh_first(c.state(V)[t],
                                                  sp.Max(v_max[t - 1], c.state(V)[t]))
    return out


def _counted_as(s: Shape, cs: list[Chain], count: sp.Expr) -> dict:
    """m̂ and v̂ of w and b with bias correction at step count `count`."""
    out = {}
    for c in cs:
        out[c.name("m_hat")], out[c.name("v_hat")] = bias_corrected(s, c, count)
    return out


def _bias_forgotten(s: Shape, cs):
    w = cs[0]
    return {"m_hat": w.state(M)[t], "v_hat": w.state(V_MAX if s.amsgrad else V)[t]}


def _as_l2(s: Shape, cs):
    if not (s.decoupled and s.decay):
        return None
    w = cs[0]
    m_def, v_def = moments(w, plus(_grad(s, w), times(lam, w.param[t - 1])))
    return {"m_steps": m_def, "v_steps": v_def, "w_steps": update(w, direction(w))}


_RESUMED = ({**ONE, "optimizer": {"name": "adam"}, "state": {"step": "2", "m": "-1", "v": "4"}})
"""Resumed at step 2 with m_0 = −1, v_0 = 4: m_1 = −1.3; lost, m_1 = 0.1·(−4) = −0.4; the
right w_1 is 1.013111 (bias correction at step 3)."""

MISTAKES = (
    OptimizerMistake(
        "bias_correction_forgotten",
        said(r"Adam without bias correction: $m_t/(\sqrt{v_t} + \varepsilon)$ in place of "
             r"$\hat{m}_t/(\sqrt{\hat{v}_t} + \varepsilon)$"),
        said(r"Adam 忘了偏差修正: 用 $m_t/(\sqrt{v_t} + \varepsilon)$ 代替 "
             r"$\hat{m}_t/(\sqrt{\hat{v}_t} + \varepsilon)$"), _bias_forgotten,
        example=({**ONE, "optimizer": {"name": "adam"}}, {"w_steps": ["1.316228"]})),
    OptimizerMistake(
        "adamw_decay_as_l2",
        said(r"AdamW's weight decay added to the gradient (Adam's L2) instead of decoupled "
             r"$w \cdot (1 - \eta \cdot \lambda)$"),
        said(r"把 AdamW 的权重衰减加进了梯度(Adam 的 L2),而不是解耦的 "
             r"$w \cdot (1 - \eta \cdot \lambda)$"),
        _as_l2,
        example=({**ONE, "optimizer": {"name": "adamw", "weight_decay": "0.5"}},
                 {"w_steps": ["1.100"]})),
    OptimizerMistake(
        "weight_decay_forgotten", *WEIGHT_DECAY_FORGOTTEN,
        lambda s, cs: ({"w_steps": update(cs[0], direction(cs[0]))}
                       if s.decoupled and s.decay else None)),
    OptimizerMistake(
        "state_lost_on_resume",
        said(r"the optimizer state lost on resume (only the parameters loaded, a fresh Adam): "
             r"$m$, $v$ start from 0 and the step count from 0, so the bias correction uses $t$ "
             r"instead of $t_0 + t$"),
        said(r"恢复训练时丢失了优化器状态(只加载了参数,新建的 Adam): $m$、$v$ 从 0 开始,步数也"
             r"从 0 开始,偏差修正用 $t$ 而不是 $t_0 + t$"),
        lambda s, cs: ({**_lost_moments(s, cs), **_counted_as(s, cs, t)} if s.resumed
                       else None),
        target="m_steps", spreads=True, example=(_RESUMED, {"m_steps": ["-0.4"]})),
    OptimizerMistake(
        "moments_reset",
        said(r"Adam's moments $m$, $v$ reset to 0 on resume while the step count $t_0$ is kept"),
        said(r"恢复训练时 Adam 的矩 $m$、$v$ 被重置为 0,而步数 $t_0$ 保留"),
        lambda s, cs: _lost_moments(s, cs) if s.resumed else None,
        target="m_steps", spreads=True,
        example=(_RESUMED, {"m_steps": ["-0.4"], "w_steps": ["1.063881"]})),
    OptimizerMistake(
        "step_count_reset",
        said(r"Adam's step count restarted at 0 on resume ($m$, $v$ kept): the bias correction "
             r"uses $1 - \beta^t$ instead of $1 - \beta^{t_0 + t}$"),
        said(r"恢复训练时 Adam 的步数从 0 重新开始($m$、$v$ 保留): 偏差修正用 $1 - \beta^t$ "
             r"而不是 $1 - \beta^{t_0 + t}$"),
        lambda s, cs: _counted_as(s, cs, t) if s.resumed else None,
        spreads=True, example=(_RESUMED, {"w_steps": ["1.020524"]})),
    OptimizerMistake(
        "resumed_from_wrong_step",
        said(r"resumed from the wrong step: the bias correction counts the saved step $t_0$ as "
             r"the resumed first step, $1 - \beta^{t_0 + t - 1}$ instead of "
             r"$1 - \beta^{t_0 + t}$"),
        said(r"从错误的步数恢复: 偏差修正把保存的第 $t_0$ 步当作恢复后的第一步,用 "
             r"$1 - \beta^{t_0 + t - 1}$ 而不是 $1 - \beta^{t_0 + t}$"),
        lambda s, cs: _counted_as(s, cs, step_count(True, -1)) if s.resumed else None,
        spreads=True, example=(_RESUMED, {"w_steps": ["1.015273"]})),
)


def _undefined(opt, state, exc):
    return ("given.optimizer.eps",
            "is 0, and at some step v̂_t = 0 (every gradient so far 0, or a saved v of 0): the "
            "update m̂_t/(√v̂_t + ε) divides by 0, where torch gives nan (m̂_t = 0) or ±inf",
            "give eps > 0 (torch's default is 1e-8)")


def _describe(opt) -> str:
    return f"{opt.name}{' with amsgrad' if opt.amsgrad else ''}"


_OPTIONS = (
    Option("betas", (R(9, 10), R(999, 1000)), "betas", "(β₁, β₂)"),
    Option("eps", R(1, 10**8), "nonnegative", "ε, added to √v̂_t"),
    Option("weight_decay", sp.S.Zero, "nonnegative", "λ"),
    Option("maximize", False, "bool", "ascend: −g_t"),
    Option("amsgrad", False, "bool", "divide by the running maximum of v̂"),
)
_WORDS = {
    "m_hat": ("Bias-corrected first moment", "偏差修正后的一阶矩"),
    "v_hat": ("Bias-corrected second moment", "偏差修正后的二阶矩"),
    "b_m_hat": ("Bias-corrected first moment of b", "b 的偏差修正一阶矩"),
    "b_v_hat": ("Bias-corrected second moment of b", "b 的偏差修正二阶矩"),
}

ADAM = OptimizerSpec(
    name="adam",
    title="torch.optim.Adam: bias-corrected moments, L2 weight decay, amsgrad, maximize",
    options=(*_OPTIONS, Option("decoupled_weight_decay", False, "bool",
                               "AdamW's update with Adam's defaults")),
    slots=(M, V, V_MAX),
    shape=shape,
    nodes=nodes,
    symbols={"opt_beta1": lambda o: o.betas[0], "opt_beta2": lambda o: o.betas[1],
             "opt_eps": lambda o: o.eps, "opt_lambda": lambda o: o.weight_decay},
    torch_class="Adam",
    mistakes=MISTAKES,
    words=_WORDS,
    undefined=_undefined,
    describe=_describe,
)

ADAMW = replace(
    ADAM, name="adamw",
    title="torch.optim.AdamW: Adam with decoupled weight decay θ·(1 − η·λ)",
    options=tuple(replace(o, default=R(1, 100)) if o.name == "weight_decay" else o
                  for o in _OPTIONS),
    torch_class="AdamW",
    shape=partial(shape, decoupled=True),
    refused={"decoupled_weight_decay":
             "AdamW always decouples its weight decay (torch.optim.AdamW takes no such "
             'argument); for Adam\'s L2 decay use name = "adam"'})
