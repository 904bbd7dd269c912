"""The tensor formula language (issue 35): the scalar language of derive/graph/language.py with
vectors and matrices, read by a hand-written recursive-descent parser into a `Tensor`
(derive/graph/tensor.py) whose entries are SymPy expressions; never `eval`, `sympify` or
`parse_expr`, every limit checked while reading, every error with its column.

    formula  := sum | sum (">" | ">=" | "≥" | "<" | "<=" | "≤") sum     an indicator: 1 or 0
    sum      := product (("+" | "-" | "−") product)*
    product  := unary (("*" | "·" | "×" | "⊙" | "/" | "@") unary)*   @ binds like *, left to right
    unary    := ("-" | "−" | "+") unary | power
    power    := postfix (("^" | "**") unary)?                  right-associative
    postfix  := atom (".T" | "ᵀ" | "_{" int ("," int)* "}" | "_" digits | "[" int ("," int)* "]")*
    atom     := number | name | "pi" | call | "(" formula ")" | "|" sum "|" | "√" postfix
    call     := function "(" formula ("," formula)* ("," keyword "=" formula)* ")"
    name     := word ("_" word)* ("^{(" digits ")}")?          W1, b_out, W^{(1)}, δ, x̂

`W_{1,2}` is an entry counted from 1, as lecturers write; `W[0,1]` is the same entry counted
from 0, as torch writes (`W[-1]` from the end, as torch); fewer indices than dimensions give a
row (`W_{1}` and `W[0]` are W's first row). `A.T` and `Aᵀ` transpose a matrix (a vector is left
as it is, as torch's .T).

Names are read as the scalar language reads them (its ALIASES: η, lr and eta; ε and eps;
γ and gamma …), with the names lecturers give the layers of a network:

- `W^{(1)}` is the name `W1`: a superscript in brackets numbers a layer, and a TOML key (the
  given, the define) is written `W1`, so both spellings reach one quantity. Only the exact form
  `^{(digits)}` is a name; `W^2` and `W^(2)` stay powers, and any other `^{…}` is refused.
- `δ` is `delta`, and a letter with a hat (`x̂`, typed x then U+0302) is `xhat`, as `ŷ` is
  `yhat` (the scalar language's SPELLINGS and letters, formula_tokens.py); beyond it,
  subscript digits are digits (`W₁` is `W1`) and a numbered Greek letter is its name numbered
  (`δ₂` and `δ2` are `delta2`), as a backward pass numbers its layers.

`W^T`, a lecturer's transpose, is refused with the spelling to use (W.T or Wᵀ) unless T is a
name, when it stays a power: the language never guesses which was meant.

Limits are the scalar language's (MAX_LENGTH, MAX_DEPTH, the digits and exponents of numbers
and constants), checked after every operation rather than once on the whole: an entry's
expression grows with each softmax or layer_norm over it, so each result's entries are held to
MAX_ENTRY_NODES before the next operation reads them.

The meaning of every operation is derive/graph/tensor.py's (torch's), reached through `Ops`:
a whole-tensor mistake parses the same formula with one field replaced.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy as sp

from derive.graph import tensor
from derive.graph.formula_limits import (
    MAX_CONSTANT_DIGITS,
    FormulaError,
    FormulaNotSupported,
    _check_size,
    _digits,
    _is_zero_constant,
    evaluated,
)
from derive.graph.formula_tokens import (
    _HAT,
    _SUBSCRIPT_DIGITS,
    _Cursor,
    _is_letter,
    _name_end,
    _number,
    _number_end,
    _starts_number,
    _Token,
)
from derive.graph.language import ALIASES, FUNCTIONS, MAX_DEPTH, MAX_LENGTH, SPELLINGS
from derive.graph.tensor import Tensor
from derive.kernel import functions
from derive.kernel.constants import written


def _entries(t: Tensor) -> tuple[sp.Expr, ...]:
    return t.entries


@dataclass(frozen=True)
class Ops:
    """The operations a tensor formula is built with, one field per operation of
    derive/graph/tensor.py (and `relu`, the SymPy class applied entry by entry): a whole-tensor
    mistake is the formula parsed with one of them replaced, so it is declared once, as the
    operation the student got wrong."""

    binary: Callable = tensor.binary
    matmul: Callable = tensor.matmul
    transpose: Callable = tensor.transpose
    compare: Callable = tensor.compare
    elementwise: Callable = tensor.elementwise
    relu: Callable = functions.relu
    reduce: Callable = tensor.reduce
    softmax: Callable = tensor.softmax
    log_softmax: Callable = tensor.log_softmax
    logsumexp: Callable = tensor.logsumexp
    onehot: Callable = tensor.onehot
    outer: Callable = tensor.outer
    layer_norm: Callable = tensor.layer_norm
    cross_entropy: Callable = tensor.cross_entropy
    mse_loss: Callable = tensor.mse_loss
    grad: Callable = tensor.grad
    scalar: Callable = Tensor.scalar
    """A number or a scalar's expression as a tensor of shape ()."""
    negate: Callable = tensor.negate
    entries: Callable = _entries
    """The entries the parser's checks read (a division by a literal 0, the size of a power,
    of an entry, a keyword's number): every entry of a Tensor, one entry at free indices of a
    tensor of symbolic size (derive/graph/sized_language.py)."""
    kind: type = Tensor
    """What `names` maps to."""


