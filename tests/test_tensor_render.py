"""Tensors in the exports (issue 35 item 6): a tensor formula printed as the lecture writes it
(derive/graph/tensor_latex.py), givens and results as matrices, the derivation line with the
numbers substituted, in LaTeX (pdfLaTeX, XeLaTeX) and Markdown (KaTeX), en and zh.

Every expected string is written by hand; the expected matrices of the exercise are computed
here with Fractions, not by derive.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import examples
from test_bank_exports import derive
from test_export import compile_tex, katex_failures, math_spans

from derive.graph.formula_limits import FormulaError
from derive.graph.tensor import symbols
from derive.graph.tensor_language import parse_tensor
from derive.graph.tensor_latex import tensor_latex

NAMES = {"X": "X", "W1": "W_{1}", "W2": "W_{2}", "b1": "b_{1}", "Z1": "Z_{1}", "Z": "Z",
         "H": "H", "y": "y", "P": "P", "loss": r"\mathrm{loss}", "delta1": r"\delta_{1}",
         "delta2": r"\delta_{2}", "xhat": r"\hat{x}", "x": "x", "A": "A", "B": "B",
         "g": r"\gamma", "beta": r"\beta", "c": "c"}
"""A notation written by hand (the exercise's own is tested through the exports)."""


def tex(text: str, scalars=("loss", "c")) -> str:
    return tensor_latex(text, NAMES.__getitem__, scalars=scalars)


@pytest.mark.parametrize("formula,expected", [
    ("X @ W1.T + b1", r"X W_{1}^{\top} + b_{1}"),
    ("X @ W^{(1)}ᵀ + b1", r"X W_{1}^{\top} + b_{1}"),
    ("transpose(W1)", r"W_{1}^{\top}"),
    ("softmax(Z, dim=-1)", r"\operatorname{softmax}\left(Z\right)"),
    ("softmax(Z)", r"\operatorname{softmax}\left(Z\right)"),
    ("softmax(Z, dim=0)", r"\operatorname{softmax}_{\mathrm{dim} = 0}\left(Z\right)"),
    ("log_softmax(Z)", r"\log\operatorname{softmax}\left(Z\right)"),
    ("logsumexp(Z, dim=1)", r"\operatorname{logsumexp}_{\mathrm{dim} = 1}\left(Z\right)"),
    ("(Z1 > 0)", r"\mathbf{1}\left[Z_{1} > 0\right]"),
    ("Z1 >= 0", r"\mathbf{1}\left[Z_{1} \geq 0\right]"),
    ("(delta2 @ W2) * (Z1 > 0)",
     r"\left(\delta_{2} W_{2}\right) \odot \mathbf{1}\left[Z_{1} > 0\right]"),
    ("A * B", r"A \odot B"),
    ("A ⊙ B", r"A \odot B"),
    ("c * A", r"c \cdot A"),
    ("2 * A", r"2 \cdot A"),
    ("A / 3", r"\frac{A}{3}"),
    ("(P - onehot(y, 3)) / 3", r"\frac{P - \operatorname{onehot}\left(y, 3\right)}{3}"),
    ("delta1.T @ X / 3", r"\frac{\delta_{1}^{\top} X}{3}"),
    ("grad(loss, W1)", r"\frac{\partial \mathrm{loss}}{\partial W_{1}}"),
    ("grad(cross_entropy(Z, y), W1)",
     r"\frac{\partial \operatorname{CE}\left(Z, y\right)}{\partial W_{1}}"),
    ("mean(x)", r"\operatorname{mean}\left(x\right)"),
    ("sum(A, dim=0)", r"\operatorname{sum}_{\mathrm{dim} = 0}\left(A\right)"),
    ("layer_norm(x)", r"\operatorname{LayerNorm}\left(x\right)"),
    ("layer_norm(x, eps=1e-5, weight=g, bias=beta)",
     r"\operatorname{LayerNorm}\left(x;\ \epsilon = 10^{-5},\ \gamma = \gamma,\ "
     r"\beta = \beta\right)"),
    ("cross_entropy(Z, y)", r"\operatorname{CE}\left(Z, y\right)"),
    ("mse_loss(A, B)", r"\operatorname{MSE}\left(A, B\right)"),
    ("sqrt(x)", r"\sqrt{x}"),
    ("√x", r"\sqrt{x}"),
    ("exp(x) - log(x)", r"\exp\left(x\right) - \log\left(x\right)"),
    ("sigmoid(x) + tanh(x)", r"\sigma\left(x\right) + \tanh\left(x\right)"),
    ("relu(Z1)", r"\operatorname{relu}\left(Z_{1}\right)"),
    ("|x|", r"\left|x\right|"),
    ("xhat - δ1", r"\hat{x} - \delta_{1}"),
    ("x̂ * 2.5e-3", r"\hat{x} \cdot \left(2.5 \times 10^{-3}\right)"),
    ("A - (B - A)", r"A - \left(B - A\right)"),
    ("-A^2", r"-A^{2}"),
    ("(A + B)^2", r"\left(A + B\right)^{2}"),
    ("W1_{1,2} + W1[0,1]", r"{W_{1}}_{1,2} + {W_{1}}_{1,2}"),
    ("outer(x, x)", r"x \otimes x"),
    ("1e-3^2 + 2.5e-3 * x", r"\left(10^{-3}\right)^{2} + 2.5 \times 10^{-3} \cdot x"),
    ("max(Z, dim=1)", r"\max_{\mathrm{dim} = 1}\left(Z\right)"),
])
def test_each_construct_prints_as_written_by_hand(formula, expected):
    assert tex(formula) == expected


def test_a_substituted_name_is_drawn_by_the_caller_but_never_inside_grad():
    """The substituted line draws a given's numbers; grad(L, W) stays ∂L/∂W (a derivative
    is of a symbol, not of its numbers)."""
    numbers = {"X": r"\begin{bmatrix} 1 \end{bmatrix}", "W1": r"\begin{bmatrix} 2 \end{bmatrix}"}
    got = tensor_latex("X @ W1.T + grad(loss, W1)", lambda w: numbers.get(w, NAMES[w]),
                       scalars={"loss"}, symbol=NAMES.__getitem__)
    assert got == (r"\begin{bmatrix} 1 \end{bmatrix} {\begin{bmatrix} 2 \end{bmatrix}}^{\top}"
                   r" + \frac{\partial \mathrm{loss}}{\partial W_{1}}")


@pytest.mark.parametrize("hostile", [
    r"X @ W1 }{\end{document}", "X @ W1 $x$", r"\input{/etc/passwd}", "X % W1", "X & W1",
    "X # W1", "<script>", "X ~ W1",
])
def test_hostile_text_is_refused_not_printed(hostile):
    """The printer reads the tensor language's tokens only: a character of another
    language's markup is a FormulaError, never copied into the LaTeX."""
    with pytest.raises(FormulaError):
        tex(hostile)


def test_a_name_is_only_ever_what_the_caller_draws():
    """The printer writes no author word itself: every name goes through `name` (which the
    render layer escapes); here a name drawn as a marker shows it is called for each one."""
    got = tensor_latex("b_out @ W^{(1)} + delta2", lambda w: f"<{w}>")
    assert got == "<b_out> <W1> + <delta2>"


# --------------------------------------------------------------------- random formulas, KaTeX

MATRICES = {n: symbols(n, (2, 2)) for n in ("A", "B", "Z1", "W1", "delta1")}


def _formulas(depth: int) -> st.SearchStrategy[str]:
    leaf = st.sampled_from([*MATRICES, "W^{(1)}", "δ1", "2", "0.5", "1e-3"])
    if depth == 0:
        return leaf
    sub = _formulas(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from([" + ", " - ", " * ", " ⊙ ", " @ ", " / "]), sub)
        .map("".join),
        sub.map(lambda f: f"({f})"), sub.map(lambda f: f"({f}).T"),
        sub.map(lambda f: f"({f} > 0)"), sub.map(lambda f: f"-({f})"),
        sub.map(lambda f: f"({f})^2"),
        st.tuples(st.sampled_from(["relu", "exp", "sqrt", "abs", "sigmoid", "softmax",
                                   "log_softmax", "layer_norm", "transpose"]), sub)
        .map(lambda p: f"{p[0]}({p[1]})"),
        st.tuples(sub, st.sampled_from(["sum", "mean"]))
        .map(lambda p: f"{p[1]}({p[0]}, dim=0)"),
        sub.map(lambda f: f"mse_loss({f}, A)"),
    )


