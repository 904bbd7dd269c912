"""Signs: which of −, 0, + an expression can take, from its symbols' declared assumptions, the
statement's facts and its structure.

`signs(e)` is a set of signs the real value of e may have wherever e is defined, or None when
e is not known to be real. The rules are the kernel's own (a small sign calculus, listed in
docs/kernel.md); from SymPy it takes only the assumptions declared on symbols and undefined
functions, and its certified evaluation of closed constants.

A `Context` carries the facts and the guards: the expressions that are nonzero wherever both
sides of the claim are defined (a denominator of a side), which a proof may therefore assume.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import product

import sympy as sp
from sympy.core.function import AppliedUndef

from derive.kernel import intervals
from derive.kernel.algebra import expand
from derive.kernel.definedness import DefinedWhere
from derive.kernel.exact import is_zero_exact
from derive.kernel.facts import Fact, Relation
from derive.kernel.prefix import is_prefix

ALL = frozenset({-1, 0, 1})
POS, NEG, ZERO = frozenset({1}), frozenset({-1}), frozenset({0})
NONNEG, NONPOS, NONZERO = frozenset({0, 1}), frozenset({-1, 0}), frozenset({-1, 1})


def _flag_signs(e) -> frozenset[int] | None:
    """Signs from declared assumptions (a symbol, an undefined function, an indexed base).
    Every value of the domain is real, so a symbol declared nothing takes any sign; one
    declared not real has no value (None)."""
    if e.is_zero:
        return ZERO
    if e.is_real is False or e.is_extended_real is False:
        return None
    if e.is_positive:
        return POS
    if e.is_negative:
        return NEG
    out = set(ALL)
    if e.is_nonnegative:
        out.discard(-1)
    if e.is_nonpositive:
        out.discard(1)
    if e.is_nonzero:
        out.discard(0)
    return frozenset(out)


def _add(sets: list[frozenset[int]]) -> frozenset[int]:
    if all(s <= ZERO for s in sets):
        return ZERO
    if all(s <= NONNEG for s in sets):
        return POS if any(s == POS for s in sets) else NONNEG
    if all(s <= NONPOS for s in sets):
        return NEG if any(s == NEG for s in sets) else NONPOS
    return ALL


def _mul(sets: list[frozenset[int]]) -> frozenset[int]:
    out = frozenset({1})
    for s in sets:
        out = frozenset(a * b for a in out for b in s)
    return out


def _count_sum(term: frozenset[int], count: frozenset[int]) -> frozenset[int]:
    """Signs of Σ over `count` terms of sign `term` (Karr: a negative count negates)."""
    some = _add([term]) if term else ZERO
    out: set[int] = set()
    if 0 in count:
        out.add(0)
    if 1 in count:
        out |= some
    if -1 in count:
        out |= {-s for s in some}
    return frozenset(out)


def _bounded_range(term: sp.Expr) -> tuple[sp.Rational, sp.Rational] | None:
    """[lo, hi] holding a term that is a rational, or a rational times sin, cos, sign or
    Heaviside (whose real values lie in [−1, 1], [−1, 1], {−1, 0, 1}, [0, 1])."""
    if term.is_Rational:
        return term, term
    c, f = term.as_coeff_Mul()
    if isinstance(f, (sp.sin, sp.cos, sp.sign)):
        return -abs(c), abs(c)
    if isinstance(f, sp.Heaviside) and (len(f.args) == 1 or (
            f.args[1].is_Rational and 0 <= f.args[1] <= 1)):
        return min(c, 0), max(c, 0)
    return None


def _bounded_signs(e: sp.Expr) -> frozenset[int] | None:
    """Signs of a sum of bounded terms from the sum of their ranges (1 − cos u ≥ 0)."""
    ranges = [_bounded_range(t) for t in e.args]
    if any(r is None for r in ranges):
        return None
    lo, hi = sum(r[0] for r in ranges), sum(r[1] for r in ranges)
    if lo > 0:
        return POS
    if hi < 0:
        return NEG
    if lo == 0:
        return NONNEG
    if hi == 0:
        return NONPOS
    return None


def _constant_signs(e: sp.Expr) -> frozenset[int] | None:
    """A closed constant: its sign from a certified enclosure (derive/kernel/intervals.py),
    or 0 from an exact zero test."""
    if e.is_Rational:
        return frozenset({int(sp.sign(e))})
    if e.is_real is not True:
        return None
    s = intervals.sign(e)  # a certified enclosure away from 0
    if s is not None:
        return POS if s > 0 else NEG
    if is_zero_exact(e):
        return ZERO
    return ALL


@lru_cache(maxsize=16384)
def _symbols(e: sp.Expr) -> frozenset:
    """e.free_symbols, once per expression (SymPy recomputes it for every Σ it is asked of)."""
    return frozenset(e.free_symbols)


@lru_cache(maxsize=4096)
def _ratio(e: sp.Expr, other: sp.Expr) -> sp.Rational | None:
    """q with e = q·other, comparing the expanded forms term by term."""
    try:
        a, b = expand(e).as_coefficients_dict(), expand(other).as_coefficients_dict()
    except Exception:  # noqa: BLE001 — no match is always safe
        return None
    if a.keys() != b.keys() or not a:
        return None
    ratios = {sp.Rational(a[k]) / sp.Rational(b[k]) for k in a if b[k] != 0}
    if len(ratios) != 1:
        return None
    q = ratios.pop()
    return q if q != 0 else None


@lru_cache(maxsize=16384)
def _shift(e: sp.Expr, other: sp.Expr) -> sp.Rational | None:
    """c with e = other + c for a rational c, or None."""
    if _symbols(e) != _symbols(other):
        return None
    try:
        c = expand(e - other)
    except Exception:  # noqa: BLE001 — no match is always safe
        return None
    return c if c.is_Rational else None


@dataclass
class Context:
    """The facts and guards a decision may use, and what it used."""

    facts: tuple[Fact, ...] = ()
    guards: tuple[sp.Expr, ...] = ()
    used: set[str] = field(default_factory=set)
    discharged: set[str] = field(default_factory=set)
    _cache: dict = field(default_factory=dict, repr=False)

    def without(self, index: sp.Symbol) -> Context:
        """The context inside a Σ over `index`: no fact or guard about a free symbol of that
        name applies to the bound index."""
        facts = tuple(f for f in self.facts if index not in f.expr.free_symbols)
        guards = tuple(g for g in self.guards if index not in g.free_symbols)
        if len(facts) == len(self.facts) and len(guards) == len(self.guards):
            return self
        return Context(facts, guards, self.used, self.discharged)

    # ------------------------------------------------------------------ queries

    def signs(self, e: sp.Expr) -> frozenset[int] | None:
        key = e
        if key in self._cache:
            return self._cache[key]
        self._cache[key] = None  # while computing: unknown (no circular reasoning)
        out = self._signs(e)
        self._cache[key] = out
        return out

    def nonnegative(self, e: sp.Expr) -> bool:
        s = self.signs(e)
        return s is not None and s <= NONNEG

    def positive(self, e: sp.Expr) -> bool:
        s = self.signs(e)
        return s is not None and s <= POS

    def holds(self, e: sp.Expr, relation) -> bool:
        """Whether `e ≥ 0`, `e > 0` or `e ≠ 0` (a Relation) holds wherever the claim is
        defined."""
        if relation is Relation.NONZERO:
            return self.nonzero(e)
        if relation is Relation.POSITIVE:
            return self.positive(e) or (self.nonnegative(e) and self.nonzero(e))
        return self.nonnegative(e)

    def nonzero(self, e: sp.Expr) -> bool:
        """e ≠ 0 wherever the claim's sides are defined: by its signs, a fact or a guard, or
        because every factor of it is nonzero."""
        s = self.signs(e)
        if s is not None and 0 not in s:
            return True
        if self._is_guard(e):
            return True
        if e.is_Mul or e.is_Pow:  # a real power of a nonzero base is nonzero
            factors = e.args if e.is_Mul else (e.base,)
            return all(self.nonzero(f) for f in factors)
        if (e.is_Add and len(e.args) <= 12 and e.free_symbols
                and not e.atoms(sp.Function, sp.Sum, sp.Indexed)):
            try:
                factored = sp.factor(e)
            except Exception:  # noqa: BLE001
                return False
            if factored != e and (factored.is_Mul or factored.is_Pow):
                return self.nonzero(factored)
        return False

    # ------------------------------------------------------------------ rules

    def _ratio(self, e: sp.Expr, other: sp.Expr) -> sp.Rational | None:
        """q with e = q·other for a nonzero rational q, or None."""
        if e == other:
            return sp.S.One
        if e == -other:
            return sp.S.NegativeOne
        if e.is_number or other.is_number or _symbols(e) != _symbols(other):
            return None  # a constant multiple has the same symbols (a cheap first test)
        return _ratio(e, other)

    def _is_guard(self, e: sp.Expr) -> bool:
        return any(self._ratio(e, g) is not None for g in self.guards)

    def _from_facts(self, e: sp.Expr) -> frozenset[int] | None:
        out = None
        for f in self.facts:
            if f.over:
                s = self._from_every(e, f)
                if s is not None:
                    out = s if out is None else out & s
                continue
            q = self._ratio(e, f.expr)
            if q is None:
                s = self._offset(e, f)
                if s is not None:
                    out = s if out is None else out & s
                    self.used.add(f.reason)
                continue
            s = f.relation.signs if q > 0 else frozenset(-x for x in f.relation.signs)
            out = s if out is None else out & s
            self.used.add(f.reason)
        return out

    def _offset(self, e: sp.Expr, f: Fact) -> frozenset[int] | None:
        """The signs `e` has when it is a fact's expression u ≥ 0 (or > 0) plus or minus a
        rational: e = u + c with c ≥ 0 is ≥ 0 (> 0 when c > 0 or u > 0); e = −u + c with
        c ≤ 0 is ≤ 0 (p − q with p − q − 1 ≥ 0 is > 0; p with p − 1 ≥ 0 is > 0, so a free
        index in 1..B is in 0..B as well)."""
        if f.relation is Relation.NONZERO or not (e.is_Add or e.is_Symbol) or not f.expr.is_Add:
            return None
        strict = f.relation is Relation.POSITIVE
        up, down = _shift(e, f.expr), _shift(e, -f.expr)
        if up is not None and up >= 0:
            return POS if (up > 0 or strict) else NONNEG
        if down is not None and down <= 0:
            return NEG if (down < 0 or strict) else NONPOS
        return None

    def _from_every(self, e: sp.Expr, f: Fact) -> frozenset[int] | None:
        """The signs a fact over index ranges (facts.every) gives `e`: e is a rational
        multiple of the fact's expression at index values each known to lie in its range
        (a bound Σ index by the range of its Σ, branches.in_range; a free index by facts)."""
        if not isinstance(e, sp.Basic) or not e.has(sp.Indexed):
            return None
        indices = {i for i, _, _ in f.over}
        mine = [a for a in f.expr.atoms(sp.Indexed) if set(a.indices) & indices]
        if not mine:
            return None
        theirs = e.atoms(sp.Indexed)
        for pattern in mine:
            for atom in theirs:
                if atom.base != pattern.base or len(atom.indices) != len(pattern.indices):
                    continue
                sub: dict = {}
                for want, got in zip(pattern.indices, atom.indices):
                    if want in indices and sub.setdefault(want, got) != got:
                        break
                else:
                    if set(sub) != indices or any(v.has(*indices) for v in sub.values()):
                        continue
                    if not all(self.nonnegative(sub[i] - lo.xreplace(sub))
                               and self.nonnegative(hi.xreplace(sub) - sub[i])
                               for i, lo, hi in f.over):
                        continue
                    q = self._ratio(e, f.expr.xreplace(sub))
                    if q is None:
                        continue
                    self.used.add(f.reason)
                    return f.relation.signs if q > 0 else frozenset(
                        -x for x in f.relation.signs)
        return None

    def _signs(self, e: sp.Expr) -> frozenset[int] | None:
        structural = self._structural(e)
        if e.is_number:
            return structural
        from_facts = self._from_facts(e)
        # an empty set: the facts contradict the assumptions (no point has such a value)
        out = structural if from_facts is None else (
            from_facts if structural is None else structural & from_facts)
        if out is not None and 0 in out and self._is_guard(e):
            out = out - ZERO
        return out

    def _structural(self, e: sp.Expr) -> frozenset[int] | None:
        if e.is_number:
            return _constant_signs(e)
        if isinstance(e, (sp.Symbol, sp.Indexed)):
            return _flag_signs(e)
        if is_prefix(e):  # Σ_{i=1}^{m} g(i)
            term = self.signs(e.summand(sp.Dummy("i", integer=True)))
            count = self.signs(e.args[0])
            return None if term is None or count is None else _count_sum(term, count)
        if isinstance(e, AppliedUndef):
            return _flag_signs(e)
        if e.is_Add:
            sets = [self.signs(t) for t in e.args]
            if any(s is None for s in sets):
                return None
            out = _add(sets)
            return _bounded_signs(e) or out if out == ALL else out
        if e.is_Mul:
            sets = [self.signs(t) for t in e.args]
            return None if any(s is None for s in sets) else _mul(sets)
        if e.is_Pow:
            return self._pow(e.base, e.exp)
        if isinstance(e, sp.exp):
            return POS if self.signs(e.args[0]) is not None else None
        if isinstance(e, sp.log):  # defined for u > 0 only, where it has the sign of u − 1
            return self.signs(e.args[0] - 1) or ALL
        if isinstance(e, sp.Abs):
            s = self.signs(e.args[0])
            return POS if (s is not None and 0 not in s) or self.nonzero(e.args[0]) else NONNEG
        if isinstance(e, (sp.Max, sp.Min)):
            sets = [self.signs(a) for a in e.args]
            if any(s is None for s in sets):
                return None
            pick = max if isinstance(e, sp.Max) else min
            return frozenset(pick(c) for c in product(*sets))
        if isinstance(e, sp.sign):
            return self.signs(e.args[0])
        if isinstance(e, sp.Heaviside):
            s = self.signs(e.args[0])
            at_zero = self.signs(e.args[1]) if len(e.args) > 1 else POS  # H(0) = H0, ½ by default
            if s is None or at_zero is None:
                return None
            out = {1 for x in s if x > 0} | {0 for x in s if x < 0}
            return frozenset(out | (at_zero if 0 in s else set()))
        if isinstance(e, sp.Piecewise):
            sets = [self.signs(v) for v, _ in e.args]
            return None if any(s is None for s in sets) else frozenset().union(*sets)
        if isinstance(e, sp.Sum):
            i, a, b = e.limits[-1]  # the outermost; SymPy lists limits innermost first
            inner = self.without(i)
            term = inner.signs(sp.Sum(e.function, *e.limits[:-1]) if len(e.limits) > 1
                               else e.function)
            count = self.signs(b - a + 1)
            if term is None or count is None:
                return None
            return _count_sum(term, count)
        if isinstance(e, DefinedWhere):  # its value, where it is defined
            return self.signs(e.args[0])
        if isinstance(e, (sp.sin, sp.cos, sp.floor, sp.ceiling)):
            return ALL if self.signs(e.args[0]) is not None else None
        return None

    def _pow(self, base: sp.Expr, exp: sp.Expr) -> frozenset[int] | None:
        """Signs of base^exp wherever it is defined (real): an integer power by parity; a
        non-integer one only of base ≥ 0 (base > 0 for a negative exponent), so ≥ 0."""
        sb = self.signs(base)
        if sb is None:
            return None
        if exp.is_Integer:
            n = int(exp)
            if n == 0:
                return POS
            s = sb if n > 0 else sb - ZERO
            if n % 2 == 0:
                return frozenset({x * x for x in s})
            return s
        if self.signs(exp) is None:
            return None
        integer = exp.is_integer
        if integer is not True and (exp.is_Rational or integer is False):
            s = (sb & NONNEG) or NONNEG
            return s - ZERO if exp.is_negative else s
        if sb <= POS:
            return POS
        if sb <= NONNEG:
            return NONNEG
        if integer is True:  # a negative base to an integer power: either sign
            return ALL - ZERO if 0 not in sb or exp.is_negative else ALL
        # a negative base needs an integer exponent there: either sign
        return ALL - ZERO if 0 not in sb else ALL
