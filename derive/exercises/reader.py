"""Reading an exercise file: UTF-8 TOML whose numbers stay exact.

A TOML float is kept as the decimal it spells (`0.1` is 1/10), with the digits written after
the point, so a claim knows its precision. Nothing is evaluated: numbers pass through
`derive.kernel.exact.parse_exact` only.

Reading is in two steps: `read_document` reads and parses the file with its float literals
kept as written (no SymPy is loaded: a file that cannot be read, is not UTF-8 or is not TOML is
refused at once), and `exact_numbers` makes those literals exact.
"""

from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from derive.exercises.errors import ExerciseError

if TYPE_CHECKING:
    import sympy as sp

SETTINGS_FILE = "derive.toml"
"""A bank's settings file (its [notation], its [build]): not an exercise file."""

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
    # start-up: SymPy only once a file has been read and parsed
    from derive.kernel.exact import parse_exact

    return Written(parse_exact(text), decimal_places(text), text.strip())


@dataclass(frozen=True)
class Literal:
    """A TOML float literal as written, before `exact_numbers` reads its exact value."""

    text: str


def _parse_float(text: str):
    # start-up: SymPy only once a file has been read and parsed
    from derive.kernel.exact import ExactNumberError

    low = text.lower().lstrip("+-")
    if low in ("inf", "nan"):
        return BadNumber(text, f"{text!r} is not a finite number")
    try:
        return written(text.replace("_", ""))
    except ExactNumberError as exc:
        return BadNumber(text, str(exc))


def exact_numbers(value):
    """A document of `read_document` with every float literal exact (a `Written`, or a
    `BadNumber` that validation reports with its key); in place, and returned."""
    if isinstance(value, dict):
        for key, item in value.items():
            value[key] = exact_numbers(item)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            value[i] = exact_numbers(item)
    elif isinstance(value, Literal):
        return _parse_float(value.text)
    return value


MAX_KEY_PARTS = 32
"""Most parts one dotted key or table header may have (`a.b.c` has 3)."""

MAX_NESTING = 32
"""Deepest nesting of arrays and inline tables."""

MAX_KEYS = 200_000
"""Most keys and values in one file (counted roughly, before parsing)."""


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file, read with a bound: a device, a FIFO or a socket is refused
    without reading (opening never blocks), and so is a file past `limit` bytes, whatever its
    size claims to be."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise ExerciseError(name, None, None, f"cannot be read ({exc.strerror})",
                            "give a readable .toml file") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                    else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
            raise ExerciseError(name, None, None, f"is {kind}, not a regular file",
                                "give an exercise file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise ExerciseError(name, None, None, f"cannot be read ({exc.strerror})",
                            "give a readable .toml file") from None
    finally:
        os.close(fd)
    if size > limit:
        raise ExerciseError(name, None, None, f"is larger than {limit} bytes",
                            "split the bank into smaller files")
    return b"".join(chunks)


def prescan(text: str, name: str) -> None:
    """Refuse, before parsing, the shapes that make a TOML parser's time or memory grow faster
    than the text: dotted keys of many parts, deep nesting, too many keys. A rough scan (strings
    and comments skipped, brackets counted): it may refuse a strange file early, never accept
    one the parser would not."""
    stack: list[str] = []  # "[" (array or header) and "{" (inline table)
    keys = 0
    key_parts, in_key = 1, True
    quote = None
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == "\\" and quote in ('"', '"""'):
                i += 2
            elif text.startswith(quote, i):
                i += len(quote)
                quote = None
            else:
                i += 1
            continue
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith('"""', i) or text.startswith("'''", i):
            quote = text[i:i + 3]
            i += 3
            continue
        if c in "\"'":
            quote = c
        elif c == "\n" and not stack:
            in_key, key_parts = True, 1
        elif c in "[{":
            stack.append(c)
            if len(stack) > MAX_NESTING + 1:
                raise ExerciseError(name, None, None, f"nests arrays or tables more than "
                                    f"{MAX_NESTING} deep", "write a flatter file")
            if c == "{":
                in_key, key_parts = True, 1
        elif c in "]}":
            if stack:
                stack.pop()
        elif c == "=":
            keys += 1
            in_key = False
        elif c == "," and stack:
            keys += 1
            if keys > MAX_KEYS:
                raise ExerciseError(name, None, None, f"has more than {MAX_KEYS} keys and "
                                    f"values", "split the bank into smaller files")
            in_key, key_parts = stack[-1] == "{", 1
        elif c == "." and in_key:
            key_parts += 1
            if key_parts > MAX_KEY_PARTS:
                raise ExerciseError(name, None, None, f"has a dotted key of more than "
                                    f"{MAX_KEY_PARTS} parts", "write shorter keys")
        i += 1
    if keys > MAX_KEYS:
        raise ExerciseError(name, None, None, f"has more than {MAX_KEYS} keys and values",
                            "split the bank into smaller files")


def read_toml(path: Path) -> dict:
    """The TOML document of an exercise file, with exact numbers (a UTF-8 byte-order mark at
    its start is read as nothing)."""
    return exact_numbers(read_document(path))


def read_document(path: Path) -> dict:
    """The TOML document of an exercise file, its float literals as written (`Literal`): an
    unreadable file, one not UTF-8 or not TOML is refused here, before SymPy is loaded."""
    name = str(path)
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExerciseError(name, None, None, f"is not UTF-8 (byte {exc.start})",
                            "save the file as UTF-8") from None
    text = text.removeprefix("\ufeff")  # the byte-order mark many editors write: not TOML's
    prescan(text, name)
    try:
        return tomllib.loads(text, parse_float=Literal)
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseError(name, None, None, f"is not valid TOML: {exc}",
                            "see docs/exercises.md for the format") from None
    except (ValueError, RecursionError) as exc:
        raise ExerciseError(name, None, None, f"is not valid TOML: {exc}",
                            "see docs/exercises.md for the format") from None
