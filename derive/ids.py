"""How a statement id is written, in one light module: the command line tells an id from a path
with it before it loads the statements' layer (and SymPy)."""

import re

ID_PATTERN = re.compile(r"^(A\d+|[a-z0-9]+(?:-[a-z0-9]+)*)$")
"""A statement id: `A` and digits (the course's numbered statements), or lowercase words of
letters and digits joined by hyphens."""

RECIPE_NAMES = ("sgd_step", "accumulation", "clipping", "optimizer_steps", "memory", "formulas")
"""The recipes' names, in `derive recipes`' order: an exercise's `recipe` is checked against them
before the recipes (and SymPy) are loaded. derive.recipes.RECIPES holds the recipes in this
order and refuses to load if a recipe's own name differs."""
