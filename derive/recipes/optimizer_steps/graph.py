"""The derivation graph of `optimizer_steps`: one graph per configuration, steps t = 1…T as a
recurrent family: the gradients by backward, then the registered optimizer's own nodes for w
(and b), then the loss; fresh or resumed from a saved state, one batch or a batch per step."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Hashable, NamedTuple

import sympy as sp

from derive.graph import Node, family
from derive.graph.graph import Graph, boundaries, members
from derive.graph.notation import blocks
from derive.optimizers import SPECS, Optimizer
from derive.optimizers.chain import (
    ENTRIES,
    STEPS,
    WV,
    B,
    Entries,
    W,
    g_b,
    j,
    plus,
    t,
    times,
)
from derive.recipes import sgd_step as sgd
from derive.recipes.graphed import Graphed, as_computed

x, y, i, N = sgd.x, sgd.y, sgd.i, sgd.N
XV = family("opt_x_v", "x", vector=True)
"""A record's x when w is a vector: x_{i,j}, entry j of record i."""
loss_t = family("opt_L", "L")
BATCH = family("opt_B", "B")
CUT = family("opt_c", "c", integer=True)
blocks("opt_c", "opt_B")


class Config(NamedTuple):
    """What decides a graph's shape: which terms apply, never the hyperparameters' values."""

    name: str
    has_b: bool
    convention: str
    batches: bool
    """A batch of its own at each step (`batches`), not one batch for every step."""
    shape: Hashable
    """The optimizer's own shape (its module's `shape`)."""
    size: int = 0
    """d, the entries of a vector w (ŷ_i = w·x_i + b, x_i a vector of d); 0 for a number w."""


def optimizer(c) -> Optimizer:
    return c.given["optimizer"] if c.has("optimizer") else Optimizer.make("sgd")


def saved_state(c) -> dict:
    return c.given["state"] if c.has("state") else {}


def config(c) -> Config:
    opt = optimizer(c)
    saved = frozenset(k.removeprefix("b_") for k in saved_state(c))
    w = c.given["w"]
    return Config(opt.name, c.has("b"), sgd.loss_convention(c), c.has("batches"),
                  opt.spec.shape(opt, saved), len(w) if isinstance(w, list) else 0)


def chains(cfg: Config) -> list:
    w = WV if cfg.size else W
    return [w, B] if cfg.has_b else [w]


def _backward(cfg: Config, param: sp.Indexed) -> sp.Expr:
    """∂ℓ_i/∂param by `sympy.diff` through ŷ_i (sgd_step's backward). For an entry w_{t−1,j}
    of a vector w, ∂ŷ_i/∂w_{t−1,j} is the diff of the one term w_{t−1,j}·x_{i,j} of ŷ_i that
    holds it (SymPy's diff of the whole sum by an entry of symbolic index is a sum of
    Kronecker deltas); each concrete entry's diff of the whole ŷ_i is checked to be it."""
    predict = _predict(cfg, t - 1)
    if not (cfg.size and isinstance(param.base, Entries)):
        return _in_place(sgd._backward(cfg.convention, param, predict), sgd.yhat[i], predict)
    for e in range(1, cfg.size + 1):
        if sp.diff(predict, WV.param[t - 1, e]) != XV[i, e]:
            raise AssertionError(f"∂ŷ_i/∂w_(t−1,{e}) is not x_(i,{e})")
    term = times(param, XV[i, j])
    return _in_place(sgd._backward(cfg.convention, param, term), sgd.yhat[i], predict)


def _gradient(cfg: Config, param: sp.Indexed) -> sp.Expr:
    """(1/N) Σ_i ∂ℓ_i/∂ŷ_i · ∂ŷ_i/∂param at the step's starting point, by `sympy.diff`
    (sgd_step's backward with ŷ_i = w_{t−1}·x_i + b_{t−1} in place)."""
    return _batch_mean(cfg, _backward(cfg, param))


def batch_sum(cfg: Config, term: sp.Expr) -> sp.Expr:
    """Σ_i term over the step's batch (a mistake's gradient: the sum, not the mean)."""
    if not cfg.batches:
        return sp.Sum(term, (i, 1, N))
    return sp.Sum(term, (i, CUT[t - 1] + 1, CUT[t]))