OPS = Ops()
"""torch's operations."""


@dataclass(frozen=True)
class _Function:
    """A function of the tensor language: its positional arguments (their words, for the
    message that names them) and its keywords with their defaults."""

    positional: tuple[str, ...]
    keywords: tuple[tuple[str, object], ...] = ()


_ELEMENTWISE = ("exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu", "sign")
_REDUCTIONS = ("sum", "mean", "max")
_ALONG = ("softmax", "log_softmax")

SIGNATURES: dict[str, _Function] = {
    **{f: _Function(("x",)) for f in _ELEMENTWISE},
    **{f: _Function(("A",), (("dim", None), ("keepdim", False))) for f in _REDUCTIONS},
    **{f: _Function(("A",), (("dim", -1),)) for f in _ALONG},
    "logsumexp": _Function(("A",), (("dim", -1), ("keepdim", False))),
    "onehot": _Function(("y", "C")),
    "outer": _Function(("a", "b")),
    "transpose": _Function(("A",)),
    "layer_norm": _Function(("x",), (("eps", tensor.LAYER_NORM_EPS), ("weight", None),
                                     ("bias", None))),
    "cross_entropy": _Function(("Z", "y"), (("label_smoothing", sp.S.Zero),)),
    "mse_loss": _Function(("a", "b")),
    "grad": _Function(("L", "W")),
}
"""Every function of the tensor language, with what it takes (docs/formulas.md, Vectors and
matrices)."""

TENSOR_ONLY = frozenset({"softmax", "log_softmax", "logsumexp", "onehot", "outer",
                         "transpose", "layer_norm", "cross_entropy", "mse_loss"})
"""Functions the scalar language does not have: a define that calls one is a tensor formula
(`sum(` and `mean(` with no index are too: the scalar language writes sum_i(…))."""

MAX_ENTRY_NODES = 20_000
"""Most nodes in one entry's expression: a two-layer network's layer_norm(softmax(X @ W1.T +
b1) @ W2.T) over 4 × 4 matrices has 6,506; layer_norm(layer_norm(layer_norm(X))) 35,366."""

_OPERATORS = {"−": "-", "·": "*", "×": "*", "⊙": "⊙", "≥": ">=", "≤": "<=", "ᵀ": "ᵀ"}


def _tokens(text: str, *, lenient: bool = False) -> list[_Token]:
    """The tokens of a tensor formula: the scalar language's (formula_tokens.py: the same
    letters, numbers read the same way) with @ ⊙ ᵀ [ ] = > >= < <= ≥ ≤ and `.` before T. Its
    own tokenizer, so that no scalar formula's tokens or errors change ('@' stays an
    unexpected character there). `lenient` stops at the first character it cannot read
    (reads_tensor) instead of refusing it."""
    out: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        col = i + 1
        if ch in " \t":
            i += 1
            continue
        if ch.isdigit() and not ch.isascii():
            if lenient:
                break
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
        two = text[i:i + 2]
        if two in ("**", ">=", "<="):
            out.append(_Token("op", "^" if two == "**" else two, col))
            i += 2
            continue
        if ch in "+-−*·×⊙/^()|,_{}√∈@ᵀ[]=><.≥≤":
            out.append(_Token("op", _OPERATORS.get(ch, ch), col))
            i += 1
            continue
        if lenient:
            break
        if ch == "!":
            raise FormulaNotSupported(f"factorials (column {col}) are not supported")
        name = unicodedata.name(ch, "")
        shown = ch if ch.isprintable() and not ch.isspace() else f"U+{ord(ch):04X}"
        raise FormulaError(f"unexpected character {shown!r}" + (f" ({name.lower()})"
                                                                  if name else ""), col)
    out.append(_Token("end", "", n + 1))
    return out


