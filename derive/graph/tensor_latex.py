"""A tensor formula in LaTeX, read with the tensor language's own grammar and tokens
(derive/graph/tensor_language.py), so that what is printed is what was parsed: `X @ W1.T + b1`
is X W_{1}^{\\top} + b_{1}, `(Z1 > 0)` is \\mathbf{1}[Z_{1} > 0] (bold: pdfLaTeX's AMS
blackboard font has no digits), `A * B` of two tensors is A \\odot B, `grad(loss, W1)` is
\\frac{\\partial \\mathrm{loss}}{\\partial W_{1}}.

It computes nothing: names are drawn by the caller (`name`, a canonical name to LaTeX: the
exercise's notation, or a given's matrix of numbers for the substituted line), so the printer
never writes an author's word itself. Which `*` is a product of numbers (\\cdot) and which is
element-wise (\\odot) is read from which names are scalars (`scalars`): a tensor times a
tensor is \\odot, anything with a scalar side \\cdot.

Every function is written as the lecture writes it: softmax(Z, dim=-1) is
\\operatorname{softmax}(Z) (a dim other than the default is a subscript, dim = 0), sigmoid is
\\sigma, layer_norm is LayerNorm, cross_entropy CE, mse_loss MSE, log_softmax
\\log\\operatorname{softmax}; `/` is a fraction, `.T` and `ᵀ` a superscript \\top, an entry
`W_{1,2}` (or `W[0,1]`, counted from 0 as torch does) the subscript 1,2 counted from 1.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass

from derive.graph.formula_limits import FormulaError
from derive.graph.language import FUNCTIONS
from derive.graph.tensor_language import _CALLED, _IVERSON, SIGNATURES, _Parser

# binding, weakest first: a comparison, a sum, a product, a sign, a power, an atom
_COMPARE, _SUM, _PRODUCT, _UNARY, _POWER, _ATOM = range(6)

_RELATIONS = {">": ">", ">=": r"\geq", "<": "<", "<=": r"\leq"}

_NAMED = {
    "exp": r"\exp", "log": r"\log", "tanh": r"\tanh", "sigmoid": r"\sigma",
    "relu": r"\operatorname{relu}", "sign": r"\operatorname{sign}",
    "sum": r"\operatorname{sum}", "mean": r"\operatorname{mean}", "max": r"\max",
    "min": r"\min", "softmax": r"\operatorname{softmax}",
    "log_softmax": r"\log\operatorname{softmax}", "logsumexp": r"\operatorname{logsumexp}",
    "onehot": r"\operatorname{onehot}", "layer_norm": r"\operatorname{LayerNorm}",
    "cross_entropy": r"\operatorname{CE}", "mse_loss": r"\operatorname{MSE}",
    "cos": r"\cos", "sin": r"\sin", "softplus": r"\operatorname{softplus}",
    "clamp": r"\operatorname{clamp}",
}
"""How the lecture writes each function of the tensor language (and of the scalar one)."""

_KEYWORDS = {"eps": r"\epsilon", "weight": r"\gamma", "bias": r"\beta",
             "label_smoothing": r"\mathrm{label\ smoothing}", "dim": r"\mathrm{dim}",
             "keepdim": r"\mathrm{keepdim}"}


@dataclass(frozen=True)
class _Tex:
    text: str
    binding: int
    scalar: bool


class _Printer(_Parser):
    """The tensor language's parser (its tokens, names and keywords) drawing LaTeX instead of
    computing: each rule returns a `_Tex`."""

    def __init__(self, text: str, name: Callable[[str], str], scalars: Collection[str],
                 symbol: Callable[[str], str]):
        super().__init__(text, {}, None)
        self.name = name
        self.symbol = symbol
        self.scalars = frozenset(scalars)

    def formula_all(self) -> _Tex:
        t = self.formula()
        if self.tok.kind != "end":
            raise FormulaError(f"unexpected {self.tok.text!r}", self.tok.column)
        if t.binding == _COMPARE:
            return _Tex(rf"\mathbf{{1}}\left[{t.text}\right]", _ATOM, t.scalar)
        return t

    def formula(self) -> _Tex:
        self._enter()
        left = self.sum()
        if self.tok.kind == "op" and self.tok.text in _RELATIONS:
            op = self._take().text
            right = self.sum()
            left = _Tex(f"{left.text} {_RELATIONS[op]} {right.text}", _COMPARE,
                        left.scalar and right.scalar)
        self._leave()
        return left

    def sum(self) -> _Tex:
        self._enter()
        total = self.product()
        while self._is("+") or self._is("-"):
            op = self._take().text
            right = self.product()
            total = _Tex(f"{total.text} {op} {_wrap(right, _SUM + 1)}", _SUM,
                         total.scalar and right.scalar)
        self._leave()
        return total

    def product(self) -> _Tex:
        self._enter()
        out = self.unary()
        while self.tok.kind == "op" and self.tok.text in ("*", "⊙", "/", "@"):
            op = self._take().text
            right = self.unary()
            scalar = out.scalar and right.scalar
            if op == "/":
                out = _Tex(rf"\frac{{{_bare(out)}}}{{{_bare(right)}}}", _ATOM, scalar)
            elif op == "@":
                out = _Tex(f"{_wrap(out, _PRODUCT)} {_wrap(right, _PRODUCT + 1)}", _PRODUCT,
                           False)
            else:
                sign = r"\odot" if op == "⊙" or not (out.scalar or right.scalar) else r"\cdot"
                out = _Tex(f"{_wrap(out, _PRODUCT)} {sign} {_wrap(right, _PRODUCT + 1)}",
                           _PRODUCT, scalar)
        self._leave()
        return out

    def unary(self) -> _Tex:
        if self._is("-") or self._is("+"):
            sign = self._take().text
            self._enter()
            inner = self.unary()
            self._leave()
            if sign == "+":
                return inner
            return _Tex(f"-{_wrap(inner, _UNARY)}", _UNARY, inner.scalar)
        return self.power()

    def power(self) -> _Tex:
        base = self.postfix()
        if self._is("^"):
            self._take()
            self._enter()
            exp = self.unary()
            self._leave()
            return _Tex(f"{_wrap(base, _ATOM)}^{{{_bare(exp)}}}", _POWER,
                        base.scalar and exp.scalar)
        return base

    def postfix(self) -> _Tex:
        t = self.atom()
        while True:
            if self._is("ᵀ") or self._is("."):
                if self._take().text == ".":
                    self._take()  # the T of .T
                t = _transposed(t)
            elif self._is("[") or self._is("_"):
                t = self._entry(t)
            else:
                return t

    def _entry(self, t: _Tex) -> _Tex:
        """`W_{1,2}`, `W_1` and `W[0,1]` as the subscript 1,2 counted from 1 (an index from
        the end, W[-1], stays as torch writes it)."""
        zero_based = self._take().text == "["
        if not zero_based and self.tok.kind == "number":
            indices = [self._take().text]
        else:
            if not zero_based:
                self._expect("{", "an entry's numbers after '_', as in W_{1,2}")
            indices = []
            while True:
                negative = self._is("-")
                if negative:
                    self._take()
                k = int(self._expect_number())
                indices.append(f"[-{k}]" if negative else str(k + 1 if zero_based else k))
                if self._is(","):
                    self._take()
                    continue
                self._expect("]" if zero_based else "}", "the closing bracket")
                break
        return _Tex(f"{{{_wrap(t, _ATOM)}}}_{{{','.join(indices)}}}", _ATOM, True)

    def _expect_number(self) -> str:
        if self.tok.kind != "number" or not self.tok.text.isdigit():
            raise FormulaError("expected a whole number as an index", self.tok.column)
        return self._take().text

    def atom(self) -> _Tex:
        t = self.tok
        if t.kind == "number":
            self._take()
            text = _number_tex(t.text)  # 10^{-5} is a power, 2.5 \times 10^{-3} a product
            binding = _ATOM if "^" not in text else _POWER if "times" not in text else _PRODUCT
            return _Tex(text, binding, True)
        if t.kind == "name":
            return self.name_or_call()
        if self._is("("):
            self._take()
            e = self.formula()
            self._expect(")", "')'")
            if e.binding == _COMPARE:  # (z > 0): an indicator, 1 where it holds
                return _Tex(rf"\mathbf{{1}}\left[{e.text}\right]", _ATOM, e.scalar)
            return _Tex(rf"\left({e.text}\right)", _ATOM, e.scalar)
        if self._is("|"):
            self._take()
            e = self.sum()
            self._expect("|", "a closing '|'")
            return _Tex(rf"\left|{e.text}\right|", _ATOM, e.scalar)
        if self._is("√"):
            self._take()
            self._enter()
            e = self.postfix()
            self._leave()
            return _Tex(rf"\sqrt{{{_bare(e)}}}", _ATOM, e.scalar)
        if self._is("["):
            raise FormulaError(_IVERSON, t.column)
        raise FormulaError(f"expected an operand, not {t.text!r}", t.column)

    def name_or_call(self) -> _Tex:
        if self._peek().text == "(" and self.tok.text in _CALLED:
            t = self._take()
            return self.printed_call(t.text)
        _, word = self._word()
        if self._is("(") and word in SIGNATURES:
            return self.printed_call(word)
        if word == "pi":
            return _Tex(r"\pi", _ATOM, True)
        return _Tex(self.name(word), _ATOM, word in self.scalars)

    def printed_call(self, word: str) -> _Tex:
        if word not in SIGNATURES and word not in FUNCTIONS and word != "min":
            raise FormulaError(f"{word}(…) is not a function of a tensor formula", 1)
        if word == "grad":
            return self._grad()
        positional, keywords = self._printed_arguments(word)
        scalar = all(a.scalar for a in positional)
        first = positional[0] if positional else _Tex("", _ATOM, True)
        if word == "sqrt":
            return _Tex(rf"\sqrt{{{_bare(first)}}}", _ATOM, scalar)
        if word == "abs":
            return _Tex(rf"\left|{_bare(first)}\right|", _ATOM, scalar)
        if word == "transpose":
            return _transposed(first)
        if word == "outer":
            return _Tex(rf"{_wrap(first, _PRODUCT)} \otimes {_wrap(positional[1], _PRODUCT + 1)}",
                        _PRODUCT, False)
        head = _NAMED.get(word, rf"\operatorname{{{word}}}")
        dim = keywords.pop("dim", None)
        if dim is not None and not (word in ("softmax", "log_softmax", "logsumexp")
                                    and dim.text == "-1"):
            head += rf"_{{\mathrm{{dim}} = {dim.text}}}"
        reduces = word in ("sum", "mean", "max") and dim is None and len(positional) == 1
        args = ", ".join(_bare(a) for a in positional)
        if keywords:
            args += r";\ " + r",\ ".join(f"{_KEYWORDS[k]} = {v.text}"
                                          for k, v in keywords.items())
        return _Tex(rf"{head}\left({args}\right)", _ATOM,
                    reduces or word in ("cross_entropy", "mse_loss") or scalar)

    def _printed_arguments(self, word: str) -> tuple[list[_Tex], dict[str, _Tex]]:
        self._expect("(", "'('")
        positional: list[_Tex] = []
        keywords: dict[str, _Tex] = {}
        while True:
            kw = self._keyword_ahead()
            if kw is not None:
                while not self._is("="):
                    self._take()
                self._take()
                if kw == "keepdim" and self.tok.kind == "name" and self.tok.text in ("True",
                                                                                    "False"):
                    keywords[kw] = _Tex(r"\mathrm{" + self._take().text + "}", _ATOM, True)
                else:
                    keywords[kw] = self.formula()
            else:
                positional.append(self.formula())
            if self._is(","):
                self._take()
                continue
            self._expect(")", "',' or ')'")
            return positional, keywords

    def _grad(self) -> _Tex:
        """grad(L, W) as ∂L/∂W: both drawn as symbols (never as their numbers)."""
        self._expect("(", "'('")
        name, self.name = self.name, self.symbol
        try:
            of = self.formula()
            self._expect(",", "','")
            _, word = self._word()
            by = self.name(word)
        finally:
            self.name = name
        self._expect(")", "')'")
        if of.binding == _ATOM and not of.text.startswith(r"\left("):
            return _Tex(rf"\frac{{\partial {of.text}}}{{\partial {by}}}", _ATOM, False)
        return _Tex(rf"\frac{{\partial}}{{\partial {by}}} {_wrap(of, _ATOM)}", _PRODUCT, False)


def _transposed(t: _Tex) -> _Tex:
    """t^⊤: W_{1}^{\\top} on a name, in braces on what has a superscript already or is a
    matrix of numbers ({\\begin{bmatrix}…\\end{bmatrix}}^{\\top})."""
    text = _wrap(t, _ATOM)
    if "^" in text or text.startswith(r"\begin"):
        text = f"{{{text}}}"
    return _Tex(rf"{text}^{{\top}}", _POWER, t.scalar)


def _wrap(t: _Tex, binding: int) -> str:
    """t's LaTeX, in brackets where it binds less tightly than its place needs."""
    return t.text if t.binding >= binding else rf"\left({t.text}\right)"


