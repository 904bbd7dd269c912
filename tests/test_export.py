"""Exports: exact golden text, LaTeX that real engines compile (pdfLaTeX for English, XeLaTeX
with ctexart for Chinese), and Markdown whose every math span KaTeX renders in strict mode.

The renderers are installed by `make test` (.ci/renderers). Set DERIVE_SKIP_RENDERERS=1 to skip the compile and
render checks on a machine without them (never in CI).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import sympy as sp
from golden import CASES, GOLDEN, ROOT, render
from support import tier

from derive.exercises import check_exercise, load
from derive.render.derivation import exercises_document, key_document, statement_document
from derive.render.document import Document, to_markdown, to_tex
from derive.statements import prove
from derive.statements.registry import all_statements

SKIP = os.environ.get("DERIVE_SKIP_RENDERERS") == "1"
KATEX = ROOT / "tests" / "katex"


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if SKIP:
            pytest.skip(f"{tool} not installed and DERIVE_SKIP_RENDERERS=1")
        pytest.fail(f"{tool} is not installed: `make test` installs it through .ci/renderers "
                    "(or set DERIVE_SKIP_RENDERERS=1)")
    return path


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden(name):
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    got = render(CASES[name])
    assert got == expected, f"tests/golden/{name} differs; after a deliberate change run `make golden`"


# ---------------------------------------------------------------------- the course, whole

def _reports():
    return [check_exercise(ex) for ex in load([str(ROOT / "proofs" / "course"),
                                               str(ROOT / "tests" / "data" / "mistakes.toml"),
                                               str(ROOT / "tests" / "data" / "torch_cases.toml"),
                                               str(ROOT / "docs" / "examples")])]


def course_documents(lang: str) -> list[Document]:
    outcomes = [prove(s) for s in all_statements()]
    reports = _reports()
    from derive.model.memory import PRESETS
    from derive.render.ledger import ledger_document

    ledger = ledger_document(sp.Integer(10**9), PRESETS["mixed_adam"].bytes, sp.Integer(4),
                             sp.Integer(2), lang)
    return ([statement_document(o, lang) for o in outcomes]
            + [exercises_document(reports, lang), key_document(reports, lang), ledger])


def combined_tex(lang: str) -> str:
    """Every statement and every exercise of the course in one standalone document."""
    docs = course_documents(lang)
    head = Document("derive: the course", (), lang)
    whole = to_tex(head, standalone=True)
    body = "\n\\clearpage\n".join(to_tex(d) for d in docs)
    return whole.replace("\\end{document}", body + "\n\\end{document}")


def compile_tex(source: str, engine: str, tmp_path: Path) -> None:
    exe = need(engine)
    tex = tmp_path / "doc.tex"
    tex.write_text(source, encoding="utf-8")
    done = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                          cwd=tmp_path, capture_output=True, text=True, errors="replace",
                          timeout=600)  # TeX writes an 8-bit é to the terminal as one byte
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    errors = [line for line in log.splitlines() if line.startswith("!")]
    missing = sorted(set(re.findall(r"Missing character: There is no (.+?) in font", log)))
    if done.returncode != 0 or errors:
        at = re.search(r"^l\.(\d+) (.*)$", log, re.M)
        where = f" at line {at.group(1)}: {at.group(2)}" if at else ""
        pytest.fail(f"{engine} failed: {errors[:3]}{where}")
    assert not missing, f"{engine} has no glyph for {missing}"
    assert (tmp_path / "doc.pdf").stat().st_size > 1000


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_course_compiles(tmp_path, lang, engine):
    compile_tex(combined_tex(lang), engine, tmp_path)


@pytest.mark.parametrize("args,engine", [
    (["export", "A2", "--standalone"], "pdflatex"),
    (["export", "A2", "--standalone", "--lang", "zh"], "xelatex"),
    (["export", "proofs/course/reading.toml", "--standalone"], "pdflatex"),
    (["export", "proofs/course/lesson03.toml", "--standalone", "--lang", "zh"], "xelatex"),
    (["key", "proofs/course", "--format", "tex"], "pdflatex"),
    (["key", "proofs/course", "--format", "tex", "--lang", "zh"], "xelatex"),
], ids=lambda v: "-".join(v) if isinstance(v, list) else v)
def test_cli_standalone_compiles(tmp_path, args, engine):
    compile_tex(render(args), engine, tmp_path)


# ---------------------------------------------------------------------------- KaTeX

MATH = re.compile(r"\$\$\n?(.+?)\n?\$\$|(?<![\\$])\$(?!\$)(.+?)(?<!\\)\$", re.S)


def math_spans(markdown: str, where: str) -> list[dict]:
    spans = []
    for m in MATH.finditer(markdown):
        display, inline = m.group(1), m.group(2)
        line = markdown.count("\n", 0, m.start()) + 1
        spans.append({"tex": display if display is not None else inline,
                      "display": display is not None, "where": f"{where}:{line}"})
    return spans


def katex_failures(spans: list[dict]) -> list[dict]:
    node = need("node")
    if not (KATEX / "node_modules" / "katex").is_dir():
        if SKIP:
            pytest.skip("katex not installed and DERIVE_SKIP_RENDERERS=1")
        pytest.fail("katex is not installed: run `npm install --prefix tests/katex` (`make test` does)")
    done = subprocess.run([node, str(KATEX / "render.js")], input=json.dumps(spans),
                          capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("lang", tier(["en", "zh"], always=["en"]))
def test_every_math_span_renders_with_katex(lang):
    spans = []
    for doc in course_documents(lang):
        spans += math_spans(to_markdown(doc), doc.title)
    spans += math_spans(render(["key", "proofs/course", "--lang", lang]), "key")
    assert len(spans) > 300
    failures = katex_failures(spans)
    assert not failures, "\n".join(f"{f['where']}: {f['error']}\n  {f['tex']}" for f in failures[:5])


def test_katex_check_catches_bad_math():
    spans = [{"tex": r"\frac{1}{", "display": False, "where": "bad"},
             {"tex": r"\unknowncommand", "display": False, "where": "bad"},
             {"tex": "学", "display": False, "where": "strict"}]
    assert [f["where"] for f in katex_failures(spans)] == ["bad", "bad", "strict"]


def test_math_spans_are_found():
    spans = math_spans("a $x$ b\n$$\ny\n$$\nc \\$ d", "t")
    assert [(s["tex"], s["display"]) for s in spans] == [("x", False), ("y", True)]


def test_notebook_display():
    from derive import notebook

    shown = notebook.statement("A3")
    md, tex = shown._repr_markdown_(), shown._repr_latex_()
    assert md.startswith("# A3 — ") and "$$" in md
    assert r"\begin{align*}" in tex and "8/15" not in tex and r"\frac{8}{15}" in tex
    key = notebook.key(str(ROOT / "proofs" / "course" / "lesson03.toml"), lang="zh")
    assert "参考答案" in key._repr_markdown_()
    d = notebook.derivation(str(ROOT / "proofs" / "course" / "reading.toml"))
    assert r"\frac{2}{3} \cdot 2.5 + \frac{1}{3} \cdot 9 = \frac{14}{3}" in d._repr_markdown_()


def test_every_known_mistake_has_a_chinese_explanation():
    from derive.recipes import RECIPES

    names = {m.name for r in RECIPES.values() for m in r.mistakes if not m.zh}
    names |= {q.name for r in RECIPES.values() for q in r.quantities if q.mistake_of
              and not any(m.name == q.name and m.zh for m in r.mistakes)}
    assert not names, sorted(names)


def test_chinese_diagnoses_in_the_export():
    md = render(["export", "tests/data/mistakes.toml", "--format", "md", "--lang", "zh"])
    assert "错误:各微批均值直接等权平均" in md
    assert "由你错误的 gradient 正确推出" in md
    assert "被提前四舍五入到 2 位" in md
    assert "没有已知错误给出这个值" in md


# ------------------------------------------------- mistake words in LaTeX (issue 25)

RESUMED = """[[exercise]]
id = "resume-lost-buffer"
title = "Resumed SGD with momentum"
recipe = "optimizer_steps"

