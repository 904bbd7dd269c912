"""The course's own mistakes, named by the diagnosis (issue 14): a tail window or a tail
microbatch divided by the planned count or size, another ZeRO stage's rule, an error carried
forward from several earlier wrong claims at once, a value printed from binary floating point,
a tie rounded half to even. Every expected value here is worked by hand (Fractions), or comes
from Python's own float, round() and decimal module (what the author's program did)."""

from __future__ import annotations

import json
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from derive.cli.main import main
from derive.exercises import artefacts
from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.exercises.claims import Claim, judge, literal
from derive.exercises.diagnosis import (
    ALL_SUBSETS_UP_TO,
    MAX_CARRIED_SETS,
    _float_artefact,
    _half_to_even,
    carried_sets,
)
from derive.recipes import RECIPES, Context
from derive.recipes.accumulation import tail_gradients, tail_means
from derive.render.labels import explanation

R = sp.Rational


def _report(tmp_path, text: str, n: int = 0):
    path = tmp_path / "ex.toml"
    path.write_text(text, encoding="utf-8")
    return check_exercise(load_file(path)[n])


def _claims(report) -> dict:
    return {c.name: c for c in report.claims}


def _cli_json(tmp_path, capsys, text: str):
    path = tmp_path / "cli.toml"
    path.write_text(text, encoding="utf-8")
    code = main(["check", str(path), "--format", "json"])
    out, _ = capsys.readouterr()
    doc = json.loads(out)
    return code, {c["name"]: c for e in doc["exercises"] for c in e["claims"]}


def _exercise(recipe: str, given: str, claims: str) -> str:
    return (f'[[exercise]]\nid = "e"\nrecipe = "{recipe}"\n[exercise.given]\n{given}\n'
            f"[exercise.claims]\n{claims}\n")


# ------------------------------------------------------- carried forward from several claims

W_AND_B = _exercise("sgd_step", "w = 1\nb = 0\nlr = 0.1\nrecords = [[1, 2], [2, 3]]",
                    "w_new = 1.5\nb_new = 0.5\nloss_new = 0.0625")
"""By hand: gradient (−1·1 − 1·2)/2 = −3/2, so w_new = 23/20, b_new = 1/10 and loss_new =
((5/4 − 2)² + (12/5 − 3)²)/4 = 369/1600. From the author's w = 3/2, b = 1/2: errors 0 and 1/2,
loss (0 + 1/4)/4 = 1/16 = 0.0625; from w alone 0.0425, from b alone 0.040625."""


def test_loss_from_wrong_w_new_and_b_new_is_carried_from_both(tmp_path):
    by_hand = (Fraction(0) ** 2 + (Fraction(3, 2) * 2 + Fraction(1, 2) - 3) ** 2) / 4
    assert by_hand == Fraction(1, 16)
    claims = _claims(_report(tmp_path, W_AND_B))
    loss = claims["loss_new"]
    assert loss.status == "wrong" and loss.expected == R(369, 1600)
    d = loss.diagnosis
    assert d.carried_from == "w_new" and d.carried_from_all == ("w_new", "b_new")
    assert d.first_wrong == "w_new" and d.mistake is None
    assert "w_new and b_new together" in d.explanation
    assert explanation(d, "zh") == "由你错误的 w_new、b_new 一起正确推出:这些错误被带到了后面"


def test_several_carried_through_the_cli_json(tmp_path, capsys):
    code, claims = _cli_json(tmp_path, capsys, W_AND_B)
    assert code == 1
    d = claims["loss_new"]["diagnosis"]
    assert d["carried_from"] == "w_new" and d["carried_from_all"] == ["w_new", "b_new"]
    assert claims["w_new"]["diagnosis"]["carried_from_all"] == []


def test_the_smallest_set_is_named_among_more_wrong_claims(tmp_path):
    text = W_AND_B.replace("w_new = 1.5", "gradient = 7\nw_new = 1.5")
    d = _claims(_report(tmp_path, text))["loss_new"].diagnosis
    assert d.carried_from_all == ("w_new", "b_new") and d.first_wrong == "gradient"


