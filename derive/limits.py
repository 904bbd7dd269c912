"""Bounds a user can see and change, in one light module (the command line reads them before
it imports the layers that use them)."""

EXERCISE_SECONDS = 30.0
"""The time bound of one exercise in check, key, export and variants (`--time-limit`)."""
