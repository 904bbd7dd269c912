"""The reader form of exact values (derive/graph/reader.py): hand-written strings for the values
benchmarks/lessons05 prints, and a property that the plain text and the LaTeX of random closed
forms read back (by this file's own small parser, never derive's or SymPy's) to the value, both
evaluated with mpmath at 50 digits (test-only)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st

from derive.cli.main import main
from derive.kernel.reader import NotWritable, reader_latex, reader_text
from derive.render import numbers as n

R = sp.Rational
HALF, E = R(1, 2), sp.E
S = sp.exp(R(-5, 4)) + sp.exp(HALF) + sp.exp(2)
"""ce-b's softmax denominator (benchmarks/lessons05/exercises.toml: z = 0.5, −1.25, 2)."""

# ------------------------------------------------------------------------ by hand

READER = [
    # value, plain text, LaTeX: written by hand as a reader of the course writes them
    (sp.exp(2) / (1 + E + sp.exp(2)), "e²/(1 + e + e²)", r"\frac{e^{2}}{1 + e + e^{2}}"),
    (-sp.log(sp.exp(HALF) / S), "−log(e^(1/2)/(e^(−5/4) + e^(1/2) + e²))",
     r"-\log\left(\frac{e^{1/2}}{e^{-5/4} + e^{1/2} + e^{2}}\right)"),
    (sp.sqrt(2) / 2, "√2/2", r"\frac{\sqrt{2}}{2}"),
    (-1 + sp.exp(HALF) / S, "e^(1/2)/(e^(−5/4) + e^(1/2) + e²) − 1",
     r"\frac{e^{1/2}}{e^{-5/4} + e^{1/2} + e^{2}} - 1"),
    (sp.exp(R(-5, 4)) / S, "e^(−5/4)/(e^(−5/4) + e^(1/2) + e²)",
     r"\frac{e^{-5/4}}{e^{-5/4} + e^{1/2} + e^{2}}"),
    (sp.exp(sp.sqrt(2) / 2) / (sp.exp(sp.sqrt(2) / 2) + sp.exp(3 * sp.sqrt(2) / 4)),
     "e^(√2/2)/(e^(√2/2) + e^(3√2/4))",
     r"\frac{e^{\sqrt{2}/2}}{e^{\sqrt{2}/2} + e^{3\sqrt{2}/4}}"),
    (-400 * sp.sqrt(14000090) / 1400009, "−400√14000090/1400009",
     r"-\frac{400\sqrt{14000090}}{1400009}"),
    (-sp.sqrt(2), "−√2", r"-\sqrt{2}"),
    (1 / sp.sqrt(3), "√3/3", r"\frac{\sqrt{3}}{3}"),
    (2 * E, "2e", "2e"),
    (sp.pi / 4, "π/4", r"\frac{\pi}{4}"),
    (sp.exp(-1), "e^(−1)", "e^{-1}"),
    (2 ** R(1, 3), "2^(1/3)", "2^{1/3}"),
    (3 * sp.log(2), "3·log(2)", r"3 \cdot \log\left(2\right)"),
    ((1 + sp.sqrt(5)) / 2, "1/2 + √5/2", r"\frac{1}{2} + \frac{\sqrt{5}}{2}"),
    (1 - sp.sqrt(2), "1 − √2", r"1 - \sqrt{2}"),
    (sp.sqrt(2) - sp.sqrt(3), "√2 − √3", r"\sqrt{2} - \sqrt{3}"),
]


@pytest.mark.parametrize("value, text, latex", READER)
def test_reader_form_by_hand(value, text, latex):
    assert reader_text(value) == text
    assert reader_latex(value) == latex


def test_expected_column_by_hand():
    """The check report's expected column: the reader form, then ≈ and the decimal (the
    decimal's digits as before); a rational as a claim writes it."""
    assert n.flat(-1 + sp.exp(HALF) / S) == (
        "e^(1/2)/(e^(−5/4) + e^(1/2) + e²) − 1 ≈ -0.823179817892556")
    assert n.flat(R(-14, 3)) == "-14/3 ≈ -4.66666666666667"
    assert n.flat([sp.sqrt(2) / 2, 1]) == "[√2/2, 1] ≈ [0.707106781186548, 1]"


