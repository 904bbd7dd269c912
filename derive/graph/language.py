"""The formula language authors write in (issue 13): a hand-written recursive-descent parser
that builds SymPy objects directly, never through `eval`, `sympify` or `parse_expr`.

A hand-written parser rather than a grammar library: the language is small, every error must
name its column and say what was expected, and the limits (length, nesting, size of numbers
and exponents) are checked while reading, before any arithmetic — a library would add a
dependency and still need all three.

    formula  := sum
    sum      := product (("+" | "-" | "−") product)*
    product  := unary (("*" | "·" | "×" | "/") unary)*
    unary    := ("-" | "−" | "+") unary | power
    power    := atom (("^" | "**") unary)?                 right-associative: a^b^c = a^(b^c)
    atom     := number | name | "pi" | call | "(" sum ")" | "|" sum "|" | "√" atom
    call     := function "(" sum ("," sum)* ")"      sqrt abs exp log cos sin tanh sigmoid
                                                      softplus relu sign clamp min max grad
                | ("sum" | "mean") "_" index "(" sum ")"   Σ over the index's family
                | ("sum" | "mean") "_{" letter ("in" | "∈") block "_" index "}(" sum ")"
                                                            Σ over a block, Σ_{i∈B_k}
                | "d(" sum ")/d(" name ")"                   a derivative, like grad(L, w)
                | declared ("_" index)? "(" sum ("," sum)* ")"   ell_i(θ) = ell(i, θ), f(x)
    name     := word ("_" word)* ("_" index)?              x_i, w_{t-1}, w_new, beta1, β₁, ŷ, η
    word     := letter (letter | digit)*                  after "_": two or more characters
    index    := letter | digit+ | "{" sum "}"

Blocks (`B_k`), declared functions (`ell`, `f`) and names with a meaning of their own (`n_k`
as the program's n(k), `N` as its Σ_k n_k) come from the caller: `parse_formula(text,
blocks=…, functions=…, names=…)`, never from the text.

Numbers are exact: `0.1` is 1/10, `1e-3` is 1/1000. Unicode and ASCII spell the same names
(η and lr and eta, θ and theta, β₁ and beta1, ε and eps, ŷ and yhat).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping

import sympy as sp

from derive.graph.formula_limits import (  # noqa: F401 — the limits' names, kept here too
    LOG10_2,
    MAX_CONSTANT_DIGITS,
    MAX_POWER,
    MAX_SIZE,
    UNBOUNDED,
    FormulaError,
    FormulaNotSupported,
    _bits,
    _check_size,
    _digits,
    _guard,
    _is_zero_constant,
    _log2,
    _size,
    evaluated,
)
from derive.graph.formula_tokens import (  # noqa: F401 — the tokens' names, kept here too
    _SUBSCRIPT_DIGITS,
    MAX_DECIMAL_EXPONENT,
    MAX_DIGITS,
    _Cursor,
    _number,
    _Token,
    _tokens,
)
from derive.kernel.constants import written
from derive.kernel.functions import DECLARED

MAX_LENGTH = 2_000
"""Longest formula, in characters."""
MAX_DEPTH = 60
"""Deepest nesting of brackets and operators."""


ALIASES = {
    "η": "eta", "lr": "eta", "θ": "theta", "ε": "eps", "epsilon": "eps", "ŷ": "yhat",
    "β₁": "beta1", "β₂": "beta2", "β": "beta", "μ": "mu", "τ": "tau", "λ": "lambda_",
    "lambda": "lambda_", "α": "alpha", "γ": "gamma", "σ": "sigma", "ℓ": "ell", "∇": "nabla",
    "π": "pi",
}
"""Unicode and ASCII spellings of one name: the canonical name is on the right."""

SPELLINGS = {"δ": "delta"}
"""Letters read as a name but never written back for it (unlike ALIASES, whose Greek letters
print for their names): δ is delta, as lecturers write the backward pass's δ₁ = ∂L/∂z₁."""

FUNCTIONS = {"sqrt": sp.sqrt, "abs": sp.Abs, "exp": sp.exp, "log": sp.log,
             **{name: d.func for name, d in DECLARED.items()}}
