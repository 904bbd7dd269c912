"""Agreement of derive with the tensor bank lessons07 (issue 35, "Measured in your closing
note"): runs `derive check --format json` on benchmarks/lessons07/exercises.toml (the tensor
form) and, with --form scalar or both, on scalar.toml (the same exercises entry by entry, as
today's scalar formulas recipe requires), and compares every claim with expected.json, which
reference.py wrote from torch float64 and Fractions (never from derive):

- status: the intended status (exact, rounded or wrong) against derive's; a tensor claim of the
  scalar form is the worst of its entries' statuses (as `claims.judge` ranks a list claim);
- named mistake, for each planted wrong claim (the confusion matrix): named (derive's
  `mistake` is the planted id), tied or offered (the id among `candidates`), named wrongly
  (another mistake named alone), other shown (candidates without the planted one), silent;
- check time: CPU seconds of each `derive check` child (with --per-exercise, one run per
  exercise, so a refused exercise does not hide the others and each exercise has a time),
  against `python -c "import sympy"` on the same machine.

A file derive refuses (exit 2) is re-run exercise by exercise, and each refusal's one line is
printed. Exit 0 when every claim's status and every planted mistake agree, else 1.
Run: python benchmarks/lessons07_check.py [--form tensor|scalar|both] [--per-exercise] [--ids a,b]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BANK = ROOT / "benchmarks" / "lessons07"
RANK = {"exact": 0, "rounded": 1, "within": 2, "equivalent": 2, "wrong": 3, "undecided": 4}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(path: Path) -> tuple[int, dict | None, str, float]:
    """(exit code, the JSON or None, standard error, CPU seconds) of derive check on a file."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    before = _cpu()
    p = subprocess.run([sys.executable, "-m", "derive", "check", str(path), "--format", "json",
                        "--no-cache"],   # the time of a check, not of a cache's look-up
                       capture_output=True, text=True, env=env, cwd=ROOT)
    cpu = _cpu() - before
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        out = None
    return p.returncode, out, p.stderr.strip(), cpu


def split(path: Path) -> dict[str, str]:
    """Each exercise's own TOML text (the file's [notation] and comments are none here)."""
    text = path.read_text()
    blocks = text.split("[[exercise]]\n")[1:]
    return {re.search(r'^id = "([^"]+)"', b, re.M).group(1): "[[exercise]]\n" + b for b in blocks}


def check(path: Path, ids: set[str] | None, per_exercise: bool):
    """{exercise id: its JSON object or the refusal's text}, {id: CPU seconds} (per exercise
    only), total CPU seconds."""
    results, times = {}, {}
    if not per_exercise and ids is None:
        rc, out, err, cpu = run(path)
        if out is not None:
            return {e["id"]: e for e in out["exercises"]}, times, cpu
        print(f"{path.name}: derive check exit {rc}, re-run exercise by exercise: {err[:300]}")
    total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for eid, text in split(path).items():
            if ids is not None and eid not in ids:
                continue
            f = Path(tmp) / f"{eid}.toml"
            f.write_text(text)
            rc, out, err, cpu = run(f)
            times[eid] = cpu
            total += cpu
            results[eid] = out["exercises"][0] if out is not None else (err or f"exit {rc}")
    return results, times, total


def outcome(planted: str, diag: dict | None) -> str:
    if not diag:
        return "silent"
    if diag.get("mistake") == planted:
        return "named"
    cands = diag.get("candidates") or diag.get("also") or []
    if planted in cands:
        return diag.get("certainty") or "tied"
    if diag.get("mistake"):
        return "named wrongly"
    if cands:
        return "other shown"
    if diag.get("carried_from"):
        return "carried"
    return "silent"


