"""A document as a list of blocks, and one renderer per output (LaTeX, Markdown + KaTeX), each
a `functools.singledispatch` with one handler per kind of block.

Text in blocks is prose in the course's Unicode notation, set with its formulas as math; the
words of an exercise's author (ids, titles, claims as written, file names) are `Author` text,
which each renderer escapes with its one function (`derive.render.escape`); `Math` holds
LaTeX.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import singledispatch

from derive.render.escape import clean_text, escape_latex, escape_markdown
from derive.render.symbols import has_cjk, prose_latex, prose_markdown


@dataclass(frozen=True)
class Author:
    """Words an exercise's author wrote: text, never markup nor a formula of the course. The
    renderers escape it (`escape_latex`, `escape_markdown`) and nothing else reads it."""

    text: str


Inline = str | Author | tuple
"""Inline text: prose (str), author text, or a tuple of the two in order."""


@dataclass(frozen=True)
class Heading:
    """A heading; `detail` (a title in the author's words, always author text) is left out
    where the output cannot set it (Chinese in a pdfLaTeX document)."""

    text: Inline
    level: int = 1
    detail: str = ""

    def shows_detail(self, cjk: bool = True) -> bool:
        detail = clean_text(self.detail)
        return bool(detail) and (cjk or not has_cjk(detail))


@dataclass(frozen=True)
class Paragraph:
    text: Inline
    emphasis: bool = False


@dataclass(frozen=True)
class Math:
    """Display math (LaTeX); `lines` > 1 are aligned at their first `&`."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Items:
    """A list of prose items; `numbered` for the reasons of a calc chain."""

    items: tuple[Inline, ...]
    numbered: bool = False


@dataclass(frozen=True)
class Table:
    """Rows of cells; a cell is prose, author text, or LaTeX when wrapped as `("math", tex)`."""

    header: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]


Block = Heading | Paragraph | Math | Items | Table


@dataclass(frozen=True)
class Document:
    title: Inline
    blocks: tuple[Block, ...]
    lang: str = "en"


# ------------------------------------------------------------------------------------ LaTeX

def _joined(parts: tuple, render) -> str:
    """Inline pieces in order; a prose piece keeps one space where it begins or ends with one
    (the prose renderers trim)."""
    out = []
    for part in parts:
        text = render(part)
        if isinstance(part, str):
            text = (" " if part[:1].isspace() else "") + text + \
                (" " if part[-1:].isspace() and part.strip() else "")
        out.append(text)
    return "".join(out)


def _tex_prose(text: Inline, lang: str) -> str:
    """Inline text in LaTeX: the one place where author text enters a LaTeX document."""
    if isinstance(text, Author):
        return escape_latex(text.text, lang)
    if isinstance(text, tuple):
        return _joined(text, lambda part: _tex_prose(part, lang))
    return prose_latex(text, cjk=(lang == "zh"))


@singledispatch
def tex_block(block, lang: str) -> str:
    raise TypeError(f"no LaTeX for {type(block).__name__}")


@tex_block.register
def _(block: Heading, lang: str) -> str:
    cmd = {1: "section", 2: "subsection"}.get(block.level, "subsubsection")
    text = _tex_prose(block.text, lang)
    detail = _tex_prose(Author(block.detail), lang) if block.shows_detail(lang == "zh") else ""
    if detail:
        text += " --- " + detail  # the author's words
    return rf"\{cmd}*{{{text}}}"


@tex_block.register
def _(block: Paragraph, lang: str) -> str:
    text = _tex_prose(block.text, lang)
    return rf"\emph{{{text}}}" if block.emphasis else text


@tex_block.register
def _(block: Math, lang: str) -> str:
    if len(block.lines) == 1 and "&" not in block.lines[0]:
        return rf"\[ {block.lines[0]} \]"
    body = " \\\\\n".join(block.lines)
    return "\\begin{align*}\n" + body + "\n\\end{align*}"


@tex_block.register
def _(block: Items, lang: str) -> str:
    env = "enumerate" if block.numbered else "itemize"
    items = "\n".join(rf"  \item {_tex_prose(i, lang)}" for i in block.items)
    return f"\\begin{{{env}}}\n{items}\n\\end{{{env}}}"


