"""The working of a graph recipe: each node as formula → substitution → exact result, per
member for a family (each record, each microbatch), all from the node's one expression."""

from __future__ import annotations

import functools

import sympy as sp

from derive.graph.evaluate import reset_work, sympy_value
from derive.graph.notation import in_scope
from derive.recipes.base import Context, expand_exact
from derive.render.formula_tex import Printer, formula, head, substituted
from derive.render.latex import Tex

MEMBERS_SHOWN = 8
"""A family with more members shows the first ones, then says how many are left out."""


def graph_for(recipe, given):
    """The exercise's derivation graph, or None for a recipe without one."""
    if recipe.graph is None:
        return None
    return recipe.graph(Context(recipe, given))


def formula_tex(recipe, given, name: str) -> str | None:
    """`head = formula` of a quantity, e.g. `w' = w - \\eta \\cdot g`; None without a graph."""
    graph = graph_for(recipe, given)
    if graph is None or name not in graph.by_name:
        return None
    with in_scope(graph.notation):
        return _formula_tex(graph, graph.by_name[name])


def _formula_tex(graph, node) -> str:
    if node.element is not None:  # a vector as a whole: clip(g_k) = s_k · g_k
        return f"{_whole_head(node).text} = {_whole(node).text}"
    shown = head(node.symbol, index=node.over.index if node.over else None).text
    return shown if given_node(graph, node) else f"{shown} = {formula(node.expr).text}"


def _scoped(method):
    """A Working method run in its graph's notation (an exercise's own names, overrides)."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        with in_scope(self.graph.notation):
            return method(self, *args, **kwargs)
    return run


def given_node(graph, node) -> bool:
    """A node that is an input as given (∇L_k when the exercise gives the microbatch means):
    its working is its value, not `∇L_k = ∇L_k`."""
    e = node.expr
    return (isinstance(e, sp.Indexed) and node.over is not None
            and e.base.label.name in graph.inputs and e.indices == (node.over.index,))


def _whole_head(node, member: int | None = None) -> Tex:
    index = node.over.index if node.over is not None and member is None else None
    return head(node.symbol, member, index, whole=True)


def _whole(node) -> Tex:
    return formula(node.expr, frozenset({node.element.index.name}))


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

    @_scoped
    def lines(self, name: str) -> list[tuple[str, object]]:
        """(LaTeX line, exact value) of a node: one line for a scalar (formula = numbers =
        result is completed by the caller), the general formula and then one line per
        member for a family."""
        node = self.graph.by_name[name]
        if node.element is not None:
            return self._vector_lines(node)
        if given_node(self.graph, node):
            values = self.node_value(name)
            if node.over is None:
                return [(head(node.symbol).text, values)]
            return [(head(node.symbol, m).text, values[m - 1])
                    for m in range(1, min(len(values), self.shown) + 1)]
        if node.over is None:
            text = f"{head(node.symbol).text} = {formula(node.expr).text}"
            sub = substituted(node.expr, self.value).text
            return [(f"{text} = {sub}", self.node_value(name))]
        values = self.node_value(name)
        index = node.over.index
        out = [(f"{head(node.symbol, index=index).text} = {formula(node.expr).text}", None)]
        shown = range(1, min(len(values), self.shown) + 1)
        for m in shown:
            sub = substituted(node.expr, self.value, {index.name: m}).text
            out.append((f"{head(node.symbol, m).text} = {sub}", values[m - 1]))
        return out

    @_scoped
    def _column(self, node, bound: dict[str, int]) -> Tex:
        """The node's expression with its vectors as columns of numbers: 0.2 · (3, 4)ᵀ."""
        d = int(self.scope[node.element.size.name])
        return Printer(self.value, bound, frozenset({node.element.index.name}), d).tex(node.expr)

    def _vector_lines(self, node) -> list[tuple[str, object]]:
        """A vector node: its formula as vectors (ḡ = Σ_k w_k·g_k), then its substitution as
        a column vector, once or per member (clip(g_2) = …)."""
        values = self.node_value(node.name)
        general = f"{_whole_head(node).text} = {_whole(node).text}"
        if node.over is None:
            return [(f"{general} = {self._column(node, {}).text}", values)]
        k = node.over.index.name
        out = [(general, None)]
        for m in range(1, min(len(values), self.shown) + 1):
            out.append((f"{_whole_head(node, m).text} = {self._column(node, {k: m}).text}",
                        values[m - 1]))
        return out

    def hidden(self, name: str) -> int:
        """How many members of a family node are left out of the working."""
        node = self.graph.by_name[name]
        if node.over is None:
            return 0
        return max(0, len(self.node_value(name)) - self.shown)
