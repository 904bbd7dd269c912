"""A mistake's words in the course's notation, typeset (issue 34, item 4; docs/diagnosis.md,
"How a mistake's words are written"): every word of every recipe, optimizer and mutation kind
of the bundled exercises renders in KaTeX, compiles with pdfLaTeX (and XeLaTeX in Chinese),
and reads as plain text without markup; a symbol in the words is the derivation's symbol."""

from __future__ import annotations

import pickle
import re
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import examples
from test_escaping import compile_log
from test_export import katex_failures, math_spans

from derive.exercises.bank import load, load_file
from derive.exercises.check import check_exercise
from derive.exercises.diagnosis import _mistakes, _try
from derive.exercises.evidence import DECLARED, TIED, Fit, said
from derive.exercises.evidence import words as tie_words
from derive.graph.notation import in_scope, notation_of
from derive.graph.words import Formula, Quoted, Words, cat, plain
from derive.graph.words import said as words
from derive.recipes import RECIPES, Context
from derive.render.derivation import exercises_document
from derive.render.document import (
    Author,
    Document,
    InlineMath,
    Paragraph,
    to_markdown,
    to_tex,
    to_text,
)
from derive.render.labels import explanation as label_explanation
from derive.render.said import typeset

BANKS = ["docs/examples", "proofs/course"]


@cache
def every_word() -> tuple[tuple[str, str, str, str], ...]:
    """(origin, mistake, language, words) of every recipe's declared mistakes and of every
    known mistake of every claimable quantity of the bundled exercises (the generated
    mutations, the candidates of a mistake that gives several values), each once."""
    seen: dict[tuple[str, str, str, str], str] = {}

    def add(origin, name, lang, w):
        if w:
            seen.setdefault((origin, name, lang, str(w)), w)

    for recipe in RECIPES.values():
        for m in recipe.mistakes:
            add(m.origin, m.name, "en", m.doc)
            add(m.origin, m.name, "zh", m.zh)
    for ex in load(BANKS):
        origin = {m.name: m.origin for m in ex.recipe.mistakes}
        base = Context(ex.recipe, ex.given)
        for q in ex.recipe.available(ex.given):
            for name, (en, zh), _, candidates in _mistakes(ex.recipe, q.name, ex.given):
                where = origin.get(name, "course")
                add(where, name, "en", en)
                add(where, name, "zh", zh)
                for c in (_try(candidates, base) or ()) if candidates else ():
                    add(where, name, "en", c.en)
                    add(where, name, "zh", c.zh)
    return tuple((o, n, lang, w) for (o, n, lang, _), w in seen.items())


def test_every_word_reads_as_plain_text():
    """The terminal's and JSON's form: no LaTeX, no dollar, no SymPy name or operator."""
    found = every_word()
    assert len(found) > 1000
    for origin, name, lang, w in found:
        text = str(w)
        for bad in ("\\", "$", "Heaviside", "**", "Abs("):
            assert bad not in text, (origin, name, lang, text)
        if isinstance(w, Words):
            assert text == "".join(p if isinstance(p, str) else p.text for p in w.parts)


def test_the_course_and_generated_words_carry_their_math():
    """Every word of the optimizers and of the generated mutations that holds a formula holds
    it as a span: none is left to the prose's guess (a letter with an index, an operator)."""
    for origin, name, lang, w in every_word():
        if origin == DECLARED or isinstance(w, Words) and w.has_math:
            continue
        prose = "".join(p for p in (w.parts if isinstance(w, Words) else (w,))
                        if isinstance(p, str))
        if origin == "generic" or name in _OPTIMIZER_MISTAKES:
            assert not any(m in prose for m in ("_t", "_{", "·", "√", "τ", "μ", "[")), (
                name, lang, str(w))


def _optimizer_mistakes() -> frozenset[str]:
    from derive.recipes.optimizer_steps.mistakes import declared
    return frozenset(declared())


_OPTIMIZER_MISTAKES = _optimizer_mistakes()


def _spans(lang: str) -> list[dict]:
    """The math of every word as the Markdown export writes it, read back from the Markdown
    (so that spans which meet, `$n_k$` `/` `$N$`, are seen as a reader's renderer sees them)."""
    out = []
    for origin, name, lg, w in every_word():
        if lg != lang:
            continue
        md = to_markdown(Document("w", (Paragraph(typeset(w, author=origin == DECLARED)),),
                                  lang))
        out += math_spans(md, f"{name} ({lang})")
    return out


