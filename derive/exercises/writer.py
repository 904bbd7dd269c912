"""Writing exercise files: exact values as TOML that the reader reads back to the same values
(integers, terminating decimals as written, other fractions as "p/q" strings)."""

from __future__ import annotations

import re
import unicodedata

import sympy as sp

from derive.exercises.reader import BadNumber, Written
from derive.kernel import intervals
from derive.kernel.exact import (
    MAX_DIGITS,
    MAX_EXPONENT,
    ExactNumberError,
    TooLongToWrite,
    fixed_str,
    parse_exact,
    terminating_places,
)

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$", re.ASCII)
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                  "\f": "\\f", "\r": "\\r"}


def _unsafe(c: str) -> bool:
    """A character written escaped: controls (C0, DEL, C1), line and paragraph separators, and
    lone surrogates (no UTF-8 form)."""
    return unicodedata.category(c) in ("Cc", "Zl", "Zp", "Cs")


def string(text: str) -> str:
    """A TOML basic string that reads back to `text`: quotes, backslashes and every control
    or line-breaking character escaped (a lone surrogate, which no file can hold, as U+FFFD)."""
    out = []
    for c in text:
        if c in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[c])
        elif unicodedata.category(c) == "Cs":
            out.append("\\uFFFD")
        elif _unsafe(c):
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def comment(text: str) -> str:
    """Text for a `#` comment line: every control or line-breaking character shown as a
    \\uXXXX escape, so the comment cannot end early or hold what TOML forbids."""
    return "".join(f"\\u{ord(c):04X}" if _unsafe(c) else c for c in text)


def key(name: str) -> str:
    """A TOML key: bare when it may be, else a quoted string."""
    return name if _BARE_KEY.match(name) else string(name)


def value(v) -> str:
    """One TOML value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Written):
        return v.text if v.places is not None or "/" not in v.text else string(v.text)
    if isinstance(v, BadNumber):
        raise ValueError(f"cannot write {v.text}")
    if isinstance(v, str):
        return string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, sp.Basic):
        return exact(v)
    raise TypeError(f"cannot write {type(v).__name__}")


def _rational(v: sp.Rational) -> str | None:
    """A rational as the reader reads it back exactly, or None when that text would hold more
    digits than the reader takes (MAX_DIGITS: long trajectories build such fractions)."""
    if v.is_Integer:
        text = str(int(v))
    else:
        places = terminating_places(v)
        text = fixed_str(v, places) if places is not None and places <= 12 else f"{v.p}/{v.q}"
    try:
        parse_exact(text)
    except ExactNumberError:
        return None
    return text if v.is_Integer or "/" not in text else string(text)


def exact(v: sp.Expr) -> str:
    """An exact value as a claim: exact for rationals the reader can read back; any other
    value (irrational, or a fraction of more digits than a claim may have) as its decimal to
    12 places, with the test stated."""
    if v.is_Rational and (text := _rational(v)) is not None:
        return text
    parts = intervals.sig_parts(v, 15)  # certified, on binary floating point: no huge integer
    if parts is None:
        raise TooLongToWrite("a value with no certified decimal")
    m, e = parts
    exponent = e + len(str(abs(m))) - 1
    if exponent + 1 + 12 <= MAX_DIGITS:  # 12 places fit the reader's digits
        rounded = intervals.round_places(v, 12)
        if rounded is not None:
            return f'{{ value = "{fixed_str(rounded, 12)}", places = 12 }}'
    if abs(e) > MAX_EXPONENT:
        raise TooLongToWrite(f"a value of about 10^{exponent}, beyond what a claim writes "
                             f"(exponents within ±{MAX_EXPONENT})")
    return f'{{ value = "{m}e{e}", sig = 15 }}'


def table(name: str, entries: dict) -> list[str]:
    return [f"[{name}]"] + [f"{key(k)} = {value(v)}" for k, v in entries.items()]
