"""Verified variants of an exercise: the inputs `[exercise.vary]` allows, kept when every
`[exercise.require]` condition holds, each written with its exact key as claims.

Small spaces (at most ENUMERATE candidates) are enumerated and shuffled with the seed; larger
ones are sampled with it. The same seed gives the same variants on any machine: Python's
`random.Random` is deterministic and nothing depends on hash order.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, replace
from math import prod

from derive.exercises.check import answer_key
from derive.exercises.errors import ExerciseError, ExerciseNotSupported
from derive.exercises.schema import Exercise, exercise
from derive.exercises.variation import _differs
from derive.exercises.writer import comment, table, value
from derive.kernel.exact import TooLongToWrite
from derive.kernel.timebound import DecisionTimeout

ENUMERATE = 50_000
"""Spaces up to this size are enumerated; larger ones are sampled."""

MIN_TRIES = 2_000
TRIES_PER_VARIANT = 200
"""Sampling stops after max(MIN_TRIES, TRIES_PER_VARIANT·N) candidates."""


class VariantError(ExerciseError):
    """Fewer distinct variants than asked satisfy the conditions (exit 2)."""


@dataclass(frozen=True)
class Variant:
    id: str
    given: dict
    values: dict
    text: str = ""
    """The variant's file (`render`), when generated with `write`."""


@dataclass(frozen=True)
class Generation:
    variants: tuple[Variant, ...]
    tried: int
    accepted: int
    space: int
    enumerated: bool
    asked: int = 0
    timed_out: bool = False
    """The time bound passed while searching (only with `allow_fewer`)."""
    failed: int = 0
    """Candidates whose key could not be computed (refused inputs, not a require verdict)."""
    first_failure: str = ""
    requires: bool = True
    """Whether anything is required of a variant ([exercise.require], or a changed gradient)."""

    @property
    def how(self) -> str:
        """How the candidates were searched, in words."""
        if self.timed_out:
            return f"{self.tried} of {self.space} candidates tried before the time bound"
        return (f"all {self.space} candidates enumerated" if self.enumerated else
                f"{self.tried} of {self.space} candidates sampled")

    @property
    def rate(self) -> float:
        return self.accepted / self.tried if self.tried else 0.0

    @property
    def shortfall(self) -> str:
        """Why fewer variants than asked were found, in words: the time bound, the require
        conditions, or candidates that could not be computed (never one for another)."""
        found = len(self.variants)
        if self.timed_out:
            return (f"the time bound was reached after {found} of {self.asked} variants "
                    f"({self.how})")
        parts = [self.how]
        if self.requires:
            parts.append(f"{self.accepted} of {self.tried - self.failed} computed met "
                         "[exercise.require]")
        if self.failed:
            parts.append(f"{self.failed} could not be computed, the first because "
                         f"{self.first_failure}")
        what = ("distinct variants that meet [exercise.require]" if self.requires else
                "distinct variants")
        if not found and self.failed == self.tried:
            return (f"gives no variant: none of its candidates could be computed (the first: "
                    f"{self.first_failure})")
        if not found:
            return (f"gives no variant{' that meets [exercise.require]' if self.requires else ''}"
                    f" ({'; '.join(parts)})")
        return f"gives only {found} {what} ({'; '.join(parts)})"


def _apply(raw_given: dict, ex: Exercise, choice: tuple) -> dict:
    given = copy.deepcopy(raw_given)
    targets = {v.path[2]: copy.deepcopy(v.values[k]) for v, k in zip(ex.vary, choice)
               if v.path[:2] == ("partition", "targets")}
    for v, k in zip(ex.vary, choice):
        new = copy.deepcopy(v.values[k])
        if v.path[:2] == ("partition", "targets"):
            continue
        if v.path == ("partition",):
            records = [r for mb in given["microbatches"] for r in mb]
            records = [[r[0], targets[i]] if i in targets else r for i, r in enumerate(records)]
            sizes = new if isinstance(new, list) else []
            if sum(s for s in sizes if isinstance(s, int)) != len(records) or \
                    not all(isinstance(s, int) and s > 0 for s in sizes):
                raise ValueError("a partition must split every record")
            out, i = [], 0
            for s in sizes:
                out.append(records[i:i + s])
                i += s
            given["microbatches"] = out
            continue
        node = given
        for step in v.path[:-1]:
            if v.default is not None and isinstance(node, dict) and step not in node:
                node[step] = list(copy.deepcopy(v.default))  # an unwritten option's default
            node = node[step]
        node[v.path[-1]] = new
    return given


def _choices(ex: Exercise, rng: random.Random, space: int):
    sizes = [len(v.values) for v in ex.vary]
    if space <= ENUMERATE:
        order = list(range(space))
        rng.shuffle(order)
        for n in order:
            choice = []
            for s in sizes:
                n, k = divmod(n, s)
                choice.append(k)
            yield tuple(choice)
        return
    while True:
        yield tuple(rng.randrange(s) for s in sizes)


