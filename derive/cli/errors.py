"""Misuse and invalid input: one clear line on stderr and exit 2 (see derive.errors)."""

from __future__ import annotations

import difflib

from derive.errors import UsageError

__all__ = ["UsageError", "did_you_mean"]


def did_you_mean(name: str, choices) -> str:
    """A close match, compared without case (so `a2` finds `A2`)."""
    choices = list(choices)
    lower = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(name.lower(), list(lower), n=1, cutoff=0.6)
    return f"; did you mean {lower[close[0]]!r}?" if close else ""
