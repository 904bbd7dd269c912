"""Misuse and invalid input: one clear line on stderr and exit 2."""

from __future__ import annotations

import difflib


class UsageError(Exception):
    """A request the program cannot carry out as asked (exit 2)."""


def did_you_mean(name: str, choices) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
