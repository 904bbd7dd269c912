"""A recipe's derivation graph: its nodes in derivation order, how the exercise's inputs bind
the symbols, and evaluation — in a recipe's context (where claimed values may stand in for
computed ones) or with some definitions replaced (a known mistake)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import sympy as sp

from derive.graph.evaluate import compiled, exact_value, sympy_value
from derive.graph.node import Node, leaves
from derive.graph.notation import Notations

Binder = Callable[[object], object]
"""Reads one symbol's value from a context: a number, or {member: number} for a family."""


def members(values) -> dict[int, object]:
    """A list of values as a family: member m (from 1) → value."""
    return {m: v for m, v in enumerate(values, 1)}


def boundaries(sizes) -> dict[int, int]:
    """Prefix sums as a family with member 0: c_k = n_1 + … + n_k, c_0 = 0, so that block k
    (a microbatch, a step's batch) holds records c_{k−1}+1 … c_k."""
    out, total = {0: 0}, 0
    for m, s in enumerate(sizes, 1):
        total += int(s)
        out[m] = total
    return out


def _as_env(n: Node, v, env) -> object:
    """A node's value as expressions read it: a family as {member: value} (member 0 from the
    node's `start`), a vector as {element: value} or {(member, element): value}."""
    if n.element is not None:
        return ({(k, j): x for k, row in members(v).items() for j, x in members(row).items()}
                if n.over is not None else members(v))
    if n.over is None:
        return v
    out = members(v if isinstance(v, (list, tuple)) else [v])
    if n.start is not None:
        out[0] = compiled(n.start)(env, {})
    return out


def _entries(v) -> list:
    """Every number of a vector value, in order (a vector given as several tensors, nested
    lists, is its entries one after the other)."""
    if isinstance(v, (list, tuple)):
        return [x for part in v for x in _entries(part)]
    return [v]


class Graph:
    """Nodes in derivation order; `inputs` binds every symbol that is not a node."""

    def __init__(self, nodes: tuple[Node, ...], inputs: Mapping[str, Binder],
                 opaque: frozenset[str] = frozenset(), notation: Notations | None = None):
        self.nodes = nodes
        self.notation = notation
        """How the graph's symbols are written (an author's own names, a course's
        overrides); None: the built-in declarations."""
        self.inputs = dict(inputs)
        self.opaque = frozenset(opaque)
        """Inputs the working names but never substitutes (a microbatch B_k is a set of
        records: n_1 = |B_1|, not |2|)."""
        self.by_name = {n.name: n for n in nodes}
        self.by_key = {n.key: n for n in nodes}
        if len(self.by_name) != len(nodes) or len(self.by_key) != len(nodes):
            raise ValueError("two nodes with one name or one symbol")
        self.reads = {n.name: frozenset(leaves(n.expr) | (leaves(n.start) if n.start is not None
                                                           else set())) for n in nodes}
        for n in nodes:
            unknown = self.reads[n.name] - set(self.by_key) - set(self.inputs) - {
                i.name for i in n.indices}
            if unknown:
                raise ValueError(f"node {n.name} reads unbound symbols {sorted(unknown)}")
        self.needs = {n.name: tuple(self.by_key[k] for k in sorted(
            self.reads[n.name] | {f.size.name for f in (n.over, n.element) if f is not None})
            if k in self.by_key) for n in nodes}
        """The nodes each node reads (its family's sizes included), for evaluation in order."""
        self.recurrent = self._recurrent()
        """Family nodes that read themselves, directly or through another node (w_k from
        w_{k−1}; g_k = ∇L_k(w_{k−1}) and w_k = w_{k−1} − η·g_k): evaluated member by member."""

    def _recurrent(self) -> frozenset[str]:
        name_of = {n.key: n.name for n in self.nodes}
        edges = {n.name: {name_of[k] for k in self.reads[n.name] if k in name_of}
                 for n in self.nodes}
        out = set()
        for n in self.nodes:
            seen, todo = set(), list(edges[n.name])
            while todo:
                m = todo.pop()
                if m not in seen:
                    seen.add(m)
                    todo += edges[m]
            if n.name in seen:
                if n.over is None:
                    raise ValueError(f"node {n.name} reads itself but is not a family")
                out.add(n.name)
        return frozenset(out)

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
            grown = bool(self.recurrent) and len(out) > before
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

    def input_values(self, ctx) -> dict[str, object]:
        """Every given input, as the evaluator holds it (an optional input not given, such as
        the bias, is left out)."""
        env: dict[str, object] = {}
        for k, b in self.inputs.items():
            try:
                env[k] = exact_value(b(ctx))
            except (KeyError, TypeError):
                pass
        return env

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


