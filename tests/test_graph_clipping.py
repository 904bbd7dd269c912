"""`clipping` on the derivation graph: every node's formula and its substituted lines in LaTeX,
written by hand in the course's notation (g_{k,j}, ‖g_k‖, clip(g_k), ḡ, w_k, c, ε); every
mistake diagnosed by name from its own example; values against plain Fraction arithmetic."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.recipes import RECIPES
from derive.render.working import Working, formula_tex

R, I = sp.Rational, sp.Integer
CLIP = RECIPES["clipping"]


def _given(**kw):
    base = {i.name: None for i in CLIP.inputs}
    base.update(kw)
    return base


def _ints(v):
    return [_ints(x) for x in v] if isinstance(v, list) else sp.sympify(v)


VEC = _given(gradients=_ints([[3, 4], [1, 1]]), max_norm=I(1))
FULL = _given(gradients=_ints([[3, 4], [1, 1]]), max_norm=I(1), eps=R(1, 10**6),
              loss_scale=I(1024))
AMP = _given(gradients=_ints([[[3, 0], [4]], [[3, 0], [-4]]]), max_norm=I(1), loss_scale=I(1024))
NUM = _given(gradients=_ints([10, -8]), max_norm=I(1))
NUM_EPS = _given(gradients=_ints([10, -8]), max_norm=I(1), eps=R(1, 10**6))
VAL = _given(gradients=[[I(3), I(-4)], [R(1, 2), I(2)]], clip_value=I(1))
NUM_VAL = _given(gradients=_ints([10, -8]), clip_value=I(1), weights=[R(1, 4), R(3, 4)])
LONG = _given(gradients=[[I(n) for n in range(1, 9)]], max_norm=I(1))
CONFIGS = (VEC, FULL, AMP, NUM, NUM_EPS, VAL, NUM_VAL, LONG)

MAX_EPS = r"\max\left(c, \lVert g_{k}\rVert + \varepsilon\right)"

# (given, node, `head = formula` as the course writes it) — by hand; every node of every shape
FORMULAS = [
    (FULL, "microbatch_norms", r"\lVert g_{k}\rVert = \sqrt{\sum_{j=1}^{d} g_{k,j}^{2}}"),
    (NUM, "microbatch_norms", r"\lVert g_{k}\rVert = \left|g_{k}\right|"),
    (FULL, "microbatch_coefficients", rf"s_{{k}} = \frac{{c}}{{{MAX_EPS}}}"),
    (VEC, "microbatch_coefficients",
     r"s_{k} = \frac{c}{\max\left(c, \lVert g_{k}\rVert\right)}"),
    (FULL, "clipped_gradients", r"\operatorname{clip}\left(g_{k}\right) = s_{k} \cdot g_{k}"),
    (VAL, "clipped_gradients",
     r"\operatorname{clip}\left(g_{k}\right) = \max\left(-c, \min\left(c, g_{k}\right)\right)"),
    (NUM_VAL, "clipped_gradients",
     r"\operatorname{clip}\left(g_{k}\right) = \max\left(-c, \min\left(c, g_{k}\right)\right)"),
    (FULL, "clip_then_mean",
     r"\tilde{g} = \sum_{k=1}^{K} w_{k} \cdot \operatorname{clip}\left(g_{k}\right)"),
    (NUM, "clip_then_mean",
     r"\tilde{g} = \sum_{k=1}^{K} w_{k} \cdot \operatorname{clip}\left(g_{k}\right)"),
    (FULL, "mean_gradient", r"\bar{g} = \sum_{k=1}^{K} w_{k} \cdot g_{k}"),
    (NUM, "mean_gradient", r"\bar{g} = \sum_{k=1}^{K} w_{k} \cdot g_{k}"),
    (FULL, "mean_norm", r"\lVert \bar{g}\rVert = \sqrt{\sum_{j=1}^{d} \bar{g}_{j}^{2}}"),
    (NUM, "mean_norm", r"\lVert \bar{g}\rVert = \left|\bar{g}\right|"),
    (FULL, "mean_coefficient",
     r"\bar{s} = \frac{c}{\max\left(c, \lVert \bar{g}\rVert + \varepsilon\right)}"),
    (FULL, "mean_then_clip", r"\operatorname{clip}\left(\bar{g}\right) = \bar{s} \cdot \bar{g}"),
    (VAL, "mean_then_clip",
     r"\operatorname{clip}\left(\bar{g}\right) = \max\left(-c, \min\left(c, \bar{g}\right)\right)"),
    (FULL, "scaled_mean_gradient", r"\bar{g}_{S} = S \cdot \bar{g}"),
    (FULL, "scaled_norm",
     r"\lVert \bar{g}_{S}\rVert = \sqrt{\sum_{j=1}^{d} \bar{g}_{S,j}^{2}}"),
    (FULL, "scaled_coefficient",
     r"s_{S} = \frac{c}{\max\left(c, \lVert \bar{g}_{S}\rVert + \varepsilon\right)}"),
    (FULL, "clipped_scaled_gradient",
     r"\operatorname{clip}\left(\bar{g}_{S}\right) = s_{S} \cdot \bar{g}_{S}"),
    (FULL, "clip_scaled_then_unscale",
     r"\hat{g} = \frac{\operatorname{clip}\left(\bar{g}_{S}\right)}{S}"),
]


def _col(*rows: str) -> str:
    return r"\begin{pmatrix} " + r" \\ ".join(rows) + r" \end{pmatrix}"


S2 = r"\frac{\sqrt{2}}{2}"
S41 = r"\frac{2\sqrt{41}}{41}"  # the reader form: a number against its root

# (given, node, the working's lines after the general formula) — by hand
WORKING = [
    (VEC, "microbatch_norms", [r"\lVert g_{1}\rVert = \sqrt{3^{2} + 4^{2}}",
                               r"\lVert g_{2}\rVert = \sqrt{1^{2} + 1^{2}}"]),
    (NUM, "microbatch_norms", [r"\lVert g_{1}\rVert = \left|10\right|",
                               r"\lVert g_{2}\rVert = \left|-8\right|"]),
    (VEC, "microbatch_coefficients", [r"s_{1} = \frac{1}{\max\left(1, 5\right)}",
                                      r"s_{2} = \frac{1}{\max\left(1, \sqrt{2}\right)}"]),
    (NUM_EPS, "microbatch_coefficients", [r"s_{1} = \frac{1}{\max\left(1, 10 + 0.000001\right)}",
                                          r"s_{2} = \frac{1}{\max\left(1, 8 + 0.000001\right)}"]),
    (VEC, "clipped_gradients", [
        r"\operatorname{clip}\left(g_{1}\right) = 0.2 \cdot " + _col("3", "4"),
        rf"\operatorname{{clip}}\left(g_{{2}}\right) = {S2} \cdot " + _col("1", "1")]),
    (NUM, "clipped_gradients", [r"\operatorname{clip}\left(g_{1}\right) = 0.1 \cdot 10",
                                r"\operatorname{clip}\left(g_{2}\right) = 0.125 \cdot \left(-8\right)"]),
    (VAL, "clipped_gradients", [
        r"\operatorname{clip}\left(g_{1}\right) = \max\left(-1, \min\left(1, "
        + _col("3", "-4") + r"\right)\right)",
        r"\operatorname{clip}\left(g_{2}\right) = \max\left(-1, \min\left(1, "
        + _col("0.5", "2") + r"\right)\right)"]),
    (VEC, "clip_then_mean", [
        r"\tilde{g} = \sum_{k=1}^{K} w_{k} \cdot \operatorname{clip}\left(g_{k}\right) = "
        r"0.5 \cdot " + _col("0.6", "0.8") + r" + 0.5 \cdot " + _col(S2, S2)]),
    (VEC, "mean_gradient", [r"\bar{g} = \sum_{k=1}^{K} w_{k} \cdot g_{k} = 0.5 \cdot "
                            + _col("3", "4") + r" + 0.5 \cdot " + _col("1", "1")]),
    (NUM_VAL, "mean_gradient", [
        r"\bar{g} = \sum_{k=1}^{K} w_{k} \cdot g_{k} = 0.25 \cdot 10 + 0.75 \cdot \left(-8\right)"]),
    (VEC, "mean_norm", [
        r"\lVert \bar{g}\rVert = \sqrt{\sum_{j=1}^{d} \bar{g}_{j}^{2}} = \sqrt{2^{2} + 2.5^{2}}"]),
    (VEC, "mean_coefficient", [r"\bar{s} = \frac{c}{\max\left(c, \lVert \bar{g}\rVert\right)} = "
                               r"\frac{1}{\max\left(1, \frac{\sqrt{41}}{2}\right)}"]),
    (VEC, "mean_then_clip", [r"\operatorname{clip}\left(\bar{g}\right) = \bar{s} \cdot \bar{g} = "
                             + rf"{S41} \cdot " + _col("2", "2.5")]),
    (NUM_VAL, "mean_then_clip", [
        r"\operatorname{clip}\left(\bar{g}\right) = \max\left(-c, \min\left(c, \bar{g}\right)\right)"
        r" = \max\left(-1, \min\left(1, -3.5\right)\right)"]),
    (AMP, "scaled_mean_gradient", [r"\bar{g}_{S} = S \cdot \bar{g} = 1024 \cdot "
                                   + _col("3", "0", "0")]),
    (AMP, "scaled_norm", [r"\lVert \bar{g}_{S}\rVert = \sqrt{\sum_{j=1}^{d} \bar{g}_{S,j}^{2}} = "
                          r"\sqrt{3072^{2} + 0^{2} + 0^{2}}"]),
    (AMP, "scaled_coefficient", [
        r"s_{S} = \frac{c}{\max\left(c, \lVert \bar{g}_{S}\rVert\right)} = "
        r"\frac{1}{\max\left(1, 3072\right)}"]),
    (AMP, "clipped_scaled_gradient", [
        r"\operatorname{clip}\left(\bar{g}_{S}\right) = s_{S} \cdot \bar{g}_{S} = "
        r"\frac{1}{3072} \cdot " + _col("3072", "0", "0")]),
    (AMP, "clip_scaled_then_unscale", [
        r"\hat{g} = \frac{\operatorname{clip}\left(\bar{g}_{S}\right)}{S} = \frac{"
        + _col("1", "0", "0") + "}{1024}"]),
    # a long vector: its first three entries, ⋮ and the last
    (LONG, "mean_gradient", [r"\bar{g} = \sum_{k=1}^{K} w_{k} \cdot g_{k} = 1 \cdot "
                             + _col("1", "2", "3", r"\vdots", "8")]),
]


def _nodes(given_) -> set[str]:
    return {n.name for n in Working(CLIP, given_).graph.nodes}


def test_the_tables_cover_every_node():
    every = set().union(*map(_nodes, CONFIGS))
    assert {name for _, name, _ in FORMULAS} == every
    assert {name for _, name, _ in WORKING} == every


@pytest.mark.parametrize("given_,name,want", FORMULAS,
                         ids=[f"{n}-{i}" for i, (_, n, _) in enumerate(FORMULAS)])
def test_formula(given_, name, want):
    assert formula_tex(CLIP, given_, name) == want


@pytest.mark.parametrize("given_,name,want", WORKING,
                         ids=[f"{n}-{i}" for i, (_, n, _) in enumerate(WORKING)])
def test_substituted(given_, name, want):
    lines = [text for text, _ in Working(CLIP, given_).lines(name)]
    assert (lines if len(lines) == 1 else lines[1:]) == want


def test_every_node_has_words_in_every_shape():
    for given_ in CONFIGS:
        for name in _nodes(given_):
            en, zh = CLIP.words_of(name)
            assert en and zh, name


def test_values_of_the_course_examples():
    got = CLIP.evaluate(VEC)
    assert got["mean_gradient"] == [2, R(5, 2)]
    assert got["clipped_gradients"] == [[R(3, 5), R(4, 5)], [sp.sqrt(2) / 2, sp.sqrt(2) / 2]]
    assert got["mean_then_clip"] == [4 / sp.sqrt(41), 5 / sp.sqrt(41)]
    amp = CLIP.evaluate(AMP)  # several tensors keep their nesting
    assert amp["clipped_gradients"] == [[[R(3, 5), 0], [R(4, 5)]], [[R(3, 5), 0], [R(-4, 5)]]]
    assert amp["clip_scaled_then_unscale"] == [[R(1, 1024), 0], [0]]
    assert CLIP.evaluate(NUM_EPS)["mean_then_clip"] == R(10**6, 10**6 + 1)
    zero = _given(gradients=_ints([[0, 0], [3, 4]]), max_norm=I(1))  # no division by zero
    assert CLIP.evaluate(zero)["clipped_gradients"] == [[0, 0], [R(3, 5), R(4, 5)]]


def _toml(example) -> str:
    def value(v):
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return f'"{v}"'
    lines = ["[[exercise]]", 'id = "example"', 'recipe = "clipping"', "[exercise.given]"]
    lines += [f"{k} = {value(v)}" for k, v in example.given.items()]
    lines += ["[exercise.claims]"] + [f"{k} = {value(v)}" for k, v in example.claims.items()]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("mistake", CLIP.mistakes, ids=[m.name for m in CLIP.mistakes])
def test_every_mistake_is_diagnosed_by_name(mistake, tmp_path):
    assert mistake.doc and mistake.zh and mistake.example is not None
    path = tmp_path / "example.toml"
    path.write_text(_toml(mistake.example), encoding="utf-8")
    report = check_exercise(load_file(path)[0])
    claim = next(c for c in report.claims if c.name == mistake.target)
    assert claim.status == "wrong"
    assert claim.diagnosis.mistake == mistake.name, claim.diagnosis.explanation


def test_the_course_mistakes_are_there():
    assert {m.name for m in CLIP.mistakes} >= {"clip_then_mean", "clip_scaled_then_unscale",
                                               "mean_then_clip_without_eps",
                                               "mean_gradient_equal_weights"}


# ------------------------------------------------------------------- against plain Fractions

TRIPLES = [(3, 4), (4, 3), (5, 12), (8, 15), (0, 1), (0, 0), (-3, 4), (6, -8)]
ratio = st.fractions(min_value=-3, max_value=3, max_denominator=4)


def _norm_clip(g: list[F], c: F) -> list[F]:
    """Norm clipping of a vector whose norm is rational (a multiple of a Pythagorean pair)."""
    n = _sqrt(sum(x * x for x in g))
    return g if n <= c else [c / n * x for x in g]


def _sqrt(q: F) -> F:
    num, den = sp.sqrt(q.numerator), sp.sqrt(q.denominator)
    assert num.is_Integer and den.is_Integer, q
    return F(int(num), int(den))


def _mean(ws, vs):
    return [sum((w * v[j] for w, v in zip(ws, vs)), F(0)) for j in range(len(vs[0]))]


def _frac(v):
    return [_frac(x) for x in v] if isinstance(v, list) else F(int(sp.fraction(v)[0]),
                                                                int(sp.fraction(v)[1]))


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(st.sampled_from(TRIPLES), ratio), min_size=1, max_size=4),
       c=st.fractions(min_value=F(1, 4), max_value=10, max_denominator=4),
       raw=st.lists(st.integers(0, 4), min_size=4, max_size=4))
def test_norm_clipping_against_fractions(pairs, c, raw):
    """Per-microbatch norms are rational (t·(a, b) with a² + b² a square); the mean's norm is
    compared through squares: clip(ḡ)_j² = min(1, c²/‖ḡ‖²)·ḡ_j², same sign as ḡ_j."""
    gs = [[t * a, t * b] for (a, b), t in pairs]
    ks = raw[:len(gs)]
    ws = [F(x, sum(ks)) for x in ks] if sum(ks) else [F(1, len(gs))] * len(gs)
    got = CLIP.evaluate(_given(gradients=[[sp.Rational(x.numerator, x.denominator) for x in g]
                                          for g in gs],
                               max_norm=sp.Rational(c.numerator, c.denominator),
                               weights=[sp.Rational(w.numerator, w.denominator) for w in ws]))
    clipped = [_norm_clip(g, c) for g in gs]
    assert _frac(got["clipped_gradients"]) == clipped
    assert _frac(got["clip_then_mean"]) == _mean(ws, clipped)
    mean = _mean(ws, gs)
    assert _frac(got["mean_gradient"]) == mean
    square = sum(x * x for x in mean)
    factor = F(1) if square <= c * c else c * c / square
    for g, m in zip(got["mean_then_clip"], mean):
        assert sp.expand(g ** 2) == sp.Rational((factor * m * m).numerator,
                                                   (factor * m * m).denominator)
        assert (g > 0) == (m > 0) and (g < 0) == (m < 0)


@settings(max_examples=60, deadline=None)
@given(gs=st.lists(st.lists(ratio, min_size=2, max_size=2), min_size=1, max_size=4),
       c=st.fractions(min_value=F(1, 4), max_value=3, max_denominator=4))
def test_value_clipping_against_fractions(gs, c):
    got = CLIP.evaluate(_given(gradients=[[sp.Rational(x.numerator, x.denominator) for x in g]
                                          for g in gs],
                               clip_value=sp.Rational(c.numerator, c.denominator)))
    clip = lambda x: max(-c, min(x, c))  # noqa: E731
    ws = [F(1, len(gs))] * len(gs)
    assert _frac(got["clipped_gradients"]) == [[clip(x) for x in g] for g in gs]
    assert _frac(got["clip_then_mean"]) == _mean(ws, [[clip(x) for x in g] for g in gs])
    assert _frac(got["mean_then_clip"]) == [clip(x) for x in _mean(ws, gs)]


def _file(tmp_path, given: str, claims: str):
    path = tmp_path / "settings.toml"
    path.write_text('[[exercise]]\nid = "s"\nrecipe = "clipping"\n[exercise.given]\n'
                    f"{given}\n[exercise.claims]\n{claims}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("given, claim", [
    ('gradients = [[3, 4]]\nmax_norm = -1\neps = "1e-6"',
     'mean_then_clip = ["-3000000/5000001", "-4000000/5000001"]'),
    ('gradients = [[3, 4]]\nmax_norm = 0\neps = "1e-6"', "mean_then_clip = [0, 0]"),
    ('gradients = [[3, -4]]\nclip_value = 0', "mean_then_clip = [0, 0]"),
])
def test_settings_torch_accepts_are_written_and_checked(given, claim, tmp_path):
    """max_norm 0 or negative (with eps) and clip_value 0, from an exercise file."""
    report = check_exercise(load_file(_file(tmp_path, given, claim))[0])
    assert [c.status for c in report.claims] == ["exact"]


@pytest.mark.parametrize("given, claim", [
    ("gradients = [1]\nmax_norm = 0", "mean_then_clip = 0"),
    ("gradients = [[3, 4], [1, 0]]\nmax_norm = 0", "clip_then_mean = [0, 0]"),
    ("gradients = [[3, 4]]\nmax_norm = -1", 'mean_then_clip = ["-3/5", "-4/5"]'),
])
def test_max_norm_zero_or_negative_without_eps_is_computed(given, claim, tmp_path):
    """torch zeroes every gradient for max_norm 0 (0/(‖g‖ + 1e-6) is 0) and flips it for a
    negative one; without ε the course's c/max(c, ‖g‖) does the same wherever ‖g‖ > 0."""
    report = check_exercise(load_file(_file(tmp_path, given, claim))[0])
    assert [c.status for c in report.claims] == ["exact"]


