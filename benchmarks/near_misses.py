"""How often a mistake is named for a claim that is only a near miss of the right value: every
right number claimed in the bundled exercises (proofs/course, docs/examples) with one digit
changed by ±1, or rounded one place short. A near miss is a slip, not a known mistake: the
rate at which the diagnosis names a mistake for it is the false-naming rate (issue 24 asks for
at most 1%).

Run: `python benchmarks/near_misses.py`. Prints the counts and the rate, and each named case.
"""

from __future__ import annotations

import dataclasses
import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from derive.exercises.bank import load
from derive.exercises.check import check_exercise
from derive.exercises.claims import literal

ROOT = Path(__file__).resolve().parent.parent
BANKS = (ROOT / "proofs" / "course", ROOT / "docs" / "examples")


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


def main() -> None:
    exercises = [ex for bank in BANKS for ex in load([str(bank)])]
    tried = wrong = named = 0
    cases = []
    start = time.perf_counter()
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
    seconds = time.perf_counter() - start
    print(f"{len(exercises)} exercises; {tried} near misses tried, {wrong} judged wrong, "
          f"{named} named as a mistake: {100 * named / max(wrong, 1):.1f}% "
          f"({seconds:.0f} s)")
    for case in cases:
        print("  named:", *case)


if __name__ == "__main__":
    main()
