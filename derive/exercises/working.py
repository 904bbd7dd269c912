"""The computed working of a graph recipe: its graph for the exercise's inputs and every value
a derivation shows (inputs through the graph's binders, quantities and intermediate nodes),
each computed once, on first use. Renderers draw a working from this (`derive.render.working`
prints it); they compute nothing themselves."""

from __future__ import annotations

import sympy as sp

from derive.graph.evaluate import TooLarge, compiled, reset_work, sympy_value
from derive.graph.overrides import input_symbols
from derive.recipes.base import Context, expand_exact

__all__ = ["MEMBERS_SHOWN", "TooLarge", "Working", "given_node", "graph_for"]

MEMBERS_SHOWN = 8
"""A family with more members shows the first ones, then says how many are left out."""


def graph_for(recipe, given):
    """The exercise's derivation graph, or None for a recipe without one."""
    if recipe.graph is None:
        return None
    return recipe.graph(Context(recipe, given))


def given_symbols(recipe, given) -> tuple[object, dict[str, str]]:
    """The exercise's graph and each input that is one of its symbols (lr → eta, params → P),
    or (None, {}) for a recipe without a graph."""
    graph = graph_for(recipe, given)
    return (None, {}) if graph is None else (graph, input_symbols(graph))


def given_node(graph, node) -> bool:
    """A node that is an input as given (∇L_k when the exercise gives the microbatch means):
    its working is its value, not `∇L_k = ∇L_k`."""
    e = node.expr
    return (isinstance(e, sp.Indexed) and node.over is not None
            and e.base.label.name in graph.inputs and e.indices == (node.over.index,))


class Working:
    """The values a derivation shows: inputs through the graph's binders, quantities and
    intermediate nodes computed once."""

    def __init__(self, recipe, given):
        reset_work()  # one computation, with its own budget of work (the key's was spent)
        self.recipe = recipe
        self.ctx = Context(recipe, given)
        self.graph = recipe.graph(self.ctx)
        self.scope = self.graph.scope(
            self.ctx, shared=lambda name: recipe.quantity(name) is not None)
        self.shown = recipe.members_shown or MEMBERS_SHOWN
        self._simplified: dict[str, object] = {}

    def value(self, name: str, members):
        """The value a substituted line shows for a symbol or a family member, as SymPy."""
        v = self._value(name, members)
        return None if v is None else sympy_value(v)

    def _value(self, name: str, members):
        key = name
        if key in self.graph.opaque:
            return None
        node = self.graph.by_key.get(key)
        v = self.scope[key] if (node is not None or key in self.graph.inputs) else None
        if members is None:
            return None if isinstance(v, dict) else v
        if not isinstance(v, dict):
            return None
        return v.get(members[0] if len(members) == 1 else members)

    def node_value(self, name: str):
        """A node's exact value in its simplest closed form (as the answer key shows it),
        simplified once per node."""
        if name not in self._simplified:
            self._simplified[name] = expand_exact(self.scope.compute(name))
        return self._simplified[name]

    def expr_value(self, expr: sp.Basic):
        """The value of an expression over this working's nodes and inputs, as SymPy."""
        return sympy_value(compiled(expr)(self.scope, {}))

    def size(self, node) -> int:
        """The length of a vector node's vectors (its element's size input)."""
        return int(self.scope[node.element.size.name])

    def hidden(self, name: str) -> int:
        """How many members of a family node are left out of the working."""
        node = self.graph.by_name[name]
        if node.over is None:
            return 0
        return max(0, len(self.node_value(name)) - self.shown)