def test_spans_that_meet_are_written_as_one():
    """`$n_k$$/$$N$` opens display math in Markdown and in TeX (the CI's KaTeX run on
    bank24's decay_accumulation: the 1/K mistake's words 'its share n_k/N')."""
    para = Paragraph((InlineMath("n_k"), "/", InlineMath("N"), " (the share)"))
    assert "$n_k / N$ (the share)" in to_markdown(Document("t", (para,), "en"))
    assert "$n_k / N$ (the share)" in to_tex(Document("t", (para,), "en"))


@given(st.lists(st.one_of(st.sampled_from(["/", " / ", "x", " and ", "-", "$"]).map(str),
                          st.sampled_from(["a", r"\lambda", "n_k", "1/2"]).map(InlineMath),
                          st.sampled_from(["$", "a$", "b"]).map(Author)),
                min_size=1, max_size=6))
def test_no_inline_pieces_open_display_math(pieces):
    """Whatever prose, author text and spans meet, the Markdown and the LaTeX of a line hold
    no unescaped `$$` (display math inside a line)."""
    para = Paragraph(tuple(pieces))
    for out in (to_markdown(Document("t", (para,), "en")), to_tex(Document("t", (para,), "en"))):
        body = out.split("\n", 1)[-1]
        assert not re.search(r"(?<!\\)\$\$", body), body


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_word_renders_with_katex(lang):
    spans = _spans(lang)
    assert len(spans) > 500
    failures = katex_failures(spans)
    assert not failures, "\n".join(f"{f['where']}: {f['error']}\n  {f['tex']}"
                                   for f in failures[:5])


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_every_word_compiles(lang, engine):
    """Every word, typeset, in one LaTeX document of the export's preamble."""
    paragraphs = tuple(Paragraph((f"{name}: ", *typeset(w, author=origin == DECLARED)))
                       for origin, name, lg, w in every_word() if lg == lang)
    tex = to_tex(Document("Mistakes", paragraphs, lang), standalone=True)
    errors, missing = compile_log(tex, engine)
    assert not errors, errors[:5]
    assert not missing, missing[:5]


# ------------------------------------------------------------------ hand-written expectations

def _damped():
    """The lesson's record (2, 4) from w = 1, η = 0.1, SGD with momentum 0.9 and dampening
    0.5; the first buffer claimed damped: u_1 = 0.5·(−4) = −2 (torch: u_1 = g_1 = −4)."""
    return """[[exercise]]
id = "damped"
recipe = "optimizer_steps"
[exercise.given]
w = "1"
lr = "0.1"
records = [["2", "4"]]
optimizer = { name = "sgd", momentum = "0.9", dampening = "0.5" }
[exercise.claims]
buffer_steps = ["-2"]
"""


def _check(tmp_path, text: str, quantity: str):
    path = tmp_path / "ex.toml"
    path.write_text(text, encoding="utf-8")
    (ex,) = load_file(str(path))
    report = check_exercise(ex)
    return ex, next(c for c in report.claims if c.name == quantity).diagnosis


def test_sgd_dampening_words(tmp_path):
    _, d = _check(tmp_path, _damped(), "buffer_steps")
    assert d.mistake == "buffer_first_damped"
    assert d.explanation == ("the first momentum buffer damped: u_1 = (1 − τ)·g_1; torch starts "
                             "with u_1 = g_1")
    assert typeset(d.explanation) == (
        "the first momentum buffer damped: ", InlineMath(r"u_1 = (1 - \tau) \cdot g_1",
                                                         "u_1 = (1 − τ)·g_1"),
        "; torch starts with ", InlineMath("u_1 = g_1", "u_1 = g_1"))
    assert typeset(d.zh)[1] == InlineMath(r"(1 - \tau)", "(1 − τ)")
    tex = to_tex(Document("t", (Paragraph(typeset(d.explanation)),)))
    assert r"damped: $u_1 = (1 - \tau) \cdot g_1$; torch starts with $u_1 = g_1$" in tex