def _canonical(word: str) -> str:
    """The canonical spelling of one written word: x̂ is xhat, δ is delta, η is eta, W₁ is W1,
    a Greek letter numbered is its name numbered (δ2 is delta2, β₁ is beta1); a word with a hat
    anywhere but on its first letter is returned as written, and refused."""
    written = word
    word = word.translate(_SUBSCRIPT_DIGITS)
    decomposed = unicodedata.normalize("NFD", word)
    if _HAT in decomposed:
        if not (decomposed[1:2] == _HAT and decomposed[0].isascii()
                and (decomposed[2:].isdigit() or not decomposed[2:])):
            return written
        word = decomposed[0] + "hat" + decomposed[2:]
    if word in SPELLINGS or word in ALIASES:
        return SPELLINGS.get(word) or ALIASES[word]
    head = word.rstrip("0123456789")
    if head and head != word and not head.isascii():
        return _canonical(head).rstrip("_") + word[len(head):]
    return word


def _joined(head: str, rest: str) -> str:
    """The name `head` followed by parts `rest` ("_out") reads, as the scalar language's
    written_name: an alias applies to a whole name, a Greek head is spelled by its name."""
    if not rest:
        return _canonical(head)
    return (head if head.isascii() else _canonical(head).rstrip("_")) + rest


def _shape(t: Tensor) -> str:
    return tensor.shown(t.shape)