[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]
optimizer = { name = "sgd", momentum = 0.5 }
state = { buffer = -2 }

[exercise.claims]
buffer_steps = [-4]
"""
"""sgd.py's example of `saving_only_w`: resumed from u_0 = −2, torch's u_1 = 0.5·(−2) + (−4) =
−5; the claim −4 is u_1 = g_1, the buffer lost. Its words write g̃ (g + U+0303)."""


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_resumed_buffer_mistake_compiles(tmp_path, lang, engine):
    path = tmp_path / "resume.toml"
    path.write_text(RESUMED, encoding="utf-8")
    tex = render(["export", str(path), "--standalone", "--lang", lang])
    compile_tex(tex, engine, tmp_path)
    assert "saving\\_only\\_w" in tex and r"\tilde{g}_1" in tex and "\u0303" not in tex


def _mistake_words() -> list[tuple[str, str]]:
    """(name, English words) of every mistake of every registered recipe and optimizer."""
    from derive.optimizers import REGISTRY
    from derive.recipes import RECIPES
    from derive.recipes.optimizer_steps.mistakes import STEP_MISTAKES

    out = [(m.name, m.doc) for r in RECIPES.values() for m in r.mistakes]
    out += [(m.name, m.en) for spec in REGISTRY.values() for m in spec.mistakes]
    return out + [(m.name, m.en) for m in STEP_MISTAKES]


def _unset(latex: str) -> set[str]:
    """Characters pdfLaTeX cannot set: outside printable ASCII and the escaper's settable set
    in text, anything outside ASCII inside $…$."""
    from derive.render.escape import SETTABLE

    bad = {ch for ch in latex if ch not in SETTABLE}
    for m in re.finditer(r"(?<!\\)\$(.+?)(?<!\\)\$", latex):
        bad |= {ch for ch in m.group(1) if not ch.isascii()}
    return bad


def test_every_mistake_word_is_set_by_pdflatex():
    from derive.render.escape import escape_latex
    from derive.render.symbols import prose_latex

    words = _mistake_words()
    assert len(words) > 60 and any(n == "saving_only_w" for n, _ in words)
    bad = {}
    for name, text in words:
        for latex in (prose_latex(text, cjk=False), escape_latex(text, "en")):
            if unset := _unset(latex):
                bad[name] = (sorted(unset), latex)
    assert not bad, bad


def test_unset_characters_are_found():
    assert _unset(r"$u_1 = g" + "\u0303" + "_1$") == {"\u0303"}
    assert _unset("caf\u00e9 $x$") == set() and _unset("$\u00e9$") == {"\u00e9"}


# ------------------------------------------ the Given line in the formulas' notation (issue 25)



@pytest.fixture(scope="module")
def given_line() -> str:
    from derive.render.derivation import given_math

    path = ROOT / "tests" / "data" / "exports" / "given_line.toml"
    return " ".join(given_math(load([str(path)])[0]).lines)


@pytest.mark.parametrize("expected", [
    r"w_{1} = 1",
    r"\mu = 0.9",
    r"\delta = 1",
    r"b_{\mathrm{ck}} = -1.124068125",
    r"\epsilon = 10^{-8}",
    r"\mathrm{big} = 2.5 \times 10^{3}",
    r"\eta = 0.1",
    r"(x_{1}, y) = \left[\left[0.5, 2\right], \left[3, 10^{-2}\right]\right]",
])
def test_given_line_as_the_formulas_write_it(given_line, expected):
    assert expected in given_line, given_line


@pytest.mark.parametrize("text,value,expected", [
    ("1e-8", sp.Rational(1, 10**8), "10^{-8}"),
    ("1E+08", sp.Integer(10**8), "10^{8}"),
    ("1.0e-10", sp.Rational(1, 10**10), "10^{-10}"),
    ("-2.5e-3", sp.Rational(-1, 400), r"-2.5 \times 10^{-3}"),
    ("1.6689308125", sp.Rational(26702893, 16000000), "1.6689308125"),
    (".5", sp.Rational(1, 2), "0.5"),
    ("0.10", sp.Rational(1, 10), "0.10"),
    ("7", sp.Integer(7), "7"),
    ("1/3", sp.Rational(1, 3), r"\frac{1}{3}"),
    ("0.5", sp.Rational(1, 3), r"\frac{1}{3}"),  # a text that is not the value is not shown
    ("1e-8", sp.sqrt(2), r"\sqrt{2}"),
])
def test_written_latex(text, value, expected):
    from derive.render.numbers import written_latex

    assert written_latex(text, value) == expected


# ------------------------------------------------------- an author's title (issue 25)

HOSTILE_TITLE = r"Buffer u_{t-1} \end{document} $x$ #1 & 50% ~ ^ `q` *b* <i> \input{x}"
HOSTILE = f"""[[exercise]]
id = "hostile-title"
title = '''{HOSTILE_TITLE}'''
recipe = "formulas"

[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]

[exercise.define]
u = {{ formula = "(w*x_i - y_i)^2", title = '''{HOSTILE_TITLE}''' }}
loss = "mean_i(u_i)"
w_new = "w - lr*grad(loss, w)"
"""


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_hostile_titles_are_text(tmp_path, lang, engine):
    """An exercise's and a quantity's title are the author's words, set as written."""
    path = tmp_path / "hostile.toml"
    path.write_text(HOSTILE, encoding="utf-8")
    tex = render(["export", str(path), "--standalone", "--lang", lang])
    compile_tex(tex, engine, tmp_path)
    escaped = (r"Buffer u\_\{t-1\} \textbackslash{}end\{document\} \$x\$ \#1 \& 50\% "
               r"\textasciitilde{} \textasciicircum{} \textasciigrave{}q\textasciigrave{} *b* "
               r"\textless{}i\textgreater{}")
    assert tex.count(escaped) == 2, tex
    md = render(["export", str(path), "--format", "md", "--lang", lang])
    assert md.count(r"Buffer u\_{t-1} \\end{document} \$x\$ \#1 &amp; 50% \~ \^ \`q\` \*b\* "
                    r"&lt;i&gt; \\input{x}") == 2, md
