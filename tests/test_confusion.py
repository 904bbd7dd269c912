"""A deterministic sample of the confusion matrix (benchmarks/confusion.py, issue 34): every
known mistake planted in claimed quantities of the course's exercises (drawn with a seed), each
claimed alone and checked. The planted mistake is always shown (named alone, listed in a tie, or offered) and no
other mistake is ever named alone in its place."""

from __future__ import annotations

import dataclasses
import importlib.util
import random
from pathlib import Path

from derive.exercises.bank import load
from derive.exercises.check import check_exercise

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("confusion", ROOT / "benchmarks" / "confusion.py")
confusion = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(confusion)

SAMPLE = 12
"""Claimed quantities drawn; every mistake known for each is planted."""
SEED = 34


def _sample():
    exercises = load([str(ROOT / "proofs" / "course")])
    pairs = [(ex, name) for ex in exercises for name in confusion.claimed(ex)]
    return [(ex, name, raw, planted)
            for ex, name in random.Random(SEED).sample(pairs, SAMPLE)
            for (_, _), (raw, planted) in confusion.plantings(ex, [name]).items()]


def test_a_planted_mistake_is_shown_and_no_other_is_named_alone():
    said = []
    for ex, name, raw, planted in _sample():
        changed = dataclasses.replace(ex, claims={name: confusion._claim(raw)})
        (result,) = check_exercise(changed).claims
        assert result.status == "wrong", (ex.id, name, raw)
        for mistake in planted:
            said.append((confusion.category(result.diagnosis, mistake), ex.id, name, raw,
                         mistake, result.diagnosis))
    bad = [s for s in said if s[0] not in ("named", "tied", "offered")]
    assert bad == [], bad
    assert len(said) >= SAMPLE and {s[0] for s in said} >= {"named", "tied"}


def test_the_categories_of_a_diagnosis():
    """What the reader is told: the planted mistake alone, in a tie, offered, or another named
    alone (before the rule of evidence, a tie hidden in `also`)."""
    from derive.exercises.diagnosis import Diagnosis
    named = Diagnosis("g", mistake="a", candidates=("a",), certainty="named")
    tied = Diagnosis("g", also=("a", "b"), candidates=("a", "b"), certainty="tied")
    offered = Diagnosis("g", also=("a",), candidates=("a",), certainty="offered")
    assert [confusion.category(d, "a") for d in (named, tied, offered)] == [
        "named", "tied", "offered"]
    assert confusion.category(named, "b") == "named wrongly"
    assert confusion.category(tied, "c") == "other shown"
    assert confusion.category(Diagnosis("g"), "a") == "silent"
    old = dataclasses.replace(named, also=("b",), candidates=None, certainty=None)
    assert confusion.category(old, "a") == "named, tie hidden"
    assert confusion.category(old, "b") == "named wrongly"
