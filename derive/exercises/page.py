"""What a self-check page judges an answer with, as data: the rule of each asked quantity
(declared by the author, else chosen from its exact answer: `rule_of`) and, computed by
`derive.exercises.selfcheck`, its exact value, the values of known mistakes and its
carried-forward forms. The page's renderer draws from these (`derive.render.selfcheck`)."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.kernel.exact import terminating_places

__all__ = ["ASK_TESTS", "DEFAULT_SIG", "EXACT_PLACES", "STATIC", "Ask", "Asked", "Carried",
           "Early", "Known", "Rule", "flat", "rule_of"]


@dataclass(frozen=True)
class Rule:
    """How an answer is judged: `exact`; `places` (a decimal is right rounded half away from
    zero to at least these places); or `test` (places, sig, rel, abs) with its tolerance."""

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
    """The quantity's words (English, Chinese), as its question names it: the author's
    `label` when declared (`Ask`)."""
    shape: tuple[int, ...] | None = None
    """A tensor quantity's shape (derive.recipes.base.TensorQuantity), else None: a page asks
    for a vector or a matrix as a grid of entries, each judged as an element of a list."""
    prompt: tuple[str, str] = ("", "")
    """The author's wording of the question (`Ask.prompt`), ("", "") when not declared."""


def flat(value):
    """A tensor's nested list of entries as one list, row-major (as a page's grid numbers its
    cells); a number or a flat list as it is."""
    if isinstance(value, list) and any(isinstance(v, list) for v in value):
        return [e for v in value for e in (flat(v) if isinstance(v, list) else [v])]
    return value


EXACT_PLACES = 4
"""An answer whose decimal ends within this many places is asked exactly (an integer, 0.72,
-7.4628): the student writes the whole value."""
DEFAULT_SIG = 4
"""Any other answer (14/3, 8/15, a GiB figure, Adam's square roots) is asked to this many
significant figures when its exercise declares no precision: the course's figures (4.667,
0.5333, 14.90) need four, and significant figures keep the same rule for a gradient of 3e-5
and a byte count of 2e9."""

ASK_TESTS = ("places", "sig", "abs", "rel", "exact")
"""The keys of an `[exercise.ask.<quantity>]` declaration of which exactly one is given."""


@dataclass(frozen=True)
class Ask:
    """A question as the lecturer poses it (`[exercise.ask.<quantity>]`): the precision asked
    (None: chosen from the exact answer, `rule_of`), the label of its input and the wording of
    the question, each (English, Chinese) with "" where not given."""

    rule: Rule | None = None
    label: tuple[str, str] = ("", "")
    prompt: tuple[str, str] = ("", "")


def _leaves(value) -> list:
    return [x for v in value for x in _leaves(v)] if isinstance(value, (list, tuple)) \
        else [value]


MAX_WRITTEN_BITS = 3000
"""An integer longer than this (about 900 digits) is never written out to count its digits:
no page or sheet shows such a value (derive.render.numbers.writable refuses it)."""


def _significant(r: sp.Rational, places: int) -> int:
    """The significant digits of a terminating decimal with `places` places (0.42: 2;
    1953125: 7; 100: 1; 0: 1); for a value too long to write, an estimate from its bits."""
    n = abs(int(r.p)) * 10**places // int(r.q)
    if n.bit_length() > MAX_WRITTEN_BITS:
        return int(n.bit_length() * 0.30103) + 1
    return max(1, len(str(n).rstrip("0")))


def _own(value) -> tuple[sp.Rational, int] | None:
    """One exact answer that is asked exactly (rational, its decimal ending within
    EXACT_PLACES places) with its places; None for any other (asked to DEFAULT_SIG
    significant figures)."""
    if isinstance(value, bool) or not isinstance(value, (int, sp.Basic)):
        return None
    e = sp.Integer(value) if isinstance(value, int) else value
    if not e.is_Rational:  # (no is_number: it walks a shared DAG as a tree)
        return None
    places = terminating_places(e)
    if places is None or places > EXACT_PLACES:
        return None
    return (e, places)


def rule_of(value, ask: Ask | None = None) -> Rule:
    """How a question is judged: the author's declaration when there is one, else chosen from
    the exact answer `value` alone (never from a claim, whose digits may be wrong): exact for
    an answer whose decimal ends within EXACT_PLACES places, else DEFAULT_SIG significant
    figures. A list or a tensor takes one rule that asks each entry at least as finely as its
    own value would: exact when every entry is exact, else significant figures enough to
    write every terminating entry whole (-123.45 beside 14/3 asks 5)."""
    if ask is not None and ask.rule is not None:
        return ask.rule
    needs = [_own(v) for v in _leaves(value)]
    if needs and all(n is not None for n in needs):
        return Rule("exact")
    sig = max([DEFAULT_SIG] + [_significant(*n) for n in needs if n is not None])
    return Rule("test", test="sig", tolerance=sp.Integer(sig))
