"""The parts every mutation is built from (derive/graph/mutate.py, named_mutations.py): a
candidate mutation, a subexpression replaced at a path, the number of terms of a Σ, and the
plain text and ASCII name of a subexpression for a mutation's words and name."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.printing.str import StrPrinter

from derive.graph.language import ALIASES
from derive.graph.notation import notation_of, plain_sub
from derive.graph.words import Formula, Words, cat


@dataclass(frozen=True)
class Candidate:
    """One mutation of a node's expression: its kind, the pre-order position of the edited
    subexpression, the mutated expression, what the name says it edits (`obj`), its words; and
    `swap`, the subexpression and its replacement, for the named patterns that may be made at
    every site at once (None for the others)."""

    kind: str
    position: int
    expr: sp.Expr
    obj: str
    en: str
    zh: str
    """Its words, with their subexpressions as math spans (derive.graph.words)."""
    swap: tuple[sp.Basic, sp.Basic] | None = None



def at(e: sp.Basic, path: tuple[int, ...], new: sp.Basic) -> sp.Basic:
    """`e` with the subexpression at `path` replaced by `new`."""
    if not path:
        return new
    args = list(e.args)
    args[path[0]] = at(args[path[0]], path[1:], new)
    return e.func(*args)



def terms(s: sp.Sum) -> sp.Expr:
    """The number of terms of Σ_{i=lo}^{hi}: hi when lo = 1."""
    _, lo, hi = s.limits[0]
    return hi if lo == 1 else hi - lo + 1



_WRITTEN = {v: k for k, v in ALIASES.items() if len(k) <= 2 and not k.isascii()}
"""Internal names as the course writes them (yhat → ŷ, eta → η), for symbols without a
notation (an author's own)."""


def letter(name: str, ix: str = "") -> str:
    """A symbol as the course writes it, with the member `ix` (ŷ_i, ∂ℓ_i/∂w, w_(t − 1))."""
    n = notation_of(name)
    if n is not None and n.sub and ix and not n.wrt:  # x_2 at record i: x_{2,i}
        return f"{n.text_letter()[:-len(plain_sub(n.sub))]}{{{plain_sub(n.sub)},{ix}}}"
    ix = "" if not ix else "_" + (ix if len(ix) == 1 else f"({ix})")
    if n is None:
        return _WRITTEN.get(name, name) + ix
    out = n.text_letter()
    if n.wrt:
        return f"∂{out}{ix}/∂{n.wrt}"
    return out + ix


class _Plain(StrPrinter):
    """SymPy's text as the course writes it: [z₂ > 0] for a step (Heaviside(z₂, 0)), |u|,
    min and max, e."""

    def _print_Heaviside(self, e):
        if len(e.args) == 2 and e.args[1] in _STEP:
            return f"[{self._print(e.args[0])} {_STEP[e.args[1]]} 0]"
        return f"H({self._print(e.args[0])})"

    def _print_Abs(self, e):
        return f"|{self._print(e.args[0])}|"

    def _print_Min(self, e):
        return "min(" + ", ".join(self._print(a) for a in e.args) + ")"

    def _print_Max(self, e):
        return "max(" + ", ".join(self._print(a) for a in e.args) + ")"

    def _print_Exp1(self, e):
        return "e"


_STEP = {sp.S.Zero: ">", sp.S.One: "≥"}
"""Heaviside(u, H0) as the derivation writes it: H0 = 0 is [u > 0], H0 = 1 is [u ≥ 0]."""


def text(e: sp.Basic) -> Words:
    """A subexpression as a math span of a mutation's words: printed by the derivation's
    printer where it is typeset, and as plain Unicode text here: x_i, w_(t − 1), −y_i,
    [z₂ > 0] (derive.graph.words)."""
    return cat(Formula.of(e, plain_text(e)))


def plain_text(e: sp.Basic) -> str:
    """A subexpression in plain Unicode text for an explanation: x_i, w_(t − 1), −y_i."""
    names = {}
    for a in sp.preorder_traversal(e):
        if isinstance(a, sp.Indexed):
            ix = ",".join(sp.sstr(i) for i in a.indices)
            names[a] = sp.Symbol(letter(a.base.label.name, ix))
    plain = e.xreplace(names)
    plain = plain.xreplace({s: sp.Symbol(letter(s.name)) for s in plain.free_symbols
                            if isinstance(s, sp.Symbol) and s not in names.values()})
    return _Plain().doprint(plain).replace("**", "^").replace("*", "·").replace("-", "−")


def slug(e: sp.Basic) -> str:
    """A short ASCII name of a symbol or member for a mutation's name (x, b, w_prev), or ""."""
    if isinstance(e, sp.Indexed):
        name = e.base.label.name
        if e.indices and e.indices[0].is_Add:
            name += "_prev"
        return name
    if isinstance(e, sp.Symbol):
        return e.name
    if isinstance(e, sp.Mul):
        parts = [a for a in e.args if not a.is_Number]
        if len(parts) == 1:
            return slug(parts[0])
    return ""