def test_a_symbol_in_the_words_is_the_derivations(tmp_path):
    """The buffer's letter, the dampening's and the gradient's, read from the notation table
    of the exercise's derivation, make the words' formula."""
    ex, d = _check(tmp_path, _damped(), "buffer_steps")
    graph = ex.recipe.graph(Context(ex.recipe, ex.given))
    with in_scope(graph.notation):
        u = notation_of(graph.by_name["buffer_steps"].symbol.label.name).latex_letter()
        tau = notation_of("opt_tau").latex_letter()
        g = notation_of("opt_g").latex_letter()
    assert (u, tau, g) == ("u", r"\tau", "g")  # the course's letters (docs/pytorch.md)
    spans = [p.tex for p in typeset(d.explanation) if isinstance(p, InlineMath)]
    assert spans[0] == rf"{u}_1 = (1 - {tau}) \cdot {g}_1"


TWO = """[[exercise]]
id = "two"
recipe = "formulas"
[exercise.given]
w1 = 0.5
w2 = -1
b = 0.25
lr = 0.05
records = { columns = ["x1", "x2", "y"], rows = [[1.5, 2, 1], [3, -1.2, 2], [0.4, 1, -1]] }
[exercise.define]
yhat = "w1*x1_i + w2*x2_i + b"
loss = "mean_i((yhat_i - y_i)^2)"
g2 = "grad(loss, w2)"
[exercise.claims]
g2 = "CLAIM"
"""


def test_a_column_swap_is_written_with_the_columns_letters(tmp_path):
    """g2 = mean_i(2·r_i·x_{2,i}) with x_{1,i} read for x_{2,i}: residuals r = (−2, 0.95,
    0.45) at w = (0.5, −1), b = 0.25; 2·(−2·1.5 + 0.95·3 + 0.45·0.4)/3 = 0.02."""
    ex, d = _check(tmp_path, TWO.replace("CLAIM", "0.02"), "g2")
    assert "g2_column_swapped_x2_x1" in d.candidates
    fit = next(f for f in d.args[1] if f.name == "g2_column_swapped_x2_x1")
    assert str(fit.en) == "g2: x_{1,i} in place of x_{2,i} (one column read for another)"
    with in_scope(ex.recipe.graph(Context(ex.recipe, ex.given)).notation):
        x1, x2 = notation_of("x1"), notation_of("x2")
    expected = [f"{x1.latex_letter()}_{{{x1.sub},i}}", f"{x2.latex_letter()}_{{{x2.sub},i}}"]
    assert expected == ["x_{1,i}", "x_{2,i}"]
    assert [p.tex for p in typeset(fit.en) if isinstance(p, InlineMath)] == expected
    md = to_text(Document("t", (Paragraph(typeset(fit.zh)),)))
    assert "g2:在一处用了 x_{1,i} 而不是 x_{2,i}(读错了列)" in md


def test_a_relu_mask_is_an_iverson_bracket():
    (ex,) = [e for e in load(["docs/examples/functions.toml"]) if e.id == "relu-kink"]
    got = {name: (en, zh) for name, (en, zh), _, _ in _mistakes(ex.recipe, "gw", ex.given)}
    en, zh = got["gw_factor_dropped_2"]
    assert str(en) == "gw: the factor [z_i > 0] dropped (a chain-rule factor forgotten)"
    assert typeset(en) == ("gw: the factor ", InlineMath(r"\left[z_{i} > 0\right]", "[z_i > 0]"),
                           " dropped (a chain-rule factor forgotten)")
    assert str(zh) == "gw:漏掉了因子 [z_i > 0](链式法则少乘了一项)"


# ------------------------------------------------------------------------------- the words

@pytest.mark.parametrize(("tex", "text"), [
    (r"(1 - \tau)\,g_1", "(1 − τ)·g_1"),
    (r"\theta_t = \theta_{t-1} - \eta\,\tilde{g}_t", "θ_t = θ_{t−1} − η·g̃_t"),
    (r"\theta_t = \theta_{t-1} - \eta \cdot \tilde{g}_t", "θ_t = θ_{t−1} − η·g̃_t"),
    (r"\hat{m}_t/(\sqrt{\hat{v}_t} + \varepsilon)", "m̂_t/(√v̂_t + ε)"),
    (r"\sqrt{v_t - a_t^2} + \varepsilon", "√(v_t − a_t²) + ε"),
    (r"1 - \beta^{t_0 + t}", "1 − β^(t_0 + t)"),
    (r"\operatorname{sign}(0)", "sign(0)"),
    (r"\frac{1}{K}", "1/K"),
    (r"c/\lVert\bar{g}\rVert + \varepsilon", "c/‖ḡ‖ + ε"),
    (r"K\,n_{\max} = 2\cdot2", "K·n_max = 2·2"),
    (r"\sum_i \partial\ell_i/\partial w", "Σ_i ∂ℓ_i/∂w"),
])
def test_plain_text_of_a_span(tex, text):
    assert plain(tex) == text


