"""A mistake's words on the self-check page, in Chromium: their math typeset by KaTeX from the
same spans as the exports (docs/diagnosis.md, "How a mistake's words are written"), for a named
mistake, a mistake of an earlier quantity named at a later one, a tie and an offer, in English
and Chinese; an author's declared words shown as text, never typeset nor run.

Every expected string is written here by hand from the words' source (derive/optimizers/sgd.py,
derive/graph/mutate.py) and every typed value is computed by hand in its docstring; nothing is
taken from derive's output. A formula is read as the TeX of its MathML annotation, between
dollars (tests/browser.py, READ_TEX), and as what a reader sees (KaTeX's HTML, without the
MathML KaTeX hides for screen readers).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import feedback_text, open_page
from test_page_browser import ask, data_of, export

from derive.render.document import Document, InlineMath, Question, Questions
from derive.render.html import to_html

ROOT = Path(__file__).resolve().parent.parent

SEEN = """e => {
    const copy = e.cloneNode(true);
    copy.querySelectorAll('.katex-mathml').forEach(m => m.remove());
    return copy.textContent.replace(/\\u200b/g, '');
}"""
"""What a reader sees of a feedback: its text with KaTeX's MathML (shown to screen readers
only) left out, and KaTeX's zero-width spaces."""


def _key(path: Path, exercise: int, name: str) -> str:
    """The page's key of quantity `name` in exercise `exercise` (0-based) of variant 0."""
    (variant,) = data_of(path)["variants"]
    (key,) = [k for k, q in variant["questions"].items()
              if k.startswith(f"v0-e{exercise}-") and q["name"] == name]
    return key


def _said(page, key: str) -> tuple[str, str, list[str]]:
    """(the feedback read with its formulas as $TeX$, as seen, its formulas' annotations)."""
    feedback = page.locator(f"#{key}-feedback")
    notes = feedback.locator(".katex annotation[encoding='application/x-tex']")
    return (feedback_text(page, key, tex=True), feedback.evaluate(SEEN),
            [notes.nth(i).text_content() for i in range(notes.count())])


# ------------------------------------------------------------------------- a named mistake

DAMPED = """[[exercise]]
id = "damped"
recipe = "optimizer_steps"
[exercise.given]
w = "1"
lr = "0.1"
records = [["2", "4"]]
optimizer = { name = "sgd", momentum = "0.9", dampening = "0.5" }
[exercise.claims]
buffer_steps = ["-4"]
"""
"""The lesson's record (2, 4) from w = 1: ŷ = 2, g_1 = (2 − 4)·2 = −4; SGD with momentum 0.9
and dampening 0.5, whose first buffer is torch's u_1 = g_1 = −4; damped, (1 − 0.5)·(−4) = −2
(buffer_first_damped, the only known mistake that gives it)."""

DAMPED_SAID = {
    "en": ("Not right. This is the value of a known mistake: the first momentum buffer damped: "
           r"$u_1 = (1 - \tau) \cdot g_1$; torch starts with $u_1 = g_1$",
           "Not right. This is the value of a known mistake: the first momentum buffer damped: "
           "u1=(1−τ)⋅g1; torch starts with u1=g1"),
    "zh": ("不正确。这正是以下错误会得到的值:第一步的动量缓冲也乘了 $(1 - \\tau)$: "
           r"$u_1 = (1 - \tau) \cdot g_1$;torch 第一步 $u_1 = g_1$",
           "不正确。这正是以下错误会得到的值:第一步的动量缓冲也乘了 (1−τ): u1=(1−τ)⋅g1;"
           "torch 第一步 u1=g1"),
}