def test_one_earlier_claim_is_still_named_alone(tmp_path):
    text = _exercise("sgd_step", "w = 1\nlr = 0.05\nrecords = [[2, 4]]",
                     "gradient = 4\nw_new = 0.8")  # by hand: 1 − 0.05·4
    d = _claims(_report(tmp_path, text))["w_new"].diagnosis
    assert d.carried_from == "gradient" and d.carried_from_all == ("gradient",)
    assert d.as_dict()["carried_from_all"] == ["gradient"]


def test_carried_sets_are_bounded():
    assert carried_sets(["a"]) == []
    assert carried_sets(["a", "b"]) == [("a", "b")]
    assert carried_sets(["a", "b", "c"]) == [("a", "b"), ("a", "c"), ("b", "c"),
                                             ("a", "b", "c")]
    six = list("abcdef")
    assert len(carried_sets(six)) == 2 ** 6 - 6 - 1 <= MAX_CARRIED_SETS
    seven = list("abcdefg")
    assert len(seven) > ALL_SUBSETS_UP_TO and carried_sets(seven) == [tuple(seven)]


# ------------------------------------------------------------------------ float artefacts

def test_a_sum_printed_by_python_is_a_float_artefact(tmp_path, capsys):
    printed = repr(0.1 * 1 + 0.2)  # the author's program: w·x + b in binary floating point
    assert printed == "0.30000000000000004"
    text = _exercise("sgd_step", "w = 0.1\nb = 0.2\nlr = 0.1\nrecords = [[1, 0]]",
                     f"prediction = {printed}")
    c = _claims(_report(tmp_path, text))["prediction"]
    assert c.status == "wrong" and c.expected == R(3, 10)
    d = c.diagnosis
    assert d.mistake == "float_artefact"
    assert "0.30000000000000004 is 0.3 as binary floating point prints it" in d.explanation
    assert "{ value = 0.30000000000000004, rel = 1e-12 }" in d.explanation
    zh = explanation(d, "zh")
    assert "二进制浮点数" in zh and "请写 0.3" in zh and "rel = 1e-12" in zh
    code, claims = _cli_json(tmp_path, capsys, text)
    assert code == 1
    j = claims["prediction"]["diagnosis"]
    assert j["mistake"] == "float_artefact"
    assert j["details"] == {"elements": [{"index": 0, "claimed": printed, "expected": "3/10",
                                          "write": "0.3"}], "suggest": "rel = 1e-12"}
    # the suggestion holds: the same value with its stated test passes
    fixed = text.replace(f"prediction = {printed}",
                         f"prediction = {{ value = {printed}, rel = 1e-12 }}")
    code, claims = _cli_json(tmp_path, capsys, fixed)
    assert code == 0 and claims["prediction"]["status"] == "within"


def test_a_list_names_its_float_artefact_elements(tmp_path):
    printed = [repr(0.1 * x + 0.2) for x in (2, 1, 4)]
    assert printed == ["0.4", "0.30000000000000004", "0.6000000000000001"]
    text = _exercise("sgd_step", "w = 0.1\nb = 0.2\nlr = 0.1\nrecords = [[2, 0], [1, 0], [4, 0]]",
                     f"prediction = [{', '.join(printed)}]")
    d = _claims(_report(tmp_path, text))["prediction"].diagnosis
    assert d.mistake == "float_artefact"
    assert [e["index"] for e in d.details["elements"]] == [2, 3]
    assert "element 2: 0.30000000000000004 is 0.3" in d.explanation
    assert "element 3: 0.6000000000000001 is 0.6" in d.explanation
    assert "第 2 项" in explanation(d, "zh") and "第 3 项" in explanation(d, "zh")
    # each artefact element gets its own stated test, not only the first one
    assert ("element 2: { value = 0.30000000000000004, rel = 1e-12 }; "
            "element 3: { value = 0.6000000000000001, rel = 1e-12 }") in d.explanation
    assert "第 3 项:{ value = 0.6000000000000001, rel = 1e-12 }" in explanation(d, "zh")


