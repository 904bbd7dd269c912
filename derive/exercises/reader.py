"""Reading an exercise file: UTF-8 TOML whose numbers stay exact.

A TOML float is kept as the decimal it spells (`0.1` is 1/10), with the digits written after
the point, so a claim knows its precision. Nothing is evaluated: numbers pass through
`derive.kernel.exact.parse_exact` only.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

import sympy as sp

from derive.exercises.errors import ExerciseError
from derive.kernel.exact import ExactNumberError, parse_exact

MAX_FILE_BYTES = 1 << 20
"""Largest exercise file read (1 MiB)."""


@dataclass(frozen=True)
class Written:
    """A number as the file writes it: its exact value, and its places after the point when it
    is written as a decimal (None for integers and fractions)."""

    value: sp.Rational
    places: int | None
    text: str


@dataclass(frozen=True)
class BadNumber:
    """A float literal that is not a finite exact number (reported with its key later)."""

    text: str
    reason: str


def decimal_places(text: str) -> int | None:
    """Digits after the point of a decimal written as text; None for integers and fractions."""
    t = text.strip().lower()
    if "/" in t:
        return None
    mantissa, _, exponent = t.partition("e")
    frac = mantissa.partition(".")[2] if "." in mantissa else ""
    if "." not in mantissa and not exponent:
        return None
    return max(len(frac) - (int(exponent) if exponent else 0), 0)


def written(text: str) -> Written:
    """A number from text (`"8/15"`, `"-0.425"`, `"2e9"`), keeping its written precision."""
    return Written(parse_exact(text), decimal_places(text), text.strip())


def _parse_float(text: str):
    low = text.lower().lstrip("+-")
    if low in ("inf", "nan"):
        return BadNumber(text, f"{text!r} is not a finite number")
    try:
        return written(text.replace("_", ""))
    except ExactNumberError as exc:
        return BadNumber(text, str(exc))


def read_toml(path: Path) -> dict:
    """The TOML document of an exercise file, with exact numbers."""
    name = str(path)
    try:
        data = path.read_bytes() if path.stat().st_size <= MAX_FILE_BYTES else None
    except OSError as exc:
        raise ExerciseError(name, None, None, f"cannot be read ({exc.strerror})",
                            "give a readable .toml file") from None
    if data is None:
        raise ExerciseError(name, None, None, f"is larger than {MAX_FILE_BYTES} bytes",
                            "split the bank into smaller files")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExerciseError(name, None, None, f"is not UTF-8 (byte {exc.start})",
                            "save the file as UTF-8") from None
    try:
        return tomllib.loads(text, parse_float=_parse_float)
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseError(name, None, None, f"is not valid TOML: {exc}",
                            "see docs/exercises.md for the format") from None
    except (ValueError, RecursionError) as exc:
        raise ExerciseError(name, None, None, f"is not valid TOML: {exc}",
                            "see docs/exercises.md for the format") from None
