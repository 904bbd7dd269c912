"""The share of generated Σ identities the kernel decides, and the time per decision.

True identities come from valid rewrites, false ones from perturbations confirmed false by brute
force (tests/generated_sums.py). A wrong verdict stops the run. Run:
`python benchmarks/kernel_share.py [--n 400] [--seed 1]` (or `make bench`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import random  # noqa: E402

from generated_sums import counterexample, pair  # noqa: E402

from derive.kernel import Verdict, decide  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    counts = {"true": 0, "proved": 0, "false": 0, "refuted": 0}
    times: list[float] = []
    for k in range(args.n):
        seed = args.seed * 1_000_003 + k
        lhs, rhs, built_true = pair(random.Random(seed))
        false = counterexample(lhs, rhs, seed) is not None
        if not false and not built_true:
            continue  # a harmless perturbation: neither side of the tally
        start = time.perf_counter()
        d = decide(lhs, rhs)
        times.append(time.perf_counter() - start)
        if false:
            counts["false"] += 1
            if d.verdict is Verdict.PROVED:
                raise SystemExit(f"WRONG: proved a false claim (seed {seed}): {lhs} = {rhs}")
            counts["refuted"] += d.verdict is Verdict.REFUTED
        else:
            counts["true"] += 1
            if d.verdict is Verdict.REFUTED:
                raise SystemExit(f"WRONG: refuted a true claim (seed {seed}): {lhs} = {rhs}")
            counts["proved"] += d.verdict is Verdict.PROVED
    t, f = counts["true"], counts["false"]
    print(f"true identities proved:  {counts['proved']}/{t} = {counts['proved'] / max(t, 1):.1%}")
    print(f"false claims refuted:    {counts['refuted']}/{f} = {counts['refuted'] / max(f, 1):.1%}")
    print(f"time per decision: median {statistics.median(times) * 1000:.1f} ms, "
          f"p90 {sorted(times)[int(0.9 * len(times))] * 1000:.1f} ms, "
          f"max {max(times) * 1000:.0f} ms over {len(times)} decisions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
