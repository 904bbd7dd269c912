"""Exact numbers from TOML values, and where they sit for error messages."""

from __future__ import annotations

import sympy as sp

from derive.exercises.reader import BadNumber, Written, written
from derive.exercises.shape import MAX_ID, Where, id_problem, kind_of, shown  # noqa: F401
from derive.kernel.exact import MAX_DIGITS, ExactNumberError


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
