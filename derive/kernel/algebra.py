"""Zero tests of the rational normal form, and the elementary rewrites it relies on.

Every atom that is not a symbol or a rational (a prefix sum, ℓ(i, θ), √2, log 2, x^m) is treated
as an independent variable: a polynomial identity in independent variables holds for whatever
values they take, so a zero found here is a zero wherever every subterm is defined. Nothing here
splits x^(a+b) into x^a·x^b (wrong at x = 0); the normal form does that where x ≠ 0 is known.
"""

from __future__ import annotations

from math import comb

import sympy as sp

from derive.kernel.claims import NotSupported

MAX_LOG_ARGUMENT_DIGITS = 30
"""log of a rational is split over its prime factors only up to this size."""


MAX_EXPANDED_TERMS = 100_000
"""Expansions estimated to give more terms than this are refused (not supported)."""


def expansion_size(e: sp.Basic, cap: int = MAX_EXPANDED_TERMS + 1) -> int:
    """An upper estimate of the number of terms `expand` makes of `e` (capped)."""
    if e.is_Add:
        return min(cap, sum(expansion_size(a, cap) for a in e.args))
    if e.is_Mul:
        out = 1
        for a in e.args:
            out = min(cap, out * expansion_size(a, cap))
        return out
    if e.is_Pow and e.exp.is_Integer and e.exp > 1:
        k = expansion_size(e.base, cap)
        if k == 1:
            return 1
        return min(cap, comb(int(e.exp) + k - 1, k - 1) if k < 60 else cap)
    return 1


def expand(e: sp.Expr) -> sp.Expr:
    """SymPy's expansion without the two hints that are not identities everywhere:
    power_exp (x^(a+b) → x^a·x^b fails at x = 0) and log (needs positivity)."""
    if expansion_size(e) > MAX_EXPANDED_TERMS:
        raise NotSupported(f"expanding would give more than {MAX_EXPANDED_TERMS:,} terms")
    return sp.expand(e, power_exp=False, log=False)


def split_logs_and_exps(e: sp.Expr) -> sp.Expr:
    """log r → Σ e_p·log p for a positive rational r (real logarithms of primes), and
    exp(a + b) → exp(a)·exp(b) (exp has no zero and no branch): both identities everywhere."""
    def log_rule(x):
        r = x.args[0]
        if not (r.is_Rational and r > 0 and r != 1):
            return x
        if max(len(str(abs(r.p))), len(str(r.q))) > MAX_LOG_ARGUMENT_DIGITS:
            return x
        out = sp.S.Zero
        for p, k in sp.factorint(r.p).items():
            out += k * sp.log(p, evaluate=False) if p != 1 else 0
        for p, k in sp.factorint(r.q).items():
            out -= k * sp.log(p, evaluate=False) if p != 1 else 0
        return out

    def exp_rule(x):
        arg = x.args[0]
        if arg.is_Add:
            return sp.Mul(*[sp.exp(t) for t in arg.args])
        return x

    if e.has(sp.log):
        e = e.replace(lambda x: isinstance(x, sp.log), log_rule)
    if e.has(sp.exp):
        e = e.replace(lambda x: isinstance(x, sp.exp), exp_rule)
    return e


def _algebraic_constant_zero(c: sp.Expr) -> bool:
    """Whether a constant with radicals is 0, by its minimal polynomial (exact algebra)."""
    if c == 0:
        return True
    if c.free_symbols or not c.is_number or not c.is_algebraic:
        return False
    x = sp.Dummy("x")
    try:
        return sp.minimal_polynomial(c, x) == x
    except Exception:  # noqa: BLE001 — SymPy refuses some numbers; then it is not shown 0
        return False


def _coefficients_zero(num: sp.Expr) -> bool:
    """A polynomial in its non-constant atoms whose coefficients are algebraic constants:
    0 when every coefficient is 0 (each decided by its minimal polynomial)."""
    gens = sorted({a for a in num.atoms(sp.Symbol, sp.Function, sp.Indexed, sp.Sum, sp.Derivative)
                   if not a.is_number}, key=sp.default_sort_key)
    if not gens:
        return _algebraic_constant_zero(num)
    try:
        poly = sp.Poly(num, *gens)
    except sp.PolynomialError:
        return False
    return all(_algebraic_constant_zero(c) for c in poly.coeffs())


def rational_zero(e: sp.Expr) -> bool:
    """Whether `e` is 0 as a rational function of its atoms (constants with radicals decided by
    their minimal polynomials)."""
    e = split_logs_and_exps(e)
    expanded = expand(e)
    if expanded == 0:
        return True
    if any(p.exp.is_negative for p in expanded.atoms(sp.Pow)):
        num, _ = sp.fraction(sp.together(expanded))
        expanded = expand(num)
        if expanded == 0:
            return True
    if any(not a.is_Rational for a in expanded.atoms(sp.Number, sp.NumberSymbol, sp.Pow)
           if a.is_number):
        return _coefficients_zero(expanded)
    return False
