"""Exports of an author's derivation (recipe = "formulas") in the course's notation: compound
names as symbols or words (g_b, loss after_t, mb_grad_k), derivatives in the exercise's own
quantities when the kernel proves that form equal ((p_i − y_i)·x_i), a recurrence's start on
a line of its own. Every expected string is written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp
from golden import ROOT, render

from derive.exercises.bank import load_file
from derive.graph.notation import Notation, written_as
from derive.recipes import own_terms
from derive.render.working import Working, formula_tex

BANK = ROOT / "benchmarks" / "bank24"


def write(tmp_path: Path, text: str, name: str = "ex.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def exercise(path: Path, id_: str):
    return next(e for e in load_file(path) if e.id == id_)


# ------------------------------------------------------------------ compound names

@pytest.mark.parametrize("name, latex, sub", [
    ("b_gradient", "g", "b"),              # a word the course writes as a letter
    ("gradient_w", "g", "w"),
    ("loss_after", r"\text{loss after}", ""),  # words of three letters or more: the words
    ("mean_then_clip", r"\text{mean then clip}", ""),
    ("mb_grad", r"\mathrm{mb\_grad}", ""),  # a shorter part: the name as written, upright
    ("lr_decay", r"\mathrm{lr\_decay}", ""),
    # unchanged: a letter, a Greek name or a letter with digits, then a subscript
    ("w_new", "w", r"\mathrm{new}"),
    ("w1_new", "w", r"1,\mathrm{new}"),
    ("eta_min", r"\eta", r"\mathrm{min}"),
    ("loss", r"\mathrm{loss}", ""),
    ("gradient", r"\mathrm{gradient}", ""),
])
def test_a_compound_name_is_written_as_the_course_would(name, latex, sub):
    n = written_as(name)
    assert (n.latex_letter(), n.sub) == (latex, sub)


def test_an_upright_compound_is_only_words_or_a_name():
    with pytest.raises(ValueError):
        Notation("loss after")  # words are upright
    with pytest.raises(ValueError):
        Notation("loss{after}", upright=True)


COMPOUND = """
[[exercise]]
id = "compound"
recipe = "formulas"

[exercise.given]
w = 0.5
b = 0.25
lr = 0.1
steps = 2
microbatches = [[[1, 2], [3, 4]], [[2, 1]]]

[exercise.define]
mb_grad = "mean_{i in B_k}((w*x_i + b - y_i)*x_i)"
b_gradient = "mean_i(w*x_i + b - y_i)"
loss_after = { formula = "loss_after_{t-1}/2", start = "b_gradient" }
"""


def test_compound_names_in_the_working(tmp_path):
    ex = exercise(write(tmp_path, COMPOUND), "compound")
    assert formula_tex(ex.recipe, ex.given, "mb_grad").startswith(r"\mathrm{mb\_grad}_{k} = ")
    assert formula_tex(ex.recipe, ex.given, "b_gradient").startswith("g_{b} = ")
    assert formula_tex(ex.recipe, ex.given, "loss_after") == (
        r"\text{loss after}_{t} = \frac{\text{loss after}_{t - 1}}{2}")
    tex = render(["export", str(tmp_path / "ex.toml"), "--format", "md"])
    for raw in ("b_{gradient}", r"b_{\mathrm{gradient}}", r"\mathrm{mb}_{\mathrm{grad}",
                r"\mathrm{loss}_{\mathrm{after}"):
        assert raw not in tex


# ------------------------------------------------------------------ derivatives

LOGISTIC_GW = r"\mathrm{gw} = \frac{1}{N} \sum_{i=1}^{N} \left(p_{i} - y_{i}\right) \cdot x_{i}"
LOGISTIC_GB = r"\mathrm{gb} = \frac{1}{N} \sum_{i=1}^{N} \left(p_{i} - y_{i}\right)"


@pytest.mark.parametrize("id_", ["logistic-sigmoid", "logistic-exp-sign"])
def test_the_logistic_gradient_reads_p_minus_y(id_):
    ex = exercise(BANK / "logistic.toml", id_)
    assert formula_tex(ex.recipe, ex.given, "gw") == LOGISTIC_GW
    assert formula_tex(ex.recipe, ex.given, "gb") == LOGISTIC_GB


def test_the_documented_logistic_example_reads_p_minus_y():
    ex = exercise(ROOT / "docs" / "examples" / "formulas.toml", "logistic-bce")
    assert formula_tex(ex.recipe, ex.given, "gradient") == (
        r"\mathrm{gradient} = \frac{1}{N} \sum_{i=1}^{N} \left(p_{i} - y_{i}\right) \cdot x_{i}")
    assert formula_tex(ex.recipe, ex.given, "b_gradient") == (
        r"g_{b} = \frac{1}{N} \sum_{i=1}^{N} \left(p_{i} - y_{i}\right)")


ACTIVATIONS = """
[[exercise]]
id = "softplus"
recipe = "formulas"

