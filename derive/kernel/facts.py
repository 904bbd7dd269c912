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

    `over` quantifies it: ((i, lo, hi), …) says the fact holds for every integer i with
    lo ≤ i ≤ hi ("every entry of z1 is ≠ 0"). Its index is a fresh Dummy (`every`), so a step
    that rebuilds the fact without `over` is left with a fact about a symbol nothing else
    mentions: it can only lose the fact, never misapply it.
    """

    expr: sp.Expr
    reason: str
    relation: Relation = Relation.NONNEGATIVE
    origin: str = "hypothesis"
    uses: tuple[str, ...] = ()
    over: tuple[tuple[sp.Symbol, sp.Expr, sp.Expr], ...] = ()

    def describe(self) -> str:
        names = {i: sp.Symbol(i.name) for i, _, _ in self.over}  # the Dummy by its own name
        text = (f"{sp.sstr(self.expr.xreplace(names))} "
                f"{self.relation.value.replace('>=', '≥').replace('!=', '≠')} 0")
        ranges = ", ".join(f"{sp.sstr(lo.xreplace(names))} ≤ {i.name} ≤ "
                           f"{sp.sstr(hi.xreplace(names))}" for i, lo, hi in self.over)
        return f"{text} for every {ranges}" if ranges else text


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


def equal(expr: sp.Expr, reason: str) -> tuple[Fact, Fact]:
    """An assumption of the statement: `expr = 0`, as its two facts expr ≥ 0 and −expr ≥ 0
    (spliced into a list of facts: [*equal(Σ_c y_c − 1, "the labels sum to 1"), …]). The
    sign rules read the pair as expr = 0; a Σ in expr is used as a substitution in the normal
    form (normal_form.equalities); a witness satisfies both."""
    first = _fact(expr, reason, Relation.NONNEGATIVE)
    return first, _fact(-first.expr, reason, Relation.NONNEGATIVE)


def every(fact: Fact | tuple[Fact, Fact], *ranges: tuple) -> Fact | tuple[Fact, Fact]:
    """`fact` for every integer index in each range (i, lo, hi), lo ≤ i ≤ hi: every entry of
    z1 is ≠ 0 is every(nonzero(z1[i], "…"), (i, 1, h)). The index is replaced by a fresh
    integer Dummy, so the fact never speaks of a symbol of the claim that shares its name.

    Given the two facts of `equal`, an equality for every index: each row of Y sums to 1 is
    every(equal(Σ_c Y[r, c] − 1, "…"), (r, 1, B)), two facts over one fresh index (spliced
    into a list of facts like equal's pair); the Σ rules use it as a substitution at any
    index known in range (equalities.py)."""
    if isinstance(fact, tuple) and len(fact) == 2 and all(isinstance(f, Fact) for f in fact):
        first, second = fact
        if first.over or second.over or sp.expand(first.expr + second.expr) != 0:
            raise InvalidClaim("every() takes one fact, or the two facts of equal()")
        one = every(first, *ranges)  # the second is −(the first), over the same index
        return one, Fact(-one.expr, second.reason, second.relation, second.origin,
                         second.uses, one.over)
    if not isinstance(fact, Fact) or fact.over:
        raise InvalidClaim("every() takes one fact (hypothesis(), positive(), nonzero())")
    over, sub = [], {}
    for rng in ranges:
        if not (isinstance(rng, tuple) and len(rng) == 3 and isinstance(rng[0], sp.Symbol)):
            raise InvalidClaim("a range of every() is (index, lo, hi) with an index symbol")
        i, lo, hi = rng
        lo, hi = (check_expr(v, "a range's limit") for v in (lo, hi))
        fresh = sp.Dummy(i.name, integer=True)
        sub[i] = fresh
        over.append((fresh, lo.xreplace(sub), hi.xreplace(sub)))
    if not over:
        raise InvalidClaim("every() needs at least one range")
    return Fact(fact.expr.xreplace(sub), fact.reason, fact.relation, fact.origin, fact.uses,
                tuple(over))
