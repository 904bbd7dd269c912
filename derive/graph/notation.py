"""Mathematical symbols as structure: a letter (Latin, or a Greek name), an accent, a prefix
(∇), never identifier text. Indices are SymPy expressions (`w[t - 1]` is w_{t−1}).

Each symbol is declared once, by `symbol()`/`family()` next to the mathematics that owns it;
every rendering (LaTeX, Unicode text) is computed from that one `Notation`. Declarations live
in scopes (`Notations`): the built-in mathematics declares into `DECLARED`; an exercise's
own names and a course's overrides live in the exercise's scope, never in the global one."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

import sympy as sp

GREEK = frozenset("""alpha beta gamma delta epsilon varepsilon zeta eta theta iota kappa lambda
mu nu xi pi rho sigma tau upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi
Psi Omega ell""".split())

_UNICODE_SPECIAL = {"ell": "ℓ", "varepsilon": "ε", "lambda": "λ", "Lambda": "Λ"}
"""Letters whose Unicode names differ from their LaTeX names (Unicode spells λ LAMDA)."""


def _greek_char(name: str) -> str:
    if name in _UNICODE_SPECIAL:
        return _UNICODE_SPECIAL[name]
    case = "CAPITAL" if name[0].isupper() else "SMALL"
    return unicodedata.lookup(f"GREEK {case} LETTER {name.upper()}")


GREEK_UNICODE: dict[str, str] = {name: _greek_char(name) for name in sorted(GREEK)}
"""The one table of Greek letters: LaTeX name (without the backslash) → Unicode character."""

GREEK_LATEX: dict[str, str] = {ch: "\\" + name for name, ch in GREEK_UNICODE.items()
                               if name != "epsilon"}
"""Unicode character → LaTeX command (ε is \\varepsilon, the course's epsilon)."""

_ACCENT_TEX = {"hat": r"\hat{{{}}}", "bar": r"\bar{{{}}}", "tilde": r"\tilde{{{}}}"}
_ACCENT_MARK = {"hat": "\u0302", "bar": "\u0304", "tilde": "\u0303"}
COMBINING_ACCENTS: dict[str, str] = {mark: "\\" + name for name, mark in _ACCENT_MARK.items()}
"""A combining accent written after a letter (g̃ is g + U+0303) → its LaTeX command (\\tilde)."""


def plain_sub(tex: str) -> str:
    """A fixed subscript's LaTeX as text: \\mathrm{grad} is grad, \\max is max."""
    return re.sub(r"\\[a-zA-Z]+\{([^{}]*)\}", r"\1", tex).replace("\\", "").replace(
        "{", "").replace("}", "")


@dataclass(frozen=True)
class Notation:
    """How a symbol is written: `letter` (a Latin letter or word, or a Greek name), an
    `accent` (hat, bar, tilde), a `prefix` (nabla), a fixed `sub`script (β₁ is beta, "1"), and
    whether the letter is a multi-letter name set upright (clip, norm); `wrt` writes it as a
    partial derivative ∂letter/∂wrt (the family index goes on the letter: ∂ℓ_i/∂w).

    `vector`: the symbol has one value per element j, its last index (g_{k,j}; as a whole,
    g_k). `norm` writes the symbol inside ‖…‖ (‖g_k‖), `func` inside an upright function name
    (clip(g_k)); the element index of a vector stays outside (clip(g_k)_j)."""

    letter: str
    accent: str = ""
    prefix: str = ""
    sub: str = ""
    upright: bool = False
    wrt: str = ""
    prime: bool = False
    vector: bool = False
    norm: bool = False
    func: str = ""

    def __post_init__(self):
        if self.accent not in ("", "hat", "bar", "tilde"):
            raise ValueError(f"unknown accent {self.accent!r}")
        if self.prefix not in ("", "nabla"):
            raise ValueError(f"unknown prefix {self.prefix!r}")
        if not (self.letter in GREEK or self.letter.isascii() and self.letter.isalpha()
                or self.upright and _COMPOUND.fullmatch(self.letter)):
            raise ValueError(f"a symbol's letter is a Latin word or a Greek name: {self.letter!r}")
        if len(self.letter) > 1 and self.letter not in GREEK and not self.upright:
            raise ValueError(f"a multi-letter name must be upright: {self.letter!r}")
        if self.func and not (self.func.isascii() and self.func.isalpha()):
            raise ValueError(f"a function name is a Latin word: {self.func!r}")

    # ------------------------------------------------------------------ renderings
    def latex_letter(self) -> str:
        """The letter with its accent, prime and prefix in LaTeX: \\hat{y}, w', \\nabla L."""
        if self.letter in GREEK:
            core = "\\" + self.letter
        elif self.upright and " " in self.letter:  # words: loss after
            core = rf"\text{{{self.letter}}}"
        elif self.upright:  # a word (loss), or a name with its parts as written (mb_grad)
            name = self.letter.replace("_", r"\_")
            core = rf"\mathrm{{{name}}}"
        else:
            core = self.letter
        if self.accent:
            core = _ACCENT_TEX[self.accent].format(core)
        if self.prime:
            core += "'"
        return (r"\nabla " + core) if self.prefix == "nabla" else core

    def text_letter(self) -> str:
        """The letter with its accent, prime, fixed subscript and prefix as Unicode text:
        ŷ, w′, β_1, ∇L."""
        out = GREEK_UNICODE.get(self.letter, self.letter)
        out = unicodedata.normalize("NFC", out + _ACCENT_MARK.get(self.accent, ""))
        if self.prime:
            out += "′"
        if self.sub:
            out += "_" + plain_sub(self.sub)
        return ("∇" + out) if self.prefix == "nabla" else out

    def shape(self) -> tuple:
        """What a reader sees of the symbol, family indices aside: two symbols of one exercise
        with one shape print the same."""
        return (self.latex_letter(), self.sub, self.wrt, self.norm, self.func)


class Notations(Mapping):
    """A scope of declarations: its own, over a parent's (None: the root). A name declared
    here hides the parent's declaration of the same name."""

    def __init__(self, own: Mapping[str, Notation] | None = None,
                 parent: Notations | None = None):
        self._own: dict[str, Notation] = dict(own or {})
        self.parent = parent

    def __getitem__(self, name: str) -> Notation:
        if name in self._own:
            return self._own[name]
        if self.parent is not None:
            return self.parent[name]
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        seen = set(self._own)
        yield from self._own
        if self.parent is not None:
            yield from (n for n in self.parent if n not in seen)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def own(self) -> Mapping[str, Notation]:
        return dict(self._own)

    def declare(self, name: str, n: Notation, once: bool = False) -> None:
        """Declare `name` here; declaring it again differently is an error, and so is any
        second declaration with `once` (the built-in mathematics: one declaration per
        symbol)."""
        old = self._own.get(name)
        if old is not None and once and name in _INDICES and old == n:
            return  # t over steps and the tokens t_k: one letter, written alike
        if old is not None and (once or old != n):
            raise ValueError(f"symbol {name!r} is declared twice (as {old}, then as {n}): "
                             "declare it once and import it (derive/graph/lesson.py holds "
                             "the symbols the course shares)")
        self._own[name] = n

    def child(self, own: Mapping[str, Notation]) -> Notations:
        return Notations(own, self)


_INDICES: set[str] = set()
"""Names declared by `index`: a family may share an index's name and letter (t, t_k)."""

DECLARED = Notations()
"""The built-in mathematics' declarations (recipes, the course's graphs)."""
_NOTATION = DECLARED._own  # the old name of the global table (read-only use)

_SCOPE: ContextVar[Notations | None] = ContextVar("derive_notation_scope", default=None)


@contextmanager
def in_scope(scope: Notations | None):
    """Resolve `notation_of` through `scope` (an exercise's) while the block runs; None keeps
    the scope in force."""
    if scope is None:
        yield current()
        return
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


def current() -> Notations:
    """The scope in force: the exercise's inside `in_scope`, else the built-in declarations."""
    return _SCOPE.get() or DECLARED


def symbol(name: str, letter: str, accent: str = "", prefix: str = "", sub: str = "",
           upright: bool = False, wrt: str = "", prime: bool = False, norm: bool = False,
           func: str = "", **assumptions) -> sp.Symbol:
    """A scalar symbol with its notation; `name` is internal and unique."""
    DECLARED.declare(name, Notation(letter, accent, prefix, sub, upright, wrt, prime,
                                    norm=norm, func=func), once=True)
    return sp.Symbol(name, **assumptions)


def family(name: str, letter: str, accent: str = "", prefix: str = "", sub: str = "",
           upright: bool = False, wrt: str = "", prime: bool = False, vector: bool = False,
           norm: bool = False, func: str = "", **assumptions) -> sp.IndexedBase:
    """An indexed family (x_i, w_t, ∇L_k; g_{k,j} with `vector`) with its notation."""
    DECLARED.declare(name, Notation(letter, accent, prefix, sub, upright, wrt, prime, vector,
                                    norm, func), once=True)
    return sp.IndexedBase(sp.Symbol(name, **assumptions))


def notation_of(name: str) -> Notation | None:
    """How `name` is written in the scope in force (see `in_scope`)."""
    return current().get(name)


def index(name: str) -> sp.Symbol:
    """An index of a family (i over records, k over microbatches, t over steps, j over
    elements): an integer symbol written as its letter."""
    DECLARED.declare(name, Notation(name), once=True)
    _INDICES.add(name)
    return sp.Symbol(name, integer=True)


_COMPOUND = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[ _][A-Za-z0-9]+)+")
"""An upright compound name: words joined by spaces (loss after) or a name kept as written
(mb_grad)."""

