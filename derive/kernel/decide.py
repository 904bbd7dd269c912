"""Deciding `lhs = rhs`: a symbolic proof first, then an exact witness, else `unknown`.

Semantics: the claim is that both sides are equal at every point of the symbols' domains that
satisfies the facts and at which both sides are defined.

1. Validate: exact SymPy expressions only (a float is an invalid claim, not a rounding).
2. Prove: the difference's normal form (normal_form.py) is 0, every step's side condition
   discharged from the assumptions, the facts and the guards (the sides' own denominators).
3. Refute: on the claim itself when it is closed, else on interpretations of it (the caller's
   family, or automatic small shapes with undefined functions as free values), search points in
   the witness order, and confirm a candidate by evaluating the claim's own sides and facts.
4. Otherwise `unknown`, with the reason; past the time bound, or on any internal error, too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import chain, islice

import sympy as sp
from sympy.core.function import AppliedUndef

from derive.kernel.claims import InvalidClaim, check_expr
from derive.kernel.definedness import UnknownDomain, guards
from derive.kernel.evaluate import NotConcrete
from derive.kernel.facts import Fact
from derive.kernel.interpret import Family, Interpretation, Schema, automatic, confirm, write_out
from derive.kernel.definedness import conditions
from derive.kernel.normal_form import equal, normal_form
from derive.kernel.signs import Context
from derive.kernel.timebound import DEFAULT_SECONDS, DecisionTimeout, time_bound
from derive.kernel.verdict import Decision, Verdict, Witness
from derive.kernel.witness import search_point


def _check_facts(facts) -> tuple[Fact, ...]:
    out = []
    for f in facts:
        if not isinstance(f, Fact):
            raise InvalidClaim(f"{f!r} is not a fact: use hypothesis(), positive() or nonzero()")
        check_expr(f.expr, f"the fact {f.reason!r}")
        out.append(f)
    return tuple(out)


def context(lhs: sp.Expr, rhs: sp.Expr, facts: tuple[Fact, ...]) -> Context:
    """The facts and the guards of a claim; those with Σ also in normal form (so that a
    condition met while rewriting Σ matches them)."""
    raw: list[sp.Expr] = []
    for side in (lhs, rhs):
        raw.extend(guards(side))
    extra_facts = [Fact(nf, f.reason, f.relation, f.origin, f.uses) for f in facts
                   for nf in [_sum_form(f.expr)] if nf is not None]
    extra_guards = [nf for g in raw for nf in [_sum_form(g)] if nf is not None]
    return Context(facts + tuple(extra_facts), tuple(raw) + tuple(extra_guards))


@lru_cache(maxsize=1024)
def _sum_form(e: sp.Expr) -> sp.Expr | None:
    """The normal form of an expression with Σ (None when it has none or does not change)."""
    if not e.has(sp.Sum):
        return None
    try:
        nf, _ = normal_form(e, Context())
    except UnknownDomain:
        return None
    return nf if nf != e else None


def _prove(lhs, rhs, facts, ctx: Context | None = None
           ) -> tuple[bool, list[str], sp.Expr, Context]:
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        if getattr(lhs, "shape", None) != getattr(rhs, "shape", None):
            return False, ["shapes differ"], sp.nan, Context(facts)
        results = [_prove(a, b, facts) for a, b in zip(lhs, rhs)]
        rules = sorted({r for _, rs, _, _ in results for r in rs}) + ["entry by entry"]
        bad = next((nf for ok, _, nf, _ in results if not ok), sp.S.Zero)
        ctx = Context(facts)
        for *_, c in results:
            ctx.used |= c.used
            ctx.discharged |= c.discharged
        return all(ok for ok, *_ in results), rules, bad, ctx
    ctx = ctx if ctx is not None else context(lhs, rhs, facts)
    zero, rules, nf = equal(lhs, rhs, ctx)
    return zero, list(rules), nf, ctx


def _closed(*exprs: sp.Expr) -> bool:
    return not any(e.atoms(sp.Sum, AppliedUndef, sp.Indexed) for e in exprs)


def _search_interpretation(lhs, rhs, facts, interp: Interpretation, deadline) -> Witness | None:
    try:
        inst = write_out(lhs, rhs, facts, interp)
    except NotConcrete:
        return None
    found = search_point(inst, deadline, quick=True)
    if found is None:
        try:
            if equal(inst.lhs, inst.rhs)[0]:
                return None  # equal on this shape: no witness here
        except DecisionTimeout:
            raise
        except Exception:  # noqa: BLE001 — the check only saves time
            pass
        found = search_point(inst, deadline)
    if found is None:
        return None
    return confirm(lhs, rhs, facts, interp, dict(found.symbols))


def _refute(lhs, rhs, facts, deadline, family: Family | None,
            automatic_too: bool = True) -> Witness | None:
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        return None
    exprs = (lhs, rhs, *(f.expr for f in facts))
    shapes: Iterator[Interpretation]
    if _closed(*exprs):
        shapes = iter([Interpretation("")])
    else:
        shapes = automatic(lhs, rhs, facts) if automatic_too else iter(())
        if family is not None:  # the caller's shapes first, then the kernel's own
            shapes = chain((family.interpret(s) for s in
                            islice(family.shapes(), family.max_shapes)), shapes)
    for interp in shapes:
        deadline.check()
        found = _search_interpretation(lhs, rhs, facts, interp, deadline)
        if found is not None:
            return found
    return None


def decide(
    lhs: sp.Expr,
    rhs: sp.Expr,
    facts: Sequence[Fact] = (),
    seconds: float | None = DEFAULT_SECONDS,
    search: bool = True,
    family: Family | None = None,
) -> Decision:
    """Decide `lhs = rhs` for all values the symbols' assumptions and `facts` allow.
    Raises InvalidClaim for a claim that is not exact SymPy expressions."""
    lhs, rhs = check_expr(lhs, "the left side"), check_expr(rhs, "the right side")
    facts = _check_facts(facts)
    try:
        with time_bound(seconds) as deadline:
            if family is not None and search:  # the caller's shapes first: a refutation
                found = _refute(lhs, rhs, facts, deadline, family, automatic_too=False)
                if found is not None:  # cannot coexist with a proof, so order is free
                    return Decision(Verdict.REFUTED, "exact witness search", witness=found)
            zero, rules, nf, ctx = _prove(lhs, rhs, facts)
            used = tuple(f.reason for f in facts if f.reason in ctx.used)
            if zero:
                return Decision(Verdict.PROVED, " → ".join(rules), rules=tuple(rules),
                                facts=used, conditions=tuple(sorted(ctx.discharged)))
            if search:
                found = _refute(lhs, rhs, facts, deadline, family)
                if found is not None:
                    return Decision(Verdict.REFUTED, "exact witness search", witness=found)
            return Decision(Verdict.UNKNOWN, " → ".join(rules) or "no rule applies",
                            detail=f"normal form of the difference: {sp.sstr(nf)}"[:2000])
    except DecisionTimeout as exc:
        return Decision(Verdict.UNKNOWN, "time bound", detail=str(exc))
    except RecursionError:
        return Decision(Verdict.UNKNOWN, "too deep", detail="the expression is nested too deeply")
    except Exception as exc:  # noqa: BLE001 — a decision never ends in a traceback
        return Decision(Verdict.UNKNOWN, "internal limit",
                        detail=f"{type(exc).__name__}: {str(exc)[:300]}")


def decide_chain(
    start: sp.Expr,
    steps: Sequence[sp.Expr],
    facts: Sequence[Fact] = (),
    seconds: float | None = DEFAULT_SECONDS,
) -> list[Decision]:
    """Each link `previous = next` of a calc chain start = s₁ = … = end, decided with the facts
    and guards of the whole claim start = end (no witness search). A link is proved only if its
    new expression is also defined wherever start and end are: otherwise the chain could pass
    through a point where an intermediate step has no value, and prove nothing there."""
    start = check_expr(start, "the chain's start")
    steps = [check_expr(e, f"step {n}") for n, e in enumerate(steps, 1)]
    facts = _check_facts(facts)
    if not steps:
        return []
    out, previous = [], start
    try:
        with time_bound(seconds):
            claim = context(start, steps[-1], facts)
    except Exception as exc:  # noqa: BLE001
        return [Decision(Verdict.UNKNOWN, "internal limit", detail=f"{type(exc).__name__}: {exc}")
                for _ in steps]
    for n, expr in enumerate(steps, 1):
        out.append(_link(previous, expr, facts, claim, seconds, last=n == len(steps)))
        previous = expr
    return out


def _link(a, b, facts, claim: Context, seconds, last: bool) -> Decision:
    try:
        with time_bound(seconds):
            ctx = Context(claim.facts, claim.guards)
            zero, rules, nf, ctx = _prove(a, b, facts, ctx)
            if not zero:
                return Decision(Verdict.UNKNOWN, " → ".join(rules) or "no rule applies",
                                detail=f"normal form of the difference: {sp.sstr(nf)}"[:2000])
            if not last:
                missing = _undefined_somewhere(b, ctx)
                if missing is not None:
                    return Decision(Verdict.UNKNOWN, "definedness",
                                    detail=f"this step needs {missing} ≠ 0, which the claim's "
                                           f"assumptions do not give")
            used = tuple(f.reason for f in facts if f.reason in ctx.used)
            return Decision(Verdict.PROVED, " → ".join(rules), rules=tuple(rules), facts=used,
                            conditions=tuple(sorted(ctx.discharged)))
    except DecisionTimeout as exc:
        return Decision(Verdict.UNKNOWN, "time bound", detail=str(exc))
    except Exception as exc:  # noqa: BLE001
        return Decision(Verdict.UNKNOWN, "internal limit",
                        detail=f"{type(exc).__name__}: {str(exc)[:300]}")


def _undefined_somewhere(e: sp.Expr, ctx: Context) -> str | None:
    """A condition of `e`'s definedness that the context does not discharge, or None."""
    try:
        conds = conditions(e)
    except UnknownDomain as exc:
        return str(exc)
    for c in conds:
        if not ctx.nonzero(c):
            return sp.sstr(c)
    return None


