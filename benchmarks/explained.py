"""How far derive reaches and explains on an independent bank (benchmarks/bank24/, issue 24).

Runs `derive check --format json` on each exercise of the bank alone (an invalid exercise stops
a whole run, so each gets its own), timed, and compares with benchmarks/bank24/expected.json
(verdicts from Fractions and torch, reference.py) and intended.toml (the mistake intended by
each wrong claim). Reports: exercises loaded and refused (the refusal lines, grouped by cause),
verdict agreement per claim, the share of wrong claims explained (a named mistake or an error
carried forward; target >= 90%), named as intended, false names, and the check time per
exercise. A wrong claim with an empty accept list is a slip (a digit typed wrong): the right
outcome is no mistake named, and slips are counted apart. With `--base COMMIT` the same runs
on that commit's tree too (alternately, so the
machine's load falls on both alike), and the time ratio is reported.

Run: `python benchmarks/explained.py [--bank DIR] [--base COMMIT] [--verbose]`.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

HOLDS = {"exact", "rounded", "within", "equivalent"}


def split_bank(bank: Path, into: Path) -> list[tuple[str, Path]]:
    """Each `[[exercise]]` of the bank's files written to a file of its own, in bank order;
    the text before a file's first exercise (comments, a [notation] table) goes with each."""
    out = []
    for path in sorted(bank.glob("*.toml")):
        if path.name in ("intended.toml", "derive.toml"):
            continue
        text = path.read_text()
        parts = re.split(r"(?m)^(?=\[\[exercise\]\]\s*$)", text)
        head, chunks = parts[0], parts[1:]
        for chunk in chunks:
            eid = tomllib.loads(chunk)["exercise"][0]["id"]
            target = into / f"{eid}.toml"
            target.write_text(head + chunk)
            out.append((eid, target))
    if (bank / "derive.toml").exists():
        (into / "derive.toml").write_text((bank / "derive.toml").read_text())
    return out


def run_check(tree: Path, exercise: Path) -> dict:
    """One `derive check` of one exercise on `tree`: exit code, seconds, JSON or the refusal."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "derive", "check", str(exercise),
                           "--format", "json"], cwd=tree, env=env, capture_output=True,
                          text=True)
    seconds = time.perf_counter() - start
    result = {"rc": done.returncode, "seconds": seconds}
    if done.returncode in (0, 1):
        try:
            result["report"] = json.loads(done.stdout)["exercises"][0]
        except (json.JSONDecodeError, KeyError, IndexError):
            result["rc"] = -1
            result["refusal"] = "no JSON report: " + (done.stderr or done.stdout)[-300:]
    else:
        lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
        line = lines[-1] if lines else f"exit {done.returncode}, no message"
        result["refusal"] = line.replace(str(exercise.parent) + "/", "")
    return result


def cause(refusal: str) -> str:
    """The refusal's reason without its file, exercise and the formula it quotes."""
    text = re.sub(r"^derive check: [^:]*: exercise '[^']*': ", "", refusal)
    text = re.sub(r"\"[^\"]*\"", '"…"', text)
    text = re.sub(r"'[^']*'", "'…'", text)
    text = re.sub(r"-?\d+(\.\d+)?", "N", text)
    return text[:160]


def matches(diagnosis: dict | None, accept: list[str]) -> tuple[bool, bool, str]:
    """(explained, as intended, what derive said) for one wrong claim's diagnosis."""
    if not diagnosis:
        return False, False, "no diagnosis"
    name = diagnosis.get("mistake")
    if name:
        ok = any(fnmatch.fnmatchcase(name, pattern) for pattern in accept if pattern != "carried")
        return True, ok, name
    if diagnosis.get("carried_from"):
        every = diagnosis.get("carried_from_all") or [diagnosis["carried_from"]]
        return True, "carried" in accept, "carried from " + ", ".join(every)
    return False, False, "no known mistake" if diagnosis.get("explanation") else "none"


def measure(results: dict, expected: dict, intended: dict) -> dict:
    """The figures of one tree's run."""
    loaded = {e: r for e, r in results.items() if "report" in r}
    refused = {e: r for e, r in results.items() if "report" not in r}
    agree, disagree, undecided = 0, [], []
    wrong_rows = []
    for eid, r in loaded.items():
        got = {c["name"]: c for c in r["report"].get("claims", [])}
        for q, want in expected[eid]["claims"].items():
            c = got.get(q)
            status = c["status"] if c else "missing"
            if status == "undecided":
                undecided.append((eid, q))
            elif (status in HOLDS) == want["holds"]:
                agree += 1
            else:
                disagree.append((eid, q, status, want["holds"]))
            if (eid, q) in intended:
                accept = intended[(eid, q)]["accept"]
                explained, ok, said = matches(c.get("diagnosis") if c else None, accept)
                wrong_rows.append((eid, q, status, explained, ok, said,
                                   intended[(eid, q)]["name"]))
    seconds = [r["seconds"] for r in loaded.values()]
    return dict(loaded=loaded, refused=refused, agree=agree, disagree=disagree,
                undecided=undecided, wrong_rows=wrong_rows, seconds=seconds,
                all_seconds=[r["seconds"] for r in results.values()])


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else f"{a}/0"


