"""A document as a list of blocks, and one renderer per output (LaTeX, Markdown + KaTeX, plain
text for a terminal), each
a `functools.singledispatch` with one handler per kind of block.

Text in blocks is prose in the course's Unicode notation, set with its formulas as math; the
words of an exercise's author (ids, titles, claims as written, file names) are `Author` text,
which each renderer escapes with its one function (`derive.render.escape`); `Math` holds
LaTeX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import singledispatch

from derive.render.escape import clean_text, escape_latex, escape_markdown, terminal_line
from derive.render.layout import (
    MD_LINE,
    TEXT_WIDTH,
    breakable,
    char_rows,
    rows,
    text_width,
    wrap_markdown,
    wrap_math_source,
)
from derive.render.symbols import has_cjk, prose_latex, prose_markdown


@dataclass(frozen=True)
class Author:
    """Words an exercise's author wrote: text, never markup nor a formula of the course. The
    renderers escape it (`escape_latex`, `escape_markdown`) and nothing else reads it."""

    text: str
    number: bool = False
    """A value the author wrote (a claim): a hyphen-minus before a digit is set as a minus
    sign. Ids, titles and file names stay exactly as written."""


@dataclass(frozen=True)
class InlineMath:
    """A formula inside a line of prose, as LaTeX built by derive (never author text); `text`
    is how plain text shows it (a mistake's words: u_1 = (1 − τ)·g_1), else the LaTeX."""

    tex: str
    text: str = ""


Inline = str | Author | InlineMath | tuple
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
    """Display math (LaTeX); `lines` > 1 are aligned at their first `&`. `source` (file,
    exercise id, key) is what a refusal of the formula names (the page's KaTeX bound)."""

    lines: tuple[str, ...]
    source: tuple[str, str, str | None] | None = field(default=None, compare=False)
    exact: str = ""
    """The exact values of results shown to students by their decimals (`-14/3; 2/7`), which
    a web page offers on request (a title); "" when every result is shown exactly."""


@dataclass(frozen=True)
class Items:
    """A list of prose items; `numbered` for the reasons of a calc chain."""

    items: tuple[Inline, ...]
    numbered: bool = False


@dataclass(frozen=True)
class Table:
    """Rows of cells; a cell is prose, author text, or LaTeX when wrapped as `("math", tex)`
    (`("math", tex, text)` with the plain text a text rendering shows)."""

    header: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]


@dataclass(frozen=True)
class Question:
    """A question a page asks and checks: its label, a hint on how to write the answer, the
    working shown once the question was tried, and `check`, the data the page judges an
    answer with (exact values, the rule, the known mistakes; JSON-ready, built by
    `derive.render.selfcheck`). `key` names it in the page; printed outputs show the label and
    the working."""

    key: str
    label: Inline
    hint: str
    working: tuple = ()
    check: object = None
    said: tuple = ()
    """The mistakes' words with math that `check` refers to by id, as (id, inline parts):
    the page typesets each once and its script shows a copy (derive.render.html)."""


@dataclass(frozen=True)
class Questions:
    """Numbered questions."""

    items: tuple[Question, ...]


@dataclass(frozen=True)
class Variant:
    """One variant of a page's exercises (a page with several shows one per visit)."""

    index: int
    blocks: tuple


Block = Heading | Paragraph | Math | Items | Table | Questions | Variant


@dataclass(frozen=True)
class Document:
    title: Inline
    blocks: tuple[Block, ...]
    lang: str = "en"
    end: tuple[Block, ...] = ()
    """Blocks after the last section (a summary): in plain text, outside every section."""


# ------------------------------------------------------------------------------------ LaTeX

MINUS = re.compile(r"(?:(?<![\w.\-])|(?<=\de))-(?=\d)")
"""A hyphen-minus that is a minus sign: before a digit, at the start of a number (not inside
a word such as lesson-03 or a range 3-4), or in an exponent (1e-12)."""

def _joined(parts: tuple, render, dollars: bool = False) -> str:
    """Inline pieces in order; a prose piece keeps one space where it begins or ends with one
    (the prose renderers trim). Where math is written between `dollars` (LaTeX, Markdown), a
    span that ends where the next begins is one span: `$n_k$` `$/$` `$N$` would read `$$` as
    display math, so they are written `$n_k / N$`."""
    out: list[str] = []
    for part in parts:
        text = render(part)
        if isinstance(part, str):
            text = (" " if part[:1].isspace() else "") + text + \
                (" " if part[-1:].isspace() and part.strip() else "")
        if dollars and out and _ends_math(out[-1]) and _starts_math(text):
            out[-1] = out[-1][:-1] + " " + text[1:]
        else:
            out.append(text)
    return "".join(out)


