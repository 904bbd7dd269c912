"""The symbols every optimizer's update is written in: the steps t = 1…T, the learning rate
η, the saved step count t_0, and one `Chain` per parameter (w, and b with its own state):
θ_t, its gradient g_t and the families of its state. A vector w (entries j = 1…d) is one
chain too, `WV`, whose families hold an entry per step (w_{t,j}, m_{t,j}): every registered
optimizer updates element-wise, so its update rule, written for one coordinate, is each
entry's as it stands."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from derive.graph import Family, Node, family, lesson, symbol
from derive.graph.lesson import eta, t
from derive.graph.notation import index

T = symbol("opt_T", "T", integer=True, positive=True)
STEPS = Family("steps", t, T)

T0 = symbol("opt_t0", "t", sub="0", integer=True, nonnegative=True)
"""The saved step count of a resumed run (torch's state["step"]): step t of the resumed run is
the optimizer's step t_0 + t."""
lam = symbol("opt_lambda", "lambda")
eps = symbol("opt_eps", "varepsilon")
mu = symbol("opt_mu", "mu")


j = index("j")
D = symbol("opt_dim", "d", integer=True, positive=True)
ENTRIES = Family("entries", j, D)
"""The entries j = 1…d of a vector parameter w."""


class Entries(sp.IndexedBase):
    """A family of a vector parameter's chain: one value per step and entry, θ_{t,j}. Indexed
    by the step alone, as an optimizer's update rule is written (m[t − 1]), it is entry j of
    that step (m_{t−1,j}), so the rule of one coordinate is every entry's."""

    def __getitem__(self, indices, **kw_args):
        if not isinstance(indices, tuple):
            indices = (indices, j)
        return super().__getitem__(indices, **kw_args)


def _join(*parts: str) -> str:
    return ",".join(p for p in parts if p)


@lru_cache(maxsize=None)
def _declared_family(name: str, letter: str, accent: str, sub: str,
                     vector: bool = False) -> sp.IndexedBase:
    """A state family of the chains, declared the first time an optimizer asks for it (of a
    vector parameter: `Entries`, written m_{t,j})."""
    base = family(name, letter, accent=accent, sub=sub, vector=vector)
    return Entries(base.label) if vector else base


@lru_cache(maxsize=None)
def _declared_symbol(name: str, letter: str, sub: str) -> sp.Symbol:
    """A saved state u_0, v_{max,0}, declared the first time an optimizer asks for it."""
    return symbol(name, letter, sub=sub)


@dataclass(frozen=True)
class Chain:
    """One parameter's update: `param` (w_t or b_t) moved by the gradient `grad`, node names
    with `prefix` ("" for w, "b_" for b), subscripts with `sub`."""

    param: sp.IndexedBase
    grad: sp.IndexedBase
    prefix: str
    sub: str
    start: sp.Expr
    param_node: str
    vector: bool = False
    """A vector parameter: its families are `Entries`, its nodes one value per entry j."""

    def name(self, node: str) -> str:
        """The node's name in this chain: m_steps, b_m_steps."""
        return self.prefix + node

    @property
    def _key(self) -> str:
        """Its part of the internal names: "" for w, "_b" for b, "_v" for a vector w."""
        return ("_" + self.sub if self.sub else "") + ("_v" if self.vector else "")

    def family(self, base: str, letter: str, accent: str = "", sub: str = "") -> sp.IndexedBase:
        """This chain's family `base` (opt_m, opt_m_b), written letter_{chain,sub}."""
        return _declared_family(f"opt_{base}{self._key}", letter, accent, _join(self.sub, sub),
                                self.vector)

    def state(self, slot) -> sp.IndexedBase:
        return self.family(slot.base, slot.letter, sub=slot.sub)

    def saved(self, slot) -> sp.Expr:
        """The saved state a resumed run starts from: u_0, v_{max,0}, of b: u_{b,0}; of a
        vector w, entry j: u_{0,j}."""
        if self.vector:  # written u_0 as a whole, u_{0,j} entry by entry
            return _declared_family(f"opt_{slot.base}0{self._key}", slot.letter, "",
                                    _join(slot.sub, "0"), True)[(j,)]
        return _declared_symbol(f"opt_{slot.base}0{self._key}", slot.letter,
                                _join(slot.sub, self.sub, "0"))

    def saved_input(self, slot) -> str:
        """The graph input that binds `saved(slot)` (the family's name for a vector)."""
        s = self.saved(slot)
        return s.base.label.name if isinstance(s, sp.Indexed) else s.name

    def state_key(self, slot) -> str:
        """Its key in the exercise's `state` table: m, b_m."""
        return self.prefix + slot.key

    def decayed(self) -> sp.IndexedBase:
        return self.family("gt", "g", accent="tilde")


g, g_b = family("opt_g", "g"), family("opt_g_b", "g", sub="b")
W = Chain(family("opt_w", "w"), g, "", "", lesson.w, "w_steps")
B = Chain(family("opt_b", "b"), g_b, "b_", "b", lesson.b, "b_steps")
W0V = family("opt_w0_v", "w", vector=True)
"""The given vector w, entry j: w_j (w_{0,j} = w_j)."""
WV = Chain(_declared_family("opt_w_v", "w", "", "", True),
           _declared_family("opt_g_v", "g", "", "", True), "", "", W0V[j], "w_steps", True)
"""A vector w's chain: w_{t,j} moved by g_{t,j}, its state m_{t,j}, v_{t,j}, … per entry."""


# ---------------------------------------------------------------------------- expressions
# Written unevaluated, so that each formula shows torch's terms as they are.

def plus(*terms) -> sp.Expr:
    return sp.Add(*terms, evaluate=False)


def times(*factors) -> sp.Expr:
    return sp.Mul(*factors, evaluate=False)


def minus(*factors) -> sp.Expr:
    return sp.Mul(-1, *factors, evaluate=False)


def over(a, b) -> sp.Expr:
    """a/b as written."""
    return times(a, sp.Pow(b, -1, evaluate=False))


def decayed_gradient(c: Chain, maximize: bool, decay: bool) -> sp.Expr | None:
    """torch's gradient before the state: −g_t with maximize, + λ·θ_{t−1} with (coupled)
    weight decay; None when it is g_t itself."""
    if not maximize and not decay:
        return None
    out = -c.grad[t] if maximize else c.grad[t]
    if decay:
        out = plus(out, times(lam, c.param[t - 1]))
    return out


DECAYED_WORDS = {
    "decayed_gradient": ("The gradient torch uses: sign (maximize) and weight decay",
                         "torch 实际使用的梯度:符号(maximize)与权重衰减"),
    "b_decayed_gradient": ("The gradient of b torch uses", "torch 对 b 使用的梯度"),
}
"""The words of `decayed_nodes`' node g̃_t, w's and b's (every optimizer's)."""


def decayed_nodes(c: Chain, maximize: bool, decay: bool) -> list:
    """The node g̃_t = torch's gradient before the state, where it is not g_t itself."""
    decayed = decayed_gradient(c, maximize, decay)
    if decayed is None:
        return []
    return [Node(c.name("decayed_gradient"), c.decayed(), decayed, STEPS)]


def saved_or_zero(c: Chain, slot, resumed: bool) -> sp.Expr:
    """A state's start: the saved value of a resumed run, else a fresh optimizer's 0."""
    return c.saved(slot) if resumed else sp.S.Zero


def used_gradient(c: Chain, maximize: bool, decay: bool) -> sp.Expr:
    """The gradient the state reads: g̃_t where torch changes it, else g_t."""
    return c.decayed()[t] if decayed_gradient(c, maximize, decay) is not None else c.grad[t]


def step_count(resumed: bool, shift: int = 0) -> sp.Expr:
    """The optimizer's step count at step t: t, or t_0 + t resumed (+ `shift`, a mistake)."""
    if not resumed:
        return t if not shift else plus(t, shift)
    return plus(T0, t) if not shift else plus(T0, t, shift)


def update(c: Chain, direction: sp.Expr, rate: sp.Expr = eta, shrink: bool = False) -> sp.Expr:
    """θ_{t−1} − rate·direction (AdamW first shrinks: θ_{t−1}·(1 − η·λ))."""
    start = c.param[t - 1]
    if shrink:
        start = times(start, plus(1, minus(eta, lam)))
    return plus(start, minus(rate, direction))


def fresh_first(first: sp.Expr, later: sp.Expr) -> sp.Expr:
    """`first` at t = 1, `later` after it (a state started anew)."""
    return sp.Piecewise((first, sp.Eq(t, 1)), (later, True))
