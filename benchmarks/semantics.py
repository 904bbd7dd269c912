"""Issue 22's measures: derive's decide on the table of tests/semantic_claims.py (claims whose
truth flips between the real and the old semantics), on its index-letter statements, and on N
generated claims (true by construction through a domain identity, false by construction through
a perturbation, each one's truth settled by tests/real_reference.py, never by derive). Prints
the share of true claims proved and of false claims refuted (a refutation counts only when the
reference accepts its witness: a point of the real domain where the sides differ), the slowest
decision and its claim, and `derive prove` of proofs/ against `python -c "import sympy"`,
measured in the same run. Targets: ≥ 95% of each share, slowest ≤ 5 s, prove ≤ 3× import sympy.

Run: `python benchmarks/semantics.py [--n 200] [--seed 0] [--repeat 3] [--list]` (--list
prints every claim that misses its verdict, with the verdict it got).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import real_reference as ref  # noqa: E402
import sympy as sp  # noqa: E402
from semantic_claims import INDEX_CLAIMS, TABLE, claims, toml_text  # noqa: E402

from derive.exercises.statements import load_statements  # noqa: E402
from derive.kernel import Verdict, decide, hypothesis, nonzero, positive  # noqa: E402
from derive.statements.prove import prove  # noqa: E402

TARGET_SHARE, TARGET_SECONDS, TARGET_RATIO = 0.95, 5.0, 3.0


@dataclass
class Result:
    source: str
    claim: str
    true: bool
    verdict: str
    seconds: float
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict == ("proved" if self.true else "refuted")


def _facts(facts):
    make = {">=": hypothesis, ">": positive, "!=": nonzero}
    return [make[rel](e, f"{sp.sstr(e)} {rel} 0") for e, rel in facts]


def _checked(verdict: str, claim: ref.Claim, point: dict | None) -> tuple[str, str]:
    """A refutation whose witness the reference does not accept is not counted as one."""
    if verdict != "refuted" or point is None:
        return verdict, ""
    j = ref.judge(claim, point, ref.REAL)
    if j.kind == "differ":
        return verdict, ""
    return "refuted (bad witness)", f"the reference rules the witness {j.kind}: {j.why}"


def _decided(source, lhs, rhs, facts, true) -> Result:
    start = time.perf_counter()
    d = decide(lhs, rhs, _facts(facts))
    took = time.perf_counter() - start
    point = None
    if d.witness is not None and not d.witness.functions:
        point = dict(d.witness.symbols)
    verdict, note = _checked(d.verdict.value, ref.Claim(lhs, rhs, tuple(facts)), point)
    if d.witness is not None:
        note = f"witness {d.witness.describe()} {note}".strip()
    elif d.verdict is Verdict.UNKNOWN:
        note = f"{d.strategy}: {d.detail}"[:200]
    return Result(source, f"{sp.sstr(lhs)} = {sp.sstr(rhs)}" + (
        " with " + ", ".join(f"{sp.sstr(e)} {r} 0" for e, r in facts) if facts else ""),
        true, verdict, took, note)


def table() -> list[Result]:
    return [_decided(f"table:{row.id}", row.lhs, row.rhs, row.facts, row.true) for row in TABLE]


def index_statements() -> list[Result]:
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.toml"
        path.write_text(toml_text(), encoding="utf-8")
        by_id = {s.id: s for s in INDEX_CLAIMS}
        for statement in load_statements(path):
            s = by_id[statement.id]
            outcome = prove(statement)
            point = None
            if outcome.witness is not None:
                given = {n: sp.Rational(Fraction(str(v))) for n, v in outcome.witness.assignment}
                claim = s.claim()
                point = {v: given.get(v.name, max([sp.Integer(1), *given.values()]))
                         for v in claim.symbols}
            verdict, note = _checked(outcome.verdict.value, s.claim(), point)
            if outcome.witness is not None:
                note = f"witness {outcome.witness.describe()} {note}".strip()
            out.append(Result(f"index:{s.id}", f"{s.lhs_text} = {s.rhs_text}", s.true, verdict,
                              outcome.seconds, note))
    return out


def generated(n: int, seed: int) -> tuple[list[Result], dict[str, int]]:
    """Claims from the generators whose truth the reference settles."""
    dropped = {"true, no domain point on the grid": 0, "false, no counterexample found": 0,
               "true by construction, yet a counterexample (a generator bug)": 0}
    out = []
    for lhs, rhs, true in claims(random.Random(seed), n):
        found = ref.search(ref.Claim(lhs, rhs), ref.REAL, budget=60)
        if true and found.counterexample is not None:
            dropped["true by construction, yet a counterexample (a generator bug)"] += 1
            print(f"GENERATOR BUG: {lhs} = {rhs} fails at {found.counterexample}")
            continue
        if true and found.in_domain == 0:
            dropped["true, no domain point on the grid"] += 1
            continue
        if not true and found.counterexample is None:
            dropped["false, no counterexample found"] += 1
            continue
        out.append(_decided("generated", lhs, rhs, (), true))
    return out, dropped


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.decode()}")
    return took


def prove_ratio(repeat: int) -> tuple[float, float, float]:
    """Medians of cold `python -c "import sympy"`, cold `derive prove` and cold `derive prove
    --jobs 1`, interleaved."""
    base_cmd = [sys.executable, "-c", "import sympy"]
    prove_cmd = [sys.executable, "-m", "derive", "prove"]
    _timed(base_cmd)
    base, subject, sequential = [], [], []
    for _ in range(repeat):
        base.append(_timed(base_cmd))
        subject.append(_timed(prove_cmd))
        sequential.append(_timed(prove_cmd + ["--jobs", "1"]))
    return statistics.median(base), statistics.median(subject), statistics.median(sequential)


def _share(results: list[Result], true: bool) -> tuple[int, int]:
    group = [r for r in results if r.true is true]
    return sum(r.ok for r in group), len(group)


def _line(name: str, results: list[Result]) -> str:
    (tp, tn), (fr, fn) = _share(results, True), _share(results, False)
    pct = lambda a, b: f"{100 * a / b:.0f}%" if b else "—"  # noqa: E731
    return (f"{name:<22} true claims proved {tp}/{tn} ({pct(tp, tn)}), false claims refuted "
            f"{fr}/{fn} ({pct(fr, fn)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200, help="generated claims")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="runs of derive prove")
    parser.add_argument("--list", action="store_true", help="print every miss")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = table()
    index = index_statements()
    gen, dropped = generated(args.n, args.seed)
    everything = rows + index + gen
    print(_line("table", rows))
    print(_line("index statements", index))
    print(_line(f"generated (n={args.n})", gen)
          + f"; left out, truth unsettled: {sum(dropped.values())} "
          + "(" + ", ".join(f"{k}: {v}" for k, v in dropped.items() if v) + ")")
    print(_line("all", everything) + f"   target ≥ {TARGET_SHARE:.0%} each")
    slow = max(everything, key=lambda r: r.seconds)
    print(f"slowest decision {slow.seconds:.2f} s ({slow.source}: {slow.claim}) "
          f"target ≤ {TARGET_SECONDS:g} s")
    base, subject, sequential = prove_ratio(args.repeat)
    print(f"derive prove {subject:.2f} s against import sympy {base:.2f} s: "
          f"{subject / base:.2f}× (target ≤ {TARGET_RATIO:g}×; --jobs 1: {sequential:.2f} s, "
          f"{sequential / base:.2f}×; medians of {args.repeat}; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    refuted_wrongly = [r for r in everything
                       if r.verdict.startswith("refuted") and (r.true or not r.ok)]
    proved_wrongly = [r for r in everything if r.verdict == "proved" and not r.true]
    print(f"verdicts the semantics contradicts: {len(refuted_wrongly)} refuted (a true claim, or "
          f"a witness outside the real domain), {len(proved_wrongly)} proved (a false claim)")
    if args.list:
        for r in everything:
            if not r.ok:
                print(f"  MISS {r.source}: {r.claim}: expected "
                      f"{'proved' if r.true else 'refuted'}, got {r.verdict} "
                      f"({r.seconds:.2f} s) {r.note}")
    print(f"({time.perf_counter() - start:.0f} s in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
