"""A mistake's words typeset: their math spans as inline math of the document, in the
derivation's notation (derive.graph.words; docs/diagnosis.md, "How a mistake's words are
written")."""

from __future__ import annotations

from derive.graph.notation import in_scope
from derive.graph.words import Formula, Quoted, Words, parts_of
from derive.render.document import Author, InlineMath
from derive.render.formula_tex import formula


def typeset(words: str, author: bool = False) -> tuple:
    """Words with their math as inline document parts: text as prose, a math span as
    `InlineMath` (its LaTeX as written, or its subexpression printed as the derivation is, in
    the notation of the exercise it was made in), an author's words as `Author`. Plain words
    (no `Words`) are the author's when `author` says so (a declared mistake's), else prose."""
    if not isinstance(words, Words):
        return (Author(words),) if author and words else ((words,) if words else ())
    out: list = []
    for part in parts_of(words):
        if isinstance(part, Quoted):
            out.append(Author(part.text))
        elif isinstance(part, Formula):
            tex = _span_tex(part)
            if tex is None:  # a subexpression the working's printer cannot write: its text
                out.append(Author(part.text) if author else part.text)
            else:
                out.append(InlineMath(tex, part.text))
        elif author:  # derive's own words around an author's, never read for formulas
            out.append(Author(part))
        else:
            out.append(part)
    return tuple(out)


def _span_tex(span: Formula) -> str | None:
    """A span's LaTeX: as written, or its subexpression printed by the derivation's printer
    (None where that printer has no form for it: a symbol without notation, a function it
    does not write)."""
    if span.expr is None:
        return span.tex
    try:
        with in_scope(span.scope):
            return formula(span.expr).text
    except (KeyError, NotImplementedError, ValueError, TypeError):
        return None
