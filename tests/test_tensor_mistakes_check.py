"""The whole-tensor mistakes through `derive check` (the formulas recipe wired to
derive.recipes.tensor_variants): an exercise file as an author writes it, with the student's
wrong value from torch float64 claimed to 6 places, is diagnosed by the mistake's name; a claim
off in one entry, a right claim and a claim three mistakes give at once are not named."""

from __future__ import annotations

import pytest
import torch
from test_tensor_mistakes import (
    CASES,
    CE_GIVEN,
    LN_GIVEN,
    MEAN_GIVEN,
    MLP_GIVEN,
    SOFT_GIVEN,
    TIE_GIVEN,
    _ce_defines,
    _ln_defines,
    _mean_defines,
    _mlp_defines,
    _mlp_torch,
    _soft_defines,
)

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise

GIVEN = {"mlp": (MLP_GIVEN, _mlp_defines), "soft": (SOFT_GIVEN, _soft_defines),
         "ln": (LN_GIVEN, _ln_defines), "mean": (MEAN_GIVEN, _mean_defines),
         "ce": (CE_GIVEN, _ce_defines), "tie": (TIE_GIVEN, _mlp_defines)}


def _toml(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value) if isinstance(value, int) else f'"{value}"'


def _claimed(value) -> str:
    """torch's value as an author claims it, each entry to 6 places."""
    def raw(x):
        return "[" + ", ".join(raw(v) for v in x) + "]" if isinstance(x, list) else f'"{x:.6f}"'
    return raw(torch.as_tensor(value).tolist())


def _diagnosis(tmp_path, name: str, target: str, claim: str):
    given, defines = GIVEN[name]
    lines = ["[[exercise]]", f'id = "{name}"', 'recipe = "formulas"', "[exercise.given]"]
    lines += [f"{k} = {_toml(v)}" for k, v in given.items()]
    lines += ["[exercise.define]"] + [f'{n} = "{text}"' for n, text, _ in defines()]
    lines += ["[exercise.claims]", f"{target} = {claim}"]
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (ex,) = load_file(str(path))
    (result,) = [c for c in check_exercise(ex).claims if c.name == target]
    return result


@pytest.mark.parametrize("mistake,name,target,student,words", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_check_names_the_planted_mistake(tmp_path, mistake, name, target, student, words):
    result = _diagnosis(tmp_path, name, target, _claimed(student()))
    assert result.status == "wrong"
    d = result.diagnosis
    if (name, target) == ("ce", "L1"):  # a batch of 2: the sum is also the loss doubled
        assert (d.mistake, d.certainty) == (None, "tied")
        assert d.candidates == ("batch_sum", "L1_doubled")
        return
    assert (d.mistake, d.certainty) == (mistake, "named"), d.explanation
    assert words in d.explanation


def test_check_names_no_mistake_for_a_claim_off_in_one_entry(tmp_path):
    wrong = _mlp_torch(mask=lambda z: torch.ones_like(z))["gW1"].clone()
    wrong[0, 0] += 0.01
    d = _diagnosis(tmp_path, "mlp", "gW1", _claimed(wrong)).diagnosis
    assert d.mistake is None and not d.candidates


def test_check_says_nothing_of_a_right_claim(tmp_path):
    result = _diagnosis(tmp_path, "mlp", "gW1", _claimed(_mlp_torch()["gW1"]))
    assert result.status == "rounded" and result.diagnosis is None


def test_check_lists_a_tie_of_three(tmp_path):
    ones = _mlp_torch(mask=lambda z: torch.ones_like(z), given=TIE_GIVEN)["gW1"]
    d = _diagnosis(tmp_path, "tie", "gW1", _claimed(ones)).diagnosis
    assert d.mistake is None and d.certainty == "tied"
    assert d.candidates == ("mask_forgotten", "relu_prime_one", "preactivation")
    assert d.explanation.startswith("3 known mistakes give this value, so none is named: "
                                    "mask_forgotten (the ReLU mask forgotten")
