"""Deciding `lhs = rhs`: a symbolic proof first, then an exact witness, else `unknown`.

Semantics (definedness.py): the claim is that both sides are equal at every point of the
symbols' domains that satisfies the facts and at which every subexpression of both sides is
real.

1. Validate: exact SymPy expressions only (a float is an invalid claim, not a rounding).
2. Prove (proof.py): the difference's normal form (normal_form.py) is 0, every step's side
   condition discharged from the assumptions, the facts and the domain's conditions; else
   in cases.
3. Refute: on the claim itself when it is closed, else on interpretations of it (the caller's
   family, or automatic small shapes with undefined functions as free values), search points in
   the witness order, and confirm a candidate by evaluating the claim's own sides and facts.
4. Otherwise `unknown`, with the reason; past the time bound, or on any internal error, too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain, islice

import sympy as sp

from derive.kernel.binders import rename_bound
from derive.kernel.claims import (
    ContradictoryFacts,
    InvalidClaim,
    NotSupported,
    check_bounds,
    check_expr,
)
from derive.kernel.constants import known_terms
from derive.kernel.definedness import (
    UnknownDomain,
    conditions,
    describe_condition,
    guards,
)
from derive.kernel.degree import refute_by_degree
from derive.kernel.evaluate import NotConcrete
from derive.kernel.facts import Fact, Relation
from derive.kernel.integers import integer_bounds, integer_exponents, parity, substituted
from derive.kernel.interpret import (
    Family,
    Interpretation,
    Schema,
    automatic,
    closed,
    confirm,
    write_out,
)
from derive.kernel.linear import contradicting
from derive.kernel.normal_form import equal
from derive.kernel.proof import context, domain_used, prove_by_cases, prove_claim
from derive.kernel.reader import NotWritable, reader_text
from derive.kernel.signs import Context
from derive.kernel.timebound import DEFAULT_SECONDS, DecisionTimeout, time_bound
from derive.kernel.verdict import Decision, Verdict, Witness
from derive.kernel.witness import search_point, solve_equalities


def _internal(exc: BaseException) -> str:
    """What `unknown` says when an internal step failed: in words, never the exception's
    class and SymPy text (ValueError: Can't calculate derivative wrt 0.)."""
    return ("an internal step of the kernel failed on this claim, so it is not decided: a "
            "limit of derive, not a verdict (please report the claim)")


def _check_facts(facts) -> tuple[Fact, ...]:
    if isinstance(facts, Fact) or not isinstance(facts, (list, tuple)):
        raise InvalidClaim("facts are a list or tuple of facts (hypothesis(), positive(), "
                           "nonzero())")
    out = []
    for f in facts:
        if not isinstance(f, Fact):
            raise InvalidClaim(f"{f!r} is not a fact: use hypothesis(), positive() or nonzero()")
        check_expr(f.expr, f"the fact {f.reason!r}")
        out.append(f)
    return tuple(out)


def _prepare(lhs, rhs, facts):
    """The claim validated, within bounds, and with its bound variables renamed apart
    (binders.py); NotSupported or RecursionError for what the kernel does not take."""
    facts = _prepare_facts(facts)
    lhs, rhs = check_expr(lhs, "the left side"), check_expr(rhs, "the right side")
    lhs, rhs = known_terms(lhs), known_terms(rhs)  # relu as max(x, 0), sigmoid with exp, …
    for e, what in ((lhs, "the left side"), (rhs, "the right side")):
        check_bounds(e, what)
    return parity(_renamed(lhs)), parity(_renamed(rhs)), facts


def _prepare_facts(facts) -> tuple[Fact, ...]:
    """Facts validated, renamed apart, with the integer bounds they force (integers.py), and
    refused when they contradict each other or the assumptions: linearly over their terms
    (linear.py), or by the sign rules with the facts (a fact whose expression is left no
    sign)."""
    facts = _check_facts(facts)
    for f in facts:
        check_bounds(f.expr, f"the fact {f.reason!r}")
    facts = integer_bounds(facts)
    # as written, before renaming: the N of two facts is then one unknown of the elimination;
    # a claim's own domain (origin "domain") may be empty without making the facts invalid
    order = [f for f in facts if f.relation is not Relation.NONZERO and f.origin != "domain"]
    found = contradicting([(f.expr, f.relation is Relation.POSITIVE) for f in order])
    facts = tuple(Fact(parity(rename_bound(known_terms(f.expr))), f.reason, f.relation,
                       f.origin, f.uses, f.over)
                  for f in facts)
    if found is not None:
        reasons = tuple(order[n].reason for n in found)
    elif _signs_contradict(facts):
        keep = list(facts)
        for f in facts:  # the facts the contradiction needs, each of them
            trial = [g for g in keep if g is not f]
            if _signs_contradict(trial):
                keep = trial
        reasons = tuple(f.reason for f in keep)
    else:
        return facts
    shown = ", ".join(repr(r) for r in reasons)
    raise ContradictoryFacts(
        f"the facts {shown} contradict each other or the symbols' assumptions: every claim "
        f"would follow" if len(reasons) > 1 else f"the fact {shown} contradicts the symbols' "
        f"assumptions: every claim would follow", reasons)


def _signs_contradict(facts: Sequence[Fact]) -> bool:
    """Whether the kernel's sign rules, with the facts, leave some fact's expression no sign
    at all (x·y > 0 with x > 0 and y < 0; −|w| > 0): no point satisfies them all."""
    facts = [f for f in facts if f.origin != "domain"]
    ctx = Context(tuple(facts))
    return any(ctx.signs(f.expr) == frozenset() for f in facts)


def _renamed(e):
    return e.applyfunc(rename_bound) if isinstance(e, sp.MatrixBase) else rename_bound(e)


def _search_interpretation(lhs, rhs, facts, interp: Interpretation, deadline) -> Witness | None:
    try:
        inst = write_out(lhs, rhs, facts, interp)
    except NotConcrete:
        return None
    inst = solve_equalities(inst)  # each row of Y summing to 1: Y[r, C] from the others
    if inst is None:
        return None  # the facts' equalities contradict each other on this shape: no point
    found = search_point(inst, deadline, quick=True)
    if found is None and interp.quick:
        return None
    if found is None:
        try:  # a witness is away from every kink of the shape (evaluate.value_at): nonzero
            lhs_here, rhs_here, kinks_here = inst.sides_solved()  # where the equalities hold
            if equal(lhs_here, rhs_here, Context(guards=tuple(kinks_here)))[0]:
                return None  # equal on this shape wherever it is defined: no witness here
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
    if closed(exprs):
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


def _refute_instead(lhs, rhs, facts, deadline, family, search: bool,
                    refused: NotSupported) -> Decision:
    """A claim whose proof is beyond a bound (an expansion of too many terms): refuted when the
    witness search finds a point, else `unknown` with the bound that refused it."""
    found = _refute(lhs, rhs, facts, deadline, family) if search else None
    if found is not None:
        return Decision(Verdict.REFUTED, "exact witness search", witness=found)
    return Decision(Verdict.UNKNOWN, "not supported", detail=str(refused))


def _refute_by_degree(lhs, rhs, facts, nf, deadline) -> Witness | None:
    """A witness on the grid of the difference's degrees (degree.py), when its normal form is
    a rational function of the claim's symbols."""
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        return None
    found_guards = [g for side in (lhs, rhs) for g in guards(side)]
    return refute_by_degree(lhs, rhs, facts, nf, found_guards, deadline)


LEFT_OVER_CHARS = 200
"""Longest normal form an `unknown` verdict's detail writes (in the reader form)."""


VACUOUS = frozenset({"no point of the domain", "no derivative at a kink"})
"""Rules that prove a claim only because it has no point at all: `relu′(0) = 7` given u = 0
(d relu(u)/du exists nowhere there) would be proved as well as `relu′(0) = 0`. A proof made of
these alone is no proof (`unknown`); within cases, the other cases must carry it."""


def left_over(nf: sp.Expr) -> str:
    """What an `unknown` verdict leaves, for the statement's author: the normal form of the
    difference as a reader writes it (x·(w·x − y), not SymPy's x*(w*x - y)) when it is short,
    else its size alone; never SymPy's text (issue 34)."""
    try:
        text = reader_text(nf, lambda name, index: f"{name}_{index}" if index else name)
    except (NotWritable, RecursionError):
        return "the normal form of the difference is not 0 (it has no short written form)"
    if len(text) > LEFT_OVER_CHARS:
        return (f"the normal form of the difference is not 0 (a {len(text):,}-character "
                "expression, not shown)")
    return f"normal form of the difference: {text}"


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
    try:
        lhs, rhs, facts = _prepare(lhs, rhs, facts)
    except NotSupported as exc:
        return Decision(Verdict.UNKNOWN, "not supported", detail=str(exc))
    except RecursionError:
        return Decision(Verdict.UNKNOWN, "too deep", detail="the expression is nested too deeply")
    try:
        with time_bound(seconds) as deadline:
            if family is not None and search:  # the caller's shapes first: a refutation
                found = _refute(lhs, rhs, facts, deadline, family, automatic_too=False)
                if found is not None:  # cannot coexist with a proof, so order is free
                    return Decision(Verdict.REFUTED, "exact witness search", witness=found)
            # the proof is of the claim with the equalities its facts force substituted
            integers = integer_exponents(lhs, rhs, facts)
            *claim, equal_by = substituted(*integers)
            try:
                zero, rules, nf, ctx = prove_claim(*claim)
                if not zero and not isinstance(lhs, sp.MatrixBase):
                    cases = prove_by_cases(*claim)
                    if cases is not None:
                        zero, rules, ctx = True, cases[0], cases[1]
            except NotSupported as exc:  # beyond a bound of the proof: a witness may be cheap
                return _refute_instead(lhs, rhs, facts, deadline, family, search, exc)
            if zero and set(rules) <= VACUOUS:  # no point where the sides have a value
                return Decision(Verdict.UNKNOWN, rules[0], detail=(
                    "the sides have no value at any point the facts allow (" + rules[0]
                    + "): the claim says nothing there, so there is nothing to prove; state "
                    "it where its sides are defined"))
            if zero and equal_by:
                rules = ["equalities from the facts", *rules]
                ctx.used |= set(equal_by)
            if zero and integers[:2] != (lhs, rhs):
                rules = ["integer exponents of negative numbers", *rules]
            used = tuple(dict.fromkeys(f.reason for f in facts if f.reason in ctx.used
                                       and f.origin != "domain"))
            if zero:
                return Decision(Verdict.PROVED, " → ".join(rules), rules=tuple(rules),
                                facts=used, conditions=tuple(sorted(ctx.discharged))
                                + domain_used(ctx))
            if search:
                found = _refute(lhs, rhs, facts, deadline, family)
                if found is None:
                    found = _refute_by_degree(lhs, rhs, facts, nf, deadline)
                if found is not None:
                    return Decision(Verdict.REFUTED, "exact witness search", witness=found)
            return Decision(Verdict.UNKNOWN, " → ".join(rules) or "no rule applies",
                            detail=left_over(nf), residual=nf)
    except DecisionTimeout as exc:
        return Decision(Verdict.UNKNOWN, "time bound", detail=str(exc))
    except NotSupported as exc:
        return Decision(Verdict.UNKNOWN, "not supported", detail=str(exc))
    except RecursionError:
        return Decision(Verdict.UNKNOWN, "too deep", detail="the expression is nested too deeply")
    except Exception as exc:  # noqa: BLE001 — a decision never ends in a traceback
        return Decision(Verdict.UNKNOWN, "internal limit",
                        detail=_internal(exc))


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
    steps = list(steps)
    if not steps:
        return []
    try:
        facts = _prepare_facts(facts)
        start, steps = _prepare(start, steps[0], ())[0], [_prepare(e, e, ())[0] for e in steps]
    except (NotSupported, RecursionError) as exc:
        detail = str(exc) if isinstance(exc, NotSupported) else "nested too deeply"
        return [Decision(Verdict.UNKNOWN, "not supported", detail=detail) for _ in steps]
    out, previous = [], start
    try:
        with time_bound(seconds):
            claim = context(start, steps[-1], facts)
    except Exception as exc:  # noqa: BLE001
        return [Decision(Verdict.UNKNOWN, "internal limit", detail=_internal(exc))
                for _ in steps]
    for n, expr in enumerate(steps, 1):
        out.append(_link(previous, expr, facts, claim, seconds, last=n == len(steps)))
        previous = expr
    return out


def _link(a, b, facts, claim: Context, seconds, last: bool) -> Decision:
    try:
        with time_bound(seconds):
            ctx = Context(claim.facts, claim.guards)
            zero, rules, nf, ctx = prove_claim(a, b, facts, ctx)
            if "no derivative at a kink" in rules:  # maybe the derivative of a step, which
                zero = False  # must be defined wherever the claim is: not a proof of the claim
            if not zero:
                return Decision(Verdict.UNKNOWN, " → ".join(rules) or "no rule applies",
                                detail=left_over(nf))
            if not last:
                missing = _undefined_somewhere(b, ctx)
                if missing is not None:
                    return Decision(Verdict.UNKNOWN, "definedness",
                                    detail=f"this step needs {missing}, which the claim's "
                                           f"assumptions do not give")
            used = tuple(dict.fromkeys(f.reason for f in facts if f.reason in ctx.used
                                       and f.origin != "domain"))
            return Decision(Verdict.PROVED, " → ".join(rules), rules=tuple(rules), facts=used,
                            conditions=tuple(sorted(ctx.discharged)) + domain_used(ctx))
    except DecisionTimeout as exc:
        return Decision(Verdict.UNKNOWN, "time bound", detail=str(exc))
    except Exception as exc:  # noqa: BLE001
        return Decision(Verdict.UNKNOWN, "internal limit",
                        detail=_internal(exc))


def _undefined_somewhere(e: sp.Expr, ctx: Context) -> str | None:
    """A condition of `e`'s definedness that the context does not discharge, or None."""
    try:
        conds = conditions(e)
    except UnknownDomain as exc:
        return str(exc)
    for c, relation in conds:
        if not ctx.holds(c, relation):
            return describe_condition(c, relation)
    return None


def refute(lhs: sp.Expr, rhs: sp.Expr, family: Family | None = None,
           facts: Sequence[Fact] = (), seconds: float | None = DEFAULT_SECONDS) -> Decision:
    """Search the claim's interpretations (the family's, or automatic ones) for the first exact
    witness, confirmed on the claim's own sides and facts."""
    try:
        lhs, rhs, facts = _prepare(lhs, rhs, facts)
    except (NotSupported, RecursionError) as exc:
        return Decision(Verdict.UNKNOWN, "not supported", detail=str(exc) or "nested too deeply")
    try:
        with time_bound(seconds) as deadline:
            found = _refute(lhs, rhs, facts, deadline, family)
    except DecisionTimeout as exc:
        return Decision(Verdict.UNKNOWN, "time bound", detail=str(exc))
    except Exception as exc:  # noqa: BLE001
        return Decision(Verdict.UNKNOWN, "internal limit",
                        detail=_internal(exc))
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
                        detail=_internal(exc))
    return Decision(Verdict.UNKNOWN, "exact witness search",
                    detail="no witness among the shapes and assignments tried")
