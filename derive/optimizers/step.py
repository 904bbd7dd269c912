"""One step of a configured optimizer on one coordinate, derived from its graph nodes (the
update rule is stated once, in its module): member t = 1 of each node with θ_0 = θ, g_1 = the
gradient, the state at t − 1 = the given state and the step count t_0 = its t."""

from __future__ import annotations

import sympy as sp

from derive.optimizers.chain import T0, W, eta, t
from derive.optimizers.spec import Optimizer


class State:
    """One coordinate's optimizer state: the state slots by their key (buffer; m, v, v_max;
    sum; square_avg, grad_avg) and the step count t. A slot not held is a fresh one."""

    def __init__(self, t: int = 0, **slots):
        self.t, self.slots = t, dict(slots)

    def __getattr__(self, key: str):
        if key.startswith("_") or key in ("t", "slots"):
            raise AttributeError(key)
        return self.slots.get(key)

    def replace(self, t: int | None = None, **slots) -> "State":
        return State(self.t if t is None else t, **{**self.slots, **slots})

    def __repr__(self) -> str:
        return f"State(t={self.t}, {self.slots})"


def step(theta, grad, state: State, opt: Optimizer, lr) -> tuple[sp.Expr, State]:
    """One torch.optim step of `opt` from θ with gradient g: (θ_1, the state after it)."""
    spec = opt.spec
    saved = frozenset(state.slots) | ({"step"} if state.slots or state.t else frozenset())
    nodes = spec.nodes(spec.shape(opt, saved), W)
    names = {name: sp.sympify(f(opt)) for name, f in spec.symbols.items()}
    env: dict = {eta: lr, T0: sp.Integer(state.t), W.param[0]: theta, W.grad[1]: grad}
    for slot in spec.slots:
        if slot.key in state.slots:
            env[W.saved(slot)] = state.slots[slot.key]
        elif slot.initial is not None:
            env[W.saved(slot)] = sp.sympify(slot.initial(opt))

    def value(e):
        e = sp.sympify(e).xreplace({t: sp.S.One})
        e = e.xreplace({s: names[s.name] for s in e.free_symbols if s.name in names})
        return e.xreplace(env)
    after = dict(state.slots)
    for node in nodes:
        if node.start is not None and node.symbol != W.param:
            env[node.symbol[0]] = value(node.start)
        env[node.symbol[1]] = value(node.expr)
        slot = next((s for s in spec.slots if W.name(s.node) == node.name), None)
        if slot is not None:
            after[slot.key] = env[node.symbol[1]]
    return env[W.param[1]], State(state.t + 1, **after)
