"""One error hierarchy for everything a user can get wrong or run into, each carrying its exit
code; `derive.cli.main` catches them once and prints one line.

Exit codes (docs/cli.md): 0 all holds, 1 something does not hold (or a check passed its time
bound: `undecided`), 2 invalid input, misuse, not supported, or an output that cannot be
written, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import re

MAX_QUOTED = 60
"""Most characters of an author string (a file name, an id, a key) a message quotes."""
MAX_LINE = 400
"""Most characters of a message: a last resort, past every message derive words itself (its own
words are at most 200 characters and author strings are quoted short, so that a line stays
under 300 characters for a file path of ordinary length; a deep path, up to MAX_PATH, may take
a line past 300 but not past this)."""

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                      "\u2066-\u2069]")


def escaped(text: str) -> str:
    """Control characters and bidirectional marks as escapes (`\\x1b`), never raw."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                        else f"\\u{ord(m.group()):04x}", text)


MAX_PATH = 160
"""Most characters of a file's path a message quotes (its end kept: the file's name)."""


def quoted(text: object) -> str:
    """An author string as a message quotes it: control characters and bidirectional marks
    escaped, cut after MAX_QUOTED characters with "…"."""
    s = escaped(str(text))
    return s if len(s) <= MAX_QUOTED else s[:MAX_QUOTED] + "…"


def quoted_path(path: object) -> str:
    """A file's path as a message quotes it: escaped as `quoted`, and past MAX_PATH characters
    its middle left out ("…"), so that the file's name stays."""
    s = escaped(str(path))
    return s if len(s) <= MAX_PATH else s[:40] + "…" + s[-(MAX_PATH - 41):]


def capped(text: str) -> str:
    """A message on one line: white space runs made one space, control characters escaped;
    past MAX_LINE characters its middle left out (" … "), keeping where and what is wrong, and
    what would be right (a last resort: author strings are quoted short)."""
    s = escaped(" ".join(str(text).split()))
    if len(s) <= MAX_LINE:
        return s
    head = MAX_LINE // 2  # where it is and what is wrong; then the end: what would be right
    return s[:head] + " … " + s[-(MAX_LINE - head - 3):]


class DeriveError(Exception):
    """Something the user can act on: one line, an exit code."""

    exit_code = 2

    def line(self) -> str:
        return capped(str(self))


class UsageError(DeriveError):
    """A request the program cannot carry out as asked: an unknown id, a bad option value."""


class InputError(DeriveError):
    """Invalid input in a file: the message names the file, the exercise, the key, what is wrong
    and what would be right."""


class NotSupportedError(DeriveError):
    """Valid input that asks for something derive does not do (yet); said as such, so that a
    missing feature never reads like a typo."""

    def line(self) -> str:
        text = super().line()
        return text if "not supported" in text else capped(f"not supported: {text}")


class EngineMissing(NotSupportedError):
    """A program or package that one kind of output is written with is not installed (KaTeX's
    engine quickjs, TeX): `derive build` writes the other outputs and says this once."""


class OutputError(DeriveError):
    """An output that cannot be written: a device, a folder, an input, a full disk, a closed
    pipe. Nothing is left half-written."""


class TimeBoundError(DeriveError):
    """Work that passed its time bound (key and export: exit 2; check reports `undecided`)."""


class Interrupted(DeriveError):
    """Ctrl-C: one line, nothing written."""

    exit_code = 130
