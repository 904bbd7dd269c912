"""The rule of evidence (derive/exercises/evidence.py, docs/diagnosis.md): a mistake is named
only when no other known mistake gives the same value; ties are listed, the declared and the
course's own first; a generic edit that alone fits is offered unless another wrong claim of
the exercise corroborates it. Each case is constructed on purpose, its values computed here by
hand with Fractions."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from derive.exercises import evidence
from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.render.labels import explanation

SWAP = """
[[exercise]]
id = "{id}"
recipe = "formulas"

[exercise.given]
w = 2
b = 0
records = {{ columns = ["x", "y"], rows = [{rows}] }}

[exercise.define]
r = "w*x_i + b - y_i"
gw = "mean_i(r_i*x_i)"
gb = "mean_i(r_i)"

[exercise.claims]
{claims}
"""

DECLARED = """
[[exercise]]
id = "two-declared"
recipe = "sgd_step"

[exercise.given]
w = 1
lr = 0.1
records = [[1, 2], [3, 6]]

[exercise.claims]
w_new = {w_new}

[[exercise.mistakes]]
name = "w_as_zero"
en = "w taken as 0"
zh = "把 w 当成 0"
given = {{ w = "0" }}

[[exercise.mistakes]]
name = "no_step"
en = "no step taken: the rate taken as 0"
zh = "没有走这一步:学习率当成 0"
given = {{ lr = "0" }}
"""


def _diagnoses(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "ex.toml"
    path.write_text(text, encoding="utf-8")
    (ex,) = load_file(path)
    return {c.name: c.diagnosis for c in check_exercise(ex).claims}


def _mean(xs):
    return sum(xs, F(0)) / len(xs)


def test_two_declared_mistakes_giving_one_value_are_a_tie(tmp_path):
    # g = mean((w·x − y)·x) over (1, 2), (3, 6): at w = 1 it is (−1 − 9)/2 = −5, w_new = 1.5;
    # at w = 0 it is (−2 − 18)/2 = −10 and w_new = 0 + 0.1·10 = 1; with lr = 0, w_new = w = 1
    g = lambda w: _mean([(w * x - y) * x for x, y in ((1, 2), (3, 6))])  # noqa: E731
    assert (g(1), 1 - F(1, 10) * g(1), 0 - F(1, 10) * g(0), 1 - 0 * g(1)) == (-5, F(3, 2), 1, 1)
    d = _diagnoses(tmp_path, DECLARED.format(w_new=1))["w_new"]
    assert d.mistake is None and d.certainty == "tied"
    assert d.candidates == ("w_as_zero", "no_step") == d.also  # in the order declared
    assert d.explanation == ("2 known mistakes give this value, so none is named: w_as_zero "
                             "(w taken as 0) or no_step (no step taken: the rate taken as 0)")
    assert explanation(d, "zh") == ("2 个已知错误都给出这个值,因此不指明其中之一:w_as_zero(把 w "
                                    "当成 0) 或 no_step(没有走这一步:学习率当成 0)")
    assert d.as_dict()["candidates"] == ["w_as_zero", "no_step"]
    assert d.as_dict()["certainty"] == "tied"


def test_a_course_mistake_and_a_generic_swap_tie_the_course_first(tmp_path):
    # w = 2, b = 0, records (1, 2), (3, 3): r = (0, 3), gb = 3/2; summed, not averaged, it is
    # 3; x and y swapped in r, r' = (2·2 − 1, 2·3 − 3) = (3, 3), mean 3: the same value
    r = [2 * x - y for x, y in ((1, 2), (3, 3))]
    swapped = [2 * y - x for x, y in ((1, 2), (3, 3))]
    assert (_mean(r), sum(r), _mean(swapped)) == (F(3, 2), 3, 3)
    d = _diagnoses(tmp_path, SWAP.format(id="tie", rows="[1, 2], [3, 3]",
                                         claims="gb = 3"))["gb"]
    assert d.mistake is None and d.certainty == "tied"
    assert d.candidates[0] == "gb_sum_for_mean"  # the course's own before any generic edit
    assert "r_swapped_x_y" in d.candidates
    assert "gb_sum_for_mean (gb: the sum for the mean (Σ not divided by N))" in d.explanation
    assert " or " in d.explanation


def test_a_generic_swap_alone_is_offered_not_named(tmp_path):
    # w = 2, records (1, 3), (2, 2): r = (−1, 2), gb = 1/2; swapped r' = (2·3 − 1, 2·2 − 2) =
    # (5, 2), gb' = 7/2, which nothing else gives
    rows = ((1, 3), (2, 2))
    assert _mean([2 * x - y for x, y in rows]) == F(1, 2)
    assert _mean([2 * y - x for x, y in rows]) == F(7, 2)
    d = _diagnoses(tmp_path, SWAP.format(id="alone", rows="[1, 3], [2, 2]",
                                         claims="gb = 3.5"))["gb"]
    assert d.mistake is None and d.certainty == "offered"
    assert d.candidates == ("r_swapped_x_y",) == d.also
    assert d.explanation.startswith("could be r_swapped_x_y: r: x_i and y_i swapped (a generic")
    assert explanation(d, "zh").startswith("可能是 r_swapped_x_y:r:x_i 与 y_i 互换了")


def test_the_same_swap_explaining_two_wrong_claims_is_named(tmp_path):
    # with r' = (5, 2): gb' = 7/2 and gw' = mean(5·1, 2·2) = 9/2 (right: 1/2 and
    # mean(−1·1, 2·2) = 3/2): one swap explains both, and is named at each
    rows = ((1, 3), (2, 2))
    swapped = [2 * y - x for x, y in rows]
    assert _mean([s * x for s, (x, _) in zip(swapped, rows)]) == F(9, 2)
    assert _mean([(2 * x - y) * x for x, y in rows]) == F(3, 2)
    ds = _diagnoses(tmp_path, SWAP.format(id="twice", rows="[1, 3], [2, 2]",
                                          claims="gw = 4.5\ngb = 3.5"))
    for name in ("gw", "gb"):
        assert ds[name].mistake == "r_swapped_x_y" and ds[name].certainty == "named"
        assert ds[name].candidates == ("r_swapped_x_y",) and ds[name].also == ()


def test_the_issues_planted_sum_is_shown_as_a_tie_in_check_and_json(tmp_path):
    """Issue 34: −5.5 planted as "summed, not averaged" was shown only as the other loss
    convention. Records (1, 3), (2, 4) at w = 1: g = ((1 − 3)·1 + (2 − 4)·2)/2 = −3; summed
    it is −6, the other convention −6 too."""
    rows = ((1, 3), (2, 4))
    assert _mean([(x - y) * x for x, y in rows]) == -3
    assert sum((x - y) * x for x, y in rows) == 2 * _mean([(x - y) * x for x, y in rows]) == -6
    path = tmp_path / "sum.toml"
    path.write_text('[[exercise]]\nid = "sum"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\n'
                    'lr = 0.1\nrecords = [[1, 3], [2, 4]]\n[exercise.claims]\ngradient = -6\n',
                    encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "derive", "check", str(path), "--format",
                          "json"], capture_output=True, text=True, check=False)
    (claim,) = json.loads(run.stdout)["exercises"][0]["claims"]
    d = claim["diagnosis"]
    assert d["mistake"] is None and d["certainty"] == "tied"
    assert d["candidates"] == ["gradient_other_convention", "gradient_sum"] == d["also"]
    text = subprocess.run([sys.executable, "-m", "derive", "check", str(path)],
                          capture_output=True, text=True, check=False).stdout
    assert "gradient_other_convention (" in text and ") or gradient_sum (" in text


def test_a_declared_mistake_in_a_tie_is_escaped_in_the_export(tmp_path):
    """The tie quotes the author's words: the export treats the whole sentence as author text
    (escaped), as it does a declared mistake named alone."""
    path = tmp_path / "ex.toml"
    path.write_text(DECLARED.format(w_new=1).replace("no step taken", "no $\\\\input step"),
                    encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "derive", "export", str(path), "--format",
                          "tex"], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert "\\input" not in out.stdout.replace("\\textbackslash{}input", "")
    assert "no\\_step" in out.stdout


_FIT = st.builds(evidence.Fit, st.sampled_from(["a", "b", "c", "d"]), st.just("words"),
                 st.just(""), st.sampled_from(evidence.ORIGINS))


@given(st.lists(_FIT, max_size=5, unique_by=lambda f: f.name),
       st.frozensets(st.sampled_from(["a", "b", "c", "d"])))
def test_weigh_names_only_an_uncontested_fit(fits, corroborated):
    got = evidence.weigh(fits, corroborated)
    if not fits:
        assert got is None
        return
    certainty, ordered = got
    assert sorted(f.name for f in ordered) == sorted(f.name for f in fits)
    ranks = [evidence.ORIGINS.index(f.origin) for f in ordered]
    assert ranks == sorted(ranks)  # declared, then the course's, then generic edits
    if len(fits) > 1:
        assert certainty == evidence.TIED
    elif fits[0].origin == evidence.GENERIC and fits[0].name not in corroborated:
        assert certainty == evidence.OFFERED
    else:
        assert certainty == evidence.NAMED


BRANCHES = """
[[exercise]]
id = "branches"
recipe = "formulas"