"""Functions of a fixed number of arguments (ARITY; one unless said): sqrt, abs, exp, log and
those of derive/kernel/functions.py (cos, sin, tanh, sigmoid, softplus, relu, sign, clamp)."""
ARITY = {name: d.arity for name, d in DECLARED.items()}

CONSTANTS = {"pi": sp.pi}
"""Names that are numbers: `pi` (and π) is π."""

Block = Callable[[sp.Symbol, sp.Expr], tuple[sp.Expr, sp.Expr, sp.Expr]]
"""A block of a family: (index symbol i, block index k) -> (first i, last i, size), so that
`sum_{i in B_k}(f)` is Σ_{i=first}^{last} f and `mean_{i in B_k}(f)` is that over the size."""


_ARGUMENTS = {1: "one argument", 3: "three arguments: clamp(x, lo, hi)"}


class _Parser(_Cursor):
    max_depth = MAX_DEPTH

    def __init__(self, text: str, indices: Mapping[str, sp.Expr],
                 blocks: Mapping[str, Block] | None = None,
                 functions: Mapping[str, sp.FunctionClass] | None = None,
                 names: Mapping[str, object] | None = None):
        self.toks = _tokens(text)
        self.pos = 0
        self.depth = 0
        self.indices = dict(indices)
        self.blocks = dict(blocks or {})
        self.functions = dict(functions or {})
        self.names = dict(names or {})
        self.bound: list[str] = []

    # --------------------------------------------------------------------------- helpers
    def _expect(self, text: str, what: str) -> _Token:
        if not self._is(text):
            raise FormulaError(f"expected {what}", self.tok.column)
        return self._take()

    # ------------------------------------------------------------------------- grammar
    def formula(self) -> sp.Expr:
        if self.tok.kind == "end":
            raise FormulaError("expected a formula", self.tok.column)
        e = self.sum()
        if self.tok.kind != "end":
            raise FormulaError(f"unexpected {self.tok.text!r}", self.tok.column)
        return e

    def sum(self) -> sp.Expr:
        self._enter()
        terms = [self.product()]
        while self._is("+") or self._is("-"):
            sign = self._take().text
            t = self.product()
            terms.append(t if sign == "+" else sp.Mul(-1, t, evaluate=False))
        self._leave()
        return terms[0] if len(terms) == 1 else sp.Add(*terms, evaluate=False)

    def product(self) -> sp.Expr:
        self._enter()
        factors = [self.unary()]
        while self._is("*") or self._is("/"):
            op = self._take().text
            at = self.tok.column
            f = self.unary()
            if op == "/" and _is_zero_constant(f):
                raise FormulaError("division by zero", at)
            factors.append(f if op == "*" else sp.Pow(f, -1, evaluate=False))
        self._leave()
        return factors[0] if len(factors) == 1 else sp.Mul(*factors, evaluate=False)

    def unary(self) -> sp.Expr:
        if self._is("-") or self._is("+"):
            sign = self._take().text
            self._enter()
            inner = self.unary()
            self._leave()
            return inner if sign == "+" else sp.Mul(-1, inner, evaluate=False)
        return self.power()

    def power(self) -> sp.Expr:
        base = self.atom()
        if self._is("^"):
            self._take()
            self._enter()
            exp = self.unary()
            self._leave()
            _check_size(base, exp, self.tok.column)
            return sp.Pow(base, exp, evaluate=False)
        return base

    def atom(self) -> sp.Expr:
        t = self.tok
        if t.kind == "number":
            self._take()
            return _number(t)
        if t.kind == "name":
            return self.name_or_call()
        if self._is("("):
            self._take()
            e = self.sum()
            self._expect(")", "')'")
            return e
        if self._is("|"):
            self._take()
            e = self.sum()
            self._expect("|", "a closing '|'")
            return sp.Abs(e, evaluate=False)
        if self._is("√"):
            self._take()
            self._enter()
            e = self.atom()
            self._leave()
            return sp.sqrt(e, evaluate=False)
        raise FormulaError("expected an operand", t.column)

    def _arguments(self) -> list[sp.Expr]:
        self._expect("(", "'('")
        args = [self.sum()]
        while self._is(","):
            self._take()
            args.append(self.sum())
        self._expect(")", "')'")
        return args

    def name_or_call(self) -> sp.Expr:
        t = self._take()
        word = t.text
        compound = (self._is("_") and self.toks[self.pos + 1].kind == "name"
                    and len(self.toks[self.pos + 1].text) > 1)  # exp_avg, lr_decay: a name
        if compound:  # an alias or a caller's name applies to the whole name, never a prefix
            return self.name(t)
        canonical = _canonical(word)
        if canonical in self.functions and canonical not in self.bound:
            return self.declared_call(t, canonical)
        if canonical in self.names and canonical not in self.bound:
            return self.named(t, canonical, self.names[canonical])
        if word in FUNCTIONS and self._is("("):
            args = self._arguments()
            arity = ARITY.get(word, 1)
            if len(args) != arity:
                raise FormulaError(f"{word} takes {_ARGUMENTS[arity]}", t.column)
            return FUNCTIONS[word](*args, evaluate=False)
        if canonical in CONSTANTS and not self._is("_") and canonical not in self.bound:
            return CONSTANTS[canonical]
        if word in ("min", "max") and self._is("("):
            args = self._arguments()
            if len(args) < 2:
                raise FormulaError(f"{word} takes two or more arguments", t.column)
            return written(word, args)
        if word == "grad" and self._is("("):
            args = self._arguments()
            if len(args) != 2 or not isinstance(args[1], (sp.Symbol, sp.Indexed)):
                raise FormulaError("grad takes a formula and a name: grad(L, w)", t.column)
            return sp.Derivative(args[0], args[1], evaluate=False)
        if word == "d" and self._is("("):
            return self.derivative(t)
        if word in ("sum", "mean") and self._is("_") and not compound:
            return self.reduction(t)
        if word in ("sum", "mean", "grad", "min", "max", *FUNCTIONS) and not compound:
            raise FormulaError(f"{word} needs its argument in brackets", self.tok.column)
        if self._is("("):
            raise self._undeclared(word, t)
        return self.name(t)

    def _undeclared(self, word: str, t: _Token) -> FormulaNotSupported:
        declared = ", ".join(sorted(self.functions))
        return FormulaNotSupported(
            f"the function {word!r} (column {t.column}) is not supported "
            "(docs/formulas.md#functions lists the language's)"
            + (f"; functions declared here: {declared}" if declared else ""))

    def declared_call(self, t: _Token, word: str) -> sp.Expr:
        """A declared function applied: `f(x, y)` is f(x, y); `ell_i(θ)` is ell(i, θ), the
        index first."""
        head: list[sp.Expr] = []
        if self._is("_"):
            self._take()
            head.append(self.index())
        if not self._is("("):
            example = f"{word}_i(…)" if head else f"{word}(…)"
            raise FormulaError(f"{t.text!r} is a function: write its arguments, as in {example}",
                               self.tok.column)
        return self.functions[word](*head, *self._arguments())

    def derivative(self, t: _Token) -> sp.Expr:
        self._expect("(", "'('")
        top = self.sum()
        self._expect(")", "')'")
        self._expect("/", "'/d(name)' after d(…)")
        d = self.tok
        if not (d.kind == "name" and d.text == "d"):
            raise FormulaError("expected d(name) below d(…)", d.column)
        self._take()
        self._expect("(", "'('")
        var = self.atom()
        self._expect(")", "')'")
        if not isinstance(var, (sp.Symbol, sp.Indexed)):
            raise FormulaError("a derivative is taken with respect to a name", d.column)
        return sp.Derivative(top, var, evaluate=False)

    def reduction(self, t: _Token) -> sp.Expr:
        self._take()  # "_"
        if self._is("{"):
            return self.block_reduction(t)
        it = self.tok
        if it.kind != "name" or len(it.text) != 1:
            raise FormulaError("expected an index letter after sum_ or mean_", it.column)
        self._take()
        if it.text not in self.indices:
            known = ", ".join(sorted(self.indices)) or "none"
            sizes = {s.name: letter for letter, s in self.indices.items()
                     if isinstance(s, sp.Symbol)}
            sizes.update({name: letter for letter, s in self.indices.items()
                          for name, meaning in self.names.items() if meaning == s})
            if it.text in sizes:  # sum_N(…): N is i's size
                letter = sizes[it.text]
                raise FormulaError(f"{it.text!r} is a size, not an index: write "
                                   f"{t.text}_{letter}(…) over {letter} = 1…{it.text} "
                                   f"(indices here: {known})", it.column)
            raise FormulaError(f"unknown index {it.text!r} (indices here: {known})", it.column)
        index = sp.Symbol(it.text, integer=True)
        size = self.indices[it.text]
        self.bound.append(it.text)
        self._expect("(", "'(' after the index")
        body = self.sum()
        self._expect(")", "')'")
        self.bound.pop()
        total = sp.Sum(body, (index, 1, size))
        return total if t.text == "sum" else sp.Mul(total, sp.Pow(size, -1, evaluate=False),
                                                    evaluate=False)

    def block_reduction(self, t: _Token) -> sp.Expr:
        """`sum_{i in B_k}(f)` and `mean_{i in B_k}(f)`: Σ of f over the block the caller's
        `blocks[B](i, k)` gives as (first, last, size); a mean divides by its size."""
        self._take()  # "{"
        it = self.tok
        if it.kind != "name" or len(it.text) != 1:
            raise FormulaError("expected an index letter after sum_{ or mean_{", it.column)
        self._take()
        if not (self.tok.kind == "name" and self.tok.text == "in" or self._is("∈")):
            raise FormulaError("expected 'in' or '∈' after the index", self.tok.column)
        self._take()
        bt = self.tok
        if bt.kind != "name" or bt.text not in self.blocks:
            known = ", ".join(sorted(self.blocks)) or "none"
            shown = bt.text if bt.kind == "name" else (bt.text or "the end")
            raise FormulaError(f"unknown block {shown!r} (blocks here: {known})", bt.column)
        self._take()
        self._expect("_", "'_' and the block's index, as in B_k")
        which = self.index()
        self._expect("}", "'}'")
        index = sp.Symbol(it.text, integer=True)
        first, last, size = _block_bounds(self.blocks[bt.text](index, which), bt.text)
        self.bound.append(it.text)
        self._expect("(", "'(' after the block")
        body = self.sum()
        self._expect(")", "')'")
        self.bound.pop()
        total = sp.Sum(body, (index, first, last))
        return total if t.text == "sum" else sp.Mul(total, sp.Pow(size, -1, evaluate=False),
                                                    evaluate=False)

    def name(self, t: _Token) -> sp.Expr:
        word = t.text
        # w_new, b_gradient: a part of two or more characters after "_" is part of the name
        # (an index is one letter, digits or {…})
        while (self._is("_") and self.toks[self.pos + 1].kind == "name"
               and len(self.toks[self.pos + 1].text) > 1):
            self._take()
            word += "_" + self._take().text
        word = written_name(t.text, word[len(t.text):])
        if word != t.text and word in self.names and word not in self.bound:
            return self.named(t, word, self.names[word])
        if word.startswith("_") or word.endswith("_") and word != "lambda_":
            raise FormulaError(f"{t.text!r} is not a name", t.column)
        if self._is("_"):
            self._take()
            member = sp.IndexedBase(sp.Symbol(word, real=True))[self.index()]
            if self._is("("):
                raise self._undeclared(word, t)
            return member
        if word in self.bound:  # the index of an enclosing sum_i(…)
            return sp.Symbol(word, integer=True)
        sizes = {s.name: s for s in self.indices.values() if isinstance(s, sp.Symbol)}
        if word in sizes and word.isupper():  # N, K, T: the families' sizes
            return sizes[word]
        return sp.Symbol(word, real=True)

    def named(self, t: _Token, word: str, meaning: object) -> sp.Expr:
        """A name the caller gave a meaning: a family (a function or an IndexedBase) takes an
        index, `n_k` is n(k) or n[k]; anything else is that expression, `N`."""
        family = isinstance(meaning, (sp.FunctionClass, sp.IndexedBase))
        if self._is("_"):
            if not family:
                raise FormulaError(f"{t.text!r} takes no index here", self.tok.column)
            self._take()
            which = self.index()
            return meaning[which] if isinstance(meaning, sp.IndexedBase) else meaning(which)
        if family:
            raise FormulaError(f"{t.text!r} is a family: write a member, as in {t.text}_k",
                               self.tok.column)
        return meaning

    def _index_letter(self, letter: str) -> sp.Expr:
        """A one-letter index: an enclosing sum's index, a size (`x_N`, `w_T`: the very
        symbol the sums run to, or the window's N) or else an integer index."""
        if letter not in self.bound:
            meaning = self.names.get(letter)
            if isinstance(meaning, sp.Expr):
                return meaning
            sizes = {s.name: s for s in self.indices.values() if isinstance(s, sp.Symbol)}
            if letter in sizes and letter.isupper():
                return sizes[letter]
        return sp.Symbol(letter, integer=True)

    def index(self) -> sp.Expr:
        it = self.tok
        if self._is("{"):
            self._take()
            e = self.sum()
            self._expect("}", "'}'")
            # w_{t-1} is the graph's w[t - 1]: letters in an index are integer indices
            # (a size such as N, T or the window's N keeps its own symbol: x_{N+1})
            e = evaluated(e)
            return e.xreplace({n: sp.Symbol(n.name, integer=True) for n in e.free_symbols
                               if len(n.name) == 1 and not n.is_integer})
        if it.kind == "name" and len(it.text) == 1:
            self._take()
            return self._index_letter(it.text)
        if it.kind == "number" and it.text.isdigit():
            self._take()
            return sp.Integer(int(it.text))
        raise FormulaError("expected an index: a letter, a number or {…}", it.column)


