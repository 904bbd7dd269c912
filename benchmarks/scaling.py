"""How `accumulation` grows with the records N and the microbatches K: time and peak memory
(tracemalloc) of one exact key, N = 10² … 10⁵ and K = 1 … 10³, in this process. The slope of
log(time) against log(N) is the growth exponent (1 = linear).

Run: `python benchmarks/scaling.py [--max-n 100000]`.
"""

from __future__ import annotations

import argparse
import math
import random
import time
import tracemalloc

import sympy as sp

from derive.recipes import RECIPES


def window(n: int, k: int, seed: int = 0):
    rng = random.Random(seed)
    records = [(sp.Rational(rng.randint(-50, 50), 10), sp.Rational(rng.randint(-50, 50), 10))
               for _ in range(n)]
    cuts = sorted(rng.sample(range(1, n), k - 1)) if k > 1 else []
    bounds = [0, *cuts, n]
    return [records[a:b] for a, b in zip(bounds, bounds[1:])]


def measure(n: int, k: int) -> tuple[float, int]:
    mbs = window(n, k)
    given = {"w": sp.Rational(1, 2), "lr": sp.Rational(1, 10), "microbatches": mbs,
             "microbatch_sizes": None, "microbatch_mean_gradients": None, "tokens": None,
             "divisor": None}
    tracemalloc.start()
    start = time.perf_counter()
    RECIPES["accumulation"].evaluate(given)
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak


def slope(points):
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--max-n", type=int, default=100_000)
    args = parser.parse_args()
    ns = [n for n in (100, 1_000, 10_000, 100_000) if n <= args.max_n]
    measure(100, 1)  # warm up: the first call compiles the model's formulas
    print(f"{'N':>7} {'K':>5} {'seconds':>9} {'µs/record':>10} {'peak MiB':>9}")
    by_k = {}
    for k in (1, 10, 100, 1000):
        for n in ns:
            if k > n:
                continue
            seconds, peak = measure(n, k)
            by_k.setdefault(k, []).append((n, seconds, peak))
            print(f"{n:>7} {k:>5} {seconds:>9.3f} {seconds / n * 1e6:>10.1f} "
                  f"{peak / 2**20:>9.1f}")
    for k, rows in by_k.items():
        if len(rows) > 1:
            t = slope([(n, s) for n, s, _ in rows])
            m = slope([(n, p) for n, _, p in rows])
            print(f"K = {k}: time grows as N^{t:.2f}, peak memory as N^{m:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
