"""Zero tests of the rational normal form, and the elementary rewrites it relies on.

Every atom that is not a symbol or a rational (a prefix sum, ℓ(i, θ), √2, log 2, x^m) is treated
as an independent variable: a polynomial identity in independent variables holds for whatever
values they take, so a zero found here is a zero wherever every subterm is defined. Nothing here
splits x^(a+b) into x^a·x^b (wrong at x = 0); the normal form does that where x ≠ 0 is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import sympy as sp
from sympy.polys.domains import QQ, ZZ
from sympy.polys.rings import PolyRing

from derive.kernel.claims import NotSupported
from derive.kernel.timebound import attempt

MAX_LOG_ARGUMENT_DIGITS = 30
"""log of a rational is split over its prime factors only up to this size."""


MAX_EXPANDED_TERMS = 100_000
"""Expansions estimated to give more terms than this are refused (not supported)."""

RING_EXPANSION_TERMS = 1_000
"""Past this many products of terms (expansion_work), a polynomial is first tested for 0 in a
sparse polynomial ring (integer arithmetic on exponent tuples), where SymPy's `expand` would
multiply term objects one by one: (x+1)^1000·(x−1)^1000 is a million products of 300-digit
coefficients either way, under a second in the ring, minutes as SymPy terms (measured: 0.8 s
against 400 s)."""


@dataclass(frozen=True)
class _Size:
    """What expanding an expression makes: at most `terms` terms, of total degree at most
    `degree` in the generators `gens` (the atoms that are not numbers); `raw` is the count
    before like terms are collected (products and multinomial counts: the products of terms
    SymPy's expansion forms one by one); `inner` and `inner_raw` the largest of these for an
    expansion made on the way, inside a function's argument or a denominator."""

    terms: int
    raw: int
    degree: int
    gens: frozenset
    inner: int = 0
    inner_raw: int = 0


def _capped_comb(n: int, k: int, cap: int) -> int:
    """min(C(n, k), cap), without computing a huge binomial."""
    k = min(k, n - k)
    if k < 0:
        return 0
    if k > 64 and n - k > 64:
        return cap  # C(n, k) ≥ C(128, 64) > 10^37
    return min(cap, comb(n, k))


def _monomials(terms: int, degree: int, gens: frozenset, cap: int) -> int:
    """The expansion's terms: never more than the C(D + v, v) monomials of total degree ≤ D in
    v generators (each term of the expansion is the value of one of them)."""
    return min(terms, _capped_comb(degree + len(gens), len(gens), cap))


def _multinomial(terms: int, n: int, cap: int) -> int:
    """The terms of a k-term sum to the power n: C(n + k − 1, k − 1)."""
    if terms == 1:
        return 1
    return cap if n >= cap else _capped_comb(n + terms - 1, terms - 1, cap)


def _size(e: sp.Basic, cap: int) -> _Size:
    if e.is_Number:
        return _Size(1, 1, 0, frozenset())
    if e.is_Add or e.is_Mul:
        parts = [_size(a, cap) for a in e.args]
        gens = frozenset().union(*(p.gens for p in parts))
        inner, inner_raw = max(p.inner for p in parts), max(p.inner_raw for p in parts)
        if e.is_Add:
            terms, raw = min(cap, sum(p.terms for p in parts)), min(cap, sum(p.raw for p in parts))
            degree = max(p.degree for p in parts)
        else:
            terms, raw, degree = 1, 1, sum(p.degree for p in parts)
            for p in parts:
                terms, raw = min(cap, terms * p.terms), min(cap, raw * p.raw)
        return _Size(_monomials(terms, degree, gens, cap), raw, degree, gens, inner, inner_raw)
    if e.is_Pow and e.exp.is_Integer and e.exp > 1:
        base, n = _size(e.base, cap), int(e.exp)
        degree = n * base.degree
        return _Size(_monomials(_multinomial(base.terms, n, cap), degree, base.gens, cap),
                     _multinomial(base.raw, n, cap), degree, base.gens, base.inner,
                     base.inner_raw)
    if e.is_Atom or not e.args:
        return _Size(1, 1, 1, frozenset([e]))
    # a generator of its own (a denominator, a root, a function, Σ): `expand` still expands
    # its arguments, and a negative power's base as a power
    parts = [_size(a, cap) for a in e.args if isinstance(a, sp.Basic)]
    if e.is_Pow and e.exp.is_Integer and e.exp < 0:
        parts = [_size(e.base ** -e.exp, cap)]
    inner = max([max(p.terms, p.inner) for p in parts] + [0])
    inner_raw = max([max(p.raw, p.inner_raw) for p in parts] + [0])
    return _Size(1, 1, 1, frozenset([e]), inner, inner_raw)


def expansion_size(e: sp.Basic, cap: int = MAX_EXPANDED_TERMS + 1) -> int:
    """An upper estimate, capped, of the terms `expand` makes of `e` (or of an argument or a
    denominator it expands on the way): products and multinomial counts, and never more than
    the C(D + v, v) monomials of total degree ≤ D in v generators, so that (x+1)^1000·(x−1)^1000
    is counted as 2,001 terms."""
    size = _size(e, cap)
    return min(cap, max(size.terms, size.inner))


def expansion_work(e: sp.Basic, cap: int = MAX_EXPANDED_TERMS + 1) -> int:
    """The same before like terms are collected: the products of terms a term-by-term
    expansion forms, (x+1)^1000·(x−1)^1000 a million of them (capped)."""
    size = _size(e, cap)
    return min(cap, max(size.raw, size.inner_raw))


def expand(e: sp.Expr) -> sp.Expr:
    """SymPy's expansion without the two hints that are not identities everywhere:
    power_exp (x^(a+b) → x^a·x^b fails at x = 0) and log (needs positivity). Refused
    (NotSupported) past MAX_EXPANDED_TERMS terms, or products of terms on the way."""
    size = _size(e, MAX_EXPANDED_TERMS + 1)
    if max(size.terms, size.inner) > MAX_EXPANDED_TERMS:
        raise NotSupported(f"expanding would give more than {MAX_EXPANDED_TERMS:,} terms")
    if max(size.raw, size.inner_raw) > MAX_EXPANDED_TERMS:
        raise NotSupported(f"expanding term by term would form more than "
                           f"{MAX_EXPANDED_TERMS:,} products of terms")
    return sp.expand(e, power_exp=False, log=False)


SMALL_EXPANSION = 1_000
"""Most terms (and products of terms) `expanded_small` forms: a fact read for a linear
equality or an integer bound is expanded only when it is this small, so that an assumption
(a+b+c)^1000 ≥ 0 is never expanded into its 501,501 terms."""


def expanded_small(e: sp.Expr) -> sp.Expr | None:
    """SymPy's expansion of `e` when it forms at most SMALL_EXPANSION terms and products of
    terms (estimated first, as `expand`); None otherwise."""
    size = _size(e, SMALL_EXPANSION + 1)
    if max(size.terms, size.inner, size.raw, size.inner_raw) > SMALL_EXPANSION:
        return None
    return sp.expand(e)


def linear_roots(u: sp.Expr):
    """(s, v) for each symbol s (in name order) in which u is linear with a constant
    coefficient: u = 0 exactly when s = v."""
    expanded = sp.expand(u)
    for sym in sorted(u.free_symbols, key=lambda x: x.name):
        if not isinstance(sym, sp.Symbol):
            continue
        coeff = expanded.coeff(sym)
        rest = sp.expand(expanded - coeff * sym)
        if coeff.is_number and coeff != 0 and not rest.has(sym):
            yield sym, -rest / coeff


class NotPolynomial(ValueError):
    """An expression that is not a polynomial (or, where allowed, a rational function) of the
    atoms it is converted over."""


def in_domain(e: sp.Expr, index: dict, domain, negative_powers: bool = False):
    """`e` as an element of `domain` (a sparse polynomial ring or fraction field of SymPy's
    polys), its atoms mapped by `index`: rationals, +, · and integer powers (negative ones only
    with `negative_powers`), each distinct subexpression converted once. NotPolynomial for
    anything else, ZeroDivisionError for a power of 0 with a negative exponent."""
    memo: dict = {}

    def convert(x):
        if x.is_Rational:
            return domain(int(x.p)) if x.is_Integer else domain(QQ(int(x.p), int(x.q)))
        if x in index:
            return index[x]
        if x in memo:
            return memo[x]
        if x.is_Add:
            out = domain.zero
            for a in x.args:
                out += convert(a)
        elif x.is_Mul:
            out = domain.one
            for a in x.args:
                out *= convert(a)
        elif x.is_Pow and x.exp.is_Integer and (negative_powers or x.exp >= 0):
            base = convert(x.base)
            if x.exp < 0 and base == 0:
                raise ZeroDivisionError("a negative power of 0")
            out = base ** int(x.exp)
        else:
            raise NotPolynomial(sp.sstr(x)[:80])
        memo[x] = out
        return out

    return convert(e)


def ring_zero(e: sp.Expr) -> bool | None:
    """Whether `e` is 0 as a polynomial in its atoms, computed in a sparse ring over ℚ (each
    atom that is not a rational an independent variable). True: it is 0. False: it is not,
    and every atom is a symbol (so no evaluation SymPy makes, √x·√x = x, could cancel it).
    None: not a polynomial (a negative power), or a nonzero polynomial in atoms other than
    symbols (then the rational normal form decides)."""
    gens: dict = {}

    def collect(x):
        if x.is_Rational or x in gens:
            return
        if x.is_Add or x.is_Mul:
            for a in x.args:
                collect(a)
        elif x.is_Pow and x.exp.is_Integer:
            if x.exp < 0:
                raise NotPolynomial(sp.sstr(x)[:80])
            collect(x.base)
        else:
            gens[x] = sp.Dummy()

    try:
        collect(e)
    except NotPolynomial:
        return None
    if not gens:
        return e == 0
    integral = all(r.is_Integer for r in e.atoms(sp.Rational))
    ring = PolyRing(list(gens.values()), ZZ if integral else QQ)
    index = dict(zip(gens, ring.gens))
    if in_domain(e, index, ring).is_zero:
        return True
    return False if all(isinstance(g, sp.Symbol) for g in gens) else None


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
        return attempt(MINIMAL_POLYNOMIAL_SECONDS, sp.minimal_polynomial, c, x) == x
    except Exception:  # noqa: BLE001 — SymPy refuses some numbers; then it is not shown 0
        return False


MINIMAL_POLYNOMIAL_SECONDS = 2.0
"""The CPU time one minimal polynomial may take (nested radicals of large rationals can take
minutes); past it the constant is not shown to be 0."""


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
    size = _size(e, MAX_EXPANDED_TERMS + 1)
    if max(size.raw, size.inner_raw) > RING_EXPANSION_TERMS and max(
            size.terms, size.inner) <= MAX_EXPANDED_TERMS:
        found = ring_zero(e)
        if found is not None:
            return found
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
