"""Nodes of a derivation graph: a quantity is a symbol and the one expression that defines it;
a variant (a known mistake) is the same graph with some definitions replaced."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import sympy as sp


@dataclass(frozen=True)
class Family:
    """An indexed family of an exercise: records i = 1…N, microbatches k = 1…K, steps
    t = 1…T, elements j = 1…d. `size` is the symbol of its length."""

    name: str
    index: sp.Symbol
    size: sp.Symbol


@dataclass(frozen=True)
class Node:
    """A quantity: `symbol` (a Symbol, or an IndexedBase when it has a value per member of
    `over`) is defined by `expr`, an expression over input symbols, families' members and
    earlier nodes' symbols. For a family node, `expr` is written for the member `over.index`
    (ŷ_i = w·x_i + b). A vector node has one value per element j of `element` as well
    (clip(g_k)_j = s_k·g_{k,j}, or ḡ_j without `over`); `expr` is written for element j."""

    name: str
    symbol: sp.Basic
    expr: sp.Expr
    over: Family | None = None
    element: Family | None = None
    start: sp.Expr | None = None
    """Member 0 of a recurrent family node (w_0 = w, u_0 = 0), an expression over inputs: a
    family node whose expression reads its own earlier members, or another family node that
    reads them (g_k = ∇L_k(w_{k−1})), is evaluated member by member."""

    @property
    def indices(self) -> tuple[sp.Symbol, ...]:
        """The indices the node's expression is written for: (), (i,), (k, j) or (j,)."""
        return tuple(f.index for f in (self.over, self.element) if f is not None)

    @property
    def head(self) -> sp.Expr:
        """The left-hand side as written: ŷ_i for a family node, L for a scalar."""
        return self.symbol[self.indices] if self.indices else self.symbol

    @cached_property
    def key(self) -> str:
        """The internal name of the symbol (the IndexedBase's label for a family)."""
        s = self.symbol.label if isinstance(self.symbol, sp.IndexedBase) else self.symbol
        return s.name


@dataclass(frozen=True)
class Variant:
    """A known mistake: `target` computed in the graph where the nodes named in `replace`
    have other definitions (the sum for the mean, the other loss convention, the sign)."""

    name: str
    target: str
    replace: Mapping[str, sp.Expr] = field(default_factory=dict)
    en: str = ""
    zh: str = ""
    kind: str = ""
    """A mutation's kind (derive.graph.mutate.KINDS), "" for a recipe's own variant."""


def leaves(expr: sp.Basic) -> set[str]:
    """The internal names of every symbol and family an expression reads (indices bound by a
    Σ excluded)."""
    out: set[str] = set()

    def walk(e, bound):
        if isinstance(e, sp.Indexed):
            out.add(e.base.label.name)
            for a in e.indices:
                walk(a, bound)
        elif isinstance(e, sp.Symbol):
            if e not in bound:
                out.add(e.name)
        elif isinstance(e, sp.Sum):
            inner = set(bound) | {lim[0] for lim in e.limits}
            for lim in e.limits:
                walk(lim[1], bound)
                walk(lim[2], bound)
            walk(e.function, inner)
        else:
            for a in e.args:
                walk(a, bound)
    walk(expr, frozenset())
    return out
