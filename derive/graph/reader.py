"""A quantity's formula as a reader of the course writes it (derive/kernel/reader.py), its
symbols as the exercise writes them: in the notation in force (derive.graph.notation.in_scope),
except a name the author spelled otherwise than derive's canonical name (an author's `lr`
stays `lr`, never η; `lambda_wd` is λ_wd by the exercise's notation)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import sympy as sp

from derive.graph.language import ALIASES
from derive.graph.mutation_parts import letter
from derive.kernel.reader import Names, reader_text


def spellings(names: Iterable[str]) -> dict[str, str]:
    """{canonical name: the author's spelling} for the names an author wrote otherwise than
    derive's canonical name (`lr` for eta, the formula language's ALIASES)."""
    out: dict[str, str] = {}
    for name in names:
        canonical = ALIASES.get(name, name)
        if canonical != name:
            out.setdefault(canonical, name)
    return out


def author_names(spelled: Mapping[str, str]) -> Names:
    """How the reader form writes a symbol: the author's spelling, else its notation in the
    scope in force (ŷ_i, w_(t − 1), λ_wd)."""
    def name(symbol: str, index: str) -> str:
        if symbol in spelled:
            return spelled[symbol] + ("" if not index else
                                      "_" + (index if len(index) == 1 else f"({index})"))
        return letter(symbol, index)
    return name


def formula_reader(e: sp.Basic, spelled: Mapping[str, str]) -> str:
    """A formula in the reader form with the exercise's names (NotWritable if it cannot be)."""
    return reader_text(e, author_names(spelled))
