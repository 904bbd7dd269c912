"""The derivation graph: each quantity's formula and substituted line in LaTeX, written by hand
against the course's notation, and every catalogued mistake diagnosed by name from its own
example."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.recipes import RECIPES
from derive.render.working import Working, formula_tex

R = sp.Rational


def _given(**kw):
    base = {"w": None, "lr": None, "records": None, "b": None, "loss": None}
    base.update(kw)
    return base


ONE = _given(w=sp.Integer(1), lr=R(1, 10), records=[[sp.Integer(2), sp.Integer(4)]])
TWO_B = _given(w=sp.Integer(1), lr=R(1, 10), b=R(1, 2),
               records=[[sp.Integer(2), sp.Integer(4)], [sp.Integer(-1), sp.Integer(3)]])
SQUARED = {**ONE, "loss": "squared"}

# (recipe, given, quantity, formula line) — written by hand in the course's notation
FORMULAS = [
    ("sgd_step", ONE, "prediction", r"\hat{y}_{i} = w \cdot x_{i}"),
    ("sgd_step", TWO_B, "prediction", r"\hat{y}_{i} = w \cdot x_{i} + b"),
    ("sgd_step", ONE, "record_loss", r"\ell_{i} = \frac{1}{2} \left(\hat{y}_{i} - y_{i}\right)^{2}"),
    ("sgd_step", SQUARED, "record_loss", r"\ell_{i} = \left(\hat{y}_{i} - y_{i}\right)^{2}"),
    ("sgd_step", ONE, "loss", r"L = \frac{1}{N} \sum_{i=1}^{N} \ell_{i}"),
    ("sgd_step", ONE, "record_gradient",
     r"\frac{\partial \ell_{i}}{\partial w} = \left(\hat{y}_{i} - y_{i}\right) \cdot x_{i}"),
    ("sgd_step", SQUARED, "record_gradient",
     r"\frac{\partial \ell_{i}}{\partial w} = \left(2 \cdot \hat{y}_{i} - 2 \cdot y_{i}\right) \cdot x_{i}"),
    ("sgd_step", ONE, "gradient", r"g = \frac{1}{N} \sum_{i=1}^{N} \frac{\partial \ell_{i}}{\partial w}"),
    ("sgd_step", TWO_B, "record_b_gradient", r"\frac{\partial \ell_{i}}{\partial b} = \hat{y}_{i} - y_{i}"),
    ("sgd_step", TWO_B, "b_gradient", r"g_{b} = \frac{1}{N} \sum_{i=1}^{N} \frac{\partial \ell_{i}}{\partial b}"),
    ("sgd_step", ONE, "w_new", r"w' = w - \eta \cdot g"),
    ("sgd_step", TWO_B, "b_new", r"b' = b - \eta \cdot g_{b}"),
    ("sgd_step", TWO_B, "prediction_new", r"\hat{y}'_{i} = w' \cdot x_{i} + b'"),
    ("sgd_step", ONE, "record_loss_new", r"\ell'_{i} = \frac{1}{2} \left(\hat{y}'_{i} - y_{i}\right)^{2}"),
    ("sgd_step", ONE, "loss_new", r"L' = \frac{1}{N} \sum_{i=1}^{N} \ell'_{i}"),
]

# (recipe, given, quantity, the working's lines after the general formula) — by hand
WORKING = [
    ("sgd_step", TWO_B, "prediction", [r"\hat{y}_{1} = 1 \cdot 2 + 0.5", r"\hat{y}_{2} = 1 \cdot \left(-1\right) + 0.5"]),
    ("sgd_step", TWO_B, "record_loss", [r"\ell_{1} = \frac{1}{2} \left(2.5 - 4\right)^{2}",
                                        r"\ell_{2} = \frac{1}{2} \left(-0.5 - 3\right)^{2}"]),
    ("sgd_step", TWO_B, "loss", [r"L = \frac{1}{N} \sum_{i=1}^{N} \ell_{i} = \frac{1}{2} \left(1.125 + 6.125\right)"]),
    ("sgd_step", TWO_B, "record_gradient", [
        r"\frac{\partial \ell_{1}}{\partial w} = \left(2.5 - 4\right) \cdot 2",
        r"\frac{\partial \ell_{2}}{\partial w} = \left(-0.5 - 3\right) \cdot \left(-1\right)"]),
    ("sgd_step", TWO_B, "w_new", [r"w' = w - \eta \cdot g = 1 - 0.1 \cdot 0.25"]),
    ("sgd_step", TWO_B, "b_new", [r"b' = b - \eta \cdot g_{b} = 0.5 - 0.1 \cdot \left(-2.5\right)"]),
]

# Fraction-free hand values of TWO_B: ŷ = 2.5, −0.5; ℓ = 1.125, 6.125; ∂ℓ/∂w = −3, 3.5
HAND = {"prediction": [R(5, 2), R(-1, 2)], "loss": R(29, 8), "gradient": R(1, 4),
        "b_gradient": R(-5, 2), "w_new": R(39, 40), "b_new": R(3, 4)}


@pytest.mark.parametrize("recipe,given_,name,want", FORMULAS,
                         ids=[f"{r}-{n}-{i}" for i, (r, _, n, _) in enumerate(FORMULAS)])
def test_formula(recipe, given_, name, want):
    if RECIPES[recipe].quantity(name) is not None:
        assert formula_tex(RECIPES[recipe], given_, name) == want
    else:
        assert Working(RECIPES[recipe], given_).lines(name)[0][0] == want


@pytest.mark.parametrize("recipe,given_,name,want", WORKING,
                         ids=[f"{r}-{n}" for r, _, n, _ in WORKING])
def test_substituted(recipe, given_, name, want):
    work = Working(RECIPES[recipe], given_)
    lines = [text for text, _ in work.lines(name)]
    got = lines if len(lines) == 1 else lines[1:]
    assert got == want


def test_values_against_hand():
    values = RECIPES["sgd_step"].evaluate(TWO_B)
    for name, want in HAND.items():
        assert values[name] == want, name


def test_every_recipe_node_has_words():
    for recipe in RECIPES.values():
        if recipe.graph is None or recipe.name != "sgd_step":  # others: their own test file
            continue
        for combo in (ONE, TWO_B, SQUARED):
            for node in Working(recipe, combo).graph.nodes:
                en, zh = recipe.words_of(node.name)
                assert en and zh, node.name


MISTAKES = [(r.name, m) for r in RECIPES.values() for m in r.mistakes if m.example is not None]


def _toml(recipe: str, example) -> str:
    def value(v):
        if isinstance(v, dict):  # an inline table (a memory ledger)
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):  # an inline table (an optimizer)
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if v in ("true", "false"):
            return v
        return v if v.lstrip("-").replace(".", "").isdigit() else f'"{v}"'
    lines = ["[[exercise]]", 'id = "example"', f'recipe = "{recipe}"', "[exercise.given]"]
    lines += [f"{k} = {value(v)}" for k, v in example.given.items()]
    lines.append("[exercise.claims]")
    lines += [f"{k} = {value(v)}" for k, v in example.claims.items()]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("recipe,mistake", MISTAKES, ids=[m.name for _, m in MISTAKES])
def test_every_mistake_is_diagnosed_by_name_from_its_example(recipe, mistake, tmp_path):
    path = tmp_path / "example.toml"
    path.write_text(_toml(recipe, mistake.example), encoding="utf-8")
    exercises = load_file(path)
    report = check_exercise(exercises[0])
    claim = next(c for c in report.claims if c.name == mistake.target)
    assert claim.status == "wrong"
    assert claim.diagnosis is not None
    named = {claim.diagnosis.mistake, *claim.diagnosis.also}
    assert mistake.name in named, (claim.diagnosis.mistake, claim.diagnosis.explanation)


def test_graph_recipes_have_an_example_for_every_mistake():
    for recipe in RECIPES.values():
        if recipe.graph is not None:
            assert all(m.example is not None and m.zh for m in recipe.mistakes), recipe.name


small = st.integers(-20, 20).map(sp.Integer)


@settings(max_examples=60, deadline=None)
@given(w=small, b=st.one_of(st.none(), small), lr=st.integers(1, 9).map(lambda n: R(n, 10)),
       records=st.lists(st.tuples(small, small).map(list), min_size=1, max_size=4),
       squared=st.booleans())
def test_sgd_step_against_fractions(w, b, lr, records, squared):
    """The graph's values against plain Fraction arithmetic of the model, written here."""
    from fractions import Fraction as F
    given_ = _given(w=w, b=b, lr=lr, records=records, loss="squared" if squared else None)
    got = RECIPES["sgd_step"].evaluate(given_)
    c = F(1) if squared else F(1, 2)
    W, B, eta = F(int(w)), F(int(b)) if b is not None else F(0), F(int(lr.p), int(lr.q))
    n = len(records)
    preds = [W * int(x) + B for x, _ in records]
    loss = sum(c * (p - int(y)) ** 2 for p, (_, y) in zip(preds, records)) / n
    grad = sum(2 * c * (p - int(y)) * int(x) for p, (x, y) in zip(preds, records)) / n
    w1 = W - eta * grad
    assert got["loss"] == R(loss.numerator, loss.denominator)
    assert got["gradient"] == R(grad.numerator, grad.denominator)
    assert got["w_new"] == R(w1.numerator, w1.denominator)