def gradient_summed(cfg: Config, param: sp.Indexed) -> sp.Expr:
    """A mistake: Σ_i ∂ℓ_i/∂param, the records' gradients summed instead of averaged."""
    return batch_sum(cfg, _backward(cfg, param))


def loss_before(cfg: Config) -> sp.Expr:
    """A mistake: L at (w_{t−1}, b_{t−1}), the loss before the step instead of after it."""
    return _batch_mean(cfg, sgd._loss(_predict(cfg, t - 1), cfg.convention))


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
    """w_k·x_i + b_k (or w_k·x_i): k = t − 1 for the gradient, t for the loss after it; for
    a vector w, w_{k,1}·x_{i,1} + … + w_{k,d}·x_{i,d} + b_k, every entry written out."""
    if cfg.size:
        terms = [times(WV.param[k, e], XV[i, e]) for e in range(1, cfg.size + 1)]
        product = terms[0] if len(terms) == 1 else plus(*terms)
    else:
        product = times(W.param[k], x[i])
    return product if not cfg.has_b else plus(product, B.param[k])


def _loss(cfg: Config) -> sp.Expr:
    """L_t = (1/N) Σ_i ℓ_i at (w_t, b_t): the loss of step t's batch after step t."""
    return _batch_mean(cfg, sgd._loss(_predict(cfg, t), cfg.convention))


@lru_cache(maxsize=None)
def graph(cfg: Config) -> Graph:
    """The graph of one configuration."""
    spec = SPECS[cfg.name]
    w = chains(cfg)[0]
    nodes = [Node("gradient_steps", w.grad, _gradient(cfg, w.param[t - 1]), STEPS)]
    if cfg.has_b:
        nodes.append(Node("b_gradient_steps", g_b, _gradient(cfg, B.param[t - 1]), STEPS))
    for c in chains(cfg):
        nodes += spec.nodes(cfg.shape, c)
    nodes = [replace(n, element=ENTRIES) if isinstance(n.symbol, Entries) else n
             for n in nodes]
    nodes.append(Node("loss_steps", loss_t, _loss(cfg), STEPS))
    inputs = {
        "w": lambda c: c["w"], "b": lambda c: c["b"], "eta": lambda c: c["lr"],
        "x": lambda c: members([r[0] for r in records(c)]),
        "y": lambda c: members([r[1] for r in records(c)]),
        "opt_T": steps_of,
        "opt_t0": lambda c: sp.Integer(saved_state(c).get("step", 0)),
    }
    if cfg.size:
        del inputs["x"]
        inputs.update({
            "opt_w0_v": lambda c: members(c["w"]), "opt_dim": lambda c: sp.Integer(cfg.size),
            "opt_x_v": lambda c: {(m, e): v for m, r in enumerate(records(c), 1)
                                  for e, v in enumerate(r[0], 1)}})
    for name, read in spec.symbols.items():
        inputs[name] = lambda c, read=read: read(optimizer(c))
    for slot in spec.slots:
        for ch in chains(cfg):
            inputs[ch.saved_input(slot)] = _saved(ch.state_key(slot), slot, ch.vector)
    if cfg.batches:
        inputs["opt_B"] = lambda c: members([sp.Integer(len(b)) for b in c["batches"]])
        inputs["opt_c"] = lambda c: boundaries(len(b) for b in c["batches"])
    else:
        inputs["N"] = lambda c: sp.Integer(len(records(c)))
    return Graph(tuple(nodes), inputs, opaque=frozenset({"opt_B"}))


def _saved(key: str, slot, vector: bool = False):
    """A slot's state at step 0: the saved one, else a fresh optimizer's (`initial`); of a
    vector w, entry by entry (a fresh optimizer's is the same for every entry)."""
    def read(c):
        state = saved_state(c)
        if key in state:
            return members(state[key]) if vector else state[key]
        first = slot.initial(optimizer(c))
        return members([first] * len(c["w"])) if vector else first
    return read


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


def graph_of(ctx) -> Graph:
    return graph(config(ctx))


GRAPHED = Graphed(graph_of, ("gradient_steps",), shape=as_computed)
"""Only a claimed `gradient_steps` is carried forward: the optimizer re-run on the author's
gradients (its later quantities are computed, never read from claims)."""