NOTATION = {"A": "A", "B": "B", "Z1": "Z_{1}", "W1": "W_{1}", "delta1": r"\delta_{1}"}


@settings(examples(4, slow=20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_formulas(3), min_size=30, max_size=30))
def test_random_tensor_formulas_print_latex_that_katex_renders(formulas):
    """Formulas of the tensor language (each one parse_tensor reads, where the shapes fit)
    print to LaTeX that KaTeX renders in strict mode, braces balanced."""
    spans = []
    for f in formulas:
        try:
            parse_tensor(f, MATRICES)
        except FormulaError:
            continue  # a division by zero or a shape that does not fit: not a formula to print
        out = tensor_latex(f, NOTATION.__getitem__)
        assert out.count("{") == out.count("}"), (f, out)
        spans.append({"tex": out, "display": True, "where": f})
    failures = katex_failures(spans)
    assert not failures, "\n".join(f"{x['where']}: {x['error']}\n  {x['tex']}"
                                   for x in failures[:3])


def test_katex_rejects_what_the_random_test_would_miss():
    """The KaTeX check can fail: a formula printed with a brace dropped is refused."""
    broken = tex("X @ W1.T + b1")[:-1] + r"\frac{"
    assert katex_failures([{"tex": broken, "display": True, "where": "broken"}])