def _bare(t: _Tex) -> str:
    """t's LaTeX where its place delimits it already (a fraction's parts, a root): an author's
    outer brackets left out."""
    text = t.text
    if text.startswith(r"\left(") and text.endswith(r"\right)") and _closes_last(text):
        return text[len(r"\left("):-len(r"\right)")]
    return text


def _closes_last(text: str) -> bool:
    """Whether the \\left( that opens `text` is closed by its last \\right)."""
    depth = 0
    i = 0
    while i < len(text):
        if text.startswith(r"\left", i):
            depth += 1
            i += 5
        elif text.startswith(r"\right", i):
            depth -= 1
            i += 6
            if depth == 0:
                return i + 1 == len(text)
        else:
            i += 1
    return False


def _number_tex(text: str) -> str:
    """A number as written: 0.5, and e-notation as a power of ten (1e-5 is 10^{-5})."""
    low = text.lower()
    if "e" not in low:
        return text
    mantissa, exponent = low.split("e")
    power = f"10^{{{int(exponent)}}}"
    return power if mantissa in ("1", "1.0") else rf"{mantissa} \times {power}"


def tensor_latex(text: str, name: Callable[[str], str], *, scalars: Collection[str] = (),
                 symbol: Callable[[str], str] | None = None) -> str:
    """The LaTeX of a tensor formula (one the tensor language reads): each name drawn by
    `name` (a canonical name, W1 for W^{(1)} and W₁, delta for δ: to its LaTeX), inside
    grad(…) by `symbol` (default `name`: a derivative is of symbols, never of numbers).
    `scalars` are the names of shape (), for which `*` is \\cdot rather than \\odot. Raises
    FormulaError for a text the language does not read."""
    text = unicodedata.normalize("NFC", text)  # as parse_tensor reads it
    return _Printer(text, name, scalars, symbol or name).formula_all().text
