"""Prefix sums as functions: P_g(m, p…) = Σ_{i=1}^{m} g(i, p…), one subclass of `Prefix` per
summand g (told apart by its class, never by name), P_g(0, p…) = 0; and which expressions are
integer-valued (a prefix sum of an integer summand is). Apart from derive.kernel.sums so that
the definedness of an expression can recognise a prefix sum without importing the Σ rules."""

from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef


class Prefix(sp.Function):
    """P(m, p…) = Σ_{i=1}^{m} g(i, p…) for the summand g of the subclass (`body`)."""

    body: sp.Lambda  # Lambda((i, p…), g), set on each subclass

    @classmethod
    def eval(cls, m, *params):
        if m == 0:  # the empty prefix
            return sp.S.Zero

    def summand(self, index: sp.Expr) -> sp.Expr:
        return self.body(index, *self.args[1:])

    def _eval_is_integer(self):
        g = self.summand(sp.Dummy("i", integer=True))
        return True if integer_valued(g) else None

    def _eval_is_real(self):
        return True if self.summand(sp.Dummy("i", integer=True)).is_real else None


_PREFIX: dict[sp.Lambda, type] = {}
_INDEX = sp.Dummy("i", integer=True)


def is_prefix(e) -> bool:
    return isinstance(e, Prefix)


def prefix_class(body: sp.Lambda) -> type:
    """The prefix-sum function of one summand, the same class for the same summand."""
    cls = _PREFIX.get(body)
    if cls is None:
        cls = type(f"Σ{len(_PREFIX)}", (Prefix,), {"body": body, "nargs": len(body.variables)})
        _PREFIX[body] = cls
    return cls


def integer_valued(e: sp.Expr) -> bool:
    """Whether `e` is an integer wherever it is defined, by its structure and the integer
    assumptions declared on its symbols and functions."""
    if e.is_Integer:
        return True
    if isinstance(e, (sp.Symbol, sp.Indexed, AppliedUndef)):
        return e.is_integer is True
    if is_prefix(e):
        return integer_valued(e.args[0]) and integer_valued(
            e.summand(sp.Dummy("i", integer=True)))
    if e.is_Add or e.is_Mul:
        return all(integer_valued(a) for a in e.args)
    if e.is_Pow:
        return integer_valued(e.base) and e.exp.is_Integer and e.exp >= 0
    if isinstance(e, sp.Sum):
        return integer_valued(e.function) and all(
            integer_valued(a) and integer_valued(b) for _, a, b in e.limits)
    if isinstance(e, (sp.floor, sp.ceiling)):
        return True
    return False
