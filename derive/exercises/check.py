"""Checking one exercise: its exact key, each claim's status, and the diagnosis."""

from __future__ import annotations

import time
from dataclasses import dataclass

from derive.exercises.claims import UNDECIDED, WRONG, entry_statuses, judge, positions
from derive.exercises.declared import warnings as declared_warnings
from derive.exercises.diagnosis import Diagnosis, diagnose, formula_diagnosis
from derive.exercises.errors import ExerciseError, ExerciseNotSupported, ExerciseUndecided
from derive.exercises.formula_values import formula_value
from derive.exercises.formulas import (
    FORMULA_SECONDS,
    Judgement,
    judge_formula,
    quantity_formulas,
    undecided,
)
from derive.exercises.schema import Exercise
from derive.exercises.undecided import because, number_left_open
from derive.graph.evaluate import TooLarge, reset_work
from derive.graph.reader import spellings
from derive.kernel import dag, intervals
from derive.kernel.exact import NoCertifiedDecimal, decimal_str
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.limits import EXERCISE_SECONDS as DEFAULT_SECONDS
from derive.limits import computation_seconds
from derive.recipes.base import QuantityUndefined, expand_exact


@dataclass(frozen=True)
class ClaimResult:
    name: str
    claimed: str
    status: str
    expected: object
    diagnosis: Diagnosis | None
    claimed_json: object = None
    """The claim as written: a string, or a list of them for a list claim."""
    formula: str | None = None
    """For a formula answer: the quantity's own symbolic form, in the formula language
    (`expected` is then None)."""
    formula_read: str | None = None
    """The same form as a reader writes it, in the exercise's notation and the author's
    names (derive/graph/reader.py); None when the reader form cannot write it."""
    shape: tuple[int, ...] | None = None
    """For a claim of a tensor quantity: the tensor's shape (2, 3)."""
    entries: list | None = None
    """For a claim of a tensor quantity in its shape: each entry's status, nested as the
    tensor is (None for a claim of another shape, which is wrong as a whole)."""

    @property
    def wrong_at(self) -> list[tuple[int, ...]]:
        """The 1-based positions of the wrong entries of a tensor claim, row-major."""
        return positions(self.entries) if self.entries is not None else []


@dataclass(frozen=True)
class Report:
    exercise: Exercise
    values: dict
    claims: tuple[ClaimResult, ...]
    undecided: str = ""
    """Why the exercise has no outcome (the time bound it passed), or empty."""
    undecided_by: str = "time bound"
    """What left it without an outcome, for a summary: `time bound`, or `a sign not
    decided` (a quantity needs a sign no bound decided)."""
    warnings: tuple[str, ...] = ()
    """What `derive check` warns about (a declared mistake that gives the right answer, or
    the value of another mistake, on the exercise's own values): never an error."""

    @property
    def ok(self) -> bool:
        return not self.undecided and all(c.status not in (WRONG, UNDECIDED)
                                          for c in self.claims)

    @property
    def outcome(self) -> str:
        """`ok`, `wrong` (a claim is wrong) or `undecided` (the exercise passed its time
        bound, or a claim, such as a formula answer, was neither shown to hold nor wrong)."""
        if self.undecided:
            return UNDECIDED
        if any(c.status == WRONG for c in self.claims):
            return WRONG
        return UNDECIDED if not self.ok else "ok"


def answer_key(ex: Exercise) -> dict:
    """Every quantity the exercise's inputs determine, exact, in derivation order (the caches
    of certified enclosures and tree sizes start empty: they would hold earlier exercises'
    values alive)."""
    intervals.forget()
    dag.forget()
    reset_work()
    try:
        return {k: expand_exact(v) for k, v in ex.recipe.evaluate(ex.given).items()}
    except TooLarge as exc:
        raise ExerciseNotSupported(ex.path, ex.id, None,
                                   f"computing its answer key needs {exc}, past derive's bound "
                                   f"on one computation",
                                   "give fewer steps or smaller givens") from None
    except QuantityUndefined as exc:
        if exc.undecided:
            raise ExerciseUndecided(ex.path, ex.id, exc.key, f"computing it needs {exc.reason}",
                                    exc.expected) from None
        if not exc.supported:
            raise ExerciseNotSupported(ex.path, ex.id, exc.key,
                                       f"computing it needs {exc.reason}",
                                       exc.expected) from None
        problem = (f"has no value for these givens: {exc.reason}"
                   if exc.key == f"define.{exc.name}" else exc.reason)
        raise ExerciseError(ex.path, ex.id, exc.key, problem,
                            exc.expected) from None


def check_exercise(ex: Exercise, seconds: float | None = DEFAULT_SECONDS,
                   reason: str = "", wall: float | None = None, wall_reason: str = "") -> Report:
    """The exercise's key and claims; past `seconds` of CPU time (or `wall` seconds of wall
    time, said as `wall_reason`), a report whose every claim is `undecided` (the run goes on
    with the next exercise)."""
    try:
        if reason:
            raise DecisionTimeout(reason)
        bound = None if seconds is None else computation_seconds(seconds)
        with time_bound(bound, wall=wall):  # start-up and writing fit in the rest of `seconds`
            return _check(ex, bound)
    except ExerciseUndecided as exc:  # a sign no bound decided: undecided, with its reason
        return _undecided(ex, f"{exc.key}: {exc.problem}", by="a sign not decided")
    except DecisionTimeout as exc:
        if not reason:
            reason = (wall_reason if exc.wall and wall_reason
                      else f"passed its time bound of {seconds:g} s of CPU time (--time-limit)")
        return _undecided(ex, reason)