@pytest.mark.parametrize("gradients, which", [
    ("[[0, 0], [1, 0]]", "microbatch gradient 1 is 0"),
    ("[[1, 0], [-1, 0]]", "the mean gradient is 0"),
    ("[0]", "microbatch gradient 1 is 0"),
])
def test_max_norm_zero_without_eps_is_refused_only_where_it_divides_by_zero(
        gradients, which, tmp_path):
    from derive.exercises.errors import ExerciseError
    with pytest.raises(ExerciseError, match=rf"max_norm.*{which}.*1e-6"):
        check_exercise(load_file(_file(tmp_path, f"gradients = {gradients}\nmax_norm = 0",
                                       "clip_then_mean = 0"))[0])


def test_norm_type_one_from_a_file(tmp_path):
    """norm_type = 1: ‖(3, −4)‖₁ = 7, so max_norm 1 scales by 1/7."""
    path = _file(tmp_path, "gradients = [[3, -4]]\nmax_norm = 1\nnorm_type = 1",
                 'mean_then_clip = ["3/7", "-4/7"]')
    assert [c.status for c in check_exercise(load_file(path)[0]).claims] == ["exact"]


@pytest.mark.parametrize("given, claim", [
    ('gradients = [[3, -4], [1, 0]]\nmax_norm = 1\nnorm_type = "inf"',
     'clip_then_mean = ["7/8", "-1/2"]'),
    ('gradients = [3, -4]\nmax_norm = 1\nnorm_type = "inf"', 'clip_then_mean = 0'),
])
def test_norm_type_inf_from_a_file(given, claim, tmp_path):
    """norm_type "inf": the norm is max_j |g_j| (|g| for numbers)."""
    path = _file(tmp_path, given, claim)
    assert [c.status for c in check_exercise(load_file(path)[0]).claims] == ["exact"]


def test_norm_type_is_positive_or_inf(tmp_path):
    from derive.exercises.errors import ExerciseError
    for bad in ("0", '"-inf"', '"infinity"'):
        with pytest.raises(ExerciseError, match="norm_type"):
            load_file(_file(tmp_path, f"gradients = [1]\nmax_norm = 1\nnorm_type = {bad}",
                            "mean_then_clip = 1"))
