"""Named mutations of wrong formula answers (issue 24): a claimed formula that is exactly the
right formula with ½ dropped, the sign flipped, the mean taken as a sum, a term dropped or a
chain-rule factor dropped is named so; a different wrong formula is not, even where it equals
such a mutation at the exercise's own numbers. Names and words are written by hand from the
lesson: ℓ = (w·x + b − y)²/2, g = mean_i((w·x_i + b − y_i)·x_i)."""

from __future__ import annotations

import json

import pytest

from derive.cli.main import main
from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.render.labels import explanation

GIVEN = "w = 1\nb = 0\nlr = 0.1\nrecords = [[1, 2], [2, 3], [4, 1]]\n"


def _diagnosis(tmp_path, quantity: str, formula: str):
    path = tmp_path / "ex.toml"
    path.write_text(f'[[exercise]]\nid = "e"\nrecipe = "sgd_step"\n[exercise.given]\n{GIVEN}'
                    f'[exercise.claims]\n{quantity} = {{ formula = "{formula}" }}\n',
                    encoding="utf-8")
    (claim,) = check_exercise(load_file(path)[0]).claims
    assert claim.status == "wrong"
    return claim.diagnosis


NAMED = [
    ("loss", "mean_i((w*x_i + b - y_i)^2)", "loss_constant_dropped",
     "loss: the constant factor 1/2 dropped", "loss:漏掉了常数因子 1/2"),
    ("b_gradient", "mean_i(y_i - w*x_i - b)", "b_gradient_sign",
     "b_gradient: the sign flipped", "b_gradient:符号取反了"),
    ("gradient", "sum_i((w*x_i + b - y_i)*x_i)", "gradient_sum_for_mean",
     "gradient: the sum for the mean (Σ not divided by N)", "gradient:用求和代替了平均(没有除以 N)"),
    ("gradient", "mean_i((w*x_i - y_i)*x_i)", "gradient_term_dropped_b",
     "gradient: the term b dropped", "gradient:漏掉了项 b"),
    ("w_new", "w - lr*mean_i(w*x_i + b - y_i)", "w_new_factor_dropped_x",
     "w_new: the factor x_i dropped (a chain-rule factor forgotten)",
     "w_new:漏掉了因子 x_i(链式法则少乘了一项)"),
]


@pytest.mark.parametrize("quantity, formula, name, en, zh", NAMED)
def test_each_mutation_is_named(tmp_path, quantity, formula, name, en, zh):
    d = _diagnosis(tmp_path, quantity, formula)
    assert d.mistake == name
    assert d.explanation.startswith(en + "; at ")
    assert explanation(d, "zh").startswith(zh + ";在 ")
    assert d.witness is not None  # the counterexample is still given


NOT_NAMED = [
    # equal to the right gradient at w = 1, but w times it as a function: no mutation
    ("gradient", "w*mean_i((w*x_i + b - y_i)*x_i) + w - 1"),
    # equal to the sign flipped at w = 1 (the exercise's value), not as a function
    ("gradient", "-w*mean_i((w*x_i + b - y_i)*x_i)"),
    # the wrong factor: y_i for x_i (not a dropped or swapped factor)
    ("gradient", "mean_i((w*x_i + b - y_i)*y_i)"),
    # a factor x_i added to the bias's gradient: no mutation adds a factor
    ("b_new", "b - lr*mean_i((w*x_i + b - y_i)*x_i)"),
    # the constant 1/3 for 1/2: neither dropped, doubled nor halved
    ("loss", "mean_i((w*x_i + b - y_i)^2/3)"),
]


@pytest.mark.parametrize("quantity, formula", NOT_NAMED)
def test_a_different_wrong_formula_is_not_named(tmp_path, quantity, formula):
    d = _diagnosis(tmp_path, quantity, formula)
    assert d.mistake is None and d.also == ()
    assert d.explanation.startswith("at ")


def test_mutation_in_check_json(tmp_path, capsys):
    path = tmp_path / "cli.toml"
    path.write_text(f'[[exercise]]\nid = "e"\nrecipe = "sgd_step"\n[exercise.given]\n{GIVEN}'
                    '[exercise.claims]\nb_gradient = { formula = "mean_i(y_i - w*x_i - b)" }\n',
                    encoding="utf-8")
    assert main(["check", str(path), "--format", "json"]) == 1
    (claim,) = json.loads(capsys.readouterr().out)["exercises"][0]["claims"]
    d = claim["diagnosis"]
    assert d["mistake"] == "b_gradient_sign" and d["witness"]["claimed"] != d["witness"]["expected"]


LOGISTIC = """[[exercise]]
id = "logistic"
recipe = "formulas"
[exercise.given]
w = 0.25
b = -0.1
lr = 0.5
records = [[0.8415, 1], [-1.2203, 0], [0.3127, 1]]
[exercise.define]
z = "w*x_i + b"
p = "sigmoid(z_i)"
ell = "-(y_i*log(p_i) + (1 - y_i)*log(1 - p_i))"
loss = "mean_i(ell_i)"
[exercise.claims]
loss = {{ formula = "{formula}" }}
"""


def _logistic(tmp_path, formula: str):
    path = tmp_path / "logistic.toml"
    path.write_text(LOGISTIC.format(formula=formula), encoding="utf-8")
    (claim,) = check_exercise(load_file(path)[0]).claims
    assert claim.status == "wrong"
    return claim.diagnosis


def test_a_mean_taken_as_a_sum_through_sigmoid_and_log_is_named(tmp_path):
    # the values are logs of sigmoids (not rational): the mutations are told apart from the
    # claim by certified enclosures at the probe points, within the search's time bound
    d = _logistic(tmp_path, "sum_i(ell_i)")
    assert d.mistake == "loss_sum_for_mean"
    assert d.explanation.startswith("loss: the sum for the mean (Σ not divided by N); at ")


@pytest.mark.parametrize("formula", [
    "sum_i(ell_i)/2",            # neither the mean nor the sum
    "sum_i(ell_i) + ell_1",      # a record counted twice
    "mean_i(ell_i) + 1/1000",    # a constant off
])
def test_a_different_wrong_logistic_loss_is_not_named(tmp_path, formula):
    d = _logistic(tmp_path, formula)
    assert d.mistake is None and d.also == ()


def test_a_probe_tells_logs_apart_by_certified_enclosures():
    import sympy as sp

    from derive.exercises.formula_mistakes import _differ_at_probe
    from derive.kernel.functions import sigmoid
    w, x = sp.symbols("w x", real=True)
    ell = -sp.log(sigmoid(w * x))
    assert _differ_at_probe(ell, 3 * ell)
    assert not _differ_at_probe(ell, -sp.log(1 / (1 + sp.exp(-w * x))))  # equal: undecided
    assert not _differ_at_probe(sp.log(w - 10), 2 * sp.log(w - 10))  # undefined at the probes


def test_the_mutation_found_before_the_time_bound_is_named(tmp_path, monkeypatch):
    # the search stops at its bound while still looking for other mutations (for `also`):
    # the one already proved equal is named
    from derive.exercises import formula_mistakes
    from derive.kernel.timebound import DecisionTimeout
    every = formula_mistakes.mutations

    def then_out_of_time(graph, name):
        for v in every(graph, name):
            yield v
            if v.name == "gradient_sum_for_mean":
                raise DecisionTimeout("the bound")
    monkeypatch.setattr(formula_mistakes, "mutations", then_out_of_time)
    d = _diagnosis(tmp_path, "gradient", "sum_i((w*x_i + b - y_i)*x_i)")
    assert d.mistake == "gradient_sum_for_mean"
