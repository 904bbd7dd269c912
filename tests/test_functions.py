"""The functions of issue 24 (derive/kernel/functions.py): formula text → SymPy → LaTeX (tables
written by hand), exact values, certified decimals against mpmath at 100 digits, derivatives at
kinks against torch's autograd in float64, and the formula text printed back reading as the
same function (hypothesis)."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from derive.errors import InputError
from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.graph.evaluate import NotEvaluable, compiled, exact_value, sympy_value
from derive.graph.formula_text import NotWritable, formula_text
from derive.graph.language import FormulaError, evaluated, parse_formula
from derive.kernel import intervals
from derive.kernel.decide import decide
from derive.kernel.functions import clamp, relu, sigmoid, softplus
from derive.render.formula_tex import formula
from derive.render.printer import latex

torch = pytest.importorskip("torch")

w, b, x, y = (sp.Symbol(n, real=True) for n in ("w", "b", "x", "y"))
R = sp.Rational

# ------------------------------------------------------------------ text → SymPy → LaTeX

PARSED = [
    ("cos(w)", sp.cos(w)),
    ("sin(2*w)", sp.sin(2 * w)),
    ("tanh(w - b)", sp.tanh(w - b)),
    ("sigmoid(w*x + b)", sigmoid(w * x + b)),
    ("softplus(-y*w)", softplus(-y * w)),
    ("relu(w)^2", relu(w) ** 2),
    ("sign(w - y)", sp.sign(w - y)),
    ("clamp(w, -1, 1)", clamp(w, -1, 1)),
    ("cos(pi*w)", sp.cos(sp.pi * w)),
    ("cos(π/3)", R(1, 2)),
    ("sigmoid(0)", R(1, 2)),
]


@pytest.mark.parametrize("text,expected", PARSED)
def test_formula_text_is_the_sympy_expression(text, expected):
    assert evaluated(parse_formula(text)) == expected


LATEX = [  # formula_tex (derivation exports), then printer (statements)
    ("relu(w)^2", r"\operatorname{relu}\left(w\right)^{2}",
     r"\operatorname{relu}\left(w\right)^{2}"),
    ("sigmoid(-w)", r"\sigma\left(-w\right)", r"\sigma\left(- w\right)"),
    ("softplus(w)", r"\operatorname{softplus}\left(w\right)",
     r"\operatorname{softplus}\left(w\right)"),
    ("clamp(w, -1, b)", r"\operatorname{clamp}\left(w, -1, b\right)",
     r"\operatorname{clamp}\left(w, -1, b\right)"),
    ("tanh(w)", r"\tanh\left(w\right)", r"\tanh{\left(w \right)}"),
    ("cos(pi*w)", r"\cos\left(\pi \cdot w\right)", r"\cos{\left(\pi \cdot w \right)}"),
    ("sign(w)", r"\operatorname{sign}\left(w\right)", r"\operatorname{sign}{\left(w \right)}"),
]


@pytest.mark.parametrize("text,derivation,statement", LATEX)
def test_latex_of_the_functions(text, derivation, statement):
    e = evaluated(parse_formula(text))
    assert formula(e).text == derivation
    assert latex(e) == statement


STEPS_TEX = [  # a derivative's steps: Iverson brackets, H(u) for a tie of max/min
    (sp.Heaviside(w, 0), r"\left[w > 0\right]"),
    (sp.Heaviside(w, 1), r"\left[w \ge 0\right]"),
    (sp.Heaviside(w), r"H\left(w\right)"),
]


@pytest.mark.parametrize("e,tex", STEPS_TEX)
def test_latex_of_a_kink_step(e, tex):
    assert formula(e).text == tex


@pytest.mark.parametrize("text,message", [
    ("clamp(w, 1)", "clamp takes three arguments: clamp(x, lo, hi) at column 1"),
    ("relu(w, b)", "relu takes one argument at column 1"),
    ("sigmoid w", "sigmoid needs its argument in brackets"),
])
def test_wrong_calls_are_invalid(text, message):
    with pytest.raises(FormulaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_formula(text)


# ------------------------------------------------------------------ exact values

EXACT = [
    ("sin(0)", 0), ("cos(0)", 1), ("tanh(0)", 0), ("relu(-1/2)", 0), ("relu(0.25)", R(1, 4)),
    ("sign(-3)", -1), ("sign(0)", 0), ("sign(0.001)", 1), ("sigmoid(0)", R(1, 2)),
    ("softplus(0)", sp.log(2)), ("clamp(5, 0, 1)", 1), ("clamp(-2, 0, 1)", 0),
    ("clamp(0.5, 0, 1)", R(1, 2)), ("clamp(0.5, 1, 0)", 0),  # lo > hi: hi, as torch.clamp
    ("sigmoid(log(3))", R(3, 4)), ("cos(pi/3)", R(1, 2)), ("sin(pi/6)", R(1, 2)),
    ("cos(pi)", -1), ("softplus(log(3))", sp.log(4)),
]


@pytest.mark.parametrize("text,value", EXACT)
def test_exact_values(text, value):
    assert evaluated(parse_formula(text)) == value


# ------------------------------------------------------------------ certified decimals

mpmath.mp.dps = 100
MP = {
    "sigmoid(1/3)": 1 / (1 + mpmath.exp(-mpmath.mpf(1) / 3)),
    "softplus(-5/4)": mpmath.log(1 + mpmath.exp(mpmath.mpf(-5) / 4)),
    "tanh(7/10)": mpmath.tanh(mpmath.mpf(7) / 10),
    "sin(2)": mpmath.sin(2),
    "cos(1/10)": mpmath.cos(mpmath.mpf(1) / 10),
    "relu(sqrt(2) - 1)": mpmath.sqrt(2) - 1,
    "relu(1 - sqrt(2))": mpmath.mpf(0),
    "clamp(sqrt(2), 0, 1)": mpmath.mpf(1),
    "clamp(sqrt(2)/2, 0, 1)": mpmath.sqrt(2) / 2,
    "sigmoid(-1000)": 1 / (1 + mpmath.exp(1000)),
    "tanh(40)": mpmath.tanh(40),
}


@pytest.fixture(autouse=True)
def _mpmath_at_100_digits():
    """Every test here compares at 100 digits, whatever precision another module's test left
    mpmath at (its precision is global)."""
    with mpmath.workdps(100):
        yield


@pytest.mark.parametrize("text", sorted(MP))
def test_certified_enclosures_hold_the_value(text):
    e = evaluated(parse_formula(text))
    lo, hi = intervals.enclose(e, 256)
    lo_mp = mpmath.mpf(int(lo.p)) / int(lo.q)
    hi_mp = mpmath.mpf(int(hi.p)) / int(hi.q)
    assert lo_mp <= MP[text] <= hi_mp
    assert hi_mp - lo_mp <= mpmath.mpf(2) ** -200 * max(1, abs(MP[text]))


@pytest.mark.parametrize("text", sorted(MP))
def test_graph_values_round_as_mpmath(text):
    """The graph evaluator's exact value, rounded to 30 significant digits by its certified
    enclosure, is mpmath's at 100 digits rounded the same way."""
    v = sympy_value(compiled(evaluated(parse_formula(text)))({}, {}))
    if MP[text] == 0:
        assert v == 0
        return
    got = intervals.round_sig(v, 30)
    assert got is not None
    assert abs(mpmath.mpf(int(got.p)) / int(got.q) - MP[text]) <= abs(MP[text]) * \
        mpmath.mpf(10) ** -29


