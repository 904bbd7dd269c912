"""Resource bounds of JSON exact texts and of the evaluator's budget of work (red team: Adam
runs whose JSON grew quadratically to hundreds of MB; a wrong-claim diagnosis that spent the
budget the export's working then lacked, ending in an internal error)."""

from __future__ import annotations

import json
import time

import pytest
import sympy as sp

from derive.cli.main import main
from derive.graph import evaluate
from derive.kernel import dag
from derive.render.numbers import exact_text

ADAM = """[[exercise]]
id = "adam-json"
title = "Adam, fresh optimizer"
recipe = "optimizer_steps"
[exercise.given]
w = 1
lr = 0.01
records = [[2, 4]]
steps = {steps}
optimizer = {{ name = "adam" }}
[exercise.claims]
gradient_steps = [{{ value = -4, places = 1 }}]
"""

SGD = """[[exercise]]
id = "sgd-digits"
recipe = "optimizer_steps"
[exercise.given]
w = 1
lr = "0.123456789012345678901234567890123456789012345678901234567891"
records = [["0.314159265358979323846264338327950288419716939937510582097494", 2]]
steps = 40
[exercise.claims]
w_steps = [1]
"""


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _texts(value):
    return [t for v in value for t in _texts(v)] if isinstance(value, list) else [value]


@pytest.fixture
def adam(tmp_path):
    path = tmp_path / "adam.toml"
    path.write_text(ADAM.format(steps=12))
    return path


def test_json_within_budget_is_unchanged(adam, capsys, monkeypatch):
    code, out, _ = run(capsys, "check", adam, "--format", "json")
    assert code == 1  # the one claim is wrong: its expected value is written too
    doc = json.loads(out)["exercises"][0]
    exact = doc["quantities"]["gradient_steps"]["exact"]
    assert isinstance(exact, list) and all(isinstance(x, str) for x in exact)
    assert any("x1 = " in x for x in exact)  # shared subexpressions named, per element
    assert doc["claims"][0]["expected"] == exact
    total = sum(len(x) for q in doc["quantities"].values() for x in _texts(q["exact"]))
    monkeypatch.setattr("derive.limits.JSON_EXACT_CHARS", total + 2 * sum(map(len, exact)))
    assert json.loads(run(capsys, "check", adam, "--format", "json")[1]) == json.loads(out)


@pytest.mark.parametrize("command", ["check", "key"])
def test_json_past_budget_is_one_not_supported_line(adam, capsys, monkeypatch, command):
    monkeypatch.setattr("derive.limits.JSON_EXACT_CHARS", 20_000)
    code, out, err = run(capsys, command, adam, "--format", "json")
    assert code == 2 and out == ""
    line = err.strip()
    assert "\n" not in line and "internal error" not in line
    for part in (str(adam), "exercise 'adam-json': key '", "not supported", "20,000",
                 "--format text"):
        assert part in line


def test_text_check_is_not_bound_by_the_json_budget(adam, capsys, monkeypatch):
    monkeypatch.setattr("derive.limits.JSON_EXACT_CHARS", 10)
    code, out, _ = run(capsys, "check", adam)
    assert code == 1 and "1 wrong" in out


def test_budget_is_checked_while_the_text_is_built(monkeypatch):
    """Nothing longer than the budget is built: the refusal comes before, not after."""
    x = sp.sqrt(2)
    for _ in range(12):
        x = x + sp.sqrt(x + 1) * x
    full = dag.shared_str(x)
    built = []
    written = dag._written
    monkeypatch.setattr(dag, "_written", lambda n, t: built.append(written(n, t)) or built[-1])
    budget = dag.TextBudget(len(full) // 4)
    with pytest.raises(dag.TextTooLong):
        dag.shared_str(x, budget=budget)
    assert max(len(s) for s, _ in built) <= len(full) // 4
    assert dag.shared_str(x, budget=dag.TextBudget(len(full))) == full
    assert exact_text([x, sp.Rational(1, 3)], dag.TextBudget(len(full) + 3)) == [full, "1/3"]
    with pytest.raises(dag.TextTooLong):
        exact_text([x, sp.Rational(1, 3)], dag.TextBudget(len(full) + 2))


def test_check_json_writing_is_time_bound(adam, capsys, monkeypatch):
    from derive.render import formats

    def slow(*args, **kwargs):  # CPU time: the bound counts it, not waiting
        end = time.process_time() + 30
        while time.process_time() < end:
            pass
        return "{}"

    monkeypatch.setattr(formats, "render", slow)
    code, out, err = run(capsys, "check", adam, "--format", "json", "--time-limit", "1")
    assert code == 2 and out == "" and "time bound" in err and "nothing written" in err


# ------------------------------------------------------------------ the budget of work


@pytest.fixture
def sgd(tmp_path):
    path = tmp_path / "sgd.toml"
    path.write_text(SGD)
    return path


def test_working_has_a_budget_of_its_own(sgd, capsys, monkeypatch):
    """The key spends ~5.3 M bits, the working as many again: with a budget of 8 M, the
    export ended in `internal error … TooLarge` when the working inherited the key's count
    (red team: r1.toml, where the wrong-claim diagnosis had spent it)."""
    monkeypatch.setattr(evaluate, "MAX_WORK_BITS", 8_000_000)
    code, out, err = run(capsys, "export", sgd, "--format", "md")
    assert code == 0, err
    assert "sgd-digits" in out


def test_too_large_is_never_an_internal_error(sgd, capsys, monkeypatch):
    monkeypatch.setattr(evaluate, "MAX_WORK_BITS", 1_000_000)
    for argv in (["check", sgd], ["check", sgd, "--format", "json"], ["key", sgd],
                 ["export", sgd, "--format", "md"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "", argv
        assert "internal error" not in err and "\n" not in err.strip()
        assert f"{sgd}: exercise 'sgd-digits': not supported:" in err
        assert "give fewer steps" in err


def test_too_large_anywhere_else_is_one_not_supported_line(adam, capsys, monkeypatch):
    from derive.render import formats

    def refused(*args, **kwargs):
        raise evaluate.TooLarge("values of more than 1 bits in all")

    monkeypatch.setattr(formats, "render", refused)
    code, out, err = run(capsys, "key", adam)
    assert code == 2 and out == ""
    assert err.strip().endswith("not supported: a computation needs values of more than 1 "
                                "bits in all, past derive's bound on one computation; give "
                                "fewer steps or smaller givens")
