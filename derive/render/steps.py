"""The steps of a recurrent family (t = 1…T) as one table of the document model: a row per
step, a column per node, every value from the graph."""

from __future__ import annotations

from derive.kernel.exact import to_expr
from derive.render.document import Paragraph, Table
from derive.render.numbers import exact_latex, is_readable, latex_decimal, places_decimal

WORDS = {"en": "Every step. Each value is exact; a value too long to print in full is shown "
               "rounded, after ≈.",
         "zh": "每一步。各值均为精确值;太长而无法完整写出的值以 ≈ 后的四舍五入小数表示。"}

CELL_CHARS = 40
"""A cell's exact value longer than this (in LaTeX) is shown by its decimal: the table stays
a summary (30 SGD steps on 60-digit inputs have values of thousands of digits)."""


def _cell(v, students: bool = False) -> tuple[str, str]:
    """A value exact, or after ≈ rounded by the document's rule when it is too long (for
    `students`, when its fraction is not one a reader reads: `is_readable`); a vector's (a
    vector w's step: w_{t,1}, …, w_{t,d}) entry by entry, in brackets."""
    if isinstance(v, (list, tuple)):
        return ("math", r"\left[" + ", ".join(_cell(x, students)[1] for x in v) + r"\right]")
    e = to_expr(v)
    if e.is_Rational and max(abs(e.p), e.q).bit_length() > 4 * CELL_CHARS:
        # thousands of digits: never printed in full to find out
        return ("math", rf"\approx {latex_decimal(places_decimal(e))}")
    text = exact_latex(e)
    if (len(text) > CELL_CHARS or students and not is_readable(e)) and \
            not text.startswith(r"\approx"):
        text = rf"\approx {latex_decimal(places_decimal(e))}"
    return ("math", text)


def steps_table(work, lang: str, names, headers=None, students: bool = False) -> list:
    """A paragraph and a table: column `t`, then each of the nodes `names` the exercise's
    graph has (in that order), their members by step. `headers` maps a node to its prose
    heading (default: its symbol)."""
    nodes = [work.graph.by_name[n] for n in names if n in work.graph.by_name]
    if not nodes:
        return []
    index = nodes[0].over.index
    columns = [work.node_value(n.name) for n in nodes]
    header = (index.name,) + tuple(
        (headers or {}).get(n.name, n.name) for n in nodes)
    rows = tuple((str(m),) + tuple(_cell(col[m - 1], students) for col in columns)
                 for m in range(1, len(columns[0]) + 1))
    return [Paragraph(WORDS.get(lang, WORDS["en"])), Table(header, rows)]