# ------------------------------------------------------------------ derivatives at kinks

def _float(v) -> float:
    """A value's certified 20-digit rounding as a float (SymPy's evalf does not know relu,
    sigmoid, softplus or clamp: their decimals come from enclosures only)."""
    got = v if v.is_Rational else intervals.round_sig(v, 20)
    return float(got)


def _env(point, names="xyb"):
    """The evaluator's environment: each name's value as its exact rational type."""
    return {n: exact_value(sp.Rational(v)) for n, v in zip(names, point)}


def _torch_grads(f, values):
    xs = [torch.tensor(float(v), dtype=torch.float64, requires_grad=True) for v in values]
    f(*xs).backward()
    return [0.0 if t.grad is None else t.grad.item() for t in xs]


F = torch.nn.functional
KINKS = [  # formula over x, y, b; torch's function; points (x, y, b)
    ("relu(x)", lambda x, y, b: torch.relu(x), [(0, 0, 0), (-1, 0, 0), (R(3, 2), 0, 0)]),
    ("|x|", lambda x, y, b: x.abs(), [(0, 0, 0), (R(-1, 5), 0, 0), (2, 0, 0)]),
    ("sign(x)*y", lambda x, y, b: torch.sign(x) * y, [(0, 3, 0), (R(1, 2), 3, 0)]),
    ("clamp(x, y, b)", lambda x, y, b: torch.clamp(x, y, b),
     [(0, 0, 1), (1, 0, 1), (R(1, 2), 0, 1), (-1, 0, 1), (2, 0, 1), (R(1, 2), 1, 0),
      (-1, 1, 0), (2, 1, 0), (0, 1, 1), (1, 1, 1), (2, 1, 1), (-1, 0, 0)]),
    ("clamp(x, -1, 1)", lambda x, y, b: torch.clamp(x, -1.0, 1.0), [(-1, 0, 0), (1, 0, 0)]),
    ("max(x, y)", lambda x, y, b: torch.maximum(x, y), [(1, 1, 0), (2, 1, 0), (0, 1, 0)]),
    ("min(x, y)", lambda x, y, b: torch.minimum(x, y), [(1, 1, 0), (2, 1, 0), (0, 1, 0)]),
    ("max(x, 0)", lambda x, y, b: torch.maximum(x, torch.zeros_like(x)), [(0, 0, 0)]),
    ("min(|x - y|, b)*(|x - y| - min(|x - y|, b)/2)",
     lambda x, y, b: F.huber_loss(x, y, delta=b.item()),
     [(0, 0, 1), (1, 0, 1), (-1, 0, 1), (R(1, 2), 0, 1), (3, 0, 1), (-3, 0, 1),
      (R(5, 2), R(1, 2), 2), (R(1, 2), R(5, 2), 2)]),
    ("sigmoid(x)*softplus(y) + tanh(x*y)",
     lambda x, y, b: torch.sigmoid(x) * F.softplus(y) + torch.tanh(x * y),
     [(0, 0, 0), (R(1, 3), R(-5, 4), 0)]),
]
CASES = [(f, t, p, v) for f, t, points in KINKS for p in points for v in ("x", "y")]