DEFAULT_INDICES = {"i": sp.Symbol("N", integer=True, positive=True),
                   "k": sp.Symbol("K", integer=True, positive=True),
                   "t": sp.Symbol("T", integer=True, positive=True),
                   "j": sp.Symbol("d", integer=True, positive=True)}
"""The families an index stands for when a formula does not say: records i = 1…N,
microbatches k = 1…K, steps t = 1…T, elements j = 1…d."""


def parse_formula(text: str, indices: Mapping[str, sp.Expr] | None = None, *,
                  blocks: Mapping[str, Block] | None = None,
                  functions: Mapping[str, sp.FunctionClass] | None = None,
                  names: Mapping[str, object] | None = None) -> sp.Expr:
    """The SymPy expression a formula writes (unevaluated, in its written order). Raises
    FormulaError (invalid, with the column) or FormulaNotSupported (valid, beyond the
    language or its limits).

    The caller may give meanings, never read from the text: `blocks` maps a block letter to
    (i, k) -> (first, last, size) for `sum_{i in B_k}(…)`; `functions` maps a name to an
    undefined SymPy function, so `ell_i(θ)` is ell(i, θ) and `f(x)` is f(x); `names` maps a
    written name to a SymPy object: a family (Function or IndexedBase, `n_k` is n(k)) or an
    expression (`N`)."""
    if not isinstance(text, str):
        raise FormulaError("a formula is a string", 1)
    if len(text) > MAX_LENGTH:
        raise FormulaNotSupported(f"a formula of {len(text):,} characters is beyond "
                                  f"{MAX_LENGTH:,}: not supported")
    text = unicodedata.normalize("NFC", text)  # ŷ typed as y and a combining hat is ŷ
    result = _Parser(text, _checked(DEFAULT_INDICES if indices is None else indices),
                     _checked_blocks(blocks), _checked_functions(functions),
                     _checked_names(names)).formula()
    evaluated(result)  # refuses what would blow up, or be undefined, once evaluated
    return result


