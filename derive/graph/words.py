"""A mistake's words with their math (docs/diagnosis.md, "How a mistake's words are written").

Words are text and math spans. A span is written once, by derive, in one of two ways: as
LaTeX in the course's notation (`said(r"… $u_1 = (1 - \\tau) \\cdot g_1$ …")`, for the words a
module declares), or as a subexpression of the derivation itself (`Formula.of(e)`, for the
generated mutations), which the renderers print with the printer the derivation is printed
with, in the exercise's notation scope (derive.render.formula_tex): the same symbol for the
same thing in the diagnosis and the derivation. An author's declared words are `Quoted`: text
the renderers escape, never math.

`Words` is a `str` whose value is the plain Unicode text (the terminal, the JSON
`explanation`, the self-check page's feedback: u_1 = (1 − τ)·g_1, [z₂ > 0]); its `parts` are
what the renderers typeset (LaTeX in tex exports, `$…$` for KaTeX in Markdown). `plain(tex)`
is the one converter from a span's LaTeX to that text; it refuses any command it does not
know, so that no backslash reaches the text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

import sympy as sp

from derive.graph.notation import GREEK_UNICODE, Notations, current


@dataclass(frozen=True)
class Formula:
    """A math span: `text`, its plain Unicode form; `tex`, LaTeX in the course's notation
    written by derive, or `expr`, a subexpression of the derivation that the renderers print
    in `scope` (the notation in force where the words were made)."""

    text: str
    tex: str = ""
    expr: sp.Basic | None = None
    scope: Notations | None = field(default=None, compare=False, repr=False)

    @staticmethod
    def of(expr: sp.Basic, text: str) -> Formula:
        """A subexpression of the derivation, with its plain text, in the notation in force."""
        return Formula(text, expr=expr, scope=current())


@dataclass(frozen=True)
class Quoted:
    """Words an exercise's author wrote (a declared mistake's): text, escaped, never math."""

    text: str


Part = str | Formula | Quoted


def _text(part: Part) -> str:
    return part if isinstance(part, str) else part.text


class Words(str):
    """Text with math spans: the plain text as a `str`, the spans in `parts`."""

    parts: tuple[Part, ...]

    def __new__(cls, parts) -> Words:
        flat: list[Part] = []
        for p in parts:
            for q in (p.parts if isinstance(p, Words) else (p,)):
                if isinstance(q, str) and not q:
                    continue
                if isinstance(q, str) and flat and type(flat[-1]) is str:
                    flat[-1] = flat[-1] + q  # one text part between two spans
                else:
                    flat.append(str(q) if isinstance(q, str) else q)
        out = super().__new__(cls, "".join(_text(p) for p in flat))
        out.parts = tuple(flat)
        return out

    def __reduce__(self):
        return (Words, (self.parts,))

    @property
    def has_math(self) -> bool:
        return any(isinstance(p, Formula) for p in self.parts)


def cat(*pieces) -> Words:
    """Pieces in order (text, spans, words) as one `Words`, keeping every span."""
    return Words(pieces)


def parts_of(words: str) -> tuple[Part, ...]:
    """The parts of words: a `Words`' own, else the text as one part."""
    return words.parts if isinstance(words, Words) else ((words,) if words else ())


def filled(words: Words, *values) -> Words:
    """`words` with each `{}` of its text replaced by the next of `values` (text or words):
    a template said once, filled with what a diagnosis found."""
    out: list = []
    left = list(values)
    for part in words.parts:
        if not isinstance(part, str):
            out.append(part)
            continue
        pieces = part.split("{}")
        for n, piece in enumerate(pieces):
            if n:
                out.append(left.pop(0))
            out.append(piece)
    if left:
        raise ValueError(f"{len(left)} values left over for {str(words)!r}")
    return cat(*out)


_SPAN = re.compile(r"\$([^$]+)\$")


def said(marked: str) -> Words:
    """Words a module of derive declares, with math written as LaTeX between dollars
    (`"damped: $u_1 = (1 - \\tau) \\cdot g_1$"`); each span's plain text from `plain`. Only for
    derive's own words: an author's are `Quoted`."""
    pieces: list[Part] = []
    for n, piece in enumerate(_SPAN.split(marked)):
        if n % 2:
            pieces.append(Formula(plain(piece), tex=piece.strip()))
        elif "$" in piece:
            raise ValueError(f"an unclosed $ in {marked!r}")
        else:
            pieces.append(piece)
    return Words(pieces)


# --------------------------------------------------------------- LaTeX → plain Unicode text