def compare(expected: dict, results: dict, scalar: bool) -> tuple[Counter, Counter, list[str]]:
    status, named, lines = Counter(), Counter(), []
    for eid, ex in expected.items():
        if eid not in results:
            continue
        got = results[eid]
        if isinstance(got, str):
            status["refused"] += len(ex["claims"])
            lines.append(f"{eid}: refused: {got[:400]}")
            continue
        by = {c["name"]: c for c in got["claims"]}
        for q, want in ex["claims"].items():
            names = want["scalar_entries"] if scalar else [q]
            if not names:   # a given entry by entry (one-hot rows): nothing to claim
                status["given entry by entry"] += 1
                continue
            found = [by.get(n) for n in names]
            if any(c is None for c in found):
                status["missing"] += 1
                lines.append(f"{eid}.{q}: no claim in derive's output")
                continue
            st = max((c["status"] for c in found), key=RANK.__getitem__)
            ok = st == want["status"]
            status["agree" if ok else "disagree"] += 1
            if not ok:
                wrong_at = [n for n, c in zip(names, found) if c["status"] != want["status"]][:4]
                where = (f" (entries {', '.join(wrong_at)})" if scalar else
                         f"; expected {found[0].get('expected_text', '')[:160]}")
                lines.append(f"{eid}.{q}: intended {want['status']}, derive {st}{where}")
            if want["mistake"]:
                diags = [c.get("diagnosis") for c in found if c["status"] == "wrong"]
                diag = diags[0] if diags else None
                o = outcome(want["mistake"], diag)
                named[o] += 1
                d = diag or {}
                shown = d.get("mistake") or d.get("candidates") or d.get("also")
                if o != "named":
                    lines.append(f"{eid}.{q}: planted {want['mistake']}: {o}"
                                 + (f" ({shown})" if shown else "")
                                 + (f": {diag.get('explanation', '')[:200]}" if diag else ""))
    return status, named, lines


def _flat(v):
    return [x for y in v for x in _flat(y)] if isinstance(v, list) else [v]


def _shape(v):
    return (len(v), *_shape(v[0])) if isinstance(v, list) else ()


def evaluate(ex: dict, ops=None) -> dict[str, list[str]]:
    """Each quantity of an exercise of exercises.toml as derive's tensor parser and operations
    compute it (under `ops`, torch's by default; a whole-tensor mistake's otherwise), written
    out down to the givens (a derivative with respect to an earlier quantity stops there, as
    the formulas recipe takes it), differentiated by sympy.diff, evaluated at the givens to 30
    digits and rounded half away from zero to 4 places: {quantity: its entries' texts}."""
    from decimal import ROUND_HALF_UP, Decimal

    import sympy as sp

    from derive.graph.language import ALIASES
    from derive.graph.tensor import Tensor, symbols
    from derive.graph.tensor_language import OPS, parse_tensor

    names, values, defs, quantity_syms = {}, {}, {}, {}
    for g, v in ex["given"].items():
        canon = ALIASES.get(g, g)
        if g == "y" and _shape(v) == (len(v),) and all(isinstance(x, int) for x in v):
            names[canon] = Tensor.of([sp.Integer(x) for x in v])   # class indices: values
            continue
        t = symbols(canon, _shape(v))
        names[canon] = t
        values.update(zip(t.entries, (sp.Integer(x) if isinstance(x, int) else
                                      sp.Rational(str(x)) for x in _flat(v))))

    def out(e, stop=frozenset()):
        for _ in range(100):
            new = e.xreplace({k: d for k, d in defs.items() if k not in stop})
            if new == e:
                return e
            e = new
        raise RuntimeError("definitions do not terminate")

    for q, text in ex["define"].items():
        t = parse_tensor(text, names, ops=ops or OPS)
        entries = []
        for e in t.entries:
            if isinstance(e, sp.Derivative):
                loss, (w, _) = e.expr, e.variable_count[0]
                entries.append(out(sp.diff(out(loss, quantity_syms.get(w, frozenset())), w)))
            else:
                entries.append(e)
        qs = symbols(q, t.shape)
        names[q] = qs
        quantity_syms.update({s_: frozenset(qs.entries) for s_ in qs.entries})
        defs.update(zip(qs.entries, entries))
    result = {}
    for q in ex["claims"]:
        got = []
        for e in names[q].entries:
            v = sp.N(out(e).xreplace(values), 30)
            d = Decimal(str(v)).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
            got.append("0.0000" if d == 0 else f"{d:f}")
        result[q] = got
    return result


