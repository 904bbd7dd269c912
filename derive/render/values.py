"""One exact value in the three forms the outputs use: exact text, decimal, LaTeX."""

from __future__ import annotations

import sympy as sp

from derive.kernel.exact import decimal_str, exact_str, to_expr


def exact_text(value) -> object:
    """`"5"`, `"-14/3"`, or a list of such strings."""
    if isinstance(value, (list, tuple)):
        return [exact_text(v) for v in value]
    return exact_str(value)


def decimal_text(value) -> object:
    """A decimal good to 15 significant digits, or a list of them."""
    if isinstance(value, (list, tuple)):
        return [decimal_text(v) for v in value]
    return decimal_str(value)


def latex_text(value) -> str:
    """The value in LaTeX; a list as a bracketed row."""
    if isinstance(value, (list, tuple)):
        return r"\left[" + ", ".join(latex_text(v) for v in value) + r"\right]"
    return sp.latex(value)


LARGE = 60
"""Closed forms longer than this (as text) are shown by their decimal in reports and
derivations (Adam's nested surds); JSON keys keep the exact form."""


def is_large(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(is_large(v) for v in value)
    e = to_expr(value)
    return not e.is_Rational and len(sp.sstr(e)) > LARGE


def bracketed(texts) -> str:
    """Nested lists of strings as one line: [a, [b, c]]."""
    if isinstance(texts, (list, tuple)):
        return "[" + ", ".join(bracketed(t) for t in texts) + "]"
    return texts


def flat(value) -> str:
    """One line of text: exact, with its decimal when the two differ (only the decimal, after
    ≈, for a long closed form)."""
    e, d = bracketed(exact_text(value)), bracketed(decimal_text(value))
    if is_large(value):
        return f"≈ {d}"
    return e if e == d else f"{e} ≈ {d}"
