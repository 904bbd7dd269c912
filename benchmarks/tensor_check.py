"""`derive check` of the lesson's two-layer network (2×3 W1, 3×2 W2, a batch of 3, four tensor
claims that hold) against a cold `python -c "import sympy"` (issue 35's target: at most 2×).

Both run as fresh processes, interleaved; the figure is the ratio of the medians of their CPU
time (user + system of the child), which a busy machine disturbs less than wall time. Run:
`python benchmarks/tensor_check.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

EXERCISE = Path(__file__).resolve().parent / "tensors" / "two-layer.toml"
BASELINE = [sys.executable, "-c", "import sympy"]
SUBJECT = [sys.executable, "-m", "derive", "check", str(EXERCISE)]
TARGET = 2.0


def cpu(cmd: list[str]) -> float:
    """The child's CPU time in seconds (it must succeed: every claim holds)."""
    before = os.times()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = os.times()
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.decode()}")
    return (after.children_user - before.children_user) + (after.children_system
                                                           - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    base, subject = [], []
    for _ in range(args.repeat):
        base.append(cpu(BASELINE))
        subject.append(cpu(SUBJECT))
    b, s = statistics.median(base), statistics.median(subject)
    print(f"import sympy: median {b:.2f} s CPU ({min(base):.2f}–{max(base):.2f})")
    print(f"derive check two-layer: median {s:.2f} s CPU ({min(subject):.2f}–{max(subject):.2f})")
    print(f"ratio {s / b:.2f}× (target ≤ {TARGET:g}×)")


if __name__ == "__main__":
    main()