@pytest.mark.parametrize("tex", [r"\input{x}", r"\foo", "x}", r"\sqrt"])
def test_a_span_outside_the_subset_is_refused(tex):
    with pytest.raises(ValueError):
        plain(tex)


def test_words_keep_their_spans_through_cat_and_pickle():
    w = words(r"damped: $u_1 = (1 - \tau) \cdot g_1$")
    joined = cat("a ", w, "; ", Formula("x", tex="x"))
    assert str(joined) == "a damped: u_1 = (1 − τ)·g_1; x"
    assert [type(p) for p in joined.parts] == [str, Formula, str, Formula]
    assert pickle.loads(pickle.dumps(joined)).parts == joined.parts


def test_declared_words_are_author_text_never_math():
    """An author's declared words, even with dollars and backslashes, are escaped text."""
    fit = Fit("mine", r"$\input{/etc/passwd}$ x_1", origin=DECLARED)
    parts = typeset(said(fit))
    assert parts == (Author(r"$\input{/etc/passwd}$ x_1"),)
    assert said(fit).parts == (Quoted(r"$\input{/etc/passwd}$ x_1"),)
    tex = to_tex(Document("t", (Paragraph(parts),)))
    assert r"\input" not in tex.replace(r"\textbackslash{}input", "")


_LEAVES = st.sampled_from([r"\tau", r"\mu", r"\varepsilon", r"\ell", "g", "u_1", "t", "2",
                           r"\partial", r"\nabla", r"\,", r"\cdot", " - ", " + ", " = ", "/",
                           r"\lVert", r"\rVert", r"\ldots", r"\max"])
_TEX = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.lists(inner, min_size=1, max_size=4).map(" ".join),  # a space ends a command
    inner.map(lambda x: rf"\hat{{{x}}}"), inner.map(lambda x: rf"\sqrt{{{x}}}"),
    inner.map(lambda x: f"g_{{{x}}}"), inner.map(lambda x: f"\\beta^{{{x}}}"),
    st.tuples(inner, inner).map(lambda p: rf"\frac{{{p[0]}}}{{{p[1]}}}"),
    inner.map(lambda x: rf"\operatorname{{{x}}}")), max_leaves=12)


@given(_TEX)
@examples(200)
def test_any_span_of_the_subset_reads_without_markup(tex):
    """Any span written in the subset: its plain text holds no backslash, brace of a command
    or dollar, and said() keeps it as one span with that text."""
    text = plain(tex)
    assert "\\" not in text and "$" not in text
    w = words(f"a ${tex}$ b")
    assert str(w) == f"a {text} b" and w.has_math


# ------------------------------------------------------------------------- through the outputs

def _exported(tmp_path, text: str, lang: str = "en") -> tuple[str, str]:
    """(LaTeX, Markdown) of `derive export` of one exercise file."""
    path = tmp_path / "ex.toml"
    path.write_text(text, encoding="utf-8")
    reports = [check_exercise(ex) for ex in load_file(str(path))]
    doc = exercises_document(reports, lang)
    return to_tex(doc), to_markdown(doc)


def test_the_export_typesets_the_optimizers_words(tmp_path):
    """The claim's note in the tex and Markdown exports: the formula as the derivation writes
    it (the prose's guess set `(1 - \\tau )\\cdot g_1`)."""
    tex, md = _exported(tmp_path, _damped())
    span = r"$u_1 = (1 - \tau) \cdot g_1$"
    assert f"the first momentum buffer damped: {span}; torch starts with $u_1 = g_1$" in tex
    assert f"damped: {span}; torch starts with $u_1 = g_1$" in md
    tex_zh, _ = _exported(tmp_path, _damped(), "zh")
    assert r"第一步的动量缓冲也乘了 $(1 - \tau)$: " + span in tex_zh