def _checked(indices: Mapping[str, sp.Expr]) -> dict[str, sp.Expr]:
    """The families' sizes, from the program, never from text: single ASCII letters mapped to
    a positive integer Symbol or an Integer from 1 to MAX_SIZE."""
    out = {}
    for name, size in indices.items():
        if not (isinstance(name, str) and len(name) == 1 and name.isascii() and name.isalpha()):
            raise TypeError(f"an index is one ASCII letter, not {name!r}")
        ok = (isinstance(size, sp.Symbol) and size.is_integer and size.is_positive) or (
            isinstance(size, sp.Integer) and 1 <= int(size) <= MAX_SIZE) or (
            _program_size(size))
        if not ok:
            raise TypeError(f"the size of index {name} must be a positive integer Symbol, "
                            f"an Integer from 1 to {MAX_SIZE}, or a positive symbolic count "
                            f"such as Σ_k n_k, not {size!r}")
        out[name] = size
    return out


def _program_size(size: object) -> bool:
    """A symbolic count built by the program (objective.N = Σ_k n_k): a positive SymPy
    expression, not a number, whose free symbols are positive integers."""
    return (isinstance(size, sp.Expr) and not size.is_number and size.is_positive is True
            and not size.atoms(sp.Float)
            and all(s.is_integer and s.is_positive for s in size.free_symbols))


