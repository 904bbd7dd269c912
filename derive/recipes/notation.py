"""The course's symbols by name, as the recipes declare them (derive.graph.notation): the
statement printer and proofs/ write η, ŷ, α from these declarations, not from tables of their
own. A name no recipe declares is written from its spelling (theta is θ)."""

from __future__ import annotations

import derive.recipes  # noqa: F401  (the declarations: symbol() and family() at import)
from derive.graph.notation import DECLARED, GREEK, Notation


def notation(name: str) -> Notation | None:
    """How the course writes `name`: its declaration, or a Greek name's letter."""
    n = DECLARED.get(name)
    if n is not None:
        return n
    if name == "epsilon":  # the course's epsilon is ε, as eps is
        return Notation("varepsilon")
    return Notation(name) if name in GREEK else None


def latex_of(name: str) -> str | None:
    """`name` in LaTeX (eta → \\eta, yhat → \\hat{y}), None when the course has no symbol
    for it."""
    n = notation(name)
    if n is None:
        return None
    return n.latex_letter() + (f"_{{{n.sub}}}" if n.sub else "")


def text_of(name: str) -> str:
    """`name` as Unicode text (eta → η, w → w); the name itself without a symbol."""
    n = notation(name)
    return n.text_letter() if n is not None else name
