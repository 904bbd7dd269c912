"""Exact witnesses: the first point, in a fixed order, at which two sides differ.

"First" is a fixed order: shapes in the order they are listed, and within a shape, assignments
by total height, the sum over variables of each value's position in its domain's sequence (for
a real: 0, 1, −1, 2, −2, 1/2, −1/2, 3, …; for a positive integer: 1, 2, 3, …). A point counts
only if every variable's value satisfies every assumption declared on it, every constraint
holds there, and both sides are defined and real there and differ exactly. When a shape gives
none, it is searched again with each variable's values restricted to those its own
constraints allow (0 ≤ β < 1: 0, 1/2, 1/3, …), in the same order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import islice
from math import gcd

import sympy as sp
from sympy.core.function import AppliedUndef

from derive.kernel.algebra import expanded_small
from derive.kernel.compile import NotCompilable, compile_exact
from derive.kernel.evaluate import Instance, differ, instantiate, value_at
from derive.kernel.facts import Relation
from derive.kernel.timebound import Deadline
from derive.kernel.verdict import Witness

QUICK_POINTS = 64
"""Assignments tried on a shape before its symbolic check (when the difference compiles)."""

QUICK_POINTS_SLOW = 64
"""The same when every point needs substitution (max, min, roots, Piecewise)."""

MAX_POINTS_PER_SHAPE = 4000
"""How many assignments one shape may try before the search moves on."""

DOMAIN_SIZE = 24
"""Values per variable (the first of its domain's sequence)."""

MAX_CANDIDATES = 4000
"""Values of the base sequence examined to find a domain's first values."""


def _all_rationals() -> Iterator[sp.Rational]:
    """0, 1, −1, 2, −2, 1/2, −1/2, 3, −3, 1/3, −1/3, 3/2, … (by height max(|p|, q))."""
    yield sp.S.Zero
    h = 1
    while True:
        for q in range(1, h + 1):
            for p in range(1, h + 1):
                if max(p, q) == h and gcd(p, q) == 1:
                    yield sp.Rational(p, q)
                    yield sp.Rational(-p, q)
        h += 1


def _all_integers() -> Iterator[sp.Integer]:
    """0, 1, −1, 2, −2, …"""
    yield sp.S.Zero
    n = 1
    while True:
        yield sp.Integer(n)
        yield sp.Integer(-n)
        n += 1


def satisfies(assumptions: dict, value: sp.Expr) -> bool:
    """Whether an exact value has every property in `assumptions` (a SymPy assumptions0 dict:
    integer, positive, nonzero, irrational, even, prime, …) with the stated truth."""
    return _satisfies(tuple(sorted((k, v) for k, v in assumptions.items() if v is not None)),
                      value)


@lru_cache(maxsize=65536)
def _satisfies(assumptions: tuple, value: sp.Expr) -> bool:
    known = _rational_facts(value) if isinstance(value, sp.Rational) else {}
    for key, wanted in assumptions:
        got = known[key] if key in known else getattr(value, f"is_{key}", None)
        if got is None or bool(got) != bool(wanted):
            return False
    return True


def _rational_facts(q: sp.Rational) -> dict[str, bool]:
    """What SymPy's assumptions say of a rational number, read off its sign and denominator:
    asking SymPy builds a fresh assumptions object for each new number (deduce_all_facts), which
    took 2.7 s of a LayerNorm refutation's 3.4 s over 4,000 candidates per domain."""
    sign, whole = (q.p > 0) - (q.p < 0), q.q == 1
    facts = dict.fromkeys(("real", "rational", "algebraic", "complex", "finite", "hermitian",
                           "commutative", "extended_real"), True)
    facts.update(dict.fromkeys(("irrational", "transcendental", "infinite", "imaginary"), False))
    facts.update(integer=whole, noninteger=not whole, zero=sign == 0, nonzero=sign != 0,
                 positive=sign > 0, negative=sign < 0, nonnegative=sign >= 0,
                 nonpositive=sign <= 0)
    facts.update({f"extended_{k}": facts[k] for k in ("positive", "negative", "nonnegative",
                                                      "nonpositive", "nonzero")})
    return facts


def assumptions_of(x) -> dict:
    """The assumptions declared on a symbol, a subscript, or an applied undefined function.
    SymPy's `assumptions0` is {} for f(a) even when f was declared `positive=True` (only
    queries such as f(a).is_positive see them), so for an application they are read from its
    function's class: a witness must keep n(k) ≥ 1 when n was so declared."""
    if isinstance(x, AppliedUndef):
        return {k: v for k, v in type(x).default_assumptions.items() if v is not None}
    return x.assumptions0


def in_domain(sym, value: sp.Expr) -> bool:
    """Whether `value` satisfies every assumption declared on `sym` (a Symbol, or an applied
    undefined function or subscript, whose assumptions are those of its function or base)."""
    return satisfies(assumptions_of(sym), value)


def domain_values(sym, count: int = DOMAIN_SIZE) -> list[sp.Rational]:
    """The first `count` values of a symbol's domain in the witness order: the integers (for an
    integer symbol) or the rationals, keeping those every assumption allows. Fewer (or none)
    when the domain is sparse among the first candidates (an irrational symbol has none)."""
    return list(_domain(tuple(sorted((k, v) for k, v in assumptions_of(sym).items()
                                     if v is not None)), count))


def _some_irrationals() -> Iterator[sp.Expr]:
    """√2, −√2, √3, −√3, √5, … then 1 + √2, …: for a symbol declared irrational (no rational
    value is in its domain)."""
    roots = [sp.sqrt(k) for k in (2, 3, 5, 6, 7, 10, 11, 13)]
    for r in roots:
        yield r
        yield -r
    for k in range(1, 4):
        for r in roots[:3]:
            yield k + r
            yield -k - r
            yield sp.Rational(1, k + 1) * r


@lru_cache(maxsize=None)
def _domain(assumptions: tuple, count: int) -> tuple[sp.Rational, ...]:
    facts = dict(assumptions)
    if facts.get("irrational") or facts.get("rational") is False and facts.get("real"):
        gen = _some_irrationals()
    else:
        gen = _all_integers() if facts.get("integer") else _all_rationals()
    return tuple(islice((v for v in islice(gen, MAX_CANDIDATES) if satisfies(facts, v)), count))


def admissible(v, count: int, conditions, candidates: int = MAX_CANDIDATES
               ) -> list[sp.Rational]:
    """The first `count` values of v's domain sequence (among its first `candidates`) at which
    every condition (expression, Relation) about v alone holds, evaluated exactly node by node:
    0 ≤ β < 1 keeps 0, 1/2, 1/3, 2/3, … of a real β."""
    own = [(e, r) for e, r in conditions if e.free_symbols and e.free_symbols <= {v}]
    out = []
    for value in domain_values(v, candidates):
        if all(_holds(e, r, {v: value}) for e, r in own):
            out.append(value)
            if len(out) == count:
                break
    return out


def _holds(expr: sp.Expr, relation: Relation, point: dict) -> bool:
    try:
        inst = instantiate(expr, point, {})
    except ValueError:
        return False
    got = value_at(inst, {})
    return got is not None and got.is_real is True and relation.holds(got)


def _compositions(total: int, parts: int, caps: list[int]) -> Iterator[tuple[int, ...]]:
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(min(total, caps[0] - 1) + 1):
        for rest in _compositions(total - first, parts - 1, caps[1:]):
            yield (first, *rest)


def assignments(variables: tuple, values: list[list] | None = None) -> Iterator[dict]:
    """Every assignment of the variables' domains, by increasing total height."""
    values = values if values is not None else [domain_values(v) for v in variables]
    if any(not v for v in values):
        return
    caps = [len(v) for v in values]
    for height in range(sum(c - 1 for c in caps) + 1):
        for idx in _compositions(height, len(variables), caps):
            yield {v: values[j][i] for j, (v, i) in enumerate(zip(variables, idx))}


@dataclass(frozen=True)
class Instantiation:
    """One shape of a claim: both sides as expressions of finitely many variables.

    `constraints` must hold at a witness: expressions ≥ 0, or (expression, Relation) pairs;
    `kinks` must be nonzero there (derivatives taken at a kink do not exist); `names` gives each
    variable its display name.
    """

    shape: str
    lhs: sp.Expr
    rhs: sp.Expr
    variables: tuple[sp.Symbol, ...]
    constraints: tuple = ()
    names: dict[sp.Symbol, str] = field(default_factory=dict)
    kinks: tuple[sp.Expr, ...] = ()
    defined: tuple = ()
    """evaluate.AtPoint: what must be defined at a witness (what its derivatives
    differentiate, what its Subs substitute into)."""

    solved: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()
    """Variables that the constraints' linear equalities give as expressions of the others
    (`solve_equalities`): not searched, but valued at each point from the searched ones."""

    def relations(self) -> list[tuple[sp.Expr, Relation]]:
        return [c if isinstance(c, tuple) else (c, Relation.NONNEGATIVE) for c in self.constraints]

    def searched(self) -> tuple[sp.Symbol, ...]:
        """The variables the search assigns: all but the solved ones."""
        given = {v for v, _ in self.solved}
        return tuple(v for v in self.variables if v not in given)

    def completed(self, point: dict) -> dict:
        """A point of the searched variables with the solved ones valued from them."""
        if not self.solved:
            return point
        return {**point, **{v: e.xreplace(point) for v, e in self.solved}}

    def sides_solved(self) -> tuple[sp.Expr, sp.Expr, tuple[sp.Expr, ...]]:
        """lhs, rhs and the kinks with the solved variables replaced by their expressions:
        the shape's sides at the points that satisfy its equalities (for a symbolic check
        only; a witness is evaluated on the sides as written)."""
        sub = dict(self.solved)
        if not sub:
            return self.lhs, self.rhs, self.kinks
        return (self.lhs.xreplace(sub), self.rhs.xreplace(sub),
                tuple(k.xreplace(sub) for k in self.kinks))


_ANY_REAL = frozenset({"real", "complex", "commutative", "finite", "hermitian",
                       "extended_real", "infinite", "imaginary"})
"""Assumptions that every rational value satisfies when true (or false, for the last two):
a variable declared with no others may be given any rational value by an equality."""


def _linear(e: sp.Expr, variables: tuple) -> dict | None:
    """{variable: rational coefficient} and the constant (key 1) of `e` when it is a
    polynomial of degree ≤ 1 in the variables with rational coefficients, else None."""
    try:
        poly = sp.Poly(e, *variables, domain=sp.QQ)
    except (sp.PolificationFailed, sp.GeneratorsNeeded, sp.CoercionFailed, ValueError):
        return None
    if poly.total_degree() > 1:
        return None
    out: dict = {}
    for monom, coeff in poly.terms():
        key = next((v for v, k in zip(variables, monom) if k), 1)
        out[key] = sp.Rational(coeff.numerator, coeff.denominator)
    return out


def solve_equalities(inst: Instantiation) -> Instantiation | None:
    """The shape with each equality among its constraints (the two constraints e ≥ 0 and
    −e ≥ 0: a fact of `equal`, at concrete sizes each row of Y summing to 1) that is linear
    in its variables with rational coefficients solved for one variable, the last of the
    shape's order whose domain is every rational: that variable is not searched but valued
    from the others, so every point searched satisfies the equalities (Y[1, 2] = 1 − Y[1, 1]),
    instead of the few the order reaches by chance. None when the equalities contradict each
    other (the shape has no point). The constraints stay, and are evaluated at each point."""
    relations = inst.relations()
    # only constraints whose expansion is small: (a + b + c)^1000 ≥ 0 is no linear equality,
    # and expanding it would take the whole time bound (501,501 terms)
    nonneg = [x for x in (expanded_small(e) for e, r in relations
                          if r is Relation.NONNEGATIVE) if x is not None]
    present, seen, equalities = set(nonneg), set(), []
    for e in nonneg:  # in the constraints' order, each pair once
        if e not in seen and -e in present and -e not in seen:
            seen.add(e)
            equalities.append(e)
    solved: dict = {}
    for e in equalities:
        e = sp.expand(e.xreplace(solved))
        if e.is_number:
            if e != 0:
                return None  # 0 = c ≠ 0: no point of this shape satisfies the facts
            continue
        free = tuple(v for v in inst.variables if v in e.free_symbols and v not in solved)
        if not free or not e.free_symbols <= set(free):
            continue
        coeffs = _linear(e, free)
        if coeffs is None:
            continue
        choice = [v for v in free if coeffs.get(v, 0) != 0 and all(
            k in _ANY_REAL for k, want in assumptions_of(v).items() if want is not None)]
        if not choice:
            continue
        v = choice[-1]
        value = sp.expand(-(e - coeffs[v] * v) / coeffs[v])
        solved = {k: sp.expand(x.xreplace({v: value})) for k, x in solved.items()}
        solved[v] = value
    if not solved:
        return inst
    order = [v for v in inst.variables if v in solved]
    return replace(inst, solved=tuple((v, solved[v]) for v in order))


def check_point(inst: Instantiation, point: dict) -> Witness | None:
    """A witness if every value is in its domain, the constraints hold, and the sides are
    defined, real and different at `point`."""
    point = inst.completed(point)
    if not all(in_domain(v, point[v]) for v in inst.variables):
        return None
    kinks = list(inst.kinks)
    for expr, relation in inst.relations():
        value = value_at(Instance(expr, kinks), point)
        if value is None or not value.is_real or not relation.holds(value):
            return None
    lhs = value_at(Instance(inst.lhs, kinks), point)
    rhs = value_at(Instance(inst.rhs, kinks), point)
    if lhs is None or rhs is None or not differ(lhs, rhs):
        return None
    if not all(d.defined(point) for d in inst.defined):
        return None
    assignment = tuple((inst.names.get(v, str(v)), point[v]) for v in inst.variables)
    return Witness(inst.shape, assignment, lhs, rhs,
                   symbols=tuple((v, point[v]) for v in inst.variables))


def _compiled_difference(inst: Instantiation):
    """lhs − rhs compiled for exact evaluation when it is a rational function of the variables
    (None otherwise); used only to skip points where the sides agree."""
    if inst.constraints or inst.kinks:
        return None
    try:
        return compile_exact(inst.lhs - inst.rhs, inst.variables)
    except NotCompilable:
        return None


def search_point(inst: Instantiation, deadline: Deadline,
                 limit: int = MAX_POINTS_PER_SHAPE, quick: bool = False) -> Witness | None:
    """The first witness of one shape in the witness order, or None within `limit` tries
    (`quick`: only the first few, before a symbolic check decides whether to go on)."""
    fast = _compiled_difference(inst)
    if quick:
        limit = QUICK_POINTS if fast is not None else QUICK_POINTS_SLOW
    found = _search(inst, deadline, limit, fast, None)
    if found is not None or quick:
        return found
    # again with each variable's values restricted to those its own constraints allow (a rate
    # 0 ≤ β < 1 of a real β: 0, 1/2, 1/3, … instead of 0, 1, −1, 2, −2, 1/2): a claim of many
    # variables whose witness needs such a value is then within the search's reach. Only
    # after the plain order found nothing, so every witness found before stays the first.
    relations = inst.relations()
    values = [domain_values(v) for v in inst.searched()]
    restricted = [admissible(v, DOMAIN_SIZE, relations) for v in inst.searched()]
    if restricted == values:
        return None
    return _search(inst, deadline, limit, fast, restricted)


def _search(inst: Instantiation, deadline: Deadline, limit: int, fast,
            values: list[list] | None) -> Witness | None:
    searched = inst.searched()
    for n, point in enumerate(assignments(searched, values)):
        if n >= limit:
            return None
        if n % 64 == 0:
            deadline.check()
        if fast is not None:
            try:
                if fast(*(point[v] for v in searched)) == 0:
                    continue
            except ZeroDivisionError:
                continue
        found = check_point(inst, point)
        if found is not None:
            return found
    return None