def test_a_list_with_another_wrong_element_is_not_an_artefact():
    claim = Claim([literal("0.30000000000000004"), literal("0.5")],
                  "[0.30000000000000004, 0.5]")
    assert judge(claim, [R(3, 10), R(6, 10)]) == "wrong"
    assert _float_artefact(claim, [R(3, 10), R(6, 10)], "q") is None


def test_an_irrational_value_printed_by_python():
    # math.sqrt(2) prints 1.4142135623730951; √2 = 1.41421356237309504880…
    c = literal("1.4142135623730951")
    assert judge(c, sp.sqrt(2)) == "wrong"
    assert artefacts.float_artefact(c.value, sp.sqrt(2))
    assert _float_artefact(c, sp.sqrt(2), "q").details["elements"][0]["write"] == "sqrt(2)"
    assert not artefacts.float_artefact(R("1.414213562373096"), sp.sqrt(2))


def test_not_artefacts():
    assert not artefacts.printed_double(R("0.30000000000000005"))  # no double prints so
    assert not artefacts.float_artefact(R("0.30000000000000004"), R(31, 100))
    assert not artefacts.float_artefact(R(1, 3), R(1, 3) + R(1, 10**20))  # not a decimal


short = st.builds(lambda a, k: Fraction(a, 10 ** k), st.integers(1, 10**6), st.integers(0, 6))


@settings(max_examples=300, deadline=None)
@given(short, short, st.sampled_from(["+", "*"]))
def test_what_python_prints_is_named(x, y, op):
    """The author's program adds or multiplies two short decimals in binary floating point:
    when the printed double is not the exact value and does not hold, it is a float artefact."""
    r = x + y if op == "+" else x * y
    f = float(x) + float(y) if op == "+" else float(x) * float(y)
    printed = repr(f)
    claim = literal(printed)
    rr = R(r.numerator, r.denominator)
    if judge(claim, rr) == "wrong":
        d = _float_artefact(claim, rr, "q")
        assert d is not None and d.mistake == "float_artefact", (x, y, op, printed)


@settings(max_examples=300, deadline=None)
@given(short, st.integers(-10**6, 10**6).filter(bool), st.integers(0, 6))
def test_a_short_wrong_decimal_is_never_an_artefact(r, j, k):
    c = r + Fraction(j, 10 ** k)
    assert not artefacts.float_artefact(R(c.numerator, c.denominator),
                                        R(r.numerator, r.denominator))


# ------------------------------------------------------------------------- half to even

TIE = _exercise("sgd_step", "w = 1\nlr = 0.1\nrecords = [[0.5, 0.75]]",
                "loss = { value = 0.0312, sig = 3 }\ngradient = -0.12\n"
                "w_new = { value = 1.012, places = 3 }")
"""By hand: error 1·0.5 − 0.75 = −1/4, loss 1/32 = 0.03125, gradient −1/4·1/2 = −1/8,
w_new = 1 + 1/80 = 1.0125: three exact ties."""


def test_ties_rounded_to_even_are_a_tie_of_two_causes(tmp_path, capsys):
    """Rounding half to even and a floating-point value a hair past the tie give the same
    claim, so neither is named (the rule of evidence): torch computes the loss 1.98005 of
    benchmarks/lessons05's mlp-b as 1.98004999…, printed 1.9800."""
    claims = _claims(_report(tmp_path, TIE))
    assert claims["loss"].expected == R(1, 32) and claims["gradient"].expected == R(-1, 8)
    assert claims["w_new"].expected == R(81, 80)
    for name, away in (("loss", "0.0313"), ("gradient", "-0.13"), ("w_new", "1.013")):
        d = claims[name].diagnosis
        assert claims[name].status == "wrong" and d.mistake is None, name
        assert d.certainty == "tied" and d.candidates == ("half_to_even", "float_at_tie")
        assert f"half away from zero it is {away}" in d.explanation
        assert "none is named: half_to_even (rounded half to even" in d.explanation
        assert "or float_at_tie (computed in binary floating point" in d.explanation
        assert "五成双" in explanation(d, "zh") and away in explanation(d, "zh")
        assert "浮点数" in explanation(d, "zh")
    assert ("-0.12 is the exact tie -0.125 rounded to the even digit at 2 places"
            in claims["gradient"].diagnosis.explanation)
    assert "at 3 significant digits" in claims["loss"].diagnosis.explanation
    code, j = _cli_json(tmp_path, capsys, TIE)
    assert code == 1
    assert j["gradient"]["diagnosis"]["details"]["elements"] == [
        {"index": 0, "claimed": "-0.12", "expected": "-1/8", "kind": "places", "digits": 2,
         "half_away": "-0.13"}]


