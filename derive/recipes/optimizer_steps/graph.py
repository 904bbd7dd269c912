"""The derivation graph of `optimizer_steps`: one graph per optimizer configuration, steps
t = 1…T as a recurrent family, in torch's order of operations (`_single_tensor_sgd`,
`_single_tensor_adam`); fresh or resumed from a saved state, one batch or a batch per step."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import sympy as sp

from derive.graph import Family, Node, family, symbol
from derive.graph.graph import Graph, members
from derive.graph.notation import blocks, index
from derive.model.optimizers import Optimizer
from derive.recipes import sgd_step as sgd
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

def plus(*terms) -> sp.Expr:
    return sp.Add(*terms, evaluate=False)


def times(*factors) -> sp.Expr:
    return sp.Mul(*factors, evaluate=False)


def minus(*factors) -> sp.Expr:
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
    product = times(W.param[k], x[i])
    return product if not cfg.has_b else plus(product, B.param[k])


def decayed_gradient(cfg: Config, c: Chain, coupled: bool) -> sp.Expr | None:
    """torch's gradient before the state: −g_t with maximize, + λ·w_{t−1} with (coupled)
    weight decay; None when it is g_t itself."""
    if not cfg.maximize and not (cfg.decay and coupled):
        return None
    out = -c.grad[t] if cfg.maximize else c.grad[t]
    if cfg.decay and coupled:
        out = plus(out, times(lam, c.param[t - 1]))
    return out


def update(c: Chain, direction: sp.Expr, shrink: bool = False) -> sp.Expr:
    """w_{t−1} − η·direction (AdamW first shrinks: w_{t−1}·(1 − η·λ))."""
    start = c.param[t - 1]
    if shrink:
        start = times(start, plus(1, minus(eta, lam)))
    return plus(start, minus(eta, direction))


def adam_direction(c: Chain) -> sp.Expr:
    """m̂_t / (√v̂_t + ε)."""
    return times(c.m_hat[t], sp.Pow(plus(sp.sqrt(c.v_hat[t]), eps), -1, evaluate=False))


def moments(c: Chain, grad: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    return (plus(times(beta1, c.m[t - 1]), times(plus(1, -beta1), grad)),
            plus(times(beta2, c.v[t - 1]), times(plus(1, -beta2), sp.Pow(grad, 2))))


def buffer_rule(cfg: Config, c: Chain, grad: sp.Expr, fresh: bool | None = None) -> sp.Expr:
    """u_t = μ·u_{t−1} + (1 − τ)·g̃_t, the first buffer the gradient itself (u_0 = 0 gives
    that when τ = 0; with dampening the first step is a case of its own). Resumed with a saved
    buffer u_0 (not `fresh`), every step is the later rule, the first one included (torch's
    momentum_buffer is not None); `fresh` forces torch's first-step rule at t = 1 (a lost
    buffer)."""
    fresh = not cfg.saved_buffer if fresh is None else fresh
    if not cfg.dampening:
        later = plus(times(mu, c.buffer[t - 1]), grad)
        if not fresh or not cfg.saved_buffer:
            return later
        return sp.Piecewise((grad, sp.Eq(t, 1)), (later, True))
    later = plus(times(mu, c.buffer[t - 1]), times(plus(1, -tau), grad))
    return sp.Piecewise((grad, sp.Eq(t, 1)), (later, True)) if fresh else later


def step_count(cfg: Config, shift: int = 0) -> sp.Expr:
    """The optimizer's step count at step t: t, or t_0 + t resumed (+ `shift`, a mistake)."""
    if not cfg.resumed:
        return t if not shift else plus(t, shift)
    return plus(T0, t) if not shift else plus(T0, t, shift)


def bias_corrected(cfg: Config, c: Chain, count: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """m̂_t = m_t/(1 − β₁^count), v̂_t = v_t (or v_{max,t})/(1 − β₂^count)."""
    second = c.v_max[t] if cfg.amsgrad else c.v[t]
    return (c.m[t] / plus(1, -beta1 ** count), second / plus(1, -beta2 ** count))


def _start(cfg: Config, c: Chain, key: str, saved: bool) -> sp.Expr:
    return SAVED["" if c is W else "b"][key] if saved else sp.S.Zero


def _nodes(cfg: Config, c: Chain, names: dict) -> list[Node]:
    """One parameter's update, in torch's order."""
    adam = cfg.name != "sgd"
    decayed = decayed_gradient(cfg, c, coupled=not cfg.decoupled)
    out: list[Node] = []
    grad = c.grad[t]
    if decayed is not None:
        out.append(Node(names["decayed"], c.decayed, decayed, STEPS))
        grad = c.decayed[t]
    if not adam:
        direction = grad
        if cfg.momentum:
            out.append(Node(names["buffer"], c.buffer, buffer_rule(cfg, c, grad), STEPS,
                            start=_start(cfg, c, "buffer", cfg.saved_buffer)))
            direction = c.buffer[t]
            if cfg.nesterov:
                out.append(Node(names["direction"], c.direction,
                                plus(grad, times(mu, c.buffer[t])), STEPS))
                direction = c.direction[t]
        out.append(Node(names["param"], c.param, update(c, direction), STEPS,
                        start=names["start"]))
        return out
    m_def, v_def = moments(c, grad)
    out += [Node(names["m"], c.m, m_def, STEPS, start=_start(cfg, c, "m", cfg.resumed)),
            Node(names["v"], c.v, v_def, STEPS, start=_start(cfg, c, "v", cfg.resumed))]
    if cfg.amsgrad:
        out.append(Node(names["v_max"], c.v_max, sp.Max(c.v_max[t - 1], c.v[t]), STEPS,
                        start=_start(cfg, c, "v_max", cfg.resumed)))
    m_hat, v_hat = bias_corrected(cfg, c, step_count(cfg))
    out += [Node(names["m_hat"], c.m_hat, m_hat, STEPS),
            Node(names["v_hat"], c.v_hat, v_hat, STEPS),
            Node(names["param"], c.param,
                 update(c, adam_direction(c), shrink=cfg.decoupled and cfg.decay), STEPS,
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


GRAPHED = Graphed(graph_of, ("gradient_steps",), shape=as_computed)
"""Only a claimed `gradient_steps` is carried forward: the optimizer re-run on the author's
gradients (its later quantities are computed, never read from claims)."""
