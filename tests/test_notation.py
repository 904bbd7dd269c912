"""Notation: one declaration per symbol, scoped to the exercise; a course's [notation] and
derive.toml restyle symbols in every output; two symbols that print the same are refused at
load. Expected strings are written by hand."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.errors import InputError
from derive.exercises.bank import load, load_file
from derive.graph.notation import DECLARED, GREEK, GREEK_LATEX, Notation
from derive.graph.overrides import WrittenError, parse_written
from derive.render.working import formula_tex

ROOT = Path(__file__).resolve().parents[1]

SGD = """
[[exercise]]
id = "one-step"
recipe = "sgd_step"

[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]

[exercise.claims]
w_new = 1.4
"""

ACCUMULATION = """
[[exercise]]
id = "two-microbatches"
recipe = "accumulation"

[exercise.given]
w = 1
lr = 0.1
microbatches = [[[1, 2]], [[3, 6]]]

[exercise.claims]
gradient = -5
w_new = 1.5
"""

AUTHOR = """
[[exercise]]
id = "own-alpha"
recipe = "formulas"

[exercise.given]
w = 1
alpha = 0.5
records = [[2, 4]]

[exercise.define]
gradient = "mean_i((w*x_i - y_i)*x_i)"
g_bar = "alpha*gradient"
w_new = "w - g_bar"
"""


def write(tmp_path: Path, text: str, name: str = "ex.toml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def derive(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "derive", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


# ------------------------------------------------------------------ scope is the exercise

def test_an_authors_names_never_inherit_a_recipes_notation(tmp_path):
    """The accumulation recipe declares alpha (the weights α_k), g_bar (ḡ) and w_new (w′); an
    author's alpha, g_bar and w_new are written from their own spelling."""
    import derive.recipes  # noqa: F401  (every recipe's declarations are loaded)

    assert DECLARED["g_bar"] == Notation("g", accent="bar")
    assert DECLARED["w_new"] == Notation("w", prime=True)
    ex = load_file(write(tmp_path, AUTHOR))[0]
    assert formula_tex(ex.recipe, ex.given, "g_bar") == (
        r"g_{\mathrm{bar}} = \alpha \cdot \mathrm{gradient}")
    assert formula_tex(ex.recipe, ex.given, "w_new") == r"w_{\mathrm{new}} = w - g_{\mathrm{bar}}"
    # the recipes keep their own
    acc = load_file(write(tmp_path, ACCUMULATION, "acc.toml"))[0]
    assert formula_tex(acc.recipe, acc.given, "weights").startswith(r"\alpha_{k} = ")
    assert formula_tex(acc.recipe, acc.given, "w_new") == r"w' = w - \eta \cdot g"


# ------------------------------------------------------------------ the written subset

@pytest.mark.parametrize("text, expected", [
    (r"\alpha", Notation("alpha")),
    ("α", Notation("alpha")),
    (r"\hat{y}", Notation("y", accent="hat")),
    ("w'", Notation("w", prime=True)),
    (r"\beta_1", Notation("beta", sub="1")),
    (r"\tilde{g}_{b,\mathrm{avg}}", Notation("g", accent="tilde", sub=r"b,\mathrm{avg}")),
    (r"\nabla L", Notation("L", prefix="nabla")),
    (r"\mathrm{lr}", Notation("lr", upright=True)),
])
def test_a_written_symbol_is_read_into_its_structure(text, expected):
    assert parse_written(text) == expected


@pytest.mark.parametrize("text", [
    r"\input{/etc/passwd}", "<script>alert(1)</script>", r"\alpha}", r"\def\x{1}", "lr",
    r"\hat{\hat{y}}", "x_{1}}", "__import__('os')", r"\mathrm{a}", "", "w" * 61, 3, r"\alphax",
    "$x$", r"x_{\text{a}}",
])
def test_anything_outside_the_subset_is_refused(text):
    with pytest.raises(WrittenError):
        parse_written(text)


# ------------------------------------------------------------------ overrides everywhere

def test_file_notation_reaches_every_output(tmp_path):
    """LaTeX, Markdown, the HTML page, the question sheet: the working and the given line
    write the learning rate as the file says. (The recipes' own words, such as a mistake's
    "w + η·g", are written once in the course's notation, not the file's: the page's
    templates of a mistake's words are left out here, as the exports show them only for a
    wrong claim.)"""
    path = write(tmp_path, '[notation]\nlr = "\\\\alpha"\n' + SGD)
    runs = {"md": ["export", "--format", "md"], "tex": ["export", "--format", "tex"],
            "html": ["export", "--format", "html"],
            "questions": ["export", "--format", "md", "--questions"],
            "key": ["key", "--format", "md"], "key-tex": ["key", "--format", "tex"]}
    out = {}
    for name, args in runs.items():
        got = derive(*args, str(path))
        assert got.returncode == 0, got.stderr
        out[name] = re.sub(r'<template id="derive-(said|math)-.*?</template>', "", got.stdout)
        assert r"\eta" not in out[name], name
    for name in ("md", "tex", "html"):
        assert r"= w - \alpha \cdot g" in out[name], name
    for name in ("md", "html", "questions", "key"):
        assert r"w = 1,\quad \alpha = 0.1" in out[name], name
    assert "<mi>α</mi>" in out["html"]


def test_bank_settings_apply_and_the_file_wins(tmp_path):
    write(tmp_path, '[notation]\nlr = "\\\\gamma"\nw = "\\\\theta"\n', "bank/derive.toml")
    write(tmp_path, SGD, "bank/a.toml")
    write(tmp_path, '[notation]\nlr = "\\\\lambda"\n' + SGD.replace("one-step", "other"),
          "bank/sub/b.toml")
    a, b = load([str(tmp_path / "bank")])
    # w_new is a quantity of its own: restyling w leaves it w′
    assert formula_tex(a.recipe, a.given, "w_new") == r"w' = \theta - \gamma \cdot g"
    assert formula_tex(b.recipe, b.given, "w_new") == r"w' = \theta - \lambda \cdot g"


