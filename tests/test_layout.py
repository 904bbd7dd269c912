"""Pages that fit: no line of any LaTeX export leaves the text block. Every export that
benchmarks/overfull.py measures (tests/layout_cases.py) is compiled, grouped into a few
documents per language (one engine start each, so the file stays quick), and an "Overfull
\\hbox" of more than 1 pt fails, naming the document and the offending line."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import layout_cases as lc
import pytest
from support import tier
from test_export import need

TOLERANCE = 1.0
"""pt: TeX's own \\hfuzz is 0.1 pt; a fraction of a point is not a line that leaves the page."""


def _compiled(lang: str) -> list[lc.Compiled]:
    need(lc.ENGINE[lang])
    chosen = [e for e in lc.combined() if e.lang == lang]
    sources = [(e, e.source()) for e in chosen]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        return list(pool.map(lambda es: lc.compile_export(*es), sources))


@pytest.mark.parametrize("lang", tier(lc.LANGS, always=["en"]))
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


# ------------------------------------------------------------- long identifiers and numbers

LONG_IDS = ["microbatch_gradient_sums_over_every_record", "clip_scaled_then_unscale_before_step",
            "w_new_tail_divided_by_planned_microbatches", "loss_after_every_step_of_the_buffer"]


def _identifier_document(lang: str) -> str:
    """Running text full of long identifiers (as code and as plain words) and a number of 90
    digits, in lines that start at every offset: TeX finds no space to break at in them."""
    from derive.render.document import Document, Paragraph, to_tex

    paragraphs = []
    for k in range(6):
        for name in LONG_IDS:
            paragraphs.append(Paragraph(
                f"{'错误做法' * k}把量 {name} 当作梯度:{name} 与 {LONG_IDS[0]} 不同。" if lang == "zh"
                else f"{'word ' * k}The quantity {name} is not {LONG_IDS[0]}: see {name}."))
    digits = "1234567890" * 9
    paragraphs.append(Paragraph(f"数值 {digits} 太长" if lang == "zh" else f"Value {digits} long"))
    return to_tex(Document("identifiers", tuple(paragraphs), lang), standalone=True)


@pytest.mark.parametrize("lang", lc.LANGS)
def test_long_identifiers_break_in_running_text(lang, tmp_path):
    """Before: 23 (en) and 27 (zh) overfull lines, the worst 177 and 183 pt."""
    need(lc.ENGINE[lang])
    done = lc.compile_export(lc.Export("identifiers", lang, lambda: _identifier_document(lang)),
                             workdir=tmp_path)
    assert done.ok, done.error
    assert not [o for o in done.overfull if o.pt > TOLERANCE], \
        [(o.pt, o.shown[:120]) for o in done.overfull]


# ------------------------------------------------------- every export of every exercise file

SLOW = os.environ.get("DERIVE_SLOW") == "1"
SAMPLE = ("docs/examples/optimizer_steps.toml", "docs/examples/formulas.toml",
          "benchmarks/bank24/lab.toml")
"""Always surveyed; `DERIVE_SLOW=1` surveys every file of `layout_cases.survey_files()`
(27 files, 324 exports: several minutes)."""
MD_LINE = 200
PLACES = 6


def _survey(paths) -> dict[str, list[tuple[str, str]]]:
    from golden import render

    out: dict[str, list[tuple[str, str]]] = {"tex": [], "md": []}
    for path in paths:
        for fmt, args in lc.survey_args(path):
            out[fmt].append((" ".join(args), render(args)))
    return out


@pytest.fixture(scope="module")
def survey():
    return _survey(lc.survey_files() if SLOW else SAMPLE)


def test_every_decimal_after_approx_has_the_stated_places(survey):
    """The documents say: decimals after ≈ are rounded to 6 places. Before: 2,200 of 5,140
    over all the survey's exports had 7 to 12."""
    for name, text in survey["tex"] + survey["md"]:
        if name.startswith("export"):
            assert f"to {PLACES} places" in text or f"保留 {PLACES} 位" in text or \
                "--questions" in name, name
        bad = [s for p, s in lc.approx_places(text) if p > PLACES]
        assert not bad, (name, bad[:5])


def test_no_markdown_line_is_longer_than_200(survey):
    """Before: 1,055 lines over 200 characters, the longest 1,428 (a key's table row)."""
    for name, text in survey["md"]:
        long = [line for line in text.splitlines() if len(line) > MD_LINE]
        assert not long, (name, [line[:120] for line in long[:3]])


def test_the_survey_markdown_renders_with_katex(survey):
    from test_export import katex_failures, math_spans

    spans = [s for name, text in survey["md"] for s in math_spans(text, name)]
    failures = katex_failures(spans)
    assert not failures, "\n".join(f"{f['where']}: {f['error']}\n  {f['tex'][:200]}"
                                   for f in failures[:5])


@pytest.mark.parametrize("lang", tier(lc.LANGS, always=["en"]))
def test_the_survey_latex_compiles_within_the_text_block(survey, lang, tmp_path):
    """Each standalone export compiles (pdfLaTeX en, XeLaTeX zh) with no line over 1 pt
    outside the text block; a key (a fragment) is compiled inside an export's preamble."""
    need(lc.ENGINE[lang])
    flag = f"--lang {lang}"
    chosen = [(n, t) for n, t in survey["tex"] if flag in n]
    head = next(t for n, t in chosen if "\\documentclass" in t)
    head = head[:head.index("\\begin{document}")]
    sources = [(lc.Export(n, lang, None), t if "\\documentclass" in t
                else head + "\\begin{document}\n" + t + "\n\\end{document}\n")
               for n, t in chosen]
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda es: lc.compile_export(*es, workdir=tmp_path), sources))
    assert all(r.ok for r in results), [(r.name, r.error) for r in results if not r.ok]
    bad = [(r.name, o) for r in results for o in r.overfull if o.pt > TOLERANCE]
    assert not bad, "\n".join(f"{n}: {o.pt:.1f} pt {o.where}: {o.line[:200]}" for n, o in bad)


def test_a_long_text_cell_goes_under_the_table_as_a_wrapped_paragraph():
    """A row still too long once its formulas are moved (a list of 49 decimals, as the key
    of a clipping exercise shows) has its longest text set as paragraph (k) under the table,
    wrapped at spaces: joined back, it is the cell's text."""
    from derive.render.document import Table, md_block

    decimals = "[" + ", ".join(f"0.{k:015d}" for k in range(1, 50)) + "]"
    md = md_block(Table(("Quantity", "Exact", "Decimal"),
                        ((r"`clipped`", ("math", r"\frac{1}{2}"), decimals),)))
    lines = md.split("\n")
    assert lines[2] == r"| `clipped` | $\frac{1}{2}$ | $\to$ (1) |"
    assert all(len(line) <= 200 for line in lines)
    note = md.split("\n\n", 1)[1]
    assert note.startswith("(1) [0.000000000000001, ")
    assert note[len("(1) "):].replace("\n", " ") == decimals
