"""Facts: what a statement assumes about its symbols beyond their SymPy assumptions.

A fact says `expr ≥ 0`, `expr > 0` or `expr ≠ 0`. Hypotheses are the statement's own; a
certificate (see certificates.py) derives a new fact from them and is checked before use.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import sympy as sp

from derive.kernel.claims import InvalidClaim, check_expr
from derive.kernel.exact import exact_sign


class Relation(StrEnum):
    """How a fact's expression compares with 0."""

    NONNEGATIVE = ">="
    POSITIVE = ">"
    NONZERO = "!="

    @property
    def signs(self) -> frozenset[int]:
        """The signs the expression may take where the fact holds."""
        return {">=": frozenset({0, 1}), ">": frozenset({1}), "!=": frozenset({-1, 1})}[self.value]

    def holds(self, value: sp.Expr) -> bool:
        """Whether the fact holds at an exact real value, decided exactly (False when that
        cannot be told: a point where a fact is not known to hold is no witness)."""
        s = exact_sign(value)
        return s is not None and s in self.signs


@dataclass(frozen=True)
class Fact:
    """`expr ≥ 0`, `expr > 0` or `expr ≠ 0`, with why it holds.

    `origin` is "hypothesis" for an assumption of the statement or "certificate" for a fact the
    kernel derived and checked; a certificate lists the facts it used in `uses`.
    """

    expr: sp.Expr
    reason: str
    relation: Relation = Relation.NONNEGATIVE
    origin: str = "hypothesis"
    uses: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"{sp.sstr(self.expr)} {self.relation.value.replace('>=', '≥').replace('!=', '≠')} 0"


def _fact(expr, reason: str, relation: Relation) -> Fact:
    if not isinstance(reason, str):
        raise InvalidClaim("a fact's reason is text")
    fact = Fact(check_expr(expr, f"the fact {reason!r}"), reason, relation)
    if fact.expr.is_Rational and not relation.holds(fact.expr):
        raise InvalidClaim(f"the fact {reason!r} says {fact.describe()}, which is false: "
                           f"every claim would follow from it")
    return fact


def hypothesis(expr: sp.Expr, reason: str) -> Fact:
    """An assumption of the statement: `expr ≥ 0`."""
    return _fact(expr, reason, Relation.NONNEGATIVE)


def positive(expr: sp.Expr, reason: str) -> Fact:
    """An assumption of the statement: `expr > 0`."""
    return _fact(expr, reason, Relation.POSITIVE)


def nonzero(expr: sp.Expr, reason: str) -> Fact:
    """An assumption of the statement: `expr ≠ 0` (for example x − 1 ≠ 0 for a geometric sum)."""
    return _fact(expr, reason, Relation.NONZERO)
