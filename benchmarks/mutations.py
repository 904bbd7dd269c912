"""Diagnosis by mutations (derive/graph/mutate.py) against the built-in hand-named catalogue,
timed in this process on the same exercise: sgd_step's graph with a bias, one wrong gradient
that no mistake explains (so every mistake is tried).

Run: `python benchmarks/mutations.py [--repeat 20]`. Prints the time to generate the mutations
of every quantity, the time of one diagnosis with each catalogue, and their ratio; then how many
of the built-in recipes' hand-named mistakes (their examples, tests/test_graph.py) the mutations
alone explain, and by which mutation.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import sympy as sp

from derive.exercises.claims import Claim
from derive.exercises.diagnosis import diagnose
from derive.graph.mutate import mutations_of
from derive.recipes import sgd_step
from derive.recipes.graphed import mutation_mistakes

GIVEN = {"w": sp.Integer(1), "lr": sp.Rational(1, 10), "b": sp.Rational(1, 2), "loss": None,
         "records": [[sp.Integer(2), sp.Integer(4)], [sp.Integer(-1), sp.Integer(3)],
                     [sp.Integer(3), sp.Integer(1)]]}
CLAIM = {"gradient": Claim(sp.Rational(12345, 7), "12345/7"),
         "loss_new": Claim(sp.Rational(-1, 3), "-1/3")}


def _timed(f, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    graph = sgd_step.graph(True, "half")
    targets = sgd_step.CLAIMABLE
    built_in = sgd_step.RECIPE
    mutated = replace(built_in, mistakes=mutation_mistakes(sgd_step.GRAPHED, graph, targets))
    expected = built_in.evaluate(GIVEN)
    counts = {t: len(v) for t, v in mutations_of(graph, targets).items()}

    generate = _timed(lambda: mutations_of(graph, targets), args.repeat)
    hand = _timed(lambda: diagnose(built_in, GIVEN, CLAIM, list(CLAIM), expected), args.repeat)
    mut = _timed(lambda: diagnose(mutated, GIVEN, CLAIM, list(CLAIM), expected), args.repeat)
    print(f"mutations per quantity: {counts}")
    print(f"generating them all:            {generate * 1e3:8.1f} ms")
    print(f"diagnosis, hand-named mistakes: {hand * 1e3:8.1f} ms "
          f"({sum(m.target in CLAIM for m in built_in.mistakes)} tried)")
    print(f"diagnosis, mutations:           {mut * 1e3:8.1f} ms "
          f"({sum(counts[t] for t in CLAIM)} tried)")
    print(f"ratio mutations / hand-named:   {mut / hand:8.1f}")
    rediscover()


def rediscover() -> None:
    """Each hand-named mistake's example checked with only the mutations as mistakes."""
    import importlib
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_graph import MISTAKES, _toml

    from derive.exercises.bank import load_file
    from derive.exercises.check import check_exercise
    from derive.recipes.base import Context

    found = 0
    for name, m in MISTAKES:
        graphed = importlib.import_module(f"derive.recipes.{name}").GRAPHED
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "example.toml"
            path.write_text(_toml(name, m.example), encoding="utf-8")
            ex = load_file(path)[0]
        graph = ex.recipe.graph(Context(ex.recipe, ex.given))
        targets = [q.name for q in ex.recipe.available(ex.given) if q.name in graph.by_name]
        muts = mutation_mistakes(graphed, graph, targets)
        report = check_exercise(replace(ex, recipe=replace(ex.recipe, mistakes=muts)), 60)
        d = next(c for c in report.claims if c.name == m.target).diagnosis
        hit = d is not None and d.mistake in {x.name for x in muts}
        found += hit
        print(f"  {name:16} {m.name:32} {d.explanation if hit else '-'}")
    print(f"hand-named mistakes explained by a mutation: {found}/{len(MISTAKES)}")


if __name__ == "__main__":
    main()
