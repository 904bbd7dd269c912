"""The normal form in which an identity's difference becomes 0, and the proof it gives.

Steps, each an identity wherever the claim's sides are defined (the conditions that makes so
are discharged from the symbols' assumptions, the facts and the guards, or the step is skipped):

1. Derivatives are taken by `sympy.diff`, innermost first, only where the expression is
   differentiable: every kink (|u|, max/min, a Piecewise boundary, sign, Heaviside) must be
   known to be away (u ≠ 0); otherwise the derivative stays an opaque atom.
2. Branches of Min, Max, Abs, sign, Heaviside and Piecewise are chosen by the facts
   (branches.py), outside derivatives and respecting bound indices.
3. Σ is rewritten (sums.py): linearity, re-indexing, checked closed forms, prefix sums,
   exchange of nested sums, prefix offsets.
4. x^(c + r) = x^c·x^r where x ≠ 0 is known.
5. Rational normal form: numerator over a common denominator, expanded; logs of rationals split
   over primes; constants with radicals decided by their minimal polynomials (algebra.py).
6. Only when that is not 0: sign(u) = |u|/u where u ≠ 0 is known (signs_as_quotients), and
   the rational normal form again.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp
from sympy.core.function import AppliedUndef

from derive.kernel.algebra import rational_zero
from derive.kernel.branches import in_range, resolve_branches
from derive.kernel.definedness import depends, node_kinks, unwrapped
from derive.kernel.facts import Relation
from derive.kernel.kinks import NoDerivative, derivative_at_kink, same_up_to_sign
from derive.kernel.prefix import Prefix
from derive.kernel.signs import ZERO, Context
from derive.kernel.sums import (
    DELTA,
    canon_args,
    relate_offsets,
    split_powers,
    sums_normal_form,
)


def take_derivatives(e: sp.Expr, ctx: Context, rules: set[str]) -> sp.Expr:
    """Every Derivative and Subs evaluated, innermost first, where no kink is in the way."""
    if not isinstance(e, sp.Basic) or e.is_Atom or not e.args:
        return e
    if isinstance(e, sp.Subs):  # a binder: no fact about a free symbol of its variables' names
        inner = ctx
        for v in e.variables:
            inner = inner.without(v)
        expr = take_derivatives(e.expr, inner, rules)
        if any(not isinstance(d.expr, AppliedUndef) for d in expr.atoms(sp.Derivative)):
            return sp.Subs(expr, e.variables, e.point)  # a derivative not taken stays so
        done = sp.Subs(expr, e.variables, e.point).doit(deep=False)
        return done if isinstance(done, sp.Subs) else take_derivatives(done, ctx, rules)
    take = _lazily if isinstance(e, (sp.Piecewise, sp.Sum)) else take_derivatives
    if isinstance(e, sp.Sum):  # its terms have their index in its range (when not reversed)
        inner = _terms_context(e, ctx)
        args = [_lazily(e.function, inner, rules)] + [_lazily(lim, ctx, rules)
                                                       for lim in e.args[1:]]
    else:
        args = [take(a, ctx, rules) if isinstance(a, sp.Basic) else a for a in e.args]
    if args != list(e.args):
        e = e.func(*args)
    if isinstance(e, sp.Derivative):
        variables = tuple(v for v, _ in e.variable_count)
        if not all(isinstance(v, sp.Symbol) or _subscript(v) for v in variables):
            return e  # with respect to f(x), say: not taken
        located = _located_kinks(e.expr, variables, ctx)
        if located is None:
            return e
        # a kink's expression may itself hold branches the facts choose
        located = [(resolve_branches(k, where), where, inside) for k, where, inside in located]
        away = [k for k, where, _ in located if where.nonzero(k)]
        if any(inside and k not in away for k, _, inside in located):
            return e  # a kink inside a Σ the facts do not keep away: no case split reaches it
        found = [k for k, _, _ in located]
        at = [k for k in found if k not in away]
        if at:
            zero = at[0]
            if ctx.signs(zero) != ZERO or any(not same_up_to_sign(k, zero) for k in at):
                return e  # a kink the context leaves open, or two at once
            out = derivative_at_kink(e, zero, ctx, rules, take_derivatives, equal)
            if out is None:
                return e
            ctx.discharged.update(sp.sstr(k) for k in away)
            return out
        ctx.discharged.update(sp.sstr(k) for k in found)
        done = e.doit(deep=False)
        rules.add("sympy.diff")
        return take_derivatives(done, ctx, rules) if done != e else e
    return e


def _subscript(v) -> bool:
    """A subscript W[p, q] of a real base (a derivative's variable: every W[i, k] is it where
    i = p and k = q, which sympy.diff writes with Kronecker deltas)."""
    return isinstance(v, sp.Indexed) and v.is_real is True


def _terms_context(e: sp.Sum, ctx: Context) -> Context:
    """The context of a Σ's terms: each index within its limits (branches.in_range)."""
    inner = ctx
    for i, a, b in reversed(e.limits):
        inner = in_range(inner.without(i), i, a, b)
    return inner