# ----------------------------------------------------------------- a tensor exercise exported

EXERCISE = """\
[[exercise]]
id = "two-layer"
title = "A two-layer ReLU network, forward and backward"
recipe = "formulas"

[exercise.given]
X = [[1, 2, -1], [0.5, -1, 2], [-1.5, 0, 1]]
y = [2, 0, 1]
W1 = [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]
b1 = [0.1, -0.1]
W2 = [[0.2, -0.3], [-0.1, 0.4], [0.5, 0.6]]
b2 = [0, 0.1, -0.2]

[exercise.define]
Z1 = "X @ W^{(1)}.T + b1"
H = "relu(Z1)"
Z2 = "H @ W2.T + b2"
P = "softmax(Z2)"
G2 = "(P - onehot(y, 3)) / 3"
delta1 = "(G2 @ W2) * (Z1 > 0)"
gW1 = "delta1.T @ X"

[exercise.claims]
Z1 = [[-0.5, 1.9], [0.95, -1.6], [0.25, -1.3]]
"""

X = [[Fraction(1), Fraction(2), Fraction(-1)], [Fraction(1, 2), Fraction(-1), Fraction(2)],
     [Fraction(-3, 2), Fraction(0), Fraction(1)]]
W1 = [[Fraction(1, 10), Fraction(-2, 10), Fraction(3, 10)],
      [Fraction(4, 10), Fraction(5, 10), Fraction(-6, 10)]]
B1 = [Fraction(1, 10), Fraction(-1, 10)]


def _dec(f: Fraction) -> str:
    """A Fraction whose decimal ends within 2 places, as written by hand: -1/2 is -0.5."""
    assert (f * 100).denominator == 1, f
    n = int(f * 100)
    text = f"{abs(n) // 100}.{abs(n) % 100:02d}".rstrip("0").rstrip(".")
    return ("-" if n < 0 else "") + text


def _bmatrix(rows) -> str:
    return r"\begin{bmatrix} " + r" \\ ".join(" & ".join(map(_dec, r)) for r in rows) + \
        r" \end{bmatrix}"


Z1 = [[sum(X[b][k] * W1[j][k] for k in range(3)) + B1[j] for j in range(2)] for b in range(3)]


@pytest.fixture(scope="module")
def exported_md(tmp_path_factory) -> dict[str, str]:
    path = tmp_path_factory.mktemp("tensor") / "two-layer.toml"
    path.write_text(EXERCISE, encoding="utf-8")
    out = {}
    for lang in ("en", "zh"):
        code, md, err = derive("export", str(path), "--format", "md", "--lang", lang)
        assert code == 0, err
        out[lang] = md
        code, tex_, err = derive("export", str(path), "--standalone", "--lang", lang)
        assert code == 0, err
        out[f"tex {lang}"] = tex_
        code, key, err = derive("key", str(path), "--format", "tex", "--lang", lang)
        assert code == 0, err
        out[f"key {lang}"] = key
    code, out["key md"], err = derive("key", str(path), "--format", "md")
    assert code == 0, err
    return out