@pytest.mark.parametrize("text,torch_f,point,var", CASES)
def test_derivatives_at_kinks_are_torch_s(text, torch_f, point, var):
    """sympy.diff of the formula (derive/recipes/formulas.py takes derivatives so), evaluated
    exactly at the point, is torch's backward there. The Huber loss's δ is not a tensor
    argument of torch's: only x and y are compared (b is then its delta)."""
    e = evaluated(parse_formula(text))
    d = sp.diff(e, {"x": x, "y": y}[var])
    value = _float(sympy_value(compiled(d)(_env(point), {})))
    grads = _torch_grads(torch_f, point)
    expected = grads[{"x": 0, "y": 1}[var]]
    assert abs(value - expected) <= 1e-12 * max(1.0, abs(expected)), (text, point, var)


def test_clamp_gradient_to_its_upper_bound_is_torch_s():
    e = evaluated(parse_formula("clamp(x, y, b)"))
    for point in [(0, 0, 1), (2, 0, 1), (R(1, 2), 1, 0), (-1, 1, 0), (0, 1, 1), (2, 1, 1)]:
        got = compiled(sp.diff(e, b))(_env(point), {})
        assert float(got) == _torch_grads(lambda x, y, b: torch.clamp(x, y, b), point)[2]


def test_a_tie_of_three_arguments_of_max_is_not_evaluated():
    """SymPy's ∂max(x, y, z)/∂x is H(x − max(y, z)): at a triple tie it would give ½ to each
    argument (3/2 in all), which no nesting of torch.maximum does."""
    z = sp.Symbol("z", real=True)
    d = sp.diff(sp.Max(x, y, z), x)
    with pytest.raises(NotEvaluable, match="three or more"):
        compiled(d)(_env((1, 1, 1), "xyz"), {})
    assert compiled(d)(_env((2, 1, 1), "xyz"), {}) == 1


def test_a_kink_decided_by_a_certified_sign():
    """relu′ at √2 − 1.41421356 (positive by 6·10⁻⁹) and at 1.41421357 − √2 (negative): the
    side comes from the certified enclosure, never a float."""
    d = sp.diff(relu(x), x)
    near = sp.sqrt(2) - R(141421356, 10**8)
    assert compiled(d.subs(x, near))({}, {}) == 1
    assert compiled(d.subs(x, -near - R(1, 10**8)))({}, {}) == 0


def test_symbolic_derivative_through_a_kink_holds_only_off_the_kink():
    """A statement's d(relu(x))/d(x) = [x > 0] holds only where relu has a derivative: the
    kernel (kinks.py) proves it with x ≠ 0 as a condition, and refutes torch's value ½·… at a
    point off the kink no matter the convention at it."""
    d = decide(sp.Derivative(relu(x), x), sp.Heaviside(x, 0), seconds=5)
    assert d.proved and d.conditions == ("-x",)
    assert not decide(sp.Derivative(relu(x), x), sp.Heaviside(x, 0) / 2, seconds=5).proved


