"""The tokens of the formula language (derive/graph/language.py): exact numbers, names (ASCII
and the Greek letters of the course, with Unicode subscript digits) and operators, each with
its column; limits on a number literal are checked here, before any arithmetic."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import sympy as sp

from derive.graph.formula_limits import FormulaError, FormulaNotSupported

MAX_DIGITS = 100
"""Most digits in one number literal."""
MAX_DECIMAL_EXPONENT = 30
"""Largest |e| in a literal such as 1e-30."""

_SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_NAME_LETTERS = set("ηθεβμτλαγσℓŷ∇πδ")
_HAT = "\u0302"
"""The combining circumflex: x̂ is x followed by it (Unicode has no precomposed x̂)."""


@dataclass(frozen=True)
class _Token:
    kind: str   # number, name, op, end
    text: str
    column: int


def _is_letter(ch: str) -> bool:
    return ch.isascii() and ch.isalpha() or ch in _NAME_LETTERS or _hatted(ch)


def _hatted(ch: str) -> bool:
    """A letter with a hat precomposed (ẑ, ŵ; formulas are read NFC, so z and a combining hat
    is ẑ): an ASCII letter and U+0302 once decomposed."""
    d = unicodedata.normalize("NFD", ch)
    return len(d) == 2 and d[0].isascii() and d[0].isalpha() and d[1] == _HAT


class _Cursor:
    """A recursive-descent parser's place in its tokens and its depth, shared by the scalar
    language (derive/graph/language.py) and the tensor one (tensor_language.py): `toks`, `pos`
    and `depth` set by the parser; nesting past `max_depth` is not supported."""

    toks: list[_Token]
    pos: int
    depth: int
    max_depth: int

    @property
    def tok(self) -> _Token:
        return self.toks[self.pos]

    def _take(self) -> _Token:
        t = self.toks[self.pos]
        self.pos += 1
        return t

    def _is(self, text: str) -> bool:
        return self.tok.kind == "op" and self.tok.text == text

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > self.max_depth:
            raise FormulaNotSupported(f"a formula nested more than {self.max_depth} levels "
                                      f"deep (column {self.tok.column}) is not supported")

    def _leave(self) -> None:
        self.depth -= 1


def _starts_number(text: str, i: int) -> bool:
    """Whether a number literal starts at i: a digit, or a point before one (.5)."""
    ch = text[i]
    return ch.isascii() and ch.isdigit() or (ch == "." and i + 1 < len(text)
                                             and text[i + 1].isdigit())


def _number_end(text: str, i: int) -> int:
    """Where the number literal starting at i ends: digits and points, then an exponent
    e±d only when digits follow it (2e is 2 and the name e)."""
    n, j = len(text), i
    while j < n and text[j].isascii() and (text[j].isdigit() or text[j] == "."):
        j += 1
    if j < n and text[j] in "eE" and j + 1 < n and (
            text[j + 1].isdigit() or text[j + 1] in "+-" and j + 2 < n
            and text[j + 2].isdigit()):
        j += 2
        while j < n and text[j].isascii() and text[j].isdigit():
            j += 1
    return j


def _name_end(text: str, i: int) -> int:
    """Where the name starting at the letter i ends: letters, ASCII and subscript digits, and
    a combining hat on an ASCII letter (x̂)."""
    n, j = len(text), i + 1
    while j < n and (_is_letter(text[j]) or text[j].isascii() and text[j].isdigit()
                     or text[j] in "₀₁₂₃₄₅₆₇₈₉"
                     or text[j] == _HAT and text[j - 1].isascii() and text[j - 1].isalpha()):
        j += 1
    return j


def _tokens(text: str) -> list[_Token]:
    """The tokens of a formula: numbers, names (with Unicode subscript digits), operators."""
    out: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        col = i + 1
        if ch in " \t":
            i += 1
            continue
        if ch.isdigit() and not ch.isascii():
            raise FormulaError("digits must be ASCII 0-9", col)
        if _starts_number(text, i):
            j = _number_end(text, i)
            out.append(_Token("number", text[i:j], col))
            i = j
            continue
        if _is_letter(ch):
            j = _name_end(text, i)
            out.append(_Token("name", text[i:j], col))
            i = j
            continue
        if text.startswith("**", i):
            out.append(_Token("op", "^", col))
            i += 2
            continue
        if ch in "+-−*·×/^()|,_{}√∈":
            out.append(_Token("op", {"−": "-", "·": "*", "×": "*"}.get(ch, ch), col))
            i += 1
            continue
        if ch == "!":
            raise FormulaNotSupported(f"factorials (column {col}) are not supported")
        name = unicodedata.name(ch, "")
        shown = ch if ch.isprintable() and not ch.isspace() else f"U+{ord(ch):04X}"
        raise FormulaError(f"unexpected character {shown!r}" + (f" ({name.lower()})"
                                                                  if name else ""), col)
    out.append(_Token("end", "", n + 1))
    return out


def _number(tok: _Token) -> sp.Rational:
    text = tok.text
    mantissa, _, exponent = text.replace("E", "e").partition("e")
    if mantissa.count(".") > 1:
        raise FormulaError(f"a number with two decimal points: {text}", tok.column)
    digits = mantissa.replace(".", "")
    if len(digits) > MAX_DIGITS:
        raise FormulaNotSupported(f"a number of more than {MAX_DIGITS} digits "
                                  f"(column {tok.column}) is not supported")
    e = int(exponent) if exponent else 0
    if abs(e) > MAX_DECIMAL_EXPONENT:
        raise FormulaNotSupported(f"the exponent in {text} (column {tok.column}) is beyond "
                                  f"±{MAX_DECIMAL_EXPONENT}: not supported")
    whole, _, frac = mantissa.partition(".")
    value = sp.Rational(int(whole or "0") * 10**len(frac) + int(frac or "0"), 10**len(frac))
    return value * sp.Rational(10) ** e