WORD_SYMBOLS = {"gradient": "g"}
"""Words a compound name may contain that the course writes as a letter: b_gradient is g_b."""


def _sub_part(part: str) -> str:
    """One part of a compound name as a subscript item: a letter or digits as they are, a Greek
    name as its letter, a longer word upright."""
    if part in GREEK:
        return "\\" + part
    return part if len(part) == 1 or part.isdigit() else r"\mathrm{" + part + "}"


def written_as(name: str) -> Notation:
    """How an author's own name is written, from its spelling alone (docs/formulas.md, Names in
    the working): w_new is w with the subscript "new", beta1 is β₁, yhat is ŷ (a letter and
    `hat`: xhat is x̂), loss is an
    upright word; of a compound, b_gradient is g_b (a word the course writes as a letter),
    loss_after the words "loss after", and mb_grad (a part shorter than three letters) the
    upright name mb_grad."""
    parts = name.split("_")
    word = [p for p in parts if p in WORD_SYMBOLS]
    if len(parts) > 1 and len(word) == 1:
        rest = [_sub_part(p) for p in parts if p != word[0]]
        return Notation(WORD_SYMBOLS[word[0]], sub=",".join(rest))
    head, _, rest = name.partition("_")
    m = re.fullmatch(r"([A-Za-z]+?)(\d*)", head)
    letters, digits = m.group(1), m.group(2)
    letters = {"eps": "epsilon", "lambda_": "lambda"}.get(letters, letters)
    hatted = re.fullmatch(r"([A-Za-z]|" + "|".join(sorted(GREEK, key=len, reverse=True))
                          + r")hat", letters)
    if rest and len(letters) > 1 and letters not in GREEK and not hatted:
        if not digits and all(len(p) >= 3 and p.isalpha() for p in parts):
            return Notation(" ".join(parts), upright=True)  # loss_after: words
        return Notation(name, upright=True)  # mb_grad: the name as written
    subs = [digits] if digits else []
    if rest:
        subs.append(r"\mathrm{" + rest.replace("_", r"\_") + "}")
    accent = ""
    if hatted:  # yhat is ŷ, xhat x̂ (LayerNorm's normalised input), thetahat θ̂
        letters, accent = hatted.group(1), "hat"
    upright = len(letters) > 1 and letters not in GREEK
    return Notation(letters, accent=accent, sub=",".join(subs), upright=upright)


