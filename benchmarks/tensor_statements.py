"""Issue 36's time target: the statements over vectors and matrices of symbolic size, together,
against `derive prove` of the 36 statements proofs/ held before them (target: at most 3×).

Both are cold processes with the cache off (`--no-cache --jobs 1`), interleaved in one run; the
figure is the ratio of the medians of their CPU time (user + system of the child), which a busy
machine disturbs less than wall time. Each statement's own decision time (the JSON `seconds`)
is listed from the last run. Run: `python benchmarks/tensor_statements.py [--repeat N]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

BEFORE = (
    "A1 A2 A3 sgd-step backward-chain-rule mean-of-means mean-of-means-equal-sizes undivided-sum "
    "undivided-sum-scale micro-steps micro-steps-difference micro-steps-scaled "
    "micro-steps-first-order microbatch-gradient-affine clip-value-then-accumulate "
    "clip-norm-then-accumulate clip-value-within-threshold clip-norm-within-threshold "
    "tail-divisor tail-divisor-scale token-weighting token-weighting-proportional "
    "batchnorm-microbatch momentum-restore momentum-restore-difference momentum-full-state "
    "adam-step-count adamw-vs-l2 amp-unscale amp-scale-change clip-before-unscale "
    "mse-convention ddp-rank-mean ddp-count-weighting zero-stages activations-not-sharded"
).split()
"""The statements of proofs/ before issue 36 (2026-12-07)."""

TARGET = 3.0
PROVE = [sys.executable, "-m", "derive", "prove", "--no-cache", "--jobs", "1",
         "--format", "json"]


def run(ids: list[str]) -> tuple[float, list[dict]]:
    before = os.times()
    done = subprocess.run([*PROVE, *ids], capture_output=True)
    after = os.times()
    if done.returncode != 0:
        raise SystemExit(f"derive prove exited {done.returncode}: {done.stderr.decode()}")
    cpu = (after.children_user - before.children_user) + (after.children_system
                                                          - before.children_system)
    return cpu, json.loads(done.stdout)["statements"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    _, every = run([])
    new = [s["id"] for s in every if s["id"] not in BEFORE]
    if not new:
        raise SystemExit("no statement beyond the 36 of before issue 36")
    base, subject, last = [], [], []
    for _ in range(args.repeat):
        base.append(run(BEFORE)[0])
        cpu, last = run(new)
        subject.append(cpu)
    b, s = statistics.median(base), statistics.median(subject)
    for st in last:
        print(f"  {st['id']:<36} {st['verdict']:<8} {st['seconds']:6.2f} s")
    print(f"the 36 statements of before: median {b:.2f} s CPU ({min(base):.2f}–{max(base):.2f})")
    print(f"the {len(new)} new statements: median {s:.2f} s CPU "
          f"({min(subject):.2f}–{max(subject):.2f})")
    print(f"ratio {s / b:.2f}× (target ≤ {TARGET:g}×); {args.repeat} interleaved runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