def _ends_math(text: str) -> bool:
    """Whether text ends with the closing `$` of an inline span (not `$$`, not an escaped `\\$`)."""
    return text.endswith("$") and not text.endswith(("$$", "\\$"))


def _starts_math(text: str) -> bool:
    return text.startswith("$") and not text.startswith("$$")


def _tex_prose(text: Inline, lang: str) -> str:
    """Inline text in LaTeX: the one place where author text enters a LaTeX document."""
    if isinstance(text, InlineMath):
        return f"${text.tex}$"
    if isinstance(text, Author):  # in a value, a minus sign before a number is set as one
        parts = MINUS.split(text.text) if text.number else [text.text]
        return "$-$".join(breakable(escape_latex(part, lang)) for part in parts)
    if isinstance(text, tuple):
        return _joined(text, lambda part: _tex_prose(part, lang), dollars=True)
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
    broken = rows(block.lines)
    if broken is None and len(block.lines) == 1 and "&" not in block.lines[0]:
        return rf"\[ {block.lines[0]} \]"
    body = " \\\\\n".join(block.lines if broken is None else broken)
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
    head = [rf"\textbf{{{_tex_prose(h, lang)}}}" for h in block.header]
    rows = [[_tex_cell(c, lang) for c in row] for row in block.rows]
    cols, notes = _fit_table(head, rows, block.rows)
    # a fraction is taller than a row's strut: rows with fractions are spaced so none overlap
    stretch = "\\renewcommand{\\arraystretch}{1.7}" if any(
        r"\frac" in c for r in rows for c in r) else ""
    table = ("\\begin{center}\\small" + stretch + "\n\\begin{tabular}{" + cols + "}\n\\hline\n"
             + " & ".join(head) + " \\\\\n\\hline\n"
             + "\n".join(" & ".join(r) + r" \\" for r in rows)
             + "\n\\hline\n\\end{tabular}\n\\end{center}")
    if "p{" in cols:  # \raggedright in a p column: rows end with \tabularnewline
        table = table.replace(r" \\", r" \tabularnewline")
    return "\n\n".join([table] + [tex_block(Math((rf"\text{{({k})}}\quad {m}",)), lang)
                                    for k, m in notes])


def _fit_table(head: list[str], rows: list[list[str]], cells) -> tuple[str, list]:
    """The column spec of a table, and the math cells moved below it: a table wider than the
    text block has its widest math cells set as numbered displays under it (the cell shows
    → (k)), and its text columns wrapped in p{} columns, widths shared out fairly."""
    n = len(head)
    pad = 2 * 6.0  # \tabcolsep on each side
    limit = 0.95 * TEXT_WIDTH

    def natural(j):
        return max(text_width(r[j]) for r in [head] + rows)

    if sum(natural(j) + pad for j in range(n)) <= limit:
        return "l" * n, []

    def unbreakable(cell: str) -> float:
        if "$" in cell and not cell.startswith(r"\textbf"):
            return text_width(cell)
        return max((text_width(w) for w in cell.split()), default=0.0)

    notes = []
    while True:
        least = [max(unbreakable(r[j]) for r in [head] + rows) for j in range(n)]
        if sum(w + pad for w in least) <= limit:
            break
        movable = [(text_width(r[j]), i, j) for i, r in enumerate(rows) for j in range(1, n)
                   if isinstance(cells[i][j], tuple) and cells[i][j][0] == "math"
                   and not r[j].startswith(r"$\to$")]
        if not movable:
            break
        _, i, j = max(movable)
        notes.append((len(notes) + 1, cells[i][j][1]))
        rows[i][j] = rf"$\to$\,({len(notes)})"
    widths = [natural(j) for j in range(n)]
    if sum(w + pad for w in widths) <= limit:
        return "l" * n, notes
    least = [max(unbreakable(r[j]) for r in [head] + rows) for j in range(n)]
    share = [0.0] * n
    left, todo = limit - pad * n, sorted(range(n), key=lambda j: widths[j])
    while todo:  # the narrow columns as they are, the rest share what is left
        j = todo[0]
        fair = left / len(todo)
        share[j] = max(min(widths[j], fair), least[j])
        left -= share[j]
        todo.pop(0)
    spec = ""
    for j in range(n):
        if share[j] >= widths[j]:
            spec += "l"
        else:
            spec += f"p{{{share[j]:.0f}pt}}"
            for r in [head] + rows:
                r[j] = r"\raggedright " + r[j]
    return spec, notes


