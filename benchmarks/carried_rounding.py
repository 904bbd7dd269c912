"""Carried forward through rounding (issue 34, item 3): how many later claims computed from an
author's unrounded wrong value are found carried, before (a commit, `main` by default) and
after (this tree).

For every exercise of proofs/course, docs/examples, benchmarks/bank24 and benchmarks/heldout24
and every quantity p it claims as a number (or a list of numbers) that feeds a later claimed
quantity, one planting: p's exact value times 11/10, claimed rounded half away from zero to 4
places as torch prints it ("0.9484"); every later claimed quantity q whose value that wrong p
changes, computed exactly from the unrounded wrong p (the recipe's own computation, p
overridden) and claimed rounded to 4 places. The exercise keeps those claims only. A later
claim that is wrong is "found" when its diagnosis says it is carried (`carried_from` set: from
p, or from a later planted claim that is carried from it).

The plantings are made once, by this tree's code, and written to a file; each side checks
them in a fresh process (`--measure`): the before side from `git archive REV` unpacked in a
temporary folder, first on PYTHONPATH. The time is the CPU time of `check_exercise` alone,
summed over the plantings.

Run: `python benchmarks/carried_rounding.py [--before main] [--jobs N] [-o FILE]`; prints the
figures and writes them to benchmarks/carried-rounding-results.txt (or FILE).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BANKS = (("proofs/course", "proofs/course"), ("docs/examples", "docs/examples"),
         ("bank24", "benchmarks/bank24"), ("heldout24", "benchmarks/heldout24"))
PLACES = 4
FACTOR = Fraction(11, 10)


def _files(root: Path, label: str, folder: str) -> list[str]:
    path = root / folder
    if label in ("proofs/course", "docs/examples"):
        return [str(path)]
    return sorted(str(p) for p in path.glob("*.toml") if p.name != "intended.toml")


def exercises(root: Path) -> list[tuple[str, object]]:
    """(bank label, exercise) of every bank, in order (intended.toml is no bank)."""
    from derive.exercises.bank import load

    return [(label, ex) for label, folder in BANKS for ex in load(_files(root, label, folder))]


def _text(value) -> str | list | None:
    """A value rounded half away from zero to 4 places, written with its 4 places (a list
    element-wise); None where no rounding is certified or for a nested list."""
    from derive.exercises.claims import round_places

    if isinstance(value, (list, tuple)):
        if any(isinstance(v, (list, tuple)) for v in value):
            return None
        items = [_text(v) for v in value]
        return None if any(i is None for i in items) else items
    if not getattr(value, "is_number", False) or not value.is_real:
        return None
    r = round_places(value, PLACES)
    if r is None:
        return None
    r = Fraction(int(r.p), int(r.q))
    n = abs(r.numerator * (10**PLACES // r.denominator))
    return f"{'-' if r < 0 else ''}{n // 10**PLACES}.{n % 10**PLACES:0{PLACES}d}"


def _scaled(value):
    import sympy as sp

    if isinstance(value, (list, tuple)):
        return [_scaled(v) for v in value]
    return value * sp.Rational(FACTOR.numerator, FACTOR.denominator)


def plantings(root: Path) -> list[dict]:
    """Every planting (see the module's docstring): {"bank", "index", "id", "source", "claims":
    {name: raw text or list}} in derivation order."""
    from derive.exercises.check import answer_key
    from derive.exercises.diagnosis import _try
    from derive.recipes import Context

    out = []
    for index, (label, ex) in enumerate(exercises(root)):
        numbers = [n for n, c in ex.claims.items() if c.formula is None]
        if len(numbers) < 2:
            continue
        try:
            values = answer_key(ex)
        except Exception:  # noqa: BLE001 — an exercise without a key plants nothing
            continue
        order = list(values)
        numbers = sorted((n for n in numbers if n in values), key=order.index)
        for i, p in enumerate(numbers):
            wrong = _scaled(values[p])
            source = _text(wrong)
            if source is None or source == _text(values[p]):
                continue  # no wrong claim of p at 4 places (0 times 11/10)
            ctx = Context(ex.recipe, ex.given, {p: wrong})
            claims = {p: source}
            for q in numbers[i + 1:]:
                value = _try(lambda c, q=q: c[q], ctx)
                if value is None or value == values[q]:
                    continue
                raw = _text(value)
                if raw is not None:
                    claims[q] = raw
            if len(claims) > 1:
                out.append({"bank": label, "index": index, "id": ex.id, "source": p,
                            "claims": claims})
    return out


def _claim(raw):
    from derive.exercises.claims import Claim, literal

    if isinstance(raw, list):
        items = [_claim(r) for r in raw]
        return Claim(items, "[" + ", ".join(c.text for c in items) + "]")
    return literal(raw)


_EXERCISES: list = []


def _check(planting: dict) -> dict:
    """One planting checked: each later claim's status and carried sources, the CPU time."""
    import dataclasses

    from derive.exercises.check import check_exercise

    ex = _EXERCISES[planting["index"]][1]
    assert ex.id == planting["id"]
    changed = dataclasses.replace(ex, claims={n: _claim(r) for n, r in
                                              planting["claims"].items()})
    start = time.process_time()
    report = check_exercise(changed)
    seconds = time.process_time() - start
    later = {}
    for c in report.claims:
        if c.name == planting["source"]:
            continue
        d = c.diagnosis
        later[c.name] = {"status": c.status, "list": isinstance(planting["claims"][c.name],
                                                                 list),
                         "carried": list(d.carried) if d is not None else [],
                         "words": d.explanation if d is not None else ""}
    return {"later": later, "seconds": seconds}


