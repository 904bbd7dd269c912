"""Mathematical symbols as structure: a letter (Latin, or a Greek name), an accent, a prefix
(∇), never identifier text. Indices are SymPy expressions (`w[t - 1]` is w_{t−1})."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

GREEK = frozenset("""alpha beta gamma delta epsilon varepsilon zeta eta theta iota kappa lambda
mu nu xi pi rho sigma tau upsilon phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi
Psi Omega ell""".split())


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
        if not (self.letter in GREEK or self.letter.isascii() and self.letter.isalpha()):
            raise ValueError(f"a symbol's letter is a Latin word or a Greek name: {self.letter!r}")
        if len(self.letter) > 1 and self.letter not in GREEK and not self.upright:
            raise ValueError(f"a multi-letter name must be upright: {self.letter!r}")
        if self.func and not (self.func.isascii() and self.func.isalpha()):
            raise ValueError(f"a function name is a Latin word: {self.func!r}")


_NOTATION: dict[str, Notation] = {}


def _register(name: str, n: Notation) -> None:
    old = _NOTATION.get(name)
    if old is not None and old != n:
        raise ValueError(f"symbol {name!r} is already written as {old}")
    _NOTATION[name] = n


def symbol(name: str, letter: str, accent: str = "", prefix: str = "", sub: str = "",
           upright: bool = False, wrt: str = "", prime: bool = False, norm: bool = False,
           func: str = "", **assumptions) -> sp.Symbol:
    """A scalar symbol with its notation; `name` is internal and unique."""
    _register(name, Notation(letter, accent, prefix, sub, upright, wrt, prime, norm=norm,
                             func=func))
    return sp.Symbol(name, **assumptions)


def family(name: str, letter: str, accent: str = "", prefix: str = "", sub: str = "",
           upright: bool = False, wrt: str = "", prime: bool = False, vector: bool = False,
           norm: bool = False, func: str = "", **assumptions) -> sp.IndexedBase:
    """An indexed family (x_i, w_t, ∇L_k; g_{k,j} with `vector`) with its notation."""
    _register(name, Notation(letter, accent, prefix, sub, upright, wrt, prime, vector, norm,
                             func))
    return sp.IndexedBase(sp.Symbol(name, **assumptions))


def notation_of(name: str) -> Notation | None:
    return _NOTATION.get(name)


def index(name: str) -> sp.Symbol:
    """An index of a family (i over records, k over microbatches, t over steps, j over
    elements): an integer symbol written as its letter."""
    _register(name, Notation(name))
    return sp.Symbol(name, integer=True)


BLOCKS: dict[str, str] = {}
"""Blocks of a partition of a family, by their boundary family: c_k is the last member of
block k (c_0 = 0), so Σ_{i=c_{k−1}+1}^{c_k} is written Σ_{i∈B_k} (records of microbatch k)."""


def blocks(boundary: str, set_name: str) -> None:
    """Declare `boundary` (c, a family with member 0) the boundaries of the blocks written
    with the family `set_name` (B): Σ over i from c_{k−1}+1 to c_k is written Σ_{i∈B_k}."""
    old = BLOCKS.setdefault(boundary, set_name)
    if old != set_name:
        raise ValueError(f"{boundary!r} already bounds the blocks {old!r}")
