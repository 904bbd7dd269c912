"""The self-check page judges a typed answer as `derive check` judges the same claim (issue 25):
a small always-on sample of generated answer sequences (tests/page_differential.py), in QuickJS,
and one sequence typed into a real page in Chromium. The full run is
benchmarks/page_differential.py.

The expected verdict is derive check's on an exercise file whose claims are the typed answers;
the typed values are computed from the page's exact values with Fractions.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import page_differential as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = pd.ROOT
SAMPLE = [
    pd.PageSpec(ROOT / "proofs" / "course" / "lesson03.toml"),
    pd.PageSpec(ROOT / "benchmarks" / "bank24" / "schedules.toml"),
]

@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, pd.Page]:
    folder = tmp_path_factory.mktemp("pages")
    out = {}
    for spec in SAMPLE:
        page = pd.load_page(spec, folder)
        assert not isinstance(page, str), f"{spec.label}: {page}"
        out[spec.label] = page
    return out


@pytest.fixture(scope="module")
def sample(pages, tmp_path_factory) -> pd.Tally:
    folder = tmp_path_factory.mktemp("oracle")
    total = pd.Tally()
    for page in pages.values():
        total.add(pd.run_page(page, 5, seed=25, folder=folder))
    return total


def test_sample_is_large_enough(sample):
    assert sample.answers >= 150
    assert {"carried", "near_miss", "garbage", "mistake_exact"} <= set(sample.by_category)


def _listing(found: list[pd.Disagreement], kind: str | None = None) -> str:
    chosen = [d for d in found if kind is None or kind in d.kinds][:8]
    return "\n".join(d.describe() for d in chosen)


def test_page_names_nothing_derive_does_not(sample):
    assert sample.counts["names"] == 0, _listing(sample.found, "names")


def test_page_is_silent_only_where_it_says_it_cannot_tell(sample):
    """Every other answer agrees with derive check in full. Where derive check names a
    carried source or a mistake and the page names nothing, the page could not evaluate an
    earlier wrong answer's effect (a recurrence with branches, sizes used as counts, a square
    root): it says so (`unsure`) and names nothing rather than risk a wrong name."""
    others = [d for d in sample.found if d.kinds != ["silent"] or not d.page_result.get("unsure")]
    assert others == [], _listing(others)


def test_verdicts_agree(sample):
    """holds / wrong / undecided and "not a number" agree today already."""
    assert sample.counts["verdict"] == 0, _listing(sample.found, "verdict")


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32 - 1), which=st.integers(0, 100))
def test_generated_sequences_verdicts(pages, tmp_path_factory, seed, which):
    """Any seed: the page's verdicts agree with derive check's on one sequence."""
    page = list(pages.values())[which % len(pages)]
    pe = page.exercises[which % len(page.exercises)]
    folder = tmp_path_factory.mktemp("h")
    tally = pd.run_exercise(page, pe, 1, random.Random(seed), folder)
    assert tally.counts["verdict"] == 0, _listing(tally.found)


# ----------------------------------------------------------------------- the harness itself

def test_fraction_generators():
    from fractions import Fraction as F
    assert pd.fixed(pd.half_away(F(-17, 8), 2), 2) == "-2.13"
    assert pd.fixed(pd.half_away(F(5, 2), 0), 0) == "3"
    assert pd.tie_even(F(5, 2)) == "2"
    assert pd.tie_even(F(-2125, 1000)) == "-2.12"
    assert pd.tie_even(F(1, 3)) is None
    assert pd.exact_text(F(-14, 3)) == "-14/3"
    assert pd.exact_text(F(3, 10)) == "0.3"
    assert repr(float(F(3, 10)) + float(F(0))) == "0.3"
    assert pd.ulps(F(3, 10), 1) == "0.30000000000000004"
    assert pd.full_width("-1.5") == "\uff0d\uff11\uff0e\uff15"


def test_oracle_reads_the_typed_answers(tmp_path):
    """The oracle file's claims are the typed answers (garbage left out), judged by derive."""
    pe = pd.PageExercise(0, 0, [
        ("v0-e0-q0", {"name": "prediction", "size": None, "rule": {"kind": "exact"}}),
        ("v0-e0-q1", {"name": "loss", "size": None, "rule": {"kind": "exact"}}),
        ("v0-e0-q2", {"name": "gradient", "size": None, "rule": {"kind": "exact"}}),
    ], {"id": "hand", "recipe": "sgd_step",
        "given": {"w": 0, "records": [[2, 4]], "lr": "1/2"}}, None)
    # w = 0, x = 2, y = 4: prediction 0, loss (0 − 4)²/2 = 8, gradient (0 − 4)·2 = −8
    seqs = [["0", "8", "-8"], ["abc", "16", "8"], ["1", "4.5", "-6"]]
    got = pd.derive_outcomes(pe, seqs, tmp_path)
    assert [o.verdict for o in got[0]] == ["holds"] * 3
    assert got[1][0].verdict is None
    assert got[1][1].mistake == "loss_other_convention"
    assert got[1][2].mistake == "gradient_sign"
    # prediction 1 → loss (1 − 4)²/2 = 4.5, gradient (1 − 4)·2 = −6: carried forward
    assert got[2][1].carried == ("prediction",) and got[2][2].carried == ("prediction",)