def _bank(ids):
    import tomllib
    bank = tomllib.loads((BANK / "exercises.toml").read_text())["exercise"]
    return [ex for ex in bank if ids is None or ex["id"] in ids]


def parse_check(ids: set[str] | None) -> int:
    """Before the loader lands: every right claim against `evaluate` under torch's operations.
    A benchmark's look, not a verdict: derive's claims judge nothing here. Prints each
    disagreement and refusal; returns the number of claims that disagree or fail."""
    expected = json.loads((BANK / "expected.json").read_text())["exercises"]
    agree = bad = 0
    for ex in _bank(ids):
        t0 = time.process_time()
        try:
            got = evaluate(ex)
        except Exception as err:  # noqa: BLE001 (a refusal is a figure: print it, go on)
            bad += len(ex["claims"])
            print(f"  {ex['id']}: refused ({type(err).__name__}): {str(err)[:300]}")
            continue
        for q, want in expected[ex["id"]]["claims"].items():
            right = [str(x) for x in _flat(want.get("right", ex["claims"][q]))]
            if got[q] == right:
                agree += 1
            else:
                bad += 1
                print(f"  {ex['id']}.{q}: derive's tensor ops {got[q][:6]}, torch {right[:6]}")
        print(f"{ex['id']}: {time.process_time() - t0:.2f} s CPU", flush=True)
    print(f"parser and operations alone: {agree} claims agree with torch, {bad} do not")
    return bad


