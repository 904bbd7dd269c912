"""The known mistakes of `optimizer_steps`, each a variant of the configuration's graph: torch's
own details (bias correction, decoupled decay, maximize, dampening, Nesterov) and the mistakes
of a resumed run (the saved state lost, in whole or in part, or the step count off)."""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derive.graph import Variant
from derive.recipes.base import Example, Mistake
from derive.recipes.optimizer_steps.graph import (
    B_NAMES,
    GRAPHED,
    W_NAMES,
    B,
    Chain,
    Config,
    W,
    adam_direction,
    beta1,
    beta2,
    bias_corrected,
    buffer_rule,
    config,
    decayed_gradient,
    g,
    graph_of,
    lam,
    moments,
    mu,
    plus,
    step_count,
    t,
    tau,
    times,
    update,
)


@lru_cache(maxsize=None)
def variants(cfg: Config) -> dict[str, Variant]:
    """The known mistakes that this configuration can make, each a variant of its graph."""
    out: dict[str, Variant] = {}

    def add(name: str, target: str, replace: dict) -> None:
        en, zh = MISTAKE_WORDS[name]
        out[name] = Variant(name, target, replace, en=en, zh=zh)

    grad = W.decayed[t] if decayed_gradient(cfg, W, coupled=not cfg.decoupled) is not None else g[t]
    if cfg.name != "sgd":
        second = W.v_max[t] if cfg.amsgrad else W.v[t]
        add("bias_correction_forgotten", "w_steps", {"m_hat": W.m[t], "v_hat": second})
        if cfg.decoupled and cfg.decay:
            coupled = plus(grad, times(lam, W.param[t - 1]))
            m_def, v_def = moments(W, coupled)
            add("adamw_decay_as_l2", "w_steps",
                {"m_steps": m_def, "v_steps": v_def, "w_steps": update(W, adam_direction(W))})
            add("weight_decay_forgotten", "w_steps", {"w_steps": update(W, adam_direction(W))})
    if cfg.decay and not cfg.decoupled:
        add("weight_decay_forgotten", "w_steps",
            {"decayed_gradient": -g[t]} if cfg.maximize else {"decayed_gradient": g[t]})
        if cfg.maximize:
            add("maximize_negates_decay", "w_steps",
                {"decayed_gradient": -plus(g[t], times(lam, W.param[t - 1]))})
    if cfg.dampening:
        add("buffer_first_damped", "buffer_steps",
            {"buffer_steps": plus(times(mu, W.buffer[t - 1]), times(plus(1, -tau), grad))})
    if cfg.nesterov:
        add("nesterov_as_momentum", "w_steps", {"nesterov_direction": W.buffer[t]})
    out.update(_resume_variants(cfg))
    return out


def _used_grad(cfg: Config, c: Chain) -> sp.Expr:
    """The gradient the optimizer's state reads: g̃_t where torch changes it, else g_t."""
    changed = decayed_gradient(cfg, c, coupled=not cfg.decoupled) is not None
    return c.decayed[t] if changed else c.grad[t]


def _chains(cfg: Config) -> list[tuple[Chain, dict]]:
    return [(W, W_NAMES)] + ([(B, B_NAMES)] if cfg.has_b else [])


def _lost_moments(cfg: Config) -> dict:
    """Adam's m, v (and v_max) of w and b as a fresh optimizer has them at the resumed step:
    zero before it, so m_1 = (1 − β₁)·g̃_1, v_1 = (1 − β₂)·g̃_1², v_{max,1} = v_1."""
    out = {}
    for c, names in _chains(cfg):
        grad = _used_grad(cfg, c)
        m_def, v_def = moments(c, grad)
        first = sp.Eq(t, 1)
        out[names["m"]] = sp.Piecewise((times(plus(1, -beta1), grad), first), (m_def, True))
        out[names["v"]] = sp.Piecewise(
            (times(plus(1, -beta2), sp.Pow(grad, 2)), first), (v_def, True))
        if cfg.amsgrad:
            out[names["v_max"]] = sp.Piecewise((c.v[t], first),
                                               (sp.Max(c.v_max[t - 1], c.v[t]), True))
    return out


def _counted_as(cfg: Config, count: sp.Expr) -> dict:
    """m̂ and v̂ of w and b with bias correction at step count `count`."""
    out = {}
    for c, names in _chains(cfg):
        out[names["m_hat"]], out[names["v_hat"]] = bias_corrected(cfg, c, count)
    return out


