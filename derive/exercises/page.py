"""What a self-check page judges an answer with, as data: the rule of each asked quantity
(from the author's claim) and, computed by `derive.exercises.selfcheck`, its exact value, the
values of known mistakes and its carried-forward forms. The page's renderer draws from these
(`derive.render.selfcheck`)."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.exercises.claims import Claim

__all__ = ["STATIC", "Asked", "Carried", "Early", "Known", "Rule", "flat", "rule_of"]


@dataclass(frozen=True)
class Rule:
    """How an answer is judged: `exact`; `places` (a decimal is right rounded half away from
    zero to at least these places, as the author wrote the claim); or `test` with the claim's
    own test (places, sig, rel, abs) and tolerance."""

    kind: str
    places: int | None = None
    test: str | None = None
    tolerance: sp.Rational | None = None


@dataclass(frozen=True)
class Known:
    """A known mistake's value for a quantity, with its words (the recipe's mistakes, then
    its wrong schemes, in `derive check`'s order)."""

    mistake: str
    en: str
    zh: str
    value: object
    origin: str = "course"
    """"declared", "course" or "generic" (derive.exercises.evidence): how the page weighs it."""


@dataclass(frozen=True)
class Early:
    """The quantity computed after an earlier quantity `source` (asked or not) was rounded to
    `places` digits (`rounded_early`), in `derive check`'s order."""

    source: str
    places: int
    en: str
    zh: str
    value: object


@dataclass(frozen=True)
class Carried:
    """The quantity computed from the student's own answers to `sources` (earlier asked
    quantities): `form` is its value with a symbol `p` (or `p[i]` for a list's element i) for
    each source `p`; `STATIC` where the sources do not change it; None where the page cannot
    evaluate it (then it names no mistake once one of these sources is wrong)."""

    sources: tuple[str, ...]
    form: object


STATIC = "static"


@dataclass(frozen=True)
class Asked:
    """What a page judges one asked quantity with, as `derive check` diagnoses a claim of it:
    the value and rule; the float-artefact window of each element; the carried-forward forms
    (each earlier asked quantity alone, then all of them together); the known mistakes; the
    early roundings."""

    name: str
    value: object
    rule: Rule
    known: tuple[Known, ...]
    carried: tuple[Carried, ...]
    early: tuple[Early, ...] = ()
    artefact: object = None
    """Per element (a list for a list quantity): the exact window [lo, hi] of decimals a
    double's printout of the value may take (derive.exercises.artefacts), or None."""
    words: tuple[str, str] = ("", "")
    """The quantity's words (English, Chinese), as its question names it."""
    shape: tuple[int, ...] | None = None
    """A tensor quantity's shape (derive.recipes.base.TensorQuantity), else None: a page asks
    for a vector or a matrix as a grid of entries, each judged as an element of a list."""


def flat(value):
    """A tensor's nested list of entries as one list, row-major (as a page's grid numbers its
    cells); a number or a flat list as it is."""
    if isinstance(value, list) and any(isinstance(v, list) for v in value):
        return [e for v in value for e in (flat(v) if isinstance(v, list) else [v])]
    return value


def rule_of(claim: Claim | None) -> Rule:
    """The exercise's rule for a quantity, from the author's claim of it: an integer or a
    fraction asks for the exact value, a decimal for its places, a table for its test. A list
    claim takes its elements' rule (the fewest places of them)."""
    if claim is None or claim.formula is not None:
        return Rule("exact")
    if claim.is_list:
        rules = [rule_of(c) for c in claim.value]
        tests = [r for r in rules if r.kind == "test"]
        if tests:
            return tests[0]
        places = [r.places for r in rules if r.kind == "places"]
        return Rule("places", places=min(places)) if places else Rule("exact")
    if claim.test is not None:
        return Rule("test", test=claim.test, tolerance=claim.tolerance)
    if claim.places is not None:
        return Rule("places", places=claim.places)
    return Rule("exact")
