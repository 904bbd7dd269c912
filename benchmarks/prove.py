"""Cold `derive prove` of every statement against a cold `python -c "import sympy"`.

Both are run as fresh processes, interleaved, in the same run; the figure is the ratio of the
medians. Run: `python benchmarks/prove.py [--repeat N]` (or `make bench`).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

BASELINE = [sys.executable, "-c", "import sympy"]
SUBJECT = [sys.executable, "-m", "derive", "prove"]
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
    timed(BASELINE)  # warm the file cache for both
    timed(SUBJECT)
    base, subject = [], []
    for _ in range(args.repeat):
        base.append(timed(BASELINE))
        subject.append(timed(SUBJECT))
    b, s = statistics.median(base), statistics.median(subject)
    ratio = s / b
    print(f"import sympy       median {b:.3f} s  (min {min(base):.3f}, max {max(base):.3f})")
    print(f"derive prove (all) median {s:.3f} s  (min {min(subject):.3f}, max {max(subject):.3f})")
    print(f"ratio {ratio:.2f}× (target ≤ {TARGET:g}×) over {args.repeat} interleaved runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