@tex_block.register
def _(block: Questions, lang: str) -> str:
    items = []
    for q in block.items:
        work = "\n\n".join(tex_block(b, lang) for b in q.working)
        items.append(rf"  \item {_tex_prose(q.label, lang)}" + (f"\n\n{work}" if work else ""))
    return "\\begin{enumerate}\n" + "\n".join(items) + "\n\\end{enumerate}"


@tex_block.register
def _(block: Variant, lang: str) -> str:
    return "\n\n".join(tex_block(b, lang) for b in block.blocks)


FIT = ("\\setlength{\\emergencystretch}{3em}\n\\tolerance=9999\n"
       "\\DeclareRobustCommand{\\_}{\\ifmmode\\mbox{\\textunderscore}\\else"
       "\\textunderscore\\allowbreak\\fi}\n")
"""A line may break after every `\\_` (a long identifier in \\texttt, which has no stretch),
and is set loose rather than let out of the text block."""

PREAMBLE = {
    "en": ("\\documentclass[11pt]{article}\n\\usepackage[T1]{fontenc}\n"
           "\\usepackage{amsmath,amssymb}\n\\usepackage[margin=2cm]{geometry}\n" + FIT),
    "zh": ("\\documentclass[11pt]{ctexart}\n\\usepackage{amsmath,amssymb}\n"
           "\\usepackage[margin=2cm]{geometry}\n" + FIT),
}


def to_tex(doc: Document, standalone: bool = False) -> str:
    """LaTeX: a fragment to \\input, or a whole document (pdfLaTeX for English, XeLaTeX with
    ctexart for Chinese)."""
    body = "\n\n".join(tex_block(b, doc.lang) for b in doc.blocks + doc.end)
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
    if isinstance(text, InlineMath):
        return f"${text.tex}$"
    if isinstance(text, Author):
        return escape_markdown(MINUS.sub("\u2212", text.text) if text.number else text.text)
    if isinstance(text, tuple):
        return _joined(text, lambda part: _md_prose(part, cell), dollars=True)
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
    return wrap_markdown(f"*{text}*" if block.emphasis else text)


@md_block.register
def _(block: Math) -> str:
    broken = char_rows(block.lines)
    if broken is None and len(block.lines) == 1 and "&" not in block.lines[0]:
        return f"$$\n{wrap_math_source(block.lines[0])}\n$$"
    body = " \\\\\n".join(wrap_math_source(r, MD_LINE - 3)
                         for r in (block.lines if broken is None else broken))
    return "$$\n\\begin{aligned}\n" + body + "\n\\end{aligned}\n$$"


@md_block.register
def _(block: Items) -> str:
    marks = [f"{i}." if block.numbered else "-" for i in range(1, len(block.items) + 1)]
    return "\n".join(wrap_markdown(f"{m} {_md_prose(i)}", MD_LINE - 3).replace("\n", "\n   ")
                     for m, i in zip(marks, block.items))


def _md_cell(cell) -> str:
    if isinstance(cell, tuple) and cell[0] == "math":
        return f"${cell[1]}$".replace("|", r"\vert ")
    return _md_prose(cell if isinstance(cell, Author) else str(cell), cell=True)


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


@md_block.register
def _(block: Table) -> str:
    """A Markdown table whose rows stay within MD_LINE characters: a row's longest math cells
    are set as numbered displays under the table (the cell shows → (k)), as in LaTeX, and its
    longest texts (a long list of decimals) as numbered paragraphs there, wrapped at spaces;
    the longest cell goes first, never the row's name."""
    rows_ = [[_md_cell(c) for c in row] for row in block.rows]
    notes: list[tuple[str, str]] = []
    for i, row in enumerate(block.rows):
        while len(_md_row(rows_[i])) > MD_LINE:
            moved = [(len(rows_[i][j]), j) for j in range(1, len(row))
                     if not rows_[i][j].startswith(r"$\to$")]
            if not moved:
                break
            j = max(moved)[1]  # the longest cell: a formula, or a text (a list of decimals)
            is_math = isinstance(row[j], tuple) and row[j][0] == "math"
            notes.append(("math", row[j][1]) if is_math else ("text", rows_[i][j]))
            rows_[i][j] = rf"$\to$ ({len(notes)})"
    lines = [_md_row([_md_prose(h) for h in block.header]), "|" + " --- |" * len(block.header)]
    lines += [_md_row(r) for r in rows_]
    return "\n\n".join(["\n".join(lines)] + [
        md_block(Math((rf"\text{{({k})}}\quad {m}",))) if kind == "math"
        else wrap_markdown(f"({k}) {m}", MD_LINE) for k, (kind, m) in enumerate(notes, 1)])


