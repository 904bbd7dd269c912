"""Adversarial claims for the kernel: a table of true and false identities whose truth is
established independently of `derive` (by the brute-force judge in tests/reference.py, or by a
hand argument given in the row), then the kernel's verdicts judged against it.

Each row: (name, cause, lhs, rhs, facts, truth, expected, must, point).

* `facts` are tuples (expr, relation), relation ">=", ">" or "!=" (expr ≥ 0, > 0, ≠ 0); the
  kernel's Fact objects are built from them inside the tests only, so that the table and its
  reference check import nothing from `derive` and run while the kernel is being rewritten.
* `truth` (the real semantics of docs/kernel.md: a point counts only where every subterm of
  both sides is a finite real number): True — the identity holds wherever both sides are
  defined, and no side is undefined where the other is defined; False — a point exists, in
  the domain and satisfying the facts, where both sides are defined, real, and differ;
  PARTIAL — no such point, but one side is undefined somewhere the other is defined (e.g.
  d/dt Max(t, 0) = 1 under t ≥ 0 has no derivative at t = 0). A PARTIAL claim is true (it
  says nothing where a side is undefined): the kernel may prove it and must never refute it.
* `expected`: what a good kernel should answer ("proved", "refuted", "either" — deciding it
  either way would be right, "unknown-ok" — unknown is a fine answer); `must` rows are
  hard-asserted by `test_decides`, the others only reported.
* `point`: for rows marked by hand (truth beyond the judge's small samples), the exact point
  that refutes them, checked by exact evaluation in `test_table_truth`.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import pytest
import reference as ref
import sympy as sp
from reference import PARTIAL

# ------------------------------------------------------------------------ symbols

n = sp.Symbol("n", integer=True)
m = sp.Symbol("m", integer=True)
a, b, c, d = sp.symbols("a b c d", integer=True)
i, j, k = sp.symbols("i j k", integer=True)
K = sp.Symbol("K", integer=True)
K_pos = sp.Symbol("K", integer=True, positive=True)
n_pos = sp.Symbol("n", integer=True, positive=True)
n_nonneg = sp.Symbol("n", integer=True, nonnegative=True)
m_odd = sp.Symbol("m", odd=True)
e_even = sp.Symbol("e", even=True)
p_prime = sp.Symbol("p", prime=True)
p_pos = sp.Symbol("p", integer=True, positive=True)

x, y, t, g = sp.symbols("x y t g", real=True)
x_pos = sp.Symbol("x", positive=True)
x_nonneg = sp.Symbol("x", nonnegative=True)
x_nonzero = sp.Symbol("x", real=True, nonzero=True)
x_nonint = sp.Symbol("x", noninteger=True)
x_intfalse = sp.Symbol("x", real=True, integer=False)
r_irr = sp.Symbol("r", irrational=True)
c_pos = sp.Symbol("c", positive=True)
u_real, v_real = sp.symbols("u v", real=True)

f = sp.Function("f", real=True)
F = sp.Function("F", real=True)  # two arguments
h = sp.Function("h", real=True)  # smooth, differentiated
X = sp.IndexedBase("X", real=True)
Sigma0 = sp.Function("Σ0", real=True)  # a user's function named like the kernel's prefix sums
Sigma1 = sp.Function("Σ1", real=True)

S, D, KD, Max, Min, Abs = sp.Sum, sp.Derivative, sp.KroneckerDelta, sp.Max, sp.Min, sp.Abs


def clip(z, bound):
    return Max(-bound, Min(z, bound))


class Row(NamedTuple):
    name: str
    cause: str
    lhs: sp.Expr
    rhs: sp.Expr
    facts: tuple = ()
    truth: object = True  # True, False or PARTIAL
    expected: str = "either"  # "proved" | "refuted" | "either" | "unknown-ok"
    must: bool = False
    point: dict | None = None  # by hand: a refuting point the judge's samples cannot reach


SUM = "1 Σ closed forms"
DERIV = "2 facts inside derivatives"
DOMAIN = "5 witness domains"
BOUND = "7 bound variables"
RESERVED = "8 reserved names"
OTHER = "identities, shifts, exchanges"

ROWS = [
    # ---------------------------------------------------------------- 1. Σ closed forms
    # SymPy's doit() says 0 for every n; at n = 0 the sum is C(0, 0) = 1.
    Row("alt_binomial", SUM, S((-1) ** i * sp.binomial(n, i), (i, 0, n)), 0,
        truth=False, expected="refuted", must=True),
    Row("alt_binomial_positive", SUM, S((-1) ** i * sp.binomial(n_pos, i), (i, 0, n_pos)), 0),
    Row("alt_binomial_fact", SUM, S((-1) ** i * sp.binomial(n, i), (i, 0, n)), 0,
        facts=((n - 1, ">="),)),
    Row("alt_binomial_delta", SUM, S((-1) ** i * sp.binomial(n_nonneg, i), (i, 0, n_nonneg)),
        KD(n_nonneg, 0)),
    # with SymPy's binomial for negative n, Karr's convention gives 0 for every n < 0 too
    Row("alt_binomial_delta_all_n", SUM, S((-1) ** i * sp.binomial(n, i), (i, 0, n)), KD(n, 0)),
    # SymPy's closed form of Σ δ(i, j) is 1 for 0 ≤ j ≤ n else 0: wrong for reversed ranges
    # (n = −3, j = −2: the sum is −Σ_{i=−2}^{−1} δ(i, −2) = −1).
    Row("kronecker_any_j", SUM, S(KD(i, j), (i, 0, n)), 1, truth=False, expected="refuted"),
    Row("kronecker_in_range", SUM, S(KD(i, j), (i, 0, n)), 1,
        facts=((j, ">="), (n - j, ">=")), expected="proved"),
    Row("kronecker_sympy_closed_form", SUM, S(KD(i, j), (i, 0, n)),
        sp.Piecewise((1, (j >= 0) & (j <= n)), (0, True)), truth=False, expected="refuted"),
    Row("kronecker_weighted", SUM, S(KD(i, j) * f(i), (i, 0, n)), f(j),
        facts=((j, ">="), (n - j, ">=")), expected="proved"),
    Row("kronecker_empty", SUM, S(KD(i, 0), (i, 0, n)), 1, truth=False, expected="refuted"),
    # by hand: the only nonzero term is i = 100, inside the range from n = 100 on.
    Row("kronecker_far", SUM, S(KD(i, 100), (i, 1, n)), 0, truth=False,
        expected="unknown-ok", point={n: 100}),
    Row("inv_factorial_step", SUM, S(1 / sp.factorial(i), (i, 0, n_nonneg)),
        S(1 / sp.factorial(i), (i, 0, n_nonneg - 1)) + 1 / sp.factorial(n_nonneg),
        expected="proved"),
    # n = −1: the left side is the empty sum 0, the right side has 1/(−1)! (undefined).
    Row("inv_factorial_step_all_n", SUM, S(1 / sp.factorial(i), (i, 0, n)),
        S(1 / sp.factorial(i), (i, 0, n - 1)) + 1 / sp.factorial(n), truth=PARTIAL,
        expected="unknown-ok"),
    Row("inv_factorial_off_by_one", SUM, S(1 / sp.factorial(i), (i, 0, n_nonneg)),
        S(1 / sp.factorial(i), (i, 0, n_nonneg - 1)) + 1 / sp.factorial(n_nonneg + 1),
        truth=False, expected="refuted", must=True),
    # SymPy's own closed form: right for n ≥ 0; at n = −1 it has lowergamma(0, 1) = ∞ (SymPy's
    # subs gives E there, since 0·lowergamma(0, 1) collapses to 0; the empty sum is 0).
    Row("inv_factorial_sympy_closed_form", SUM, S(1 / sp.factorial(i), (i, 0, n)),
        S(1 / sp.factorial(i), (i, 0, n)).doit(), truth=PARTIAL, expected="unknown-ok"),
    Row("recip_K_integer", SUM, S(1 / K, (k, 1, K)), 1, truth=False, expected="refuted",
        must=True),
    Row("recip_K_positive", SUM, S(1 / K_pos, (k, 1, K_pos)), 1, expected="proved"),
    # Karr: K < 0 gives −Σ_{k=K+1}^{0} 1/K = −(−K)/K = 1, so only K = 0 fails.
    Row("recip_K_nonzero_fact", SUM, S(1 / K, (k, 1, K)), 1, facts=((K, "!="),)),
    Row("gauss", SUM, S(i, (i, 1, n)), n * (n + 1) / 2, expected="proved", must=True),
    Row("gauss_from_0", SUM, S(i, (i, 0, n)), n * (n + 1) / 2, expected="proved"),
    Row("gauss_off_by_one", SUM, S(i, (i, 1, n)), n * (n - 1) / 2, truth=False,
        expected="refuted", must=True),
    Row("gauss_a_b", SUM, S(i, (i, a, b)), (b - a + 1) * (a + b) / 2, expected="proved"),
    Row("squares", SUM, S(i ** 2, (i, 1, n)), n * (n + 1) * (2 * n + 1) / 6, expected="proved"),
    Row("squares_wrong", SUM, S(i ** 2, (i, 1, n)), n * (n + 1) * (2 * n - 1) / 6, truth=False,
        expected="refuted", must=True),
    Row("cubes", SUM, S(i ** 3, (i, 1, n)), (n * (n + 1) / 2) ** 2, expected="proved"),
    Row("odd_numbers", SUM, S(2 * i - 1, (i, 1, n)), n ** 2, expected="proved"),
    Row("odd_numbers_off_by_one", SUM, S(2 * i + 1, (i, 1, n)), n ** 2, truth=False,
        expected="refuted", must=True),
    Row("count_off_by_one", SUM, S(1, (i, 0, n)), n, truth=False, expected="refuted",
        must=True),
    Row("geometric", SUM, S(x ** i, (i, 0, n)), (x ** (n + 1) - 1) / (x - 1),
        facts=((x - 1, "!="), (x, "!=")), expected="proved", must=True),
    Row("geometric_positive", SUM, S(x_pos ** i, (i, 0, n)), (x_pos ** (n + 1) - 1) / (x_pos - 1),
        facts=((x_pos - 1, "!="),), expected="proved"),
    # Without x ≠ 0 both sides are undefined together (x = 0, n < −1) and equal at x = 0, n ≥ 0
    # (0**0 = 1): still an identity.
    Row("geometric_only_x_ne_1", SUM, S(x ** i, (i, 0, n)), (x ** (n + 1) - 1) / (x - 1),
        facts=((x - 1, "!="),)),
    # Without x ≠ 1: at x = 1 the left side is n + 1, the right side 0/0.
    Row("geometric_no_facts", SUM, S(x ** i, (i, 0, n)), (x ** (n + 1) - 1) / (x - 1),
        truth=PARTIAL, expected="unknown-ok"),
    Row("geometric_off_by_one", SUM, S(x ** i, (i, 0, n)), (x ** n - 1) / (x - 1),
        facts=((x - 1, "!="), (x, "!=")), truth=False, expected="refuted", must=True),
    Row("geometric_from_1", SUM, S(x ** i, (i, 1, n)), (x ** (n + 1) - 1) / (x - 1),
        facts=((x - 1, "!="), (x, "!=")), truth=False, expected="refuted", must=True),
    # dropped hypotheses: n ≥ 0 is needed (n = −1: 0 ≠ 1/2; n = −2: −1 ≠ 1)
    Row("binomial_row_all_n", SUM, S(sp.binomial(n, i), (i, 0, n)), 2 ** n, truth=False,
        expected="refuted"),
    Row("binomial_row_nonneg", SUM, S(sp.binomial(n_nonneg, i), (i, 0, n_nonneg)), 2 ** n_nonneg),
    Row("abs_gauss_fact", SUM, S(Abs(i), (i, 1, n)), n * (n + 1) / 2, facts=((n, ">="),),
        expected="proved"),
    Row("abs_gauss_dropped_fact", SUM, S(Abs(i), (i, 1, n)), n * (n + 1) / 2, truth=False,
        expected="refuted"),
    # by hand: every term vanishes until i = 51, so n = 51 gives 1 ≠ 0.
    Row("max_far", SUM, S(Max(i - 50, 0), (i, 0, n)), 0, facts=((n, ">="),), truth=False,
        expected="unknown-ok", point={n: 51}),

    # ---------------------------------------------------------------- 2. derivatives
    Row("dmax_fact_ge", DERIV, D(Max(t, 0), t), 1, facts=((t, ">="),), truth=PARTIAL,
        expected="unknown-ok"),
    Row("dmax_fact_gt", DERIV, D(Max(t, 0), t), 1, facts=((t, ">"),), expected="proved"),
    Row("dmax_fact_ge_minus_1", DERIV, D(Max(t, 0), t), 1, facts=((t + 1, ">="),),
        truth=False, expected="refuted", must=True),
    Row("dmax_no_fact", DERIV, D(Max(t, 0), t), 1, truth=False, expected="refuted", must=True),
    Row("dabs_fact_ge", DERIV, D(Abs(t), t), 1, facts=((t, ">="),), truth=PARTIAL,
        expected="unknown-ok"),
    # at t = 0 the derivative does not exist but sign(0) = 0 does
    Row("dabs_sign", DERIV, D(Abs(t), t), sp.sign(t), truth=PARTIAL, expected="unknown-ok"),
    # both sides undefined at 0 alone
    Row("dabs_ratio", DERIV, D(Abs(t), t), t / Abs(t)),
    Row("dabs_negative", DERIV, D(Abs(t), t), -1, facts=((-t, ">"),), expected="proved"),
    Row("dabs_wrong_branch", DERIV, D(Abs(t), t), -1, facts=((1 - t, ">"),), truth=False,
        expected="refuted", must=True),
    Row("d2abs", DERIV, D(Abs(t), (t, 2)), 0, facts=((t, ">"),), expected="proved"),
    Row("clip_at_threshold", DERIV, D(clip(g, c_pos), g), 1,
        facts=((c_pos - g, ">="), (g + c_pos, ">=")), truth=PARTIAL, expected="unknown-ok"),
    Row("clip_inside", DERIV, D(clip(g, c_pos), g), 1,
        facts=((c_pos - g, ">"), (g + c_pos, ">")), expected="proved"),
    Row("clip_one_sided", DERIV, D(clip(g, c_pos), g), 1, facts=((c_pos - g, ">"),),
        truth=False, expected="refuted", must=True),
    Row("clip_above", DERIV, D(clip(g, c_pos), g), 0, facts=((g - c_pos, ">"),),
        expected="proved"),
    Row("clip_above_ge", DERIV, D(clip(g, c_pos), g), 0, facts=((g - c_pos, ">="),),
        truth=PARTIAL, expected="unknown-ok"),
    Row("piecewise_boundary", DERIV, D(sp.Piecewise((t, t < 0), (2 * t, True)), t), 1,
        facts=((-t, ">="),), truth=PARTIAL, expected="unknown-ok"),
    Row("piecewise_inside", DERIV, D(sp.Piecewise((t, t < 0), (2 * t, True)), t), 1,
        facts=((-t, ">"),), expected="proved"),
    Row("piecewise_wrong_branch", DERIV, D(sp.Piecewise((t, t < 0), (2 * t, True)), t), 1,
        facts=((1 - t, ">="),), truth=False, expected="refuted", must=True),
    Row("piecewise_right", DERIV, D(sp.Piecewise((t, t < 0), (2 * t, True)), t), 2,
        facts=((t, ">"),), expected="proved"),
    Row("dmax_chain", DERIV, D(Max(h(t), 0), t), D(h(t), t), facts=((h(t), ">"),),
        expected="proved"),
    Row("dmax_chain_wrong_fact", DERIV, D(Max(h(t), 0), t), D(h(t), t), facts=((t, ">="),),
        truth=False, expected="refuted"),

    # ---------------------------------------------------------------- 5. witness domains
    Row("odd_floor", DOMAIN, 2 * sp.floor(m_odd / 2) + 1, m_odd, expected="proved"),
    Row("odd_floor_integer", DOMAIN, 2 * sp.floor(m / 2) + 1, m, truth=False,
        expected="refuted"),
    Row("odd_square_mod_8", DOMAIN, sp.Mod(m_odd ** 2 - 1, 8), 0),
    Row("odd_square_mod_8_integer", DOMAIN, sp.Mod(m ** 2 - 1, 8), 0, truth=False,
        expected="refuted"),
    # SymPy rewrites (−1)**m as −1 for an odd m at construction: the kernel sees −1 = −1.
    Row("odd_sign_power", DOMAIN, (-1) ** m_odd, -1, expected="proved"),
    Row("sign_power_integer", DOMAIN, (-1) ** m, -1, truth=False, expected="refuted"),
    Row("even_half", DOMAIN, sp.floor((e_even + 1) / 2), e_even / 2, expected="proved"),
    Row("even_half_integer", DOMAIN, sp.floor((m + 1) / 2), m / 2, truth=False,
        expected="refuted"),
    Row("noninteger_floor_pair", DOMAIN, sp.floor(x_nonint) + sp.floor(-x_nonint), -1,
        expected="proved"),
    Row("real_floor_pair", DOMAIN, sp.floor(x) + sp.floor(-x), -1, truth=False,
        expected="refuted"),
    Row("integer_false_ceiling", DOMAIN, sp.ceiling(x_intfalse) - sp.floor(x_intfalse), 1,
        expected="proved"),
    Row("irrational_floor_ceiling", DOMAIN, sp.floor(r_irr) + sp.ceiling(r_irr),
        2 * sp.floor(r_irr) + 1, expected="proved"),
    Row("irrational_square", DOMAIN, r_irr ** 2, 2, truth=False, expected="refuted"),
    # SymPy rewrites sign(x)**2 as 1 for a nonzero x at construction; Heaviside stays.
    Row("nonzero_sign_squared", DOMAIN, sp.sign(x_nonzero) ** 2, 1, expected="proved"),
    Row("real_sign_squared", DOMAIN, sp.sign(x) ** 2, 1, truth=False, expected="refuted"),
    Row("nonzero_heaviside_squared", DOMAIN, sp.Heaviside(x_nonzero) ** 2,
        sp.Heaviside(x_nonzero), expected="proved"),
    # Heaviside(0) = 1/2 in SymPy: 1/4 ≠ 1/2
    Row("real_heaviside_squared", DOMAIN, sp.Heaviside(x) ** 2, sp.Heaviside(x), truth=False,
        expected="refuted"),
    Row("nonzero_abs_ratio", DOMAIN, Abs(x_nonzero) / x_nonzero, sp.sign(x_nonzero),
        expected="proved"),
    Row("real_abs_ratio", DOMAIN, Abs(x) / x, sp.sign(x), truth=PARTIAL, expected="unknown-ok"),
    # u/|u| has a value only where u ≠ 0, and there it is sign(u) (issue 34: the L1 gradient
    # r/|r|·x against sympy.diff's sign(r)·x, with more residuals than cases can split on)
    Row("quotient_abs_sign", DOMAIN, x / Abs(x), sp.sign(x), truth=PARTIAL, expected="proved",
        must=True),
    Row("quotient_abs_sign_three", DOMAIN, g * (x / Abs(x) + y / Abs(y) + t / Abs(t)),
        g * (sp.sign(x) + sp.sign(y) + sp.sign(t)), truth=PARTIAL, expected="proved", must=True),
    Row("quotient_abs_sign_affine", DOMAIN,
        (x * (g * x - y) / Abs(g * x - y) + t * (g * t - u_real) / Abs(g * t - u_real)
         + v_real * (g * v_real - 1) / Abs(g * v_real - 1)) / 3,
        (x * sp.sign(g * x - y) + t * sp.sign(g * t - u_real)
         + v_real * sp.sign(g * v_real - 1)) / 3, truth=PARTIAL, expected="proved", must=True),
    Row("quotient_abs_negated_sign", DOMAIN, g * x / Abs(x), -g * sp.sign(x), truth=False,
        expected="refuted", must=True),
    Row("abs_quotient_negated_sign", DOMAIN, Abs(x) / x, -sp.sign(x), truth=False,
        expected="refuted", must=True),
    Row("quotient_abs_other_sign", DOMAIN, x / Abs(x) + y / Abs(y), sp.sign(x) + sp.sign(y - 1),
        truth=False, expected="refuted", must=True),
    # sign(0) = 0 where the other side's guard is about y only: false at x = 0
    Row("sign_squared_beside_a_guard", DOMAIN, sp.sign(x) ** 2 * y / Abs(y), y / Abs(y),
        truth=False, expected="refuted", must=True),
    Row("prime_fermat_2", DOMAIN, sp.Mod(2 ** p_prime - 2, p_prime), 0),
    Row("positive_fermat_2", DOMAIN, sp.Mod(2 ** p_pos - 2, p_pos), 0, truth=False,
        expected="refuted"),
    Row("prime_is_odd", DOMAIN, (-1) ** p_prime, -1, truth=False, expected="refuted"),
    Row("sqrt_of_square", DOMAIN, sp.sqrt(x * x), x, truth=False, expected="refuted"),
    Row("sqrt_of_square_nonneg", DOMAIN, sp.sqrt(x_nonneg * x_nonneg), x_nonneg,
        expected="proved"),
    # SymPy rewrites sqrt(x)**2 as x at construction: the claim the kernel sees is x = x.
    Row("sqrt_squared", DOMAIN, sp.sqrt(x) ** 2, x, expected="proved"),
    # x = y = −1: both sides are real, i·i = −1 against sqrt(1) = 1 (a non-real intermediate
    # value is allowed; only the sides must be real).
    # x = y = −1: i·i = −1 against 1 would refute it if non-real subterms were allowed; every
    # subterm real, √x·√y needs x, y ≥ 0, where it is √(xy) (x = 0, y = −1: only the right
    # side is defined)
    Row("sqrt_product", DOMAIN, sp.sqrt(x) * sp.sqrt(y), sp.sqrt(x * y), truth=PARTIAL,
        expected="proved", must=True),
    Row("sqrt_product_one_fact", DOMAIN, sp.sqrt(x) * sp.sqrt(y), sp.sqrt(x * y),
        facts=((x, ">="),), truth=PARTIAL, expected="proved"),
    Row("sqrt_product_facts", DOMAIN, sp.sqrt(x) * sp.sqrt(y), sp.sqrt(x * y),
        facts=((x, ">="), (y, ">=")), expected="proved"),
    # x = −1: log(1) = 0 against 2·log(−1) = 2πi (non-real)
    Row("log_square", DOMAIN, sp.log(x ** 2), 2 * sp.log(x), truth=PARTIAL,
        expected="unknown-ok"),
    Row("log_square_positive", DOMAIN, sp.log(x_pos ** 2), 2 * sp.log(x_pos), expected="proved"),

    # ---------------------------------------------------------------- 7. bound variables
    Row("indexed_fact_inside_sum", BOUND, S(Abs(X[i]), (i, 1, n)), S(X[i], (i, 1, n)),
        facts=((X[i], ">="),), truth=False, expected="refuted"),
    Row("function_fact_inside_sum", BOUND, S(Max(f(i), 0), (i, 1, n)), S(f(i), (i, 1, n)),
        facts=((f(i), ">="),), truth=False, expected="refuted"),
    Row("index_fact_inside_constant_sum", BOUND, S(Max(i, 1), (i, 0, 2)), S(i, (i, 0, 2)),
        facts=((i - 1, ">="),), truth=False, expected="refuted"),
    Row("index_fact_abs", BOUND, S(Abs(i), (i, -1, 1)), S(i, (i, -1, 1)), facts=((i, ">="),),
        truth=False, expected="refuted"),
    Row("indexed_fact_free", BOUND, Abs(X[i]), X[i], facts=((X[i], ">="),),
        expected="proved"),
    Row("indexed_fact_free_and_bound", BOUND, Abs(X[i]) + S(X[i], (i, 1, n)),
        X[i] + S(X[i], (i, 1, n)), facts=((X[i], ">="),), expected="proved"),
    Row("indexed_rename_bound", BOUND, S(Abs(X[i]), (i, 1, n)), S(Abs(X[j]), (j, 1, n)),
        expected="proved"),

    # ---------------------------------------------------------------- 8. reserved names
    Row("sigma0_at_0", RESERVED, Sigma0(0), 0, truth=False, expected="refuted"),
    Row("sigma1_step", RESERVED, Sigma1(1), Sigma1(0), truth=False, expected="refuted"),
    Row("sigma1_not_prefix_sum", RESERVED, S(f(i), (i, 1, n)), Sigma1(n), truth=False,
        expected="refuted"),
    Row("sigma0_difference", RESERVED, Sigma0(n) - Sigma0(n - 1), f(n), truth=False,
        expected="refuted"),
    Row("sigma0_telescope", RESERVED, S(Sigma0(i + 1) - Sigma0(i), (i, 0, n)),
        Sigma0(n + 1) - Sigma0(0), expected="proved"),
    Row("sigma0_peel_last", RESERVED, S(Sigma0(i), (i, 0, n)),
        S(Sigma0(i), (i, 0, n - 1)) + Sigma0(n), expected="proved"),

    # ---------------------------------------------------------------- identities and sums
    Row("log_6", OTHER, sp.log(6), sp.log(2) + sp.log(3), expected="proved", must=True),
    Row("log_6_wrong", OTHER, sp.log(6), sp.log(2) + sp.log(4), truth=False, expected="refuted"),
    Row("sqrt_denest", OTHER, sp.sqrt(2) + sp.sqrt(3), sp.sqrt(5 + 2 * sp.sqrt(6)),
        expected="proved", must=True),
    Row("sqrt_denest_wrong", OTHER, sp.sqrt(2) + sp.sqrt(3), sp.sqrt(5 + sp.sqrt(6)),
        truth=False, expected="refuted"),
    Row("exp_add", OTHER, sp.exp(u_real + v_real), sp.exp(u_real) * sp.exp(v_real),
        expected="proved", must=True),
    Row("exp_add_wrong", OTHER, sp.exp(u_real + v_real), sp.exp(u_real) + sp.exp(v_real),
        truth=False, expected="refuted"),
    Row("different_shifts", OTHER, S(f(i + 1) - f(i - 1), (i, a, b)),
        f(b + 1) + f(b) - f(a) - f(a - 1), expected="proved", must=True),
    Row("different_shifts_off_by_one", OTHER, S(f(i + 1) - f(i - 1), (i, a, b)),
        f(b + 1) - f(a - 1), truth=False, expected="refuted", must=True),
    Row("symbolic_shift", OTHER, S(f(n + i), (i, 1, m)), S(f(j), (j, n + 1, n + m)),
        expected="proved", must=True),
    Row("symbolic_shift_off_by_one", OTHER, S(f(n + i), (i, 1, m)), S(f(j), (j, n, n + m)),
        truth=False, expected="refuted", must=True),
    Row("reflection", OTHER, S(f(n - 1 - i), (i, 0, n - 1)), S(f(i), (i, 0, n - 1)),
        expected="proved", must=True),
    Row("reflection_off_by_one", OTHER, S(f(n - i), (i, 0, n - 1)), S(f(i), (i, 0, n - 1)),
        truth=False, expected="refuted", must=True),
    Row("single_term", OTHER, S(f(i), (i, 0, 0)), f(0), expected="proved", must=True),
    Row("single_term_off_by_one", OTHER, S(f(i), (i, 0, 0)), f(1), truth=False,
        expected="refuted", must=True),
    Row("empty_sum", OTHER, S(f(i), (i, 1, 0)), 0, expected="proved"),
    Row("reversed_sum", OTHER, S(f(i), (i, 1, -1)), -f(0), expected="proved"),
    Row("reversed_sum_as_empty", OTHER, S(f(i), (i, 1, -1)), 0, truth=False,
        expected="refuted", must=True),
    Row("split_anywhere", OTHER, S(f(i), (i, a, b)), S(f(i), (i, a, c)) + S(f(i), (i, c + 1, b)),
        expected="proved"),
    Row("split_overlap", OTHER, S(f(i), (i, a, b)), S(f(i), (i, a, c)) + S(f(i), (i, c, b)),
        truth=False, expected="refuted", must=True),
    Row("exchange", OTHER, S(S(F(i, j), (j, c, d)), (i, a, b)), S(S(F(i, j), (i, a, b)), (j, c, d)),
        expected="proved", must=True),
    Row("exchange_swapped_arguments", OTHER, S(S(F(i, j), (j, c, d)), (i, a, b)),
        S(S(F(j, i), (i, a, b)), (j, c, d)), truth=False, expected="refuted", must=True),
    Row("triangular", OTHER, S(S(F(i, j), (j, a, i)), (i, a, b)),
        S(S(F(i, j), (i, j, b)), (j, a, b)), expected="proved", must=True),
    Row("triangular_strict", OTHER, S(S(F(i, j), (j, a, i - 1)), (i, a, b)),
        S(S(F(i, j), (i, j + 1, b)), (j, a, b)), expected="proved"),
    Row("triangular_off_by_one", OTHER, S(S(F(i, j), (j, a, i)), (i, a, b)),
        S(S(F(i, j), (i, j + 1, b)), (j, a, b)), truth=False, expected="refuted", must=True),
]

assert len({r.name for r in ROWS}) == len(ROWS), "duplicate row names"

IDS = [r.name for r in ROWS]


# ------------------------------------------------------------------------ the table's truth


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_table_truth(row: Row):
    """Each row's truth, from the independent judge (or the by-hand point)."""
    if row.point is not None:
        assert row.truth is False
        env = dict(row.point)
        for sym, value in env.items():
            assert ref.in_domain(sym, value)
        assert all(ref.fact_holds(fact, env) for fact in row.facts)
        left, right = ref.evaluate(row.lhs, env), ref.evaluate(row.rhs, env)
        assert left is not ref.UNDEFINED and right is not ref.UNDEFINED
        assert ref.differ(left, right), (left, right)
        return
    found = ref.scan(row.lhs, row.rhs, row.facts,
                     stop_early="counterexample" if row.truth is False else False)
    if found.counterexample is not None:
        verdict = ref.FALSE
    else:
        verdict = ref.PARTIAL if found.partial is not None else ref.TRUE
    want = {True: ref.TRUE, False: ref.FALSE, PARTIAL: ref.PARTIAL}[row.truth]
    assert verdict == want, (f"{row.name}: judged {verdict}, the table says {want}; "
                             f"counterexample {found.counterexample}, "
                             f"partial point {found.partial}")
    if row.truth is not False:
        # not vacuous: the sides were compared at enough points (one for a closed claim)
        symbols, functions, bases, _ = ref.claim_parts([row.lhs, row.rhs])
        enough = 20 if (symbols or functions or bases) else 1
        assert found.compared >= enough, f"{row.name}: compared at {found.compared} points only"