def test_the_given_line_shows_matrices_and_columns(exported_md):
    md = exported_md["en"]
    assert r"W_{1} = \begin{bmatrix} 0.1 & -0.2 & 0.3 \\ 0.4 & 0.5 & -0.6 \end{bmatrix}" in md
    assert r"b_{1} = \begin{bmatrix} 0.1 \\ -0.1 \end{bmatrix}" in md
    assert r"y = \begin{bmatrix} 2 \\ 0 \\ 1 \end{bmatrix}" in md
    assert r"\left[\left[" not in md


def test_the_derivation_line_substitutes_the_matrices(tmp_path):
    """Z_1 = X W_1^⊤ + b_1 = [X][W_1]^⊤ + [b_1] = [Z_1] (the document's line, before the
    layout breaks it), Z_1 computed here with Fractions."""
    from derive.exercises import check_exercise, load
    from derive.render.derivation import graph_sections
    from derive.render.document import Math

    path = tmp_path / "two-layer.toml"
    path.write_text(EXERCISE, encoding="utf-8")
    report = check_exercise(load([str(path)])[0])
    sections = dict(graph_sections(report, "en"))
    line, = next(b for b in sections["Z1"] if isinstance(b, Math)).lines
    assert line == (r"Z_{1} = X W_{1}^{\top} + b_{1} = " + _bmatrix(X) + " {" + _bmatrix(W1)
                    + r"}^{\top} + \begin{bmatrix} 0.1 \\ -0.1 \end{bmatrix} = "
                    + _bmatrix(Z1))


def test_the_lesson_s_backward_pass_is_written_in_matrix_form(exported_md):
    """δ₁ = (G₂ W₂) ⊙ 1[Z₁ > 0], the softmax gradient as (P − onehot(y))/B, ∂L/∂W₁ = δ₁ᵀX;
    P is irrational (exponentials): it stays P in the substituted line, and its value is ≈
    one matrix of decimals."""
    md = exported_md["en"]
    assert r"\delta_{1} = \left(G_{2} W_{2}\right) \odot \mathbf{1}\left[Z_{1} > 0\right]" in md
    assert r"G_{2} = \frac{P - \operatorname{onehot}\left(y, 3\right)}{3}" in md
    assert (r"= \frac{P - \operatorname{onehot}\left(\begin{bmatrix} 2 \\ 0 \\ 1 "
            r"\end{bmatrix}, 3\right)}{3}") in md
    assert r"P = \operatorname{softmax}\left(Z_{2}\right)" in md
    assert r"\approx \begin{bmatrix}" in md
    assert r"\texttt{" not in md.split("Given")[1]


def test_the_key_s_exact_column_is_a_matrix(exported_md):
    """Z_1's exact value in the key (Fractions above), H = relu(Z_1) by hand."""
    md = exported_md["key md"]
    assert f"| ${_bmatrix(Z1)}$ |" in md
    assert r"$\begin{bmatrix} 0 & 1.9 \\ 0.95 & 0 \\ 0.25 & 0 \end{bmatrix}$" in md
    assert r"\left[\left[" not in md


def test_chinese_export_has_the_same_matrices(exported_md):
    assert r"Z_{1} = X W_{1}^{\top} + b_{1}" in exported_md["zh"]
    assert r"\begin{bmatrix} 0.1 \\ -0.1 \end{bmatrix}" in exported_md["zh"]


def test_every_math_span_renders_with_katex(exported_md):
    spans = [s for doc in ("en", "zh", "key md") for s in math_spans(exported_md[doc], doc)]
    assert sum(r"\begin{bmatrix}" in s["tex"] for s in spans) >= 8
    failures = katex_failures(spans)
    assert not failures, failures[:3]


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_the_export_compiles(exported_md, tmp_path, lang, engine):
    compile_tex(exported_md[f"tex {lang}"], engine, tmp_path)


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_the_key_compiles(exported_md, tmp_path, lang, engine):
    """The key's table holds matrices in its cells (and its notes)."""
    assert r"\begin{bmatrix}" in exported_md[f"key {lang}"]
    compile_tex(exported_md[f"key {lang}"], engine, tmp_path)


