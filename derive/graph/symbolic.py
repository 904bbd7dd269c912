"""A quantity's symbolic form: its node's expression with every earlier node's definition
inlined down to the inputs, and derivatives taken with `sympy.diff`.

    g = (1/N) Σ_i ∂ℓ_i/∂w,  ∂ℓ_i/∂w = (ŷ_i − y_i)·x_i,  ŷ_i = w·x_i
    ⇒ form(g) = (1/N) Σ_{i=1}^{N} (w·x_i − y_i)·x_i,  and (w·x − y)·x for one record.

`symbolic_form(graph, name)` is the general form (sizes symbolic). For one exercise,
`Specialiser` gives the structural inputs (counts, sizes, block boundaries: integer symbols
and opaque sets) their values, writes every Σ out, and names each member of a family by a
plain symbol (x_2; x itself when the family has one member), so that the kernel compares two
expressions over the exercise's real-valued inputs only. Every step is bounded: terms written
out, derivatives taken, and the size of what they give.
"""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from derive.graph.graph import Graph
from derive.graph.node import Node
from derive.kernel.exact import to_expr

MAX_TERMS = 2_000
"""Most terms all the Σ of one form may be written out to, for one exercise."""

MAX_DERIVATIVES = 4
"""Most derivatives taken in one form (nested or of higher order)."""

MAX_NODES = 20_000
"""Largest expression (in tree nodes) a derivative may give."""


class NoForm(ValueError):
    """The quantity has no symbolic form a formula answer can be compared with (a recurrence,
    a vector, a branch): said as "not supported"."""


class TooLarge(ValueError):
    """A form past a bound (terms written out, derivatives, size)."""


def size(e: sp.Basic, limit: int = MAX_NODES) -> int:
    """The tree nodes of `e`, counted up to just past `limit`."""
    n = 0
    for _ in sp.preorder_traversal(e):
        n += 1
        if n > limit:
            break
    return n


def reads(graph: Graph, name: str) -> set[str]:
    """The node itself and every node it reads, directly or not."""
    out, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n not in out:
            out.add(n)
            todo += [m.name for m in graph.needs[n]]
    return out


def unsupported(graph: Graph, name: str) -> str | None:
    """Why the node `name` has no symbolic form for a formula answer, or None."""
    for n in sorted(reads(graph, name)):
        node = graph.by_name[n]
        if n in graph.recurrent:
            return (f"{name} is computed by a recurrence ({n}: each step from the one "
                    "before), which has no closed symbolic form here")
        if node.element is not None:
            return f"{name} is a vector quantity ({n} has one value per element)"
        if node.start is not None:
            return f"{name} reads {n}, a family with a start member"
        if node.expr.has(sp.Piecewise):
            return f"{name} reads {n}, which has branches (a piecewise definition)"
    return None


class Inliner:
    """Inlines the nodes of one graph into expressions (each node's form computed once)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.forms: dict[str, sp.Expr] = {}

    def form(self, node: Node) -> sp.Expr:
        """The node's expression over inputs only, written for its own indices."""
        if node.name not in self.forms:
            if node.start is not None or node.name in self.graph.recurrent:
                raise NoForm(f"{node.name} is a recurrence")
            self.forms[node.name] = self(node.expr)
        return self.forms[node.name]

    def __call__(self, e: sp.Basic) -> sp.Basic:
        if isinstance(e, sp.Indexed):
            idx = tuple(self(a) for a in e.indices)
            node = self.graph.by_key.get(e.base.label.name)
            if node is None:
                return e.base[idx]
            return self.form(node).xreplace(dict(zip(node.indices, idx)))
        if isinstance(e, sp.Symbol):
            node = self.graph.by_key.get(e.name)
            return self.form(node) if node is not None and not node.indices else e
        if isinstance(e, sp.Derivative):
            for v in e.variables:
                name = v.base.label.name if isinstance(v, sp.Indexed) else getattr(v, "name", "")
                if name in self.graph.by_key:
                    raise NoForm(f"a derivative with respect to the quantity {name}")
            return sp.Derivative(self(e.expr), *e.variable_count)
        if isinstance(e, sp.Sum):  # bound indices renamed apart: reading a member never
            fresh = {v: sp.Dummy(v.name, **v.assumptions0) for v, _, _ in e.limits}  # binds it
            return sp.Sum(self(e.function.xreplace(fresh)),
                          *[(fresh[v], self(a), self(b)) for v, a, b in e.limits])
        if not e.args or isinstance(e, (sp.Number, sp.IndexedBase)):
            return e
        return e.func(*[self(a) for a in e.args])


def derivatives_taken(e: sp.Basic, budget: list[int] | None = None) -> sp.Basic:
    """Every Derivative taken with `sympy.diff`, innermost first, one variable at a time; at
    most MAX_DERIVATIVES in all, each result at most MAX_NODES big (TooLarge otherwise)."""
    budget = [MAX_DERIVATIVES] if budget is None else budget
    if not e.has(sp.Derivative):
        return e
    if isinstance(e, sp.Derivative):
        out = derivatives_taken(e.expr, budget)
        for v, count in e.variable_count:
            for _ in range(int(count)):
                budget[0] -= 1
                if budget[0] < 0:
                    raise TooLarge(f"more than {MAX_DERIVATIVES} derivatives")
                out = sp.diff(out, v)
                if size(out) > MAX_NODES:
                    raise TooLarge(f"a derivative of more than {MAX_NODES:,} terms and factors")
        return out
    return e.func(*[derivatives_taken(a, budget) for a in e.args])