class _Parser(_Cursor):
    max_depth = MAX_DEPTH

    def __init__(self, text: str, names: Mapping[str, Tensor], ops: Ops):
        self.toks = _tokens(text)
        self.pos = 0
        self.depth = 0
        self.names = names
        self.ops = ops
        self.sizes: dict[sp.Basic, int] = {}

    # --------------------------------------------------------------------------- helpers
    def _peek(self, k: int = 1) -> _Token:
        return self.toks[min(self.pos + k, len(self.toks) - 1)]

    def _expect(self, text: str, what: str) -> _Token:
        if not self._is(text):
            got = repr(self.tok.text) if self.tok.kind != "end" else "the end"
            raise FormulaError(f"expected {what}, not {got}", self.tok.column)
        return self._take()

    # ------------------------------------------------------------------------- grammar
    def formula_all(self) -> Tensor:
        if self.tok.kind == "end":
            raise FormulaError("expected a formula", self.tok.column)
        t = self.formula()
        if self.tok.kind != "end":
            raise FormulaError(f"unexpected {self.tok.text!r}"
                               + (": a comparison is not compared again; write (a < b) * "
                                  "(b < c)" if self.tok.text in "<=>=" else ""),
                               self.tok.column)
        return t

    def formula(self) -> Tensor:
        self._enter()
        left = self.sum()
        if self.tok.kind == "op" and self.tok.text in (">", ">=", "<", "<="):
            op = self._take()
            right = self.sum()
            left = self._checked(self.ops.compare(op.text, left, right, column=op.column),
                                 op.column)
        self._leave()
        return left

    def sum(self) -> Tensor:
        self._enter()
        total = self.product()
        while self._is("+") or self._is("-"):
            op = self._take()
            total = self._binary(op.text, total, self.product(), op.column)
        self._leave()
        return total

    def product(self) -> Tensor:
        self._enter()
        out = self.unary()
        while self.tok.kind == "op" and self.tok.text in ("*", "⊙", "/", "@"):
            op = self._take()
            at = self.tok.column
            right = self.unary()
            if op.text == "@":
                out = self._checked(self.ops.matmul(out, right, column=op.column), op.column)
                continue
            if op.text == "/" and any(_is_zero_constant(e)
                                      for e in set(self.ops.entries(right))):
                raise FormulaError("division by zero", at)
            out = self._binary("*" if op.text == "⊙" else op.text, out, right, op.column)
        self._leave()
        return out

    def unary(self) -> Tensor:
        if self._is("-") or self._is("+"):
            sign = self._take().text
            self._enter()
            inner = self.unary()
            self._leave()
            return inner if sign == "+" else self.ops.negate(inner)
        return self.power()

    def power(self) -> Tensor:
        base = self.postfix()
        if self._is("^"):
            op = self._take()
            if self._is("{"):
                raise FormulaError("a superscript in braces names a layer, as in W^{(1)}; a "
                                   "power is written without braces: x^2", self.tok.column)
            if (self.tok.kind == "name" and self.tok.text in ("T", "top")
                    and self.tok.text not in self.names):  # W^T as a lecturer writes Wᵀ
                raise FormulaError(f"a transpose is written W.T or Wᵀ ({self.tok.text} is "
                                   "not a name here)", self.tok.column)
            self._enter()
            exp = self.unary()
            self._leave()
            for e in set(self.ops.entries(exp)):
                constants = {b for b in self.ops.entries(base) if not b.free_symbols}
                for b in constants or {sp.Symbol("x")}:
                    _check_size(b, e, self.tok.column)
            return self._binary("^", base, exp, op.column)
        return base

    def _binary(self, op: str, a: Tensor, b: Tensor, column: int) -> Tensor:
        return self._checked(self.ops.binary(op, a, b, column=column), column)

    def _checked(self, t: Tensor, column: int) -> Tensor:
        """A result whose entries are defined, of at most MAX_ENTRY_NODES nodes each, and
        whose constants are within MAX_CONSTANT_DIGITS: checked after every operation, as the
        scalar language checks each operation's size, so nothing grows past them unseen."""
        largest = max((self._nodes(e) for e in self.ops.entries(t)), default=0)
        if largest > MAX_ENTRY_NODES:
            raise FormulaNotSupported(f"an entry of {largest:,} nodes (before column {column}) "
                                      f"is beyond {MAX_ENTRY_NODES:,}: not supported; write "
                                      "the steps as quantities of their own")
        for e in self.ops.entries(t):
            if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                raise FormulaError("the formula is undefined (a division by zero, or log 0)",
                                   column)
            if not e.free_symbols and _digits(e) > MAX_CONSTANT_DIGITS:
                raise FormulaNotSupported(f"a constant of more than {MAX_CONSTANT_DIGITS:,} "
                                          f"digits (before column {column}) is not supported")
        return t

    def _nodes(self, e: sp.Expr) -> int:
        """The nodes of e written out as a tree, counted once per distinct subexpression
        (SymPy shares them): softmax(softmax(…)) is refused before anything walks its tree."""
        known = self.sizes.get(e)
        if known is None:
            known = self.sizes[e] = 1 + sum(self._nodes(a) for a in e.args)
        return known

    def postfix(self) -> Tensor:
        start = self.tok
        t = self.atom()
        while True:
            if self._is("ᵀ"):
                op = self._take()
                t = self.ops.transpose(t, column=op.column)
            elif self._is("."):
                op = self._take()
                if not (self.tok.kind == "name" and self.tok.text == "T"):
                    raise FormulaError("expected T after '.': A.T transposes A", self.tok.column)
                self._take()
                t = self.ops.transpose(t, column=op.column)
            elif self._is("["):
                if start.text == "1" and self.pos == self.toks.index(start) + 1:
                    raise FormulaError(_IVERSON, self.tok.column)  # 1[z > 0]
                t = self.entry(t, start, zero_based=True)
            elif self._is("_"):
                t = self.entry(t, start, zero_based=False)
            else:
                return t

    def entry(self, t: Tensor, start: _Token, *, zero_based: bool) -> Tensor:
        """An entry (or a row) of t: `W_{1,2}` counted from 1, `W[0,1]` from 0."""
        open_ = self._take()
        close = "]" if zero_based else "}"
        if not zero_based:
            if self.tok.kind == "number" and self.tok.text.isdigit():
                indices = [(int(self._take().text), self.tok.column)]
                return self._select(t, indices, start, open_, zero_based)
            if self.tok.kind == "name":
                raise FormulaNotSupported(
                    f"an index letter (column {self.tok.column}) is not supported in a tensor "
                    f"formula: write an entry's numbers, as in W_{{1,2}}, or the whole tensor")
            self._expect("{", "an entry's numbers after '_', as in W_{1,2}")
        indices = []
        while True:
            at = self.tok.column
            negative = zero_based and self._is("-")
            if negative:
                self._take()
            if not (self.tok.kind == "number" and self.tok.text.isdigit()):
                if self.tok.kind == "name" and not zero_based:
                    raise FormulaNotSupported(
                        f"an index letter (column {self.tok.column}) is not supported in a "
                        "tensor formula: write an entry's numbers, as in W_{1,2}")
                example = "W[0,1]" if zero_based else "W_{1,2}"
                raise FormulaError(f"expected a whole number as an index, as in {example}",
                                   self.tok.column)
            k = int(self._take().text)
            indices.append((-k if negative else k, at))
            if self._is(","):
                self._take()
                continue
            self._expect(close, f"'{close}' after the indices")
            return self._select(t, indices, start, open_, zero_based)

    def _select(self, t: Tensor, indices: list[tuple[int, int]], start: _Token,
                open_: _Token, zero_based: bool) -> Tensor:
        what = start.text if start.kind == "name" else "the tensor"
        if len(indices) > t.ndim:
            has = "a scalar: it has no entries" if t.ndim == 0 else \
                f"of shape {_shape(t)}: {t.ndim} {'index' if t.ndim == 1 else 'indices'}"
            count = "1 index" if len(indices) == 1 else f"{len(indices)} indices"
            raise FormulaError(f"{count} on {what}, which is {has}",
                               open_.column)
        flat = []
        for (k, at), size in zip(indices, t.shape):
            i = k if zero_based else k - 1
            if zero_based and k < 0:
                i = size + k
            if not 0 <= i < size:
                shown = f"0…{size - 1} (or -{size}…-1)" if zero_based else f"1…{size}"
                raise FormulaError(f"index {k} is outside {what}'s shape {_shape(t)}: this "
                                   f"index runs {shown}", at)
            flat.append(i)
        rest = t.shape[len(flat):]
        step = 1
        for n in rest:
            step *= n
        offset = 0
        for i, n in zip(flat, t.shape):
            offset = offset * n + i
        offset *= step
        return Tensor(tuple(rest), tuple(t.entries[offset:offset + step]))

    def atom(self) -> Tensor:
        t = self.tok
        if t.kind == "number":
            self._take()
            return self.ops.scalar(_number(t))
        if t.kind == "name":
            return self.name_or_call()
        if self._is("("):
            self._take()
            e = self.formula()
            self._expect(")", "')'")
            return e
        if self._is("|"):
            self._take()
            e = self.sum()
            self._expect("|", "a closing '|'")
            return self._checked(self.ops.elementwise("abs", e, column=t.column), t.column)
        if self._is("√"):
            self._take()
            self._enter()
            e = self.postfix()
            self._leave()
            return self._checked(self.ops.elementwise("sqrt", e, column=t.column), t.column)
        if t.kind == "end":
            raise FormulaError("expected an operand, not the end", t.column)
        if self._is("["):  # [z > 0], Iverson's bracket
            raise FormulaError(_IVERSON, t.column)
        raise FormulaError(f"expected an operand, not {t.text!r}", t.column)

    # --------------------------------------------------------------------------- names
    def _word(self) -> tuple[_Token, str]:
        """A written name and its canonical name: parts joined by '_' (W_out), a layer's
        superscript (W^{(1)} is W1), an alias (η is eta, δ is delta, x̂ is xhat)."""
        t = self._take()
        if _HAT in unicodedata.normalize("NFD", t.text) and _canonical(t.text) == t.text:
            raise FormulaError(f"{t.text!r} is not a name: a hat goes on one letter, as in x̂",
                               t.column)
        rest = ""
        while (self._is("_") and self._peek().kind == "name" and len(self._peek().text) > 1):
            self._take()
            rest += "_" + self._take().text
        word = _joined(t.text, rest)
        if (self._is("^") and self._peek().text == "{" and self._peek(2).text == "("):
            layer = self._peek(3)
            if not (layer.kind == "number" and layer.text.isdigit()
                    and self._peek(4).text == ")" and self._peek(5).text == "}"):
                raise FormulaError("a layer's superscript is a number in brackets, as in "
                                   "W^{(1)}", self._peek(3).column)
            if word[-1].isdigit():
                raise FormulaError(f"{t.text!r} already ends in a number: write W^{{(1)}} or "
                                   "W1, not both", self.tok.column)
            word += str(int(layer.text))
            self.pos += 6
        return t, word

    def name_or_call(self) -> Tensor:
        if self._peek().text == "(" and self.tok.text in _CALLED:
            t = self._take()
            return self.call(t, t.text)
        t, word = self._word()
        if self._is("(") and word in SIGNATURES:  # log_softmax, cross_entropy, mse_loss
            return self.call(t, word)
        if word in self.names:
            return self.names[word]
        if word == "pi":
            return self.ops.scalar(sp.pi)
        if word in SIGNATURES or word in FUNCTIONS:
            raise FormulaError(f"{word} needs its arguments in brackets, as in {word}(…)",
                               self.tok.column)
        if self._is("("):
            raise FormulaNotSupported(f"the function {word!r} (column {t.column}) is not "
                                      "supported (docs/formulas.md#vectors-and-matrices "
                                      "lists the functions of a tensor formula)")
        nxt = self._peek()
        if self._is("_") and nxt.kind == "number" and f"{word}{nxt.text}" in self.names:
            raise FormulaError(f"unknown name {t.text!r}: {word}_{nxt.text} is an entry of "
                               f"{word}; the name {word}{nxt.text} is written {word}{nxt.text} "
                               f"or {word}^{{({nxt.text})}}", t.column)
        known = sorted(self.names)
        shown = ", ".join(known[:12]) + (", …" if len(known) > 12 else "")
        raise FormulaError(f"unknown name {t.text!r} (names here: {shown or 'none'})",
                           t.column)

    # --------------------------------------------------------------------------- calls
    def _arguments(self, t: _Token, word: str) -> tuple[list[tuple[Tensor, _Token]],
                                                        dict[str, tuple[object, _Token]]]:
        """The positional arguments (each with its first token) and the keywords."""
        self._expect("(", "'('")
        positional: list[tuple[Tensor, _Token]] = []
        keywords: dict[str, tuple[object, _Token]] = {}
        sig = SIGNATURES.get(word)
        while True:
            first = self.tok
            kw = self._keyword_ahead()
            if kw is not None:
                allowed = [k for k, _ in sig.keywords] if sig else []
                if kw not in allowed:
                    has = (f"its keywords: {', '.join(allowed)}" if allowed
                           else "it takes no keywords")
                    raise FormulaError(f"{word} has no keyword {kw!r}; {has}", first.column)
                if kw in keywords:
                    raise FormulaError(f"the keyword {kw} is given twice", first.column)
                while not self._is("="):
                    self._take()
                self._take()
                keywords[kw] = (self.keyword(word, kw), first)
            else:
                if keywords:
                    raise FormulaError("a positional argument after a keyword: write the "
                                       "keywords last", first.column)
                if word == "grad" and len(positional) == 1:
                    positional.append((self.bare_name(t), first))
                else:
                    positional.append((self.formula(), first))
            if self._is(","):
                self._take()
                continue
            self._expect(")", "',' or ')'")
            return positional, keywords

    def _keyword_ahead(self) -> str | None:
        """The keyword at the reading position (`dim=`, `label_smoothing=`), or None."""
        if self.tok.kind != "name":
            return None
        k, kw = self.pos + 1, self.tok.text
        while self.toks[k].text == "_" and self.toks[k + 1].kind == "name":
            kw += "_" + self.toks[k + 1].text
            k += 2
        return kw if self.toks[k].kind == "op" and self.toks[k].text == "=" else None

    def keyword(self, word: str, kw: str) -> object:
        """A keyword's value: dim an integer, keepdim 0, 1, True or False, eps and
        label_smoothing a number or a scalar name, weight and bias tensors."""
        at = self.tok
        if kw == "keepdim" and at.kind == "name" and at.text in ("True", "False"):
            self._take()
            return at.text == "True"
        value = self.formula()
        if kw in ("weight", "bias"):
            return value
        if value.shape != ():
            raise FormulaError(f"{kw} is a number or a scalar name, not a tensor of shape "
                               f"{_shape(value)}", at.column)
        e = self.ops.entries(value)[0]
        if kw == "dim":
            if not e.is_Integer:
                raise FormulaError("dim is a whole number, as in dim=0 or dim=-1", at.column)
            return int(e)
        if kw == "keepdim":
            if e not in (0, 1):
                raise FormulaError("keepdim is 0, 1, True or False", at.column)
            return bool(e)
        return e

    def bare_name(self, t: _Token) -> Tensor:
        """grad's second argument: the name of a given or an earlier quantity."""
        if self.tok.kind != "name":
            raise FormulaError("grad takes a formula and a name: grad(L, W1)", self.tok.column)
        at, word = self._word()
        if not (self._is(")") or self._is(",")):
            raise FormulaError("grad takes a formula and a name: grad(L, W1)", at.column)
        if word not in self.names:
            self.pos -= 1  # report the unknown name at its column
            raise FormulaError(f"unknown name {at.text!r} in grad(…, {at.text})", at.column)
        return self.names[word]

    def call(self, t: _Token, word: str) -> Tensor:
        return self._checked(self._call(t, word), t.column)

    def _call(self, t: _Token, word: str) -> Tensor:
        col = t.column
        if word not in SIGNATURES:
            return self.scalar_call(t, word)
        sig = SIGNATURES[word]
        positional, keywords = self._arguments(t, word)
        if word == "max" and len(positional) > 1:
            return self.scalar_max(t, word, positional)
        if len(positional) != len(sig.positional):
            raise FormulaError(f"{word} takes {_count(sig.positional)}: "
                               f"{word}({', '.join(sig.positional)}"
                               + "".join(f", {k}=…" for k, _ in sig.keywords) + ")", col)
        args = [a for a, _ in positional]
        kw = {k: keywords[k][0] if k in keywords else default for k, default in sig.keywords}
        ops = self.ops
        if word == "relu":
            return args[0].map(ops.relu)
        if word in _ELEMENTWISE:
            return ops.elementwise(word, args[0], column=col)
        if word in _REDUCTIONS:
            return ops.reduce(word, args[0], dim=kw["dim"], keepdim=kw["keepdim"], column=col)
        if word == "logsumexp":
            return ops.logsumexp(args[0], kw["dim"], keepdim=kw["keepdim"], column=col)
        if word in _ALONG:
            return getattr(ops, word)(args[0], kw["dim"], column=col)
        if word == "onehot":
            c = args[1]
            n = self.ops.entries(c)[0] if c.shape == () else None
            if not (n is not None and n.is_Integer and n > 0):
                raise FormulaError("onehot's number of classes is a whole number, as in "
                                   "onehot(y, 3)", positional[1][1].column)
            if n > tensor.MAX_ENTRIES:
                raise FormulaNotSupported(f"onehot of {n} classes (column "
                                          f"{positional[1][1].column}) is beyond "
                                          f"{tensor.MAX_ENTRIES:,}: not supported")
            return ops.onehot(args[0], int(n), column=col)
        if word == "transpose":
            return ops.transpose(args[0], column=col)
        if word == "layer_norm":
            return ops.layer_norm(args[0], kw["eps"], weight=kw["weight"], bias=kw["bias"],
                                  column=col)
        if word == "cross_entropy":
            return ops.cross_entropy(args[0], args[1], label_smoothing=kw["label_smoothing"],
                                     column=col)
        return getattr(ops, word)(*args, column=col)  # outer, mse_loss, grad

    def scalar_call(self, t: _Token, word: str) -> Tensor:
        """A function of the scalar language only (cos, sin, softplus, clamp, min): of scalars
        it is the scalar language's; of a tensor it is not supported."""
        if word == "d":
            raise FormulaNotSupported(f"d(…)/d(…) (column {t.column}) is not supported in a "
                                      "tensor formula: write grad(L, W)")
        positional, _ = self._arguments(t, word)
        if word == "min":
            return self.scalar_max(t, word, positional)
        args = self._scalars(t, word, positional)
        arity = 3 if word == "clamp" else 1
        if len(args) != arity:
            takes = "three arguments: clamp(x, lo, hi)" if arity == 3 else "one argument"
            raise FormulaError(f"{word} takes {takes}", t.column)
        return self.ops.scalar(evaluated(FUNCTIONS[word](*args, evaluate=False)))

    def scalar_max(self, t: _Token, word: str, positional) -> Tensor:
        if len(positional) < 2:
            raise FormulaError(f"{word} of scalars takes two or more arguments", t.column)
        return self.ops.scalar(evaluated(written(word, self._scalars(t, word, positional))))

    def _scalars(self, t: _Token, word: str, positional) -> list[sp.Expr]:
        for a, first in positional:
            if a.shape != ():
                hint = ("; relu(z) is max(z, 0) entry by entry, and max(A, dim=…) the largest "
                        "entries" if word in ("max", "min") else "")
                raise FormulaNotSupported(
                    f"{word} of a tensor (shape {_shape(a)}, column {first.column}) is not "
                    f"supported: entry by entry the language has {', '.join(_ELEMENTWISE)}"
                    + hint)
        return [self.ops.entries(a)[0] for a, _ in positional]