def test_table_covers_every_cause():
    counts = {}
    for r in ROWS:
        counts.setdefault(r.cause, {True: 0, False: 0, PARTIAL: 0})[r.truth] += 1
    assert len(ROWS) >= 60
    for cause, by_truth in counts.items():
        assert by_truth[True] + by_truth[PARTIAL] >= 1 and by_truth[False] >= 1, cause
    assert set(counts) == {SUM, DERIV, DOMAIN, BOUND, RESERVED, OTHER}


# ------------------------------------------------------------------------ against the kernel


def _facts(row: Row):
    from derive.kernel import hypothesis, nonzero, positive

    makers = {">=": hypothesis, ">": positive, "!=": nonzero}
    return tuple(makers[rel](expr, f"table: {expr} {rel} 0") for expr, rel in row.facts)


@functools.lru_cache(maxsize=None)
def _decision(name: str):
    from derive.kernel import decide

    row = next(r for r in ROWS if r.name == name)
    return decide(row.lhs, row.rhs, _facts(row))


def _reverify(row: Row, decision) -> None:
    """Check a refutation's witness by exact evaluation with the judge, not with derive."""
    w = decision.witness
    assert w is not None, "refuted without a witness"
    point = dict(w.substitution())
    symbols, functions, bases, _ = ref.claim_parts(
        [row.lhs, row.rhs, *(sp.sympify(e) for e, _ in row.facts)])
    for sym in symbols:
        assert any(str(s) == str(sym) for s in point), f"the witness leaves {sym} open"
    for s, value in point.items():
        if isinstance(s, sp.Symbol):
            sym = next((q for q in symbols if q == s or str(q) == str(s)), s)
            assert ref.in_domain(sym, sp.sympify(value)), (
                f"witness value {s} = {value} is outside {sym}'s domain {sym.assumptions0}")
    for fact in row.facts:
        assert ref.fact_holds(fact, point), f"the fact {fact} fails at the witness {point}"
    left, right = ref.evaluate(row.lhs, point), ref.evaluate(row.rhs, point)
    assert left is not ref.UNDEFINED, f"lhs undefined at the witness {point}"
    assert right is not ref.UNDEFINED, f"rhs undefined at the witness {point}"
    assert ref.differ(left, right), f"both sides are {left} at the witness {point}"
    assert not ref.differ(left, sp.sympify(w.lhs)), (left, w.lhs)
    assert not ref.differ(right, sp.sympify(w.rhs)), (right, w.rhs)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_never_wrong(row: Row):
    from derive.kernel import Verdict

    decision = _decision(row.name)
    if row.truth is False:
        assert decision.verdict is not Verdict.PROVED, f"{row.name} is false, yet proved: " \
                                                       f"{decision}"
    if decision.verdict is Verdict.REFUTED:
        assert row.truth is False, f"{row.name} is true, yet refuted: {decision}"
        _reverify(row, decision)