def _tex_cell(cell, lang: str) -> str:
    if isinstance(cell, tuple) and cell[0] == "math":
        return f"${cell[1]}$"
    return _tex_prose(cell if isinstance(cell, Author) else str(cell), lang)


@tex_block.register
def _(block: Table, lang: str) -> str:
    cols = "l" * len(block.header)
    head = " & ".join(rf"\textbf{{{_tex_prose(h, lang)}}}" for h in block.header)
    rows = [" & ".join(_tex_cell(c, lang) for c in row) + r" \\" for row in block.rows]
    return ("\\begin{center}\\small\n\\begin{tabular}{" + cols + "}\n\\hline\n" + head
            + " \\\\\n\\hline\n" + "\n".join(rows) + "\n\\hline\n\\end{tabular}\n\\end{center}")


PREAMBLE = {
    "en": ("\\documentclass[11pt]{article}\n\\usepackage[T1]{fontenc}\n"
           "\\usepackage{amsmath,amssymb}\n\\usepackage[margin=2cm]{geometry}\n"),
    "zh": ("\\documentclass[11pt]{ctexart}\n\\usepackage{amsmath,amssymb}\n"
           "\\usepackage[margin=2cm]{geometry}\n"),
}


def to_tex(doc: Document, standalone: bool = False) -> str:
    """LaTeX: a fragment to \\input, or a whole document (pdfLaTeX for English, XeLaTeX with
    ctexart for Chinese)."""
    body = "\n\n".join(tex_block(b, doc.lang) for b in doc.blocks)
    if not standalone:
        return body + "\n"
    title = _tex_prose(doc.title, doc.lang)
    return (PREAMBLE[doc.lang] + "\\begin{document}\n" + f"\\begin{{center}}\\Large {title}"
            "\\end{center}\n\n" + body + "\n\n\\end{document}\n")


# --------------------------------------------------------------------------------- Markdown

@singledispatch
def md_block(block) -> str:
    raise TypeError(f"no Markdown for {type(block).__name__}")


def _md_prose(text: Inline, cell: bool = False) -> str:
    """Inline text in Markdown: the one place where author text enters a Markdown document.
    In a table `cell`, a `|` of the prose is escaped too (author text has it escaped)."""
    if isinstance(text, Author):
        return escape_markdown(text.text)
    if isinstance(text, tuple):
        return _joined(text, lambda part: _md_prose(part, cell))
    out = prose_markdown(text)
    return out.replace("|", r"\|") if cell else out


@md_block.register
def _(block: Heading) -> str:
    text = _md_prose(block.text)
    if block.shows_detail():
        text += " — " + _md_prose(Author(block.detail))
    return "#" * (block.level + 1) + " " + text


@md_block.register
def _(block: Paragraph) -> str:
    text = _md_prose(block.text)
    return f"*{text}*" if block.emphasis else text


@md_block.register
def _(block: Math) -> str:
    if len(block.lines) == 1 and "&" not in block.lines[0]:
        return f"$$\n{block.lines[0]}\n$$"
    return "$$\n\\begin{aligned}\n" + " \\\\\n".join(block.lines) + "\n\\end{aligned}\n$$"


@md_block.register
def _(block: Items) -> str:
    marks = [f"{i}." if block.numbered else "-" for i in range(1, len(block.items) + 1)]
    return "\n".join(f"{m} {_md_prose(i)}" for m, i in zip(marks, block.items))


def _md_cell(cell) -> str:
    if isinstance(cell, tuple) and cell[0] == "math":
        return f"${cell[1]}$".replace("|", r"\vert ")
    return _md_prose(cell if isinstance(cell, Author) else str(cell), cell=True)


@md_block.register
def _(block: Table) -> str:
    lines = ["| " + " | ".join(_md_prose(h) for h in block.header) + " |",
             "|" + " --- |" * len(block.header)]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
    return "\n".join(lines)


def to_markdown(doc: Document) -> str:
    """Markdown whose math spans KaTeX renders ($…$ inline, $$…$$ display)."""
    return "\n\n".join([f"# {_md_prose(doc.title)}"] + [md_block(b) for b in doc.blocks]) + "\n"

