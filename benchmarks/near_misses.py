"""How often a mistake is named for a claim that is only a near miss of the right value: every
right number claimed in the bundled exercises (proofs/course, docs/examples) with one digit
changed by ±1, or rounded one place short. A near miss is a slip, not a known mistake: the
rate at which the diagnosis names a mistake for it is the false-naming rate (issue 24 asks for
at most 1%).

Two data sets: the bundled exercises as written (friendly numbers), and the same exercises
with their real-valued givens (w, b, lr, records, gradients, …; never counts or sizes) replaced
by ordinary decimals as torch prints them (four places), each right number then claimed as
torch prints it. A third count: the recipe mistakes' own values claimed (for the claims of the
bundled exercises), how many keep their name — what the rule costs.

A third set is benchmarks/bank24, the exercises written apart from derive's output for issue 24.

Run: `python benchmarks/near_misses.py`. Prints the counts and the rates, and each named case.
"""

from __future__ import annotations

import dataclasses
import random
import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import sympy as sp

from derive.exercises.bank import load
from derive.exercises.check import check_exercise
from derive.exercises.claims import literal, round_places
from derive.exercises.diagnosis import _mistakes, _try
from derive.recipes import Context
from derive.recipes.formulas import Rows

ROOT = Path(__file__).resolve().parent.parent
BANKS = (ROOT / "proofs" / "course", ROOT / "docs" / "examples")
BANK24 = ROOT / "benchmarks" / "bank24"
"""The issue-24 bank, written apart from derive's output (its intended.toml is not a bank)."""


def near_misses(text: str) -> list[str]:
    """One digit ±1 (each digit), and the value rounded to one place fewer."""
    out = []
    digits = [k for k, ch in enumerate(text) if ch.isdigit()]
    for k in digits:
        for step in (-1, 1):
            d = int(text[k]) + step
            if 0 <= d <= 9 and not (d == 0 and k == digits[0] and len(digits) > 1
                                    and text[k + 1:k + 2] != "."):
                out.append(text[:k] + str(d) + text[k + 1:])
    if "." in text:
        places = len(text.split(".")[1])
        if places > 1:
            q = Decimal(1).scaleb(-(places - 1))
            out.append(str(Decimal(text).quantize(q, rounding=ROUND_HALF_UP)))
    return [t for t in dict.fromkeys(out) if t != text]


REAL = frozenset({"w", "b", "lr", "w0", "w1", "w2", "records", "microbatches", "gradients",
                  "microbatch_mean_gradients", "batches"})
"""Givens that are real values (replaced by decimals); counts, sizes and settings are kept."""


def _decimal(value, rng: random.Random):
    """A real value moved to an ordinary four-place decimal (torch's print of a float)."""
    if isinstance(value, bool) or isinstance(value, int):
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_decimal(v, rng) for v in value)
    if isinstance(value, Rows):
        return dataclasses.replace(value, rows=tuple(tuple(_decimal(v, rng) for v in r)
                                                     for r in value.rows))
    if getattr(value, "is_Rational", False):
        moved = value * (1 + sp.Rational(rng.randint(-4000, 4000), 10000)) + \
            sp.Rational(rng.randint(-5000, 5000), 10000)
        return round_places(moved, 4)
    return value


def _text(value) -> str | None:
    """A right value as torch prints it (four places), or None where it prints otherwise."""
    if not getattr(value, "is_number", False):
        return None
    r = round_places(value, 4)  # exact, or certified where the value is not rational
    if r is None or not sp.Rational(1, 1000) <= abs(r) < 10**5:
        return None
    return None if r is None else f"{float(r):.4f}"


