"""The proof stage of a decision: the claim's context (its facts, the conditions of its domain,
its guards), the normal form of its difference, and proofs in cases.

A proof may assume every condition of the claim's domain (definedness.domain of both sides
and of the facts): the claim says nothing where one fails. It splits on the sign of an
expression the context leaves open (a branch's argument, a derivative's kink, a factor under a
root or a logarithm): every subexpression is real wherever the claim is defined, so every
point of the domain is in one of the cases u > 0, u < 0, u = 0. A case that contradicts the
facts or the domain is empty, and so is one at whose every point a derivative of the claim
does not exist; values the facts pin to 0 are given.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import sympy as sp

from derive.kernel.algebra import linear_roots
from derive.kernel.consequences import consequences
from derive.kernel.definedness import (
    DOMAIN_REASON,
    UnknownDomain,
    domain,
    domain_fact,
    guards,
    kinks,
)
from derive.kernel.facts import Fact, Relation, hypothesis, positive
from derive.kernel.kinks import NoDerivative
from derive.kernel.normal_form import equal, normal_form, take_derivatives
from derive.kernel.signs import NEG, NONNEG, NONPOS, POS, ZERO, Context
from derive.kernel.witness import satisfies


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
    extra_facts = [Fact(nf, f.reason, f.relation, f.origin, f.uses, f.over) for f in facts
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


def domain_used(ctx: Context) -> tuple[str, ...]:
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


def prove_claim(lhs, rhs, facts, ctx: Context | None = None
           ) -> tuple[bool, list[str], sp.Expr, Context]:
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        if getattr(lhs, "shape", None) != getattr(rhs, "shape", None):
            return False, ["shapes differ"], sp.nan, Context(facts)
        results = [prove_claim(a, b, facts) for a, b in zip(lhs, rhs)]
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
        elif isinstance(x, sp.KroneckerDelta):  # δ(p, q): the cases p = q and p ≠ q
            branches.append(x.args[0] - x.args[1])
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


def prove_by_cases(lhs, rhs, facts) -> tuple[list[str], Context] | None:
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
    carried = 0  # cases with a point of the domain: at least one must be proved
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
        carried += 1
        rules |= set(case_rules)
        merged.used |= ctx.used
        merged.discharged |= ctx.discharged
    if not carried:  # every case without a point: nothing was proved (decide.VACUOUS)
        return None
    rules.add("cases on the sign of " + ", ".join(sp.sstr(u) for u in open_args))
    return sorted(rules), merged