def measure(plantings_file: str, root: Path, jobs: int) -> list[dict]:
    _EXERCISES[:] = exercises(root)
    with open(plantings_file, encoding="utf-8") as f:
        plan = json.load(f)
    if jobs > 1:
        with get_context("fork").Pool(jobs) as pool:
            return pool.map(_check, plan, chunksize=1)
    return [_check(p) for p in plan]


def _side(rev: str | None, plan_file: str, jobs: int, tmp: str) -> list[dict]:
    """The results of one side in a fresh process: this tree (rev None) or `rev` unpacked."""
    env = dict(os.environ)
    root = ROOT
    if rev is not None:
        root = Path(tmp) / "before"
        root.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    env["PYTHONPATH"] = str(root)
    out = Path(tmp) / f"results-{'before' if rev else 'after'}.json"
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure", plan_file,
                    "--root", str(root), "--jobs", str(jobs), "--out", str(out)], env=env,
                   check=True)
    return json.loads(out.read_text(encoding="utf-8"))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="main")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("-o", "--output", default=str(ROOT / "benchmarks" /
                                                      "carried-rounding-results.txt"))
    parser.add_argument("--measure")
    parser.add_argument("--root")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.measure:
        results = measure(args.measure, Path(args.root), args.jobs)
        Path(args.out).write_text(json.dumps(results), encoding="utf-8")
        return
    start = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    plan = plantings(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        plan_file = str(Path(tmp) / "plantings.json")
        Path(plan_file).write_text(json.dumps(plan), encoding="utf-8")
        before = _side(args.before, plan_file, args.jobs, tmp)
        after = _side(None, plan_file, args.jobs, tmp)
    lines = report(plan, before, after, args.before)
    lines.append(f"(the whole run: {time.perf_counter() - start:.0f} s, {args.jobs} "
                 f"process{'es' if args.jobs > 1 else ''})")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    Path(args.output).write_text(text, encoding="utf-8")


def report(plan: list[dict], before: list[dict], after: list[dict], rev: str) -> list[str]:
    rows = []  # (bank, id, source, name, list, wrong, carried before, carried after, words)
    for p, b, a in zip(plan, before, after):
        for name, got in a["later"].items():
            old = b["later"][name]
            rows.append((p["bank"], p["id"], p["source"], name, got["list"],
                         got["status"] == "wrong", old["status"] == "wrong",
                         bool(old["carried"]), bool(got["carried"]), got["words"]))
    wrong = [r for r in rows if r[5]]
    assert all(r[5] == r[6] for r in rows), "a status differs between before and after"
    found_b, found_a = sum(r[7] for r in wrong), sum(r[8] for r in wrong)
    lists = [r for r in wrong if r[4]]
    exercises_ = {(p["bank"], p["id"]) for p in plan}
    t_b, t_a = sum(x["seconds"] for x in before), sum(x["seconds"] for x in after)
    out = [
        "Carried forward through rounding (benchmarks/carried_rounding.py): the earlier claim "
        "p times 11/10, rounded to 4 places; the later claims computed from the unrounded "
        "wrong p, rounded to 4 places",
        f"{len(exercises_)} exercises with a chain, {len(plan)} plantings, {len(rows)} later "
        f"claims planted, {len(wrong)} of them wrong ({len(lists)} lists)",
        f"found carried: before ({rev}) {found_b} of {len(wrong)}, after {found_a} of "
        f"{len(wrong)}",
        f"  numbers: before {sum(r[7] for r in wrong if not r[4])}, after "
        f"{sum(r[8] for r in wrong if not r[4])} of {len(wrong) - len(lists)}; lists: before "
        f"{sum(r[7] for r in lists)}, after {sum(r[8] for r in lists)} of {len(lists)}",
        f"  carried before, not after: {sum(r[7] and not r[8] for r in wrong)}",
        f"check CPU time over the plantings: before {t_b:.1f} s, after {t_a:.1f} s, ratio "
        f"{t_a / t_b if t_b else float('nan'):.2f}",
    ]
    by_bank = {}
    for r in wrong:
        c = by_bank.setdefault(r[0], [0, 0, 0])
        c[0] += 1
        c[1] += r[7]
        c[2] += r[8]
    out.append("by bank (wrong later claims, found before, found after): " + "; ".join(
        f"{bank} {n}, {b}, {a}" for bank, (n, b, a) in by_bank.items()))
    out.append("not found after:")
    out += [f"  {r[0]} {r[1]}: {r[3]} from {r[2]}{' (a list)' if r[4] else ''}: {r[9]}"
            for r in wrong if not r[8]]
    return out


if __name__ == "__main__":
    main()