def test_pythons_round_of_a_tie(tmp_path):
    text = TIE.replace("gradient = -0.12", f"gradient = {-round(0.125, 2)}")  # -0.12
    d = _claims(_report(tmp_path, text))["gradient"].diagnosis
    assert d.mistake is None and "half_to_even" in d.candidates
    away = TIE.replace("gradient = -0.12", "gradient = -0.13")
    assert _claims(_report(tmp_path, away))["gradient"].status == "rounded"


def test_no_tie_no_half_to_even():
    claim = literal("0.12")
    assert judge(claim, R(1251, 10000)) == "wrong"
    assert _half_to_even(claim, R(1251, 10000), "q") is None


@settings(max_examples=300, deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(1, 5))  # d = 0: an integer claim is exact
def test_ties_agree_with_the_decimal_module(m, d):
    r = Fraction(2 * m + 1, 2 * 10 ** d)
    rr = R(r.numerator, r.denominator)
    q = Decimal(1).scaleb(-d)
    exact = Decimal(r.numerator) / Decimal(r.denominator)
    even = exact.quantize(q, rounding=ROUND_HALF_EVEN)
    away = exact.quantize(q, rounding=ROUND_HALF_UP)  # Decimal's HALF_UP: away from zero
    assert artefacts.half_even_places(rr, d) == R(str(even))
    assert judge(literal(str(away)), rr) in ("rounded", "exact")
    if even != away:
        claim = literal(str(even))
        assert judge(claim, rr) == "wrong"
        assert _half_to_even(claim, rr, "q").candidates == ("half_to_even", "float_at_tie")


# -------------------------------------------------------------------------- tail windows

ACC = RECIPES["accumulation"]
THREE = ("w = 1\nlr = 0.1\nmicrobatches = [[[1, 0], [2, 0]], [[3, 0]]]")
"""At w = 1 with y = 0 a record's gradient is x²: S = [1 + 4, 9] = [5, 9], N = 3 records in
K = 2 microbatches of planned size 2: the target 14/3, divided by the planned 4 records 7/2,
w_new 1 − 7/20 = 13/20; the means [5/2, 9], the tail divided by 2: [5/2, 9/2]."""


def test_tail_window_divided_by_the_planned_count(tmp_path, capsys):
    text = _exercise("accumulation", THREE,
                     "microbatch_mean_gradients = [2.5, 4.5]\ngradient = 3.5\nw_new = 0.65")
    claims = _claims(_report(tmp_path, text))
    means = claims["microbatch_mean_gradients"].diagnosis
    assert means.mistake == "tail_divided_by_planned_size"
    assert means.details == {"elements": [{"index": 2, "size": 1, "planned_size": 2,
                                           "value": "9/2", "expected": "9"}]}
    assert means.explanation.startswith("element 2 (a tail microbatch of 1 record)")
    assert "第 2 项" in explanation(means, "zh")
    g = claims["gradient"].diagnosis
    assert g.mistake == "tail_divided_by_planned" and g.details == {"planned_records": 4,
                                                                      "records": 3}
    assert "K·n_max = 2·2 = 4 records" in g.explanation
    assert "计划的记录数" in explanation(g, "zh")
    assert claims["w_new"].diagnosis.carried_from == "gradient"
    alone = _exercise("accumulation", THREE, "w_new = 0.65")
    assert _claims(_report(tmp_path, alone))["w_new"].diagnosis.mistake == \
        "w_new_tail_divided_by_planned"
    code, j = _cli_json(tmp_path, capsys, text)
    assert code == 1 and j["microbatch_mean_gradients"]["diagnosis"]["details"]["elements"][0][
        "index"] == 2


