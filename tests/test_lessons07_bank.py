"""The tensor bank benchmarks/lessons07 (issue 35) is what its reference writes, and plants what
it says: the files are reference.py's output from the seed (never edited by hand), every
planted claim carries one of the issue's whole-tensor mistake ids, each of the 14 ids is
planted at least once, in about a third of the exercises, and a planted claim differs from the
right one. Hand-checked entries below (Fractions and hand arithmetic, not derive nor torch) pin
the reference's arithmetic where it is rational."""

from __future__ import annotations

import importlib.util
import json
import tomllib
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
BANK = ROOT / "benchmarks" / "lessons07"
IDS = {"transposed", "batch_sum", "wrong_axis", "onehot_not_subtracted", "mask_forgotten",
       "preactivation", "relu_prime_one", "exp_forgotten", "lse_max", "temperature_multiplied",
       "inv_d", "eps_outside_sqrt", "unbiased_variance", "previous_gradient"}


def _reference():
    spec = importlib.util.spec_from_file_location("lessons07_reference", BANK / "reference.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_files_are_the_reference_output():
    files, _ = _reference().render()
    for name, text in files.items():
        assert (BANK / name).read_text() == text, f"{name} is not reference.py's output"


def _expected():
    return json.loads((BANK / "expected.json").read_text())["exercises"]


def test_planted_mistakes_cover_every_id():
    ex = _expected()
    planted = [(eid, q, c["mistake"]) for eid, e in ex.items() for q, c in e["claims"].items()
               if c["mistake"]]
    assert len(ex) >= 40
    assert {m for *_, m in planted} == IDS
    with_planted = {eid for eid, *_ in planted}
    assert 0.25 <= len(with_planted) / len(ex) <= 0.45
    for eid, e in ex.items():
        for q, c in e["claims"].items():
            assert (c["status"] == "wrong") == (c["mistake"] is not None), (eid, q)


def test_planted_claims_differ_from_the_right_ones():
    bank = {e["id"]: e for e in tomllib.loads((BANK / "exercises.toml").read_text())["exercise"]}
    for eid, e in _expected().items():
        for q, c in e["claims"].items():
            claimed = bank[eid]["claims"][q]
            if c["mistake"]:
                assert claimed != c["right"], (eid, q)
                assert _shape(claimed) == _shape(c["right"]), (eid, q)


def _shape(v):
    return (len(v), *_shape(v[0])) if isinstance(v, list) else ()


def test_friendly_linear_layer_by_hand():
    """lin-d: W = [[1, -1], [2, 0.5]], x = [2, 1], b = [0.5, -1], y = [1, 0]: z = (1.5, 3.5),
    loss = ((0.5)² + 3.5²)/2 = 6.25, ∂L/∂z = (0.5, 3.5), gW = ∂L/∂z xᵀ = [[1, 0.5], [7, 3.5]]."""
    bank = {e["id"]: e for e in tomllib.loads((BANK / "exercises.toml").read_text())["exercise"]}
    c = bank["lin-d"]["claims"]
    assert c["z"] == ["1.5000", "3.5000"]
    assert c["loss"] == "6.2500"
    assert c["gW"] == [["1.0000", "0.5000"], ["7.0000", "3.5000"]]
    assert c["gb"] == ["0.5000", "3.5000"]
    assert {q: w["status"] for q, w in _expected()["lin-d"]["claims"].items()} == {
        "z": "exact", "loss": "exact", "gW": "exact", "gb": "exact"}


def test_relu_prime_at_zero_by_hand():
    """mlp-e plants relu'(0) = 1: record 1, X₁ = (1.5, 0.25), meets two units exactly at their
    kink, 1.5·0.5 + 0.25·(−1) − 0.5 = 0 and 1.5·(−0.25) + 0.25·0.5 + 0.25 = 0 (the second unit
    is at 1.75). Torch's relu′(0) = 0 gives those rows no share of record 1; the planted rows
    add δ₁·W2₁ⱼ·X₁ with Ŷ₁ = 1.75·(−0.5) + 0.5 = −0.375 and δ₁ = 2(Ŷ₁ − Y₁)/3 = −11/12,
    W2 = (1, −0.5, 2): rows 1 and 3 change, row 2 does not."""
    ex = _expected()["mlp-e"]["claims"]["gW1"]
    bank = {e["id"]: e for e in tomllib.loads((BANK / "exercises.toml").read_text())["exercise"]}
    right, planted = ex["right"], bank["mlp-e"]["claims"]["gW1"]
    delta1 = F(2, 3) * (F(-3, 8) - 1)
    assert delta1 == F(-11, 12)
    for row, w2 in ((0, F(1)), (2, F(2))):
        for k, x in enumerate((F(3, 2), F(1, 4))):
            added = delta1 * w2 * x
            assert F(planted[row][k]) - F(right[row][k]) == pytest.approx(float(added), abs=1e-4)
    assert planted[1] == right[1]


def _half_away(x: F, places: int = 4) -> str:
    """x rounded half away from zero, by integer arithmetic alone (the reference's check)."""
    scaled = abs(x) * 10 ** places
    q, r = divmod(scaled.numerator, scaled.denominator)
    q += 2 * r >= scaled.denominator
    sign = "-" if x < 0 and q else ""
    return f"{sign}{q // 10 ** places}.{q % 10 ** places:0{places}d}"


@given(st.one_of(st.fractions(min_value=-1000, max_value=1000, max_denominator=10 ** 9),
                 st.integers(-10 ** 7, 10 ** 7).map(lambda k: F(k, 20000))))   # ties half the time
@settings(max_examples=300, deadline=None)
def test_the_references_rounding_is_half_away_from_zero(x):
    """reference.dec rounds a Fraction half away from zero to 4 places, as derive's claims do,
    never printing −0.0000; its float path agrees where the float is not near a tie."""
    ref = _reference_module()
    assert ref.dec(x) == _half_away(x)
    frac = (abs(x) * 10 ** 4) % 1
    if abs(frac - F(1, 2)) > F(1, 10 ** 6):
        assert ref.dec(float(x)) == _half_away(x)


_MODULE = []


def _reference_module():
    if not _MODULE:
        _MODULE.append(_reference())
    return _MODULE[0]