_SYMBOLS = {
    **{name: ch for name, ch in GREEK_UNICODE.items() if name != "epsilon"}, "epsilon": "ε",
    "cdot": "·", ",": "·", "times": "×", "sum": "Σ", "nabla": "∇", "partial": "∂",
    "infty": "∞", "ldots": "…", "leq": "≤", "geq": "≥", "neq": "≠", "approx": "≈", "in": "∈",
    "to": "→", "pm": "±", "lVert": "‖", "rVert": "‖", "lvert": "|", "rvert": "|", "|": "‖",
    "max": "max", "min": "min", "exp": "exp", "log": "log", "quad": " ", " ": " ",
    "{": "{", "}": "}", "left": "", "right": "", "%": "%",
}
_GLUED = frozenset({"epsilon", "partial", "nabla", "sum", "hat", "tilde", "bar", "sqrt", "frac",
                    "tfrac", "dfrac", "text", "mathrm", "operatorname", "mathit", "texttt",
                    "left", "right"})
"""Commands whose following spaces TeX's plain text drops (a letter, an accent, a function);
after an operator or a delimiter (‖ḡ‖ + ε, 2 · 2) a space written is kept."""
_ACCENTS = {"hat": "\u0302", "tilde": "\u0303", "bar": "\u0304"}
_WORDS = ("text", "mathrm", "operatorname", "mathit", "texttt")
_OPS = {"-": "−", "<": "<", ">": ">", "'": "′"}
"""A prime is the course's ′ (relu′(0)), as the notation writes a derivative."""
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_BARE = re.compile(r"^\w[\u0300-\u036f]?(?:_\w|_\{[^{}]*\})?′?$")
"""A root or a power's operand written without brackets: a letter with one index (√v_t)."""


def plain(tex: str) -> str:
    """A span's LaTeX (the subset derive writes its words in) as plain Unicode text:
    `(1 - \\tau) \\cdot g_1` is (1 − τ)·g_1, `\\sqrt{v_t}` √v_t, `\\hat{m}_t` m̂_t. A command
    outside the subset is an error (the tests render every declared word)."""
    out, rest = _plain(tex, 0)
    if rest != len(tex):
        raise ValueError(f"an unbalanced }} in {tex!r}")
    out = re.sub(r"\s*·\s*", "·", out)  # a product as the course's text writes it: η·g
    return unicodedata.normalize("NFC", out.strip())


def _group(tex: str, i: int) -> tuple[str, int]:
    """The argument at i: a {group} or one character (a command's letters), as plain text."""
    while i < len(tex) and tex[i] == " ":
        i += 1
    if i >= len(tex):
        raise ValueError(f"a command without its argument in {tex!r}")
    if tex[i] == "{":
        inner, j = _plain(tex, i + 1)
        if j >= len(tex) or tex[j] != "}":
            raise ValueError(f"an unclosed {{ in {tex!r}")
        return inner, j + 1
    if tex[i] == "\\":
        return _command(tex, i)
    return _OPS.get(tex[i], tex[i]), i + 1


def _command(tex: str, i: int) -> tuple[str, int]:
    """The command at i (a backslash) as text, and where it ends."""
    m = re.match(r"\\([A-Za-z]+|.)", tex[i:])
    if m is None:
        raise ValueError(f"a lone backslash in {tex!r}")
    name, j = m.group(1), i + m.end()
    if name.isalpha() and (name in GREEK_UNICODE or name in _GLUED):
        while j < len(tex) and tex[j] == " ":  # a letter's command ends at a space: \eta g
            j += 1
    if name in _ACCENTS:
        arg, j = _group(tex, j)
        return arg + _ACCENTS[name], j
    if name in _WORDS:
        return _group(tex, j)
    if name == "sqrt":
        arg, j = _group(tex, j)
        return ("√" + arg if _BARE.match(arg) else f"√({arg})"), j
    if name in ("frac", "tfrac", "dfrac"):
        num, j = _group(tex, j)
        den, j = _group(tex, j)
        return f"{_operand(num)}/{_operand(den)}", j
    if name not in _SYMBOLS:
        raise ValueError(f"the command \\{name} in a mistake's words (derive/graph/words.py "
                         "knows the course's letters and a few operators)")
    return _SYMBOLS[name], j


def _operand(text: str) -> str:
    return text if _BARE.match(text) or text.isdigit() else f"({text})"


def _plain(tex: str, i: int) -> tuple[str, int]:
    """Plain text from i up to an unmatched } (or the end)."""
    out: list[str] = []
    while i < len(tex):
        ch = tex[i]
        if ch == "}":
            break
        if ch == "\\":
            got, i = _command(tex, i)
            out.append(got)
        elif ch in "_^":
            arg, i = _group(tex, i + 1)
            if ch == "_":  # n_max and t_0 as the notation's text writes them, θ_{t−1}
                out.append("_" + (arg if arg.isalnum() else "{" + arg + "}"))
            elif arg.isdigit():  # a_t² as the course writes it
                out.append(arg.translate(_SUPERSCRIPT))
            else:
                out.append("^" + (arg if _BARE.match(arg) else f"({arg})"))
        elif ch == "{":
            inner, i = _group(tex, i)
            out.append(inner)
        elif ch == "$":
            raise ValueError(f"a $ inside a span of {tex!r}")
        else:
            out.append(_OPS.get(ch, ch))
            i += 1
    return "".join(out), i