def test_a_bank_file_is_not_an_exercise_file(tmp_path):
    write(tmp_path, '[notation]\nlr = "\\\\gamma"\n', "bank/derive.toml")
    write(tmp_path, SGD, "bank/a.toml")
    assert [ex.id for ex in load([str(tmp_path / "bank")])] == ["one-step"]


def test_an_unknown_key_is_refused_with_the_closest_name(tmp_path):
    path = write(tmp_path, '[notation]\nlrr = "\\\\alpha"\n' + SGD)
    with pytest.raises(InputError, match=r"key 'notation.lrr': is not an input or a quantity "
                                         r"of any recipe; did you mean 'lr'\?"):
        load_file(path)


def test_an_unsafe_value_is_one_line_naming_the_key(tmp_path):
    path = write(tmp_path, '[notation]\nlr = "\\\\input{x}"\n' + SGD)
    with pytest.raises(InputError, match=r"key 'notation.lr': is not a symbol derive can write"):
        load_file(path)


# ------------------------------------------------------------------ collisions

def test_lr_as_alpha_beside_the_weights_is_a_collision(tmp_path):
    """α for the learning rate where the accumulation weights are α_k: one line, exit 2."""
    path = write(tmp_path, '[notation]\nlr = "\\\\alpha"\n' + ACCUMULATION)
    got = derive("check", str(path))
    assert got.returncode == 2
    assert got.stderr.strip().splitlines() == [
        f"derive check: {path}: exercise 'two-microbatches': key 'notation.lr': writes lr as "
        "α, a letter weights already prints in this exercise; choose a symbol that no other "
        "input or quantity of the exercise uses (or restyle that one too)"]


def test_lr_as_alpha_is_fine_where_no_weights_are_drawn(tmp_path):
    ex = load_file(write(tmp_path, '[notation]\nlr = "\\\\alpha"\n' + SGD))[0]
    assert formula_tex(ex.recipe, ex.given, "w_new") == r"w' = w - \alpha \cdot g"


def test_two_quantities_printing_the_same_is_a_collision(tmp_path):
    """The gradient restyled as w′, the symbol of the updated weight."""
    path = write(tmp_path, '[notation]\ngradient = "w\'"\n' + SGD)
    with pytest.raises(InputError, match="key 'notation.gradient': writes gradient as w′, a "
                                         "letter w_new already prints"):
        load_file(path)


def test_no_built_in_exercise_has_a_collision():
    """Every exercise of the course loads (the course's own notation has no collision)."""
    assert load([str(ROOT / "proofs" / "course"), str(ROOT / "docs" / "examples")])


def test_a_built_in_symbol_is_declared_once():
    """One declaration per symbol: a second `symbol()` of a built-in name, even written alike,
    is an error naming the place that holds the shared ones; the lesson's w, b, η are one
    object wherever a recipe or an optimizer uses them."""
    from derive.graph import lesson
    from derive.graph.notation import symbol
    from derive.optimizers import chain
    from derive.recipes import accumulation, sgd_step

    with pytest.raises(ValueError, match="declared twice.*lesson.py"):
        symbol("eta", "eta", nonnegative=True)
    assert sgd_step.eta is lesson.eta and accumulation.eta is lesson.eta
    assert chain.eta is lesson.eta and chain.W.start is lesson.w and chain.B.start is lesson.b
    assert sgd_step.x is accumulation.x is lesson.x


# ------------------------------------------------------------------ the override parser, any text

_PIECES = st.sampled_from(["\\alpha", "\\hat{", "\\bar{", "}", "{", "_", "^", "'", "\\nabla ",
                           "\\mathrm{", "w", "lr", "1", " ", "\\", "\\input", "<", "$", "α",
                           "\\tilde{", "\\beta_1", "%", "#", "&", "\n"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=30), st.lists(_PIECES, max_size=8).map("".join)))
def test_any_text_is_a_symbol_or_one_clear_refusal(text):
    """Whatever a course writes, the parser gives a Notation whose LaTeX holds only letters,
    digits, braces, _, ', and commands it knows, or refuses it (WrittenError): never another
    exception, never the text passed through."""
    try:
        n = parse_written(text)
    except WrittenError:
        return
    allowed = set("\\{}_', ") | set("0123456789") | set(GREEK_LATEX)
    assert all(ch.isascii() and ch.isalpha() or ch in allowed for ch in text.strip()), \
        f"accepted {text!r} as {n}"  # nothing dropped silently
    latex = n.latex_letter() + (f"_{{{n.sub}}}" if n.sub else "")
    for command in re.findall(r"\\([A-Za-z]+)", latex):
        assert command in {"hat", "bar", "tilde", "nabla", "mathrm", "prime", "varepsilon"} \
            or command in GREEK, (text, latex)
    assert not set(latex) & set("$%#&<>\n^~"), (text, latex)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["w", "g", "L", "alpha", "eta", "beta", "omega", "Delta"]),
       st.sampled_from(["", "hat", "bar", "tilde"]), st.sampled_from(["", "1", "k", "max"]),
       st.booleans())
def test_written_symbols_read_back(letter, accent, sub, prime):
    """A symbol written as LaTeX reads back as the same notation."""
    n = Notation(letter, accent=accent, sub=sub, prime=prime)
    text = n.latex_letter() + (f"_{{{sub}}}" if sub else "")
    assert parse_written(text) == n, text
