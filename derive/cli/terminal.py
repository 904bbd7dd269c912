"""Text for the terminal: author strings (ids, titles, file names) can hold control characters,
so everything derive prints shows them escaped (`\\x1b` for ESC), never raw (the functions
live with the other escapes in derive.render.escape)."""

from __future__ import annotations

from derive.render.escape import escape_terminal as safe
from derive.render.escape import terminal_line as one_line

__all__ = ["one_line", "safe"]
