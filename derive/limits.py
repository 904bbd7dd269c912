"""Bounds a user can see and change, in one light module (the command line reads them before
it imports the layers that use them)."""

EXERCISE_SECONDS = 30.0
"""The time bound of one exercise in check, key, export and variants (`--time-limit`)."""

RUN_SECONDS = 600.0
"""The time bound of a whole run of check, key, export or variants (`--total-time-limit`):
past it, the exercises not yet done are `undecided` at once, so a bank of slow exercises
cannot run for its length times the bound of one."""

TOTAL_VARIANTS = 20_000
"""Most variants one run of `derive variants` writes (exercises × -n)."""