DECIDED: dict[str, tuple[str, str]] = {}


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_decides(row: Row):
    from derive.kernel import Verdict

    verdict = _decision(row.name).verdict
    DECIDED[row.name] = (row.expected, str(getattr(verdict, "value", verdict)))
    if row.must:
        want = {"proved": Verdict.PROVED, "refuted": Verdict.REFUTED}[row.expected]
        assert verdict is want, f"{row.name}: expected {row.expected}, got {verdict}"


def test_decides_summary(capsys):
    """A soft report: which share of the rows the kernel decides as a good kernel should."""
    if not DECIDED:
        pytest.skip("no test_decides ran")
    good = {name for name, (expected, got) in DECIDED.items()
            if got == expected or (expected in ("either", "unknown-ok")
                                   and got in ("proved", "refuted"))}
    decided = {name for name, (_, got) in DECIDED.items() if got in ("proved", "refuted")}
    lines = [f"adversarial table: {len(decided)}/{len(DECIDED)} decided, "
             f"{len(good)}/{len(DECIDED)} as expected"]
    for name, (expected, got) in sorted(DECIDED.items()):
        if name not in good and expected != "unknown-ok":
            lines.append(f"  {name}: expected {expected}, got {got}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))


# ------------------------------------------------------------------------ separate cases


FLOAT_CLAIMS = [
    ("tiny_float_coefficient", x + sp.Float("1e-30") * x, x),
    ("float_sum", sp.Float("0.1") + sp.Float("0.2"), sp.Rational(3, 10)),
    ("python_float", 0.5, sp.Rational(1, 2)),
    ("python_float_rhs", x / 2, 0.5 * x),
]


@pytest.mark.parametrize("lhs, rhs", [(l, r) for _, l, r in FLOAT_CLAIMS],
                         ids=[name for name, _, _ in FLOAT_CLAIMS])
def test_floats_make_the_claim_invalid(lhs, rhs):
    from derive.kernel import InvalidClaim, decide

    with pytest.raises(InvalidClaim):
        decide(lhs, rhs, ())


def test_float_in_a_fact_is_invalid():
    from derive.kernel import InvalidClaim, decide, hypothesis

    with pytest.raises(InvalidClaim):
        decide(Max(x, 0), x, (hypothesis(x - sp.Float("0.5"), "a float fact"),))


def test_certificate_from_facts_not_the_statements():
    """A certificate for x ≥ 0 built on a forged fact −1 ≥ 0 that is not among the
    statement's facts: x = ¼(x+1)² + ¼·(−1)·(x−1)². The kernel must reject the certificate
    (when it is built, or when decide sees it) or at least not prove Max(x, 0) = x, which is
    false at x = −1 where the statement's own fact x + 1 ≥ 0 holds."""
    import derive.kernel as kernel

    stated = kernel.hypothesis(x + 1, "the statement's fact: x ≥ −1")
    forgeries = [dataclasses.replace(stated, expr=sp.Integer(-1))]
    try:
        forgeries.append(kernel.hypothesis(sp.Integer(-1), "forged: −1 ≥ 0"))
    except Exception:  # refusing a false constant fact outright is fine
        pass
    rejections = (ValueError, getattr(kernel, "InvalidClaim", ValueError),
                  getattr(kernel, "CertificateError", ValueError))
    for forged in forgeries:
        try:
            cert = kernel.certify(
                x,
                [(sp.Rational(1, 4), ((x + 1) ** 2,)), (sp.Rational(1, 4), (forged, (x - 1) ** 2))],
                "x ≥ 0 from −1 ≥ 0",
                facts=(stated,),
            )
        except rejections:
            continue
        for facts in [(stated, cert), (cert,)]:
            try:
                decision = kernel.decide(Max(x, 0), x, facts)
            except rejections:
                continue
            assert decision.verdict is not kernel.Verdict.PROVED, (
                f"proved Max(x, 0) = x from a certificate resting on {forged}")
