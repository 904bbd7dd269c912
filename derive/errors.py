"""One error hierarchy for everything a user can get wrong or run into, each carrying its exit
code; `derive.cli.main` catches them once and prints one line.

Exit codes (docs/cli.md): 0 all holds, 1 something does not hold (or a check passed its time
bound: `undecided`), 2 invalid input, misuse, not supported, or an output that cannot be
written, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations


class DeriveError(Exception):
    """Something the user can act on: one line, an exit code."""

    exit_code = 2

    def line(self) -> str:
        return " ".join(str(self).split())


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
        return text if "not supported" in text else f"not supported: {text}"


class OutputError(DeriveError):
    """An output that cannot be written: a device, a folder, an input, a full disk, a closed
    pipe. Nothing is left half-written."""


class TimeBoundError(DeriveError):
    """Work that passed its time bound (key and export: exit 2; check reports `undecided`)."""


class Interrupted(DeriveError):
    """Ctrl-C: one line, nothing written."""

    exit_code = 130
