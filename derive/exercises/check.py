"""Checking one exercise: its exact key, each claim's status, and the diagnosis."""

from __future__ import annotations

from dataclasses import dataclass

from derive.exercises.claims import UNDECIDED, WRONG, judge
from derive.exercises.diagnosis import Diagnosis, diagnose
from derive.exercises.schema import Exercise
from derive.kernel import dag, intervals
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.limits import EXERCISE_SECONDS as DEFAULT_SECONDS
from derive.recipes.base import expand_exact


@dataclass(frozen=True)
class ClaimResult:
    name: str
    claimed: str
    status: str
    expected: object
    diagnosis: Diagnosis | None
    claimed_json: object = None
    """The claim as written: a string, or a list of them for a list claim."""


@dataclass(frozen=True)
class Report:
    exercise: Exercise
    values: dict
    claims: tuple[ClaimResult, ...]
    undecided: str = ""
    """Why the exercise has no outcome (the time bound it passed), or empty."""

    @property
    def ok(self) -> bool:
        return not self.undecided and all(c.status not in (WRONG, UNDECIDED)
                                          for c in self.claims)


def answer_key(ex: Exercise) -> dict:
    """Every quantity the exercise's inputs determine, exact, in derivation order (the caches
    of certified enclosures and tree sizes start empty: they would hold earlier exercises'
    values alive)."""
    intervals.forget()
    dag.forget()
    return {k: expand_exact(v) for k, v in ex.recipe.evaluate(ex.given).items()}


def check_exercise(ex: Exercise, seconds: float | None = DEFAULT_SECONDS,
                   reason: str = "") -> Report:
    """The exercise's key and claims; past `seconds`, a report whose every claim is
    `undecided` (the run goes on with the next exercise)."""
    try:
        if reason:
            raise DecisionTimeout(reason)
        with time_bound(seconds):
            return _check(ex)
    except DecisionTimeout:
        reason = reason or f"passed its time bound of {seconds:g} s (--time-limit)"
        return Report(ex, {}, tuple(
            ClaimResult(name, claim.text, UNDECIDED, None, None, claim.as_written())
            for name, claim in ex.claims.items()), undecided=reason)


def _check(ex: Exercise) -> Report:
    values = answer_key(ex)
    statuses = {name: judge(claim, values[name]) for name, claim in ex.claims.items()}
    order = list(values)
    wrong = sorted((n for n, s in statuses.items() if s == WRONG), key=order.index)
    diagnoses = diagnose(ex.recipe, ex.given, ex.claims, wrong, values)
    results = tuple(
        ClaimResult(name, ex.claims[name].text, statuses[name], values[name],
                    diagnoses.get(name), ex.claims[name].as_written())
        for name in sorted(ex.claims, key=order.index))
    return Report(ex, values, results)
