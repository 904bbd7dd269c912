"""The value of a formula answer on the exercise's own values: the claimed formula put in
place of the quantity's definition and evaluated exactly by the graph evaluator, as the
quantity itself is. A later claim that follows from a wrong formula follows from this value
(the error carried forward, derive.exercises.diagnosis)."""

from __future__ import annotations

import sympy as sp

from derive.exercises.formulas import FormulaAnswer
from derive.graph.evaluate import NotEvaluable
from derive.graph.symbolic import Inliner, NoForm, TooLarge, derivatives_taken
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.recipes.base import Context, Recipe

VALUE_SECONDS = 1.0
"""The most time spent evaluating one formula answer on the exercise's values."""


def formula_value(answer: FormulaAnswer, recipe: Recipe, given: dict, name: str, expected):
    """The claimed formula's exact value for this exercise, in the shape of `expected` (the
    quantity's value: a number, or a list per member), or None where it has none (undefined
    there, not evaluable exactly, or past VALUE_SECONDS)."""
    try:
        with time_bound(VALUE_SECONDS):
            return _value(answer, recipe, given, name, expected)
    except (DecisionTimeout, NoForm, TooLarge, NotEvaluable, KeyError, IndexError, TypeError,
            ValueError, ArithmeticError, RecursionError):
        return None


def _value(answer: FormulaAnswer, recipe: Recipe, given: dict, name: str, expected):
    ctx = Context(recipe, given)
    graph = recipe.graph(ctx) if recipe.graph is not None else None
    if graph is None or name not in graph.by_name:
        return None
    expr = answer.expr
    if expr.has(sp.Derivative):  # grad(…) in the claim: taken of the inlined quantities
        inline = Inliner(graph)
        expr = expr.replace(lambda e: isinstance(e, sp.Derivative),
                            lambda d: derivatives_taken(inline(d)))
    value = graph.scope(ctx, {name: expr}).compute(name)
    if isinstance(value, (list, tuple)) and not isinstance(expected, (list, tuple)):
        return value[0] if len(value) == 1 else None  # one record's quantity is a number
    if isinstance(expected, (list, tuple)) and not isinstance(value, (list, tuple)):
        return None
    return value
