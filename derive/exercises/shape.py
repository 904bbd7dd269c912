"""The shape of an exercise table, checked without numbers: light (no SymPy), so that a table
that is not a table, a missing or invalid id, an unknown exercise key, a title that is not text,
an unknown recipe and an id given twice in a file are refused before SymPy loads. Also where a
value sits and how it is shown in an error (derive.exercises.values reads the numbers)."""

from __future__ import annotations

import datetime

from derive.errors import escaped
from derive.exercises.errors import ExerciseError, did_you_mean
from derive.exercises.reader import BadNumber, Literal, Written
from derive.ids import RECIPE_NAMES

ID_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
EXERCISE_KEYS = ("id", "title", "recipe", "given", "define", "claims", "ask", "vary",
                 "require", "mistakes", "facts")


class Where:
    """Where in a file a value sits, to name it in an error."""

    def __init__(self, path, exercise):
        self.path, self.exercise = path, exercise

    def fail(self, key, problem, expected=""):
        raise ExerciseError(self.path, self.exercise, key, problem, expected)


def shown(value, limit: int = 60) -> str:
    """A TOML value as the file writes it, for a message (never a Python repr), cut at
    `limit` characters."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (Written, BadNumber, Literal)):
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
    if isinstance(value, (int, Written, BadNumber, Literal)) and not isinstance(value, bool):
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


def unknown_key(where: Where, key: str, choices, what: str):
    hint = did_you_mean(key.split(".")[-1], choices)
    where.fail(key, f"is not {what}",
               hint or f"use one of: {', '.join(choices)}")


def table_shape(table, path: str, index: int) -> tuple[Where, str, str]:
    """(where it sits, its title, its recipe's name) of the `index`-th [[exercise]] table of a
    file, after the checks that need no numbers (ExerciseError otherwise)."""
    where = Where(path, None)
    if not isinstance(table, dict):
        where.fail(f"exercise[{index}]", f"is {kind_of(table)}", "write [[exercise]] tables")
    ex_id = table.get("id")
    problem = id_problem(ex_id, lambda i: not set(i) - ID_CHARS)
    if problem:
        where.exercise = f"#{index + 1}"
        where.fail("id", problem, "give each exercise an id of letters, digits, '-', '_' or '.', "
                   "such as \"lesson03-ex1\"")
    where.exercise = ex_id
    for key in table:
        if key not in EXERCISE_KEYS:
            unknown_key(where, key, EXERCISE_KEYS, "an exercise key")
    title = table.get("title", "")
    if not isinstance(title, str):
        where.fail("title", f"is {kind_of(title)}", "write the title as text")
    name = table.get("recipe")
    if not isinstance(name, str) or name not in RECIPE_NAMES:
        hint = did_you_mean(name, RECIPE_NAMES) if isinstance(name, str) else ""
        where.fail("recipe", "is missing" if name is None else f"is {shown(name)}",
                   hint or f"use one of: {', '.join(RECIPE_NAMES)} (`derive recipes` lists them)")
    return where, title, name
