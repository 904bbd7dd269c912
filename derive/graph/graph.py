"""A recipe's derivation graph: its nodes in derivation order, how the exercise's inputs bind
the symbols, and evaluation — in a recipe's context (where claimed values may stand in for
computed ones) or with some definitions replaced (a known mistake)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import sympy as sp

from derive.graph.evaluate import compiled, exact_value, sympy_value
from derive.graph.node import Node, Variant, leaves

Binder = Callable[[object], object]
"""Reads one symbol's value from a context: a number, or {member: number} for a family."""


def members(values) -> dict[int, object]:
    """A list of values as a family: member m (from 1) → value."""
    return {m: v for m, v in enumerate(values, 1)}


def _entries(v) -> list:
    """Every number of a vector value, in order (a vector given as several tensors, nested
    lists, is its entries one after the other)."""
    if isinstance(v, (list, tuple)):
        return [x for part in v for x in _entries(part)]
    return [v]


class Graph:
    """Nodes in derivation order; `inputs` binds every symbol that is not a node."""

    def __init__(self, nodes: tuple[Node, ...], inputs: Mapping[str, Binder]):
        self.nodes = nodes
        self.inputs = dict(inputs)
        self.by_name = {n.name: n for n in nodes}
        self.by_key = {n.key: n for n in nodes}
        if len(self.by_name) != len(nodes) or len(self.by_key) != len(nodes):
            raise ValueError("two nodes with one name or one symbol")
        self.reads = {n.name: frozenset(leaves(n.expr)) for n in nodes}
        for n in nodes:
            unknown = self.reads[n.name] - set(self.by_key) - set(self.inputs) - {
                i.name for i in n.indices}
            if unknown:
                raise ValueError(f"node {n.name} reads unbound symbols {sorted(unknown)}")

    def depends(self, name: str) -> set[str]:
        """Every node whose definition reads `name`'s node, directly or not."""
        key = self.by_name[name].key
        out: set[str] = set()
        for n in self.nodes:
            if key in self.reads[n.name] or any(self.by_name[o].key in self.reads[n.name]
                                                for o in out):
                out.add(n.name)
        return out

    def value(self, node: Node, env: Mapping[str, object], expr: sp.Expr | None = None):
        """The node's value as the evaluator holds it (Fractions): a number, or a list over
        its family's members; a vector node's a list over its elements (per member)."""
        e = node.expr if expr is None else expr
        if node.element is not None:
            return self._vector(node, env, e)
        if node.over is None:
            return compiled(e)(env, {})
        index = node.over.index.name
        f = compiled(e, frozenset({index}))
        size = int(env[node.over.size.name])
        return [f(env, {index: m}) for m in range(1, size + 1)]

    @staticmethod
    def _vector(node: Node, env, e: sp.Expr):
        j, d = node.element.index.name, int(env[node.element.size.name])
        if node.over is None:
            f = compiled(e, frozenset({j}))
            return [f(env, {j: m}) for m in range(1, d + 1)]
        k, size = node.over.index.name, int(env[node.over.size.name])
        f = compiled(e, frozenset({k, j}))
        return [[f(env, {k: m, j: n}) for n in range(1, d + 1)] for m in range(1, size + 1)]

    def scope(self, ctx, replace: Mapping[str, sp.Expr] | None = None,
              shared: Callable[[str], bool] = lambda name: True) -> "Scope":
        return Scope(self, ctx, dict(replace or {}), shared)

    def evaluate_variant(self, variant: Variant, ctx):
        """`variant.target` computed with the variant's definitions in place."""
        return self.scope(ctx, variant.replace).node(variant.target)


class Scope(Mapping):
    """Symbol values for one exercise: inputs through the binders; nodes from the context
    (`ctx[name]`, which honours claimed values carried forward), except the replaced nodes and
    everything downstream of them, which are computed here."""

    def __init__(self, graph: Graph, ctx, replace: dict[str, sp.Expr],
                 shared: Callable[[str], bool] = lambda name: True):
        self.graph, self.ctx, self.replace = graph, ctx, replace
        self.local = set(replace)
        for name in replace:
            self.local |= graph.depends(name)
        self.shared = shared
        self._cache: dict[str, object] = {}
        self._inputs: dict[str, object] = {}

    def node(self, name: str):
        """A node's value (Fractions; a number or a list): the context's for a quantity of
        the recipe (`shared`) that no replaced definition reaches, else computed here."""
        if name not in self.local and self.shared(name):
            v = exact_value(self.ctx[name])
            if self.graph.by_name[name].element is not None:  # several tensors: their entries
                v = [_entries(x) for x in v] if self.graph.by_name[name].over else _entries(v)
            return v
        return self._computed(name)

    def _computed(self, name: str):
        if name not in self._cache:
            n = self.graph.by_name[name]
            self._cache[name] = self.graph.value(n, self, self.replace.get(name))
        return self._cache[name]

    def compute(self, name: str):
        """A node's value computed from its definition, in SymPy numbers."""
        return sympy_value(self._computed(name))

    def __getitem__(self, key: str):
        if key not in self._inputs:
            n = self.graph.by_key.get(key)
            if n is not None:
                v = self.node(n.name)
                if n.element is not None:
                    v = ({(k, j): x for k, row in members(v).items()
                          for j, x in members(row).items()} if n.over is not None
                         else members(v))
                elif n.over is not None:
                    v = members(v if isinstance(v, (list, tuple)) else [v])
            elif key in self.graph.inputs:
                v = exact_value(self.graph.inputs[key](self.ctx))
            else:
                raise KeyError(key)
            self._inputs[key] = v
        return self._inputs[key]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self.graph.by_key) + list(self.graph.inputs))

    def __len__(self) -> int:
        return len(self.graph.by_key) + len(self.graph.inputs)