def test_the_declared_plan_and_a_short_first_microbatch(tmp_path):
    with_d = _exercise("accumulation", THREE + "\ndivisor = 4", "gradient = 1.75")  # 14/8
    d = _claims(_report(tmp_path, with_d))["gradient"].diagnosis
    assert d.mistake == "tail_divided_by_planned" and d.details["planned_records"] == 8
    first_short = _exercise("accumulation",
                            "w = 1\nlr = 0.1\nmicrobatches = [[[3, 0]], [[1, 0], [2, 0]]]",
                            "microbatch_mean_gradients = [4.5, 2.5]")
    d = _claims(_report(tmp_path, first_short))["microbatch_mean_gradients"].diagnosis
    assert [e["index"] for e in d.details["elements"]] == [1]


def test_a_window_planned_for_four_that_ends_with_two(tmp_path):
    """The reading's 自检 4: four microbatches planned, two left, still divided by four. Two
    full microbatches [(1, 0)], [(3, 0)] at w = 1: means 1 and 9, the target 5; by four 10/4."""
    text = _exercise("accumulation", "w = 1\nlr = 0.1\nmicrobatches = [[[1, 0]], [[3, 0]]]",
                     "gradient = 2.5\nw_new = 0.75")
    claims = _claims(_report(tmp_path, text))
    assert claims["gradient"].expected == 5
    d = claims["gradient"].diagnosis
    assert d.mistake == "tail_divided_by_planned"
    assert d.details == {"planned_microbatches": 4, "microbatches": 2}
    assert "divided by 4, a planned count of microbatches" in d.explanation
    assert "divisor = 4" in explanation(d, "zh")
    w = _report(tmp_path, text.replace("gradient = 2.5\n", ""))
    assert _claims(w)["w_new"].diagnosis.mistake == "w_new_tail_divided_by_planned"
    # K = 2 is tried up to P = 8, never beyond: 10/9 is not named
    far = text.replace("gradient = 2.5", 'gradient = "10/9"').replace("w_new = 0.75\n", "")
    assert _claims(_report(tmp_path, far))["gradient"].diagnosis.mistake is None


def test_sizes_and_means_given(tmp_path):
    text = _exercise("accumulation", "lr = 0.1\nw = 1\nmicrobatch_sizes = [2, 1]\n"
                     "microbatch_mean_gradients = [2.5, 9]", "gradient = 3.5")
    assert _claims(_report(tmp_path, text))["gradient"].diagnosis.mistake == \
        "tail_divided_by_planned"


def test_full_microbatches_have_no_planned_size():
    """Equal microbatches: nothing is inferred from the largest; only planned microbatch
    counts K+1 … 4K are tried (none with a declared divisor), and no element is named."""
    full = {"w": R(1), "lr": R(1, 10), "microbatches": [[[R(1), R(0)]], [[R(3), R(0)]]]}
    ctx = Context(ACC, full)
    assert [c.details for c in tail_gradients(ctx)] == [
        {"planned_microbatches": p, "microbatches": 2} for p in range(3, 9)]
    assert [c.value for c in tail_gradients(ctx)] == [R(10, p) for p in range(3, 9)]
    assert tail_means(ctx) == []
    assert tail_gradients(Context(ACC, {**full, "divisor": R(4)})) == []
    tokens = {"microbatch_sizes": [R(1), R(2)], "microbatch_mean_gradients": [R(1), R(7)],
              "tokens": [R(100), R(20)], "w": R(1), "lr": R(1, 10)}
    assert all("planned_records" not in c.details for c in tail_gradients(Context(ACC, tokens)))


# -------------------------------------------------------------------- another stage's rule

P, D = 10 ** 9, 4
LESSON_03 = {0: 16 * P, 1: (4 + R(12, D)) * P, 2: (2 + R(14, D)) * P, 3: R(16, D) * P}
"""Lesson 03: bytes per card at stages 0/1/2/3 are 16P, (4+12/D)P, (2+14/D)P, 16P/D."""


