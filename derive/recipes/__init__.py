"""Recipes: the derivations an exercise can ask for, each an ordered graph of quantities."""

from derive.ids import RECIPE_NAMES
from derive.recipes import accumulation, clipping, formulas, memory, optimizer_steps, sgd_step
from derive.recipes.base import Context, Input, Mistake, Quantity, Recipe

RECIPES: dict[str, Recipe] = {r.name: r for r in (
    sgd_step.RECIPE, accumulation.RECIPE, clipping.RECIPE, optimizer_steps.RECIPE,
    memory.RECIPE, formulas.RECIPE,
)}
if tuple(RECIPES) != RECIPE_NAMES:  # the light list the exercises' reader checks names against
    raise ImportError(f"derive.ids.RECIPE_NAMES {RECIPE_NAMES} is not {tuple(RECIPES)}")

__all__ = ["RECIPES", "Context", "Input", "Mistake", "Quantity", "Recipe"]
