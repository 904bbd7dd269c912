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

from derive.kernel.algebra import linear_roots
from derive.kernel.binders import rename_bound
from derive.kernel.claims import (
    ContradictoryFacts,
    InvalidClaim,
    NotSupported,
    check_bounds,
    check_expr,
)
from derive.kernel.consequences import consequences
from derive.kernel.definedness import (
    DOMAIN_REASON,
    UnknownDomain,
    conditions,
    describe_condition,
    domain,
    domain_fact,
    guards,
    kinks,
)
from derive.kernel.degree import refute_by_degree
from derive.kernel.evaluate import NotConcrete
from derive.kernel.facts import Fact, Relation, hypothesis, positive
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
from derive.kernel.kinks import NoDerivative
from derive.kernel.linear import contradicting
from derive.kernel.normal_form import equal, normal_form, take_derivatives
from derive.kernel.signs import NEG, NONNEG, NONPOS, POS, ZERO, Context
from derive.kernel.timebound import DEFAULT_SECONDS, DecisionTimeout, time_bound
from derive.kernel.verdict import Decision, Verdict, Witness
from derive.kernel.witness import satisfies, search_point


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
    facts = tuple(Fact(parity(rename_bound(f.expr)), f.reason, f.relation, f.origin, f.uses)
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


def domain_facts(lhs: sp.Expr, rhs: sp.Expr, facts: Sequence[Fact]) -> tuple[Fact, ...]:
    """The conditions of the claim's domain (definedness.domain of both sides and of every
    fact) as facts a proof may assume: the claim says nothing where they fail. Conditions ≠ 0
    are the guards; these are the ≥ 0 and > 0 ones (roots, logarithms)."""
    out: list[Fact] = []
    seen = set()
    for e in (lhs, rhs, *(f.expr for f in facts)):
        for expr, relation in domain(e):
            if relation is Relation.NONZERO or (expr, relation) in seen:
                continue
            seen.add((expr, relation))
            out.append(domain_fact(expr, relation))
    return tuple(out)


def context(lhs: sp.Expr, rhs: sp.Expr, facts: tuple[Fact, ...]) -> Context:
    """The facts, the domain's conditions and the guards of a claim; those with Σ also in
    normal form (so that a condition met while rewriting Σ matches them)."""
    raw: list[sp.Expr] = []
    for side in (lhs, rhs, *(f.expr for f in facts)):
        raw.extend(guards(side))
    facts = tuple(facts) + domain_facts(lhs, rhs, facts)
    facts += consequences(facts, Context(facts, tuple(raw)))
    extra_facts = [Fact(nf, f.reason, f.relation, f.origin, f.uses) for f in facts
                   for nf in [_sum_form(f.expr)] if nf is not None]
    extra_guards = [nf for g in raw for nf in [_sum_form(g)] if nf is not None]
    return Context(facts + tuple(extra_facts), tuple(raw) + tuple(extra_guards))


def _pins(lhs, rhs, ctx: Context) -> list[tuple[Fact, Fact]]:
    """u = 0 for each symbol, or linear fact expression, that the context leaves no other
    sign than 0 (x ≥ 0 from √x and x ≤ 0 from √(−x)): as the two facts of a case u = 0, so
    that _case_claim gives the symbol its value."""
    out, seen = [], set()
    candidates = sorted(lhs.free_symbols | rhs.free_symbols, key=sp.default_sort_key) + [
        f.expr for f in ctx.facts if f.relation is not Relation.NONZERO]
    for u in candidates:
        if u in seen or u.is_number or not (isinstance(u, sp.Symbol) or u.is_Add):
            continue
        seen.add(u)
        scratch = Context(ctx.facts, ctx.guards)  # used only when it pins u
        if scratch.signs(u) == ZERO and _solve_zero(u) is not None:
            ctx.used |= scratch.used
            what = f"{sp.sstr(u)} = 0 by the facts and the domain"
            out.append((hypothesis(u, what), hypothesis(-u, what)))
    return out


def _pinned(claim, ctx: Context, rules: set[str]):
    """(claim, context) with every value the facts and the domain pin down given (`_pins`);
    (None, ctx) when such a value is outside a symbol's domain."""
    for _ in range(3):
        signs = _signs_of_minus_one(claim, ctx)
        if signs:
            rules.add("values the facts pin down")
            claim = tuple(e.xreplace(signs) for e in claim[:2]) + (tuple(
                Fact(f.expr.xreplace(signs), f.reason, f.relation, f.origin, f.uses)
                for f in claim[2]),)
            ctx = context(*claim)
        pins = _pins(claim[0], claim[1], ctx)
        if not pins:
            break
        found = _case_claim(*claim, pins, rules)
        if found is None:
            return None, ctx
        if found[:2] == claim[:2]:
            break
        rules.add("values the facts pin down")
        claim, ctx = found, context(*found)
    return claim, ctx


def _signs_of_minus_one(claim, ctx: Context) -> dict:
    """{(−1)^e: ±1} for each power of −1 with an integer exponent whose sign the context
    fixes: it is 1 or −1, so its sign is its value."""
    out = {}
    for p in set().union(*(e.atoms(sp.Pow) for e in claim[:2])):
        if p.base == -1 and p.exp.is_integer and not p.exp.is_number:
            s = ctx.signs(p)
            if s in (POS, NEG):
                out[p] = sp.Integer(next(iter(s)))
    return out


def _domain_used(ctx: Context) -> tuple[str, ...]:
    """The domain's conditions a proof relied on, as `conditions` lists them."""
    return tuple(sorted(r[len(DOMAIN_REASON):] for r in ctx.used if r.startswith(DOMAIN_REASON)))


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
    if _empty(ctx):  # the domain contradicts the assumptions: the claim says nothing
        return True, ["no point of the domain"], sp.S.Zero, ctx
    pinned: set[str] = set()
    try:
        claim, inner = _pinned((lhs, rhs, facts), ctx, pinned)
        if claim is None:  # a pinned value outside a symbol's domain: no point at all
            return True, ["no point of the domain"], sp.S.Zero, ctx
        if pinned:
            inner.used |= ctx.used
            lhs, rhs, ctx = claim[0], claim[1], inner
        zero, rules, nf = equal(lhs, rhs, ctx)
    except NoDerivative:  # at no point of the facts does the claim's derivative exist
        return True, ["no derivative at a kink"], sp.S.Zero, ctx
    return zero, list(rules) + sorted(pinned), nf, ctx


MAX_CASE_SPLITS = 2
"""Expressions whose sign a proof may split on (3 cases each)."""


def _case_arguments(e: sp.Expr, ctx: Context) -> list[sp.Expr]:
    """The expressions whose sign would settle a rewrite of `e`, in order, those the context
    leaves open: the arguments of |·|, sign, Heaviside, max, min and Piecewise comparisons
    outside Σ and Subs (where they may be bound); the kinks of derivatives; the factors of
    products under a root, a real power or a logarithm (√(k/m) splits on k and m). Every
    subexpression is real wherever the claim is defined, so each has one of the three signs."""
    branches: list[sp.Expr] = []
    factors: list[sp.Expr] = []

    def walk(x):
        if not isinstance(x, sp.Basic) or x.is_Atom or isinstance(x, (sp.Sum, sp.Subs)):
            return
        if isinstance(x, sp.Derivative):
            variables = tuple(v for v, _ in x.variable_count)
            found = kinks(x.expr, variables) or []
            branches.extend(k for k in found if k.has(*variables))
            return
        if isinstance(x, (sp.Abs, sp.sign, sp.Heaviside)):
            branches.append(x.args[0])
        elif isinstance(x, (sp.Max, sp.Min)) and len(x.args) == 2:
            branches.append(x.args[0] - x.args[1])
        elif isinstance(x, sp.Piecewise):
            for _, cond in x.args:
                if isinstance(cond, sp.core.relational.Relational):
                    branches.append(cond.lhs - cond.rhs)
        elif (x.is_Pow and not x.exp.is_Integer) or isinstance(x, sp.log):
            inner = x.base if x.is_Pow else x.args[0]
            for f in sp.Mul.make_args(inner):
                while f.is_Pow and (not f.exp.is_Integer or f.exp % 2 == 1):
                    f = f.base
                if not f.is_number and (f is not inner or inner.is_Pow):
                    factors.append(f)
        for a in x.args:
            walk(a)

    walk(e)
    unique: list[sp.Expr] = []
    for u, branch in [(u, True) for u in branches] + [(u, False) for u in factors]:
        u = sp.expand(u)
        if not u.free_symbols or any(u == v or u == -v for v, _ in unique):
            continue
        s = ctx.signs(u)
        if s is None or not (s <= NONNEG or s <= NONPOS) or (branch and len(s) > 1):
            unique.append((u, branch))
    return unique


def _split_orders(found: list[tuple[sp.Expr, bool]]) -> list[list[sp.Expr]]:
    """The expressions to split on, at most MAX_CASE_SPLITS: branches first, then with the
    factors under roots and logarithms first (once their signs are known, both sides may
    rewrite to one form, and the branches around them need no split)."""
    first = [u for u, _ in found][:MAX_CASE_SPLITS]
    other = ([u for u, branch in found if not branch]
             + [u for u, branch in found if branch])[:MAX_CASE_SPLITS]
    return [first] if other == first else [first, other]


def _empty(ctx: Context) -> bool:
    """Whether the context's facts and guards leave no point: some fact's or guard's
    expression has no sign left (the case contradicts the claim's domain or facts). The facts
    this consults count as used only when it is so."""
    scratch = Context(ctx.facts, ctx.guards)
    empty = any(scratch.signs(f.expr) == frozenset() for f in ctx.facts) or any(
        scratch.signs(g) == frozenset() for g in ctx.guards)
    if empty:
        ctx.used |= scratch.used
    return empty


def _solve_zero(u: sp.Expr, avoid: frozenset = frozenset()) -> dict | None:
    """{s: value} with u = 0 exactly when s = value, for a symbol s in which u is linear with a
    constant coefficient (None otherwise); never a symbol of `avoid`."""
    return next(({s: v} for s, v in linear_roots(u) if s not in avoid), None)


def _case_claim(lhs, rhs, facts, case, rules: set[str] | None = None):
    """(lhs, rhs, facts) in one case: its facts added, and each u = 0 solved for a symbol of u
    where u is linear in it (None when that value is outside the symbol's domain). A symbol is
    given a value inside a derivative or Subs only once the derivatives are taken: replacing y
    by x in ∂(x·y)/∂x would differentiate x², and a Subs binds its variables."""
    facts = facts + tuple(f for group in case for f in group)
    for group in case:
        if len(group) != 2:
            continue
        bound = _bound_symbols((lhs, rhs, *(f.expr for f in facts)))
        sub = _solve_zero(group[0].expr, bound)
        if sub is not None and any(v.free_symbols & bound for v in sub.values()):
            sub = None
        if sub is None:
            sub = _solve_zero(group[0].expr)
            taken = [_after_derivatives(e, facts, rules) for e in (lhs, rhs)] if sub else [None]
            if any(t is None for t in taken) or _bound_symbols(
                    tuple(f.expr for f in facts)):
                continue  # u = 0 stays as the case's two facts
            lhs, rhs = taken  # a derivative's variable gets its value once they are taken
        if any(v.is_number and not satisfies(k.assumptions0, v) for k, v in sub.items()):
            return None
        lhs, rhs = lhs.xreplace(sub), rhs.xreplace(sub)
        facts = tuple(Fact(f.expr.xreplace(sub), f.reason, f.relation, f.origin, f.uses)
                      for f in facts)
    return lhs, rhs, facts


def _bound_symbols(exprs) -> frozenset:
    """The variables of every derivative and Subs in `exprs`."""
    return frozenset(v for e in exprs for d in e.atoms(sp.Derivative, sp.Subs)
                     for v in d.variables)


def _after_derivatives(e: sp.Expr, facts: tuple[Fact, ...],
                       rules: set[str] | None = None) -> sp.Expr | None:
    """`e` with its derivatives taken under the facts (NoDerivative where none exists); None
    when one is left untaken or one of an undefined function remains (its variable could not
    then be given a value)."""
    ctx = context(e, e, facts)
    taken = take_derivatives(e, ctx, rules if rules is not None else set())
    return None if taken.atoms(sp.Derivative, sp.Subs) else taken


def _prove_by_cases(lhs, rhs, facts) -> tuple[list[str], Context] | None:
    """A proof in cases: for the first expressions u whose sign the claim's facts and domain
    leave open (`_case_arguments`), the claim proved under u > 0, u < 0 and u = 0 each. A case
    that contradicts the facts or the domain is empty, and so is one at whose every point a
    derivative of the claim does not exist."""
    whole = context(lhs, rhs, facts)
    for open_args in _split_orders(_case_arguments(lhs - rhs, whole)):
        found = _prove_in_cases(lhs, rhs, facts, whole, open_args)
        if found is not None:
            return found
    return None


def _prove_in_cases(lhs, rhs, facts, whole: Context, open_args: list[sp.Expr]
                    ) -> tuple[list[str], Context] | None:
    """The claim proved under u > 0, u < 0 and u = 0 for each u of `open_args`, or None."""
    if not open_args:
        return None
    known = tuple(facts) + domain_facts(lhs, rhs, facts)
    rules: set[str] = set()
    merged = Context(facts)
    cases = [[]]
    for u in open_args:
        what = sp.sstr(u)
        cases = [c + [extra] for c in cases for extra in (
            (positive(u, f"case {what} > 0"),),
            (positive(-u, f"case {what} < 0"),),
            (hypothesis(u, f"case {what} = 0"), hypothesis(-u, f"case {what} = 0")))]
    for case in cases:
        extra = tuple(f for group in case for f in group)
        if _empty(Context(known + extra, whole.guards)):
            continue  # no point of the domain is in this case
        case_rules: set[str] = set()
        try:
            claim = _case_claim(lhs, rhs, known, case, case_rules)
            if claim is None:
                continue
            ctx = context(*claim)
            claim, ctx = _pinned(claim, ctx, case_rules)
            if claim is None or _empty(ctx):
                continue
            zero, more, _ = equal(claim[0], claim[1], ctx)
        except NoDerivative:
            rules.add("no derivative at a kink")
            continue
        case_rules |= set(more)
        if not zero:
            return None
        rules |= set(case_rules)
        merged.used |= ctx.used
        merged.discharged |= ctx.discharged
    rules.add("cases on the sign of " + ", ".join(sp.sstr(u) for u in open_args))
    return sorted(rules), merged


def _search_interpretation(lhs, rhs, facts, interp: Interpretation, deadline) -> Witness | None:
    try:
        inst = write_out(lhs, rhs, facts, interp)
    except NotConcrete:
        return None
    found = search_point(inst, deadline, quick=True)
    if found is None and interp.quick:
        return None
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
                zero, rules, nf, ctx = _prove(*claim)
                if not zero and not isinstance(lhs, sp.MatrixBase):
                    cases = _prove_by_cases(*claim)
                    if cases is not None:
                        zero, rules, ctx = True, cases[0], cases[1]
            except NotSupported as exc:  # beyond a bound of the proof: a witness may be cheap
                return _refute_instead(lhs, rhs, facts, deadline, family, search, exc)
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
                                + _domain_used(ctx))
            if search:
                found = _refute(lhs, rhs, facts, deadline, family)
                if found is None:
                    found = _refute_by_degree(lhs, rhs, facts, nf, deadline)
                if found is not None:
                    return Decision(Verdict.REFUTED, "exact witness search", witness=found)
            return Decision(Verdict.UNKNOWN, " → ".join(rules) or "no rule applies",
                            detail=f"normal form of the difference: {sp.sstr(nf)}"[:2000])
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
            zero, rules, nf, ctx = _prove(a, b, facts, ctx)
            if "no derivative at a kink" in rules:  # maybe the derivative of a step, which
                zero = False  # must be defined wherever the claim is: not a proof of the claim
            if not zero:
                return Decision(Verdict.UNKNOWN, " → ".join(rules) or "no rule applies",
                                detail=f"normal form of the difference: {sp.sstr(nf)}"[:2000])
            if not last:
                missing = _undefined_somewhere(b, ctx)
                if missing is not None:
                    return Decision(Verdict.UNKNOWN, "definedness",
                                    detail=f"this step needs {missing}, which the claim's "
                                           f"assumptions do not give")
            used = tuple(dict.fromkeys(f.reason for f in facts if f.reason in ctx.used
                                       and f.origin != "domain"))
            return Decision(Verdict.PROVED, " → ".join(rules), rules=tuple(rules), facts=used,
                            conditions=tuple(sorted(ctx.discharged)) + _domain_used(ctx))
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
