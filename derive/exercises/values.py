"""Exact numbers from TOML values, and where they sit for error messages."""

from __future__ import annotations

import datetime

import sympy as sp

from derive.errors import escaped
from derive.exercises.errors import ExerciseError
from derive.exercises.reader import BadNumber, Written, written
from derive.kernel.exact import MAX_DIGITS, ExactNumberError


class Where:
    """Where in a file a value sits, to name it in an error."""

    def __init__(self, path, exercise):
        self.path, self.exercise = path, exercise

    def fail(self, key, problem, expected=""):
        raise ExerciseError(self.path, self.exercise, key, problem, expected)


def number(value, where: Where, key: str) -> sp.Rational:
    """An exact number from a TOML integer, decimal literal or string."""
    if isinstance(value, bool):
        where.fail(key, "is a boolean", "write a number such as 0.1 or 8/15")
    if isinstance(value, int):
        if len(str(abs(value))) > MAX_DIGITS:
            where.fail(key, f"has more than {MAX_DIGITS} digits", "write a smaller number")
        return sp.Integer(value)
    if isinstance(value, Written):
        return value.value
    if isinstance(value, BadNumber):
        where.fail(key, value.reason, "write a finite exact number such as 0.1 or \"8/15\"")
    if isinstance(value, str):
        try:
            return written(value).value
        except ExactNumberError as exc:
            where.fail(key, str(exc), "write an integer, a decimal such as -0.425, "
                       "or a fraction such as \"8/15\"")
    where.fail(key, f"is {kind_of(value)}", "write a number such as 0.1, \"8/15\" or 3")


def shown(value, limit: int = 60) -> str:
    """A TOML value as the file writes it, for a message (never a Python repr), cut at
    `limit` characters."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (Written, BadNumber)):
        text = value.text
    elif isinstance(value, int):
        text = str(value) if value.bit_length() < 200 else f"a {len(str(abs(value)))}-digit number"
    elif isinstance(value, str):
        text = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    elif isinstance(value, list):
        text = "[" + ", ".join(shown(v, limit) for v in value[:8]) + (
            ", …" if len(value) > 8 else "") + "]"
    elif isinstance(value, dict):
        text = "{ " + ", ".join(f"{k} = {shown(v, limit)}" for k, v in list(value.items())[:8]) \
            + " }"
    else:
        text = kind_of(value)
    text = escaped(text)  # escaped before the cut: what is cut is what is shown
    return text if len(text) <= limit else text[:limit - 1] + "…"


def kind_of(value) -> str:
    if isinstance(value, (int, Written, BadNumber)) and not isinstance(value, bool):
        return "a number"
    return {list: "a list", dict: "a table", str: "text", bool: "a boolean",
            datetime.datetime: "a date and time", datetime.date: "a date",
            datetime.time: "a time"}.get(type(value), "a value of another kind")


MAX_ID = 100
"""Longest id of an exercise or a statement, in characters."""


def id_problem(value, valid) -> str | None:
    """Why a table's `id` is not an id (missing, not a string, empty, longer than MAX_ID, or
    not of the form `valid` accepts), as an error's problem; None for a valid id."""
    if value is None:
        return "is missing"
    if not isinstance(value, str) or not value or len(value) > MAX_ID or not valid(value):
        return f"is {shown(value)}"
    return None

