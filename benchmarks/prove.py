"""Cold `derive prove` of every statement against a cold `python -c "import sympy"`.

All are run as fresh processes, interleaved, in the same run; the figure is the ratio of the
medians, for the default (statements proved on the cores available) and for one process
(`--jobs 1`). Run: `python benchmarks/prove.py [--repeat N]` (or `make bench`).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

BASELINE = [sys.executable, "-c", "import sympy"]
SUBJECT = [sys.executable, "-m", "derive", "prove"]
SEQUENTIAL = [sys.executable, "-m", "derive", "prove", "--jobs", "1"]
TARGET = 3.0


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
    timed(BASELINE)  # warm the file cache for all
    timed(SUBJECT)
    base, subject, sequential = [], [], []
    for _ in range(args.repeat):
        base.append(timed(BASELINE))
        subject.append(timed(SUBJECT))
        sequential.append(timed(SEQUENTIAL))
    b = statistics.median(base)
    print(f"import sympy            median {b:.3f} s  (min {min(base):.3f}, max {max(base):.3f})")
    for name, runs in (("derive prove", subject), ("derive prove --jobs 1", sequential)):
        s = statistics.median(runs)
        print(f"{name:<23} median {s:.3f} s  (min {min(runs):.3f}, max {max(runs):.3f}): "
              f"{s / b:.2f}×")
    print(f"target ≤ {TARGET:g}× for the default; {args.repeat} interleaved runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
