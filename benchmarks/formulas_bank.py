"""Checking a bank of `recipe = "formulas"` exercises with derive, against a hand-written
`fractions.Fraction` reference that reads the same file and computes the same quantities, both
timed in this process (issue 13: within 10×).

Half the bank is one SGD step of a two-feature linear model with a bias on the mean squared
error; half is three steps of SGD with momentum on ŷ = w·x (a recurrence). Every claim is the
exact key, so both sides must find every claim right.

Run: `python benchmarks/formulas_bank.py [--exercises 1000] [--repeat 3]`.
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

LINEAR = """[exercise.define]
yhat = "w1*x1_i + w2*x2_i + b"
loss = "mean_i((yhat_i - y_i)^2)"
g1 = "grad(loss, w1)"
g2 = "grad(loss, w2)"
gb = "grad(loss, b)"
w1_new = "w1 - lr*g1"
w2_new = "w2 - lr*g2"
b_new = "b - lr*gb"
"""

MOMENTUM = """[exercise.define]
loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{t-1})"
u = { formula = "mu*u_{t-1} + g_t", start = "0" }
w = { formula = "w_{t-1} - lr*u_t", start = "w0" }
"""


def frac(f: Fraction) -> str:
    return f'"{f.numerator}/{f.denominator}"' if f.denominator != 1 else str(f.numerator)


def fracs(values) -> str:
    return "[" + ", ".join(frac(v) for v in values) + "]"


def linear(w1, w2, b, lr, rows):
    yhat = [w1 * a + w2 * c + b for a, c, _ in rows]
    res = [p - y for p, (_, _, y) in zip(yhat, rows)]
    n = len(rows)
    g1 = sum(2 * r * a for r, (a, _, _) in zip(res, rows)) / n
    g2 = sum(2 * r * c for r, (_, c, _) in zip(res, rows)) / n
    gb = sum(2 * r for r in res) / n
    return {"loss": sum(r * r for r in res) / n, "g1": g1, "g2": g2, "gb": gb,
            "w1_new": w1 - lr * g1, "w2_new": w2 - lr * g2, "b_new": b - lr * gb}


def momentum(w, lr, mu, rows, steps=3):
    u, ws, us = Fraction(0), [], []
    for _ in range(steps):
        g = sum((w * x - y) * x for x, y in rows) / len(rows)
        u = mu * u + g
        w = w - lr * u
        ws.append(w)
        us.append(u)
    return {"u": us, "w": ws}


def generate(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    r = lambda: Fraction(rng.randint(-9, 9), rng.choice([1, 2, 4, 5, 10]))  # noqa: E731
    parts = []
    for i in range(n):
        lr = Fraction(rng.randint(1, 20), 100)
        if i % 2 == 0:
            w1, w2, b = r(), r(), r()
            rows = [(r(), r(), r()) for _ in range(rng.randint(1, 4))]
            v = linear(w1, w2, b, lr, rows)
            table = ", ".join(f"[{frac(a)}, {frac(c)}, {frac(y)}]" for a, c, y in rows)
            parts.append(
                f'[[exercise]]\nid = "lin-{i}"\nrecipe = "formulas"\n[exercise.given]\n'
                f"w1 = {frac(w1)}\nw2 = {frac(w2)}\nb = {frac(b)}\nlr = {frac(lr)}\n"
                f'records = {{ columns = ["x1", "x2", "y"], rows = [{table}] }}\n{LINEAR}'
                "[exercise.claims]\n" + "".join(f"{k} = {frac(x)}\n" for k, x in v.items()))
        else:
            w, mu = r(), Fraction(rng.randint(0, 9), 10)
            rows = [(r(), r()) for _ in range(rng.randint(1, 3))]
            v = momentum(w, lr, mu, rows)
            table = ", ".join(f"[{frac(x)}, {frac(y)}]" for x, y in rows)
            parts.append(
                f'[[exercise]]\nid = "mom-{i}"\nrecipe = "formulas"\n[exercise.given]\n'
                f"w0 = {frac(w)}\nlr = {frac(lr)}\nmu = {frac(mu)}\nsteps = 3\n"
                f"records = [{table}]\n{MOMENTUM}[exercise.claims]\n"
                f"u = {fracs(v['u'])}\nw = {fracs(v['w'])}\n")
    return "\n".join(parts)


def _num(v) -> Fraction:
    return Fraction(v)


def reference(path: Path) -> int:
    """Fraction only: parse, compute the claimed quantities by hand, compare; wrong claims."""
    doc = tomllib.loads(path.read_text(), parse_float=Fraction)
    wrong = 0
    for ex in doc["exercise"]:
        g_, claims = ex["given"], ex["claims"]
        lr = _num(g_["lr"])
        if ex["id"].startswith("lin"):
            rows = [tuple(_num(v) for v in row) for row in g_["records"]["rows"]]
            values = linear(_num(g_["w1"]), _num(g_["w2"]), _num(g_["b"]), lr, rows)
            wrong += sum(values[k] != _num(v) for k, v in claims.items())
        else:
            rows = [tuple(_num(v) for v in row) for row in g_["records"]]
            values = momentum(_num(g_["w0"]), lr, _num(g_["mu"]), rows, int(g_["steps"]))
            wrong += sum(values[k] != [_num(x) for x in v] for k, v in claims.items())
    return wrong


def subject(path: Path) -> int:
    return sum(not check_exercise(ex).ok for ex in load([str(path)]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exercises", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bank.toml"
        path.write_text(generate(args.exercises))
        assert reference(path) == 0, "the reference must agree with its own bank"
        assert subject(path) == 0, "derive must find every claim of the bank right"
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
