"""A small structural LaTeX builder: fragments that know their precedence, so operands are
parenthesised by rule (a negative number substituted into a product or after a minus gets
parentheses, as the course writes `1 − 0.1·(−4)`), never by string surgery."""

from __future__ import annotations

from dataclasses import dataclass

from derive.kernel.exact import to_expr
from derive.render.numbers import exact_latex, is_large, number_latex

REL, ADD, MUL, POW, ATOM = range(5)


@dataclass(frozen=True)
class Tex:
    """A LaTeX fragment, its precedence, and whether it starts with a minus sign."""

    text: str
    prec: int = ATOM
    negative: bool = False

    def __str__(self) -> str:
        return self.text


def paren(t: Tex) -> Tex:
    return Tex(rf"\left({t.text}\right)")


def _operand(t: Tex, prec: int, first: bool = False) -> str:
    if t.prec < prec or (t.negative and not first):
        return paren(t).text
    return t.text


def number(value, decimals: bool = True) -> Tex:
    """An exact value as `derive.render.numbers.number_latex` shows it (an integer, a
    terminating decimal when `decimals`, a fraction, or a closed form), with its precedence."""
    v = to_expr(value)
    if not v.is_Rational and is_large(v):  # a DAG of many steps: its certified decimal
        return Tex(rf"\left({exact_latex(v)}\right)", ATOM, False)
    # a closed form is negative as written (−log 2): decided by its sign, not by evaluation
    negative = bool(v.is_number and (v.is_negative if v.is_Rational
                                     else v.could_extract_minus_sign()))
    text = number_latex(v, decimals)
    if v.is_Integer or (v.is_Rational and not text.startswith(r"-\frac")):
        return Tex(text, ATOM, negative)
    if v.is_Rational:
        return Tex(text, ADD, True)
    return Tex(text, ADD if v.is_Add else MUL, negative)


def add(*terms: Tex) -> Tex:
    """t1 + t2 + …; a negative term after the first is parenthesised."""
    out = [_operand(t, ADD, i == 0) for i, t in enumerate(terms)]
    return Tex(" + ".join(out), ADD, terms[0].negative)


def sub(a: Tex, b: Tex) -> Tex:
    """a − b."""
    return Tex(f"{_operand(a, ADD, True)} - {_operand(b, MUL)}", ADD, a.negative)


def mul(*factors: Tex) -> Tex:
    """f1 · f2 · …, with an explicit \\cdot between factors."""
    out = [_operand(f, MUL, i == 0) for i, f in enumerate(factors)]
    return Tex(r" \cdot ".join(out), MUL, factors[0].negative)


def frac(a: Tex, b: Tex) -> Tex:
    return Tex(rf"\frac{{{a.text}}}{{{b.text}}}")


def power(base: Tex, exponent: Tex) -> Tex:
    b = base.text if base.prec == ATOM and not base.negative else paren(base).text
    return Tex(f"{b}^{{{exponent.text}}}", POW)


def call(name: str, *args: Tex) -> Tex:
    return Tex(rf"\operatorname{{{name}}}\left({', '.join(a.text for a in args)}\right)")


def approx(a: Tex, b: Tex) -> Tex:
    return Tex(rf"{a.text} \approx {b.text}", REL)


def listing(items: list[Tex]) -> Tex:
    return Tex(r"\left[" + ", ".join(i.text for i in items) + r"\right]")


def value(v) -> Tex:
    """An exact value or a (nested) list of them, with fractions for non-terminating values."""
    if isinstance(v, (list, tuple)):
        return listing([value(x) for x in v])
    return number(v)
