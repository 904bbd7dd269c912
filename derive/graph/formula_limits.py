"""The limits a formula is checked against before anything is computed (docs/formulas.md, What
is refused): bounds on the digits of a constant and the size of an exponent, computed exactly
from the expression without evaluating it, and `evaluated`, a parsed formula in SymPy's
canonical form built bottom-up with each operation's size checked first."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from derive.kernel import definedness, functions, intervals
from derive.kernel.constants import UndecidedComparison, extremum, repeated
from derive.kernel.definedness import operation_conditions

MAX_POWER = 10_000
"""Largest integer exponent written in a power (the kernel's bound)."""


class FormulaError(ValueError):
    """A formula that is not valid: `column` (from 1) is where reading stopped."""

    __module__ = "derive.graph.language"  # the public name: raised by parse_formula

    def __init__(self, message: str, column: int | None):
        super().__init__(message if column is None else f"{message} at column {column}")
        self.column = column


class FormulaNotSupported(ValueError):
    """A valid formula that asks for something the language does not have (yet)."""

    __module__ = "derive.graph.language"


MAX_CONSTANT_DIGITS = 4_200
"""Most decimal digits of a constant a formula may denote (in its numerator or denominator):
every value it allows can be printed, under Python's 4,300-digit limit for int-to-text."""

MAX_SIZE = 1_000
"""Largest number of members a family given as a number may have (a Σ is written out)."""


UNBOUNDED = MAX_CONSTANT_DIGITS + 1
"""The digits `_digits` gives a constant it cannot bound (a symbolic or huge exponent): past
every limit it is compared with, so such a constant is refused."""

LOG10_2 = Fraction(30103, 100000)
"""An upper bound on log₁₀ 2 = 0.3010299956…: 2^100000 < 10^30103."""


@lru_cache(maxsize=4096)
def _log2(n: int) -> Fraction:
    """An upper bound on log₂ n (0 for n ≤ 1), exact: a certified enclosure of log n / log 2
    (kernel/intervals.py), never above the bit length."""
    if n <= 1:
        return Fraction(0)
    k = n.bit_length()
    if n == 1 << (k - 1):
        return Fraction(k - 1)
    got = intervals.enclose(sp.log(sp.Integer(n)) / sp.log(2), 64)
    return Fraction(k) if got is None else min(Fraction(k), Fraction(int(got[1].p),
                                                                     int(got[1].q)))


def _size(e: sp.Expr) -> tuple[Fraction, Fraction] | None:
    """Upper bounds on log₂ of the numerator's and the denominator's magnitude of a constant
    expression's value (None when none is known: a symbolic or huge exponent), computed
    exactly and without evaluating it: a product adds them, a power multiplies them by the
    exponent, a sum p₁/q₁ + … + p_m/q_m has numerator below m·max pᵢ·Π_{j≠i} qⱼ."""
    if e.is_Rational:
        return _log2(abs(int(e.p))), _log2(int(e.q))
    if isinstance(e, (sp.Add, sp.Mul)):
        parts = [_size(a) for a in e.args]
        if any(p is None for p in parts):
            return None
        den = sum(q for _, q in parts)
        if isinstance(e, sp.Mul):
            return sum(p for p, _ in parts), den
        return max(p + den - q for p, q in parts) + _log2(len(parts)), den
    if isinstance(e, sp.Pow):
        exp = e.exp
        if exp.free_symbols or _bits(exp) > 64:
            return None
        n = exp.doit()
        base = _size(e.base)
        if base is None:
            return None
        if not n.is_Rational:
            return base[0] + 64, base[1] + 64
        num, den = (base if n >= 0 else base[::-1])
        r = abs(Fraction(int(n.p), int(n.q)))
        return num * r + (0 if n.is_Integer else 1), den * r + (0 if n.is_Integer else 1)
    if not isinstance(e, sp.exp) and isinstance(e, (sp.Function, sp.Max, sp.Min)):
        # tanh(10^4000), sin, log, |·|, max of constants left as written: an irrational that
        # no sum or product merges with a rational (its own numbers were bounded when built)
        return Fraction(0), Fraction(0)
    inner = [_size(a) for a in e.args]  # exp: bounded size
    if any(p is None for p in inner):
        return None
    bound = 64 + sum(max(p) for p in inner)
    return bound, bound


def _bits(e: sp.Expr) -> int:
    """An upper bound on the bits of a constant expression's numerator and denominator."""
    size = _size(e)
    return UNBOUNDED * 4 if size is None else math.floor(max(size)) + 1


def _digits(e: sp.Expr) -> int:
    """An upper bound on the decimal digits of a constant expression's numerator and
    denominator, computed exactly without evaluating it (2^(10^9) is refused before anything
    is raised to a power; 2^7000 has 2,108 digits)."""
    size = _size(e)
    if size is None:
        return UNBOUNDED
    return math.floor(max(size) * LOG10_2) + 1


def _check_size(base: sp.Expr, exp: sp.Expr, column: int) -> None:
    """Refuse a power whose exponent is a huge constant, or whose constant value would pass
    MAX_CONSTANT_DIGITS."""
    if not exp.free_symbols:
        n = exp.doit() if _bits(exp) <= 64 else None
        if n is not None and n.is_Integer and abs(int(n)) > MAX_POWER:
            raise FormulaNotSupported(f"the exponent {int(n):,} (before column {column}) is "
                                      f"beyond {MAX_POWER:,}: not supported")
        if n is None:
            raise FormulaNotSupported(f"the exponent (before column {column}) "
                                      f"{_exponent_shown(exp)}; write an integer up to "
                                      f"{MAX_POWER:,} or a fraction of smaller terms")
    if not base.free_symbols and not exp.free_symbols and \
            _digits(sp.Pow(base, exp, evaluate=False)) > MAX_CONSTANT_DIGITS:
        raise FormulaNotSupported(f"a constant of more than {MAX_CONSTANT_DIGITS:,} digits "
                                  f"(before column {column}) is not supported")


def _short(n: int) -> str:
    """An integer as a message shows it: a power of ten as 10^k (1e-30 is 1/10^30)."""
    text = str(abs(n))
    if len(text) > 4 and text.rstrip("0") == "1":
        text = f"10^{len(text) - 1}"
    return "-" + text if n < 0 else text


def _exponent_shown(exp: sp.Expr) -> str:
    """What a refused constant exponent is, in words (evaluated only when it is small)."""
    if _digits(exp) > 41:  # an upper bound, at most one digit over
        return "is a number of more than 40 digits"
    value = exp.doit()
    if value.is_Integer:
        return f"is {int(value):,}, beyond {MAX_POWER:,}"
    if value.is_Rational:
        return f"is {_short(value.p)}/{_short(value.q)}, whose terms pass 2^64"
    return "is not a whole number or a fraction of terms below 2^64"


def _is_zero_constant(e: sp.Expr) -> bool:
    """Whether a divisor is zero as written (0, 2 - 2, w - w), when its size allows evaluating
    it (a divisor that is zero only for some values is the kernel's to find)."""
    if _digits(e) > MAX_CONSTANT_DIGITS:
        return False
    return evaluated(e) == 0


def evaluated(e: sp.Expr, domain: list | None = None) -> sp.Expr:
    """A parsed formula in SymPy's canonical form (every operation evaluated, nothing
    simplified): the form the kernel and the graph compare. Built bottom-up, each operation's
    size checked on its evaluated operands before SymPy computes it, so that y − y + 10¹³ in
    an exponent, or a product of many large powers, is refused rather than computed; an
    undefined value (1/0, log 0) is invalid. `domain`, a list, receives the conditions of
    every root, logarithm and negative power as written (outside sums, whose terms may not be
    evaluated), which SymPy's evaluation may fold away: √x² is x, defined for x ≥ 0; with it, a
    Σ term keeps the conditions its evaluation lost (definedness.DefinedWhere)."""
    if not e.args or isinstance(e, (sp.Symbol, sp.Number)):
        return e
    if isinstance(e, sp.Derivative):
        out = e.func(evaluated(e.args[0], domain), *e.args[1:])
    elif isinstance(e, sp.Sum):  # a term's written domain stays with the term
        written: list = []
        body = evaluated(e.args[0], written)
        lost = definedness.folded_away(written, body)
        out = e.func(definedness.defined_where(body, lost) if domain is not None else body,
                     *e.args[1:])
    elif isinstance(e, sp.Indexed):
        out = e.base[tuple(evaluated(a, domain) for a in e.indices)]
    else:
        args = [evaluated(a, domain) for a in e.args]
        _guard(e, args)
        if domain is not None:
            domain.extend(operation_conditions(e.func, args))
        if isinstance(e, (sp.Max, sp.Min)):
            out = _extremum(repeated(e.func, args), args)
        elif e.func in (functions.relu, functions.clamp) and all(a.is_number for a in args):
            out = _of_constants(e.func, args)
        else:
            out = e.func(*args)
    if out.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise FormulaError("the formula is undefined (a division by zero, or log 0)", None)
    return out


def _extremum(func: type, args: list) -> sp.Expr:
    """max or min of evaluated arguments, their constants ordered exactly
    (derive/kernel/constants.py); not supported when two of them cannot be ordered."""
    try:
        return extremum(func, *args)
    except UndecidedComparison as exc:
        raise FormulaNotSupported(f"{'min' if issubclass(func, sp.Min) else 'max'} of "
                                  f"constants needs {exc}") from None


def _of_constants(func: type, args: list) -> sp.Expr:
    """relu or clamp of constants as the max and min they are, ordered exactly (relu(sin(1)²
    + cos(1)² − 1) is 0); kept as written when they cannot be ordered (the evaluator then
    says which sign it could not decide)."""
    try:
        if func is functions.relu:
            return extremum(sp.Max, args[0], sp.S.Zero)
        return extremum(sp.Min, extremum(sp.Max, args[0], args[1]), args[2])
    except UndecidedComparison:
        return func(*args)


def _guard(e: sp.Expr, args: list) -> None:
    """Refuse an operation whose evaluated operands would make SymPy compute a constant past
    MAX_CONSTANT_DIGITS (or an exponent past MAX_POWER)."""
    if isinstance(e, sp.Pow):
        base, exp = args
        if not exp.free_symbols:
            if _bits(exp) > 64 or (exp.is_Rational and abs(exp) > MAX_POWER):
                raise FormulaNotSupported(f"an exponent beyond {MAX_POWER:,} is not supported")
            if not base.free_symbols and _digits(
                    sp.Pow(base, exp, evaluate=False)) > MAX_CONSTANT_DIGITS:
                raise FormulaNotSupported(f"a constant of more than {MAX_CONSTANT_DIGITS:,} "
                                          "digits is not supported")
    elif isinstance(e, (sp.Add, sp.Mul)):
        constant = [a for a in args if not a.free_symbols]
        if len(constant) > 1 and _digits(e.func(*constant, evaluate=False)) > \
                MAX_CONSTANT_DIGITS:
            raise FormulaNotSupported(f"a constant of more than {MAX_CONSTANT_DIGITS:,} digits "
                                      "is not supported")
    elif isinstance(e, sp.exp):
        if not args[0].free_symbols and args[0].has(sp.log):
            raise FormulaNotSupported("exp of a logarithm of constants is not supported: "
                                      "write the power")
