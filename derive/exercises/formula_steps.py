"""Formula answers for a quantity computed per step: a claim such as `w_{t-1} - lr*g_t` is a
statement about every step t, as a formula of the step before.

Both sides are written in one step: every quantity of step t is replaced by its definition,
down to the givens and to the members of step t − 1 of the recurrences (w_{t−1}, v_{t−1}),
which stay free values. The claim holds when it equals the definition for every value of
those and of the givens: proved for general t ≥ 1 where the kernel can, else step by step for
the exercise's steps 1 … T (at step 1 the members of step 0 are the starts), the first step
that differs giving a witness (its step, the values of step t − 1 and of the givens).
"""

from __future__ import annotations

import sympy as sp

from derive.graph.graph import Graph
from derive.graph.symbolic import NoForm, reads

MAX_DEPTH = 200
"""Most quantities one step's form inlines through (a guard against a cycle in one step)."""


def step_quantity(graph: Graph, name: str) -> bool:
    """Whether `name` is computed per step from the step before: a member t of a family over
    steps that is, or reads, a recurrence (a quantity with a start)."""
    node = graph.by_name[name]
    if node.over is None or node.element is not None:
        return False
    read = [graph.by_name[n] for n in reads(graph, name)]
    if not any(n.start is not None or n.name in graph.recurrent for n in read):
        return False  # a family over steps of its own (lr_t = eta*min(1, t/W))
    # a formula can name the members it reads, w_{t-1}
    return all(n.key == n.name for n in read if n.start is not None or n.name == name)


def previous(label: str, step: int | None = None) -> sp.Symbol:
    """The member of step t − 1 of the recurrence `label` as a free value: `w_{t-1}`, or at a
    given step its number (`w_2` at step 3)."""
    return sp.Symbol(f"{label}_{{t-1}}" if step is None else f"{label}_{step - 1}", real=True)


class StepForm:
    """One step of a graph's recurrences written out: quantities of step t inlined, members
    of step t − 1 of a recurrence as `previous` symbols."""

    def __init__(self, graph: Graph, name: str):
        self.graph = graph
        self.t = graph.by_name[name].over.index
        self.starts: dict[str, sp.Expr] = {}
        """Each recurrence read, by its label: its start (member 0)."""

    def __call__(self, e: sp.Basic, depth: int = 0) -> sp.Basic:
        if depth > MAX_DEPTH:
            raise NoForm("quantities nested too deeply in one step")
        if isinstance(e, sp.Indexed):
            return self._member(e, depth)
        if isinstance(e, sp.Symbol):
            node = self.graph.by_key.get(e.name)
            if node is None or node.indices:
                return e
            if e.name in self.graph.recurrent:
                raise NoForm(f"{node.name} reads the last step of a recurrence")
            return self(node.expr, depth + 1)
        if isinstance(e, sp.Derivative):  # d/dw_{t-1}: with respect to the free value
            return sp.Derivative(self(e.expr, depth),
                                 *[(self(v, depth), c) for v, c in e.variable_count])
        if isinstance(e, sp.Sum):
            return sp.Sum(self(e.function, depth), *e.limits)
        if not e.args or isinstance(e, (sp.Number, sp.IndexedBase)):
            return e
        return e.func(*[self(a, depth) for a in e.args])

    def _member(self, e: sp.Indexed, depth: int) -> sp.Basic:
        label = e.base.label.name
        node = self.graph.by_key.get(label)
        if node is None:
            return e.base[tuple(self(a, depth) for a in e.indices)]
        if node.over is None or node.over.index != self.t:
            if self.t in e.free_symbols:
                raise NoForm(f"{node.name} is read at a member of step t")
            return self(node.expr.xreplace(dict(zip(node.indices, e.indices))), depth + 1)
        back = sp.expand(self.t - e.indices[0])
        if back == 0:
            return self(node.expr, depth + 1)
        if back == 1 and node.start is not None:
            self.starts[label] = node.start
            return previous(label)
        raise NoForm(f"{node.name}_{{{e.indices[0]}}} is not a member of step t or t − 1")

    def at_step(self, e: sp.Basic, step: int, start=None) -> sp.Basic:
        """`e` at a given step: t is its number, each member of step t − 1 named by its
        step, or at step 1 the start (`start` maps a recurrence's start expression to its
        value for the exercise)."""
        subs: dict = {self.t: sp.Integer(step)}
        for label, begin in self.starts.items():
            subs[previous(label)] = (start(begin) if start is not None else begin) \
                if step == 1 else previous(label, step)
        return e.xreplace(subs)