class Values:
    """Node values over a plain dict, each computed once when first asked for, after the
    nodes it reads: what a scope gives when no claimed value stands in for a computed one
    (the fast path). A recurrent node's members are filled in order as they are read."""

    def __init__(self, graph: Graph, ctx):
        self.graph = graph
        self.env = graph.input_values(ctx)
        self.lists: dict[str, object] = {}

    def _ensure(self, n: Node) -> None:
        if n.key in self.env:
            return
        if n.name in self.graph.recurrent:
            self.env[n.key] = _Members(self.env, n, n.expr)  # before its reads: they read it
        for m in self.graph.needs[n.name]:
            if m.key not in self.env:
                self._ensure(m)
        if n.name in self.graph.recurrent:
            return
        v = self.graph.value(n, self.env)
        self.lists[n.key] = v
        self.env[n.key] = _as_env(n, v, self.env)

    def compute(self, name: str):
        n = self.graph.by_name[name]
        self._ensure(n)
        v = self.env[n.key]
        if isinstance(v, _Members):
            return sympy_value(v.listed())
        return sympy_value(self.lists[n.key])


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
        self._members: dict[str, _Members] = {}

    def node(self, name: str):
        """A node's value (Fractions; a number or a list): the context's for a quantity of
        the recipe (`shared`) that no replaced definition reaches, else computed here. A
        recurrent node is the context's only where the context holds another value for it
        (a claim carried forward); else it is computed here, member by member."""
        if name not in self.local and self.shared(name) and (
                name not in self.graph.recurrent or self._overridden(name)):
            v = exact_value(self.ctx[name])
            if self.graph.by_name[name].element is not None:  # several tensors: their entries
                v = [_entries(x) for x in v] if self.graph.by_name[name].over else _entries(v)
            return v
        return self._computed(name)

    def _overridden(self, name: str) -> bool:
        return name in getattr(self.ctx, "overrides", {})

    def _recurrence(self, name: str) -> "_Members":
        if name not in self._members:
            n = self.graph.by_name[name]
            self._members[name] = _Members(self, n, self.replace.get(name, n.expr))
        return self._members[name]

    def _computed(self, name: str):
        if name in self.graph.recurrent and name not in self._cache:
            self._cache[name] = self._recurrence(name).listed()
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
            if n is not None and n.name in self.graph.recurrent and (
                    n.name in self.local or not self.shared(n.name)
                    or not self._overridden(n.name)):
                return self._recurrence(n.name)  # filled member by member, as read
            if n is not None:
                v = _as_env(n, self.node(n.name), self)
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


class _Members(dict):
    """The members of a recurrent family node, each computed when first read (member 0 from
    the node's `start`); reading member m computes the members before it first, in order, so
    that a long recurrence never nests deeply. A vector node's members are rows: key (m, j),
    a whole row computed at once (w_{t,j} of every j at step t, each from step t − 1's)."""

    def __init__(self, scope: Scope, node: Node, expr: sp.Expr):
        super().__init__()
        self.scope, self.node = scope, node
        self.index = node.over.index.name
        self.element = node.element.index.name if node.element is not None else None
        self.f = compiled(expr, frozenset({self.index} | ({self.element} if self.element
                                                             else set())))
        self._size: int | None = None
        self.next = 1

    @property
    def size(self) -> int:
        """The family's length, read when first needed (it may be a node computed later)."""
        if self._size is None:
            self._size = int(self.scope[self.node.over.size.name])
        return self._size

    @property
    def width(self) -> int:
        """A vector node's number of elements d."""
        return int(self.scope[self.node.element.size.name])

    def listed(self) -> list:
        """Every member in order (a vector node's as rows)."""
        if self.element is None:
            return [self[m] for m in range(1, self.size + 1)]
        return [[self[(m, n)] for n in range(1, self.width + 1)]
                for m in range(1, self.size + 1)]

    def __missing__(self, m):
        if self.element is not None:
            return self._entry(m)
        if m == 0 and self.node.start is not None:
            self[0] = compiled(self.node.start)(self.scope, {})
            return self[0]
        if not (isinstance(m, int) and 1 <= m <= self.size):
            raise KeyError(m)
        while self.next <= m:
            j, self.next = self.next, self.next + 1
            self[j] = self.f(self.scope, {self.index: j})
        return dict.__getitem__(self, m)

    def _entry(self, key):
        if not (isinstance(key, tuple) and len(key) == 2):
            raise KeyError(key)
        m, n = key
        if m == 0 and self.node.start is not None:
            start = compiled(self.node.start, frozenset({self.element}))
            for e in range(1, self.width + 1):
                self[(0, e)] = start(self.scope, {self.element: e})
            return dict.__getitem__(self, key)
        if not (isinstance(m, int) and 1 <= m <= self.size):
            raise KeyError(key)
        while self.next <= m:
            row, self.next = self.next, self.next + 1
            for e in range(1, self.width + 1):
                self[(row, e)] = self.f(self.scope, {self.index: row, self.element: e})
        return dict.__getitem__(self, key)

    def get(self, m, default=None):
        try:
            return self[m]
        except KeyError:
            return default