_CALLED = frozenset({*FUNCTIONS, *SIGNATURES, "min", "d"})
"""Words that are a function when '(' follows them."""


_IVERSON = ("an indicator is written in round brackets, as in (z > 0): 1 where it holds, "
            "else 0")
"""The message for 1[z > 0] and [z > 0], as the lesson's words print the ReLU mask."""


def _count(words: tuple[str, ...]) -> str:
    return {1: "one argument", 2: "two arguments"}.get(len(words), f"{len(words)} arguments")


def parse_tensor(text: str, names: Mapping[str, Tensor], *, ops: Ops = OPS,
                 parser: type | None = None) -> Tensor:
    """The Tensor a formula writes, its entries SymPy expressions over the entries of `names`
    (canonical name → Tensor; a scalar is a Tensor of shape ()). Raises FormulaError (invalid,
    with the column; TensorShapeError for shapes that do not fit) or FormulaNotSupported
    (valid, beyond the language or its limits). `ops` and `parser` read it over other
    tensors: derive/graph/sized_language.py's, of symbolic size."""
    if not isinstance(text, str):
        raise FormulaError("a formula is a string", 1)
    if len(text) > MAX_LENGTH:
        raise FormulaNotSupported(f"a formula of {len(text):,} characters is beyond "
                                  f"{MAX_LENGTH:,}: not supported")
    for name, value in names.items():
        if not (isinstance(name, str) and isinstance(value, ops.kind)):
            raise TypeError(f"names maps a canonical name to a {ops.kind.__name__}, not "
                            f"{name!r}: {value!r}")
    text = unicodedata.normalize("NFC", text)  # ŷ typed as y and a combining hat is ŷ
    return (parser or _Parser)(text, names, ops).formula_all()