def _located_kinks(e: sp.Basic, variables: tuple, ctx: Context):
    """The kinks of `e` in `variables` (definedness.kinks), each with the context it lies in
    and whether it is inside a Σ: inside Σ_k, the context where k is in the Σ's range, so that
    relu(z1[k]) in Σ_{k=1}^{h} is differentiable when every entry of z1 is ≠ 0. None where a
    part is not known smooth."""
    out: list = []

    def walk(x, where, inside: bool) -> bool:
        found = node_kinks(x, variables)
        if found is None:
            return False
        out.extend((k, where, inside) for k in found)
        if not isinstance(x, sp.Basic) or x.is_Atom or not depends(x, variables):
            return True
        if isinstance(x, sp.Sum):
            return walk(x.function, _terms_context(x, where), True)
        return all(walk(a, where, inside) for a in x.args)

    return out if walk(e, ctx, False) else None


def _lazily(e: sp.Basic, ctx: Context, rules: set[str]) -> sp.Basic:
    """A Piecewise branch or condition, or a Σ term, with its derivatives taken; one with a
    derivative that does not exist stays as it is: it may never be evaluated (the branch not
    chosen, the Σ empty), so its point is not outside the claim's domain."""
    try:
        return take_derivatives(e, ctx, rules)
    except NoDerivative:
        return e


@dataclass(frozen=True)
class SideForm:
    """One side of a claim after steps 1–3, with what that took."""

    expr: sp.Expr
    rules: frozenset[str]
    used: frozenset[str]
    discharged: frozenset[str]


_SIDES: dict = {}
MAX_CACHED_SIDES = 2048


def side_form(e: sp.Expr, ctx: Context) -> SideForm:
    """Steps 1–3 on one side; the same side under the same facts and guards is rewritten once
    (the links of a calc chain share their sides)."""
    key = (e, ctx.facts, ctx.guards)
    found = _SIDES.get(key)
    if found is not None:
        return found
    local = Context(ctx.facts, ctx.guards)
    rules: set[str] = set()
    out = take_derivatives(unwrapped(e), local, rules)
    # roots and logs in one form first, so that the branches around them compare as one
    out = elementary(out, local, rules)
    if local.facts or out.has(sp.Min, sp.Max, sp.Abs, sp.Piecewise, sp.sign, sp.Heaviside):
        chosen = resolve_branches(out, local)
        if chosen != out:
            rules.add("branches chosen by the facts")
        out = chosen
    out = sums_normal_form(out, local, rules)
    if DELTA in rules and out.has(sp.Min, sp.Max, sp.Abs, sp.Piecewise, sp.sign, sp.Heaviside):
        # a δ's one term brings a branch out of its Σ (Heaviside(z1_j) at j = p): choose it
        chosen = resolve_branches(out, local)
        if chosen != out:
            rules.add("branches chosen by the facts")
        out = chosen
    form = SideForm(out, frozenset(rules), frozenset(local.used), frozenset(local.discharged))
    if len(_SIDES) >= MAX_CACHED_SIDES:
        _SIDES.clear()
    _SIDES[key] = form
    return form


def normal_form(e: sp.Expr, ctx: Context | None = None) -> tuple[sp.Expr, tuple[str, ...]]:
    """`e` rewritten by steps 1–4, and the names of the rules that fired."""
    ctx = ctx if ctx is not None else Context()
    nf, rules = _difference(e, sp.S.Zero, ctx)
    return nf, tuple(sorted(rules))