def refute(lhs: sp.Expr, rhs: sp.Expr, family: Family | None = None,
           facts: Sequence[Fact] = (), seconds: float | None = DEFAULT_SECONDS) -> Decision:
    """Search the claim's interpretations (the family's, or automatic ones) for the first exact
    witness, confirmed on the claim's own sides and facts."""
    lhs, rhs = check_expr(lhs, "the left side"), check_expr(rhs, "the right side")
    facts = _check_facts(facts)
    try:
        with time_bound(seconds) as deadline:
            found = _refute(lhs, rhs, facts, deadline, family)
    except DecisionTimeout as exc:
        return Decision(Verdict.UNKNOWN, "time bound", detail=str(exc))
    except Exception as exc:  # noqa: BLE001
        return Decision(Verdict.UNKNOWN, "internal limit",
                        detail=f"{type(exc).__name__}: {str(exc)[:300]}")
    if found is None:
        return Decision(Verdict.UNKNOWN, "exact witness search",
                        detail="no witness among the shapes and assignments tried")
    return Decision(Verdict.REFUTED, "exact witness search", witness=found)


def refute_schema(schema: Schema, seconds: float | None = DEFAULT_SECONDS) -> Decision:
    """The first witness over a schema's shapes, each checked on that shape's own sides."""
    try:
        with time_bound(seconds) as deadline:
            for shape in islice(schema.shapes(), schema.max_shapes):
                inst = schema.sides(shape)
                found = search_point(inst, deadline, quick=True)
                if found is None and not equal(inst.lhs, inst.rhs)[0]:
                    found = search_point(inst, deadline)
                if found is not None:
                    return Decision(Verdict.REFUTED, "exact witness search", witness=found)
    except DecisionTimeout as exc:
        return Decision(Verdict.UNKNOWN, "time bound", detail=str(exc))
    except Exception as exc:  # noqa: BLE001
        return Decision(Verdict.UNKNOWN, "internal limit",
                        detail=f"{type(exc).__name__}: {str(exc)[:300]}")
    return Decision(Verdict.UNKNOWN, "exact witness search",
                    detail="no witness among the shapes and assignments tried")
