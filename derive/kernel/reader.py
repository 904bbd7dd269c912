"""An exact value, or a quantity's formula, as a reader of the course writes it (issue 34):
e²/(1 + e + e²), −log(e^(1/2)/(e^(−5/4) + e^(1/2) + e²)), √2/2, e^(1/2)/(…) − 1; in LaTeX for
the exports and keys, \\frac{e^{1/2}}{e^{-5/4} + e^{1/2} + e^{2}} - 1.

One printer (`Reader`) walks the expression with a `_print_<Class>` table and asks its
dialect (`TEXT` or `LATEX`) how each construct is spelled: what is decided once, for both
outputs, is the reader's order and grouping — terms with a plus sign first and a negative
number last (x − 1, not −1 + x), a product as numerator over denominator with its numeric
coefficient in front (3√2/4), e^x for exp(x), √ for a square root, the names of the course's
functions. SymPy's own names (exp(, sqrt(, E, Abs, Heaviside) never reach a reader.

The printer sits in the kernel so that the kernel's own sentences can write a value (the sign
of e^(−100000) + cos(1)² + sin(1)² − 1 that exact arithmetic cannot decide); it knows no
notation. Symbols are written by the `names` it is given (derive/graph/reader.py: the
exercise's notation, and an author's own spelling, `lr` for η); without them a symbol is not
writable. A Σ from 1 to N divided by N is the author's mean_i(…). What the printer cannot
write (a float, a Σ not from 1, a symbol without `names` or in LaTeX) raises `NotWritable`: a
caller shows the decimal, or the formula language, instead — never SymPy's text.

The printer is given bounded expressions only: its callers first refuse values too long to
show (derive/render/numbers.py `is_large`, `writable`: at most MAX_TEXT_DIGITS digits)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from derive.kernel.functions import BY_CLASS

Names = Callable[[str, str], str]
"""(a symbol's name, its member index as text or "") → how the reader reads it."""

ADD, MUL, POW, ATOM = range(4)
"""A piece's precedence: a sum, a product or quotient, a power (or root), an atom."""


class NotWritable(ValueError):
    """An expression the reader form does not write (a float, a symbol in LaTeX, a Σ not
    from 1)."""


@dataclass(frozen=True)
class Piece:
    """Written text, its precedence, and whether it starts with a minus sign."""

    text: str
    prec: int = ATOM
    negative: bool = False


_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


class Text:
    """Plain Unicode text, as the terminal and the text key show it: −, ·, √, e², x^(1/3)."""

    minus = "−"
    times = "·"
    @staticmethod
    def paren(p: Piece) -> str:
        return f"({p.text})"

    def number(self, n: int) -> str:
        return str(n)

    def fraction(self, num: Piece, den: Piece, inline: bool) -> Piece:
        top = self.paren(num) if num.prec <= ADD or num.negative else num.text
        bottom = den.text if den.prec >= POW and not den.negative else self.paren(den)
        return Piece(f"{top}/{bottom}", MUL)

    def power(self, base: Piece, exponent: Piece, integer: int | None) -> Piece:
        b = base.text if base.prec == ATOM and not base.negative else self.paren(base)
        if integer is not None and integer >= 0:
            return Piece(b + str(integer).translate(_SUPERSCRIPT), POW)
        bare = exponent.prec == ATOM and not exponent.negative and len(exponent.text) == 1
        return Piece(f"{b}^{exponent.text if bare else self.paren(exponent)}", POW)

    def root(self, radicand: Piece) -> Piece:
        bare = radicand.prec == ATOM and not radicand.negative and (
            radicand.text.isdigit() or len(radicand.text) == 1)
        return Piece("√" + (radicand.text if bare else self.paren(radicand)), POW)

    def call(self, name: str, args: list[Piece]) -> Piece:
        return Piece(f"{name}(" + ", ".join(a.text for a in args) + ")")

    def absolute(self, arg: Piece) -> Piece:
        return Piece(f"|{arg.text}|")

    def step(self, arg: Piece, relation: str) -> Piece:
        return Piece(f"[{arg.text} {relation} 0]")

    constants = {"E": "e", "pi": "π"}
    relations = {"gt": ">", "ge": "≥"}
    functions = {"log": "log", "min": "min", "max": "max", "sign": "sign"}


class Latex:
    """LaTeX for the exports and the keys: \\frac, \\sqrt{…}, e^{1/2}, \\log\\left(…\\right);
    a fraction in an exponent written inline (e^{-5/4})."""

    minus = "-"
    times = r" \cdot "

    @staticmethod
    def paren(p: Piece) -> str:
        return rf"\left({p.text}\right)"

    def number(self, n: int) -> str:
        return str(n)

    def fraction(self, num: Piece, den: Piece, inline: bool) -> Piece:
        if inline:  # in an exponent: e^{-5/4}, e^{\sqrt{2}/2}
            return Text.fraction(self, num, den, True)
        return Piece(rf"\frac{{{num.text}}}{{{den.text}}}", ATOM)

    def power(self, base: Piece, exponent: Piece, integer: int | None) -> Piece:
        b = base.text if base.prec == ATOM and not base.negative else self.paren(base)
        return Piece(f"{b}^{{{exponent.text}}}", POW)

    def root(self, radicand: Piece) -> Piece:
        return Piece(rf"\sqrt{{{radicand.text}}}", ATOM)

    def call(self, name: str, args: list[Piece]) -> Piece:
        return Piece(name + r"\left(" + ", ".join(a.text for a in args) + r"\right)")

    def absolute(self, arg: Piece) -> Piece:
        return Piece(rf"\left|{arg.text}\right|")

    def step(self, arg: Piece, relation: str) -> Piece:
        return Piece(rf"\left[{arg.text} {relation} 0\right]")

    constants = {"E": "e", "pi": r"\pi"}
    relations = {"gt": ">", "ge": r"\ge"}
    functions = {"log": r"\log", "min": r"\min", "max": r"\max", "sign": r"\operatorname{sign}"}


TEXT, LATEX = Text(), Latex()


def _glued(f: sp.Basic) -> bool:
    """Whether a number is written against this factor, with no ·: a square root, e, e^x or
    π (3√2, 2e, 4π), never a name (2·eps)."""
    if f in (sp.E, sp.pi) or isinstance(f, sp.exp):
        return True
    return isinstance(f, sp.Pow) and (f.exp == sp.S.Half or f.base in (sp.E, sp.pi))

_STEP = {sp.S.Zero: "gt", sp.S.One: "ge"}
"""Heaviside(u, H0) as the derivation writes it: H0 = 0 is [u > 0], H0 = 1 is [u ≥ 0]."""


class Reader:
    """The reader form of an expression in a dialect (`TEXT` or `LATEX`)."""

    def __init__(self, dialect: Text | Latex = TEXT, names: Names | None = None):
        self.d = dialect
        self.names = names
        self._inline = 0  # inside an exponent: fractions written a/b in LaTeX too

    def write(self, e: sp.Basic) -> str:
        return self.piece(sp.Integer(e) if isinstance(e, int) else e).text

    def piece(self, e: sp.Basic) -> Piece:
        for cls in type(e).__mro__:
            method = getattr(self, f"_print_{cls.__name__}", None)
            if method is not None:
                return method(e)
        raise NotWritable(f"the reader form has no writing for {type(e).__name__}")

    # ------------------------------------------------------------------ numbers
    def _signed(self, body: Piece, negative: bool) -> Piece:
        if not negative:
            return body
        inner = self.d.paren(body) if body.prec <= ADD or body.negative else body.text
        return Piece(self.d.minus + inner, MUL, True)

    def _print_Integer(self, e: sp.Integer) -> Piece:
        return self._signed(Piece(self.d.number(abs(int(e)))), int(e) < 0)

    def _print_Rational(self, e: sp.Rational) -> Piece:
        num, den = Piece(self.d.number(abs(int(e.p)))), Piece(self.d.number(int(e.q)))
        return self._signed(self.d.fraction(num, den, self._inline > 0), e.p < 0)

    def _print_Exp1(self, e) -> Piece:
        return Piece(self.d.constants["E"])

    def _print_Pi(self, e) -> Piece:
        return Piece(self.d.constants["pi"])

    def _print_Float(self, e) -> Piece:
        raise NotWritable("a float")

    def _print_NumberSymbol(self, e) -> Piece:
        raise NotWritable(f"the constant {e}")

    # ------------------------------------------------------------------ operators
    def _print_Add(self, e: sp.Add) -> Piece:
        terms = list(e.as_ordered_terms())
        plus = [t for t in terms if not t.could_extract_minus_sign()]
        minus = [t for t in terms if t.could_extract_minus_sign()]
        ordered = plus + minus  # x − 1, not −1 + x
        first = self.piece(ordered[0])
        text = first.text
        for t in ordered[1:]:
            if t.could_extract_minus_sign():
                p = self.piece(-t)
                shown = self.d.paren(p) if p.prec <= ADD or p.negative else p.text
                text += f" {self.d.minus} {shown}"
            else:
                p = self.piece(t)
                text += " + " + (self.d.paren(p) if p.negative else p.text)
        return Piece(text, ADD, first.negative)

    def _mean(self, factors: list[sp.Basic]) -> tuple[sp.Sum, sp.Basic] | None:
        """(Σ, its N) when the factors hold a Σ_{i=1}^{N} and 1/N: the author's mean_i(…)."""
        for f in factors:
            if isinstance(f, sp.Sum) and len(f.limits) == 1 and f.limits[0][1] == 1:
                count = f.limits[0][2]
                if sp.Pow(count, -1) in factors:
                    return f, count
        return None

    def _print_Mul(self, e: sp.Mul) -> Piece:
        """Numerator over denominator, the numeric coefficient first: 3√2/4, e^(1/2)/(…)."""
        factors = list(e.as_ordered_factors())  # SymPy's printed order: η·x, not x·η
        mean = self._mean(factors)
        means: list[Piece] = []
        if mean is not None:
            s, count = mean
            factors.remove(s)
            factors.remove(sp.Pow(count, -1))
            means.append(self._call_sum("mean", s))
        coeff, num, den = sp.S.One, [], []
        for f in factors:
            if f.is_Rational:
                coeff *= f
            elif isinstance(f, sp.Pow) and f.exp.is_Rational and f.exp.is_negative:
                den.append(f.base if f.exp == -1 else sp.Pow(f.base, -f.exp))
            else:
                num.append(f)
        negative = bool(coeff < 0)
        coeff = abs(coeff)
        glued = bool(num) and _glued(num[0]) and not means
        top = self._product(int(coeff.p), [self.piece(f) for f in num] + means, glued)
        if not den and coeff.q == 1:
            return self._signed(top, negative)
        bottom = self._product(int(coeff.q), [self.piece(f) for f in den],
                               bool(den) and _glued(den[0]))
        return self._signed(self.d.fraction(top, bottom, self._inline > 0), negative)

    def _product(self, n: int, pieces: list[Piece], glued: bool = False) -> Piece:
        """n · p1 · p2 …: the number written against a first factor that is a root, e or π
        (`glued`: 3√2, 2e, 4π), else with ·."""
        if not pieces:
            return Piece(self.d.number(n))
        shown = [self.d.paren(p) if (p.prec <= ADD or p.negative) and len(pieces) + (n != 1) > 1
                 else p.text for p in pieces]
        text = self.d.times.join(shown)
        if n != 1:
            text = self.d.number(n) + ("" if glued else self.d.times) + text
        if len(pieces) == 1 and n == 1:
            return pieces[0]
        return Piece(text, MUL)

    def _print_Pow(self, e: sp.Pow) -> Piece:
        base, exp = e.base, e.exp
        if exp.is_Rational and exp.is_negative:  # 1/x, 1/√x, 1/x²
            return self.d.fraction(Piece(self.d.number(1)), self.piece(sp.Pow(base, -exp)),
                                   self._inline > 0)
        if exp == sp.S.Half:
            return self.d.root(self.piece(base))
        return self._power(self.piece(base), exp)

    def _power(self, base: Piece, exp: sp.Basic) -> Piece:
        integer = int(exp) if exp.is_Integer else None
        self._inline += 1
        try:
            exponent = self.piece(exp)
        finally:
            self._inline -= 1
        return self.d.power(base, exponent, integer)

    # ------------------------------------------------------------------ functions
    def _print_exp(self, e: sp.exp) -> Piece:
        arg = e.args[0]
        if arg == 1:
            return Piece(self.d.constants["E"])
        return self._power(Piece(self.d.constants["E"]), arg)

    def _print_log(self, e: sp.log) -> Piece:
        return self.d.call(self.d.functions["log"], [self.piece(a) for a in e.args])

    def _print_Abs(self, e: sp.Abs) -> Piece:
        return self.d.absolute(self.piece(e.args[0]))

    def _print_Min(self, e) -> Piece:
        return self.d.call(self.d.functions["min"], [self.piece(a) for a in e.args])

    def _print_Max(self, e) -> Piece:
        return self.d.call(self.d.functions["max"], [self.piece(a) for a in e.args])

    def _print_sign(self, e) -> Piece:
        return self.d.call(self.d.functions["sign"], [self.piece(a) for a in e.args])

    def _print_Heaviside(self, e) -> Piece:
        if len(e.args) == 2 and e.args[1] in _STEP:
            return self.d.step(self.piece(e.args[0]), self.d.relations[_STEP[e.args[1]]])
        raise NotWritable("a step without torch's value at 0")

    def _print_Function(self, e) -> Piece:
        declared = BY_CLASS.get(type(e))
        if declared is None:
            raise NotWritable(f"the function {type(e).__name__}")
        name = declared.name if self.d is TEXT else declared.tex
        return self.d.call(name, [self.piece(a) for a in e.args])

    # ------------------------------------------------------------------ names
    def _name(self, name: str, index: str = "") -> str:
        if self.d is not TEXT or self.names is None:
            raise NotWritable(f"the symbol {name}")
        return self.names(name, index)

    def _print_Symbol(self, e: sp.Symbol) -> Piece:
        return Piece(self._name(e.name))

    _print_Dummy = _print_Symbol

    def _print_Indexed(self, e: sp.Indexed) -> Piece:
        index = ",".join(self.piece(i).text for i in e.indices)
        return Piece(self._name(e.base.label.name, index))

    def _call_sum(self, name: str, s: sp.Sum) -> Piece:
        (i, lo, _hi), = s.limits
        if lo != 1 or not isinstance(i, sp.Symbol):
            raise NotWritable("a Σ that does not start at 1")
        if self.d is not TEXT:
            raise NotWritable("a Σ in LaTeX")
        return Piece(f"{name}_{self._name(i.name)}({self.piece(s.function).text})")

    def _print_Sum(self, e: sp.Sum) -> Piece:
        if len(e.limits) != 1:
            raise NotWritable("a Σ over two indices")
        return self._call_sum("sum", e)


def reader_text(e: sp.Basic, names: Names | None = None) -> str:
    """`e` in plain Unicode text as a reader writes it (NotWritable if it cannot be)."""
    return Reader(TEXT, names).write(e)


def reader_latex(e: sp.Basic) -> str:
    """An exact value in LaTeX as a reader writes it (NotWritable if it cannot be)."""
    return Reader(LATEX).write(e)