def reads_tensor(text: str, tensor_names) -> bool:
    """Whether a define is a tensor formula: it reads a name in `tensor_names` (canonical
    names), or uses what only the tensor language has: @, ⊙, .T, ᵀ, [ ], a comparison, a
    keyword, `sum(` or `mean(` without an index, or a function of TENSOR_ONLY. False for every
    formula the scalar language reads that names no tensor, so no scalar define changes."""
    if not isinstance(text, str) or len(text) > MAX_LENGTH:
        return False
    toks = _tokens(unicodedata.normalize("NFC", text), lenient=True)
    tensor_names = set(tensor_names)
    i = 0
    while i < len(toks):
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else t
        if t.kind == "op" and t.text in ("@", "ᵀ", "[", "]", ">", ">=", "<", "<=", "=", "⊙"):
            return True
        if t.kind == "op" and t.text == "." and nxt.kind == "name" and nxt.text == "T":
            return True
        if t.kind == "name":
            j, rest = i + 1, ""
            while (j + 1 < len(toks) and toks[j].text == "_" and toks[j + 1].kind == "name"
                   and len(toks[j + 1].text) > 1):
                rest += "_" + toks[j + 1].text
                j += 2
            word = _joined(t.text, rest)
            if ([x.text for x in toks[j:j + 3]] == ["^", "{", "("] and j + 3 < len(toks)
                    and toks[j + 3].kind == "number"):
                word += str(int(toks[j + 3].text))
            after = toks[j] if j < len(toks) else toks[-1]
            if word in tensor_names:
                return True
            if after.text == "(" and (word in TENSOR_ONLY or word in ("sum", "mean")):
                return True
            if after.text == "=":
                return True
            i = j
            continue
        i += 1
    return False