@pytest.fixture(scope="module")
def damped(tmp_path_factory):
    folder = tmp_path_factory.mktemp("damped")
    (folder / "damped.toml").write_text(DAMPED, encoding="utf-8")
    return {lang: export(folder / "damped.toml", folder / f"damped-{lang}.html", "--lang", lang)
            for lang in ("en", "zh")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_named_mistakes_math_is_typeset(browser, damped, lang):
    path = damped[lang]
    key = _key(path, 0, "buffer_steps")
    with open_page(browser, path, lang=lang) as opened:
        page = opened.page
        assert ask(page, key, "-2")[0] == "wrong"
        tex, seen, notes = _said(page, key)
        assert (tex, seen) == DAMPED_SAID[lang]
        assert notes[-2:] == [r"u_1 = (1 - \tau) \cdot g_1", "u_1 = g_1"]
        # checked again: the same words, a fresh copy, and the count said after them
        ask(page, key, "-2")
        again = " (checked 2 times)" if lang == "en" else " (第 2 次检查)"
        assert _said(page, key)[0] == DAMPED_SAID[lang][0] + again
        assert page.locator(f"#{key}-feedback .katex").count() == len(notes)
        assert ask(page, key, "-4") == ("right", "Right." if lang == "en" else "正确。")
        assert page.locator(f"#{key}-feedback *").count() == 0
        assert opened.errors == [] and opened.csp_violations == []
        assert opened.requests_blocked == []


# ------------------------------------------------- a tie on a bundled page, an earlier mistake

@pytest.fixture(scope="module")
def resume(tmp_path_factory):
    folder = tmp_path_factory.mktemp("resume")
    target = ROOT / "proofs" / "course" / "lesson03-resume.toml"
    return {lang: export(target, folder / f"resume-{lang}.html", "--lang", lang)
            for lang in ("en", "zh")}


RESUMED_TIE_ZH = ("不正确。几个已知错误都给出这个值,因此不指明其中之一:只保存了 $w$(参数,没有保存优化器"
                  "状态): $w$ 和 $b$ 的动量缓冲丢失,恢复后的第一步重新开始 $u_1 = \\tilde{g}_1$,"
                  "而不是由保存的 $u_0$ 得到 $\\mu \\cdot u_0 + (1 - \\tau) \\cdot \\tilde{g}_1$ "
                  "(saving_only_w);或 忘了动量:按普通 SGD $\\theta_t = \\theta_{t-1} - \\eta "
                  "\\cdot \\tilde{g}_t$ 更新,而不是沿动量缓冲 $u_t = \\mu \\cdot u_{t-1} + (1 - "
                  "\\tau) \\cdot \\tilde{g}_t$ 更新 (momentum_forgotten)")
RESUMED_TIE = ("Not right. Several known mistakes give this value, so none is named: only "
               "$w$ saved (the parameters, not the optimizer): the momentum buffers of $w$ and "
               r"$b$ lost, so the resumed first step starts them anew, $u_1 = \tilde{g}_1$, "
               r"instead of $\mu \cdot u_0 + (1 - \tau) \cdot \tilde{g}_1$ from the saved "
               "$u_0$ (saving_only_w); or momentum forgotten: plain SGD, "
               r"$\theta_t = \theta_{t-1} - \eta \cdot \tilde{g}_t$, instead of a step along "
               r"the momentum buffer $u_t = \mu \cdot u_{t-1} + (1 - \tau) \cdot \tilde{g}_t$ "
               "(momentum_forgotten)")
"""The words of derive/optimizers/sgd.py (saving_only_w) and of the optimizers' momentum
mistake, in derive check's order of the catalogue."""


def test_a_tie_on_the_resumed_lab_shows_every_candidates_math(browser, resume):
    """lesson03-resume-with-buffer resumes at w = 1.3668 with the buffer u_0 = −47.34 and the
    batch's gradient g = −31.6092 (the file's own claims, checked against torch): right,
    w = 1.3668 − 0.02·(0.9·(−47.34) − 31.6092) = 2.851104; with the buffer lost (u_1 = g) or
    momentum forgotten alike, w = 1.3668 − 0.02·(−31.6092) = 1.998984: the buffer's mistakes,
    named at w, tie."""
    path = resume["en"]
    key = _key(path, 1, "w_steps")
    with open_page(browser, path) as opened:
        page = opened.page
        assert ask(page, key, "1.998984")[0] == "wrong"
        tex, seen, notes = _said(page, key)
        assert tex == RESUMED_TIE
        assert notes == ["w", "w", "b", r"u_1 = \tilde{g}_1",
                         r"\mu \cdot u_0 + (1 - \tau) \cdot \tilde{g}_1", "u_0",
                         r"\theta_t = \theta_{t-1} - \eta \cdot \tilde{g}_t",
                         r"u_t = \mu \cdot u_{t-1} + (1 - \tau) \cdot \tilde{g}_t"]
        assert "θt=θt−1−η⋅g~t" in seen and "(saving_only_w); or momentum forgotten" in seen
        assert page.locator(f"#{key}-feedback span.said").count() == 2
        assert ask(page, key, "2.851104")[0] == "right"
        assert opened.errors == [] and opened.csp_violations == []
    path = resume["zh"]
    with open_page(browser, path, lang="zh") as opened:
        page = opened.page
        assert ask(page, key, "1.998984")[0] == "wrong"
        tex, seen, notes = _said(page, key)
        assert tex == RESUMED_TIE_ZH
        assert len(notes) == 8 and "恢复后的第一步重新开始 u1=g~1," in seen
        assert opened.errors == [] and opened.csp_violations == []


# --------------------------------------------------------------- an offer, a bundled example

RELU_OFFERED = {
    "en": ("Not right. It could be a generic edit that happens to give this value (not "
           r"asserted): gw: the factor $\left[z_{i} > 0\right]$ dropped (a chain-rule factor "
           "forgotten) (gw_factor_dropped_2)"),
    "zh": ("不正确。可能是一个通用的改动恰好给出这个值(只作提示,不指明):gw:漏掉了因子 "
           r"$\left[z_{i} > 0\right]$(链式法则少乘了一项) (gw_factor_dropped_2)"),
}
"""derive/graph/mutate.py's words of a factor dropped, the factor as the working prints it."""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_relu_mask_offered_is_the_workings_iverson_bracket(browser, tmp_path, lang):
    """docs/examples/functions.toml, relu-kink: z = 0.8·x − 0.4 on x = 0.5, 1.5, −2, 2.5 is 0,
    0.8, −2, 1.6, so ŷ − y = −0.3, −0.3, 0.2, 0.2; the gradient counts the records with
    z > 0, gw = (−0.3·1.5 + 0.2·2.5)/4 = 0.0125; the mask [z_i > 0] dropped, every record
    counts: (−0.3·0.5 − 0.3·1.5 + 0.2·(−2) + 0.2·2.5)/4 = −0.125."""
    path = export(ROOT / "docs" / "examples" / "functions.toml", tmp_path / "functions.html",
                  "--lang", lang)
    key = _key(path, 0, "gw")
    with open_page(browser, path, lang=lang) as opened:
        page = opened.page
        assert ask(page, key, "-0.125")[0] == "wrong"
        tex, seen, notes = _said(page, key)
        assert tex == RELU_OFFERED[lang]
        assert notes == [r"\left[z_{i} > 0\right]"]
        assert "因子 [zi>0](" in seen if lang == "zh" else "the factor [zi>0] dropped" in seen
        assert "Heaviside" not in seen
        assert opened.errors == [] and opened.csp_violations == []


# ----------------------------------------------------------------- an author's words: text

HOSTILE_EN = r"<script>window.__pwned=1</script><b>bold</b> $u_1 = 0$ \input{x} &amp; {}"
HOSTILE_ZH = r'<img src=x onerror="window.__pwned=2"> $\tau$ \(y\) 中文'


def _hostile() -> str:
    en = HOSTILE_EN.replace("\\", "\\\\").replace('"', '\\"')
    zh = HOSTILE_ZH.replace("\\", "\\\\").replace('"', '\\"')
    return DAMPED.replace('[exercise.claims]\nbuffer_steps = ["-4"]\n', "") + f"""[[exercise.mistakes]]
name = "mine"
en = "{en}"
zh = "{zh}"
given = {{ records = [["2", "3"]] }}
[exercise.claims]
buffer_steps = ["-4"]
"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_authors_words_in_a_tie_are_text(browser, tmp_path, lang):
    """The author's mistake reads the record (2, 3): g_1 = (2 − 3)·2 = −2 = u_1, the value the
    damped buffer gives too (DAMPED): a tie, the author's words first, shown as written."""
    (tmp_path / "tie.toml").write_text(_hostile(), encoding="utf-8")
    path = export(tmp_path / "tie.toml", tmp_path / f"tie-{lang}.html", "--lang", lang)
    key = _key(path, 0, "buffer_steps")
    mine = HOSTILE_EN if lang == "en" else HOSTILE_ZH
    with open_page(browser, path, lang=lang) as opened:
        page = opened.page
        assert ask(page, key, "-2")[0] == "wrong"
        tex, seen, notes = _said(page, key)
        damped = DAMPED_SAID[lang][0].split(": ", 1)[1] if lang == "en" else \
            DAMPED_SAID[lang][0].split(":", 1)[1]
        if lang == "en":
            assert tex == ("Not right. Several known mistakes give this value, so none is "
                           f"named: {mine} (mine); or {damped} (buffer_first_damped)")
        else:
            assert tex == ("不正确。几个已知错误都给出这个值,因此不指明其中之一:"
                           f"{mine} (mine);或 {damped} (buffer_first_damped)")
        assert notes[-2:] == [r"u_1 = (1 - \tau) \cdot g_1", "u_1 = g_1"]
        assert len(notes) == (2 if lang == "en" else 3)  # the author's $…$ is no formula
        feedback = page.locator(f"#{key}-feedback")
        assert feedback.locator("script, b, img").count() == 0
        assert feedback.locator("span.said").count() == 1  # the course's words only
        assert page.evaluate("window.__pwned") is None
        assert opened.errors == [] and opened.csp_violations == []
    (variant,) = data_of(path)["variants"]
    (m,) = [m for m in variant["questions"][key]["mistakes"] if m["name"] == "mine"]
    assert "said" not in m and m["text"] == mine


# ---------------------------------------------------------------------- the page's fonts

def _families(page: str) -> set[str]:
    return set(re.findall(r"@font-face\{[^}]*?font-family:\"?(KaTeX_\w+)", page))


def test_a_formula_only_in_a_mistakes_words_has_its_font():
    """A page whose only formula is in a mistake's words (Σ_i x_i: KaTeX sets an inline Σ in
    KaTeX_Size1, a letter in KaTeX_Math) inlines the fonts that formula uses: the stylesheet
    is made from the page and its templates."""
    def page(said):
        q = Question("v0-e0-q0", "the label", "hint", (), {"mistakes": []}, said)
        return to_html(Document("t", (Questions((q,)),), "en"))
    words = ("the sum ", InlineMath(r"\sum_i x_i", "Σ_i x_i"), " left out")
    shown = page((("derive-said-0", words),))
    assert {"KaTeX_Size1", "KaTeX_Math"} <= _families(shown)
    assert not {"KaTeX_Size1", "KaTeX_Math"} & _families(page(()))
    assert ('<template id="derive-said-0"><span class="said" data-said="derive-said-0">the '
            'sum <span class="math" data-math="derive-math-0"></span> left out</span>'
            "</template>") in shown


def test_words_past_katexs_bound_are_left_to_their_text():
    """Words with a formula longer than KaTeX's bound (a list of 7,000 ones, 20,999
    characters) get no template, nor any words that share the formula (the script writes their
    text); the page is still made, and other words keep theirs."""
    long = "[" + ", ".join(["1"] * 7000) + "]"
    q = Question("v0-e0-q0", "the label", "hint", (), {"mistakes": []},
                 (("derive-said-0", ("a ", InlineMath(long, "…"))),
                  ("derive-said-1", ("b ", InlineMath("x_i", "x_i"))),
                  ("derive-said-2", ("c ", InlineMath(long, "…")))))
    page = to_html(Document("t", (Questions((q,)),), "en"))
    assert re.findall(r'<template id="([^"]+)"', page) == ["derive-math-0", "derive-said-1"]