@md_block.register
def _(block: Questions) -> str:
    out = []
    for n, q in enumerate(block.items, 1):
        out.append(f"{n}. {_md_prose(q.label)}")
        out += [md_block(b) for b in q.working]
    return "\n\n".join(out)


@md_block.register
def _(block: Variant) -> str:
    return "\n\n".join(md_block(b) for b in block.blocks)


def to_markdown(doc: Document) -> str:
    """Markdown whose math spans KaTeX renders ($…$ inline, $$…$$ display)."""
    return "\n\n".join([f"# {_md_prose(doc.title)}"]
                       + [md_block(b) for b in doc.blocks + doc.end]) + "\n"



# ------------------------------------------------------------------------------ plain text

def _text_prose(text: Inline) -> str:
    """Inline text for a terminal: the one place where author text enters plain text, on one
    line with every control character and bidirectional mark shown as an escape."""
    if isinstance(text, Author):
        return terminal_line(text.text)
    if isinstance(text, InlineMath):
        return text.text or text.tex
    if isinstance(text, tuple):
        return "".join(_text_prose(part) for part in text)
    return str(text)


def _text_cell(cell) -> str:
    if isinstance(cell, tuple) and cell[0] == "math":  # its plain text where one is given
        return cell[2] if len(cell) > 2 else cell[1]
    return _text_prose(cell if isinstance(cell, Author) else str(cell))


@singledispatch
def text_block(block) -> list[str]:
    """A block as lines of plain text."""
    raise TypeError(f"no text for {type(block).__name__}")


@text_block.register
def _(block: Heading) -> list[str]:
    detail = f" — {terminal_line(block.detail)}" if block.detail else ""
    return [_text_prose(block.text) + detail]


@text_block.register
def _(block: Paragraph) -> list[str]:
    return [_text_prose(block.text)]


@text_block.register
def _(block: Math) -> list[str]:
    return list(block.lines)


@text_block.register
def _(block: Items) -> list[str]:
    marks = [f"{i}." if block.numbered else "-" for i in range(1, len(block.items) + 1)]
    return [f"{m} {_text_prose(i)}" for m, i in zip(marks, block.items)]


@text_block.register
def _(block: Table) -> list[str]:
    """Columns aligned by two spaces; the last column is not padded."""
    rows = [[_text_prose(h) for h in block.header]] + \
        [[_text_cell(c) for c in row] for row in block.rows]
    n = len(block.header)
    widths = [max(len(r[j]) for r in rows) for j in range(n - 1)]
    return ["  ".join([r[j].ljust(widths[j]) for j in range(n - 1)] + r[n - 1:]).rstrip()
            for r in rows]


@text_block.register
def _(block: Questions) -> list[str]:
    out = []
    for n, q in enumerate(block.items, 1):
        out.append(f"{n}. {_text_prose(q.label)}")
        out += ["   " + line for b in q.working for line in text_block(b)]
    return out


@text_block.register
def _(block: Variant) -> list[str]:
    return [line for b in block.blocks for line in text_block(b)]


def to_text(doc: Document) -> str:
    """Plain text for a terminal: the title (when there is one), then each heading with its
    blocks indented under it, one blank line after each section, then the closing blocks
    (`Document.end`). No trailing new line."""
    lines = [_text_prose(doc.title), ""] if doc.title else []
    in_section = False
    for block in doc.blocks:
        if isinstance(block, Heading):
            if in_section:
                lines.append("")
            lines += text_block(block)
            in_section = True
        elif in_section:
            lines += [("  " + line).rstrip() for line in text_block(block)]
        else:
            lines += text_block(block) + [""]
    if in_section:
        lines.append("")
    for block in doc.end:
        lines += text_block(block)
    return "\n".join(lines)
