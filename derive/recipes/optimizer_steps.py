"""`optimizer_steps`: several updates on the same batch, exactly as torch.optim computes them
(SGD with momentum, dampening, weight decay, Nesterov, maximize; Adam; AdamW; amsgrad).

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
from derive.graph.notation import index
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
    decoupled: bool = False
    """AdamW's decay θ·(1 − η·λ) (AdamW, or Adam with decoupled_weight_decay)."""


def _optimizer(c) -> Optimizer:
    return c.given["optimizer"] if c.has("optimizer") else Optimizer.make("sgd")


def config(c) -> Config:
    opt = _optimizer(c)
    sgd_ = opt.name == "sgd"
    return Config(opt.name, c.has("b"), sgd.loss_convention(c),
                  sgd_ and opt.momentum != 0, sgd_ and opt.momentum != 0 and opt.dampening != 0,
                  sgd_ and opt.momentum != 0 and bool(opt.nesterov), opt.weight_decay != 0,
                  bool(opt.maximize), not sgd_ and bool(opt.amsgrad), opt.decoupled)


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
    return sp.Sum(record, (i, 1, N)) / N


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


def _buffer(cfg: Config, c: Chain, grad: sp.Expr) -> sp.Expr:
    """u_t = μ·u_{t−1} + (1 − τ)·g̃_t, the first buffer the gradient itself (u_0 = 0 gives
    that when τ = 0; with dampening the first step is a case of its own)."""
    if not cfg.dampening:
        return _add(_times(mu, c.buffer[t - 1]), grad)
    later = _add(_times(mu, c.buffer[t - 1]), _times(_add(1, -tau), grad))
    return sp.Piecewise((grad, sp.Eq(t, 1)), (later, True))


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
                            start=sp.S.Zero))
            direction = c.buffer[t]
            if cfg.nesterov:
                out.append(Node(names["direction"], c.direction,
                                _add(grad, _times(mu, c.buffer[t])), STEPS))
                direction = c.direction[t]
        out.append(Node(names["param"], c.param, _step(c, direction), STEPS,
                        start=names["start"]))
        return out
    m_def, v_def = _moments(c, grad)
    out += [Node(names["m"], c.m, m_def, STEPS, start=sp.S.Zero),
            Node(names["v"], c.v, v_def, STEPS, start=sp.S.Zero)]
    second = c.v[t]
    if cfg.amsgrad:
        out.append(Node(names["v_max"], c.v_max, sp.Max(c.v_max[t - 1], c.v[t]), STEPS,
                        start=sp.S.Zero))
        second = c.v_max[t]
    out += [Node(names["m_hat"], c.m_hat, c.m[t] / _add(1, -beta1 ** t), STEPS),
            Node(names["v_hat"], c.v_hat, second / _add(1, -beta2 ** t), STEPS),
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
    """L_t = (1/N) Σ_i ℓ_i at (w_t, b_t): the batch loss after step t."""
    return sp.Sum(sgd._loss(_predict(cfg, t), cfg.convention), (i, 1, N)) / N


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
    records = lambda c: c["records"]  # noqa: E731
    opt = _optimizer
    return Graph(tuple(nodes), {
        "w": lambda c: c["w"], "b": lambda c: c["b"], "eta": lambda c: c["lr"],
        "N": lambda c: sp.Integer(len(records(c))),
        "x": lambda c: members([r[0] for r in records(c)]),
        "y": lambda c: members([r[1] for r in records(c)]),
        "opt_T": lambda c: sp.Integer(int(c["steps"])) if c.has("steps") else sp.S.One,
        "opt_mu": lambda c: opt(c).momentum, "opt_tau": lambda c: opt(c).dampening,
        "opt_lambda": lambda c: opt(c).weight_decay,
        "opt_beta1": lambda c: opt(c).betas[0], "opt_beta2": lambda c: opt(c).betas[1],
        "opt_eps": lambda c: opt(c).eps,
    })


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
}
"""An exercise that makes each mistake (TOML text values), and the claim it leads to."""


def _mistake(name: str):
    def compute(ctx):
        v = variants(config(ctx)).get(name)
        if v is None:
            raise KeyError(f"{name} does not apply to this optimizer")
        return GRAPHED.variant(v)(ctx)
    return compute


# ----------------------------------------------------------------------------- quantities

def _momentum(given) -> bool:
    opt = given.get("optimizer")
    return opt is not None and opt.name == "sgd" and opt.momentum != 0


def _adam(given) -> bool:
    opt = given.get("optimizer")
    return opt is not None and opt.name in ("adam", "adamw")


DOCS = {
    "gradient_steps": "∂L/∂w at each step's starting point (w_{t−1}, b_{t−1})",
    "b_gradient_steps": "∂L/∂b at each step's starting point",
    "w_steps": "w after each step",
    "b_steps": "b after each step",
    "buffer_steps": "SGD's momentum buffer u_t of w after each step (first: the gradient)",
    "m_steps": "Adam's first moment of w after each step",
    "v_steps": "Adam's second moment of w after each step",
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

CLAIMABLE = ("gradient_steps", "b_gradient_steps", "w_steps", "b_steps", "buffer_steps",
             "m_steps", "v_steps")
GRAPHED = Graphed(graph_of, ("gradient_steps",), shape=as_computed)
"""Only a claimed `gradient_steps` is carried forward: the optimizer re-run on the author's
gradients (its later quantities are computed, never read from claims)."""


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
    Quantity("w_steps", DOCS["w_steps"], _value("w_steps"), zh="各步权重"),
    Quantity("b_steps", DOCS["b_steps"], _value("b_steps"), needs=("b",),
             zh="各步偏置"),
    Quantity("buffer_steps", DOCS["buffer_steps"], _value("buffer_steps"), when=_momentum,
             when_text="an SGD optimizer with momentum > 0", zh="动量缓冲"),
    Quantity("m_steps", DOCS["m_steps"], _value("m_steps"), when=_adam,
             when_text='optimizer = { name = "adam" } or "adamw"', zh="一阶矩"),
    Quantity("v_steps", DOCS["v_steps"], _value("v_steps"), when=_adam,
             when_text='optimizer = { name = "adam" } or "adamw"', zh="二阶矩"),
)

TARGETS = {"buffer_first_damped": "buffer_steps"}
"""The quantity each mistake gives (w_steps unless named here)."""

MISTAKES = tuple(
    Mistake(name, TARGETS.get(name, "w_steps"), en, _mistake(name), zh=zh,
            example=Example(*EXAMPLES[name]))
    for name, (en, zh) in MISTAKE_WORDS.items())


def check(given):
    problems = []
    if given.get("steps") is not None and given["steps"] > MAX_STEPS:
        problems.append(("steps", f"is {given['steps']}", f"at most {MAX_STEPS} steps"))
    return problems


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
    title="Several torch.optim updates on the same batch",
    doc=__doc__,
    inputs=(
        *sgd.MODEL_INPUTS,
        Input("steps", "count", "how many steps on the same batch (default 1)", required=False),
        Input("optimizer", "optimizer", '{ name = "sgd" | "adam" | "adamw", momentum, '
              "dampening, weight_decay, nesterov, maximize, betas = [β1, β2], eps, amsgrad }; "
              "what is left out takes PyTorch's default", required=False),
    ),
    quantities=QUANTITIES,
    mistakes=MISTAKES,
    check=check,
    graph=graph_of,
    node_words=WORDS,
    steps_columns=HEADERS,
    members_shown=1,
)