def test_the_site_s_pages_render_the_matrices(tmp_path):
    """`derive build`: the self-check page (en, zh) draws the working with its matrices,
    rendered by KaTeX (no katex-error; a matrix is a KaTeX mtable)."""
    src = tmp_path / "bank"
    src.mkdir()
    (src / "two-layer.toml").write_text(EXERCISE, encoding="utf-8")
    code, _, err = derive("build", str(src), "-o", str(tmp_path / "site"))
    assert code == 0, err
    for lang in ("en", "zh"):
        page = (tmp_path / "site" / "two-layer" / "two-layer" / f"page.{lang}.html").read_text(
            encoding="utf-8")
        assert "katex-error" not in page
        assert (r"\begin{bmatrix} 0.1 &amp; -0.2 &amp; 0.3 \\ 0.4 &amp; 0.5 &amp; -0.6 "
                r"\end{bmatrix}") in page
        assert page.count("mtable") >= 8


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_a_hostile_tensor_exercise_exports_as_text(tmp_path, lang, engine):
    """The two-layer exercise with every author string hostile (tests/test_bank_exports.py's
    hostile_text: its id, its title, each define's title and title_zh) and a claim of Z1 wrong
    at (2,2): the export compiles, renders with KaTeX, shows the hostile pieces escaped as
    written by hand there, and gains no control sequence."""
    from test_bank_exports import MD, TEX, hostile_text, no_author_markup_tex, shows

    plain = tmp_path / "plain.toml"
    plain.write_text(EXERCISE.replace("[0.95, -1.6]", "[0.95, 1.6]"), encoding="utf-8")
    path = tmp_path / "hostile.toml"
    path.write_text(hostile_text(plain), encoding="utf-8")
    code, tex_, err = derive("export", str(path), "--standalone", "--lang", lang)
    assert code == 0, err
    assert r"\begin{bmatrix}" in tex_ and "(2,2)" in tex_
    no_author_markup_tex(tex_)
    shows(tex_, TEX, f"export {lang}")
    compile_tex(tex_, engine, tmp_path)
    code, md, err = derive("export", str(path), "--format", "md", "--lang", lang)
    assert code == 0, err
    shows(md, MD, f"export md {lang}")
    failures = katex_failures(math_spans(md, lang))
    assert not failures, failures[:3]


CLAIMS = """\
[[exercise]]
id = "claims"
recipe = "formulas"

[exercise.given]
X = [[1, 2], [0.5, -1]]
b = [0.1, -0.1]

[exercise.define]
Z = "X + b"
v = "b * 2"
w = "X @ b"

[exercise.claims]
Z = [[1.1, 1.9], ["0.6", "-1.1"]]
v = ["1/5", -0.2]
w = [[0.1, 0.2]]
"""


def test_a_claimed_tensor_is_a_matrix_of_its_entries_as_written(tmp_path):
    """A claim in the tensor's shape is a matrix of its entries as the author wrote them (a
    vector a column: 1/5 stays 1/5); a claim of another shape is shown as written, text."""
    path = tmp_path / "claims.toml"
    path.write_text(CLAIMS, encoding="utf-8")
    code, md, err = derive("export", str(path), "--format", "md")
    assert code == 0, err
    assert r"*claimed: $\begin{bmatrix} 1.1 & 1.9 \\ 0.6 & -1.1 \end{bmatrix}$ — exact*" in md
    assert r"*claimed: $\begin{bmatrix} 1/5 \\ -0.2 \end{bmatrix}$ — exact*" in md
    assert r"*claimed: \[\[0.1, 0.2\]\] — wrong" in md
    code, tex_, err = derive("export", str(path), "--standalone")
    assert code == 0, err
    compile_tex(tex_, "pdflatex", tmp_path)
    assert not katex_failures(math_spans(md, "claims"))
