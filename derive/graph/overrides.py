"""A course's own notation: a symbol written in a small, validated subset of LaTeX (a letter or
a Greek name, an accent, ∇, a prime, a subscript) read into a `Notation` — never evaluated,
never passed on as text — and the checks an exercise's notation must pass: which names it may
restyle, and that no two of its symbols print the same."""

from __future__ import annotations

import re
from collections.abc import Mapping

import sympy as sp

from derive.graph.notation import GREEK, GREEK_LATEX, KIN, Notation, Notations, restyled

MAX_WRITTEN = 60
"""Longest symbol a course may write."""

_GREEK = "|".join(sorted(GREEK, key=len, reverse=True))
_CORE = rf"(?:[A-Za-z]|\\(?:{_GREEK})(?![A-Za-z])|\\mathrm\{{[A-Za-z]{{1,20}}\}})"
_SUB_ITEM = rf"(?:[A-Za-z0-9]{{1,10}}|\\mathrm\{{[A-Za-z0-9]{{1,20}}\}}|\\(?:{_GREEK})(?![A-Za-z]))"
_WRITTEN = re.compile(
    rf"(?P<prefix>\\nabla\s*)?"
    rf"(?:\\(?P<accent>hat|bar|tilde)\{{(?P<accented>{_CORE})\}}|(?P<core>{_CORE}))"
    rf"(?P<prime>')?"
    rf"(?:_(?:(?P<sub1>[A-Za-z0-9])|\{{(?P<subs>{_SUB_ITEM}(?:,{_SUB_ITEM}){{0,3}})\}}))?\Z")

EXPECTED = ('write a letter or a Greek name, with \\hat{…}, \\bar{…}, \\tilde{…}, a prime, '
            "\\nabla or a subscript if need be: \"\\\\alpha\", \"\\\\hat{y}\", \"\\\\beta_1\", "
            '"\\\\mathrm{lr}"')


class WrittenError(ValueError):
    """A symbol outside the subset (what is wrong; `EXPECTED` says what would be right)."""


def parse_written(text: object) -> Notation:
    """How a course writes a symbol, from its LaTeX: "\\alpha", "\\hat{y}", "w'", "\\beta_1",
    "\\nabla L", "\\mathrm{lr}", "g_{\\mathrm{sum}}"; Unicode Greek letters stand for their
    names (α is \\alpha)."""
    if not isinstance(text, str):
        raise WrittenError("is not text")
    if len(text) > MAX_WRITTEN:
        raise WrittenError(f"is longer than {MAX_WRITTEN} characters")
    spelled = "".join(GREEK_LATEX.get(ch, ch) + (" " if ch in GREEK_LATEX else "")
                      for ch in text.strip())
    spelled = re.sub(r"(\\[A-Za-z]+) (?=[^A-Za-z]|\Z)", r"\1", spelled)
    m = _WRITTEN.match(spelled)
    if m is None:
        raise WrittenError("is not a symbol derive can write")
    core = m.group("accented") or m.group("core")
    upright = core.startswith(r"\mathrm{")
    letter = core[len(r"\mathrm{"):-1] if upright else core.lstrip("\\")
    if upright and len(letter) == 1:
        raise WrittenError("sets one letter upright", )
    sub = m.group("sub1") or m.group("subs") or ""
    return Notation(letter, accent=m.group("accent") or "",
                    prefix="nabla" if m.group("prefix") else "", sub=sub, upright=upright,
                    prime=bool(m.group("prime")))


class _Read:
    def __init__(self, name: str):
        self.name = name


class _Probe(Mapping):
    """A context that records the inputs a binder reads, to see which input a symbol is."""

    def __init__(self):
        self.read: list[str] = []
        self.given = self

    def __getitem__(self, name):
        self.read.append(name)
        return _Read(name)

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0

    def has(self, name):
        return True


def input_symbols(graph) -> dict[str, str]:
    """Each input that one symbol of the graph is, as it is given (lr → eta): the binders that
    read exactly that input and return it unchanged."""
    out = {}
    for symbol, binder in graph.inputs.items():
        probe = _Probe()
        try:
            got = binder(probe)
        except Exception:  # a binder that computes (a size, a member table) is not an input
            continue
        if isinstance(got, _Read) and probe.read == [got.name]:
            out.setdefault(got.name, symbol)
    return out


def names_of(graph, quantities) -> dict[str, str]:
    """The names a course may restyle, each to the graph symbol it writes: the exercise's
    inputs (lr) and its quantities (w_new)."""
    out = {n.name: n.key for n in graph.nodes if n.name in quantities}
    for given, symbol in input_symbols(graph).items():
        out.setdefault(given, symbol)
    return out


def used(graph) -> set[str]:
    """Every symbol the graph's nodes define or read."""
    names = {n.key for n in graph.nodes}
    for reads in graph.reads.values():
        names |= set(reads)
    for n in graph.nodes:
        names -= {i.name for i in n.indices}
    return names


def restyle(scope: Notations, symbols: Mapping[str, Notation]) -> Notations:
    """The scope with `symbols` (graph symbol → how the course writes it) restyled."""
    return scope.child({name: restyled(scope[name], written) for name, written in
                        symbols.items()})


def _same_quantity(graph) -> set[frozenset[str]]:
    """Pairs that are one quantity, or a sequence and its start, printed with one letter on
    purpose: a node that is another symbol as it is given (∇L_k = the given ∇L_k), a family
    whose member 0 is the scalar (w_0 = w; of a vector, w_{0,j} = w_j), and the pairs the
    mathematics declares `kin`."""
    out = set(KIN)
    for n in graph.nodes:
        e = n.expr
        if isinstance(e, sp.Indexed) and n.over is not None and e.indices == (n.over.index,):
            out.add(frozenset((n.key, e.base.label.name)))
        elif isinstance(e, sp.Symbol) and n.over is None:
            out.add(frozenset((n.key, e.name)))
        if n.start is not None and isinstance(n.start, sp.Symbol):
            out.add(frozenset((n.key, n.start.name)))
        elif (isinstance(n.start, sp.Indexed) and n.element is not None
              and n.start.indices == (n.element.index,)):  # w_{0,j} = w_j
            out.add(frozenset((n.key, n.start.base.label.name)))
    return out


def collisions(graph, scope: Notations, restyled: frozenset[str] = frozenset()
               ) -> list[tuple[str, str]]:
    """Pairs of different symbols of the graph that a reader cannot tell apart: printed the
    same, or a scalar and a family with one letter (α for the learning rate beside the
    weights α_k) — unless they are one quantity, a sequence and its start (w and w_k), or
    declared `kin` (g and g_k)."""
    alias = _same_quantity(graph)
    names = sorted(used(graph) | set(restyled))
    shapes = {name: scope[name].shape() for name in names if name in scope}
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if a not in shapes or b not in shapes or shapes[a] != shapes[b]:
                continue
            if frozenset((a, b)) not in alias:
                out.append((a, b))
    return out
