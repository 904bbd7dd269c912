"""A SymPy expression written back in the formula language (docs/formulas.md), so that what
`derive key` shows as a quantity's formula can be pasted into a claim `{ formula = "…" }`:
`^` for powers, `x_i` and `x_{i - 1}` for members, `sum_i(…)` for Σ_{i=1}^{N}, `abs(…)`, and
the language's functions by their names (`relu(…)`, `clamp(x, lo, hi)`, `pi`)."""

from __future__ import annotations

import sympy as sp
from sympy.printing.precedence import precedence
from sympy.printing.str import StrPrinter

from derive.graph.language import ALIASES
from derive.kernel.constants import RepeatedMax, RepeatedMin
from derive.kernel.functions import BY_CLASS, DECLARED


def _spellings() -> dict[str, str]:
    """Canonical names the parser cannot read back as written (`lambda_`, SymPy's name for λ,
    reads as member `_` of lambda) with the ASCII spelling it reads as that name."""
    out: dict[str, str] = {}
    for spelling, name in ALIASES.items():
        if spelling.isascii() and name.endswith("_") and name not in out:
            out[name] = spelling
    return out


_SPELLING = _spellings()


class NotWritable(ValueError):
    """An expression the formula language cannot write (a Σ not from 1, an unknown function)."""


class _Printer(StrPrinter):
    printmethod = "_derive_formula_text"  # not the objects' own _sympystr

    def _print_Pow(self, expr, rational=False):
        if expr.exp == sp.S.Half:
            return f"sqrt({self._print(expr.base)})"
        if expr.exp.is_negative and expr.exp.is_Rational:  # 1/x, 1/x^2
            inner = sp.Pow(expr.base, -expr.exp, evaluate=False) if expr.exp != -1 else expr.base
            return f"1/{self.parenthesize(inner, precedence(expr) + 1)}"
        return f"{self._operand(expr.base)}^{self._operand(expr.exp)}"

    def parenthesize(self, item, level, strict=False):
        """A power printed as a division (1/x, 1/x^2) binds as a product does: a/(1/x)."""
        if isinstance(item, sp.Pow) and item.exp.is_Rational and item.exp.is_negative and \
                level >= precedence(sp.Mul(2, sp.Symbol("x"), evaluate=False)):
            return f"({self._print(item)})"
        return super().parenthesize(item, level, strict)

    def _operand(self, e) -> str:
        """A power's base or exponent: bare only when it is one name, a member, a call or a
        whole number ≥ 0, so that x^(1/m), (a^b)^c and a^(b^c) read back as written."""
        bare = (isinstance(e, (sp.Symbol, sp.Indexed, sp.Function, sp.Abs, sp.Min, sp.Max))
                or e.is_Integer and e >= 0)
        return self._print(e) if bare else f"({self._print(e)})"

    def _print_Indexed(self, expr):
        name = self._print(expr.base.label)
        if len(expr.indices) != 1:
            raise NotWritable("a member with two indices")
        i = expr.indices[0]
        shown = self._print(i)
        simple = isinstance(i, sp.Symbol) and len(shown) == 1 or i.is_Integer and i >= 0
        return f"{name}_{shown}" if simple else f"{name}_{{{shown}}}"

    def _print_Symbol(self, expr):
        return _SPELLING.get(expr.name, expr.name)

    _print_Dummy = _print_Symbol

    def _print_Sum(self, expr):
        out = self._print(expr.function)
        for var, lo, _hi in expr.limits:
            if lo != 1 or len(var.name) != 1:
                raise NotWritable("a Σ that does not start at 1")
            out = f"sum_{var.name}({out})"
        return out

    def _print_Abs(self, expr):
        return f"abs({self._print(expr.args[0])})"

    def _print_Min(self, expr):
        return self._extremum("min", expr)

    def _print_Max(self, expr):
        return self._extremum("max", expr)

    def _extremum(self, name: str, expr) -> str:
        """max(…) or min(…); one written with an argument twice (RepeatedMax: SymPy keeps each
        argument once) is written so again, with its last argument twice (the same value,
        and read back as a max whose derivative is not supported, as the original)."""
        args = list(expr.args)
        if isinstance(expr, (RepeatedMax, RepeatedMin)):
            args.append(args[-1])
        return f"{name}(" + ", ".join(self._print(a) for a in args) + ")"

    def _print_Function(self, expr):
        name = type(expr).__name__
        if name not in ("exp", "log", *DECLARED) or DECLARED.get(name, None) not in (
                None, BY_CLASS.get(type(expr))):
            raise NotWritable(f"the function {name}")
        return f"{name}(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Derivative(self, expr):
        raise NotWritable("a derivative")

    def _print_Float(self, expr):
        raise NotWritable("a float")

    def _print_ImaginaryUnit(self, expr):
        raise NotWritable("a complex number")

    def _print_Exp1(self, expr):
        return "exp(1)"  # the language has no name e: `e` would read as a symbol

    def _not_real(self, expr):
        raise NotWritable("an infinite or undefined value")

    _print_ComplexInfinity = _print_Infinity = _print_NegativeInfinity = _print_NaN = _not_real


def formula_text(expr: sp.Expr) -> str:
    """`expr` in the formula language; NotWritable when the language has no way to say it."""
    return _Printer().doprint(expr)