RESERVED = frozenset({"sum", "mean", "d", "grad", "min", "max", "in", *FUNCTIONS, *CONSTANTS})
"""Words of the language that a caller's functions and names may not take."""


def _checked_word(name: object, what: str) -> str:
    if not (isinstance(name, str) and name and name[0].isascii() and name[0].isalpha()
            and all(c.isascii() and c.isalnum() for c in name)) or name in RESERVED:
        raise TypeError(f"{what} is named by ASCII letters and digits (not a word of the "
                        f"language), not {name!r}")
    return name


def _checked_blocks(blocks: Mapping[str, Block] | None) -> dict[str, Block]:
    out = {}
    for name, block in (blocks or {}).items():
        if not (isinstance(name, str) and len(name) == 1 and name.isascii() and name.isalpha()):
            raise TypeError(f"a block is one ASCII letter, not {name!r}")
        if not callable(block) or isinstance(block, (str, sp.Basic)):
            raise TypeError(f"block {name} must be a callable (i, k) -> (first, last, size)")
        out[name] = block
    return out


def _checked_functions(functions) -> dict[str, sp.FunctionClass]:
    out = {}
    for name, f in (functions or {}).items():
        _checked_word(name, "a declared function")
        if not isinstance(f, sp.core.function.UndefinedFunction):
            raise TypeError(f"function {name} must be an undefined SymPy Function, not {f!r}")
        out[name] = f
    return out


