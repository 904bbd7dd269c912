"""Exact witnesses: the smallest assignment found under which two sides differ.

"Smallest" is a fixed order: structures (shapes) in the order the statement lists them, and
within a shape, assignments by total height, the sum over variables of each value's position
in its domain's sequence (for a real: 0, 1, −1, 2, −2, 1/2, −1/2, 3, …; for a positive
integer: 1, 2, 3, …). The first assignment in that order that satisfies every constraint and
makes the sides differ exactly is the witness, so a witness is minimal in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice
from math import gcd

import sympy as sp

from derive.kernel.compile import NotCompilable, compile_exact
from derive.kernel.exact import is_zero_exact
from derive.kernel.timebound import Deadline
from derive.kernel.verdict import Witness

QUICK_POINTS = 64
"""Assignments tried on a shape before its symbolic check."""

MAX_POINTS_PER_SHAPE = 4000
"""How many assignments one shape may try before the search moves on."""


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


def in_domain(sym: sp.Symbol, value: sp.Rational) -> bool:
    """Whether `value` satisfies every assumption declared on `sym`."""
    checks = ((sym.is_integer, value.is_integer), (sym.is_positive, value > 0),
              (sym.is_negative, value < 0), (sym.is_nonnegative, value >= 0),
              (sym.is_nonpositive, value <= 0), (sym.is_nonzero, value != 0),
              (sym.is_even, value.is_integer and value % 2 == 0),
              (sym.is_odd, value.is_integer and value % 2 == 1))
    return all(bool(ok) for assumed, ok in checks if assumed)


_FLAGS = ("integer", "positive", "negative", "nonnegative", "nonpositive", "nonzero", "even",
          "odd")


def domain_values(sym: sp.Symbol, count: int = 24) -> list[sp.Rational]:
    """The first `count` values of a symbol's domain, in the witness order: the integers or
    the rationals in the order above, keeping those the symbol's assumptions allow."""
    return list(_domain(tuple(bool(getattr(sym, f"is_{f}")) for f in _FLAGS), count))


@lru_cache(maxsize=None)
def _domain(flags: tuple[bool, ...], count: int) -> tuple[sp.Rational, ...]:
    """The domain of every symbol with these assumption flags (computed once per process)."""
    probe = sp.Dummy(**{f: True for f, on in zip(_FLAGS, flags) if on})
    gen = _all_integers() if flags[0] else _all_rationals()
    return tuple(islice((v for v in gen if in_domain(probe, v)), count))


def _compositions(total: int, parts: int, caps: list[int]) -> Iterator[tuple[int, ...]]:
    if parts == 0:
        if total == 0:
            yield ()
        return
    for first in range(min(total, caps[0] - 1) + 1):
        for rest in _compositions(total - first, parts - 1, caps[1:]):
            yield (first, *rest)


def assignments(variables: tuple[sp.Symbol, ...]) -> Iterator[dict[sp.Symbol, sp.Rational]]:
    """Every assignment of the variables' domains, by increasing total height."""
    values = [domain_values(v) for v in variables]
    caps = [len(v) for v in values]
    for height in range(sum(c - 1 for c in caps) + 1):
        for idx in _compositions(height, len(variables), caps):
            yield {v: values[j][i] for j, (v, i) in enumerate(zip(variables, idx))}


@dataclass(frozen=True)
class Instantiation:
    """One shape of a family: both sides as expressions of finitely many variables.

    `constraints` are expressions that must be ≥ 0 at a witness (the statement's hypotheses);
    `names` gives each variable its display name.
    """

    shape: str
    lhs: sp.Expr
    rhs: sp.Expr
    variables: tuple[sp.Symbol, ...]
    constraints: tuple[sp.Expr, ...] = ()
    names: dict[sp.Symbol, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Family:
    """`lhs = rhs` claimed for every shape; `shapes()` lists them from the smallest."""

    shapes: Callable[[], Iterable[object]]
    instantiate: Callable[[object], Instantiation]
    max_shapes: int = 12


def _finite(v: sp.Expr) -> bool:
    return v.is_number and not v.has(sp.zoo, sp.oo, -sp.oo, sp.nan)


def check_point(inst: Instantiation, point: dict) -> Witness | None:
    """A witness if the sides differ exactly at `point` and the constraints hold there."""
    for c in inst.constraints:
        value = c.xreplace(point)
        if not _finite(value) or value.is_nonnegative is not True:
            return None
    lhs, rhs = inst.lhs.xreplace(point), inst.rhs.xreplace(point)
    if not (_finite(lhs) and _finite(rhs)):
        return None
    if is_zero_exact(lhs - rhs) is not False:
        return None
    assignment = tuple((inst.names.get(v, str(v)), point[v]) for v in inst.variables)
    return Witness(inst.shape, assignment, lhs, rhs)


def _compiled_difference(inst: Instantiation):
    """lhs − rhs as a compiled exact function of the variables, when it is a rational
    function of them (None otherwise: Min, Max, Piecewise, roots are substituted instead)."""
    if inst.constraints:
        return None
    try:
        return compile_exact(inst.lhs - inst.rhs, inst.variables)
    except NotCompilable:
        return None


def search_point(inst: Instantiation, deadline: Deadline,
                 limit: int = MAX_POINTS_PER_SHAPE) -> Witness | None:
    """The first witness of one shape in the witness order, or None within `limit` tries.
    A rational difference is evaluated compiled; only a point where it is nonzero is then
    substituted into both sides to build (and confirm) the witness."""
    fast = _compiled_difference(inst)
    for n, point in enumerate(assignments(inst.variables)):
        if n >= limit:
            return None
        if n % 64 == 0:
            deadline.check()
        if fast is not None:
            try:
                if fast(*(point[v] for v in inst.variables)) == 0:
                    continue
            except ZeroDivisionError:
                continue
        found = check_point(inst, point)
        if found is not None:
            return found
    return None


def search_witness(family: Family, deadline: Deadline,
                   holds: Callable[[Instantiation], bool]) -> Witness | None:
    """The first witness over the family's shapes; `holds` skips shapes proved equal."""
    for shape in islice(family.shapes(), family.max_shapes):
        inst = family.instantiate(shape)
        # the first assignments usually settle it; the symbolic check (which can be slow on
        # large closed forms) only decides whether a shape with no early witness is skipped
        found = search_point(inst, deadline, QUICK_POINTS)
        if found is not None:
            return found
        if holds(inst):
            continue
        found = search_point(inst, deadline)
        if found is not None:
            return found
    return None
