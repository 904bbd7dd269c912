"""`accumulation` on the derivation graph: every node's formula and a substituted line in LaTeX,
written by hand in the course's notation (n_k = |B_k|, Σ_{i∈B_k}, ∇L_k, α_k = n_k/N or t_k/T,
w' = w − η·g, w_k = w_{k−1} − η·g_k); every mistake diagnosed by name from its example (in
tests/test_graph.py, which runs every recipe's); the values against plain Fraction arithmetic."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.recipes import RECIPES
from derive.render.working import Working, formula_tex

R, I = sp.Rational, sp.Integer
ACC = RECIPES["accumulation"]


def _given(**kw):
    base = {"w": None, "lr": None, "microbatches": None, "microbatch_sizes": None,
            "microbatch_mean_gradients": None, "tokens": None, "divisor": None}
    base.update(kw)
    return base


# the reading's three records (1, 0), (2, 0), (3, 0) in microbatches of 2 and 1, d = 4
THREE = _given(w=I(1), lr=R(1, 10), divisor=I(4),
               microbatches=[[[I(1), I(0)], [I(2), I(0)]], [[I(3), I(0)]]])
# lesson03-ex2: sizes 2, 1 and means 3, 9 given, no w
SIZES = _given(microbatch_sizes=[I(2), I(1)], microbatch_mean_gradients=[I(3), I(9)])
# docs' token-mean: two sequences with 100 and 20 valid tokens
TOKENS = _given(w=I(1), lr=R(1, 10), microbatch_sizes=[I(1), I(1)],
                microbatch_mean_gradients=[I(1), I(7)], tokens=[I(100), I(20)])
TOKENS_RECORDS = {**THREE, "tokens": [I(10), I(5)]}

NL, NLk = r"\nabla \ell_{i}", r"\nabla L_{k}"

# (given, node, its formula line) — by hand
FORMULAS = [
    (THREE, "microbatch_sizes", r"n_{k} = \left|B_{k}\right|"),
    (SIZES, "microbatch_sizes", r"n_{k} = \left|B_{k}\right|"),
    (THREE, "records_total", r"N = \sum_{k=1}^{K} n_{k}"),
    (THREE, "prediction", r"\hat{y}_{i} = w \cdot x_{i}"),
    (THREE, "record_gradient", rf"{NL} = \left(\hat{{y}}_{{i}} - y_{{i}}\right) \cdot x_{{i}}"),
    (THREE, "microbatch_gradient_sums", rf"S_{{k}} = \sum_{{i \in B_{{k}}}} {NL}"),
    (SIZES, "microbatch_gradient_sums", rf"S_{{k}} = n_{{k}} \cdot {NLk}"),
    (TOKENS, "microbatch_gradient_sums", rf"S_{{k}} = t_{{k}} \cdot {NLk}"),
    (THREE, "microbatch_mean_gradients",
     rf"{NLk} = \frac{{1}}{{n_{{k}}}} \sum_{{i \in B_{{k}}}} {NL}"),
    (SIZES, "microbatch_mean_gradients", NLk),  # given: no definition to show
    (TOKENS, "tokens_total", r"T = \sum_{k=1}^{K} t_{k}"),
    (THREE, "weights", r"\alpha_{k} = \frac{n_{k}}{N}"),
    (TOKENS, "weights", r"\alpha_{k} = \frac{t_{k}}{T}"),
    (THREE, "gradient", rf"g = \sum_{{k=1}}^{{K}} \alpha_{{k}} \cdot {NLk}"),
    (THREE, "mean_of_means", rf"\bar{{g}} = \frac{{1}}{{K}} \sum_{{k=1}}^{{K}} {NLk}"),
    (THREE, "sum_of_means", rf"g_{{\Sigma}} = \sum_{{k=1}}^{{K}} {NLk}"),
    (THREE, "w_new", r"w' = w - \eta \cdot g"),
    (THREE, "w_new_mean_of_means", r"\bar{w}' = w - \eta \cdot \bar{g}"),
    (THREE, "w_new_sum_of_means", r"w'_{\Sigma} = w - \eta \cdot g_{\Sigma}"),
    (THREE, "micro_step_gradients", r"g_{k} = \frac{1}{n_{k}} \sum_{i \in B_{k}} "
     r"\left(w_{k - 1} \cdot x_{i} - y_{i}\right) \cdot x_{i}"),
    (THREE, "w_micro_steps", r"w_{k} = w_{k - 1} - \eta \cdot g_{k}"),
    (THREE, "divisor_gradient", rf"g_{{d}} = \frac{{1}}{{d}} \sum_{{k=1}}^{{K}} {NLk}"),
    (THREE, "w_new_divisor", r"w'_{d} = w - \eta \cdot g_{d}"),
]

# (given, node, the working's lines after the general formula) — by hand
WORKING = [
    (THREE, "microbatch_sizes", [r"n_{1} = \left|B_{1}\right|", r"n_{2} = \left|B_{2}\right|"]),
    (THREE, "records_total", [r"N = \sum_{k=1}^{K} n_{k} = 2 + 1"]),
    (THREE, "prediction", [r"\hat{y}_{1} = 1 \cdot 1", r"\hat{y}_{2} = 1 \cdot 2",
                           r"\hat{y}_{3} = 1 \cdot 3"]),
    (THREE, "record_gradient", [r"\nabla \ell_{1} = \left(1 - 0\right) \cdot 1",
                                r"\nabla \ell_{2} = \left(2 - 0\right) \cdot 2",
                                r"\nabla \ell_{3} = \left(3 - 0\right) \cdot 3"]),
    (THREE, "microbatch_gradient_sums", [r"S_{1} = 1 + 4", r"S_{2} = 9"]),
    (SIZES, "microbatch_gradient_sums", [r"S_{1} = 2 \cdot 3", r"S_{2} = 1 \cdot 9"]),
    (TOKENS, "microbatch_gradient_sums", [r"S_{1} = 100 \cdot 1", r"S_{2} = 20 \cdot 7"]),
    (THREE, "microbatch_mean_gradients", [r"\nabla L_{1} = \frac{1}{2} \left(1 + 4\right)",
                                          r"\nabla L_{2} = 9"]),
    (SIZES, "microbatch_mean_gradients", [r"\nabla L_{1}", r"\nabla L_{2}"]),
    (TOKENS, "tokens_total", [r"T = \sum_{k=1}^{K} t_{k} = 100 + 20"]),
    (THREE, "weights", [r"\alpha_{1} = \frac{2}{3}", r"\alpha_{2} = \frac{1}{3}"]),
    (TOKENS, "weights", [r"\alpha_{1} = \frac{100}{120}", r"\alpha_{2} = \frac{20}{120}"]),
    (THREE, "gradient", [r"g = \sum_{k=1}^{K} \alpha_{k} \cdot \nabla L_{k} = "
                         r"\frac{2}{3} \cdot 2.5 + \frac{1}{3} \cdot 9"]),
    (THREE, "mean_of_means", [r"\bar{g} = \frac{1}{K} \sum_{k=1}^{K} \nabla L_{k} = "
                              r"\frac{1}{2} \left(2.5 + 9\right)"]),
    (THREE, "sum_of_means", [r"g_{\Sigma} = \sum_{k=1}^{K} \nabla L_{k} = 2.5 + 9"]),
    (THREE, "w_new", [r"w' = w - \eta \cdot g = 1 - 0.1 \cdot \frac{14}{3}"]),
    (THREE, "w_new_mean_of_means", [r"\bar{w}' = w - \eta \cdot \bar{g} = 1 - 0.1 \cdot 5.75"]),
    (THREE, "w_new_sum_of_means", [r"w'_{\Sigma} = w - \eta \cdot g_{\Sigma} = "
                                   r"1 - 0.1 \cdot 11.5"]),
    (THREE, "micro_step_gradients", [
        r"g_{1} = \frac{1}{2} \left(\left(1 \cdot 1 - 0\right) \cdot 1 + "
        r"\left(1 \cdot 2 - 0\right) \cdot 2\right)",
        r"g_{2} = \left(0.75 \cdot 3 - 0\right) \cdot 3"]),
    (THREE, "w_micro_steps", [r"w_{0} = w = 1", r"w_{1} = 1 - 0.1 \cdot 2.5",
                              r"w_{2} = 0.75 - 0.1 \cdot 6.75"]),
    (THREE, "divisor_gradient", [r"g_{d} = \frac{1}{d} \sum_{k=1}^{K} \nabla L_{k} = "
                                 r"\frac{1}{4} \left(2.5 + 9\right)"]),
    (THREE, "w_new_divisor", [r"w'_{d} = w - \eta \cdot g_{d} = 1 - 0.1 \cdot 2.875"]),
]


def _id(g):
    return {id(THREE): "three", id(SIZES): "sizes", id(TOKENS): "tokens"}[id(g)]


@pytest.mark.parametrize("given_,name,want", FORMULAS,
                         ids=[f"{_id(g)}-{n}" for g, n, _ in FORMULAS])
def test_formula(given_, name, want):
    assert formula_tex(ACC, given_, name) == want


@pytest.mark.parametrize("given_,name,want", WORKING,
                         ids=[f"{_id(g)}-{n}" for g, n, _ in WORKING])
def test_substituted(given_, name, want):
    lines = [text for text, _ in Working(ACC, given_).lines(name)]
    node = Working(ACC, given_).graph.by_name[name]
    got = lines if node.over is None or len(lines) == len(want) else lines[1:]
    assert got == want


def test_every_node_has_a_formula_and_a_working_line():
    """The tables cover every node of every configuration."""
    covered = {n for _, n, _ in FORMULAS} & {n for _, n, _ in WORKING}
    for combo in (THREE, SIZES, TOKENS, TOKENS_RECORDS):
        for node in Working(ACC, combo).graph.nodes:
            assert node.name in covered, node.name
            en, zh = ACC.words_of(node.name)
            assert en and zh


def test_weights_without_tokens_do_not_mention_tokens():
    for combo in (THREE, SIZES):
        text = " ".join(t for t, _ in Working(ACC, combo).lines("weights"))
        assert "t_" not in text and "T" not in text and "token" not in text


def test_every_mistake_has_an_example_and_chinese():
    assert len(ACC.mistakes) == 15
    for m in ACC.mistakes:
        assert m.example is not None and m.zh, m.name
    wrong = {q.name for q in ACC.quantities if q.mistake_of}
    assert wrong <= {m.name for m in ACC.mistakes}


def test_the_course_values():
    v = ACC.evaluate(THREE)
    assert v["microbatch_sizes"] == [2, 1]
    assert v["microbatch_gradient_sums"] == [5, 9]
    assert v["microbatch_mean_gradients"] == [R(5, 2), 9]
    assert v["weights"] == [R(2, 3), R(1, 3)]
    assert v["gradient"] == R(14, 3) and v["w_new"] == R(8, 15)
    assert v["mean_of_means"] == R(23, 4) and v["w_new_mean_of_means"] == R(17, 40)
    assert v["micro_step_gradients"] == [R(5, 2), R(27, 4)]
    assert v["w_micro_steps"] == [R(3, 4), R(3, 40)]
    assert v["divisor_gradient"] == R(23, 8) and v["w_new_divisor"] == R(57, 80)
    t = ACC.evaluate(TOKENS)
    assert t["weights"] == [R(5, 6), R(1, 6)] and t["gradient"] == 2
    assert t["microbatch_gradient_sums"] == [100, 140]


def test_claimed_micro_step_gradients_carry_into_the_steps():
    """w_k = w_{k−1} − η·g_k reads the author's g_k (a recurrence through a claim)."""
    from derive.recipes.base import Context
    ctx = Context(ACC, THREE, {"micro_step_gradients": [I(1), I(2)]})
    assert ctx["w_micro_steps"] == [R(9, 10), R(7, 10)]


