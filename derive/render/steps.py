"""The steps of a recurrent family (t = 1…T) as one table of the document model: a row per
step, a column per node, every value from the graph."""

from __future__ import annotations

from derive.render.document import Paragraph, Table

WORDS = {"en": "Every step (exact values; a long closed form by its decimal):",
         "zh": "每一步(精确值;过长的闭式以小数表示):"}


def steps_table(work, lang: str, names, headers=None) -> list:
    """A paragraph and a table: column `t`, then each of the nodes `names` the exercise's
    graph has (in that order), their members by step. `headers` maps a node to its prose
    heading (default: its symbol)."""
    from derive.render.derivation import _exact

    nodes = [work.graph.by_name[n] for n in names if n in work.graph.by_name]
    if not nodes:
        return []
    index = nodes[0].over.index
    columns = [work.node_value(n.name) for n in nodes]
    header = (index.name,) + tuple(
        (headers or {}).get(n.name, n.name) for n in nodes)
    rows = tuple((str(m),) + tuple(("math", _exact(col[m - 1])) for col in columns)
                 for m in range(1, len(columns[0]) + 1))
    return [Paragraph(WORDS.get(lang, WORDS["en"])), Table(header, rows)]
