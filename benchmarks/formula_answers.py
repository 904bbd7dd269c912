"""Time per formula-answer decision, against checking the same exercise's numeric claims (the
baseline), both in this process.

Each generated sgd_step exercise (one record, or three) claims the gradient, the loss and
w_new: as exact numbers in the baseline bank, as formulas in the other — half of them
rearranged but equivalent, half with a coefficient changed (wrong, with a witness).

Run: `python benchmarks/formula_answers.py [--exercises 40]`.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from fractions import Fraction
from pathlib import Path

from derive.exercises import check_exercise, load

RIGHT = {1: {"gradient": "x*(x*w - y)", "loss": "(w*x - y)^2/2",
             "w_new": "w - lr*(w*x^2 - x*y)"},
         3: {"gradient": "mean_i(x_i*(x_i*w - y_i))", "loss": "sum_i((w*x_i - y_i)^2)/(2*N)",
             "w_new": "w - lr*mean_i((w*x_i - y_i)*x_i)"}}
WRONG = {1: {"gradient": "x*(x*w - 2*y)", "loss": "(w*x - y)^2",
             "w_new": "w + lr*(w*x^2 - x*y)"},
         3: {"gradient": "sum_i(x_i*(x_i*w - y_i))", "loss": "mean_i((w*x_i - y_i)^2)",
             "w_new": "w - lr*mean_i((w*x_i - y_i))"}}


def frac(f: Fraction) -> str:
    return f'"{f.numerator}/{f.denominator}"' if f.denominator != 1 else str(f.numerator)


def generate(n: int, formulas: bool, seed: int = 1) -> str:
    rng = random.Random(seed)
    parts = []
    for i in range(n):
        r = lambda: Fraction(rng.randint(-9, 9), rng.choice([1, 2, 5]))  # noqa: E731
        w, lr = r(), Fraction(rng.randint(1, 20), 100)
        size = 1 if i % 2 == 0 else 3
        recs = [(r(), r()) for _ in range(size)]
        g = sum(x * (w * x - y) for x, y in recs) / size
        values = {"gradient": frac(g), "loss": frac(sum((w * x - y) ** 2 for x, y in recs)
                                                    / (2 * size)),
                  "w_new": frac(w - lr * g)}
        if formulas:
            table = (RIGHT if i % 4 < 2 else WRONG)[size]
            values = {k: '{ formula = "' + v + '" }' for k, v in table.items()}
        text = ", ".join(f"[{frac(x)}, {frac(y)}]" for x, y in recs)
        parts.append(f'[[exercise]]\nid = "e{i}"\nrecipe = "sgd_step"\n[exercise.given]\n'
                     f'w = {frac(w)}\nlr = {frac(lr)}\nrecords = [{text}]\n'
                     "[exercise.claims]\n" + "".join(f"{k} = {v}\n" for k, v in values.items()))
    return "\n".join(parts)


def timed(path: Path) -> tuple[float, dict]:
    exercises = load([str(path)])
    t = time.perf_counter()
    statuses: dict[str, int] = {}
    for ex in exercises:
        for c in check_exercise(ex).claims:
            statuses[c.status] = statuses.get(c.status, 0) + 1
    return time.perf_counter() - t, statuses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--exercises", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        numbers, formulas = Path(tmp) / "numbers.toml", Path(tmp) / "formulas.toml"
        numbers.write_text(generate(args.exercises, False))
        formulas.write_text(generate(args.exercises, True))
        timed(numbers)  # warm SymPy's caches for both
        base, base_statuses = timed(numbers)
        spent, statuses = timed(formulas)
    claims = 3 * args.exercises
    print(f"numeric claims   {base / claims * 1e3:8.2f} ms per claim  {base_statuses}")
    print(f"formula answers  {spent / claims * 1e3:8.2f} ms per claim  {statuses}")
    print(f"ratio {spent / base:.1f}× the numeric check, {args.exercises} exercises")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
