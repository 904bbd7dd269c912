"""Display in Jupyter: statements, derivations and answer keys render themselves.

    from derive import notebook
    notebook.statement("A2")                       # proof, verdict, course numbers
    notebook.derivation("proofs/course/lesson03.toml")
    notebook.key("proofs/course", lang="zh")

Each returns an object with `_repr_markdown_` (KaTeX/MathJax in the notebook) and
`_repr_latex_`.
"""

from __future__ import annotations

from dataclasses import dataclass

from derive.render.document import Document, to_markdown, to_tex


@dataclass(frozen=True)
class Shown:
    """A document that Jupyter displays as Markdown (or LaTeX where asked)."""

    document: Document

    def _repr_markdown_(self) -> str:
        return to_markdown(self.document)

    def _repr_latex_(self) -> str:
        return to_tex(self.document)

    def __str__(self) -> str:
        return to_markdown(self.document)


def statement(statement_id: str, lang: str = "en") -> Shown:
    # `from derive import notebook` stays light: each helper loads the layers it uses
    from derive.render.derivation import statement_document
    from derive.statements import prove
    from derive.statements.registry import select

    (s,) = select([statement_id])
    return Shown(statement_document(prove(s), lang))


def _reports(paths):
    # `from derive import notebook` stays light: each helper loads the layers it uses
    from derive.exercises import check_exercise, load

    return [check_exercise(ex) for ex in load(list(paths))]


def derivation(*paths: str, lang: str = "en") -> Shown:
    # `from derive import notebook` stays light: each helper loads the layers it uses
    from derive.render.derivation import exercises_document

    return Shown(exercises_document(_reports(paths), lang))


def key(*paths: str, lang: str = "en") -> Shown:
    # `from derive import notebook` stays light: each helper loads the layers it uses
    from derive.render.derivation import key_document

    return Shown(key_document(_reports(paths), lang))
