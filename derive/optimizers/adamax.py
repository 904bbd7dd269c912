"""torch.optim.Adamax (`_single_tensor_adamax`, torch 2.13), one coordinate:

    g ← −g if maximize;  t ← t + 1;  g ← g + λ·θ;
    m ← β₁·m + (1 − β₁)·g (torch's lerp);  u ← max(β₂·u, |g| + ε);
    θ ← θ − (η/(1 − β₁ᵗ))·m/u

from zero state (fresh) or a saved exp_avg, exp_inf and step count. The infinity norm u is not
bias-corrected, and ε is inside the max (added to |g| before the comparison). Every value is
rational: there is no square root.
"""

from __future__ import annotations

from typing import NamedTuple

import sympy as sp

from derive.graph import Node
from derive.graph.words import said
from derive.optimizers.adam import M, beta1, beta2
from derive.optimizers.chain import (
    STEPS,
    Chain,
    decayed_nodes,
    eps,
    eta,
    over,
    plus,
    saved_or_zero,
    step_count,
    t,
    times,
    update,
    used_gradient,
)
from derive.optimizers.common import ONE
from derive.optimizers.spec import OptimizerMistake, OptimizerSpec, Option, StateSlot

R = sp.Rational

EXP_INF = StateSlot(
    "exp_inf", "exp_inf", "exp_inf_steps", "uinf", "u", kind="nonnegative",
    words=("Exponentially weighted infinity norm", "指数加权无穷范数"),
    b_words=("Exponentially weighted infinity norm of b", "b 的指数加权无穷范数"),
    doc="Adamax's exponentially weighted infinity norm u_t of w after each step: "
        "max(β₂·u_{t−1}, |g̃_t| + ε)",
    header="u_t", claimable=("w",))


class Shape(NamedTuple):
    decay: bool
    maximize: bool
    resumed: bool
    """Resumed from a saved state: m_0, u_0 and the step count t_0."""


def shape(opt, saved: frozenset) -> Shape:
    return Shape(opt.weight_decay != 0, bool(opt.maximize), "step" in saved)


def _grad(s: Shape, c: Chain) -> sp.Expr:
    return used_gradient(c, s.maximize, s.decay)


def _norm(s: Shape, c: Chain) -> sp.Expr:
    """u_t = max(β₂·u_{t−1}, |g̃_t| + ε), in torch's order of arguments."""
    return sp.Max(times(beta2, c.state(EXP_INF)[t - 1]),
                  plus(sp.Abs(_grad(s, c), evaluate=False), eps), evaluate=False)


def _update(s: Shape, c: Chain, norm: sp.Expr | None = None) -> sp.Expr:
    """θ_{t−1} − (η/(1 − β₁^t))·m_t/u_t (torch's clr = lr/bias_correction)."""
    norm = c.state(EXP_INF)[t] if norm is None else norm
    rate = over(eta, plus(1, -beta1 ** step_count(s.resumed)))
    return update(c, over(c.state(M)[t], norm), rate)


def nodes(s: Shape, c: Chain) -> list[Node]:
    out: list[Node] = decayed_nodes(c, s.maximize, s.decay)

    def start(slot):
        return saved_or_zero(c, slot, s.resumed)
    out += [Node(c.name(M.node), c.state(M),
                 plus(times(beta1, c.state(M)[t - 1]), times(plus(1, -beta1), _grad(s, c))),
                 STEPS, start=start(M)),
            Node(c.name(EXP_INF.node), c.state(EXP_INF), _norm(s, c), STEPS,
                 start=start(EXP_INF)),
            Node(c.param_node, c.param, _update(s, c), STEPS, start=c.start)]
    return out


def _undefined(opt, state, exc):
    return ("given.optimizer.eps",
            "is 0, and at some step u_t = 0 (every gradient so far 0, and a zero saved "
            "exp_inf): the update m_t/u_t divides by 0, where torch gives nan",
            "give eps > 0 (torch's default is 1e-8)")


MISTAKES = (
    OptimizerMistake(
        "exp_inf_bias_corrected",
        said(r"Adamax's infinity norm bias-corrected as Adam's $v$ is: "
             r"$m_t/(u_t/(1 - \beta_2^t))$ instead of torch's $m_t/u_t$ (only the first moment "
             r"is corrected, by $\eta/(1 - \beta_1^t)$)"),
        said(r"把 Adamax 的无穷范数也做了偏差修正(像 Adam 的 $v$ 那样): 用 "
             r"$m_t/(u_t/(1 - \beta_2^t))$,而 torch 是 $m_t/u_t$(只有一阶矩由 "
             r"$\eta/(1 - \beta_1^t)$ 修正)"),
        lambda s, cs: {cs[0].param_node: _update(
            s, cs[0], over(cs[0].state(EXP_INF)[t],
                           plus(1, -beta2 ** step_count(s.resumed))))},
        example=({**ONE, "optimizer": {"name": "adamax"}}, {"w_steps": ["1.000100"]})),
)


SPEC = OptimizerSpec(
    name="adamax",
    title="torch.optim.Adamax: first moment and an exponentially weighted infinity norm",
    options=(
        Option("betas", (R(9, 10), R(999, 1000)), "betas", "(β₁, β₂)"),
        Option("eps", R(1, 10**8), "nonnegative", "ε, added to |g̃_t| inside the max"),
        Option("weight_decay", sp.S.Zero, "nonnegative", "λ, added to the gradient"),
        Option("maximize", False, "bool", "ascend: −g_t"),
    ),
    slots=(M, EXP_INF),
    shape=shape,
    nodes=nodes,
    symbols={"opt_beta1": lambda o: o.betas[0], "opt_beta2": lambda o: o.betas[1],
             "opt_eps": lambda o: o.eps, "opt_lambda": lambda o: o.weight_decay},
    torch_class="Adamax",
    mistakes=MISTAKES,
    undefined=_undefined,
)
