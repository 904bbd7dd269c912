"""Facts `e ≥ 0`: hypotheses, facts derived by checked certificates, and their use to choose
the branch of Min, Max, Abs and Piecewise.

A certificate writes `e` as Σ c_j · Π f_jl with c_j ≥ 0 constants and every factor f_jl a
known fact, a square, a sum of squares, or nonnegative by SymPy's assumptions. The kernel
checks the identity in its normal form and each factor's sign; nothing is taken on trust.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.kernel.exact import to_expr

from derive.kernel.normal_form import normal_form, rational_zero


@dataclass(frozen=True)
class Fact:
    """`expr ≥ 0`, with why it holds (`hypothesis` or a certificate that was checked)."""

    expr: sp.Expr
    reason: str
    checked: bool = True


class CertificateError(ValueError):
    """A certificate whose identity or factor signs do not check."""


def hypothesis(expr: sp.Expr, reason: str) -> Fact:
    """An assumption of the statement: `expr ≥ 0`."""
    return Fact(to_expr(expr), reason)


def _equal(a: sp.Expr, b: sp.Expr) -> bool:
    a, b = to_expr(a), to_expr(b)
    if a == b:
        return True
    diff = a - b
    if not diff.has(sp.Sum, sp.Derivative, sp.Subs):
        return rational_zero(diff)
    nf, _ = normal_form(diff)
    return rational_zero(nf)


def _is_square_like(e: sp.Expr) -> bool:
    """A real square, or a sum (Σ) of real squares."""
    if isinstance(e, sp.Sum):
        # Σ_{i=a}^{b} of squares is ≥ 0 only when it has b − a + 1 ≥ 0 terms (Karr's convention
        # makes a sum with fewer than none the negative of another sum).
        counts_ok = all((b - a + 1).is_nonnegative for _, a, b in e.limits)
        return counts_ok and _is_square_like(e.function)
    if e.is_Pow and e.exp.is_even and e.base.is_real:
        return True
    return False


def known_nonnegative(e: sp.Expr, facts: tuple[Fact, ...]) -> bool:
    """Whether `e ≥ 0` follows at once: SymPy's signs, a square, or a known fact."""
    e = to_expr(e)
    if e.is_nonnegative or _is_square_like(e):
        return True
    return any(_equal(e, f.expr) for f in facts)


def certify(
    expr: sp.Expr,
    terms: list[tuple[sp.Expr, tuple[sp.Expr | Fact, ...]]],
    reason: str,
    facts: tuple[Fact, ...] = (),
) -> Fact:
    """Check `expr = Σ c·Π factors ≥ 0` and return the fact `expr ≥ 0`."""
    known = facts + tuple(f for _, fs in terms for f in fs if isinstance(f, Fact))
    total = sp.S.Zero
    for coeff, factors in terms:
        if not known_nonnegative(coeff, ()):
            raise CertificateError(f"coefficient {coeff} is not known to be ≥ 0")
        product = sp.S.One
        for f in factors:
            try:
                e = f.expr if isinstance(f, Fact) else to_expr(f)
            except TypeError:
                raise CertificateError(f"factor {f!r} is not an expression or a checked fact")
            if not known_nonnegative(e, known):
                raise CertificateError(f"factor {e} is not known to be ≥ 0")
            product *= e
        total += coeff * product
    if not _equal(expr, total):
        raise CertificateError(f"{expr} ≠ {total}")
    return Fact(to_expr(expr), reason)


def resolve_branches(e: sp.Expr, facts: tuple[Fact, ...]) -> sp.Expr:
    """Replace Min, Max, Abs and Piecewise by the branch the facts select, where they do."""
    if not e.args or e.is_Atom:
        return e
    if isinstance(e, sp.Tuple):
        return e
    args = [resolve_branches(a, facts) for a in e.args] if not isinstance(e, sp.Piecewise) else None

    def nonneg(x):
        return known_nonnegative(x, facts)

    if isinstance(e, (sp.Min, sp.Max)):
        best = args[0]
        for other in args[1:]:
            lo, hi = (best, other) if isinstance(e, sp.Min) else (other, best)
            if nonneg(hi - lo):
                best = best
            elif nonneg(lo - hi):
                best = other
            else:
                return e.func(*args)
        return best
    if isinstance(e, sp.Abs):
        (x,) = args
        if nonneg(x):
            return x
        if nonneg(-x):
            return -x
        return sp.Abs(x)
    if isinstance(e, sp.Piecewise):
        for value, cond in e.args:
            if cond is sp.true:
                return resolve_branches(value, facts)
            if isinstance(cond, (sp.LessThan, sp.GreaterThan)):
                small, big = (cond.lhs, cond.rhs) if isinstance(cond, sp.LessThan) else (
                    cond.rhs, cond.lhs)
                if nonneg(big - small):
                    return resolve_branches(value, facts)
            return e
        return e
    return e.func(*args) if args != list(e.args) else e