# ------------------------------------------------------------------ round trip

LEAVES = st.sampled_from([w, b, x, y, sp.Integer(2), R(1, 3), R(-5, 4), sp.pi])
ONE = st.sampled_from(["cos", "sin", "tanh", "sigmoid", "softplus", "relu", "sign", "abs",
                       "exp"])


def _tree(leaves):
    return st.one_of(
        st.tuples(ONE, leaves).map(lambda p: f"{p[0]}({p[1]})"),
        st.tuples(leaves, leaves, leaves).map(lambda p: f"clamp({p[0]}, {p[1]}, {p[2]})"),
        st.tuples(leaves, st.sampled_from(["+", "-", "*", "/", "^"]), leaves).map(
            lambda p: f"({p[0]}){p[1]}({p[2]})"),
        st.tuples(leaves, leaves).map(lambda p: f"max({p[0]}, {p[1]})"),
    )


TEXTS = st.recursive(LEAVES.map(lambda e: formula_text(e)), _tree, max_leaves=8)


@settings(max_examples=60, deadline=None)
@given(TEXTS)
@example("exp((w)/(w))")  # e itself: printed as exp(1), since `E` reads as a symbol
@example("max(w, max(w, b))")  # an argument twice: read back as written twice (found in CI)
@example("((-5/4)^(-5/4))^(2)")  # −32√5·i/125: a complex constant (found by make test)
def test_formula_text_of_the_functions_reads_back(text):
    try:
        e = evaluated(parse_formula(text))
    except (FormulaError, ValueError):
        return  # 0^-1, a constant too large: refused, not printed
    if e.has(sp.I):  # a complex constant is not the language's to write: refused, not printed
        with pytest.raises(NotWritable, match="a complex number"):
            formula_text(e)
        return
    back = evaluated(parse_formula(formula_text(e)))
    # the same function, not always the same tree: SymPy distributes 2·(b + w) when it reads it
    assert back == e or sp.cancel(back - e) == 0, (text, formula_text(e))


# ------------------------------------------------------------------ in an exercise

EXERCISE = '''
[[exercise]]
id = "kink"
recipe = "formulas"

[exercise.given]
w = {w}
lr = 0.1
records = [[1, 2]]

[exercise.define]
m = "max(w*x_i, 1)"
loss = "mean_i((m_i - y_i)^2/2)"
g = "grad(loss, w)"

[exercise.claims]
g = {claim}
'''


def _check(tmp_path, w: str, claim: str):
    path = tmp_path / "kink.toml"
    path.write_text(EXERCISE.format(w=w, claim=claim))
    return check_exercise(load_file(path)[0])


@pytest.mark.parametrize("w,g", [("1", "-0.5"), ("2", "0"), ("0.5", "0"), ("1.5", "-0.5")])
def test_a_derivative_through_max_is_taken_at_the_exercise_s_values(tmp_path, w, g):
    """g = (max(w·x, 1) − y)·∂max/∂w: at w·x = 1 torch.maximum splits the gradient, ½·(1 − 2);
    off the tie it is (w·x − y)·x or 0 (computed here by hand)."""
    report = _check(tmp_path, w, f'"{g}"')
    assert report.ok, [(c.name, c.status, c.claimed) for c in report.claims]


def test_a_formula_claimed_for_a_derivative_through_a_kink(tmp_path):
    """A right formula is not compared symbolically (torch's convention at the tie is not a
    derivative); a wrong one is still shown wrong by a witness."""
    report = _check(tmp_path, "1", '{ formula = "mean_i((max(w*x_i, 1) - y_i)*x_i*'
                    '(1 + sign(w*x_i - 1))/2)" }')
    c = report.claims[0]
    assert c.status == "undecided"
    assert "derivative through a kink" in c.diagnosis.explanation
    report = _check(tmp_path, "1", '{ formula = "mean_i((max(w*x_i, 1) - y_i)*x_i)" }')
    assert report.claims[0].status == "wrong"


def test_pi_is_not_a_name_an_author_may_give(tmp_path):
    path = tmp_path / "pi.toml"
    path.write_text(EXERCISE.format(w="1", claim='"0"').replace("lr = 0.1", "pi = 3"))
    with pytest.raises(InputError, match="'pi' is a reserved name"):
        check_exercise(load_file(path)[0])
