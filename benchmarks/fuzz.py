"""Structure-aware fuzzing at scale: N mutated exercise files (tests/fuzz.py), each through
check, key, export and variants; prints the counts of files, runs, internal errors, hangs and
messages of more than one line. Run: `python benchmarks/fuzz.py [--n 10000] [--seed 0]`."""

from __future__ import annotations

import argparse
import collections
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzz import mutate, run_all  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    counts = collections.Counter()
    codes = collections.Counter()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ex.toml"
        for k in range(args.n):
            text, how = mutate(random.Random(args.seed * 1_000_003 + k))
            path.write_text(text, encoding="utf-8", errors="surrogateescape")
            counts["files"] += 1
            for r in run_all(path):
                counts["runs"] += 1
                codes[(r.command, r.code)] += 1
                for p in r.problems():
                    counts[p.split()[0] if p[0].isdigit() else p] += 1
                    if counts[p] <= 3:
                        print(f"PROBLEM {p}: {r.command} ({how}) seed {args.seed}/{k}: "
                              f"{r.stderr.strip()[:300]}")
    took = time.perf_counter() - start
    print(f"{counts['files']} files, {counts['runs']} runs in {took:.0f} s; "
          f"internal errors {counts['internal error']}, hangs {counts['hung']}, "
          f"multi-line messages {sum(v for k, v in counts.items() if 'lines' in k)}")
    print("exit codes:", ", ".join(f"{c} {code}: {n}" for (c, code), n in sorted(
        codes.items(), key=lambda kv: (kv[0][0], str(kv[0][1])))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
