"""Pages that fit: no line of any LaTeX export leaves the text block. Every export that
benchmarks/overfull.py measures (tests/layout_cases.py) is compiled, grouped into a few
documents per language (one engine start each, so the file stays quick), and an "Overfull
\\hbox" of more than 1 pt fails, naming the document and the offending line."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import layout_cases as lc
import pytest
from test_export import need

TOLERANCE = 1.0
"""pt: TeX's own \\hfuzz is 0.1 pt; a fraction of a point is not a line that leaves the page."""


def _compiled(lang: str) -> list[lc.Compiled]:
    need(lc.ENGINE[lang])
    chosen = [e for e in lc.combined() if e.lang == lang]
    sources = [(e, e.source()) for e in chosen]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        return list(pool.map(lambda es: lc.compile_export(*es), sources))


@pytest.mark.parametrize("lang", lc.LANGS)
def test_no_line_leaves_the_text_block(lang):
    results = _compiled(lang)
    assert all(r.ok for r in results), [(r.name, r.error) for r in results if not r.ok]
    bad = [(r.name, o) for r in results for o in r.overfull if o.pt > TOLERANCE]
    assert not bad, "\n".join(f"{name}: {o.pt:.1f} pt too wide {o.where}: {o.line[:200]}"
                              for name, o in bad[:10])


def test_a_wide_line_is_caught(tmp_path):
    """The check sees an overfull line, with where it is."""
    need("pdflatex")
    wide = " + ".join(f"x_{{{i}}}" for i in range(80))
    source = ("\\documentclass{article}\n\\begin{document}\n\\[ " + wide
              + " \\]\n\\end{document}\n")
    done = lc.compile_export(lc.Export("wide", "en", lambda: source), workdir=tmp_path)
    assert done.ok and len(done.overfull) == 1 and done.overfull[0].pt > 100
    assert done.overfull[0].line.startswith("\\[ x_{0}")
