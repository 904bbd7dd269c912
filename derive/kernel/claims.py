"""What the kernel accepts as a claim: exact SymPy expressions, nothing else.

A float is refused, not rounded: a binary float makes an identity look false (0.1 + 0.2 against
3/10) or hides a difference (x + 10⁻³⁰·x against x), so a claim that contains one is invalid.
"""

from __future__ import annotations

import sympy as sp


class InvalidClaim(ValueError):
    """A claim the kernel refuses as written: a float, an infinity, something not an expression."""


class ContradictoryFacts(InvalidClaim):
    """Facts that no values satisfy together (every claim would follow from them): `reasons`
    are the reasons of the facts that contradict each other, in their order."""

    def __init__(self, message: str, reasons: tuple[str, ...]):
        super().__init__(message)
        self.reasons = reasons


class NotSupported(ValueError):
    """A claim that is valid but uses something the kernel does not decide (yet), or that is
    beyond its bounds (a number or an exponent so large that exact arithmetic would not end)."""


MAX_NUMBER_BITS = 40_000
"""Largest numerator or denominator in a claim (about 12,000 digits)."""

MAX_INTEGER_EXPONENT = 10_000
"""Largest |n| in a power xⁿ (2¹⁰⁰⁰⁰ has 3,011 digits; 2^(10⁹) would not be computed in time)."""


def check_bounds(value: sp.Basic, what: str = "a side") -> None:
    """NotSupported for numbers and exponents beyond the bounds above."""
    for node in sp.preorder_traversal(value):
        if isinstance(node, sp.Rational):
            if max(int(node.p).bit_length(), int(node.q).bit_length()) > MAX_NUMBER_BITS:
                raise NotSupported(f"{what} holds a number of more than "
                                   f"{MAX_NUMBER_BITS * 3 // 10:,} digits")
        elif isinstance(node, sp.Pow) and node.exp.is_Integer and abs(
                int(node.exp)) > MAX_INTEGER_EXPONENT:
            raise NotSupported(f"{what} has the exponent {int(node.exp):,}; powers up to "
                               f"{MAX_INTEGER_EXPONENT:,} are decided")


def check_expr(value: object, what: str = "a side") -> sp.Expr:
    """`value` as a SymPy expression, or InvalidClaim saying what is wrong and what would be
    right."""
    if isinstance(value, bool) or (isinstance(value, sp.logic.boolalg.Boolean)
                                   and not isinstance(value, sp.Expr)):
        raise InvalidClaim(f"{what} is a truth value, not a number: write an expression")
    if isinstance(value, float):
        raise InvalidClaim(f"{what} is the float {value!r}: write it exactly, "
                           f"as an integer or a Rational")
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, sp.MatrixBase):
        for entry in value:
            check_expr(entry, what)
        return value
    if not isinstance(value, sp.Basic):
        raise InvalidClaim(f"{what} is a {type(value).__name__}, not a SymPy expression")
    if isinstance(value, sp.Tuple) or not isinstance(value, sp.Expr):
        raise InvalidClaim(f"{what} is a {type(value).__name__}, not an expression")
    floats = value.atoms(sp.Float)
    if floats:
        f = sorted(floats, key=sp.default_sort_key)[0]
        raise InvalidClaim(f"{what} contains the decimal {sp.sstr(f)}, a binary float: write it "
                           f"exactly, as Rational(…) or an integer")
    if value.has(sp.nan, sp.zoo) or _infinite_outside_limits(value):
        raise InvalidClaim(f"{what} contains an infinity or nan; a claim is about finite values "
                           f"(only a Σ may run to ∞)")
    return value


def _infinite_outside_limits(e: sp.Basic) -> bool:
    if e in (sp.oo, -sp.oo):
        return True
    if isinstance(e, sp.Sum):
        return _infinite_outside_limits(e.function)
    return any(_infinite_outside_limits(a) for a in e.args)