def _signed_factors(factors, ctx: Context) -> list[tuple] | None:
    """The factors as pairs (g, n) with factor = ±gⁿ and g ≥ 0: a factor u ≤ 0 is written
    (−u)¹, an odd power uⁿ of u ≤ 0 as (−u)ⁿ, an even power uⁿ of u of any sign as |u|ⁿ; when
    every factor has a known sign and an even number of them is negative (a factor known to
    be 0 may count either way), so that the product is Π gⁿ. None otherwise."""
    known = ctx.nonnegative
    out, flips, flexible = [], 0, None
    for f in factors:
        b, n = (f.base, f.exp) if f.is_Pow and f.exp.is_Integer else (f, sp.S.One)
        if known(b):
            out.append((b, n))
            if n % 2 == 1 and known(-b):
                flexible = len(out) - 1
        elif known(-b) and n % 2 == 1:
            flips += 1
            out.append((-b, n))
        elif n % 2 == 0:
            out.append((sp.Abs(b), n))
        elif known(f):
            out.append((f, sp.S.One))
        elif known(-f):
            flips += 1
            out.append((-f, sp.S.One))
        else:
            return None
    if flips % 2 == 1 and flexible is not None:  # a factor 0 is also −0
        b, n = out[flexible]
        out[flexible] = (-b, n)
        flips += 1
    return out if flips % 2 == 0 else None


MAX_FACTORED_TERMS = 12
"""A sum under a root or a logarithm is factored (x² − 1 = (x − 1)(x + 1)) up to this size."""


@lru_cache(maxsize=4096)
def _factored(e: sp.Expr) -> sp.Expr:
    """A polynomial in plain symbols as a product of its factors over ℚ (itself otherwise)."""
    if not e.is_Add or len(e.args) > MAX_FACTORED_TERMS or not e.free_symbols or e.atoms(
            sp.Function, sp.Sum, sp.Indexed, sp.Derivative) or any(
            p.exp.is_Integer is False or p.exp.is_negative for p in e.atoms(sp.Pow)):
        return e
    try:
        out = sp.factor(e)
    except Exception:  # noqa: BLE001 — not factored: the rule does not apply
        return e
    return out if out.is_Mul else e


EXP_OF_SUM = "exp(u + a) = exp(u)·exp(a)"


