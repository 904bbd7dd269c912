"""Helpers shared by the test modules: re-verifying a kernel witness by exact evaluation."""

from __future__ import annotations

import sympy as sp

from derive.kernel import Witness


def in_domain(sym: sp.Symbol, value: sp.Expr) -> bool:
    """Whether `value` is allowed for `sym` by the symbol's own assumptions."""
    if not value.is_Rational:
        return False
    checks = [
        (sym.is_integer, value.is_integer),
        (sym.is_positive, value > 0),
        (sym.is_negative, value < 0),
        (sym.is_nonnegative, value >= 0),
        (sym.is_nonpositive, value <= 0),
        (sym.is_nonzero, value != 0),
        (sym.is_even, value.is_integer and value % 2 == 0),
        (sym.is_odd, value.is_integer and value % 2 == 1),
    ]
    return all(bool(ok) for assumed, ok in checks if assumed)


def differ(a: sp.Expr, b: sp.Expr) -> bool:
    """Whether two closed-form numbers differ: exactly for rationals; for algebraic ones
    (square roots of Adam and BatchNorm) by 60-digit evaluation, independent of the kernel."""
    if a.is_Rational and b.is_Rational:
        return a != b
    return bool(abs(sp.N(a - b, 60)) > sp.Float("1e-40"))


def reverify(lhs: sp.Expr, rhs: sp.Expr, witness: Witness,
             names: dict[sp.Symbol, str] | None = None,
             constraints: tuple[sp.Expr, ...] = (),
             variables: tuple[sp.Symbol, ...] = ()) -> dict[sp.Symbol, sp.Expr]:
    """Substitute the witness's assignment into both sides and check, exactly, that
    - every assigned value is in its symbol's domain,
    - both sides evaluate to rationals (so no symbol is left open) equal to the witness's
      lhs and rhs,
    - the two values differ, and every constraint is ≥ 0 at the point.
    Returns the point."""
    names = names or {}
    lhs, rhs = sp.S(lhs), sp.S(rhs)
    symbols = lhs.free_symbols | rhs.free_symbols | set(variables)
    by_name = {names.get(s, str(s)): s for s in symbols}
    assert len(by_name) == len(symbols), "two symbols share a display name"
    given = dict(witness.assignment)
    unknown = set(given) - set(by_name)
    assert not unknown, f"witness assigns {sorted(unknown)}, which the sides do not have"
    point = {by_name[name]: sp.S(value) for name, value in given.items()}
    for sym, value in point.items():
        assert in_domain(sym, value), f"witness value {sym}={value} is outside {sym}'s domain"
    left, right = lhs.xreplace(point), rhs.xreplace(point)
    assert left.is_number and right.is_number, (left, right)
    assert left == witness.lhs
    assert right == witness.rhs
    assert differ(left, right)
    for c in constraints:
        value = c.xreplace(point)
        assert value.is_Rational and value >= 0, f"constraint {c} fails at the witness"
    return point


def expand_sums(e: sp.Expr) -> sp.Expr:
    """Every Σ with integer limits written out term by term, innermost limits first, with
    SymPy's (Karr's) convention Σ_{a}^{b} = −Σ_{b+1}^{a−1} when b < a − 1; derivatives taken.
    An evaluator independent of the kernel's normal form, used to check its verdicts."""
    if isinstance(e, sp.Sum):
        i, a, b = e.limits[-1]
        inner = sp.Sum(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function
        a, b = expand_sums(a), expand_sums(b)
        assert a.is_Integer and b.is_Integer, f"limits {a}, {b} are not concrete integers"
        if b >= a:
            values = range(int(a), int(b) + 1)
            sign = 1
        else:
            values = range(int(b) + 1, int(a))
            sign = -1
        return sign * sp.Add(*[expand_sums(inner.xreplace({i: sp.Integer(v)})) for v in values])
    if not e.args or e.is_Atom:
        return e
    out = e.func(*[expand_sums(x) for x in e.args])
    if isinstance(out, (sp.Derivative, sp.Subs)):
        out = out.doit()
    return out


def concretely_equal(lhs: sp.Expr, rhs: sp.Expr, substitutions: dict) -> bool:
    """Whether lhs = rhs after `substitutions` (symbols → integers, undefined functions →
    Lambdas) and writing every Σ out: an exact comparison of expressions in the remaining
    atoms (such as ℓ(3, θ))."""
    def at(e):
        for old, new in substitutions.items():
            e = e.replace(old, new) if isinstance(new, sp.Lambda) else e.xreplace({old: new})
        return expand_sums(e)
    return sp.expand(sp.together(at(lhs) - at(rhs))) == 0


def examples(n: int, slow: int | None = None):
    """`settings(max_examples=n)` (`slow` examples with DERIVE_SLOW=1, the slow tier), ten
    times as many under `HYPOTHESIS_PROFILE=thorough`."""
    import os

    from hypothesis import settings

    scale = 10 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 1
    if slow is not None and os.environ.get("DERIVE_SLOW") == "1":
        n = slow
    return settings(max_examples=n * scale)


def tier(cases, always, one: bool = False) -> list:
    """Parametrisations in tiers: the cases in `always` run by default, every other one only
    with DERIVE_SLOW=1 (marked `slow`, see tests/conftest.py). A case is a tuple of arguments,
    or one argument that is not a tuple (`one`: every case is one argument, tuples too)."""
    import pytest

    always = list(always)
    missing = [c for c in always if c not in cases]
    assert not missing, f"not cases: {missing}"
    return [c if c in always else
            pytest.param(*(c if isinstance(c, tuple) and not one else (c,)),
                         marks=pytest.mark.slow)
            for c in cases]


def substitute_witness(e: sp.Expr, witness: Witness) -> sp.Expr:
    """A claim's side at a witness, by tests/reference.py's judge (independent of the kernel):
    the witness's Lambdas for the undefined functions and subscripts, its values for the
    symbols, every Σ written out under Karr's convention, every derivative taken."""
    import reference

    value = reference.evaluate(sp.S(e), witness.substitution())
    assert value is not reference.UNDEFINED, f"{e} is undefined at the witness"
    return value


def reverify_claim(lhs: sp.Expr, rhs: sp.Expr, witness: Witness, facts=()) -> None:
    """The witness refutes lhs = rhs itself: every symbol in its domain, both sides evaluate to
    the witness's values and differ, every fact holds."""
    for sym, value in witness.symbols:
        assert in_domain(sym, value) or value.is_Integer and sym.is_integer, (sym, value)
    left, right = substitute_witness(lhs, witness), substitute_witness(rhs, witness)
    assert left.is_number and right.is_number, (left, right)
    assert differ(left, witness.lhs) is False and differ(right, witness.rhs) is False
    assert differ(left, right)
    for f in facts:
        for point in _every_index(getattr(f, "over", ()), witness):
            value = substitute_witness(f.expr.xreplace(point), witness)
            assert value.is_number and f.relation.holds(value), f"fact {f.reason} fails"


def _every_index(over, witness):
    """Each assignment of a fact's range indices (every(fact, (i, lo, hi), …)) at the
    witness's sizes; one empty assignment for a fact without ranges."""
    if not over:
        yield {}
        return
    (i, lo, hi), rest = over[0], over[1:]
    a, b = (substitute_witness(x, witness) for x in (lo, hi))
    for v in range(int(a), int(b) + 1):
        for more in _every_index(tuple((j, x.xreplace({i: v}), y.xreplace({i: v}))
                                       for j, x, y in rest), witness):
            yield {i: sp.Integer(v), **more}