@pytest.mark.parametrize("stage,other", [(s, o) for s in range(4) for o in range(4) if s != o])
def test_state_bytes_by_another_stages_rule(stage, other, tmp_path):
    text = _exercise("memory", f"params = {P}\nstage = {stage}\ndp = {D}",
                     f'state_bytes = "{LESSON_03[other]}"')
    c = _claims(_report(tmp_path, text))["state_bytes"]
    assert c.expected == LESSON_03[stage] and c.status == "wrong"
    d = c.diagnosis
    assert d.mistake == "wrong_stage_rule" and d.details == {"stage": other,
                                                           "given_stage": stage}
    assert d.explanation.startswith(f"stage {other}'s rule applied at stage {stage}")
    assert f"在阶段 {stage} 用了阶段 {other} 的规则" in explanation(d, "zh")


def test_the_issue_case_stage_2_rule_at_stage_1_in_gib(tmp_path, capsys):
    text = _exercise("memory", f"params = {P}\nstage = 1\ndp = {D}", "state_gib = 5.122")
    assert float(LESSON_03[2] / 2 ** 30) == pytest.approx(5.1223, abs=1e-4)
    code, j = _cli_json(tmp_path, capsys, text)
    assert code == 1
    assert j["state_gib"]["diagnosis"]["mistake"] == "wrong_stage_rule"
    assert j["state_gib"]["diagnosis"]["details"]["stage"] == 2


def test_an_integer_claim_is_not_a_printed_double():
    c = literal("10000000000000000")  # Python prints the double 1e16 as 1e+16
    assert judge(c, R(10**16 + 1)) == "wrong"
    assert artefacts.float_artefact(c.value, R(10**16 + 1))  # the value alone would be
    assert _float_artefact(c, R(10**16 + 1), "q") is None
    assert _float_artefact(literal("1e16"), R(10**16 + 1), "q").mistake == "float_artefact"


small = st.fractions(min_value=-3, max_value=3, max_denominator=8)


@settings(max_examples=25, deadline=None)
@given(w_claim=small, b_claim=small)
def test_carried_from_both_by_hand(w_claim, b_claim, tmp_path_factory):
    """sgd_step at w = 1, b = 0, η = 1/10 on (1, 2), (2, 3): w_new = 23/20, b_new = 1/10. The
    author's own w_new and b_new give loss_new = mean of (w·x + b − y)²/2, worked here with
    Fractions; when neither alone gives it, the diagnosis names both."""
    records = [(1, 2), (2, 3)]

    def loss(w, b):
        return sum((w * x + b - y) ** 2 / 2 for x, y in records) / len(records)

    w_right, b_right = Fraction(23, 20), Fraction(1, 10)
    assume(w_claim != w_right and b_claim != b_right)
    claimed = loss(w_claim, b_claim)
    assume(claimed not in (loss(w_claim, b_right), loss(w_right, b_claim),
                           loss(w_right, b_right)))
    text = _exercise("sgd_step", "w = 1\nb = 0\nlr = 0.1\nrecords = [[1, 2], [2, 3]]",
                     f'w_new = "{w_claim}"\nb_new = "{b_claim}"\nloss_new = "{claimed}"')
    d = _claims(_report(tmp_path_factory.mktemp("c"), text))["loss_new"].diagnosis
    assert d.carried_from_all == ("w_new", "b_new"), (w_claim, b_claim, d.explanation)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 10**12), st.integers(2, 1024), st.integers(0, 3))
def test_every_other_stage_by_lesson_03(params, dp, stage):
    """The candidates of wrong_stage_rule are Lesson 03's per-card bytes of each other stage,
    the nearest first; with D ≥ 2 the four rules differ, so each names its stage."""
    from derive.recipes.memory import stage_rules

    rule = {0: 16 * params, 1: (4 + R(12, dp)) * params, 2: (2 + R(14, dp)) * params,
            3: R(16, dp) * params}
    given_ = {"params": sp.Integer(params), "bytes": None, "preset": None,
              "stage": stage, "dp": sp.Integer(dp), "activation_gib": None}
    got = stage_rules("state_bytes")(Context(RECIPES["memory"], given_))
    others = sorted((s for s in range(4) if s != stage), key=lambda s: (abs(s - stage), s))
    assert [c.details["stage"] for c in got] == others
    assert [c.value for c in got] == [rule[s] for s in others]
    assert len({rule[s] for s in range(4)}) == 4


