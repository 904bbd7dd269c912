"""`derive variants -n 1000`: variants per second, and the time per variant as a ratio
against checking one exercise of the same recipe (both in this process).

Run: `python benchmarks/variants.py [-n 1000]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from derive.exercises import check_exercise, load
from derive.exercises.variants import generate, render

BANK = """
[[exercise]]
id = "sgd-roomy"
recipe = "sgd_step"

[exercise.given]
w = 1
lr = 0.05
records = [[2, 4]]

[exercise.vary]
lr = { choices = [0.05, 0.1, 0.2, 0.25, 0.5] }
w = { from = -5, to = 5, step = 0.5 }
"records[0][0]" = { from = 1, to = 6 }
"records[0][1]" = { from = -6, to = 6 }

[exercise.require]
gradient = ["integer", "nonzero"]
w_new = "places <= 2"
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bank.toml"
        path.write_text(BANK)
        (ex,) = load([str(path)])
        start = time.perf_counter()
        gen = generate(ex, args.n, seed=0)
        texts = [render(ex, v, k) for k, v in enumerate(gen.variants, 1)]
        seconds = time.perf_counter() - start
        out = Path(tmp) / "v.toml"
        out.write_text("\n".join(texts))
        start = time.perf_counter()
        reports = [check_exercise(e) for e in load([str(out)])]
        check_seconds = time.perf_counter() - start
        assert all(r.ok for r in reports) and len(reports) == args.n
    per_variant = seconds / args.n
    per_check = check_seconds / args.n
    print(f"{args.n} variants in {seconds:.2f} s: {args.n / seconds:.0f} variants per second "
          f"(acceptance {gen.accepted}/{gen.tried} = {100 * gen.rate:.1f}%, space {gen.space})")
    print(f"per variant {per_variant * 1e3:.2f} ms against {per_check * 1e3:.2f} ms to load and "
          f"check one of them: ratio {per_variant / per_check:.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
