"""One exact value in the three forms the outputs use: exact text, decimal, LaTeX."""

from __future__ import annotations

import sympy as sp

from derive.kernel.exact import decimal_str, exact_str


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


def flat(value) -> str:
    """One line of text: exact, with its decimal when the two differ."""
    exact, dec = exact_text(value), decimal_text(value)
    e = exact if isinstance(exact, str) else "[" + ", ".join(map(str, exact)) + "]"
    d = dec if isinstance(dec, str) else "[" + ", ".join(map(str, dec)) + "]"
    return e if e == d else f"{e} ≈ {d}"