[exercise.given]
a = 3
b = 5

[exercise.define]
p = "2*a"
q = "p + 1"
r = "b - 1"

[exercise.claims]
p = {p}
q = {q}
r = {r}
"""


def test_an_unexplained_claim_names_only_a_wrong_quantity_it_is_computed_from(tmp_path):
    """"The first wrong quantity is p" said of r, which p does not feed, reads as the cause:
    the diagnosis names the first wrong quantity a claim is computed from, or says none is
    (p = 6, q = 7, r = 4 by hand; 11, 40 and 41 are values no mistake gives)."""
    d = _diagnoses(tmp_path, BRANCHES.format(p=11, q=40, r=41))
    assert d["p"].explanation.endswith("this is the first wrong quantity")
    assert d["q"].explanation.endswith("the first wrong quantity is p")  # q = p + 1
    assert d["r"].explanation == (
        "no known mistake gives this value; no earlier wrong quantity feeds it (the first "
        "wrong quantity, p, is not used in computing it)")
    assert explanation(d["r"], "zh") == (
        "没有已知错误给出这个值;没有更早的错误量参与它的计算(第一个错误的量 p 不用于计算它)")
    assert d["r"].first_wrong == "p"  # JSON's first_wrong stays the exercise's first
    d = _diagnoses(tmp_path, BRANCHES.format(p=6, q=40, r=41))  # p right: q's first wrong
    assert d["r"].explanation.endswith("the first wrong quantity is q") is False
    assert "q, is not used" in d["r"].explanation
