"""Integer reasoning added before a proof: facts about integer-valued expressions tightened to
the integer bounds they force, two facts e ≥ 0 and −e ≥ 0 used as the equality e = 0, and
powers of −1 with an integer exponent reduced modulo 2.

- u integer-valued (SymPy's `is_integer`, from the declared assumptions), a, b rational, a > 0:
  a·u + b ≥ 0 gives u ≥ ⌈−b/a⌉ and a·u + b > 0 gives u ≥ ⌊−b/a⌋ + 1 (a < 0: u ≤ ⌊−b/a⌋ and
  u ≤ ⌈−b/a⌉ − 1); a·u + b ≠ 0 with c = −b/a an integer gives |u − c| ≥ 1.
- e ≥ 0 and −e ≥ 0 give e = 0: a symbol s in which e is linear with a constant coefficient is
  replaced by its value v, when v has every assumption declared on s.
- (−1)^e with e integer-valued: each term c·m of e with c an integer and m a product of
  integer-valued factors is replaced by (c mod 2)·m with every power n^p (p ≥ 1) of m by n,
  since (−1)^(2k) = 1 and n^p ≡ n (mod 2).

Every rewrite is an identity, or a fact implied by the others, at each point where the symbols
take values their assumptions allow.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp
from sympy.core.function import AppliedUndef

from derive.kernel.algebra import expanded_small, linear_roots
from derive.kernel.facts import Fact, Relation


def _keeps(sym: sp.Symbol, value: sp.Expr) -> bool:
    """Whether `value` has every assumption declared on `sym` (so that putting it in place
    of sym quantifies over no point outside sym's domain)."""
    return all(getattr(value, f"is_{key}", None) == wanted
               for key, wanted in sym.assumptions0.items() if wanted is not None)


# ----------------------------------------------------------------------------- bounds

def _split(e: sp.Expr) -> tuple[sp.Rational, sp.Expr, sp.Rational] | None:
    """(a, u, b) with e = a·u + b, a ≠ 0 and b rational, u integer-valued; None otherwise."""
    b, rest = e.as_coeff_Add()
    if not b.is_Rational or rest == 0:
        return None
    a, u = rest.primitive() if rest.is_Add else rest.as_coeff_Mul()
    if not a.is_Rational or a == 0 or u.is_number or not _integer_valued(u):
        return None
    return a, u, b


def _integer_valued(u: sp.Expr) -> bool:
    """Whether SymPy's assumptions make u an integer, asked only when every symbol and
    undefined function in u is declared integer (the question can be slow on a large Σ)."""
    return (all(s.is_integer for s in u.free_symbols)
            and all(f.is_integer for f in u.atoms(AppliedUndef)) and u.is_integer is True)


def _bound(fact: Fact) -> Fact | None:
    """The integer bound `fact` forces (a new fact with its reason), or None when it forces
    nothing new."""
    if not all(s.is_integer for s in fact.expr.free_symbols):
        return None  # a real symbol: no integer bound (and no expansion of a large fact)
    expanded = expanded_small(fact.expr)
    split = None if expanded is None else _split(expanded)
    if split is None:
        return None
    a, u, b = split
    t = -b / a  # the fact says u ≥ t, u > t, u ≤ t, u < t or u ≠ t
    floor, ceiling = sp.Integer(t.p // t.q), sp.Integer(-(-t.p // t.q))
    if fact.relation is Relation.NONZERO:
        if not t.is_Integer:
            return None
        expr = sp.Abs(u - t) - 1
    elif a > 0:
        if fact.relation is Relation.NONNEGATIVE:
            if t.is_Integer:
                return None
            expr = u - ceiling
        else:
            expr = u - (floor + 1)
    else:
        if fact.relation is Relation.NONNEGATIVE:
            if t.is_Integer:
                return None
            expr = floor - u
        else:
            expr = ceiling - 1 - u
    return Fact(expr, fact.reason, Relation.NONNEGATIVE, fact.origin, fact.uses)


def integer_bounds(facts: Sequence[Fact]) -> tuple[Fact, ...]:
    """The facts, then the integer bound each forces (m > 0 for an integer m gives m − 1 ≥ 0),
    under the reason of the fact it comes from."""
    extra = [g for f in facts if not f.expr.is_number for g in [_bound(f)] if g is not None]
    return tuple(facts) + tuple(extra)


# ------------------------------------------------------------------------- equalities

def _primitive(e: sp.Expr) -> sp.Expr:
    """e divided by its positive rational content: 2x − 4y is x − 2y, −3x is −x."""
    if e.is_Add:
        return e.primitive()[1]
    c, m = e.as_coeff_Mul()
    return m if c > 0 else -m


def _pairs(facts: Sequence[Fact]) -> list[tuple[sp.Expr, tuple[str, ...]]]:
    """(e, reasons) for every e = 0 two facts e ≥ 0 and −e ≥ 0 say, e in primitive form."""
    seen: dict[sp.Expr, str] = {}
    out = []
    for f in facts:
        if f.relation is not Relation.NONNEGATIVE or f.expr.is_number:
            continue
        expanded = expanded_small(f.expr)  # a large fact is no linear equality's half
        if expanded is None or expanded.is_number:
            continue
        p = _primitive(expanded)
        if -p in seen and p not in seen:
            out.append((p, (seen[-p], f.reason)))
        seen.setdefault(p, f.reason)
    return out


def _solved(e: sp.Expr, held: frozenset) -> tuple[sp.Symbol, sp.Expr] | None:
    """(s, v) with e = 0 exactly when s = v: e linear in the symbol s with a constant
    coefficient, v keeping s's assumptions, s not in `held` and v free of it (a bound
    variable in the value would be captured: y := x in ∂(x·y)/∂x)."""
    return next(((s, v) for s, v in linear_roots(e) if s not in held and _keeps(s, v)
                 and not v.free_symbols & held), None)


def substituted(lhs, rhs, facts: Sequence[Fact]):
    """(lhs, rhs, facts, reasons): the claim with each equality its facts force (x ≥ y and
    y ≥ x) substituted, and the reasons of the facts that gave them (empty when none did). A
    proof of the result proves the claim: at every point of its domain the equal symbols have
    equal values. A derivative's or a Subs's variable is never replaced, nor put in the place
    of another symbol (y := x inside ∂(x·y)/∂x would differentiate x²)."""
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        return lhs, rhs, tuple(facts), ()
    facts = tuple(facts)
    reasons: list[str] = []
    for _ in range(len(facts)):
        held = frozenset(v for e in (lhs, rhs, *(f.expr for f in facts))
                         for d in e.atoms(sp.Derivative, sp.Subs) for v in d.variables)
        found = next(((sub, why) for e, why in _pairs(facts)
                      for sub in [_solved(e, held)] if sub is not None), None)
        if found is None:
            break
        (s, v), why = found
        lhs, rhs = lhs.xreplace({s: v}), rhs.xreplace({s: v})
        facts = tuple(Fact(e, f.reason, f.relation, f.origin, f.uses) for f in facts
                      for e in [_replaced(f.expr, s, v)] if not e.is_number)
        reasons += [r for r in why if r not in reasons]
    return lhs, rhs, facts, tuple(reasons)


def _replaced(e: sp.Expr, s: sp.Symbol, v: sp.Expr) -> sp.Expr:
    """e with s := v, expanded when that is small (a large fact kept as a power)."""
    out = e.xreplace({s: v})
    expanded = expanded_small(out)
    return out if expanded is None else expanded


# ----------------------------------------------------------------------------- parity

def _mod2(term: sp.Expr) -> sp.Expr | None:
    """A term c·m of an integer exponent as (c mod 2)·m with n^p (p ≥ 1) in m written n; None
    when the term is not an integer times a product of integer-valued factors."""
    c, m = term.as_coeff_Mul()
    if not c.is_Integer:
        return None
    factors = sp.Mul.make_args(m)
    if not all(f.is_integer for f in factors):
        return None
    if c % 2 == 0:
        return sp.S.Zero
    return sp.Mul(*(f.base if f.is_Pow and f.exp.is_Integer and f.exp > 0 else f
                    for f in factors))


def _sign_power(exp: sp.Expr) -> sp.Expr:
    """(−1)^exp for an integer-valued exp, its exponent reduced modulo 2 term by term and
    written as a product of (−1)^term when every term is an integer."""
    kept, rest = [], []
    for t in sp.Add.make_args(sp.expand(exp)):
        r = _mod2(t)
        if r is None:
            rest.append(t)
        else:
            kept.append(r)
    # i·j² + i²·j is 2·i·j once each term is reduced: a second pass takes that coefficient
    kept = [r for t in sp.Add.make_args(sp.Add(*kept)) for r in [_mod2(t)] if r != 0]
    if rest:
        return sp.Pow(-1, sp.Add(*kept, *rest))
    return sp.Mul(*(sp.Pow(-1, t) for t in kept))


def _is_sign_power(e: sp.Basic) -> bool:
    return (isinstance(e, sp.Pow) and e.base == -1 and not e.exp.is_number
            and e.exp.is_integer is True)


def parity(e):
    """`e` with every (−1)^exponent whose exponent is integer-valued reduced modulo 2:
    (−1)^(2i+1) = −1, (−1)^(3i) = (−1)^i, (−1)^(i²) = (−1)^i, (−1)^(i−j) = (−1)^i·(−1)^j."""
    if isinstance(e, sp.MatrixBase):
        return e.applyfunc(parity)
    if not isinstance(e, sp.Basic) or not any(_is_sign_power(p) for p in e.atoms(sp.Pow)):
        return e
    return e.replace(_is_sign_power, lambda p: _sign_power(p.exp))


def integer_exponents(lhs, rhs, facts: Sequence[Fact]):
    """(lhs, rhs, facts) with each real symbol x that is the exponent of a negative constant
    where the claim always evaluates (outside Σ and Piecewise) an integer symbol of the same
    name and sign: (−c)^x is real only for an integer x, so the claim says nothing elsewhere
    and may be proved with x an integer ((−1)^x·sign((−1)^x) = 1)."""
    if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
        return lhs, rhs, tuple(facts)
    exprs = (lhs, rhs, *(f.expr for f in facts))
    found: dict = {}
    bound = {v for e in exprs for d in e.atoms(sp.Derivative, sp.Subs) for v in d.variables}
    for e in exprs:
        for x in _negative_powers(e):
            if isinstance(x, sp.Symbol) and x.is_integer is None and x not in found \
                    and x not in bound:
                assumptions = {k: v for k, v in x.assumptions0.items()
                               if k in ("positive", "negative", "nonnegative", "nonpositive",
                                        "nonzero", "zero")}
                found[x] = sp.Symbol(x.name, integer=True, **assumptions)
    if not found:
        return lhs, rhs, tuple(facts)
    return (parity(lhs.xreplace(found)), parity(rhs.xreplace(found)),
            tuple(Fact(parity(f.expr.xreplace(found)), f.reason, f.relation, f.origin, f.uses)
                  for f in facts))


def _negative_powers(e: sp.Basic):
    """The exponents of the powers of negative constants `e` evaluates whenever it is."""
    if not isinstance(e, sp.Basic) or e.is_Atom or isinstance(e, (sp.Sum, sp.Piecewise)):
        return
    if e.is_Pow and e.base.is_number and e.base.is_negative and not e.exp.is_number:
        yield e.exp
    for a in e.args:
        yield from _negative_powers(a)
