"""torch.optim.Adagrad (`_single_tensor_adagrad`, torch 2.13), one coordinate:

    t ← t + 1;  g ← −g if maximize;  g ← g + λ·θ;  η_t = η/(1 + (t − 1)·δ);
    s ← s + g²;  θ ← θ − η_t·g/(√s + ε)

with s_0 = initial_accumulator_value (a fresh optimizer) or the saved `sum`.
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
    eta,
    fresh_first,
    over,
    plus,
    step_count,
    t,
    times,
    update,
    used_gradient,
)
from derive.optimizers.common import EPS_INSIDE_SQRT, ONE, SQRT_FORGOTTEN
from derive.optimizers.spec import OptimizerMistake, OptimizerSpec, Option, StateSlot

delta = symbol("opt_delta", "delta")
"""lr_decay."""

SUM = StateSlot("sum", "sum", "sum_steps", "s", "s", kind="nonnegative",
                words=("Sum of squared gradients", "梯度平方和"),
                b_words=("Sum of b's squared gradients", "b 的梯度平方和"),
                doc="Adagrad's sum of squared gradients s_t of w after each step "
                    "(s_0 = initial_accumulator_value)",
                header="s_t", claimable=("w",),
                initial=lambda opt: opt.initial_accumulator_value)


class Shape(NamedTuple):
    decay: bool
    maximize: bool
    lr_decay: bool
    started: bool
    """s_0 ≠ 0: a saved sum, or initial_accumulator_value > 0."""
    resumed: bool
    """Resumed from a saved state: the step count t_0 and the sum s_0."""


def shape(opt, saved: frozenset) -> Shape:
    resumed = "step" in saved
    return Shape(opt.weight_decay != 0, bool(opt.maximize), opt.lr_decay != 0,
                 resumed or opt.initial_accumulator_value != 0, resumed)


def rate(s: Shape, shift: int = 0) -> sp.Expr:
    """η/(1 + (count − 1)·δ) at the optimizer's step count (η without lr_decay)."""
    if not s.lr_decay:
        return eta
    return over(eta, plus(1, times(plus(step_count(s.resumed), -1 + shift), delta)))


def _grad(s: Shape, c: Chain) -> sp.Expr:
    return used_gradient(c, s.maximize, s.decay)


def _accumulate(s: Shape, c: Chain) -> sp.Expr:
    return plus(c.state(SUM)[t - 1], sp.Pow(_grad(s, c), 2))


def _direction(s: Shape, c: Chain, inside: bool = False, sqrt: bool = True) -> sp.Expr:
    """g̃_t/(√s_t + ε), or (mistakes) `inside` g̃_t/√(s_t + ε), not `sqrt` g̃_t/(s_t + ε)."""
    total = c.state(SUM)[t]
    root = sp.sqrt(plus(total, eps)) if inside else plus(sp.sqrt(total) if sqrt else total, eps)
    return over(_grad(s, c), root)


def nodes(s: Shape, c: Chain) -> list[Node]:
    out: list[Node] = decayed_nodes(c, s.maximize, s.decay)
    out.append(Node(c.name(SUM.node), c.state(SUM), _accumulate(s, c), STEPS,
                    start=c.saved(SUM) if s.started else sp.S.Zero))
    out.append(Node(c.param_node, c.param, update(c, _direction(s, c), rate(s)), STEPS,
                    start=c.start))
    return out


def _undefined(opt, state, exc):
    if isinstance(exc, Undefined):  # a square root of a negative saved sum cannot happen
        return ("given.optimizer", "makes a square root of a negative number", "")
    return ("given.optimizer.eps",
            "is 0, and at some step s_t = 0 (every gradient so far 0 and a zero "
            "initial_accumulator_value or saved sum): the update g̃_t/(√s_t + ε) divides by 0, "
            "where torch gives nan", "give eps > 0 (torch's default is 1e-10)")


MISTAKES = (
    OptimizerMistake(
        "eps_inside_sqrt", *EPS_INSIDE_SQRT,
        lambda s, cs: {cs[0].param_node: update(cs[0], _direction(s, cs[0], inside=True),
                                                rate(s))},
        example=({**ONE, "optimizer": {"name": "adagrad", "eps": "9"}},
                 {"w_steps": ["1.08"]})),
    # s_1 = 16: w_1 = 1 + 0.1·4/16 = 1.025 (right: 1 + 0.1·4/4 = 1.1)
    OptimizerMistake(
        "sqrt_forgotten", *SQRT_FORGOTTEN,
        lambda s, cs: {c.param_node: update(c, _direction(s, c, sqrt=False), rate(s))
                       for c in cs},
        spreads=True, example=({**ONE, "optimizer": {"name": "adagrad", "eps": "0"}},
                 {"w_steps": ["1.025"]})),
    OptimizerMistake(
        "lr_decay_off_by_one",
        said(r"Adagrad's decayed rate at step $t$ as $\eta/(1 + t \cdot \delta)$ instead of "
             r"torch's $\eta/(1 + (t - 1) \cdot \delta)$: the first step already decayed"),
        said(r"Adagrad 第 $t$ 步的学习率写成了 $\eta/(1 + t \cdot \delta)$,而 torch 是 "
             r"$\eta/(1 + (t - 1) \cdot \delta)$:第一步就衰减了"),
        lambda s, cs: ({cs[0].param_node: update(cs[0], _direction(s, cs[0]), rate(s, 1))}
                       if s.lr_decay else None),
        example=({**ONE, "optimizer": {"name": "adagrad", "lr_decay": "1"}},
                 {"w_steps": ["1.05"]})),
    OptimizerMistake(
        "initial_accumulator_ignored",
        said(r"Adagrad's initial_accumulator_value ignored: the sum of squares started at 0 "
             r"instead of $s_0$"),
        said(r"忽略了 Adagrad 的 initial_accumulator_value:梯度平方和从 0 开始,而不是 $s_0$"),
        lambda s, cs: ({c.name(SUM.node): fresh_first(sp.Pow(_grad(s, c), 2), _accumulate(s, c))
                        for c in cs} if s.started and not s.resumed else None),
        target="sum_steps", spreads=True,
        example=({**ONE, "optimizer": {"name": "adagrad", "initial_accumulator_value": "9"}},
                 {"sum_steps": ["16"]})),
)


SPEC = OptimizerSpec(
    name="adagrad",
    title="torch.optim.Adagrad: accumulated squared gradients, lr_decay, weight decay",
    options=(
        Option("lr_decay", sp.S.Zero, "nonnegative", "δ: step t's rate is η/(1 + (t − 1)·δ)"),
        Option("weight_decay", sp.S.Zero, "nonnegative", "λ, added to the gradient"),
        Option("initial_accumulator_value", sp.S.Zero, "nonnegative", "s_0"),
        Option("eps", sp.Rational(1, 10**10), "nonnegative", "ε, added to √s_t"),
        Option("maximize", False, "bool", "ascend: −g_t"),
    ),
    slots=(SUM,),
    shape=shape,
    nodes=nodes,
    symbols={"opt_delta": lambda o: o.lr_decay, "opt_eps": lambda o: o.eps,
             "opt_lambda": lambda o: o.weight_decay},
    torch_class="Adagrad",
    mistakes=MISTAKES,
    undefined=_undefined,
)