def _resume_variants(cfg: Config) -> dict[str, Variant]:
    """The mistakes of a resumed run: the saved state lost (all of it, or some), or the step
    count off. Each changes the state of w and of b alike; it is named at every claimed
    quantity it changes (RESUME_TARGETS)."""
    out: dict[str, Variant] = {}

    def add(name: str, replace: dict) -> None:
        en, zh = MISTAKE_WORDS[name]
        out[name] = Variant(name, TARGETS.get(name, "w_steps"), replace, en=en, zh=zh)

    if cfg.saved_buffer:
        add("saving_only_w", {names["buffer"]: buffer_rule(cfg, c, _used_grad(cfg, c), fresh=True)
                              for c, names in _chains(cfg)})
    if cfg.resumed:
        add("state_lost_on_resume", {**_lost_moments(cfg), **_counted_as(cfg, t)})
        add("moments_reset", _lost_moments(cfg))
        add("step_count_reset", _counted_as(cfg, t))
        add("resumed_from_wrong_step", _counted_as(cfg, step_count(cfg, -1)))
    return out


MISTAKE_WORDS = {
    "bias_correction_forgotten": (
        "Adam without bias correction: m_t/(√v_t + ε) in place of m̂_t/(√v̂_t + ε)",
        "Adam 忘了偏差修正: 用 m_t/(√v_t + ε) 代替 m̂_t/(√v̂_t + ε)"),
    "adamw_decay_as_l2": (
        "AdamW's weight decay added to the gradient (Adam's L2) instead of decoupled "
        "w·(1 − η·λ)",
        "把 AdamW 的权重衰减加进了梯度(Adam 的 L2),而不是解耦的 w·(1 − η·λ)"),
    "weight_decay_forgotten": (
        "the weight decay λ left out", "漏掉了权重衰减 λ"),
    "maximize_negates_decay": (
        "maximize negating the decay term too: −(g_t + λ·w_{t−1}); torch negates only g_t",
        "maximize 把衰减项也取反了: −(g_t + λ·w_{t−1});torch 只对 g_t 取反"),
    "buffer_first_damped": (
        "the first momentum buffer damped: u_1 = (1 − τ)·g_1; torch starts with u_1 = g_1",
        "第一步的动量缓冲也乘了 (1 − τ): u_1 = (1 − τ)·g_1;torch 第一步 u_1 = g_1"),
    "nesterov_as_momentum": (
        "Nesterov stepping along the buffer u_t instead of g_t + μ·u_t",
        "Nesterov 沿缓冲 u_t 更新,而不是 g_t + μ·u_t"),
    "saving_only_w": (
        "only w saved (the parameters, not the optimizer): the momentum buffers of w and b "
        "lost, so the resumed first step starts them anew, u_1 = g̃_1, instead of "
        "μ·u_0 + (1 − τ)·g̃_1 from the saved u_0",
        "只保存了 w(参数,没有保存优化器状态): w 和 b 的动量缓冲丢失,恢复后的第一步重新开始 "
        "u_1 = g̃_1,而不是由保存的 u_0 得到 μ·u_0 + (1 − τ)·g̃_1"),
    "state_lost_on_resume": (
        "the optimizer state lost on resume (only the parameters loaded, a fresh Adam): m, v "
        "start from 0 and the step count from 0, so the bias correction uses t instead of t_0 + t",
        "恢复训练时丢失了优化器状态(只加载了参数,新建的 Adam): m、v 从 0 开始,步数也从 0 "
        "开始,偏差修正用 t 而不是 t_0 + t"),
    "moments_reset": (
        "Adam's moments m, v reset to 0 on resume while the step count t_0 is kept",
        "恢复训练时 Adam 的矩 m、v 被重置为 0,而步数 t_0 保留"),
    "step_count_reset": (
        "Adam's step count restarted at 0 on resume (m, v kept): the bias correction uses "
        "1 − β^t instead of 1 − β^(t_0 + t)",
        "恢复训练时 Adam 的步数从 0 重新开始(m、v 保留): 偏差修正用 1 − β^t 而不是 "
        "1 − β^(t_0 + t)"),
    "resumed_from_wrong_step": (
        "resumed from the wrong step: the bias correction counts the saved step t_0 as the "
        "resumed first step, 1 − β^(t_0 + t − 1) instead of 1 − β^(t_0 + t)",
        "从错误的步数恢复: 偏差修正把保存的第 t_0 步当作恢复后的第一步,用 "
        "1 − β^(t_0 + t − 1) 而不是 1 − β^(t_0 + t)"),
}