def _checked_names(names) -> dict[str, object]:
    out = {}
    for name, meaning in (names or {}).items():
        _checked_word(name, "a name with a meaning")
        if isinstance(meaning, str) or not isinstance(
                meaning, (sp.Expr, sp.IndexedBase, sp.core.function.UndefinedFunction)):
            raise TypeError(f"name {name} must mean a SymPy expression, IndexedBase or "
                            f"undefined Function, not {meaning!r}")
        if isinstance(meaning, sp.Expr) and meaning.atoms(sp.Float):
            raise TypeError(f"name {name} must mean an exact expression, not {meaning!r}")
        out[name] = meaning
    return out


def _block_bounds(bounds: object, letter: str) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """The (first, last, size) a caller's block gave, checked to be three exact expressions."""
    if not (isinstance(bounds, tuple) and len(bounds) == 3
            and all(isinstance(b, sp.Expr) and not b.atoms(sp.Float) for b in bounds)):
        raise TypeError(f"block {letter} must give (first, last, size) as three exact SymPy "
                        f"expressions, not {bounds!r}")
    return bounds


def written_name(head: str, rest: str = "") -> str:
    """The name a formula reads for `head` followed by `rest` ("_decay"): an alias applies to
    the whole name only (lr is eta, lr_decay stays lr_decay); a Greek letter is its name as
    the first part of a longer one (λ_wd is lambda_wd, η_min is eta_min)."""
    if not rest:
        return _canonical(head)
    return (head if head.isascii() else _canonical(head).rstrip("_")) + rest


def _canonical(word: str) -> str:
    """The canonical spelling of a written name: η is eta, β₁ is beta1, ℓ is ell."""
    if word in SPELLINGS:
        return SPELLINGS[word]
    hatted = unicodedata.normalize("NFD", word)
    if len(hatted) == 2 and hatted[1] == "\u0302" and hatted[0].isascii():
        return hatted[0] + "hat"  # x̂ (x and a combining hat) is xhat, ẑ is zhat
    plain = word.translate(_SUBSCRIPT_DIGITS) if word[0] in "β" else word
    return ALIASES.get(word, ALIASES.get(plain, plain))
