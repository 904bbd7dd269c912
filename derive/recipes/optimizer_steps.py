"""`optimizer_steps`: several updates, exactly as torch.optim computes them (SGD with momentum,
dampening, weight decay, Nesterov, maximize; Adam; AdamW; amsgrad), on the same batch or on a
batch of its own at each step (`batches`), from a fresh optimizer or resumed from a saved state
(`state`: a checkpoint's momentum buffers, or Adam's m, v, v_max and step count).

The steps t = 1…T are a recurrent family of the derivation graph: g_t is the batch-mean
gradient at (w_{t−1}, b_{t−1}) by backward (`sympy.diff` through the prediction, as in
`sgd_step`); the optimizer's state (the momentum buffer u_t, Adam's m_t and v_t) carries over
from step to step, starting from w_0 = w, b_0 = b and zero state. Each optimizer configuration
is its own graph, so each formula shows only the terms that apply; the order of operations is
torch's (`derive/model/optimizers.py`, `_single_tensor_sgd` and `_single_tensor_adam`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import sympy as sp

from derive.graph import Family, Node, Variant, family, symbol
from derive.graph.graph import Graph, members
from derive.graph.notation import blocks, index
from derive.model.optimizers import Optimizer
from derive.recipes import sgd_step as sgd
from derive.recipes.base import Example, Input, Mistake, Quantity, QuantityUndefined, Recipe
from derive.recipes.graphed import Graphed, as_computed

t = index("t")
T = symbol("opt_T", "T", integer=True, positive=True)
STEPS = Family("steps", t, T)
w, b, eta, x, y, i, N = sgd.w, sgd.b, sgd.eta, sgd.x, sgd.y, sgd.i, sgd.N
mu, tau = symbol("opt_mu", "mu"), symbol("opt_tau", "tau")
lam = symbol("opt_lambda", "lambda")
beta1, beta2 = symbol("opt_beta1", "beta", sub="1"), symbol("opt_beta2", "beta", sub="2")
eps = symbol("opt_eps", "varepsilon")

g, g_b = family("opt_g", "g"), family("opt_g_b", "g", sub="b")
loss_t = family("opt_L", "L")
BATCH = family("opt_B", "B")
CUT = family("opt_c", "c", integer=True)
blocks("opt_c", "opt_B")
T0 = symbol("opt_t0", "t", sub="0", integer=True, nonnegative=True)
"""The saved step count of a resumed Adam (torch's state["step"]): step t of the resumed run is
the optimizer's step t_0 + t."""


class Chain(NamedTuple):
    """The families of one parameter's update: w and its state, or b and its own."""

    param: sp.IndexedBase
    grad: sp.IndexedBase
    decayed: sp.IndexedBase
    buffer: sp.IndexedBase
    direction: sp.IndexedBase
    m: sp.IndexedBase
    v: sp.IndexedBase
    v_max: sp.IndexedBase
    m_hat: sp.IndexedBase
    v_hat: sp.IndexedBase


def _chain(param: str, grad: sp.IndexedBase, sub: str) -> Chain:
    key, s = ("" if not sub else "_" + sub), sub
    with_max = r"\max" if not sub else sub + r",\max"
    return Chain(
        family(f"opt_{param}", param), grad,
        family(f"opt_gt{key}", "g", accent="tilde", sub=s), family(f"opt_u{key}", "u", sub=s),
        family(f"opt_d{key}", "d", sub=s), family(f"opt_m{key}", "m", sub=s),
        family(f"opt_v{key}", "v", sub=s), family(f"opt_vmax{key}", "v", sub=with_max),
        family(f"opt_mhat{key}", "m", accent="hat", sub=s),
        family(f"opt_vhat{key}", "v", accent="hat", sub=s))


W, B = _chain("w", g, ""), _chain("b", g_b, "b")


def _saved(sub: str) -> dict:
    """The saved state a resumed run starts from: u_0, m_0, v_0, v_{max,0} (of w, or b's)."""
    key, s = ("" if not sub else "_" + sub), ("0" if not sub else sub + ",0")
    return {"buffer": symbol(f"opt_u0{key}", "u", sub=s), "m": symbol(f"opt_m0{key}", "m", sub=s),
            "v": symbol(f"opt_v0{key}", "v", sub=s),
            "v_max": symbol(f"opt_vmax0{key}", "v", sub=r"\max," + s)}


SAVED = {"": _saved(""), "b": _saved("b")}
STATE_KEYS = {"opt_u0": "buffer", "opt_u0_b": "b_buffer", "opt_m0": "m", "opt_m0_b": "b_m",
              "opt_v0": "v", "opt_v0_b": "b_v", "opt_vmax0": "v_max", "opt_vmax0_b": "b_v_max"}
"""Each saved-state symbol and its key in the exercise's `state` table."""


class Config(NamedTuple):
    """What decides a graph's shape: which terms apply, never the hyperparameters' values."""

    name: str
    has_b: bool
    convention: str
    momentum: bool
    dampening: bool
    nesterov: bool
    decay: bool
    maximize: bool
    amsgrad: bool
    batches: bool = False
    """A batch of its own at each step (`batches`), not one batch for every step."""
    saved_buffer: bool = False
    """SGD with momentum resumed with its buffers: every step is μ·u_{t−1} + (1 − τ)·g̃_t."""
    resumed: bool = False
    """Adam or AdamW resumed from a saved state: m_0, v_0 (v_{max,0}) and step count t_0."""
    decoupled: bool = False
    """AdamW's decay θ·(1 − η·λ) (AdamW, or Adam with decoupled_weight_decay)."""


def _optimizer(c) -> Optimizer:
    return c.given["optimizer"] if c.has("optimizer") else Optimizer.make("sgd")


def _state(c) -> dict:
    return c.given["state"] if c.has("state") else {}


def config(c) -> Config:
    opt = _optimizer(c)
    sgd_ = opt.name == "sgd"
    momentum = sgd_ and opt.momentum != 0
    state = _state(c)
    return Config(opt.name, c.has("b"), sgd.loss_convention(c),
                  momentum, momentum and opt.dampening != 0,
                  momentum and bool(opt.nesterov), opt.weight_decay != 0,
                  bool(opt.maximize), not sgd_ and bool(opt.amsgrad), c.has("batches"),
                  momentum and "buffer" in state, not sgd_ and "step" in state, opt.decoupled)


# ---------------------------------------------------------------------------- expressions

def _add(*terms) -> sp.Expr:
    return sp.Add(*terms, evaluate=False)


def _times(*factors) -> sp.Expr:
    return sp.Mul(*factors, evaluate=False)


def _minus(*factors) -> sp.Expr:
    return sp.Mul(-1, *factors, evaluate=False)


def _gradient(cfg: Config, param: sp.Indexed) -> sp.Expr:
    """(1/N) Σ_i ∂ℓ_i/∂ŷ_i · ∂ŷ_i/∂param at the step's starting point, by `sympy.diff`
    (sgd_step's backward with ŷ_i = w_{t−1}·x_i + b_{t−1} in place)."""
    predict = _predict(cfg, t - 1)
    record = _in_place(sgd._backward(cfg.convention, param, predict), sgd.yhat[i], predict)
    return _batch_mean(cfg, record)


def _batch_mean(cfg: Config, term: sp.Expr) -> sp.Expr:
    """(1/N) Σ_i term over the one batch, or (1/|B_t|) Σ_{i∈B_t} term over step t's own batch
    (records c_{t−1}+1 … c_t of the batches one after the other)."""
    if not cfg.batches:
        return sp.Sum(term, (i, 1, N)) / N
    return sp.Sum(term, (i, CUT[t - 1] + 1, CUT[t])) / sp.Abs(BATCH[t])


def _in_place(e: sp.Expr, old: sp.Expr, new: sp.Expr) -> sp.Expr:
    """`e` with `new` for `old`, as written (2·ŷ_i − 2·y_i stays 2·(w_{t−1}·x_i) − 2·y_i)."""
    if e == old:
        return new
    if isinstance(e, (sp.Add, sp.Mul, sp.Pow)):
        return e.func(*(_in_place(a, old, new) for a in e.args), evaluate=False)
    return e


def _predict(cfg: Config, k) -> sp.Expr:
    """w_k·x_i + b_k (or w_k·x_i): k = t − 1 for the gradient, t for the loss after it."""
    product = _times(W.param[k], x[i])
    return product if not cfg.has_b else _add(product, B.param[k])


def _decayed(cfg: Config, c: Chain, coupled: bool) -> sp.Expr | None:
    """torch's gradient before the state: −g_t with maximize, + λ·w_{t−1} with (coupled)
    weight decay; None when it is g_t itself."""
    if not cfg.maximize and not (cfg.decay and coupled):
        return None
    out = -c.grad[t] if cfg.maximize else c.grad[t]
    if cfg.decay and coupled:
        out = _add(out, _times(lam, c.param[t - 1]))
    return out


def _step(c: Chain, direction: sp.Expr, shrink: bool = False) -> sp.Expr:
    """w_{t−1} − η·direction (AdamW first shrinks: w_{t−1}·(1 − η·λ))."""
    start = c.param[t - 1]
    if shrink:
        start = _times(start, _add(1, _minus(eta, lam)))
    return _add(start, _minus(eta, direction))


def _adam_direction(c: Chain) -> sp.Expr:
    """m̂_t / (√v̂_t + ε)."""
    return _times(c.m_hat[t], sp.Pow(_add(sp.sqrt(c.v_hat[t]), eps), -1, evaluate=False))


def _moments(c: Chain, grad: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    return (_add(_times(beta1, c.m[t - 1]), _times(_add(1, -beta1), grad)),
            _add(_times(beta2, c.v[t - 1]), _times(_add(1, -beta2), sp.Pow(grad, 2))))


def _buffer(cfg: Config, c: Chain, grad: sp.Expr, fresh: bool | None = None) -> sp.Expr:
    """u_t = μ·u_{t−1} + (1 − τ)·g̃_t, the first buffer the gradient itself (u_0 = 0 gives
    that when τ = 0; with dampening the first step is a case of its own). Resumed with a saved
    buffer u_0 (not `fresh`), every step is the later rule, the first one included (torch's
    momentum_buffer is not None); `fresh` forces torch's first-step rule at t = 1 (a lost
    buffer)."""
    fresh = not cfg.saved_buffer if fresh is None else fresh
    if not cfg.dampening:
        later = _add(_times(mu, c.buffer[t - 1]), grad)
        if not fresh or not cfg.saved_buffer:
            return later
        return sp.Piecewise((grad, sp.Eq(t, 1)), (later, True))
    later = _add(_times(mu, c.buffer[t - 1]), _times(_add(1, -tau), grad))
    return sp.Piecewise((grad, sp.Eq(t, 1)), (later, True)) if fresh else later


def _count(cfg: Config, shift: int = 0) -> sp.Expr:
    """The optimizer's step count at step t: t, or t_0 + t resumed (+ `shift`, a mistake)."""
    if not cfg.resumed:
        return t if not shift else _add(t, shift)
    return _add(T0, t) if not shift else _add(T0, t, shift)


def _hats(cfg: Config, c: Chain, count: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """m̂_t = m_t/(1 − β₁^count), v̂_t = v_t (or v_{max,t})/(1 − β₂^count)."""
    second = c.v_max[t] if cfg.amsgrad else c.v[t]
    return (c.m[t] / _add(1, -beta1 ** count), second / _add(1, -beta2 ** count))


def _start(cfg: Config, c: Chain, key: str, saved: bool) -> sp.Expr:
    return SAVED["" if c is W else "b"][key] if saved else sp.S.Zero


def _nodes(cfg: Config, c: Chain, names: dict) -> list[Node]:
    """One parameter's update, in torch's order."""
    adam = cfg.name != "sgd"
    decayed = _decayed(cfg, c, coupled=not cfg.decoupled)
    out: list[Node] = []
    grad = c.grad[t]
    if decayed is not None:
        out.append(Node(names["decayed"], c.decayed, decayed, STEPS))
        grad = c.decayed[t]
    if not adam:
        direction = grad
        if cfg.momentum:
            out.append(Node(names["buffer"], c.buffer, _buffer(cfg, c, grad), STEPS,
                            start=_start(cfg, c, "buffer", cfg.saved_buffer)))
            direction = c.buffer[t]
            if cfg.nesterov:
                out.append(Node(names["direction"], c.direction,
                                _add(grad, _times(mu, c.buffer[t])), STEPS))
                direction = c.direction[t]
        out.append(Node(names["param"], c.param, _step(c, direction), STEPS,
                        start=names["start"]))
        return out
    m_def, v_def = _moments(c, grad)
    out += [Node(names["m"], c.m, m_def, STEPS, start=_start(cfg, c, "m", cfg.resumed)),
            Node(names["v"], c.v, v_def, STEPS, start=_start(cfg, c, "v", cfg.resumed))]
    if cfg.amsgrad:
        out.append(Node(names["v_max"], c.v_max, sp.Max(c.v_max[t - 1], c.v[t]), STEPS,
                        start=_start(cfg, c, "v_max", cfg.resumed)))
    m_hat, v_hat = _hats(cfg, c, _count(cfg))
    out += [Node(names["m_hat"], c.m_hat, m_hat, STEPS),
            Node(names["v_hat"], c.v_hat, v_hat, STEPS),
            Node(names["param"], c.param,
                 _step(c, _adam_direction(c), shrink=cfg.decoupled and cfg.decay), STEPS,
                 start=names["start"])]
    return out


W_NAMES = {"decayed": "decayed_gradient", "buffer": "buffer_steps",
           "direction": "nesterov_direction", "m": "m_steps", "v": "v_steps", "v_max": "v_max",
           "m_hat": "m_hat", "v_hat": "v_hat", "param": "w_steps", "start": w}
B_NAMES = {k: ("b_" + v if k != "param" else "b_steps") for k, v in W_NAMES.items()
           if k != "start"} | {"start": b}


def _loss(cfg: Config) -> sp.Expr:
    """L_t = (1/N) Σ_i ℓ_i at (w_t, b_t): the loss of step t's batch after step t."""
    return _batch_mean(cfg, sgd._loss(_predict(cfg, t), cfg.convention))


@lru_cache(maxsize=None)
def graph(cfg: Config) -> Graph:
    """The graph of one optimizer configuration."""
    nodes = [Node("gradient_steps", g, _gradient(cfg, W.param[t - 1]), STEPS)]
    if cfg.has_b:
        nodes.append(Node("b_gradient_steps", g_b, _gradient(cfg, B.param[t - 1]), STEPS))
    nodes += _nodes(cfg, W, W_NAMES)
    if cfg.has_b:
        nodes += _nodes(cfg, B, B_NAMES)
    nodes.append(Node("loss_steps", loss_t, _loss(cfg), STEPS))
    opt = _optimizer
    inputs = {
        "w": lambda c: c["w"], "b": lambda c: c["b"], "eta": lambda c: c["lr"],
        "x": lambda c: members([r[0] for r in records(c)]),
        "y": lambda c: members([r[1] for r in records(c)]),
        "opt_T": steps_of,
        "opt_mu": lambda c: opt(c).momentum, "opt_tau": lambda c: opt(c).dampening,
        "opt_lambda": lambda c: opt(c).weight_decay,
        "opt_beta1": lambda c: opt(c).betas[0], "opt_beta2": lambda c: opt(c).betas[1],
        "opt_eps": lambda c: opt(c).eps,
    }
    if cfg.batches:
        inputs["opt_B"] = lambda c: members([sp.Integer(len(b)) for b in c["batches"]])
        inputs["opt_c"] = lambda c: _boundaries(c["batches"])
    else:
        inputs["N"] = lambda c: sp.Integer(len(records(c)))
    if cfg.resumed:
        inputs["opt_t0"] = lambda c: sp.Integer(_state(c)["step"])
    for name, key in STATE_KEYS.items():
        inputs[name] = lambda c, key=key: _state(c)[key]
    return Graph(tuple(nodes), inputs, opaque=frozenset({"opt_B"}))


def records(c) -> list:
    """Every record the run reads: the one batch, or the step batches one after the other."""
    if c.has("batches"):
        return [r for batch in c["batches"] for r in batch]
    return c["records"]


def steps_of(c) -> sp.Integer:
    """T: `steps` (default 1), or one step per batch."""
    if c.has("batches"):
        return sp.Integer(len(c["batches"]))
    return sp.Integer(int(c["steps"])) if c.has("steps") else sp.S.One


def _boundaries(batches) -> dict:
    """c_t = |B_1| + … + |B_t|, c_0 = 0: step t's batch is records c_{t−1}+1 … c_t."""
    out, total = {0: 0}, 0
    for m, batch in enumerate(batches, 1):
        total += len(batch)
        out[m] = total
    return out


def graph_of(ctx) -> Graph:
    return graph(config(ctx))


# ------------------------------------------------------------------------------- mistakes

@lru_cache(maxsize=None)
def variants(cfg: Config) -> dict[str, Variant]:
    """The known mistakes that this configuration can make, each a variant of its graph."""
    out: dict[str, Variant] = {}

    def add(name: str, target: str, replace: dict) -> None:
        en, zh = MISTAKE_WORDS[name]
        out[name] = Variant(name, target, replace, en=en, zh=zh)

    grad = W.decayed[t] if _decayed(cfg, W, coupled=not cfg.decoupled) is not None else g[t]
    if cfg.name != "sgd":
        second = W.v_max[t] if cfg.amsgrad else W.v[t]
        add("bias_correction_forgotten", "w_steps", {"m_hat": W.m[t], "v_hat": second})
        if cfg.decoupled and cfg.decay:
            coupled = _add(grad, _times(lam, W.param[t - 1]))
            m_def, v_def = _moments(W, coupled)
            add("adamw_decay_as_l2", "w_steps",
                {"m_steps": m_def, "v_steps": v_def, "w_steps": _step(W, _adam_direction(W))})
            add("weight_decay_forgotten", "w_steps", {"w_steps": _step(W, _adam_direction(W))})
    if cfg.decay and not cfg.decoupled:
        add("weight_decay_forgotten", "w_steps",
            {"decayed_gradient": -g[t]} if cfg.maximize else {"decayed_gradient": g[t]})
        if cfg.maximize:
            add("maximize_negates_decay", "w_steps",
                {"decayed_gradient": -_add(g[t], _times(lam, W.param[t - 1]))})
    if cfg.dampening:
        add("buffer_first_damped", "buffer_steps",
            {"buffer_steps": _add(_times(mu, W.buffer[t - 1]), _times(_add(1, -tau), grad))})
    if cfg.nesterov:
        add("nesterov_as_momentum", "w_steps", {"nesterov_direction": W.buffer[t]})
    out.update(_resume_variants(cfg))
    return out


def _used_grad(cfg: Config, c: Chain) -> sp.Expr:
    """The gradient the optimizer's state reads: g̃_t where torch changes it, else g_t."""
    return c.decayed[t] if _decayed(cfg, c, coupled=not cfg.decoupled) is not None else c.grad[t]


def _chains(cfg: Config) -> list[tuple[Chain, dict]]:
    return [(W, W_NAMES)] + ([(B, B_NAMES)] if cfg.has_b else [])


def _lost_moments(cfg: Config) -> dict:
    """Adam's m, v (and v_max) of w and b as a fresh optimizer has them at the resumed step:
    zero before it, so m_1 = (1 − β₁)·g̃_1, v_1 = (1 − β₂)·g̃_1², v_{max,1} = v_1."""
    out = {}
    for c, names in _chains(cfg):
        grad = _used_grad(cfg, c)
        m_def, v_def = _moments(c, grad)
        first = sp.Eq(t, 1)
        out[names["m"]] = sp.Piecewise((_times(_add(1, -beta1), grad), first), (m_def, True))
        out[names["v"]] = sp.Piecewise(
            (_times(_add(1, -beta2), sp.Pow(grad, 2)), first), (v_def, True))
        if cfg.amsgrad:
            out[names["v_max"]] = sp.Piecewise((c.v[t], first),
                                               (sp.Max(c.v_max[t - 1], c.v[t]), True))
    return out


def _counted_as(cfg: Config, count: sp.Expr) -> dict:
    """m̂ and v̂ of w and b with bias correction at step count `count`."""
    out = {}
    for c, names in _chains(cfg):
        out[names["m_hat"]], out[names["v_hat"]] = _hats(cfg, c, count)
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
        add("saving_only_w", {names["buffer"]: _buffer(cfg, c, _used_grad(cfg, c), fresh=True)
                              for c, names in _chains(cfg)})
    if cfg.resumed:
        add("state_lost_on_resume", {**_lost_moments(cfg), **_counted_as(cfg, t)})
        add("moments_reset", _lost_moments(cfg))
        add("step_count_reset", _counted_as(cfg, t))
        add("resumed_from_wrong_step", _counted_as(cfg, _count(cfg, -1)))
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


# ----------------------------------------------------------------------------- quantities

def _momentum(given) -> bool:
    opt = given.get("optimizer")
    return opt is not None and opt.name == "sgd" and opt.momentum != 0


def _adam(given) -> bool:
    opt = given.get("optimizer")
    return opt is not None and opt.name in ("adam", "adamw")


def _with_b(given) -> bool:
    return given.get("b") is not None


DOCS = {
    "gradient_steps": "∂L/∂w at each step's starting point (w_{t−1}, b_{t−1})",
    "b_gradient_steps": "∂L/∂b at each step's starting point",
    "buffer_steps": "SGD's momentum buffer u_t of w after each step (first: the gradient, or "
                    "μ·u_0 + (1 − τ)·g̃_1 resumed from a saved u_0)",
    "b_buffer_steps": "SGD's momentum buffer of b after each step",
    "m_steps": "Adam's first moment of w after each step",
    "v_steps": "Adam's second moment of w after each step",
    "w_steps": "w after each step",
    "b_steps": "b after each step",
    "loss_steps": "the loss of each step's batch after the step, at (w_t, b_t)",
}

WORDS = {
    "gradient_steps": ("Gradient at each step's start, by backward", "各步梯度(反向传播)"),
    "b_gradient_steps": ("Gradient with respect to b at each step's start", "各步偏置梯度"),
    "decayed_gradient": ("The gradient torch uses: sign (maximize) and weight decay",
                         "torch 实际使用的梯度:符号(maximize)与权重衰减"),
    "buffer_steps": ("Momentum buffer", "动量缓冲"),
    "nesterov_direction": ("Nesterov's direction", "Nesterov 方向"),
    "m_steps": ("First moment", "一阶矩"),
    "v_steps": ("Second moment", "二阶矩"),
    "v_max": ("Running maximum of the second moment (amsgrad)", "二阶矩的历史最大值(amsgrad)"),
    "m_hat": ("Bias-corrected first moment", "偏差修正后的一阶矩"),
    "v_hat": ("Bias-corrected second moment", "偏差修正后的二阶矩"),
    "w_steps": ("The weight after each step", "各步权重"),
    "b_decayed_gradient": ("The gradient of b torch uses", "torch 对 b 使用的梯度"),
    "b_buffer_steps": ("Momentum buffer of b", "b 的动量缓冲"),
    "b_nesterov_direction": ("Nesterov's direction for b", "b 的 Nesterov 方向"),
    "b_m_steps": ("First moment of b", "b 的一阶矩"),
    "b_v_steps": ("Second moment of b", "b 的二阶矩"),
    "b_v_max": ("Running maximum of b's second moment", "b 的二阶矩历史最大值"),
    "b_m_hat": ("Bias-corrected first moment of b", "b 的偏差修正一阶矩"),
    "b_v_hat": ("Bias-corrected second moment of b", "b 的偏差修正二阶矩"),
    "b_steps": ("The bias after each step", "各步偏置"),
    "loss_steps": ("Batch loss after each step", "各步之后的批损失"),
}
"""Every node in the course's words, English and Chinese (headings of the working)."""

CLAIMABLE = ("gradient_steps", "b_gradient_steps", "buffer_steps", "b_buffer_steps",
             "m_steps", "v_steps", "w_steps", "b_steps", "loss_steps")
GRAPHED = Graphed(graph_of, ("gradient_steps",), shape=as_computed)
"""Only a claimed `gradient_steps` is carried forward: the optimizer re-run on the author's
gradients (its later quantities are computed, never read from claims)."""

_SGD_MOMENTUM = "an SGD optimizer with momentum > 0"
_ADAM = 'optimizer = { name = "adam" } or "adamw"'

def _value(name: str):
    """A quantity's value; with Adam's eps = 0 (which torch accepts) m̂_t/(√v̂_t + ε) is 0/0
    once every gradient so far is 0, where torch computes nan: the quantity has no value."""
    compute = GRAPHED.value(name)

    def value(ctx):
        try:
            return compute(ctx)
        except ZeroDivisionError:
            raise QuantityUndefined(
                name, "with eps = 0 the step m̂_t/(√v̂_t + ε) divides by 0 (every gradient "
                "so far is 0, and torch computes 0/0 = nan)",
                expected="give eps > 0 (torch's default is 1e-8)",
                key="given.optimizer.eps") from None
    return value

QUANTITIES = (
    Quantity("gradient_steps", DOCS["gradient_steps"], _value("gradient_steps"),
             zh="各步梯度"),
    Quantity("b_gradient_steps", DOCS["b_gradient_steps"], _value("b_gradient_steps"),
             needs=("b",), zh="各步偏置梯度"),
    Quantity("buffer_steps", DOCS["buffer_steps"], _value("buffer_steps"), when=_momentum,
             when_text=_SGD_MOMENTUM, zh="动量缓冲"),
    Quantity("b_buffer_steps", DOCS["b_buffer_steps"], _value("b_buffer_steps"),
             needs=("b",), when=_momentum, when_text=_SGD_MOMENTUM, zh="b 的动量缓冲"),
    Quantity("m_steps", DOCS["m_steps"], _value("m_steps"), when=_adam,
             when_text=_ADAM, zh="一阶矩"),
    Quantity("v_steps", DOCS["v_steps"], _value("v_steps"), when=_adam,
             when_text=_ADAM, zh="二阶矩"),
    Quantity("w_steps", DOCS["w_steps"], _value("w_steps"), zh="各步权重"),
    Quantity("b_steps", DOCS["b_steps"], _value("b_steps"), needs=("b",),
             zh="各步偏置"),
    Quantity("loss_steps", DOCS["loss_steps"], _value("loss_steps"), zh="各步之后的批损失"),
)
"""In derivation order, which the diagnosis follows: the gradients, then the optimizer state
(the buffers, or m and v), then the parameters that state moves, then the loss after them."""

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


def check(given):
    problems = []
    if given.get("steps") is not None and given["steps"] > MAX_STEPS:
        problems.append(("steps", f"is {given['steps']}", f"at most {MAX_STEPS} steps"))
    batches = given.get("batches")
    if batches is not None:
        if given.get("records") is not None:
            problems.append(("batches", "is given with records",
                             "give records (one batch for every step) or batches (one per "
                             "step), not both"))
        elif len(batches) > MAX_STEPS:
            problems.append(("batches", f"has {len(batches)} batches",
                             f"at most {MAX_STEPS} steps"))
        elif given.get("steps") is not None and given["steps"] != len(batches):
            problems.append(("steps", f"is {given['steps']}, but batches has {len(batches)}",
                             "one step per batch: leave steps out, or make them equal"))
    elif given.get("records") is None:
        problems.append(("records", "is missing",
                         "optimizer_steps needs records (the batch of every step) or batches "
                         "(one batch per step)"))
    if given.get("state") is not None:
        problems += _check_state(given)
    return problems


def state_keys(opt: Optimizer, with_b: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the keys a saved state of this optimizer must have, the keys it may have)."""
    params = ("", "b_") if with_b else ("",)
    if opt.name == "sgd":
        keys = tuple(p + "buffer" for p in params) if opt.momentum != 0 else ()
        return (), keys
    moments = ("m", "v", "v_max") if opt.amsgrad else ("m", "v")
    keys = ("step",) + tuple(p + k for p in params for k in moments)
    return keys, keys


def _check_state(given) -> list[tuple[str, str, str]]:
    """The saved state against the optimizer: only the state torch keeps for it, and all of it
    (a checkpoint holds the state of every parameter, or none)."""
    opt = given.get("optimizer") or Optimizer.make("sgd")
    state = given["state"]
    required, allowed = state_keys(opt, given.get("b") is not None)
    kind = ("SGD without momentum" if opt.name == "sgd" and opt.momentum == 0
            else "SGD with momentum" if opt.name == "sgd"
            else f"{opt.name}{' with amsgrad' if opt.amsgrad else ''}")
    for key in state:
        if key not in allowed:
            why = ("b is not given" if key.startswith("b_") and key[2:] in
                   {k.removeprefix("b_") for k in allowed} else f"{kind} keeps no {key}")
            return [(f"state.{key}", f"is not a state of this exercise ({why})",
                     f"a saved state of {kind} holds {', '.join(allowed)}" if allowed
                     else f"{kind} keeps no state: leave state out")]
    if opt.name == "sgd" and state and set(state) != set(allowed):
        missing = next(k for k in allowed if k not in state)
        return [(f"state.{missing}", "is missing",
                 "torch saves the momentum buffer of every parameter, or none: give "
                 f"{' and '.join(allowed)}, or leave state out for a fresh optimizer")]
    for key in required:
        if key not in state:
            return [(f"state.{key}", "is missing",
                     f"a saved state of {kind} holds {', '.join(required)} (torch's step, "
                     "exp_avg, exp_avg_sq" + (", max_exp_avg_sq" if opt.amsgrad else "") + ")")]
    if "step" in state and state["step"] > MAX_SAVED_STEP:
        return [("state.step", f"is {state['step']}",
                 f"a saved step count of at most {MAX_SAVED_STEP:,}")]
    return []


MAX_SAVED_STEP = 1000
"""Largest saved Adam step count t_0, as many as a run may take (MAX_STEPS): β^(t_0 + t) is an
exact rational of about 10·t_0 bits for β₂ = 0.999; at t_0 = 1000 three resumed steps check in
a few seconds, at 10,000 they pass the time bound."""


MAX_STEPS = 1000
"""Most steps one exercise may ask for, Adam and AdamW included. Exact Adam values nest a
square root per step; past a few steps they stay exact as a DAG of unevaluated operations over
the earlier steps' values (derive/graph/evaluate.py: linear in the steps, where SymPy's
rewriting made them three times larger per step and capped Adam at 5 steps), and their
digits, roundings and comparisons come from certified enclosures (derive/kernel/intervals.py)."""


HEADERS = {"gradient_steps": "g_t", "b_gradient_steps": "∂L/∂b", "buffer_steps": "u_t",
           "m_steps": "m_t", "v_steps": "v_t", "w_steps": "w_t", "b_steps": "b_t",
           "loss_steps": "L_t"}
"""The steps table's columns (t, g_t, the state, w_t, b_t, L_t), in order, with their
headings in the course's notation."""


RECIPE = Recipe(
    name="optimizer_steps",
    title="Several torch.optim updates, fresh or resumed",
    doc=__doc__,
    inputs=(
        *(Input(i.name, i.kind, "the batch of every step: a list of [x, y] pairs (or give "
                "batches)", required=False) if i.name == "records" else i
          for i in sgd.MODEL_INPUTS),
        Input("steps", "count", "how many steps (default 1; with batches, one per batch)",
              required=False),
        Input("batches", "batches", "a batch of its own for each step, in place of records: "
              "a list of lists of [x, y] pairs, steps = how many", required=False),
        Input("optimizer", "optimizer", '{ name = "sgd" | "adam" | "adamw", momentum, '
              "dampening, weight_decay, nesterov, maximize, betas = [β1, β2], eps, amsgrad }; "
              "what is left out takes PyTorch's default", required=False),
        Input("state", "optimizer_state", "the saved optimizer state the run resumes from "
              "(torch's optimizer.state_dict()): { buffer, b_buffer } for SGD with momentum; "
              "{ step, m, v, v_max (amsgrad), b_m, b_v, b_v_max } for Adam and AdamW; left out, "
              "a fresh optimizer", required=False),
    ),
    quantities=QUANTITIES,
    mistakes=MISTAKES,
    check=check,
    graph=graph_of,
    node_words=WORDS,
    steps_columns=HEADERS,
    members_shown=1,
)