def decimal_exercises(exercises, seed: int = 24):
    """Each exercise with its real givens moved to ordinary decimals and every right number it
    claims claimed again as torch prints the new value."""
    rng = random.Random(seed)
    out = []
    for ex in exercises:
        given = {k: (_decimal(v, rng) if k in REAL else v) for k, v in ex.given.items()}
        moved = dataclasses.replace(ex, given=given)
        try:
            report = check_exercise(moved)
        except Exception:  # the moved givens leave the recipe's domain: not counted
            continue
        claims = {}
        for c in report.claims:
            text = _text(report.values.get(c.name)) if c.formula is None else None
            if text is not None and not isinstance(ex.claims[c.name].text, list):
                claims[c.name] = literal(text)
        if claims:
            out.append(dataclasses.replace(moved, claims=claims))
    return out


def false_naming(exercises) -> tuple[int, int, int, list]:
    """(near misses tried, judged wrong, named as a mistake, the named cases)."""
    tried = wrong = named = 0
    cases = []
    for ex in exercises:
        try:
            report = check_exercise(ex)
        except Exception:  # an exercise the run cannot check (time bound): not counted
            continue
        right = {c.name for c in report.claims if c.status in ("exact", "rounded")}
        for name, claim in ex.claims.items():
            if name not in right or claim.formula is not None or not isinstance(claim.text, str):
                continue
            if claim.text.startswith("["):
                continue  # lists: their first element's slips are the same test, once
            for text in near_misses(claim.text):
                tried += 1
                changed = dataclasses.replace(ex, claims={**ex.claims, name: literal(text)})
                result = next(c for c in check_exercise(changed).claims if c.name == name)
                if result.status != "wrong":
                    continue
                wrong += 1
                if result.diagnosis is not None and result.diagnosis.mistake:
                    named += 1
                    cases.append((ex.id, name, claim.text, text, result.diagnosis.mistake))
    return tried, wrong, named, cases


def kept(exercises) -> tuple[int, int, list]:
    """(recipe mistakes whose exact value, claimed, is wrong; of them named as that mistake or
    one giving the same value; the ones offered instead)."""
    total = named = 0
    offered = []
    for ex in exercises:
        try:
            report = check_exercise(ex)
        except Exception:
            continue
        base = Context(ex.recipe, ex.given)
        for name in ex.claims:
            if ex.claims[name].formula is not None:
                continue
            for mname, _, compute, candidates in _mistakes(ex.recipe, name, ex.given):
                value = None if candidates is not None else _try(compute, base)
                if not getattr(value, "is_Rational", False) or value == report.values[name]:
                    continue
                text = str(value)
                changed = dataclasses.replace(ex, claims={name: literal(text)})
                (result,) = check_exercise(changed).claims
                if result.status != "wrong" or result.diagnosis.carried_from:
                    continue
                total += 1
                d = result.diagnosis
                if d.mistake:
                    named += 1
                elif mname in d.also:
                    offered.append((ex.id, name, text, mname, d.certainty or "offered"))
    return total, named, offered


def main() -> None:
    exercises = [ex for bank in BANKS for ex in load([str(bank)])]
    start = time.perf_counter()
    bank24 = load(sorted(str(p) for p in BANK24.glob("*.toml") if p.name != "intended.toml"))
    for label, data in (("bundled", exercises), ("torch decimals", decimal_exercises(exercises)),
                        ("bank24 (independent)", bank24)):
        tried, wrong, named, cases = false_naming(data)
        print(f"{label}: {len(data)} exercises; {tried} near misses tried, {wrong} judged wrong, "
              f"{named} named as a mistake: {100 * named / max(wrong, 1):.1f}%")
        for case in cases:
            print("  named:", *case)
    total, named, offered = kept(exercises)
    print(f"recipe mistakes claimed at their exact value: {total} wrong, {named} named, "
          f"{sum(c[-1] == 'tied' for c in offered)} listed in a tie (the rule of evidence), "
          f"{sum(c[-1] != 'tied' for c in offered)} offered only (one slip from the right "
          "value, or a generic edit alone)")
    for case in offered:
        print("  offered:", *case)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