_ONE = {"w": "1", "lr": "0.1", "records": [["2", "4"]]}
EXAMPLES = {
    "bias_correction_forgotten": (
        {**_ONE, "optimizer": {"name": "adam"}}, {"w_steps": ["1.316228"]}),
    "adamw_decay_as_l2": (
        {**_ONE, "optimizer": {"name": "adamw", "weight_decay": "0.5"}},
        {"w_steps": ["1.100"]}),
    "weight_decay_forgotten": (
        {**_ONE, "optimizer": {"name": "sgd", "weight_decay": "0.5"}}, {"w_steps": ["1.40"]}),
    "maximize_negates_decay": (
        {**_ONE, "optimizer": {"name": "sgd", "weight_decay": "0.5", "maximize": "true"}},
        {"w_steps": ["0.65"]}),
    "buffer_first_damped": (
        {**_ONE, "optimizer": {"name": "sgd", "momentum": "0.9", "dampening": "0.5"}},
        {"buffer_steps": ["-2"]}),
    "nesterov_as_momentum": (
        {**_ONE, "optimizer": {"name": "sgd", "momentum": "0.5", "nesterov": "true"}},
        {"w_steps": ["1.4"]}),
    # resumed with u_0 = −2: u_1 = 0.5·(−2) + (−4) = −5; the buffer lost: u_1 = g_1 = −4
    "saving_only_w": (
        {**_ONE, "optimizer": {"name": "sgd", "momentum": "0.5"}, "state": {"buffer": "-2"}},
        {"buffer_steps": ["-4"]}),
    # resumed at step 2 with m_0 = −1, v_0 = 4: m_1 = −1.3; lost, m_1 = 0.1·(−4) = −0.4
    "state_lost_on_resume": (
        {**_ONE, "optimizer": {"name": "adam"}, "state": {"step": "2", "m": "-1", "v": "4"}},
        {"m_steps": ["-0.4"]}),
    "moments_reset": (
        {**_ONE, "optimizer": {"name": "adam"}, "state": {"step": "2", "m": "-1", "v": "4"}},
        {"m_steps": ["-0.4"], "w_steps": ["1.063881"]}),
    # the right w_1 is 1.013111 (bias correction at step 3)
    "step_count_reset": (
        {**_ONE, "optimizer": {"name": "adam"}, "state": {"step": "2", "m": "-1", "v": "4"}},
        {"w_steps": ["1.020524"]}),
    "resumed_from_wrong_step": (
        {**_ONE, "optimizer": {"name": "adam"}, "state": {"step": "2", "m": "-1", "v": "4"}},
        {"w_steps": ["1.015273"]}),
}
"""An exercise that makes each mistake (TOML text values), and the claim it leads to."""


RESUME_MISTAKES = ("saving_only_w", "state_lost_on_resume", "moments_reset", "step_count_reset",
                   "resumed_from_wrong_step")


def _mistake(name: str, target: str | None = None):
    """The mistake's value at its target, or at `target` (a later quantity it changes)."""
    def compute(ctx):
        v = variants(config(ctx)).get(name)
        if v is None:
            raise KeyError(f"{name} does not apply to this optimizer")
        if target is not None:
            if target not in graph_of(ctx).by_name:
                raise KeyError(f"{target} is not a quantity of this exercise")
            v = Variant(v.name, target, v.replace, en=v.en, zh=v.zh)
        return GRAPHED.variant(v)(ctx)
    return compute


TARGETS = {"buffer_first_damped": "buffer_steps", "saving_only_w": "buffer_steps",
           "state_lost_on_resume": "m_steps", "moments_reset": "m_steps"}
"""The quantity each mistake gives (w_steps unless named here): for the resume mistakes the
first claimable quantity a single resumed step changes, in derivation order."""

RESUME_TARGETS = ("gradient_steps", "b_gradient_steps", "buffer_steps", "b_buffer_steps",
                  "m_steps", "v_steps", "w_steps", "b_steps", "loss_steps")
"""The resume mistakes change the state of w and b, hence (from the second resumed step) the
gradients too: each is named at any of these it changes, not only at its target."""


def _at(name: str):
    def compute_for(target: str):
        return _mistake(name, target)
    return compute_for


MISTAKES = tuple(
    Mistake(name, TARGETS.get(name, "w_steps"), en, _mistake(name), zh=zh,
            example=Example(*EXAMPLES[name]),
            also_targets=tuple(q for q in RESUME_TARGETS if q != TARGETS.get(name, "w_steps"))
            if name in RESUME_MISTAKES else (),
            compute_for=_at(name) if name in RESUME_MISTAKES else None)
    for name, (en, zh) in MISTAKE_WORDS.items())