def _undecided(ex: Exercise, reason: str, by: str = "time bound") -> Report:
    """The report of an exercise without an outcome: every claim `undecided`, for `reason`."""
    return Report(ex, {}, tuple(
        ClaimResult(name, claim.text, UNDECIDED, None, None, claim.as_written())
        for name, claim in ex.claims.items()), undecided=reason, undecided_by=by)


def quantity_key(ex: Exercise, name: str) -> str:
    """The key that names a quantity in a message: its define entry, else its claim, else its
    name."""
    if isinstance(ex.raw.get("define"), dict) and name in ex.raw["define"]:
        return f"define.{name}"
    return f"claims.{name}" if name in ex.claims else name


def printable(ex: Exercise, values: dict) -> None:
    """ExerciseNotSupported naming the file, the exercise and the quantity when a value has no
    certified decimal to show (such as exp(10³⁰), beyond what enclosures reach), instead of a
    message without them from the renderer."""
    def irrational(v) -> bool:  # a rational always has its decimal
        if isinstance(v, (list, tuple)):
            return any(irrational(x) for x in v)
        return not getattr(v, "is_Rational", True)

    for name, value in values.items():
        if not irrational(value):
            continue
        try:
            decimal_str(value)  # the decimal column's digits (render.numbers.STYLE)
        except NoCertifiedDecimal:
            raise ExerciseNotSupported(
                ex.path, ex.id, quantity_key(ex, name),
                "its value has no certified decimal (derive encloses no digit of it, as for "
                "exp of an argument beyond ±2^64)",
                "use givens that keep the values within that range") from None


def _check(ex: Exercise, seconds: float | None = None) -> Report:
    end = time.process_time() + seconds if seconds else None  # the bound's CPU time
    values = answer_key(ex)
    printable(ex, values)
    numbers = {n: c for n, c in ex.claims.items() if c.formula is None}
    statuses = {name: judge(claim, values[name]) for name, claim in numbers.items()}
    order = list(values)
    wrong = sorted((n for n, s in statuses.items() if s == WRONG), key=order.index)
    explained, forms, read = {}, {}, {}
    pending = [n for n, c in ex.claims.items() if c.formula is not None]
    for done, name in enumerate(pending):
        share = None if end is None else (end - time.process_time()) / (len(pending) - done)
        j, forms[name], read[name] = _formula(ex, name, ex.claims[name], share)
        statuses[name] = j.status
        explained[name] = formula_diagnosis(name, j, ex.claims[name].formula, ex.recipe,
                                            ex.given)
    # a claim may follow from a wrong formula answer: from its value on this exercise
    carried = {name: formula_value(ex.claims[name].formula, ex.recipe, ex.given, name,
                                   values[name])
               for name in pending if statuses[name] == WRONG}
    diagnoses = {**diagnose(ex.recipe, ex.given, numbers, wrong, values, carried), **explained}
    for name, claim in numbers.items():  # a number no certified bound settles: why, in a sentence
        if statuses[name] == UNDECIDED:
            why = number_left_open(claim, values[name])
            diagnoses[name] = Diagnosis(name, explanation=f"undecided: {why}",
                                        args=("undecided", str(why), why.say("zh")))
    tensors = getattr(ex.recipe, "tensors", {})
    results = tuple(
        ClaimResult(name, ex.claims[name].text, statuses[name],
                    None if name in forms else values[name], diagnoses.get(name),
                    ex.claims[name].as_written(), forms.get(name), read.get(name),
                    *_entries(tensors, name, ex.claims[name], values[name]))
        for name in sorted(ex.claims, key=order.index))
    return Report(ex, values, results, warnings=declared_warnings(
        ex.recipe, ex.given, ex.declared, values) if ex.declared else ())


def _entries(tensors, name: str, claim, value) -> tuple:
    """(shape, entry statuses) of a claim of a tensor quantity, (None, None) for any other
    claim (a formula answer of a tensor is judged whole)."""
    if name not in tensors or claim.formula is not None:
        return None, None
    return tensors[name].shape, entry_statuses(claim, value)


def _formula(ex: Exercise, name: str, claim, left: float | None
             ) -> tuple[Judgement, str | None, str | None]:
    """A formula answer's judgement (its status; the witness of a wrong one, the reason of
    an undecided one) and the quantity's own formula, in the formula language and as a reader
    writes it with the author's names (`lr` as written). Its bound is FORMULA_SECONDS, or less
    when the exercise has less left (with a margin, so that the claim, not the whole
    exercise, is undecided)."""
    seconds = FORMULA_SECONDS if left is None else min(FORMULA_SECONDS,
                                                       round(0.8 * left - 0.1, 1))
    if seconds <= 0.05:
        j = undecided(because("no_time"))
    else:
        j = judge_formula(claim.formula, ex.recipe, ex.given, name, seconds)
    return (j, *quantity_formulas(ex.recipe, ex.given, name, author_spellings(ex)))


def author_spellings(ex: Exercise) -> dict[str, str]:
    """The names the exercise's file spells otherwise than derive's canonical name: its
    givens' and its definitions' keys (`lr` for eta)."""
    raw = ex.raw if isinstance(ex.raw, dict) else {}
    names = [k for part in ("given", "define") if isinstance(raw.get(part), dict)
             for k in raw[part]]
    return spellings(names)
