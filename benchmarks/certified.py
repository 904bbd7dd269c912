"""Certified decimals: checking Adam exercises of many steps, and the time of one certified
rounding, each against a baseline timed in the same process.

- `check`: `check_exercise` of an Adam exercise (w and b, three records, amsgrad on and off)
  whose claim is w after every step rounded to 8 places (claims from a `decimal`-module
  reference at 80 digits), against 100 plain-SGD steps of the same model in `fractions.Fraction`
  (the exact reference arithmetic of benchmarks/check.py).
- `options`: 5 Adam/AdamW steps with every option (weight decay, maximize, amsgrad, betas, eps),
  w and b on three records: `derive check` (wrong claims, diagnosed) and `derive key`, each
  run in-process through the command line's own `main` (output discarded). Issue 14's bound:
  check under 2 s, key under 1 s; before certified decimals (commit 7123b89) the same check
  passed its 30 s time bound undecided.
- `decimal`: issue 26's ordinary decimal data (w = −0.6, b = 0.66, three records such as
  (−3.0, 2.9), β = (0.95, 0.9), ε = 10⁻⁸; tests/make_decimal_adam.py), Adam, AdamW and amsgrad
  at 5, 25 and 100 steps, every claim (gradient, m, v, w, b after each step) torch float64's
  own number at rel 10⁻¹⁰: `check_exercise`, against the friendly-number Adam above at the same
  steps (claims to 8 places); then `derive check` and `derive key` of the 100-step file. Issue
  26's bound: 100 steps under 5 s; before (commit 36d366e) 4 steps passed the 30 s bound.
- `rounding`: one certified rounding of √q to 12 places (a fresh q each time, so no cache
  helps), against rounding a rational half away from zero with `Fraction`.

Run: `python benchmarks/certified.py [--steps 100] [--repeat 3] [--decimal-only]`.
"""

from __future__ import annotations

import argparse
import contextlib
import decimal
import os
import random
import statistics
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import sympy as sp

from derive.cli.main import main as cli_main
from derive.exercises import check_exercise, load
from derive.exercises.schema import exercise
from derive.kernel import intervals

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import make_decimal_adam  # noqa: E402  (torch float64's claims on the decimal data)

RECORDS = [["1", "2"], ["2", "3"], ["0.5", "-1"]]
DECIMAL_STEPS = (5, 25, 100)
HOLDS = {"exact", "rounded", "within"}


def adam_reference(steps: int, amsgrad: bool) -> list[decimal.Decimal]:
    """torch's Adam on ŷ = w·x + b in the decimal module at 80 digits (w after each step)."""
    D = decimal.Decimal
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        b1, b2, eps, lr = D("0.9"), D("0.999"), D("1e-8"), D("0.1")
        p = {"w": D(1), "b": D("0.5")}
        xs, ys = [D(x) for x, _ in RECORDS], [D(y) for _, y in RECORDS]
        state = {k: [D(0), D(0), D(0)] for k in p}
        out = []
        for t in range(1, steps + 1):
            errs = [p["w"] * x + p["b"] - y for x, y in zip(xs, ys)]
            g = {"w": sum(e * x for e, x in zip(errs, xs)) / 3, "b": sum(errs) / 3}
            for k in p:
                m, v, vmax = state[k]
                m = b1 * m + (1 - b1) * g[k]
                v = b2 * v + (1 - b2) * g[k] * g[k]
                vmax = max(vmax, v)
                state[k] = [m, v, vmax]
                v_hat = (vmax if amsgrad else v) / (1 - b2**t)
                p[k] = p[k] - lr * (m / (1 - b1**t)) / (v_hat.sqrt() + eps)
            out.append(p["w"])
        return out


def adam_exercise(steps: int, optimizer: dict, claims: dict):
    return exercise({"id": "adam", "recipe": "optimizer_steps",
                     "given": {"w": 1, "b": "0.5", "lr": "0.1", "steps": steps,
                               "records": RECORDS, "optimizer": optimizer},
                     "claims": claims}, "bench.toml", 0)


def sgd_fraction(steps: int) -> Fraction:
    """100 plain-SGD steps of the same model in Fraction: the baseline."""
    xs = [Fraction(x) for x, _ in RECORDS]
    ys = [Fraction(y) for _, y in RECORDS]
    w, b, lr = Fraction(1), Fraction(1, 2), Fraction(1, 10)
    for _ in range(steps):
        errs = [w * x + b - y for x, y in zip(xs, ys)]
        gw = sum(e * x for e, x in zip(errs, xs)) / 3
        gb = sum(errs) / 3
        w, b = w - lr * gw, b - lr * gb
    return w


OPTIONS_FILE = """[[exercise]]
id = "adam5"
recipe = "optimizer_steps"
[exercise.given]
w = 1
b = "0.5"
lr = "0.1"
steps = 5
records = [["1", "2"], ["2", "3"], ["0.5", "-1"]]
optimizer = {optimizer}
[exercise.claims]
w_steps = ["1", "1", "1", "1", "1"]
b_steps = [{{ value = "0.5", places = 6 }}, {{ value = "0.6", places = 6 }}, "0.7", "0.8", "0.9"]
"""


def toml_table(options: dict) -> str:
    def value(v):
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return f'"{v}"'
    return "{ " + ", ".join(f"{k} = {value(v)}" for k, v in options.items()) + " }"