[exercise.given]
w = 0.25
b = -0.1
records = [[0.8415, 1], [-1.2203, 0]]

[exercise.define]
z = "w*x_i + b"
p = "1/(1 + exp(-z_i))"
ell = "log(1 + exp(z_i)) - y_i*z_i"
loss = "mean_i(ell_i)"
gw = "grad(loss, w)"

[[exercise]]
id = "tanh"
recipe = "formulas"

[exercise.given]
w = 0.25
b = -0.1
records = [[0.8415, 0.5], [-1.2203, -0.25]]

[exercise.define]
z = "w*x_i + b"
a = "(1 - exp(-2*z_i))/(1 + exp(-2*z_i))"
loss = "mean_i((a_i - y_i)^2)"
gw = "grad(loss, w)"
"""


@pytest.mark.parametrize("id_, expected", [
    ("softplus", LOGISTIC_GW),
    ("tanh", r"\mathrm{gw} = \frac{1}{N} \sum_{i=1}^{N} 2 \cdot \left(1 - a_{i}^{2}\right) "
             r"\cdot \left(a_{i} - y_{i}\right) \cdot x_{i}"),
])
def test_softplus_and_tanh_gradients_in_their_quantities(tmp_path, id_, expected):
    ex = exercise(write(tmp_path, ACTIVATIONS), id_)
    assert formula_tex(ex.recipe, ex.given, "gw") == expected


def _wrong_definition():
    """p defined as 1/(1 + e^{−z}) for the rules, but written out as σ(2z): the rewritten
    (p − y)·x is not the derivative x·e^z/(1 + e^z) − x·y."""
    z, x, y, p = sp.symbols("z x y p", real=True)
    piece = x * sp.exp(z) / (1 + sp.exp(z)) - x * y
    rewriter = own_terms.Rewriter([(p, 1 / (1 + sp.exp(-z)))],
                                  lambda e: e.xreplace({p: 1 / (1 + sp.exp(-2 * z))}))
    return rewriter, piece, p


def test_a_form_not_proved_equal_is_never_shown():
    rewriter, piece, p = _wrong_definition()
    got = rewriter(piece)
    assert not got.has(p)
    assert sp.simplify(got - piece) == 0


def test_a_form_proved_equal_is_shown():
    z, x, y, p = sp.symbols("z x y p", real=True)
    piece = x * sp.exp(z) / (1 + sp.exp(z)) - x * y
    definition = 1 / (1 + sp.exp(-z))
    rewriter = own_terms.Rewriter([(p, definition)], lambda e: e.xreplace({p: definition}))
    got = rewriter(piece)
    assert got.args == (p - y, x)  # (p − y)·x, in the course's order


def test_values_are_the_derivatives_values():
    """The rewritten gradient's value is torch's, in float64 (an independent reference)."""
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    ex = exercise(BANK / "logistic.toml", "logistic-exp-sign")
    work = Working(ex.recipe, ex.given)
    w = torch.tensor(0.25, requires_grad=True)
    b = torch.tensor(-0.1)
    x = torch.tensor([0.8415, -1.2203, 0.3127])
    y = torch.tensor([1.0, 0.0, 1.0])
    torch.nn.functional.binary_cross_entropy(torch.sigmoid(w * x + b), y).backward()
    assert abs(float(work.node_value("gw")) - w.grad.item()) < 1e-12


# ------------------------------------------------------------------ a recurrence's start

def test_a_recurrences_start_has_its_own_line():
    ex = exercise(BANK / "resume.toml", "resume-formulas")
    lines = Working(ex.recipe, ex.given).lines("uw")
    assert lines[0][0] == r"\mathrm{uw}_{t} = \mu \cdot \mathrm{uw}_{t - 1} + \mathrm{gw}_{t}"
    assert lines[1][0] == r"\mathrm{uw}_{0} = -13.974"
    assert lines[1][1] == sp.Rational(-13974, 1000)
    assert lines[2][0].startswith(r"\mathrm{uw}_{1} = 0.9 \cdot \left(-13.974\right)")


START = """
[[exercise]]
id = "start"
recipe = "formulas"

[exercise.given]
c0 = 1.5
steps = 2

[exercise.define]
v = { formula = "v_{t-1}/2", start = "0" }
u = { formula = "u_{t-1} + v_t", start = "2*c0" }
"""


def test_a_start_formula_is_shown_with_its_numbers(tmp_path):
    ex = exercise(write(tmp_path, START), "start")
    work = Working(ex.recipe, ex.given)
    assert work.lines("v")[1] == ("v_{0} = 0", 0)
    assert work.lines("u")[1] == (r"u_{0} = 2 \cdot c_{0} = 2 \cdot 1.5", 3)


# ------------------------------------------------------------------ every output compiles

# The bank's exports compile (pdfLaTeX, XeLaTeX) and render with KaTeX: every file of every
# bank in tests/test_bank_exports.py (logistic, resume, lab, decay_accumulation and heldout24
# always, the rest in the slow tier).
