"""Quantities and mistakes of a recipe whose quantities are nodes of a derivation graph: the
`compute` functions the exercises layer calls, all reading one graph per exercise, and the
one declaration of a named mistake (`NamedMistake`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

import sympy as sp

from derive.graph import Variant
from derive.graph.graph import Graph, Values
from derive.graph.mutate import MAX_MUTATIONS, TAUGHT, mutations_of
from derive.recipes.base import Candidate, Example, Mistake

GraphOf = Callable[[object], Graph]
"""The graph of an exercise's configuration, from its context (cached by the recipe)."""

Shape = Callable[[object, object, object], object]
"""(context, node, value) → the value in the shape a claim of the quantity has."""


def one_member_a_number(ctx, node, value):
    """A family quantity is a number for a one-member family (one record)."""
    if node.over is not None and len(value) == 1:
        return value[0]
    return value


def as_computed(ctx, node, value):
    """A family quantity is always a list (one per microbatch, one per step)."""
    return value


class Graphed:
    """`value(name)` and `variant(v)` computes for a recipe; `claimable` names its quantities
    (claimed values of those stand in for computed ones when errors are carried forward), or
    is a function giving them, read at the first computation (the recipe's quantities, which
    are declared with these computes); `shape` puts a computed value in the shape its claims
    have, for values and mistakes alike."""

    def __init__(self, graph_of: GraphOf, claimable: Iterable[str] | Callable[[], Iterable[str]],
                 shape: Shape = one_member_a_number,
                 stand_in: Callable[[object], Mapping[str, sp.Expr]] | None = None):
        self.graph_of = graph_of
        self._claimable = claimable
        self.shape = shape
        self.stand_in = stand_in
        """Nodes that are no quantity but take a claimed value (context → node name → that
        value as a definition): a tensor quantity's claim stands in for its entry nodes, so
        an error is carried forward entry by entry."""

    @cached_property
    def claimable(self) -> frozenset[str]:
        names = self._claimable() if callable(self._claimable) else self._claimable
        return frozenset(names)

    def scope(self, ctx):
        """The exercise's one scope: every node computed once per context (over a plain dict
        when no claimed value stands in for a computed one)."""
        def make(c):
            graph = self.graph_of(c)
            if not c.overrides:
                return Values(graph, c)
            return graph.scope(c, self._stand_ins(c), shared=self.claimable.__contains__)
        return ctx.memo("graph-scope", make)

    def _stand_ins(self, ctx) -> dict[str, sp.Expr]:
        return dict(self.stand_in(ctx)) if self.stand_in is not None and ctx.overrides else {}

    def value(self, name: str) -> Callable:
        def compute(ctx):
            scope = self.scope(ctx)
            return self.shape(ctx, scope.graph.by_name[name], scope.compute(name))
        return compute

    def variant(self, v: Variant, other: GraphOf | None = None) -> Callable:
        """A mistake's value: its target with the variant's definitions in place; in the
        graph `other(ctx)` when given (another loss convention), where every node whose
        definition differs, and everything downstream of it, is recomputed."""
        def compute(ctx):
            base = self.graph_of(ctx)
            gr = other(ctx) if other is not None else base
            differs: set[str] = set()
            if gr is not base:
                differs = {n.name for n in gr.nodes
                           if n.name not in base.by_name or base.by_name[n.name].expr != n.expr}
                for name in list(differs):
                    differs |= gr.depends(name)
            scope = gr.scope(ctx, {**self._stand_ins(ctx), **v.replace},
                             shared=lambda n: n in self.claimable and n not in differs)
            return self.shape(ctx, gr.by_name[v.target], scope.compute(v.target))
        return compute

    def mistake(self, m: NamedMistake) -> Mistake:
        """The recipe's `Mistake` of a declaration: its value is its first candidate's, or
        its target in the graph with its definitions replaced (in its own graph, if any)."""
        en, zh = m.words
        if m.candidates is not None:
            compute = first_value(m.candidates)
        elif callable(m.replace):
            def compute(ctx, m=m):
                return self.variant(Variant(m.name, m.target, m.replace(ctx)), m.graph)(ctx)
        else:
            compute = self.variant(Variant(m.name, m.target, m.replace), m.graph)
        return Mistake(m.name, m.target, en, compute, needs=m.needs, zh=zh, example=m.example,
                       candidates=m.candidates)

    def mistakes(self, declared: Iterable[NamedMistake]) -> tuple[Mistake, ...]:
        return tuple(self.mistake(m) for m in declared)


Replace = Mapping[str, sp.Expr] | Callable[[object], Mapping[str, sp.Expr]]
"""Node name → its mistaken definition; or a function of the exercise's context giving them
(a definition that depends on the exercise's shape or configuration)."""


@dataclass(frozen=True)
class NamedMistake:
    """A known mistake, declared once: its name, the quantity it gives a wrong value of
    (`target`), its words (English, Chinese), an example exercise that makes it (the tests
    check that it is diagnosed by name), the inputs it needs, and what it computes: the
    target with the definitions in `replace`, in the exercise's graph or in `graph` (another
    loss convention, ZeRO stage or ledger); or `candidates`, several values each explained in
    its own words."""

    name: str
    target: str
    words: tuple[str, str]
    example: Example
    replace: Replace = field(default_factory=dict)
    graph: GraphOf | None = None
    needs: tuple[str, ...] = ()
    candidates: Callable[[object], list[Candidate]] | None = None


def first_value(candidates):
    """A candidates mistake's `compute`: its first candidate's value."""
    def compute(ctx):
        got = candidates(ctx)
        if not got:
            raise KeyError("no candidate for this exercise")
        return got[0].value
    return compute


def mutation_mistakes(graphed: Graphed, graph: Graph, targets: Iterable[str],
                      limit: int = MAX_MUTATIONS,
                      skip: frozenset[str] = frozenset()) -> tuple[Mistake, ...]:
    """The mutations of `graph` (derive.graph.mutate) as a recipe's mistakes: for each target
    (a claimable quantity, in the order given), its mutations most specific first, each
    computed by `graphed.variant` in the exercise's graph. A mutation of a node that several
    targets read is one mistake per target, all of one name. The nodes in `skip` are not
    mutated (`mutations_of`)."""
    found = mutations_of(graph, [t for t in targets if t in graph.by_name], limit, skip)
    return tuple(Mistake(v.name, v.target, v.en, graphed.variant(v), zh=v.zh,
                         origin="course" if v.kind in TAUGHT else "generic")
                 for variants in found.values() for v in variants)