def _canonical(given: dict) -> str:
    return value(given)


def generate(ex: Exercise, n: int, seed: int = 0, allow_fewer: bool = False,
             write: bool = False) -> Generation:
    """n distinct variants of `ex`, or VariantError saying how many could be found. With
    `write`, each variant's file is rendered as it is found (the same time bound covers it, so
    the variants found when the bound passes are the variants written).

    With `allow_fewer` (the command line: a scarce exercise must not block the others of its
    file) fewer than n are returned, and a time bound passing while searching ends the search
    with what was found; VariantError only when nothing at all is found."""
    if not ex.vary:
        raise VariantError(ex.path, ex.id, "vary", "is missing: nothing may change",
                           "add an [exercise.vary] table naming the inputs to vary")
    rng = random.Random(seed)
    space = prod(len(v.values) for v in ex.vary)
    limit = space if space <= ENUMERATE else max(MIN_TRIES, TRIES_PER_VARIANT * n)
    base = {k: v for k, v in ex.raw.items() if k not in ("claims", "vary", "require")}
    headline = None  # partition with targets: the exercise's own gradient must change
    if any(v.path[:2] == ("partition", "targets") for v in ex.vary):
        headline = answer_key(ex)["gradient"]
    seen, found, tried, accepted, timed_out = set(), [], 0, 0, False
    failed, first_failure = 0, ""
    for choice in _choices(ex, rng, space):
        if len(found) == n or tried >= limit:
            break
        tried += 1
        try:
            raw = _apply(ex.raw.get("given", {}), ex, choice)
            key = _canonical(raw)
            if key in seen:
                continue
            seen.add(key)
            candidate = exercise({**base, "given": raw}, ex.path, 0, ex.notation)
            values = answer_key(candidate)
            ok = all(c.holds(values.get(name), values, candidate.given)
                     for name, conds in ex.require.items() for c in conds) and (
                headline is None or _differs(values["gradient"], headline))
        except ExerciseError as exc:
            failed += 1
            first_failure = first_failure or (f"{exc.key} {exc.problem}" if exc.key else
                                             exc.problem)[:200]
            continue
        except (ValueError, ZeroDivisionError, TypeError, IndexError) as exc:
            failed += 1
            first_failure = first_failure or str(exc)[:200]
            continue
        except DecisionTimeout:
            if not allow_fewer:
                raise
            timed_out = True
            break
        if ok:
            accepted += 1
            variant = Variant(f"{ex.id}-v{len(found) + 1:03d}", raw, values)
            if write:
                try:
                    variant = replace(variant, text=render(ex, variant, len(found) + 1))
                except DecisionTimeout:
                    if not allow_fewer:
                        raise
                    timed_out = True
                    break
            found.append(variant)
    result = Generation(tuple(found), tried, accepted, space, space <= ENUMERATE, n, timed_out,
                        failed, first_failure, bool(ex.require) or headline is not None)
    if len(found) < n:
        if found and allow_fewer:
            return result
        if timed_out:
            raise DecisionTimeout("time bound passed")
        hint = ("widen [exercise.vary] or relax [exercise.require]" if result.requires else
                "widen [exercise.vary]")
        if found:
            hint = f"ask for at most {len(found)}, or {hint}"
        raise VariantError(ex.path, ex.id, "vary", result.shortfall, hint)
    return result


def render(ex: Exercise, variant: Variant, number: int) -> str:
    """A variant as an exercise file whose claims are its exact key."""
    header = f"Variant {number} of {ex.id} ({ex.path}), generated by `derive variants`."
    lines = [f"# {comment(header)}",
             "", "[[exercise]]", f"id = {value(variant.id)}"]
    if ex.title:
        lines.append(f"title = {value(ex.title + f' (variant {number})')}")
    lines += [f"recipe = {value(ex.recipe.name)}", ""]
    lines += table("exercise.given", variant.given) + [""]
    if "define" in ex.raw:  # a derivation of the author's own: its formulas, unchanged
        lines += table("exercise.define", ex.raw["define"]) + [""]
    lines.append("[exercise.claims]")
    for name, v in variant.values.items():
        try:
            lines.append(f"{name} = {value(v)}")
        except TooLongToWrite as exc:
            # the claim the variant would write is the key (the exercise may have none)
            raise ExerciseNotSupported(ex.path, ex.id, f"claims.{name}",
                                       f"variant {number}'s value cannot be written as a "
                                       f"claim: {exc}", "vary the givens over smaller values"
                                       ) from None
    return "\n".join(lines) + "\n"


def variant_exercise(ex: Exercise, variant: Variant) -> Exercise:
    """The variant as an exercise of its own (the original's id, title and derivation, the
    variant's givens, no claims): what a page of variants derives and checks against."""
    base = {k: v for k, v in ex.raw.items() if k not in ("claims", "vary", "require")}
    return exercise({**base, "given": variant.given}, ex.path, 0, ex.notation)