def report(label: str, m: dict, expected: dict, intended: dict, verbose: bool) -> None:
    n_ex = len(expected)
    n_claims = sum(len(e["claims"]) for e in expected.values())
    loaded_claims = sum(len(expected[e]["claims"]) for e in m["loaded"])
    print(f"== {label}")
    print(f"exercises: {len(m['loaded'])} loaded, {len(m['refused'])} refused, of {n_ex}")
    print(f"claims checked: {loaded_claims} of {n_claims}; verdicts agreeing with the "
          f"reference: {pct(m['agree'], loaded_claims)}; undecided {len(m['undecided'])}; "
          f"disagreeing {len(m['disagree'])}")
    for eid, q, status, holds in m["disagree"]:
        print(f"  DISAGREE {eid}.{q}: derive {status}, reference {'holds' if holds else 'wrong'}")
    for eid, q in m["undecided"]:
        print(f"  undecided {eid}.{q}")
    slips = [r for r in m["wrong_rows"] if not intended[(r[0], r[1])]["accept"]]
    rows = [r for r in m["wrong_rows"] if intended[(r[0], r[1])]["accept"]]
    n_wrong = sum(1 for w in intended.values() if w["accept"])
    if slips or len(intended) > n_wrong:
        named_slips = [r for r in slips if r[3]]
        print(f"slips (an empty accept list: the right outcome is no mistake named): "
              f"{len(intended) - n_wrong} in the bank, {len(slips)} checked, "
              f"{len(named_slips)} named" + "".join(f"\n    NAMED {r[0]}.{r[1]}: {r[5]}"
                                                   for r in named_slips))
    explained = sum(r[3] for r in rows)
    as_intended = sum(r[4] for r in rows)
    named = [r for r in rows if r[3] and not r[5].startswith("carried")]
    false = [r for r in named if not r[4]]
    print(f"wrong claims with a mistake intended: {n_wrong} in the bank, {len(rows)} in loaded "
          "exercises")
    print(f"  explained (named mistake or carried forward): {pct(explained, len(rows))} of "
          f"those checked; {pct(explained, n_wrong)} of the bank  (target >= 90%)")
    print(f"  explained as intended: {pct(as_intended, len(rows))} of those checked; "
          f"{pct(as_intended, n_wrong)} of the bank")
    print(f"  false names (a mistake named other than intended): {pct(len(false), len(rows))}")
    for r in false:
        print(f"    FALSE {r[0]}.{r[1]}: named {r[5]}; "
              f"intended {r[6] or intended[(r[0], r[1])]['accept']}")
    if verbose:
        for eid, q, _status, exp, ok, said, name in rows + slips:
            mark = "ok " if ok else ("exp" if exp else " - ")
            print(f"    {mark} {eid}.{q}: {said}   [intended: "
                  f"{name or intended[(eid, q)]['mistake']}]")
    if m["seconds"]:
        s = m["seconds"]
        print(f"check time per loaded exercise (s): median {statistics.median(s):.2f}, "
              f"mean {statistics.mean(s):.2f}, max {max(s):.2f}; all {len(m['all_seconds'])} "
              f"runs {sum(m['all_seconds']):.1f} s")
    if m["refused"]:
        print("refusals, grouped by cause:")
        groups = defaultdict(list)
        for eid, r in m["refused"].items():
            groups[cause(r["refusal"])].append((eid, r["refusal"]))
        for why, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            print(f"  [{len(items)}] {why}")
            for eid, line in items:
                print(f"      {eid}: {line}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", default=str(ROOT / "benchmarks" / "bank24"))
    parser.add_argument("--base", help="an earlier commit to time against")
    parser.add_argument("--verbose", action="store_true", help="every wrong claim's diagnosis")
    parser.add_argument("--only", help="only the exercises whose id contains this text")
    a = parser.parse_args()
    bank = Path(a.bank)
    expected = json.loads((bank / "expected.json").read_text())["exercises"]
    intended = {(w["exercise"], w["quantity"]): w
                for w in tomllib.loads((bank / "intended.toml").read_text())["wrong"]}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "bank").mkdir()
        exercises = split_bank(bank, tmp / "bank")
        if a.only:
            exercises = [(e, p) for e, p in exercises if a.only in e]
            expected = {e: expected[e] for e, _ in exercises}
            intended = {k: v for k, v in intended.items() if k[0] in expected}
        trees = {"this tree": ROOT}
        if a.base:
            from versions import extract
            trees = {f"base {a.base[:12]}": extract(a.base, tmp / "before"), **trees}
        results = {label: {} for label in trees}
        for eid, path in exercises:
            for label, tree in trees.items():
                results[label][eid] = run_check(tree, path)
        figures = {label: measure(results[label], expected, intended) for label in trees}
        for label in trees:
            report(label, figures[label], expected, intended, a.verbose)
        if a.base:
            base, now = (results[label] for label in trees)
            both = [e for e in base if "report" in base[e] and "report" in now[e]]
            ratios = [now[e]["seconds"] / base[e]["seconds"] for e in both]
            total = (sum(r["seconds"] for r in now.values())
                     / sum(r["seconds"] for r in base.values()))
            print(f"time ratio this tree / base: all runs {total:.2f}"
                  + (f"; median per exercise loaded by both ({len(both)}): "
                     f"{statistics.median(ratios):.2f}" if ratios else ""))


if __name__ == "__main__":
    main()