def test_a_long_recurrence_does_not_nest():
    mbs = [[[I(1), I(1)]]] * 3000
    v = ACC.evaluate(_given(w=I(0), lr=R(1, 2), microbatches=mbs))
    assert v["w_micro_steps"][-1] == 1 - R(1, 2) ** 3000


small = st.integers(-9, 9)


@settings(max_examples=60, deadline=None)
@given(w=small, lr=st.integers(1, 9), d=st.integers(1, 5),
       mbs=st.lists(st.lists(st.tuples(small, small), min_size=1, max_size=3),
                    min_size=1, max_size=4),
       tokens=st.one_of(st.none(), st.lists(st.integers(1, 50), min_size=4, max_size=4)))
def test_values_against_fractions(w, lr, d, mbs, tokens):
    """The graph's values against plain Fraction arithmetic of the model, written here:
    ℓ_i = (w·x_i − y_i)²/2, so ∇ℓ_i = (w·x_i − y_i)·x_i."""
    K = len(mbs)
    toks = tokens[:K] if tokens is not None else None
    given_ = _given(w=I(w), lr=R(lr, 10), divisor=I(d),
                    microbatches=[[[I(a), I(b)] for a, b in mb] for mb in mbs],
                    tokens=[I(t) for t in toks] if toks is not None else None)
    got = ACC.evaluate(given_)
    W, eta = F(w), F(lr, 10)

    def mean_grad(at, mb):
        return sum((at * x - y) * x for x, y in mb) / F(len(mb))
    sizes = [len(mb) for mb in mbs]
    means = [mean_grad(W, mb) for mb in mbs]
    units = toks if toks is not None else sizes
    weights = [F(u, sum(units)) for u in units]
    gradient = sum(a * m for a, m in zip(weights, means))
    steps, current, micro = [], W, []
    for mb in mbs:
        gk = mean_grad(current, mb)
        micro.append(gk)
        current = current - eta * gk
        steps.append(current)

    def same(a, b):
        if isinstance(b, list):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return a == R(b.numerator, b.denominator)
    assert same(got["microbatch_sizes"], [F(s) for s in sizes])
    assert same(got["microbatch_gradient_sums"], [u * m for u, m in zip(units, means)])
    assert same(got["microbatch_mean_gradients"], means)
    assert same(got["weights"], weights)
    assert same(got["gradient"], gradient)
    assert same(got["mean_of_means"], sum(means) / K)
    assert same(got["sum_of_means"], sum(means, F(0)))
    assert same(got["w_new"], W - eta * gradient)
    assert same(got["w_new_mean_of_means"], W - eta * sum(means) / K)
    assert same(got["micro_step_gradients"], micro)
    assert same(got["w_micro_steps"], steps)
    assert same(got["divisor_gradient"], sum(means, F(0)) / d)
    assert same(got["w_new_divisor"], W - eta * sum(means, F(0)) / d)
