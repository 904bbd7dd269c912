"""Text for the terminal: author strings (ids, titles, file names) can hold control characters,
so everything derive prints shows them escaped (`\\x1b` for ESC), never raw."""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def safe(text: str) -> str:
    """`text` with every control character (and every bidirectional override) written as an
    escape; newlines and tabs kept."""
    return _CONTROL.sub(_escape, text)


def one_line(text: str) -> str:
    """`text` as one safe line: newlines shown as `\\n`."""
    return safe(text).replace("\r", "\\r").replace("\n", "\\n")
