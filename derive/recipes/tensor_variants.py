"""The whole-tensor mistakes (derive.graph.tensor_mistakes) as a recipe's mistakes: the hook the
formulas recipe calls for an exercise with tensor quantities.

Each `TensorVariant` is one `Mistake` of its target quantity, of the course's origin (the rule
of evidence names it when no other candidate gives the claimed value,
derive.exercises.evidence), whose candidates are its alternatives (one per operation it may
have replaced, each with its words): the diagnosis takes the first that gives the claim. A
value is computed as the quantity's own: the target's nodes in the exercise's graph with the
replaced definitions in place, everything downstream of them recomputed, the entries nested
in the quantity's shape (a vector a list, a matrix a list of rows, a number a number).

    tensor_mistakes(lambda ctx: graph, quantities_of(defines, recipe.tensors),
                    lambda ops: rebuild(ops).nodes, OPS, graph.nodes, graph.notation)

(derive/recipes/formulas.py, first in the recipe's `Later` mistakes): `defines` the
exercise's (name, formula) in order, `rebuild` the recipe's graph read again under other
Ops (`Recipe.rebuild`, which raises a ValueError where the formulas no longer read).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from derive.graph.graph import Graph
from derive.graph.tensor_mistakes import Build, Quantity, TensorVariant, variants
from derive.recipes.base import Candidate, Mistake

COURSE = "course"


TAKES_DERIVATIVE = re.compile(r"\bgrad\s*\(|\bd\s*\(")
"""A formula that takes a derivative: grad(L, W), or d(L)/d(w) in the scalar language."""


def quantities_of(defines: Sequence[tuple[str, str]],
                  tensors: Mapping[str, object]) -> tuple[Quantity, ...]:
    """The hook's quantities of an exercise: `defines` its (name, formula) in derivation
    order, `tensors` the recipe's tensor quantities (`Recipe.tensors`: each with `shape` and
    `entries`, its entry nodes row-major); any other define is a number, one node of its own
    name."""
    out = []
    for name, text in defines:
        t = tensors.get(name)
        shape, nodes = (tuple(t.shape), tuple(t.entries)) if t is not None else ((), (name,))
        out.append(Quantity(name, shape, nodes, text, bool(TAKES_DERIVATIVE.search(text))))
    return tuple(out)


def nested(flat: list, shape: tuple[int, ...]):
    """Row-major entries as the quantity's value: a number for shape (), nested lists else."""
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0]
    return [nested(flat[k * step:(k + 1) * step], shape[1:]) for k in range(shape[0])]


def value_with(graph_of: Callable[[object], Graph], q: Quantity, replace) -> Callable:
    """The quantity's value in the exercise's graph with `replace`'s definitions in place:
    every node computed here, from the exercise's exact inputs."""
    def compute(ctx):
        scope = graph_of(ctx).scope(ctx, replace, shared=lambda name: False)
        return nested([scope.compute(n) for n in q.nodes], tuple(q.shape))
    return compute


def mistake_of(graph_of: Callable[[object], Graph], q: Quantity, v: TensorVariant) -> Mistake:
    """One variant as the recipe's `Mistake` of its target, its alternatives its candidates."""
    computes = [(value_with(graph_of, q, a.replace), a) for a in v.alternatives]

    def candidates(ctx):
        out = []
        for compute, a in computes:
            try:
                value = compute(ctx)
            except (ArithmeticError, KeyError, ValueError, TypeError, IndexError,
                    RecursionError):
                continue  # undefined under the mistake (a division by zero): no such value
            out.append(Candidate(value, a.en, a.zh))
        return out

    def first(ctx):
        got = candidates(ctx)
        if not got:
            raise KeyError("no value of this mistake for this exercise")
        return got[0].value

    first_words = v.alternatives[0]
    return Mistake(v.name, v.target, first_words.en, first, zh=first_words.zh,
                   candidates=candidates, origin=COURSE)


def tensor_mistakes(graph_of: Callable[[object], Graph], quantities: Sequence[Quantity],
                    build: Build, ops, right=None, notation=None) -> tuple[Mistake, ...]:
    """The recipe's whole-tensor mistakes: for each mistake of
    derive.graph.tensor_mistakes.MISTAKES that changes a quantity, one `Mistake` per quantity
    it changes. It rebuilds the formulas under each mistaken operation they call: make it in
    the recipe's `Later`, so that a right exercise never does. `right` is the exercise's
    nodes (rebuilt when None), `notation` the graph's (the words' symbols written in it)."""
    by_name = {q.name: q for q in quantities}
    return tuple(mistake_of(graph_of, by_name[v.target], v)
                 for v in variants(quantities, build, ops, right, notation))