def test_huge_rational_is_never_written_out():
    """A rational of about 4000 digits: the expected column keeps its ≈ decimal and says the
    exact value is past the bound (derive/limits.py), never 4000 digits."""
    value = R(10**4000 + 1, 3)
    shown = n.flat(value)
    assert len(shown) < 200
    assert shown == "≈ 3.33333333333333e3999 (exact: about 4,000 digits, in --format json)"


# ------------------------------------------------------------------------ a parser of our own

_TOKEN = re.compile(r"\s*(\d+|[−+·/^()√eπ]|log|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")


class _Parse:
    """The plain reader form as arithmetic: + −, · and / (left to right), a number written
    against √, e or π multiplies it, ^ and superscript digits, √ of one operand, log(…)."""

    def __init__(self, text: str):
        self.tokens, at = [], 0
        while at < len(text):
            m = _TOKEN.match(text, at)
            assert m is not None, f"cannot read {text[at:]!r} of {text!r}"
            self.tokens.append(m.group(1))
            at = m.end()
        self.at = 0

    def peek(self):
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, want=None):
        t = self.peek()
        assert want is None or t == want, (t, want, self.tokens)
        self.at += 1
        return t

    def value(self):
        v = self.sum()
        assert self.peek() is None, self.tokens[self.at:]
        return v

    def sum(self):
        v = self.product()
        while self.peek() in ("+", "−"):
            v = v + self.product() if self.take() == "+" else v - self.product()
        return v

    def product(self):
        v = self.unary()
        while self.peek() in ("·", "/"):
            v = v * self.unary() if self.take() == "·" else v / self.unary()
        return v

    def unary(self):
        if self.peek() == "−":
            self.take()
            return -self.unary()
        return self.power()

    def power(self):
        v = self.atom()
        t = self.peek()
        if t == "^":
            self.take()
            return v ** self.atom()
        if t is not None and t[0] in "⁰¹²³⁴⁵⁶⁷⁸⁹":
            return v ** int(self.take().translate(_SUPER))
        return v

    def atom(self):
        t = self.take()
        if t.isdigit():
            v = mpmath.mpf(int(t))
            if self.peek() in ("√", "e", "π"):  # 3√2, 2e, 4π
                return v * self.power()
            return v
        if t == "e":
            return mpmath.e
        if t == "π":
            return mpmath.pi
        if t == "√":
            return mpmath.sqrt(self.atom())
        if t == "log":
            self.take("(")
            v = self.sum()
            self.take(")")
            return mpmath.log(v)
        assert t == "(", (t, self.tokens)
        v = self.sum()
        self.take(")")
        return v


def _latex_as_text(tex: str) -> str:
    """The LaTeX the reader form writes, turned into its plain text by rewriting, so that the
    same parser reads both: \\frac{a}{b} is (a)/(b), \\sqrt{x} √(x), e^{x} e^(x)."""
    out = tex.replace(r"\left(", "(").replace(r"\right)", ")").replace(r"\cdot", "·")
    out = out.replace(r"\log", "log").replace(r"\pi", "π").replace("-", "−")
    for _ in range(200):
        new = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))", out)
        new = re.sub(r"\\sqrt\{([^{}]*)\}", r"√(\1)", new)
        new = re.sub(r"\^\{([^{}]*)\}", r"^(\1)", new)
        if new == out:
            break
        out = new
    assert "\\" not in out and "{" not in out, out
    return out


def _reads_back(text: str, value: sp.Expr) -> None:
    with mpmath.workdps(60):  # a margin for e^x, which multiplies x's error by x
        got = _Parse(text).value()
        want = mpmath.mpf(str(sp.N(value, 60)))
        assert abs(got - want) <= mpmath.mpf(10) ** -45 * max(1, abs(want)), (text, got, want)


@pytest.mark.parametrize("value, text, latex", READER)
def test_the_parser_reads_the_hand_written_forms(value, text, latex):
    _reads_back(text, value)
    _reads_back(_latex_as_text(latex), value)


