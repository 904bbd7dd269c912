"""Certificates: a new fact `expr ≥ 0` from the statement's own facts, checked before use.

A certificate writes expr = Σ_j c_j · Π_l f_jl with every c_j a constant ≥ 0 and every factor
f_jl ≥ 0 by the sign calculus: its symbols' assumptions, its structure (squares, sums of
squares over a count ≥ 0) or one of the facts the caller passes, which are the statement's
hypotheses and its earlier checked certificates. A `Fact` object among the factors counts only
if it is one of those facts; the identity itself is proved by the normal form.
"""

from __future__ import annotations

import sympy as sp

from derive.kernel.claims import InvalidClaim, check_expr
from derive.kernel.facts import Fact, Relation
from derive.kernel.normal_form import equal
from derive.kernel.signs import Context


class CertificateError(ValueError):
    """A certificate whose identity or factor signs do not check."""


def certify(
    expr: sp.Expr,
    terms: list[tuple[sp.Expr, tuple[sp.Expr | Fact, ...]]],
    reason: str,
    facts: tuple[Fact, ...] = (),
) -> Fact:
    """Check `expr = Σ c·Π factors ≥ 0` using only `facts`; return the fact `expr ≥ 0`, which
    lists in `uses` the facts its check relied on."""
    try:
        expr = check_expr(expr, f"certificate {reason!r}")
    except InvalidClaim as exc:
        raise CertificateError(str(exc)) from None
    facts = tuple(facts)
    ctx = Context(facts)
    total = sp.S.Zero
    for coeff, factors in terms:
        try:
            coeff = check_expr(coeff, "a coefficient")
        except InvalidClaim as exc:
            raise CertificateError(str(exc)) from None
        if not coeff.is_number or not Context().nonnegative(coeff):
            raise CertificateError(f"coefficient {sp.sstr(coeff)} is not a constant ≥ 0")
        product = sp.S.One
        for f in factors:
            if isinstance(f, Fact):
                if not any(f is g or f == g for g in facts):
                    raise CertificateError(
                        f"factor {f.describe()} is not one of the statement's facts")
                e = f.expr
            else:
                try:
                    e = check_expr(f, "a factor")
                except InvalidClaim:
                    raise CertificateError(f"factor {f!r} is not an expression or a fact of "
                                           f"the statement") from None
            if not ctx.nonnegative(e):
                raise CertificateError(f"factor {sp.sstr(e)} is not known to be ≥ 0")
            product *= e
        total += coeff * product
    zero, _, _ = equal(expr, total, ctx)
    if not zero:
        raise CertificateError(f"{sp.sstr(expr)} ≠ {sp.sstr(total)}")
    uses = tuple(f.reason for f in facts if f.reason in ctx.used)
    return Fact(expr, reason, Relation.NONNEGATIVE, origin="certificate", uses=uses)
