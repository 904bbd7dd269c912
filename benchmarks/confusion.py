"""The confusion matrix of the diagnosis (issue 34): for every exercise of proofs/course,
docs/examples, benchmarks/bank24, benchmarks/heldout24 and benchmarks/lessons05, every mistake
derive knows for each claimed quantity is planted (its value computed from the exercise's exact
inputs, claimed alone, checked), and what derive then says is recorded:

- named: the planted mistake named, and no other candidate gives the value;
- named, tie hidden: the planted mistake named alone although others give the value too (they
  were only in the JSON's `also`; the rule of evidence shows them as a tie);
- tied: the planted mistake among the candidates shown as a tie ("… or …");
- offered: the planted mistake among the candidates offered, not asserted (a generic mutation
  that alone fits, or a value one slip from the right one);
- silent: no mistake named or offered and the planted one nowhere (a value printed from floating
  point, a tie rounded to even, … come first);
- named wrongly: another mistake named alone (the planted one hidden in `also`, or absent);
- other shown: candidates shown as a tie or offered, the planted one not among them.

A value the mistake gives is claimed as the author writes: at the precision of the exercise's
own claim of that quantity when it is a decimal (the same places; for a list the most places of
its elements), else exactly (an integer, a terminating decimal, a fraction; 12 places for a value
that is not rational). A mistake giving the right value (at that precision) is no planting. A
mistake with several candidate values (another ZeRO stage's rule, the planned counts) is planted
at each. Plantings of one quantity with the same claimed text are checked once and classified for
each mistake planted.

Run: `python benchmarks/confusion.py [--recipes all|builtin|formulas] [--jobs N] [--sample N]
[--seed S]`; prints the matrix,
each case that is not named, tied or offered, and the time. `--sample N` plants in N claimed
quantities drawn with the seed (every one by default: the full run takes hours on 2 shared
cores, most of it computing the up to 200 mutations of each quantity of a formulas exercise).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import sys
import time
from collections import Counter
from multiprocessing import get_context
from pathlib import Path

from derive.exercises.artefacts import terminating
from derive.exercises.bank import load
from derive.exercises.check import check_exercise
from derive.exercises.claims import Claim, holds, literal, round_places
from derive.exercises.diagnosis import _mistakes, _try
from derive.recipes import Context

ROOT = Path(__file__).resolve().parent.parent
BANKS = (("proofs/course", ROOT / "proofs" / "course"),
         ("docs/examples", ROOT / "docs" / "examples"),
         ("bank24", ROOT / "benchmarks" / "bank24"),
         ("heldout24", ROOT / "benchmarks" / "heldout24"),
         ("lessons05", ROOT / "benchmarks" / "lessons05"))

CATEGORIES = ("named", "named, tie hidden", "tied", "offered", "silent", "named wrongly",
              "other shown")
PLACES_IRRATIONAL = 12


def exercises() -> list[tuple[str, object]]:
    """(bank label, exercise) of every bank, in order (intended.toml is no bank)."""
    out = []
    for label, folder in BANKS:
        files = ([str(folder)] if label in ("proofs/course", "docs/examples") else
                 sorted(str(p) for p in folder.glob("*.toml") if p.name != "intended.toml"))
        out += [(label, ex) for ex in load(files)]
    return out


def _places(claim: Claim | None) -> int | None:
    """The places the author writes this quantity with: those of their decimal claim (the most
    of a list's elements), else None (exact)."""
    if claim is None or claim.formula is not None or claim.test is not None:
        return None
    if claim.is_list:
        inner = [_places(c) for c in claim.value]
        return max((p for p in inner if p is not None), default=None)
    return claim.places or None


def _text(value, places: int | None):
    """The claim's raw text (a string, or a list of them) for a value, or None."""
    if isinstance(value, (list, tuple)):
        items = [_text(v, places) for v in value]
        return None if any(i is None for i in items) else items
    if not getattr(value, "is_number", False) or not value.is_real:
        return None
    if places is None and value.is_Rational:
        exact = terminating(value, 17) or f"{value.p}/{value.q}"
        if len(exact) <= 40:
            return exact  # else as a value that is not rational: 12 places
    r = round_places(value, places if places is not None else PLACES_IRRATIONAL)
    if r is None:
        return None
    text = terminating(r, 40)
    if text is None:
        return None
    digits = places if places is not None else PLACES_IRRATIONAL
    whole, _, frac = text.partition(".")
    return f"{whole}.{frac.ljust(digits, '0')}" if digits else whole


def _claim(raw) -> Claim:
    if isinstance(raw, list):
        items = [_claim(r) for r in raw]
        return Claim(items, "[" + ", ".join(c.text for c in items) + "]")
    return literal(raw)


def _key(raw) -> str:
    return repr(raw)


def claimed(ex) -> list[str]:
    """The quantities an exercise claims as numbers (a formula answer plants nothing)."""
    return [name for name, claim in ex.claims.items() if claim.formula is None]


def plantings(ex, names=None) -> dict[tuple[str, str], tuple[object, list[str]]]:
    """{(quantity, claimed text): (raw claim, the mistakes planted with it)} for one
    exercise (for the quantities `names`, every claimed one by default)."""
    base = Context(ex.recipe, ex.given)
    out: dict[tuple[str, str], tuple[object, list[str]]] = {}
    for name in claimed(ex) if names is None else names:
        claim = ex.claims[name]
        expected = _try(lambda c, q=name: c[q], base)
        if expected is None:
            continue
        places = _places(claim)
        for mname, _, compute, candidates in _mistakes(ex.recipe, name, ex.given):
            if candidates is None:
                values = [_try(compute, base)]
            else:
                values = [c.value for c in (_try(candidates, base) or ())]
            for value in values:
                raw = None if value is None else _text(value, places)
                if raw is None:
                    continue
                planted = _claim(raw)
                if _holds(planted, expected):
                    continue  # the mistake gives the right value here: no planting
                entry = out.setdefault((name, _key(raw)), (raw, []))
                if mname not in entry[1]:
                    entry[1].append(mname)
    return out


def _holds(claim: Claim, expected) -> bool:
    if claim.is_list != isinstance(expected, (list, tuple)):
        return False
    if claim.is_list:
        return len(claim.value) == len(expected) and all(map(_holds, claim.value, expected))
    return holds(claim, expected)


def category(d, planted: str) -> str:
    """What the reader is told about the planted mistake (see the module's docstring); works
    on diagnoses with `certainty` and `candidates` (the rule of evidence) and without."""
    if d is None:
        return "silent"
    certainty = getattr(d, "certainty", None)
    candidates = getattr(d, "candidates", None)
    if candidates is None:  # before the rule: `mistake` named, `also` in JSON only
        if d.mistake == planted:
            return "named, tie hidden" if d.also else "named"
        if d.mistake:
            return "named wrongly"
        return "offered" if planted in d.also else ("other shown" if d.also else "silent")
    if certainty == "named":
        return "named" if d.mistake == planted else "named wrongly"
    if certainty in ("tied", "offered"):
        if planted not in candidates:
            return "other shown"
        return certainty
    return "named wrongly" if d.mistake else "silent"


def _run(job):
    """Check one exercise with one planted claim; [(bank, id, quantity, text, mistake,
    category, what derive said)]."""
    label, index, name, raw, planted = job
    ex = EXERCISES[index][1]
    changed = dataclasses.replace(ex, claims={name: _claim(raw)})
    try:
        (result,) = check_exercise(changed).claims
    except Exception as exc:  # a check that fails is reported, not hidden
        return [(label, ex.id, name, str(raw), m, "silent", f"error: {exc}") for m in planted]
    d = result.diagnosis
    if result.status != "wrong":
        return [(label, ex.id, name, str(raw), m, "silent", f"status {result.status}")
                for m in planted]
    said = "" if d is None else (d.mistake or "-") + " | " + ", ".join(
        getattr(d, "candidates", None) or d.also)
    return [(label, ex.id, name, str(raw), m, category(d, m), said) for m in planted]


EXERCISES: list = []


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--recipes", choices=("all", "builtin", "formulas"), default="all",
                        help="the exercises of the built-in recipes, of `formulas`, or all")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    EXERCISES[:] = [(label, ex) for label, ex in exercises()
                    if args.recipes == "all" or (ex.recipe.name == "formulas") == (
                        args.recipes == "formulas")]
    pairs = [(index, name) for index, (_, ex) in enumerate(EXERCISES) for name in claimed(ex)]
    if args.sample and args.sample < len(pairs):  # the claimed quantities, drawn with the seed
        pairs = sorted(random.Random(args.seed).sample(pairs, args.sample))
    jobs = []
    for index, name in pairs:
        label, ex = EXERCISES[index]
        for _, (raw, planted) in plantings(ex, [name]).items():
            jobs.append((label, index, name, raw, tuple(planted)))
    total = sum(len(j[4]) for j in jobs)
    print(f"{len(EXERCISES)} exercises; {len(pairs)} claimed quantities"
          + (f" (a sample drawn with seed {args.seed})" if args.sample else "")
          + f"; {total} plantings, {len(jobs)} distinct claims checked", flush=True)
    if args.jobs > 1:
        with get_context("fork").Pool(args.jobs) as pool:
            rows = [r for rs in pool.imap(_run, jobs, chunksize=4) for r in rs]
    else:
        rows = [r for j in jobs for r in _run(j)]
    counts = Counter(r[5] for r in rows)
    by_bank = {label: Counter(r[5] for r in rows if r[0] == label) for label, _ in BANKS}
    width = max(map(len, CATEGORIES))
    print(f"{'':{width}}  {'all':>6}  " + "  ".join(f"{b:>13}" for b in by_bank))
    for cat in CATEGORIES:
        print(f"{cat:{width}}  {counts[cat]:>6}  "
              + "  ".join(f"{c[cat]:>13}" for c in by_bank.values()))
    print(f"{'plantings':{width}}  {len(rows):>6}  "
          + "  ".join(f"{sum(c.values()):>13}" for c in by_bank.values()))
    shown = counts["named"] + counts["named, tie hidden"] + counts["tied"] + counts["offered"]
    n = max(len(rows), 1)
    print(f"planted mistake named, tied or offered: {shown} of {len(rows)} "
          f"({100 * shown / n:.1f}%); named or tied: "
          f"{counts['named'] + counts['named, tie hidden'] + counts['tied']}; another named "
          f"alone: {counts['named wrongly']} ({100 * counts['named wrongly'] / n:.1f}%)")
    for r in rows:
        if r[5] in ("silent", "named wrongly", "other shown"):
            print(f"  {r[5]}: {r[0]} {r[1]} {r[2]} = {r[3]}  planted {r[4]}; said {r[6]}")
    print(f"({time.perf_counter() - start:.0f} s, {args.jobs} process"
          f"{'es' if args.jobs > 1 else ''})")
    sys.stdout.flush()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