# ------------------------------------------------------------------------ the property

_LEAF = st.one_of(
    st.builds(R, st.integers(-30, 30), st.integers(1, 12)),
    st.builds(lambda p, q: sp.sqrt(R(p, q)), st.integers(1, 50), st.integers(1, 6)),
    st.builds(lambda p, q: sp.exp(R(p, q)), st.integers(-6, 6), st.integers(1, 4)),
    st.builds(lambda p, q: sp.log(R(p, q)), st.integers(2, 40), st.integers(1, 5)),
    st.just(E), st.just(sp.pi),
)


def _combine(children):
    return st.one_of(
        st.builds(lambda a, b: a + b, children, children),
        st.builds(lambda a, b: a - b, children, children),
        st.builds(lambda a, b: a * b, children, children),
        st.builds(lambda a, b: a / b, children, children),
        st.builds(lambda a: sp.exp(a), _LEAF),  # no tower: e^(e^(e³)) is 10^(2·10⁸), whose
        # 50 digits a 50-digit exponent cannot give (make test found it; not a reading error)
        st.builds(lambda a: a ** 2, children),
    )


VALUES = st.recursive(_LEAF, _combine, max_leaves=6)

SYMPY_NAMES = ("exp(", "sqrt(", "Abs", "Heaviside", "Piecewise", "E", "oo", "**", "*", "zoo")


@given(VALUES)
def test_reader_form_reads_back_to_the_value(value):
    """Random closed forms of rationals, √, e^x and log: the plain text and the LaTeX, read by
    this file's parser, equal the value at 50 digits; the text has none of SymPy's names."""
    assume(value.is_real and value.is_finite and not value.has(sp.zoo, sp.nan))
    assume(all(isinstance(a, (sp.Add, sp.Mul, sp.Pow, sp.exp, sp.log, sp.Rational,
                              sp.Symbol))
               or a in (E, sp.pi) for a in sp.preorder_traversal(value)))
    try:
        text, latex = reader_text(value), reader_latex(value)
    except NotWritable:  # nothing random reaches it: every class above is written
        raise AssertionError(f"{sp.srepr(value)} not written") from None
    assert not any(name in text for name in SYMPY_NAMES), text
    _reads_back(text, value)
    _reads_back(_latex_as_text(latex), value)


# ------------------------------------------------------------------------ end to end

LESSONS05 = Path(__file__).resolve().parents[1] / "benchmarks" / "lessons05" / "exercises.toml"


def _cli(*argv) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([str(a) for a in argv])
    return code, out.getvalue()


def test_check_and_key_write_ce_b_for_a_reader():
    """benchmarks/lessons05's ce-b (softmax cross-entropy, z = 0.5, −1.25, 2, label 1): the
    check report and the Markdown key write the loss and g1 as a reader does, the JSON keeps
    SymPy's exact text as its machine field."""
    code, text = _cli("check", LESSONS05)
    assert code == 1
    assert "−log(e^(1/2)/(e^(−5/4) + e^(1/2) + e²)) ≈ 1.73262198310203" in text
    assert "e^(1/2)/(e^(−5/4) + e^(1/2) + e²) − 1 ≈ -0.823179817892556" in text
    assert "exp(" not in text and "sqrt(" not in text
    _, key = _cli("key", LESSONS05)
    assert (r"| $-\log\left(\frac{e^{1/2}}{e^{-5/4} + e^{1/2} + e^{2}}\right)$ | "
            "1.73262198310203 |") in key
    assert r"| $\frac{e^{1/2}}{e^{-5/4} + e^{1/2} + e^{2}} - 1$ | -0.823179817892556 |" in key
    _, data = _cli("check", "--format", "json", LESSONS05)
    claims = {c["name"]: c for e in json.loads(data)["exercises"] if e["id"] == "ce-b"
              for c in e["claims"]}
    assert claims["g1"]["expected"] == "-1 + exp(1/2)/(exp(-5/4) + exp(1/2) + exp(2))"