from derive.graph import symbol as _symbol  # noqa: E402
from derive.render.formula_tex import formula, substituted  # noqa: E402

_a, _z, _q = _symbol("test_a", "a"), _symbol("test_z", "z"), _symbol("test_q", "q")

PRINTER = [  # (expression, values or None, LaTeX by hand)
    (sp.Add(_a, sp.Mul(-1, _z, _q, evaluate=False), evaluate=False), None, r"a - z \cdot q"),
    (_a - _z, {"test_a": 1, "test_z": -2}, r"1 - \left(-2\right)"),
    (_a * _z, {"test_a": R(-1, 2), "test_z": 3}, r"-0.5 \cdot 3"),
    (_z * _a, {"test_a": 3, "test_z": R(-1, 3)}, r"3 \cdot \left(-\frac{1}{3}\right)"),
    (_a / _z, None, r"\frac{a}{z}"),
    (sp.sqrt(_a), None, r"\sqrt{a}"),
    (sp.Min(1, _a / _z), None, r"\min\left(1, \frac{a}{z}\right)"),
    (-_a, {"test_a": -4}, r"-\left(-4\right)"),
    (_a ** 2, {"test_a": -3}, r"\left(-3\right)^{2}"),
]


@pytest.mark.parametrize("expr,values,want", PRINTER, ids=[p[2] for p in PRINTER])
def test_printer(expr, values, want):
    if values is None:
        assert formula(expr).text == want
    else:
        got = substituted(expr, lambda name, m: values.get(name) if m is None else None)
        assert got.text == want
