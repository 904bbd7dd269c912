"""Deciding `lhs = rhs`: symbolic proof first, then an exact witness, else `unknown`.

Strategy, in order (see docs/kernel.md):
1. Choose the branch of every Min/Max/Abs/Piecewise that the facts (hypotheses and checked
   certificates) select.
2. Rewrite the difference into the normal form of `normal_form` (diff, linearity of Σ,
   telescoping, prefix sums) and test it for 0 as a rational function: `proved`.
3. If the difference is a closed expression of finitely many variables, search assignments
   in the witness order for one where the sides differ exactly: `refuted`.
4. Otherwise, or past the time bound: `unknown`.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from derive.kernel.exact import to_expr
from sympy.core.function import AppliedUndef

from derive.kernel.facts import Fact, resolve_branches
from derive.kernel.normal_form import normal_form, rational_zero
from derive.kernel.timebound import DEFAULT_SECONDS, DecisionTimeout, time_bound
from derive.kernel.verdict import Decision, Verdict
from derive.kernel.witness import Family, Instantiation, search_point, search_witness


def _symbolic_zero(lhs: sp.Expr, rhs: sp.Expr, facts: tuple[Fact, ...]):
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        if getattr(lhs, "shape", None) != getattr(rhs, "shape", None):
            return False, ["shapes differ"], sp.nan
        results = [_symbolic_zero(a, b, facts) for a, b in zip(lhs, rhs)]
        rules = sorted({r for _, rs, _ in results for r in rs}) + ["entry by entry"]
        bad = next((nf for ok, _, nf in results if not ok), sp.S.Zero)
        return all(ok for ok, _, _ in results), rules, bad
    rules: list[str] = []
    diff = to_expr(lhs) - to_expr(rhs)
    if facts or diff.has(sp.Min, sp.Max, sp.Abs, sp.Piecewise):
        resolved = resolve_branches(diff, facts)
        if resolved != diff:
            rules.append("branches chosen by the facts")
        diff = resolved
    nf, fired = normal_form(diff)
    rules.extend(fired)
    if rational_zero(nf):
        rules.append("rational normal form")
        return True, rules, nf
    return False, rules, nf


def _closed(e: sp.Expr) -> bool:
    return not e.atoms(sp.Sum, AppliedUndef, sp.Derivative, sp.Indexed)


def decide(
    lhs: sp.Expr,
    rhs: sp.Expr,
    facts: Sequence[Fact] = (),
    seconds: float | None = DEFAULT_SECONDS,
    search: bool = True,
) -> Decision:
    """Decide `lhs = rhs` for all values of the free symbols allowed by their assumptions
    and by `facts`."""
    facts = tuple(facts)
    try:
        with time_bound(seconds) as deadline:
            zero, rules, nf = _symbolic_zero(lhs, rhs, facts)
            if zero:
                return Decision(Verdict.PROVED, " → ".join(rules), rules=tuple(rules))
            if isinstance(lhs, sp.MatrixBase):
                return Decision(Verdict.UNKNOWN, " → ".join(rules),
                                detail=f"an entry's normal form: {sp.sstr(nf)}")
            diff = to_expr(lhs) - to_expr(rhs)
            if search and _closed(diff) and all(_closed(f.expr) for f in facts):
                free = set().union(to_expr(lhs).free_symbols, to_expr(rhs).free_symbols,
                                   *(f.expr.free_symbols for f in facts))
                variables = tuple(sorted(free, key=lambda s: s.name))
                inst = Instantiation("", to_expr(lhs), to_expr(rhs), variables,
                                     tuple(f.expr for f in facts))
                found = search_point(inst, deadline)
                if found is not None:
                    return Decision(Verdict.REFUTED, "exact witness search", witness=found)
            return Decision(Verdict.UNKNOWN, " → ".join(rules) or "no rule applies",
                            detail=f"normal form of the difference: {sp.sstr(nf)}")
    except DecisionTimeout as exc:
        return Decision(Verdict.UNKNOWN, "time bound", detail=str(exc))


def decide_chain(
    start: sp.Expr,
    steps: Sequence[sp.Expr],
    facts: Sequence[Fact] = (),
    seconds: float | None = DEFAULT_SECONDS,
) -> list[Decision]:
    """Each link `previous = next` of a calc chain, decided on its own."""
    out, previous = [], start
    for expr in steps:
        out.append(decide(previous, expr, facts, seconds, search=False))
        previous = expr
    return out


def refute(family: Family, seconds: float | None = DEFAULT_SECONDS) -> Decision:
    """Search a family's shapes for the smallest exact witness."""

    def holds(inst: Instantiation) -> bool:
        return _symbolic_zero(inst.lhs, inst.rhs, ())[0]

    try:
        with time_bound(seconds) as deadline:
            found = search_witness(family, deadline, holds)
    except DecisionTimeout as exc:
        return Decision(Verdict.UNKNOWN, "time bound", detail=str(exc))
    if found is None:
        return Decision(Verdict.UNKNOWN, "exact witness search",
                        detail="no witness among the shapes and assignments tried")
    return Decision(Verdict.REFUTED, "exact witness search", witness=found)