FORMULAS = """
[[exercise]]
id = "lr-stays"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.05
records = [[2, 4]]
[exercise.claims]
w_new = { formula = "w - lr*x*(w*x - y)" }

[[exercise]]
id = "mean-stays"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.05
records = [[2, 4], [1, 3], [0, 1], [2, 2], [3, 1], [1, 1], [5, 2]]
[exercise.claims]
gradient = { formula = "mean_i((w*x_i - y_i)*x_i)" }
loss = { formula = "mean_i((w*x_i - y_i)^2)" }
"""


def test_an_expected_formula_is_written_with_the_authors_names(tmp_path):
    """A formula answer's expected form, in the text report and the JSON's added
    `expected_text`, as the author writes it: lr stays lr (it was eta), a mean is mean_i(…)
    (it was sum_i(…)/N), products with ·, minus signs −; `expected` keeps the formula
    language (what a claim may paste)."""
    path = tmp_path / "formulas.toml"
    path.write_text(FORMULAS, encoding="utf-8")
    _, text = _cli("check", path)
    assert "equivalent  w − lr·x·(w·x − y)" in text
    assert "equivalent  mean_i((w·x_i − y_i)·x_i)" in text
    assert "wrong       mean_i((w·x_i − y_i)²/2)" in text
    _, data = _cli("check", "--format", "json", path)
    claims = {(e["id"], c["name"]): c for e in json.loads(data)["exercises"]
              for c in e["claims"]}
    assert claims["lr-stays", "w_new"]["expected"] == "-eta*x*(w*x - y) + w"
    assert claims["lr-stays", "w_new"]["expected_text"] == "w − lr·x·(w·x − y)"
    assert claims["mean-stays", "gradient"]["expected"] == "sum_i((w*x_i - y_i)*x_i)/N"
    assert claims["mean-stays", "gradient"]["expected_text"] == "mean_i((w·x_i − y_i)·x_i)"


def test_an_authors_notation_writes_its_names():
    """bank24's decay exercise: the author's lambda_wd is λ_wd, the exercise's own notation
    (as its exports write it), and the records' members x_1 … x_3."""
    bank = LESSONS05.parents[1] / "bank24" / "decay_accumulation.toml"
    _, text = _cli("check", bank)
    assert ("equivalent  λ_wd·w + x_1·(w·x_1 − y_1)/3 + x_2·(w·x_2 − y_2)/3 + "
            "x_3·(w·x_3 − y_3)/3") in text


CE_B = """
[[exercise]]
id = "ce-b"
title = "softmax cross-entropy, label 1 (benchmarks/lessons05)"
recipe = "formulas"
[exercise.given]
z1 = 0.5
z2 = -1.25
z3 = 2.0
y1 = 1
y2 = 0
y3 = 0
[exercise.define]
s = "exp(z1) + exp(z2) + exp(z3)"
p1 = "exp(z1)/s"
loss = "-(y1*log(p1))"
g1 = "grad(loss, z1)"
"""


def test_the_text_key_writes_values_as_a_reader_does(tmp_path):
    """The answer key rendered as text (a notebook's text, derive.render.document.to_text):
    its Exact column is the reader form, not LaTeX."""
    from derive import notebook
    from derive.render.document import to_text

    path = tmp_path / "ce_b.toml"
    path.write_text(CE_B, encoding="utf-8")
    text = to_text(notebook.key(str(path)).document)
    row = next(line for line in text.splitlines() if line.strip().startswith("`g1`"))
    assert "e^(1/2)/(e^(−5/4) + e^(1/2) + e²) − 1" in row
    assert r"\frac{e^{1/2}}" not in row


def test_a_number_is_glued_to_a_root_or_e_never_to_a_name():
    """3√2 and 2e³ as a reader writes them; 2·exp_avg and 2·ε·x with the product's dot (a name
    that starts with e was written 2exp_avg by a test on the text)."""
    from derive.graph.reader import formula_reader

    assert reader_text(2 * sp.exp(3)) == "2e³"
    assert formula_reader(2 * sp.Symbol("exp_avg"), {}) == "2·exp_avg"
    assert formula_reader(2 * sp.Symbol("eps") * sp.Symbol("x"), {}) == "2·ε·x"
