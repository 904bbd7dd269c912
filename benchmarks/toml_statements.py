"""Cold `derive prove docs/examples/statements.toml` (A2's two lines and mean-of-means written
as [[statement]] tables) against cold `derive prove A2 mean-of-means` (the same claims from
proofs/), as fresh processes, interleaved in one run; the figure is the ratio of the medians.
Run: `python benchmarks/toml_statements.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = [sys.executable, "-m", "derive", "prove", "--jobs", "1", "A2", "mean-of-means"]
SUBJECT = [sys.executable, "-m", "derive", "prove", "--jobs", "1",
           str(ROOT / "docs" / "examples" / "statements.toml")]


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.decode()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    timed(BASELINE)  # warm the file cache for both
    timed(SUBJECT)
    base, subject = [], []
    for _ in range(args.repeat):
        base.append(timed(BASELINE))
        subject.append(timed(SUBJECT))
    b, s = statistics.median(base), statistics.median(subject)
    print(f"derive prove A2 mean-of-means    median {b:.3f} s  (min {min(base):.3f}, "
          f"max {max(base):.3f})")
    print(f"derive prove statements.toml     median {s:.3f} s  (min {min(subject):.3f}, "
          f"max {max(subject):.3f}): {s / b:.2f}×")
    print(f"{args.repeat} interleaved runs, one process each (--jobs 1)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
