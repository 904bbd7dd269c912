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
        recurrent = {n.over for n in nodes if n.start is not None}
        self.group = {n.name: tuple(m for m in nodes if m.over == n.over)
                      for n in nodes if n.over in recurrent}
        """A node of a recurrent family → every node over that family, evaluated together."""
        for n in nodes:
            unknown = self.reads[n.name] - set(self.by_key) - set(self.inputs) - (
                {n.over.index.name} if n.over else set())
            if unknown:
                raise ValueError(f"node {n.name} reads unbound symbols {sorted(unknown)}")

    def depends(self, name: str) -> set[str]:
        """Every node whose definition reads `name`'s node, directly or not."""
        key = self.by_name[name].key
        out: set[str] = set()
        grown = True
        while grown:  # more than one pass only for a recurrence (w_t reads g_t reads w_{t−1})
            before = len(out)
            for n in self.nodes:
                if key in self.reads[n.name] or any(self.by_name[o].key in self.reads[n.name]
                                                    for o in out):
                    out.add(n.name)
            grown = bool(self.group) and len(out) > before
        return out

    def value(self, node: Node, env: Mapping[str, object], expr: sp.Expr | None = None):
        """The node's value as the evaluator holds it (Fractions): a number, or a list over
        its family's members."""
        e = node.expr if expr is None else expr
        if node.over is None:
            return compiled(e)(env, {})
        index = node.over.index.name
        f = compiled(e, frozenset({index}))
        size = int(env[node.over.size.name])
        return [f(env, {index: m}) for m in range(1, size + 1)]

    def ordered(self, group: tuple[Node, ...], env: Mapping[str, object],
                exprs: Mapping[str, sp.Expr], fixed: Mapping[str, list]) -> dict[str, list]:
        """The nodes of a recurrent family together, member by member (t = 1…T), each member
        reading the earlier members of every node (w_{t−1}) and member 0 from `start`;
        `exprs` replaces definitions, `fixed` gives a node's first members (claimed values)."""
        family = group[0].over
        index = family.index.name
        size = int(env[family.size.name])
        local = _Overlay(env)
        for n in group:
            local[n.key] = {} if n.start is None else {0: compiled(n.start)(env, {})}
        steps = [(n.key, compiled(exprs.get(n.name, n.expr), frozenset({index})),
                  fixed.get(n.name) or ()) for n in group]
        for m in range(1, size + 1):
            bound = {index: m}
            for key, f, given in steps:
                local[key][m] = given[m - 1] if m <= len(given) else f(local, bound)
        return {n.name: [local[n.key][m] for m in range(1, size + 1)] for n in group}

    def scope(self, ctx, replace: Mapping[str, sp.Expr] | None = None,
              shared: Callable[[str], bool] = lambda name: True) -> "Scope":
        return Scope(self, ctx, dict(replace or {}), shared)

    def evaluate_variant(self, variant: Variant, ctx):
        """`variant.target` computed with the variant's definitions in place."""
        return self.scope(ctx, variant.replace).node(variant.target)


class _Overlay(dict):
    """The members of a recurrent family computed so far, over the scope's other values."""

    def __init__(self, env: Mapping[str, object]):
        super().__init__()
        self.env = env

    def __missing__(self, key: str):
        v = self[key] = self.env[key]
        return v


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
            return exact_value(self.ctx[name])
        return self._computed(name)

    def _computed(self, name: str):
        if name not in self._cache:
            group = self.graph.group.get(name)
            if group is not None:
                self._cache.update(self.graph.ordered(
                    group, self, self.replace,
                    {n.name: exact_value(self._fixed(n.name)) for n in group
                     if self._fixed(n.name) is not None}))
                return self._cache[name]
            n = self.graph.by_name[name]
            self._cache[name] = self.graph.value(n, self, self.replace.get(name))
        return self._cache[name]

    def _fixed(self, name: str):
        """A recurrent node's values the context holds of its own (a claim carried forward,
        `ctx.overrides`), where this scope takes the context's values; else None."""
        if name in self.local or not self.shared(name):
            return None
        return getattr(self.ctx, "overrides", {}).get(name)

    def compute(self, name: str):
        """A node's value computed from its definition, in SymPy numbers."""
        return sympy_value(self._computed(name))

    def __getitem__(self, key: str):
        if key not in self._inputs:
            n = self.graph.by_key.get(key)
            if n is not None:
                v = self.node(n.name)
                if n.over is not None:
                    v = members(v if isinstance(v, (list, tuple)) else [v])
                    if n.start is not None:
                        v[0] = compiled(n.start)(self, {})
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
