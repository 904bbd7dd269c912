"""Statements' symbols by name: the lesson's model (w, b and the learning rate η) as
derive/graph/lesson.py declares them, so the statement printer and proofs/ follow
the one declaration; every other name is written from its spelling (theta is θ, alpha is α,
yhat is ŷ) — a statement's alpha is not the accumulation weights."""

from __future__ import annotations

from derive.graph import lesson
from derive.graph.notation import DECLARED, GREEK, Notation, written_as

SHARED = frozenset(s.name for s in (lesson.w, lesson.b, lesson.eta))
"""The symbols statements share with the recipes: the lesson's model and its learning rate."""


def notation(name: str) -> Notation | None:
    """How the course writes `name`: the recipes' declaration of a shared symbol, else from
    its spelling (a Greek name, yhat), else None."""
    if name in SHARED:
        return DECLARED[name]
    if name == "epsilon":  # the course's epsilon is ε, as eps is
        return Notation("varepsilon")
    if name in GREEK or name == "yhat":
        return written_as(name)
    return None


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