def mistakes_check(ids: set[str] | None) -> int:
    """The confusion matrix of the whole-tensor mistakes before the loader lands: for each
    planted claim, every mistake of derive.graph.tensor_mistakes (each site, each under its
    mistaken Ops; `transposed` as its value permutation) evaluated as `evaluate` does, and the
    mistakes whose value is the planted claim listed. named: the planted id alone; tied: with
    others; missed: not among them; wrong name: others only. derive's generic mutations and
    its rule of evidence are not here: `derive check` decides what is shown."""
    from derive.graph import tensor_mistakes as tm
    from derive.graph.tensor_language import OPS

    expected = json.loads((BANK / "expected.json").read_text())["exercises"]
    counts, by_id = Counter(), Counter()
    for ex in _bank(ids):
        planted = {q: w for q, w in expected[ex["id"]]["claims"].items() if w["mistake"]}
        if not planted:
            continue
        try:
            right = evaluate(ex)
        except Exception as err:  # noqa: BLE001
            print(f"  {ex['id']}: refused ({type(err).__name__}): {str(err)[:200]}")
            continue
        gives: dict[str, set[str]] = {q: set() for q in planted}
        for m in tm.MISTAKES:
            variants = []
            if m.kind == tm.VALUE:
                variants.append(None)
            for site in getattr(m, "sites", ()) or ():
                variants.append(site)
            for site in variants:
                try:
                    if site is None:
                        vals = {}
                        for q in planted:
                            shape = _shape(ex["claims"][q])
                            perm = m.value(shape) if shape else None
                            if perm:
                                vals[q] = [right[q][k] for k in perm]
                    else:
                        ops, _ = tm.mistaken(m, site, OPS)
                        vals = evaluate(ex, ops)
                except Exception:  # noqa: BLE001 (a mistake that does not apply)
                    continue
                for q in planted:
                    if q in vals and vals[q] != right[q] and \
                            vals[q] == [str(x) for x in _flat(ex["claims"][q])]:
                        gives[q].add(m.id)
        for q, w in planted.items():
            g = gives[q]
            o = ("named" if g == {w["mistake"]} else "tied" if w["mistake"] in g else
                 "wrong name" if g else "missed")
            counts[o] += 1
            by_id[(w["mistake"], o)] += 1
            if o != "named":
                print(f"  {ex['id']}.{q}: planted {w['mistake']}: {o} {sorted(g)}")
    print("tensor mistakes alone (no loader, no generic mutations): "
          + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    print("by id: " + "; ".join(f"{m}: {o} {c}" for (m, o), c in sorted(by_id.items())))
    return sum(v for k, v in counts.items() if k != "named")


def sympy_import_cpu() -> float:
    before = _cpu()
    subprocess.run([sys.executable, "-c", "import sympy"], check=True)
    return _cpu() - before


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--form", choices=("tensor", "scalar", "both"), default="tensor",
                    help="exercises.toml (tensor), scalar.toml (entry by entry) or both")
    ap.add_argument("--per-exercise", action="store_true", help="one derive run per exercise")
    ap.add_argument("--ids", help="only these exercises (comma-separated)")
    ap.add_argument("--parse", action="store_true",
                    help="derive's tensor parser and operations alone, in process (no loader)")
    ap.add_argument("--mistakes", action="store_true",
                    help="the planted claims against derive.graph.tensor_mistakes, in process")
    args = ap.parse_args()
    ids = set(args.ids.split(",")) if args.ids else None
    if args.parse or args.mistakes:
        sys.path.insert(0, str(ROOT))
        bad = parse_check(ids) if args.parse else 0
        return 1 if bad or (args.mistakes and mistakes_check(ids)) else 0
    expected = json.loads((BANK / "expected.json").read_text())["exercises"]
    base = sympy_import_cpu()
    print(f"python -c 'import sympy': {base:.2f} s CPU")
    every_ok = True
    for label, path, scalar in (("tensor form", BANK / "exercises.toml", False),
                                ("entry by entry", BANK / "scalar.toml", True)):
        if args.form not in ("both", "scalar" if scalar else "tensor"):
            continue
        t0 = time.time()
        results, times, cpu = check(path, ids, args.per_exercise)
        status, named, lines = compare(expected, results, scalar)
        n = sum(status.values())
        print(f"\n== {label} ({path.name}): {len(results)} exercises, {n} claims, "
              f"{cpu:.1f} s CPU, {time.time() - t0:.1f} s wall")
        print("status: " + ", ".join(f"{k} {v}" for k, v in sorted(status.items()))
              + f" ({status['agree']} of {n} agree)")
        planted = sum(named.values())
        print(f"planted mistakes ({planted}): "
              + ", ".join(f"{k} {v}" for k, v in named.most_common()))
        by_id = Counter()
        for eid, ex in expected.items():
            for q, w in ex["claims"].items():
                if w["mistake"] and eid in results and not isinstance(results[eid], str):
                    by = {c["name"]: c for c in results[eid]["claims"]}
                    names = w["scalar_entries"] if scalar else [q]
                    ds = [by[m].get("diagnosis") for m in names
                          if m in by and by[m]["status"] == "wrong"]
                    by_id[(w["mistake"], outcome(w["mistake"], ds[0] if ds else None))] += 1
        if by_id and not scalar:
            print("confusion (planted id: outcome count): " + "; ".join(
                f"{m}: {o} {c}" for (m, o), c in sorted(by_id.items())))
        if times:
            per = sorted(times.values())
            print(f"check CPU per exercise: median {per[len(per) // 2]:.2f} s, max {per[-1]:.2f} s "
                  f"({max(times, key=times.get)}); {per[len(per) // 2] / base:.2f}× import sympy")
            for eid in ("mlp-h", "cls-h"):   # the target: 2×3 matrices, a batch of 3
                if eid in times:
                    print(f"  {eid}: {times[eid]:.2f} s ({times[eid] / base:.2f}× import sympy)")
        for line in lines:
            print("  " + line)
        n_claimed = n - status["given entry by entry"]
        every_ok &= status["agree"] == n_claimed and (scalar or named["named"] == planted)
    return 0 if every_ok else 1


if __name__ == "__main__":
    sys.exit(main())