def elementary(e: sp.Expr, ctx: Context, rules: set[str]) -> sp.Expr:
    """Logarithms, roots and real powers rewritten where the claim's domain and facts allow,
    each an identity at every point where the expression it rewrites is defined:
    log(a·b) = log a + log b for a, b > 0 (or both < 0, as −a, −b) and log(aʳ) = r·log a for
    a > 0; (a·b)ʳ = aʳ·bʳ for a, b ≥ 0 (or both ≤ 0) and real r; (aⁿ)ʳ = a^(n·r) for a ≥ 0;
    aᵖ·a^q = a^(p+q) (where both factors are real, so is their product's power);
    exp(u + a) = exp(u)·exp(a) (every argument is real wherever the claim is defined)."""
    def log_rule(x):
        arg = _factored(x.args[0])
        if arg.is_Mul:
            # log needs its argument > 0, so a product of factors ≥ 0 that is its argument
            # has every factor > 0
            parts = _signed_factors(arg.args, ctx)
            parts = [(g, n) for g, n in parts or () if g != 1]
            if parts and not (len(parts) == 1 and sp.log(parts[0][0]) == x):
                rules.add("logarithms of positive factors")
                logs = [(sp.log(resolve_branches(g, ctx)), n) for g, n in parts]
                return sp.Add(*[n * (log_rule(lg) if isinstance(lg, sp.log) else lg)
                                for lg, n in logs])
        if arg.is_Pow and ctx.positive(arg.base) and ctx.signs(arg.exp) is not None:
            rules.add("logarithms of positive factors")
            return arg.exp * log_rule(sp.log(arg.base))
        if arg.is_Pow and arg.exp.is_Integer and arg.exp % 2 == 0:  # u^(2k) > 0: u ≠ 0
            rules.add("logarithms of positive factors")
            inner = sp.log(resolve_branches(sp.Abs(arg.base), ctx))
            return arg.exp * (log_rule(inner) if isinstance(inner, sp.log) else inner)
        return x

    def pow_rule(x):
        base, r = _factored(x.base), x.exp
        if r.is_Integer:
            return x
        if base.is_Mul:
            parts = _signed_factors(base.args, ctx)
            if parts is not None:
                out = sp.Mul(*[resolve_branches(g, ctx) ** (n * r) for g, n in parts])
                if out != x:
                    rules.add("roots of nonnegative factors")
                return out
        if base.is_Pow and ctx.nonnegative(base.base):
            rules.add("powers of nonnegative bases")
            out = base.base ** (base.exp * r)
            return pow_rule(out) if out.is_Pow else out
        return x

    def combine(x):
        """aᵖ·a^q·… → a^(p+q+…) for the factors of one Mul with a symbolic exponent."""
        groups: dict = {}
        for f in x.args:
            b, p = (f.base, f.exp) if f.is_Pow else (f, sp.S.One)
            groups.setdefault(b, []).append(p)
        if all(len(ps) == 1 for ps in groups.values()):
            return x
        rules.add("powers of one base combined")
        return sp.Mul(*[b ** sp.Add(*ps) for b, ps in groups.items()])

    def exp_rule(x):
        """exp(a + c·log u) = exp(a)·u^c: log u is defined only for u > 0, where u^c is."""
        terms = sp.Add.make_args(x.args[0])
        powers = []
        rest = []
        for term in terms:
            c, logs = term.as_independent(sp.log, as_Add=False)
            if isinstance(logs, sp.log) and not c.has(sp.log):
                powers.append(logs.args[0] ** c)
            else:
                rest.append(term)
        if len(rest) > 1:  # e^(u + a) = e^u·e^a for real u, a: a factor free of a Σ's
            rules.add(EXP_OF_SUM)  # index then leaves the Σ by linearity
        if powers:
            rules.add("powers of positive bases")
        if not powers and len(rest) <= 1:
            return x
        return sp.Mul(*[sp.exp(t) for t in rest]) * sp.Mul(*powers)

    def walk(x):
        if not isinstance(x, sp.Basic) or x.is_Atom or not x.args or isinstance(x, sp.Subs):
            return x  # a Subs binds its variables: the facts are not about them
        args = [walk(a) for a in x.args]
        if any(a is not b for a, b in zip(args, x.args)):
            x = x.func(*args)
        if isinstance(x, sp.exp):
            return exp_rule(x)
        if isinstance(x, sp.log):
            return log_rule(x)
        if x.is_Pow and (x.base.is_Mul or x.base.is_Pow or x.base.is_Add) and not \
                x.exp.is_Integer:
            return pow_rule(x)
        if x.is_Mul and any(f.is_Pow and not f.exp.is_Number for f in x.args):
            return combine(x)
        return x

    return walk(e) if e.has(sp.log, sp.Pow, sp.exp) else e


def _difference(lhs: sp.Expr, rhs: sp.Expr, ctx: Context) -> tuple[sp.Expr, set[str]]:
    a, b = side_form(lhs, ctx), side_form(rhs, ctx)
    ctx.used |= a.used | b.used
    ctx.discharged |= a.discharged | b.discharged
    rules = set(a.rules | b.rules)
    out = relate_offsets(a.expr - b.expr, ctx, rules)
    out = elementary(out, ctx, rules)
    return canon_abs(canon_args(split_powers(out, ctx))), rules


def canon_abs(e: sp.Expr) -> sp.Expr:
    """|u| written as c·|p| with u = ±c·p, c > 0 its rational content and p's leading sign
    fixed, so that |2a − 2b| and 2·|b − a| are one atom (an identity everywhere)."""
    def rule(x):
        u = x.args[0]
        if not u.is_Add:
            return x
        c, p = u.as_content_primitive()
        if p.could_extract_minus_sign():
            p = -p
        return abs(c) * sp.Abs(p) if (c != 1 or p != u) else x

    return e.replace(lambda x: isinstance(x, sp.Abs), rule) if e.has(sp.Abs) else e