def test_today_page_results_are_read():
    """Today's {status, key, message} read as verdict, mistake and carried sources."""
    words = {"wrong_carried": "follows from {names}: carried"}
    Q = {"name": "g", "rule": {"kind": "exact"},
         "carried": [{"names": "a"}, {"names": "a, b"}]}
    o = pd.page_outcome({"status": "wrong", "key": "wrong_mistake",
                         "message": "Not right: a known mistake: x·(y − ŷ) (gradient_sign)"}, Q,
                        words)
    assert (o.verdict, o.mistake, o.carried) == ("wrong", "gradient_sign", None)
    o = pd.page_outcome({"status": "wrong", "key": "wrong_carried",
                         "message": "follows from a, b: carried"}, Q, words)
    assert o.carried == ("a", "b")
    o = pd.page_outcome({"status": "rounded", "key": "rounded_places", "message": ""}, Q, words)
    assert o.verdict == "holds"
    o = pd.page_outcome({"status": "nan", "key": "not_a_number", "message": ""}, Q, words)
    assert o.verdict is None
    new = {"status": "wrong", "key": "wrong", "message": "", "verdict": "wrong",
           "mistake": None, "carried": ["a"], "unsure": False}
    assert pd.page_outcome(new, Q, words).carried == ("a",)


def test_comparer_kinds():
    d = pd.Outcome("wrong", "mean_of_means", None)
    assert pd.disagreements(pd.Outcome("wrong", "mean_of_means", None), d) == []
    assert pd.disagreements(pd.Outcome("wrong", "w_micro_steps", None), d) == ["names"]
    assert pd.disagreements(pd.Outcome("wrong", None, None), d) == ["silent"]
    assert pd.disagreements(pd.Outcome("wrong", None, ("g",)), pd.Outcome("wrong", None, None)
                            ) == ["names"]
    assert pd.disagreements(pd.Outcome("holds", None, None), pd.Outcome("wrong", None, None)
                            ) == ["verdict"]


# ----------------------------------------------------------------------- Chromium

def test_typed_into_a_real_page(browser, pages, tmp_path):
    """A few dozen answers typed into lesson03's page in Chromium: the feedback shown is
    classify()'s in QuickJS, and its verdict is derive check's."""
    from browser import feedback_text, open_page

    page = pages[SAMPLE[0].label]
    rng = random.Random(2025)
    typed = 0
    with open_page(browser, Path(page.html)) as opened:
        for pe in page.exercises:
            seqs = [pd.sequence(pe, pd.exercise_object(pe, tmp_path), rng) for _ in range(2)]
            oracle = pd.derive_outcomes(pe, [[t for _, t in s] for s in seqs], tmp_path)
            for seq, expected in zip(seqs, oracle):
                texts = [t for _, t in seq]
                results, _ = pd.run_page_sequence(page, pe, texts)
                for (key, Q), text, r, d in zip(pe.questions, texts, results, expected):
                    field = opened.page.locator(f"#{key}-input")
                    field.fill(text)
                    opened.page.locator(f"button.check[data-q='{key}']").click()
                    feedback = opened.page.locator(f"#{key}-feedback")
                    shown = (feedback.get_attribute("data-status"),
                             feedback_text(opened.page, key))
                    # the same message twice is re-announced with a count: "… (checked 2 times)"
                    said = re.sub(r" \(checked \d+ times\)$", "", shown[1] or "")
                    assert (shown[0], said) == (r["status"], r["message"]), (key, text)
                    assert pd.page_outcome(r, Q, page.words).verdict == d.verdict, (key, text)
                    typed += 1
        assert opened.errors == []
    assert typed >= 24