def restyled(n: Notation, written: Notation) -> Notation:
    """`n` written as `written` (a course's override): letter, accent, prefix, subscript and
    prime from the override; what the symbol is (vector, norm, function, derivative) kept."""
    return replace(n, letter=written.letter, accent=written.accent, prefix=written.prefix,
                   sub=written.sub, upright=written.upright, prime=written.prime)


KIN: set[frozenset[str]] = set()
"""Pairs of a scalar and a family the mathematics writes with one letter on purpose (g, the
accumulated gradient, and g_k, each micro step's): not a collision."""


def kin(scalar: str, family_name: str) -> None:
    """Declare that `scalar` and `family_name` share their letter on purpose (g and g_k). A
    family whose member 0 is the scalar (w_0 = w) needs no declaration."""
    KIN.add(frozenset((scalar, family_name)))


BLOCKS: dict[str, str] = {}
"""Blocks of a partition of a family, by their boundary family: c_k is the last member of
block k (c_0 = 0), so Σ_{i=c_{k−1}+1}^{c_k} is written Σ_{i∈B_k} (records of microbatch k)."""


def blocks(boundary: str, set_name: str) -> None:
    """Declare `boundary` (c, a family with member 0) the boundaries of the blocks written
    with the family `set_name` (B): Σ over i from c_{k−1}+1 to c_k is written Σ_{i∈B_k}."""
    old = BLOCKS.setdefault(boundary, set_name)
    if old != set_name:
        raise ValueError(f"{boundary!r} already bounds the blocks {old!r}")
