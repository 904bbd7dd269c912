"""The names a formula answer may use for one exercise's quantity: the graph's inputs, every
given (read by a quantity or not) and the quantities, each with its members (x_1 … x_N)."""

from __future__ import annotations

from collections.abc import Mapping

import sympy as sp

from derive.graph.graph import Graph
from derive.graph.language import ALIASES, FormulaError, FormulaNotSupported, parse_formula
from derive.graph.symbolic import NoForm, Specialiser, TooLarge, _labels, reads
from derive.recipes.base import Context


class _Symbols:
    """The names a formula for one exercise's quantity may use: the graph's inputs and the
    nodes it defines (scalars and families), with the number of members of each family."""

    def __init__(self, graph: Graph, spec: Specialiser, ctx: Context | None = None):
        self.scalars: dict[str, sp.Symbol] = {}
        self.families: dict[str, sp.IndexedBase] = {}
        for n in graph.nodes:
            if isinstance(n.symbol, sp.IndexedBase):
                self.families[n.key] = n.symbol
            else:
                self.scalars[n.key] = n.symbol
            for e in (n.expr,) + ((n.start,) if n.start is not None else ()):
                for a in sp.preorder_traversal(e):
                    if isinstance(a, sp.Indexed) and a.base.label.name in graph.inputs:
                        self.families.setdefault(a.base.label.name, a.base)
                    elif isinstance(a, sp.Symbol) and a.name in graph.inputs:
                        self.scalars.setdefault(a.name, a)
        for name in self.families:  # a family's label is a Symbol too: never a scalar
            self.scalars.pop(name, None)
        if ctx is not None:
            self._unread(graph, spec, ctx)
        self.sizes = {}
        for n in graph.nodes:
            if n.over is not None:
                self.sizes[n.key] = n.over
        self.spec = spec
        self.graph = graph

    def _unread(self, graph: Graph, spec: Specialiser, ctx: Context) -> None:
        """The givens no quantity reads, as symbols of their own (a claim may use any given):
        a real symbol for a number, a family of reals for a column of the records."""
        for name, binder in graph.inputs.items():
            if name in self.scalars or name in self.families or name in graph.by_key or \
                    name in graph.opaque or not nameable(name):
                continue
            if not (given_as(name, ctx.given) or name.islower() and any(
                    t in ctx.given for t in TABLES)):
                continue  # an option's default (opt_mu) is no given
            try:
                value = binder(ctx)
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
            if isinstance(value, Mapping):
                if value and all(isinstance(m, int) and m >= 1 for m in value):
                    self.families[name] = sp.IndexedBase(sp.Symbol(name, real=True))
                    spec.members.setdefault(name, len(value))
            elif isinstance(value, (int, sp.Rational)) and not isinstance(value, bool) and \
                    not name.isupper():  # N, K, T are sizes, not symbols
                self.scalars[name] = sp.Symbol(name, real=True)

    def names(self, quantity: str) -> list[str]:
        """The names to suggest for a formula of `quantity`: the inputs, and the quantities
        it is computed from (any quantity may be named; internal names such as `g_w` none)."""
        before = {self.graph.by_name[n].key for n in reads(self.graph, quantity)}
        shown = {v: k for k, v in ALIASES.items() if k.isascii()}
        out = [shown.get(n, n) for n in [*self.scalars, *self.families] if nameable(n)
               and (n in self.graph.inputs or n in before)]
        return sorted(set(out), key=lambda s: (s not in ("w", "b", "x", "y"), s))

    def members(self, name: str) -> int | None:
        """The members of a family in this exercise (None when not known)."""
        if name in self.spec.members:
            return self.spec.members[name]
        fam = self.sizes.get(name)
        if fam is None:
            return None
        try:
            n = self.spec(fam.size)
        except (NoForm, TooLarge):
            return None
        return int(n) if n.is_Integer else None


def given_as(name: str, given) -> bool:
    """Whether the input `name` is a number the exercise gives (as itself or an alias: lr is
    eta)."""
    return isinstance(given, Mapping) and any(
        k == name or ALIASES.get(k) == name for k in given if isinstance(k, str)) and \
        not any(k == name and isinstance(v, (list, dict)) for k, v in given.items())


TABLES = ("records", "microbatches")
"""The givens whose columns are families (x_i, y_i)."""


def nameable(name: str) -> bool:
    """Whether a formula can write `name` as itself (`w`, `eta`, `w_new`; not `clip_c`, which
    the language reads as member c of clip): asked of the parser, so that the answer follows
    the language."""
    if name in ALIASES.values():  # lambda_ is written λ or lambda
        return True
    try:
        e = parse_formula(name, {})
    except (FormulaError, FormulaNotSupported, TypeError):
        return False
    return isinstance(e, sp.Symbol) and e.name == name


def _unnamed(graph: Graph, name: str) -> list[str]:
    """The inputs the quantity's form reads that a formula cannot name (internal names such
    as clip_c)."""
    used = set()
    for n in reads(graph, name):
        node = graph.by_name[n]
        used |= {a.base.label.name if isinstance(a, sp.Indexed) else a.name
                 for a in sp.preorder_traversal(node.expr)
                 if isinstance(a, (sp.Indexed, sp.Symbol))}
    return sorted(k for k in set(_labels(graph)) & used
                  if not nameable(k) and k not in graph.opaque)