RELU = """[[exercise]]
id = "relu"
recipe = "formulas"
[exercise.given]
w = 0.8
b = -0.4
lr = 0.1
records = [[0.5, 0.3], [1.5, 1.1], [-2, -0.2], [2.5, 1.4]]
[exercise.define]
z = "w*x_i + b"
yhat = "relu(z_i)"
loss = "mean_i((yhat_i - y_i)^2/2)"
gw = "grad(loss, w)"
[exercise.claims]
gw = "CLAIM"
"""


def test_the_export_typesets_a_relu_mask_as_the_working_does(tmp_path):
    """gw with the mask [z_i > 0] dropped: z = (0, 0.8, −2, 1.6), residuals ŷ − y = (−0.3,
    −0.3, 0.2, 0.2) where z ≤ 0 gives ŷ = 0 (and 0.8 − 1.1, 1.6 − 1.4 where z > 0); dropped,
    every record counts: (−0.3·0.5 − 0.3·1.5 + 0.2·(−2) + 0.2·2.5)/4 = −0.125."""
    tex, md = _exported(tmp_path, RELU.replace("CLAIM", "-0.125"))
    assert "Heaviside" not in tex and "Heaviside" not in md
    assert r"the factor $\left[z_{i} > 0\right]$ dropped" in tex
    assert r"\left[z_{i} > 0\right]" in tex.split("diagnosis")[0]  # the working's own mask


def test_a_tie_keeps_each_candidates_math_and_quotes_the_authors():
    """The rule of evidence's words of a tie: each course candidate's spans kept, a declared
    candidate's words quoted (never math)."""
    fits = (Fit("mine", "my $x$ words", origin=DECLARED),
            Fit("buffer_first_damped", words(r"damped: $u_1 = (1 - \tau) \cdot g_1$")))
    en, zh = tie_words(TIED, fits)
    assert str(en).endswith("mine (my $x$ words) or buffer_first_damped (damped: "
                            "u_1 = (1 − τ)·g_1)")
    assert Quoted("my $x$ words") in en.parts
    assert Formula("u_1 = (1 − τ)·g_1", tex=r"u_1 = (1 - \tau) \cdot g_1") in zh.parts
    shown = typeset(en, author=True)
    assert Author("my $x$ words") in shown
    assert InlineMath(r"u_1 = (1 - \tau) \cdot g_1", "u_1 = (1 − τ)·g_1") in shown


def test_a_formula_answers_named_mutation_keeps_its_math(tmp_path):
    """`w_new = w - lr*mean_i(w*x_i + b - y_i)`, the chain factor x_i dropped: the named
    mutation's words, before the witness, keep x_i as a span in both languages."""
    path = tmp_path / "ex.toml"
    path.write_text('[[exercise]]\nid = "e"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\n'
                    'b = 0\nlr = 0.1\nrecords = [[1, 2], [2, 3], [4, 1]]\n[exercise.claims]\n'
                    'w_new = { formula = "w - lr*mean_i(w*x_i + b - y_i)" }\n', encoding="utf-8")
    (claim,) = check_exercise(load_file(str(path))[0]).claims
    d = claim.diagnosis
    assert d.mistake == "w_new_factor_dropped_x"
    en, zh = typeset(d.explanation), typeset(label_explanation(d, "zh"))
    assert en[:2] == ("w_new: the factor ", InlineMath("x_{i}", "x_i"))
    assert en[2].startswith(" dropped (a chain-rule factor forgotten); at ")
    assert zh[:2] == ("w_new:漏掉了因子 ", InlineMath("x_{i}", "x_i"))
    assert zh[2].startswith("(链式法则少乘了一项);在 ")


def test_a_span_the_printer_cannot_write_is_shown_as_its_text():
    """A subexpression without notation in its scope (never in a derivation's own words, but
    the renderer must not fail an export on it): its plain text, as prose or author text."""
    import sympy as sp

    span = Formula.of(sp.Symbol("no_such_quantity_q"), "q")
    assert typeset(cat("the ", span, " dropped")) == ("the ", "q", " dropped")
    assert Author("q") in typeset(cat("the ", span), author=True)
