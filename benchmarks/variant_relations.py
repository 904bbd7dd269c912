"""Acceptance rates of `derive variants` with relational conditions: for exercises whose
`[exercise.require]` relates quantities (`loss_new = "< loss"`, `w_new = "> w"`,
`toward = "w"`), how many candidates are tried per accepted variant, and the time per variant.

Each exercise is asked for N variants (`-n`, default 100) with seed 0, through the same
`generate` the command line uses (with `allow_fewer`, so a scarce one reports what it found).
"attempts per variant" is tried / accepted: the candidates drawn (enumerated in a seeded order,
or sampled when the space exceeds 50,000) for each variant kept.

Run: `python benchmarks/variant_relations.py [-n 100]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from derive.exercises import load
from derive.exercises.variants import generate

SGD = """
[[exercise]]
id = "{id}"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.05
records = [[2, 4]]
[exercise.vary]
lr = {{ choices = [0.05, 0.1, 0.2, 0.25, 0.5, 1] }}
w = {{ from = -5, to = 5, step = 0.5 }}
"records[0][0]" = {{ from = 1, to = 6 }}
"records[0][1]" = {{ from = -6, to = 6 }}
[exercise.require]
{require}
"""

WIDE = """
[[exercise]]
id = "{id}"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.05
records = [[2, 4], [1, 1]]
[exercise.vary]
lr = {{ choices = [0.05, 0.1, 0.2, 0.25, 0.5, 1] }}
w = {{ from = -5, to = 5, step = 0.5 }}
"records[0][0]" = {{ from = 1, to = 6 }}
"records[0][1]" = {{ from = -6, to = 6 }}
"records[1][1]" = {{ from = -6, to = 6 }}
[exercise.require]
{require}
"""

MOMENTUM = """
[[exercise]]
id = "{id}"
recipe = "optimizer_steps"
[exercise.given]
w = 1
lr = 0.1
records = [[1, 2]]
steps = 3
optimizer = {{ name = "sgd", momentum = 0.5 }}
[exercise.vary]
"optimizer.momentum" = {{ choices = [0, 0.25, 0.5, 0.75, 0.9] }}
lr = {{ choices = [0.1, 0.5, 1, 1.5] }}
w = {{ from = -3, to = 3 }}
"records[0][1]" = {{ from = -3, to = 3 }}
[exercise.require]
{require}
"""

PARTITION = """
[[exercise]]
id = "{id}"
recipe = "accumulation"
[exercise.given]
w = 1
lr = 0.1
microbatches = [[[1, 0], [2, 0]], [[3, 0]]]
[exercise.vary]
partition = {{ choices = [[2, 1], [1, 2], [1, 1, 1]], targets = {{ from = -2, to = 2 }} }}
w = {{ choices = [-1, 0, 1, 2] }}
[exercise.require]
{require}
"""

CASES = [
    ("sgd-loss-falls", SGD, 'loss_new = "< loss"'),
    ("sgd-w-rises", SGD, 'w_new = "> w"'),
    ("sgd-toward", SGD, 'toward = "w"'),
    ("sgd-overshoots", SGD, 'loss_new = "> loss"\ngradient = "!= 0"'),
    ("sgd-toward-integer", SGD, 'toward = "w"\ngradient = "integer"\nw_new = "places <= 2"'),
    ("sgd-wide-loss-falls", WIDE, 'loss_new = "< loss"\ngradient = "integer"'),
    ("momentum-toward", MOMENTUM, 'toward = "w"\nw_steps = "!= w"'),
    ("partition-targets", PARTITION, 'mean_of_means = "differs from gradient"\nw_new = "< w"'),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=100)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, template, require in CASES:
            path = Path(tmp) / f"{name}.toml"
            path.write_text(template.format(id=name, require=require))
            (ex,) = load([str(path)])
            start = time.perf_counter()
            gen = generate(ex, args.n, seed=0, allow_fewer=True)
            seconds = time.perf_counter() - start
            per = gen.tried / gen.accepted if gen.accepted else float("inf")
            rows.append((name, gen.space, "enumerated" if gen.enumerated else "sampled",
                         len(gen.variants), gen.tried, f"{100 * gen.rate:.1f}%", f"{per:.2f}",
                         f"{1e3 * seconds / max(1, len(gen.variants)):.1f}",
                         " ".join(require.split("\n"))))
    head = ("exercise", "space", "search", "found", "tried", "accepted", "tries/variant",
            "ms/variant", "require")
    widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
    for r in (head, *rows):
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