def test_the_older_stage_names_come_first(tmp_path):
    """At stage 1, card_bytes_per_param by stage 2's rule (2 + 14/4 = 5.5) is both
    card_bytes_next_stage and wrong_stage_rule: a tie (the rule of evidence), the older name
    listed first."""
    text = _exercise("memory", f"params = {P}\nstage = 1\ndp = {D}", "card_bytes_per_param = 5.5")
    d = _claims(_report(tmp_path, text))["card_bytes_per_param"].diagnosis
    assert d.mistake is None and d.certainty == "tied"
    assert d.candidates == ("card_bytes_next_stage", "wrong_stage_rule") == d.also


def test_a_slow_search_of_sets_stops_and_the_verdict_stands(tmp_path, monkeypatch):
    """The sets are tried for CARRIED_SETS_SECONDS at most; past it the claim keeps its verdict
    with no carried diagnosis, and the exercise is `wrong`, not `undecided`."""
    import time

    from derive.exercises import diagnosis

    real = diagnosis._carried_value

    def slow(recipe, given_, claims, name, carried):
        if len(carried) > 1:  # CPU time: the bound counts it, not waiting
            end = time.process_time() + 0.2
            while time.process_time() < end:
                pass
        return real(recipe, given_, claims, name, carried)

    monkeypatch.setattr(diagnosis, "_carried_value", slow)
    monkeypatch.setattr(diagnosis, "CARRIED_SETS_SECONDS", 0.05)
    report = _report(tmp_path, W_AND_B)
    assert report.outcome == "wrong" and not report.undecided
    loss = _claims(report)["loss_new"]
    assert loss.status == "wrong" and loss.diagnosis.carried_from_all == ()


ROUNDED_EARLY = """[[exercise]]
id = "r"
recipe = "memory"
[exercise.given]
params = 1
preset = "deepspeed_zero2"
stage = 2
dp = 4
[exercise.claims]
{claims}
"""


def _diagnosis_of(tmp_path, claims: str, name: str):
    report = _report(tmp_path, ROUNDED_EARLY.format(claims=claims))
    return next(c.diagnosis for c in report.claims if c.name == name)


def test_rounded_early_is_not_named_below_the_places_the_author_wrote(tmp_path):
    # 2 + 18/4 = 6.5 bytes per parameter; state_bytes = 7 is 6.5 rounded to 0 places before
    # multiplying by P = 1, unless the author's own claim of 6.5 shows it was known unrounded
    alone = _diagnosis_of(tmp_path, "state_bytes = 7", "state_bytes")
    assert alone.mistake == "rounded_early"
    with_exact = _diagnosis_of(tmp_path, "state_bytes = 7\ncard_bytes_per_param = 6.5",
                               "state_bytes")
    assert with_exact.mistake != "rounded_early"
    with_rounded = _diagnosis_of(tmp_path, "state_bytes = 7\ncard_bytes_per_param = 7",
                                 "state_bytes")
    assert with_rounded.carried_from == "card_bytes_per_param"


def test_a_fraction_that_equals_an_early_rounding_is_not_named(tmp_path):
    """The reading's example, w = 1 and records (1, 0), (2, 0) | (3, 0): gradient (1 + 4 + 9)/3
    = 14/3 by hand. Rounding the first microbatch's mean 5/2 to 0 places (3) gives
    (2·3 + 9)/3 = 5, which 15/3 equals; but an author who writes 15/3 computed exactly and
    slipped a digit: not `rounded_early`. Written as 5, it still is."""
    text = _exercise("accumulation", "w = 1\nlr = 0.1\nmicrobatches = [[[1, 0], [2, 0]], "
                     "[[3, 0]]]", "gradient = {}")
    slip = _claims(_report(tmp_path, text.replace("{}", '"15/3"')))["gradient"]
    assert slip.status == "wrong" and slip.diagnosis.mistake != "rounded_early"
    early = _claims(_report(tmp_path, text.replace("{}", "5")))["gradient"]
    assert early.status == "wrong" and early.diagnosis.mistake == "rounded_early"