def symbolic_form(graph: Graph, name: str) -> sp.Expr:
    """The general symbolic form of node `name` (sizes symbolic; a family node's form is
    written for its own index): NoForm when it has none."""
    why = unsupported(graph, name)
    if why:
        raise NoForm(why)
    node = graph.by_name[name]
    return derivatives_taken(Inliner(graph)(node.head))


def _value(binder, ctx):
    try:
        return binder(ctx)
    except (KeyError, TypeError):
        return None


def _labels(graph: Graph) -> dict[str, sp.Basic]:
    """Every input symbol of the graph by name: a Symbol, or the label of an IndexedBase."""
    out: dict[str, sp.Basic] = {}
    for n in graph.nodes:
        for e in (n.expr,) + ((n.start,) if n.start is not None else ()):
            for a in sp.preorder_traversal(e):
                if isinstance(a, sp.Indexed):
                    out.setdefault(a.base.label.name, a.base.label)
                elif isinstance(a, sp.Symbol):
                    out.setdefault(a.name, a)
    return {k: v for k, v in out.items() if k in graph.inputs}


class Specialiser:
    """One exercise's view of a graph: `structural` inputs (integer symbols and opaque sets:
    counts, sizes, boundaries) with their values, `members` the number of members of every
    family input."""

    def __init__(self, graph: Graph, ctx):
        self.graph = graph
        self.inliner = Inliner(graph)
        labels = _labels(graph)
        self.structural: dict[str, object] = {}
        self.members: dict[str, int] = {}
        for name, label in labels.items():
            v = _value(graph.inputs[name], ctx)
            if v is None:
                continue
            if isinstance(v, Mapping):
                self.members[name] = len([m for m in v if m != 0])
            if label.is_integer or name in graph.opaque:
                self.structural[name] = v
        for n in graph.nodes:  # a family's size read by no formula (T: the steps)
            for fam in (n.over, n.element):
                if fam is None:
                    continue
                for sym in fam.size.free_symbols:
                    if sym.name in graph.inputs and sym.name not in self.structural:
                        v = _value(graph.inputs[sym.name], ctx)
                        if isinstance(v, int) or isinstance(v, sp.Integer):
                            self.structural[sym.name] = v

    def __call__(self, e: sp.Basic) -> sp.Expr:
        """`e` (over nodes and inputs) inlined, specialised to the exercise, derivatives
        taken, and every member of a family named by a plain symbol."""
        e = self.inliner(e)
        e = self.written_out(e, [MAX_TERMS])
        e = derivatives_taken(e)
        e = self.written_out(e, [MAX_TERMS])  # a derivative of a written-out Σ
        return self.plain(e)

    def written_out(self, e: sp.Basic, budget: list[int]) -> sp.Basic:
        """Structural inputs replaced by their values, and every Σ whose limits are then
        integers written out term by term (at most MAX_TERMS terms in all)."""
        if isinstance(e, sp.Symbol):
            v = self.structural.get(e.name)
            return to_expr(v) if v is not None and not isinstance(v, Mapping) else e
        if isinstance(e, sp.Indexed):
            idx = tuple(self.written_out(a, budget) for a in e.indices)
            v = self.structural.get(e.base.label.name)
            if isinstance(v, Mapping) and all(a.is_Integer for a in idx):
                key = int(idx[0]) if len(idx) == 1 else tuple(int(a) for a in idx)
                if key not in v:
                    raise NoForm(f"{e.base.label.name} has no member {key}")
                return to_expr(v[key])
            return e.base[idx]
        if isinstance(e, sp.Sum):
            (var, lo, hi), rest = e.limits[0], e.limits[1:]
            lo, hi = self.written_out(lo, budget), self.written_out(hi, budget)
            body = sp.Sum(e.function, *rest) if rest else e.function
            if lo.is_Integer and hi.is_Integer:
                count = max(int(hi) - int(lo) + 1, 0)
                budget[0] -= count
                if budget[0] < 0:
                    raise TooLarge(f"more than {MAX_TERMS:,} terms once every Σ is written out")
                return sp.Add(*[self.written_out(body.xreplace({var: sp.Integer(m)}), budget)
                                for m in range(int(lo), int(hi) + 1)])
            return sp.Sum(self.written_out(body, budget), (var, lo, hi))
        if isinstance(e, sp.Derivative):
            return sp.Derivative(self.written_out(e.expr, budget), *e.variable_count)
        if not e.args or isinstance(e, (sp.Number, sp.IndexedBase)):
            return e
        return e.func(*[self.written_out(a, budget) for a in e.args])

    def plain(self, e: sp.Basic) -> sp.Basic:
        """Each member of a family input at an integer index as a plain symbol: x_2, or x when
        the family has one member."""
        subs = {}
        for a in e.atoms(sp.Indexed):
            label = a.base.label
            if all(i.is_Integer for i in a.indices) and label.name in self.members:
                one = self.members[label.name] == 1 and a.indices == (sp.Integer(1),)
                name = label.name if one else label.name + "_" + "_".join(
                    str(i) for i in a.indices)
                subs[a] = sp.Symbol(name, **label.assumptions0)
        return e.xreplace(subs) if subs else e
