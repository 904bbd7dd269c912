"""Checking a bank of generated exercises with derive, against a `fractions.Fraction` reference
that reads the same file and computes the same quantities, both timed in this process.

Run: `python benchmarks/check.py [--exercises 1000]`. Prints per-exercise times and the ratio.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
import tomllib
from fractions import Fraction
from pathlib import Path

from derive.exercises import check_exercise, load

TARGET = 10.0


def frac(f: Fraction) -> str:
    return f'"{f.numerator}/{f.denominator}"' if f.denominator != 1 else str(f.numerator)


def generate(n: int, seed: int = 1) -> str:
    """A bank of n exercises: sgd_step and accumulation, small exact data, claims = key."""
    rng = random.Random(seed)
    parts = []
    for i in range(n):
        r = lambda: Fraction(rng.randint(-9, 9), rng.choice([1, 2, 4, 5, 10]))  # noqa: E731
        w, lr = r(), Fraction(rng.randint(1, 20), 100)
        if i % 2 == 0:
            x, y = r(), r()
            g = x * (w * x - y)
            w_new = w - lr * g
            parts.append(f'[[exercise]]\nid = "sgd-{i}"\nrecipe = "sgd_step"\n'
                         f'[exercise.given]\nw = {frac(w)}\nlr = {frac(lr)}\n'
                         f'records = [[{frac(x)}, {frac(y)}]]\n[exercise.claims]\n'
                         f'gradient = {frac(g)}\nw_new = {frac(w_new)}\n'
                         f'loss = {frac((w * x - y) ** 2 / 2)}\n')
        else:
            mbs = [[(r(), r()) for _ in range(rng.randint(1, 3))] for _ in range(rng.randint(2, 3))]
            grads = [x * (w * x - y) for mb in mbs for x, y in mb]
            g = sum(grads) / len(grads)
            means = [sum(x * (w * x - y) for x, y in mb) / len(mb) for mb in mbs]
            text = "[" + ", ".join("[" + ", ".join(f"[{frac(x)}, {frac(y)}]" for x, y in mb)
                                   + "]" for mb in mbs) + "]"
            parts.append(f'[[exercise]]\nid = "acc-{i}"\nrecipe = "accumulation"\n'
                         f'[exercise.given]\nw = {frac(w)}\nlr = {frac(lr)}\n'
                         f'microbatches = {text}\n[exercise.claims]\n'
                         f'gradient = {frac(g)}\nw_new = {frac(w - lr * g)}\n'
                         f'mean_of_means = {frac(sum(means) / len(means))}\n')
    return "\n".join(parts)


def _num(v) -> Fraction:
    if isinstance(v, str):
        return Fraction(v)
    return Fraction(v)


def reference(path: Path) -> int:
    """Fraction-only: parse, compute the claimed quantities, compare; returns wrong claims."""
    doc = tomllib.loads(path.read_text(), parse_float=Fraction)
    wrong = 0
    for ex in doc["exercise"]:
        g_, c = ex["given"], ex["claims"]
        w, lr = _num(g_["w"]), _num(g_["lr"])
        if ex["recipe"] == "sgd_step":
            (x, y), = [(_num(a), _num(b)) for a, b in g_["records"]]
            values = {"gradient": x * (w * x - y), "loss": (w * x - y) ** 2 / 2}
            values["w_new"] = w - lr * values["gradient"]
        else:
            mbs = [[(_num(a), _num(b)) for a, b in mb] for mb in g_["microbatches"]]
            means = [sum(x * (w * x - y) for x, y in mb) / len(mb) for mb in mbs]
            n = sum(len(mb) for mb in mbs)
            g = sum(len(mb) * m for mb, m in zip(mbs, means)) / n
            values = {"gradient": g, "w_new": w - lr * g, "mean_of_means": sum(means) / len(means)}
        wrong += sum(values[k] != _num(v) for k, v in c.items())
    return wrong


def subject(path: Path) -> int:
    reports = [check_exercise(ex) for ex in load([str(path)])]
    return sum(not r.ok for r in reports)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exercises", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bank.toml"
        path.write_text(generate(args.exercises))
        assert reference(path) == 0 and subject(path) == 0, "the generated bank must check"
        ref, sub = [], []
        for _ in range(args.repeat):
            t = time.perf_counter()
            reference(path)
            ref.append(time.perf_counter() - t)
            t = time.perf_counter()
            subject(path)
            sub.append(time.perf_counter() - t)
    n = args.exercises
    r, s = min(ref) / n * 1e6, min(sub) / n * 1e6
    print(f"Fraction reference  {r:8.1f} µs per exercise")
    print(f"derive check        {s:8.1f} µs per exercise")
    print(f"ratio {s / r:.2f}× (target ≤ {TARGET:g}×), {n} exercises, best of {args.repeat}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