def equal(lhs: sp.Expr, rhs: sp.Expr, ctx: Context | None = None
          ) -> tuple[bool, tuple[str, ...], sp.Expr]:
    """Whether lhs = rhs wherever both are defined, by the normal form of their difference
    (a proof, never a sample); the rules used, and the normal form."""
    ctx = ctx if ctx is not None else Context()
    nf, rules = _difference(lhs, rhs, ctx)
    if rational_zero(nf):
        return True, tuple(sorted(rules)) + ("rational normal form",), nf
    by_facts = sum_equalities(nf, ctx)
    if by_facts is not None and rational_zero(by_facts[0]):
        ctx.used |= by_facts[1]
        return True, tuple(sorted(rules)) + (SUM_EQUALITY, "rational normal form"), nf
    if by_facts is not None:
        nf = by_facts[0]
    trial = Context(ctx.facts, ctx.guards)  # what the fallback uses counts only if it proves
    quotients = signs_as_quotients(nf, trial)
    if quotients is not nf and rational_zero(quotients):
        ctx.used |= trial.used
        ctx.discharged |= trial.discharged
        return True, tuple(sorted(rules)) + (SIGN_QUOTIENT, "rational normal form"), nf
    return False, tuple(sorted(rules)), nf


SIGN_QUOTIENT = "sign(u) = |u|/u where u ≠ 0"
SUM_EQUALITY = "equalities with Σ from the facts"


def sum_equalities(e: sp.Expr, ctx: Context) -> tuple[sp.Expr, set[str]] | None:
    """`e` with each prefix sum that an equality of the facts fixes replaced by its value:
    Σ_{c=1}^{C} y_c = 1 (facts.equal: the two facts E ≥ 0 and −E ≥ 0, here in normal form,
    P_y(C) − 1) makes P_y(C) = 1 at every point the facts allow, so wherever the claim is
    considered. E must be linear in the prefix sum with a rational coefficient, and the
    value free of it. None when no equality applies; else the new form and the facts used."""
    atoms = e.atoms(Prefix)
    if not atoms:
        return None
    plain = [f for f in ctx.facts if not f.over and f.relation is Relation.NONNEGATIVE
             and f.expr.has(Prefix)]
    sub: dict = {}
    used: set[str] = set()
    for n, f in enumerate(plain):
        if not any(sp.expand(f.expr + g.expr) == 0 for g in plain[n + 1:]):
            continue
        E = sp.expand(f.expr)
        for atom in sorted(E.atoms(Prefix) & atoms, key=sp.default_sort_key):
            if atom in sub:
                continue
            alpha = E.coeff(atom)
            rest = sp.expand(E - alpha * atom)
            if alpha.is_Rational and alpha != 0 and not rest.has(atom):
                sub[atom] = -rest / alpha
                used.add(f.reason)
                break
    if not sub:
        return None
    return sp.expand(e.xreplace(sub)), used


def signs_as_quotients(e: sp.Expr, ctx: Context) -> sp.Expr:
    """`e` with each sign(u) whose argument the claim's domain or facts make nonzero written
    |u|/u, an identity wherever u ≠ 0 (both sides are defined exactly there); then |u|² is u²
    (SymPy's own rule for a real u), so r/|r| against sign(r) cancels in the rational normal
    form. A sign whose argument may be 0 is left as it is (sign(0) = 0, and |0|/0 has no
    value); so is one inside a derivative or a Subs (not a value at the claim's point).
    Returns `e` itself when nothing is rewritten: a fallback of `equal`, tried only when the
    normal form is not 0, so no proof that held before needs it."""
    if not e.has(sp.sign):
        return e

    def walk(x, ctx):
        if not isinstance(x, sp.Basic) or x.is_Atom or not x.args or isinstance(
                x, (sp.Subs, sp.Derivative)):
            return x
        inner = ctx
        if isinstance(x, sp.Sum):  # no fact or guard about a free symbol named as an index
            for v, _, _ in x.limits:
                inner = inner.without(v)
        args = [walk(a, inner) for a in x.args]
        if any(a is not b for a, b in zip(args, x.args)):
            x = x.func(*args)
        if isinstance(x, sp.sign) and x.args[0].is_real and ctx.nonzero(x.args[0]):
            u = x.args[0]
            ctx.discharged.add(f"{sp.sstr(u)} ≠ 0")
            return sp.Abs(u) / u
        return x

    out = walk(e, ctx)
    return canon_abs(out) if out != e else e  # |2a − 2b| and 2·|a − b| one atom again


def is_zero(e: sp.Expr, ctx: Context | None = None) -> tuple[bool, tuple[str, ...], sp.Expr]:
    """Whether `e` is 0 wherever it is defined (see `equal`)."""
    return equal(e, sp.S.Zero, ctx)