def quiet_main(argv: list[str]) -> int:
    """The command line's `main` in this process, its output discarded."""
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        return cli_main(argv)


def timed(f, repeat: int, clock=time.perf_counter) -> float:
    times = []
    for _ in range(repeat):
        t = clock()
        f()
        times.append(clock() - t)
    return statistics.median(times)


def cpu_timed(f, repeat: int) -> float:
    """Median CPU seconds of this process (a busy machine stretches wall time, not this)."""
    return timed(f, repeat, time.process_time)


def friendly_check(steps: int) -> None:
    """`check_exercise` of the friendly-number Adam (claims to 8 places)."""
    claims = {"w_steps": [f"{v:.8f}" for v in adam_reference(steps, False)]}
    ex = adam_exercise(steps, {"name": "adam"}, claims)
    report = check_exercise(ex, seconds=None)
    assert {c.status for c in report.claims} == {"rounded"}, report.claims


def decimal_data(repeat: int) -> None:
    """Issue 26's decimal data against the friendly numbers, at each step count (CPU
    seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "decimal.toml"
        path.write_text(make_decimal_adam.render(list(DECIMAL_STEPS)), encoding="utf-8")
        exercises = {ex.id: ex for ex in load([str(path)])}
        for steps in DECIMAL_STEPS:
            base = cpu_timed(lambda s=steps: friendly_check(s), repeat)
            print(f"friendly Adam, {steps} steps (w to 8 places): {base:.3f} s CPU")
            for name in make_decimal_adam.OPTIMIZERS:
                ex = exercises[f"decimal-{name}-{steps}"]
                statuses: list[set] = []
                t = cpu_timed(lambda ex=ex, out=statuses: out.append(
                    {c.status for c in check_exercise(ex, seconds=None).claims}), repeat)
                assert all(s <= HOLDS for s in statuses), statuses
                print(f"  decimal {name:8} {steps:3} steps, 5 claims of {steps} values at rel "
                      f"1e-10: {t:.3f} s CPU ({t / base:.1f}x the friendly numbers)")
        big = Path(tmp) / "decimal100.toml"
        big.write_text(make_decimal_adam.render([100]), encoding="utf-8")
        for command in ("check", "key"):
            t = cpu_timed(lambda c=command: quiet_main([c, str(big)]), 1)
            print(f"derive {command} of 100 decimal steps of Adam, AdamW, amsgrad and a wrong "
                  f"Adam (diagnosed): {t:.3f} s CPU")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--roundings", type=int, default=300)
    ap.add_argument("--decimal-only", action="store_true")
    a = ap.parse_args()
    if a.decimal_only:
        decimal_data(a.repeat)
        return

    base = timed(lambda: sgd_fraction(a.steps), a.repeat)
    print(f"baseline: {a.steps} SGD steps in Fraction: {base * 1e3:.2f} ms")
    for amsgrad in (False, True):
        claims = {"w_steps": [f"{v:.8f}" for v in adam_reference(a.steps, amsgrad)]}
        ex = adam_exercise(a.steps, {"name": "adam", "amsgrad": amsgrad}, claims)
        statuses: list[str] = []
        t = timed(lambda ex=ex, out=statuses: out.append(check_exercise(ex).claims[0].status),
                  a.repeat)
        assert set(statuses) == {"rounded"}, statuses
        print(f"check {a.steps} Adam steps, amsgrad={amsgrad}: {t:.3f} s "
              f"({t / base:,.0f}x the Fraction SGD baseline)")

    every = {"name": "adamw", "weight_decay": "0.05", "maximize": True, "amsgrad": True,
             "betas": ["0.8", "0.99"], "eps": "1e-6"}
    ex = adam_exercise(5, every, {"w_steps": ["1", "1", "1", "1", "1"]})
    t = timed(lambda: check_exercise(ex), a.repeat)
    print(f"check 5 AdamW steps with every option (a wrong claim, diagnosed): {t:.3f} s "
          f"({t / base:,.0f}x the baseline)")
    for name in ("adam", "adamw"):
        options = {**every, "name": name}
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "adam5.toml"
            path.write_text(OPTIONS_FILE.format(optimizer=toml_table(options)), encoding="utf-8")
            for command in ("check", "key"):
                t = timed(lambda c=command, p=path: quiet_main([c, str(p)]), a.repeat)
                print(f"derive {command} of 5 {name} steps with every option, w and b, three "
                      f"records: {t:.3f} s ({t / base:,.0f}x the baseline)")

    decimal_data(a.repeat)

    rng = random.Random(5)
    qs = [Fraction(rng.randint(2, 10**6), rng.randint(1, 10**3)) for _ in range(a.roundings)]
    roots = [sp.sqrt(sp.Rational(q.numerator, q.denominator)) for q in qs]
    roots = [r for r in roots if not r.is_Rational]
    t0 = time.perf_counter()
    for r in roots:
        intervals.round_places(r, 12)
    certified = (time.perf_counter() - t0) / len(roots)
    t0 = time.perf_counter()
    for q in qs:
        n = q * 10**12
        (n.numerator * 2 + n.denominator) // (2 * n.denominator)
    exact = (time.perf_counter() - t0) / len(qs)
    print(f"one certified rounding of a square root to 12 places: {certified * 1e6:.0f} µs "
          f"({certified / exact:,.0f}x rounding a Fraction: {exact * 1e6:.2f} µs)")


if __name__ == "__main__":
    main()
