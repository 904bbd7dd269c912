"""Claims about the real semantics of issue 22 (no tests here; no import of derive).

TABLE: claims whose truth under the REAL semantics is established by hand (the `why` of each
row) and by tests/real_reference.py, with the verdict derive owes them: `proved` for a true
claim, `refuted` for a false one. Most are true on the real domain and FALSE under the OLD
"final value" semantics (they flip: the reference finds an OLD counterexample, a point where a
subexpression is not real); the false ones carry an exact witness of the real domain.

INDEX_CLAIMS: statements in TOML whose index letters (i, k, t, j) range over their family's
integers, each with the same claim built in SymPy with integer symbols, for the reference.

Generators (`claims(rng)` and the hypothesis strategies of tests/test_semantics.py): random
claims with roots, logs, powers with rational and symbolic exponents, quotients, |·|, max and
min, and their rewritings (swapped sides, lhs − rhs = 0, a term added to both sides, a symbol
renamed, both sides scaled, an identity of the domain applied to a subterm).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import sympy as sp
from real_reference import Claim

x, y, z, a, b, c, k, m, r = sp.symbols("x y z a b c k m r", real=True)
N = sp.Symbol("N", integer=True, positive=True)
half, third = sp.Rational(1, 2), sp.Rational(1, 3)
sqrt, log, exp, Abs, Max, Min, D = sp.sqrt, sp.log, sp.exp, sp.Abs, sp.Max, sp.Min, sp.Derivative


@dataclass(frozen=True)
class Row:
    """One claim of the table: its truth under REAL, the hand argument, and the points that
    show it: `witness` (a false claim: an exact point of the real domain where the sides
    differ) and `old` (a point the OLD grid would not reach where the claim fails under OLD)."""

    id: str
    lhs: sp.Expr
    rhs: sp.Expr
    true: bool
    why: str
    facts: tuple = ()
    witness: dict | None = None
    old: dict | None = None
    issue: bool = False

    @property
    def claim(self) -> Claim:
        return Claim(sp.sympify(self.lhs), sp.sympify(self.rhs), self.facts)

    @property
    def expect(self) -> str:
        return "proved" if self.true else "refuted"


def T(id, lhs, rhs, why, facts=(), old=None, issue=False) -> Row:
    return Row(id, lhs, rhs, True, why, tuple(facts), None, old, issue)


def F(id, lhs, rhs, why, witness, facts=(), issue=False) -> Row:
    return Row(id, lhs, rhs, False, why, tuple(facts), witness, None, issue)


def ge(e):
    return (e, ">=")


def gt(e):
    return (e, ">")


A2 = Abs(sqrt(x)) ** 2  # |√x|²: x on the real domain x ≥ 0, |x| under OLD

TABLE: tuple[Row, ...] = (
    # ---- the issue's examples
    T("abs-sqrt-squared", A2, x, "√x is real only for x ≥ 0, and there |√x|² = x", issue=True),
    T("sqrt-ratio-product", sqrt(k / m) * sqrt(m / k), 1,
      "k/m and m/k are > 0 on the domain, and √u·√(1/u) = 1 for u > 0", issue=True),
    T("log-power-over-log", log(a**x) / log(a), x,
      "log a needs a > 0 (≠ 1 for the quotient); then log(a^x) = x·log a", issue=True),
    T("sqrt-shifted-product", sqrt((x - 3) * (x - 5)), sqrt(x - 3) * sqrt(x - 5),
      "the domain is x ≥ 5, where √(uv) = √u·√v for u, v ≥ 0", issue=True),
    T("log-product", log(x * y), log(x) + log(y),
      "log x and log y need x, y > 0, and there log(xy) = log x + log y", issue=True),
    T("sqrt-quotient", sqrt(x / y), sqrt(x) / sqrt(y), "x ≥ 0 and y > 0 on the domain",
      issue=True),
    T("power-product", a**b * a**c, a**(b + c),
      "a > 0: exponents add; a < 0: b, c integers; a = 0: b, c > 0 or 0^0 = 1", issue=True),
    T("cube-root-of-cube", (x**3) ** third, x,
      "x³ ≥ 0 iff x ≥ 0, and there the real cube root of x³ is x", issue=True),
    T("sqrt-of-cube", sqrt(r**3), r ** sp.Rational(3, 2), "r³ ≥ 0 iff r ≥ 0: both are r·√r",
      issue=True),
    T("power-successor", sp.Mul(x, x**N, evaluate=False), x ** (N + 1),
      "N is a positive integer: x·x^N = x^(N+1) for every real x", issue=True),
    T("power-successor-real", sp.Mul(x, x**y, evaluate=False), x ** (y + 1),
      "x > 0: exponents add; x < 0: y is an integer; x = 0: y > 0 (0^y and 0^(y+1) both 0)",
      issue=True),
    T("deriv-abs-nonneg", D(Abs(x), x), 1,
      "d|x|/dx does not exist at 0; for x > 0 it is 1", facts=[ge(x)], issue=True),
    T("deriv-x-abs-x", D(x * Abs(x), x), 2 * Abs(x),
      "x|x| is C¹: 2|x| away from 0, and (h|h| − 0)/h → 0 at 0", issue=True),
    T("deriv-max-squared", D(Max(x, 0) ** 2, x), 2 * Max(x, 0),
      "max(x,0)² is C¹: 2x for x > 0, 0 for x < 0, and h²/h → 0 at 0", issue=True),
    T("power-6000", (x - a) ** 6000, (x - a) ** 6000, "the same expression on both sides",
      issue=True),
    # ---- roots: products, quotients, nested
    T("sqrt-product", sqrt(x) * sqrt(y), sqrt(x * y), "x, y ≥ 0 on the domain"),
    T("sqrt-double-product", sqrt(2 * x) * sqrt(2 * y), 2 * sqrt(x * y),
      "x, y ≥ 0: √(2x)·√(2y) = √(4xy)"),
    T("sqrt-x-x-plus-1", sqrt(x * (x + 1)), sqrt(x) * sqrt(x + 1),
      "√x needs x ≥ 0, so x, x + 1 ≥ 0"),
    T("sqrt-difference-of-squares", sqrt(x**2 - 1), sqrt(x - 1) * sqrt(x + 1),
      "the right side needs x ≥ 1, where x − 1, x + 1 ≥ 0"),
    T("sqrt-times-sqrt-inverse", sqrt(x) * sqrt(1 / x), 1, "x > 0 on the domain"),
    T("sqrt-three-factors", sqrt(x) * sqrt(y) * sqrt(z), sqrt(x * y * z),
      "x, y, z ≥ 0 on the domain"),
    T("sqrt-product-over-root", sqrt(x) * sqrt(y) / sqrt(x * y), 1, "x, y > 0 on the domain"),
    T("sqrt-root-over-product", sqrt(x * y) / (sqrt(x) * sqrt(y)), 1, "x, y > 0 on the domain"),
    T("sqrt-product-times-root", sqrt(x) * sqrt(y) * sqrt(x * y), x * y,
      "x, y ≥ 0: √x·√y = √(xy)"),
    T("abs-of-sqrt-product", Abs(sqrt(x) * sqrt(y)), sqrt(x) * sqrt(y),
      "x, y ≥ 0: √x·√y ≥ 0"),
    T("sqrt-quotients-product", sqrt(x / y) * sqrt(y / x), 1, "x/y > 0 on the domain"),
    T("sqrt-quotient-times-root", sqrt(x / y) * sqrt(y), sqrt(x),
      "√y and y ≠ 0 give y > 0, then x/y ≥ 0 gives x ≥ 0"),
    T("sqrt-cube-times-root", sqrt(x**3) * sqrt(x), x**2, "x ≥ 0: √(x³)·√x = √(x⁴) = x²"),
    T("sqrt-cube-over-root", sqrt(x**3) / sqrt(x), x, "x > 0: √(x³)/√x = x"),
    T("sqrt-quotient-mixed", sqrt(x) / sqrt(y) * sqrt(y / x), 1, "x, y > 0 on the domain"),
    T("sqrt-one-plus-abs-sqrt", sqrt(1 + A2), sqrt(1 + x), "x ≥ 0: |√x|² = x"),
    T("sqrt-sum-of-abs-sqrts", sqrt(A2 + Abs(sqrt(y)) ** 2), sqrt(x + y), "x, y ≥ 0"),
    T("abs-sqrt-product-squared", Abs(sqrt(x * y)) ** 2, x * y, "xy ≥ 0 on the domain"),
    T("abs-sqrt-squares-product", A2 * Abs(sqrt(y)) ** 2, x * y, "x, y ≥ 0 on the domain"),
    T("abs-sqrt-squares-sum", A2 + Abs(sqrt(y)) ** 2, x + y, "x, y ≥ 0 on the domain"),
    T("abs-sqrt-squared-over-x", A2 / x, 1, "x > 0 on the domain"),
    T("x-over-abs-sqrt-squared", x / A2, 1, "x > 0 on the domain"),
    T("inverse-abs-sqrt-squared", 1 / A2, 1 / x, "x > 0 on the domain"),
    T("difference-over-abs-sqrts", (x - y) / (A2 - Abs(sqrt(y)) ** 2), 1,
      "x, y ≥ 0 and x ≠ y: the denominator is x − y"),
    T("empty-interior-abs-product", Abs(sqrt(x) * sqrt(-x)), 0,
      "√x and √(−x) are both real only at x = 0"),
    T("empty-interior-sum", A2 + Abs(sqrt(-x)) ** 2, 0, "the domain is x = 0"),
    # ---- real powers, rational and symbolic exponents
    T("abs-power-three-halves", Abs(x ** sp.Rational(3, 2)) ** 2, x**3,
      "x ≥ 0: (x^(3/2))² = x³"),
    T("abs-cube-root-cubed", Abs(x**third) ** 3, x, "x^(1/3) is real only for x ≥ 0"),
    T("abs-fifth-root", Abs(x ** sp.Rational(1, 5)) ** 5, x, "x ≥ 0 on the domain"),
    T("abs-fourth-root", Abs(x ** sp.Rational(1, 4)) ** 4, x, "x ≥ 0 on the domain"),
    T("abs-three-quarter-power", Abs(x ** sp.Rational(3, 4)) ** 4, x**3, "x ≥ 0"),
    T("abs-symbolic-power-squared", Abs(x**y) ** 2, x ** (2 * y),
      "x > 0: both x^(2y); x < 0: y is an integer, x^(2y) = (x^y)² ≥ 0; x = 0: y > 0"),
    T("exp-y-log-x", exp(y * log(x)), Abs(x) ** y, "log x needs x > 0, so |x| = x"),
    T("sign-of-minus-one-power", sp.sign((-1) ** x) * (-1) ** x, 1,
      "(−1)^x is real only for integer x, where it is ±1"),
    # ---- logarithms
    T("log-square-over-log", log(x**2) / log(x), 2, "x > 0, x ≠ 1: log(x²) = 2 log x"),
    T("log-cube-over-log", log(x**3) / log(x), 3, "x > 0, x ≠ 1: log(x³) = 3 log x"),
    T("log-power-2x-over-log", log(a ** (2 * x)) / log(a), 2 * x,
      "a > 0, a ≠ 1: log(a^(2x)) = 2x·log a"),
    T("log-power-times-log", log(a**x) * log(a), x * log(a) ** 2, "a > 0 on the domain"),
    T("log-square-times-log", log(a**2) * log(a), 2 * log(a) ** 2, "a > 0 on the domain"),
    T("log-squared-quarter", log(x) ** 2, log(x**2) ** 2 / 4, "x > 0: log(x²) = 2 log x"),
    T("abs-log-squared", Abs(log(x)) ** 2, log(x) ** 2, "log x is real for x > 0"),
    T("log-times-log-inverse", log(x) * log(1 / x), -log(x) ** 2,
      "x > 0: log(1/x) = −log x"),
    T("log-square-times-log-y", log(x**2) * log(y), 2 * log(x) * log(y),
      "x, y > 0 on the domain"),
    T("log-power-times-log-b", log(a**x) * log(b), x * log(a) * log(b),
      "a, b > 0 on the domain"),
    # ---- max and min of roots
    T("max-abs-sqrt-zero", Max(A2, 0), x, "x ≥ 0 on the domain"),
    T("max-of-abs-sqrts", Max(A2, Abs(sqrt(y)) ** 2), Max(x, y), "x, y ≥ 0"),
    T("min-of-abs-sqrts", Min(A2, Abs(sqrt(y)) ** 2), Min(x, y), "x, y ≥ 0"),
    T("max-x-zero-is-abs-sqrt", Max(x, 0), A2, "x ≥ 0 on the domain"),
    T("max-sqrt-product-zero", Max(sqrt(x) * sqrt(y), 0), sqrt(x * y),
      "x, y ≥ 0: √x·√y = √(xy) ≥ 0"),
    T("min-sqrt-product-root", Min(sqrt(x) * sqrt(y), sqrt(x * y)), sqrt(x * y), "x, y ≥ 0"),
    T("min-sqrt-product-zero", Min(sqrt(x) * sqrt(y), 0), 0, "x, y ≥ 0: √x·√y ≥ 0"),
    T("max-abs-sqrt-y", Max(A2, y), Max(x, y), "x ≥ 0 on the domain"),
    T("max-x-abs-sqrt-y", Max(x, Abs(sqrt(y)) ** 2), Max(x, y), "y ≥ 0 on the domain"),
    T("min-minus-abs-sqrt", Min(-A2, x), -x, "x ≥ 0: min(−x, x) = −x"),
    # ---- functions of roots
    T("floor-abs-sqrt", sp.floor(A2), sp.floor(x), "x ≥ 0 on the domain"),
    T("exp-abs-sqrt", exp(A2), exp(x), "x ≥ 0 on the domain"),
    T("cos-sqrt-abs", sp.cos(sqrt(x)), sp.cos(sqrt(Abs(x))),
      "√x needs x ≥ 0, where |x| = x", old={x: -1}),
    T("min-cos-sqrt-one", Min(sp.cos(sqrt(x)), 1), sp.cos(sqrt(x)),
      "cos of a real number is ≤ 1", old={x: -1}),
    # ---- facts with roots in them
    T("fact-abs-sqrt-squared", Abs(x), x, "the fact's |√x|² needs x ≥ 0",
      facts=[ge(A2)]),
    T("fact-sqrt-product", Abs(x), x, "the fact's √x needs x ≥ 0",
      facts=[ge(sqrt(x) * sqrt(y) + 1)]),
    T("fact-cube-root", Abs(x - 1), x - 1, "x^(1/3) real needs x ≥ 0, then x^(1/3) ≥ 1: x ≥ 1",
      facts=[ge(Abs(x**third) - 1)]),
    T("fact-abs-sqrt-at-least-one", Abs(x - 1), x - 1, "|√x|² = x ≥ 1 on the domain",
      facts=[ge(A2 - 1)]),
    T("fact-log-squared", Abs(x), x, "the fact's log x needs x > 0",
      facts=[ge(Abs(log(x)) ** 2 - 1)], old={x: -1}),
    T("fact-nonpositive-sqrt-product", sqrt(x) * sqrt(y), sqrt(x * y),
      "x ≤ 0 and √x give x = 0: both sides 0", facts=[ge(-x)]),
    T("fact-sqrt-product-shift", Max(x, 0), x, "the fact's √x needs x ≥ 0",
      facts=[gt(sqrt(x) * sqrt(y) + 2)]),
    # ---- derivatives at kinks where they do not exist (and where they do)
    T("deriv-max-nonneg", D(Max(x, 0), x), 1, "no derivative at 0; 1 for x > 0",
      facts=[ge(x)]),
    T("deriv-min-nonneg", D(Min(x, 0), x), 0, "no derivative at 0; 0 for x > 0",
      facts=[ge(x)]),
    T("deriv-abs-squared", D(Abs(x), x) ** 2, 1, "d|x|/dx = ±1 where it exists (x ≠ 0)"),
    T("deriv-abs-times-sign", D(Abs(x), x) * sp.sign(x), 1, "x ≠ 0: sign(x)² = 1"),
    T("deriv-abs-plus-x", D(Abs(x) + x, x), 2, "no derivative at 0; 2 for x > 0",
      facts=[ge(x)]),
    T("deriv-y-abs", D(y * Abs(x), x), y,
      "y ≠ 0: none at x = 0, y for x > 0; y = 0: the function is 0", facts=[ge(x)]),
    T("deriv-max-x-y", D(Max(x, y), x), 1, "no derivative where x = y; 1 for x > y",
      facts=[ge(x - y)]),
    T("deriv-abs-x-minus-y", D(Abs(x - y), x), 1, "none at x = y; 1 for x > y",
      facts=[ge(x - y)]),
    T("deriv-abs-shifted", D(Abs(x - 1), x), 1, "none at 1; 1 for x > 1", facts=[ge(x - 1)]),
    T("deriv-max-is-sign", D(Max(x, 0), x), sp.sign(Max(x, 0)),
      "x > 0: 1 = sign(x); x < 0: 0 = sign(0); none at 0"),
    T("deriv-max-x-minus-x", D(Max(x, -x), x), 1, "max(x, −x) = |x|: none at 0, 1 for x > 0",
      facts=[ge(x)]),
    T("deriv-min-x-minus-x", D(Min(x, -x), x), -1, "min(x, −x) = −|x|: none at 0",
      facts=[ge(x)]),
    T("deriv-abs-times-abs-y", D(Abs(x) * Abs(y), x), Abs(y),
      "y ≠ 0: none at x = 0; y = 0: the function is 0", facts=[ge(x)]),
    T("deriv-max-idempotent", D(Max(x, 0), x) ** 2, D(Max(x, 0), x),
      "the derivative is 0 or 1 where it exists"),
    # ---- false on the real domain too: refuted with a point of the real domain
    F("sqrt-of-square", sqrt(x**2), x, "√(x²) = |x|", {x: -1}),
    F("sqrt-of-square-shifted", sqrt((x - 1) ** 2), x - 1, "√((x−1)²) = |x − 1|", {x: 0}),
    F("abs-power-symbolic", (x**2) ** y, x ** (2 * y),
      "x = −1, y = 1/2: (x²)^y = 1 but x^(2y) = −1", {x: -1, y: half}),
    F("power-of-power", (x**a) ** b, x ** (a * b), "x = −1, a = 2, b = 1/2: 1 against −1",
      {x: -1, a: 2, b: half}),
    F("power-of-power-inverse", (x**y) ** (1 / y), x, "x = −1, y = 2: ((−1)²)^(1/2) = 1",
      {x: -1, y: 2}),
    F("minus-one-power-2x", (-1) ** (2 * x), 1, "x = 1/2: (−1)^1 = −1 (x is real here)",
      {x: half}),
    F("abs-base-power", Abs(x) ** y, x**y, "x = −1, y = 1", {x: -1, y: 1}),
    F("abs-of-power", Abs(x**y), x**y, "x = −1, y = 1", {x: -1, y: 1}),
    F("sqrt-shifted-linear", sqrt(x - 3) * sqrt(x - 5), x - 4, "x = 5: 0 against 1", {x: 5}),
    F("sqrt-shifted-product-linear", sqrt((x - 3) * (x - 5)), x - 4, "x = 3: 0 against −1",
      {x: 3}),
    F("log-product-as-product", log(x * y), log(x) * log(y), "x = y = 2: log 4 ≠ (log 2)²",
      {x: 2, y: 2}),
    F("sqrt-of-sum", sqrt(x + y), sqrt(x) + sqrt(y), "x = y = 1: √2 ≠ 2", {x: 1, y: 1}),
    F("max-sqrt-one", Max(sqrt(x), 1), sqrt(x), "x = 0: 1 against 0", {x: 0}),
    F("deriv-abs", D(Abs(x), x), 1, "x = −1: −1", {x: -1}),
    F("deriv-abs-fact-below", D(Abs(x), x), 1, "x = −1/2 satisfies x ≥ −1: −1 against 1",
      {x: -half}, facts=[ge(x + 1)]),
    F("deriv-x-abs-x-wrong", D(x * Abs(x), x), 2 * x, "x = −1: 2 against −2", {x: -1}),
    F("deriv-max-squared-wrong", D(Max(x, 0) ** 2, x), 2 * x, "x = −1: 0 against −2",
      {x: -1}),
    F("deriv-min", D(Min(x, 0), x), 0, "x = −1: 1 against 0", {x: -1}),
    F("sqrt-ratio-product-wrong", sqrt(k / m) * sqrt(m / k), k / m, "k = 2, m = 1: 1 ≠ 2",
      {k: 2, m: 1}),
    F("log-power-over-log-plus-one", log(a**x) / log(a), x + 1, "a = 2, x = 0: 0 ≠ 1",
      {a: 2, x: 0}),
    F("power-product-wrong", a**b * a**c, a ** (b * c), "a = 2, b = c = 1: 4 ≠ 2",
      {a: 2, b: 1, c: 1}),
    F("nested-radical-sign", sqrt(x - 2 * sqrt(x - 1)), sqrt(x - 1) - 1,
      "x = 1: √1 = 1 against −1 (it is |√(x−1) − 1|)", {x: 1}),
    F("abs-sqrt-squared-negated", A2, -x, "x = 1: 1 against −1", {x: 1}),
    F("sqrt-product-negated", sqrt(x) * sqrt(y), -sqrt(x * y), "x = y = 1", {x: 1, y: 1}),
    F("fact-abs-sqrt-false", Abs(x - 2), x - 2, "x = 1 satisfies |√x|² ≥ 1: 1 against −1",
      {x: 1}, facts=[ge(A2 - 1)]),
    F("empty-interior-product", sqrt(x) * sqrt(-x), 1, "x = 0: 0 against 1", {x: 0}),
    F("power-successor-wrong", x ** (N + 1), x**N + x, "x = 1, N = 1: 1 ≠ 2", {x: 1, N: 1}),
    F("cos-sqrt-one", sp.cos(sqrt(x)), 1, "x = 1: cos 1 ≠ 1", {x: 1}),
)


# ------------------------------------------------------------------------------ index letters

i_, k_, t_, j_ = (sp.Symbol(n, integer=True, positive=True) for n in "iktj")
Ns, Ks, Ts, ds = (sp.Symbol(n, integer=True, positive=True) for n in ("N", "K", "T", "d"))
SIZE = {"i": Ns, "k": Ks, "t": Ts, "j": ds}
LETTER = {"i": i_, "k": k_, "t": t_, "j": j_}


X = sp.Function("x")


def written(text: str) -> sp.Expr:
    """A formula of an index claim as SymPy reads it without evaluating (so that (−1)^(2i)
    stays a power for the reference to evaluate): letters are positive integers, x_i is x(i)."""
    names = {**LETTER, **{n: s for n, s in zip("NKTd", (Ns, Ks, Ts, ds))},
             **{f"x_{n}": X(s) for n, s in LETTER.items()}}
    return sp.parse_expr(text.replace("^", "**"), local_dict=names, evaluate=False)


@dataclass(frozen=True)
class IndexClaim:
    """A TOML statement with free index letters; `claim()` is the same claim in SymPy, each
    letter a positive integer with the fact letter ≤ its size (1 ≤ i ≤ N)."""

    id: str
    lhs_text: str
    rhs_text: str
    true: bool
    why: str
    witness: dict | None = None
    assumptions: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()

    @property
    def expect(self) -> str:
        return "proved" if self.true else "refuted"

    @property
    def lhs(self) -> sp.Expr:
        return written(self.lhs_text)

    @property
    def rhs(self) -> sp.Expr:
        return written(self.rhs_text)

    def letters(self) -> list[sp.Symbol]:
        return [s for s in LETTER.values() if s in (self.lhs - self.rhs).free_symbols]

    def claim(self) -> Claim:
        ranges = tuple((SIZE[s.name] - s, ">=") for s in self.letters())
        own = tuple((written(f), ">=") for f in self.facts)
        return Claim(self.lhs, self.rhs, ranges + own)


def Ix(id, lhs_text, rhs_text, true, why, witness=None, assumptions=(), facts=()):
    return IndexClaim(id, lhs_text, rhs_text, true, why, witness, tuple(assumptions),
                      tuple(facts))


INDEX_CLAIMS: tuple[IndexClaim, ...] = (
    Ix("parity-two-i", "(-1)^(2*i)", "1", True, "2i is even"),
    Ix("parity-two-k", "(-1)^(2*k)", "1", True, "2k is even"),
    Ix("parity-two-t", "(-1)^(2*t)", "1", True, "2t is even"),
    Ix("parity-two-j", "(-1)^(2*j)", "1", True, "2j is even"),
    Ix("parity-odd", "(-1)^(2*i+1)", "-1", True, "2i + 1 is odd"),
    Ix("parity-consecutive", "(-1)^(i*(i+1))", "1", True, "one of i, i + 1 is even"),
    Ix("parity-squared", "((-1)^i)^2", "1", True, "(±1)² = 1"),
    Ix("parity-shift", "(-1)^(i+1)", "-(-1)^i", True, "(−1)^(i+1) = −(−1)^i"),
    Ix("parity-sum-zero", "(-1)^t + (-1)^(t+1)", "0", True,
       "consecutive powers of −1 cancel"),
    Ix("parity-square-exponent", "(-1)^(i^2)", "(-1)^i", True, "i² ≡ i (mod 2)"),
    Ix("parity-two-letters", "(-1)^(2*i*k)", "1", True, "2ik is even"),
    Ix("parity-three-i", "(-1)^(3*i)", "(-1)^i", True, "3i ≡ i (mod 2)"),
    Ix("parity-abs", "abs((-1)^i)", "1", True, "|±1| = 1"),
    Ix("parity-sqrt", "sqrt((-1)^(2*i))", "1", True, "√1 = 1"),
    Ix("member-times-parity", "x_i*(-1)^(2*i)", "x_i", True, "(−1)^(2i) = 1"),
    Ix("parity-fact-i-is-n", "(-1)^i", "(-1)^N", True, "i ≥ N and i ≤ N: i = N",
       assumptions=("i >= N",), facts=("i - N",)),
    Ix("parity-i", "(-1)^i", "1", False, "i = 1: −1", {"i": 1}),
    Ix("parity-two-i-minus", "(-1)^(2*i)", "-1", False, "i = 1: 1 ≠ −1", {"i": 1}),
    Ix("parity-two-letters-odd", "(-1)^(i*k)", "1", False, "i = k = 1: −1",
       {"i": 1, "k": 1}),
    Ix("parity-triangular", "(-1)^(i*(i+1)/2)", "1", False, "i = 2: (−1)³", {"i": 2}),
    Ix("parity-t-shift-wrong", "(-1)^(t+1)", "(-1)^t", False, "t = 1: 1 ≠ −1", {"t": 1}),
    Ix("parity-fact-wrong", "(-1)^i", "1", False, "i = 3 satisfies i ≥ 2: −1", {"i": 3},
       assumptions=("i >= 2",), facts=("i - 2",)),
)


def toml_text(claims=INDEX_CLAIMS) -> str:
    """The INDEX_CLAIMS as a statement file."""
    out = []
    for s in claims:
        out.append("[[statement]]")
        out.append(f'id = "{s.id}"')
        out.append(f'title = "{s.lhs_text} = {s.rhs_text}"')
        out.append(f'expect = "{s.expect}"')
        out.append(f'lhs = "{s.lhs_text}"')
        out.append(f'rhs = "{s.rhs_text}"')
        if s.assumptions:
            out.append("assumptions = [" + ", ".join(f'"{t}"' for t in s.assumptions) + "]")
        out.append("")
    return "\n".join(out)


# ------------------------------------------------------------------------------ generators
#
# Random expressions in x and y with roots, logs, powers (rational and symbolic exponents),
# quotients, |·|, max and min. A claim is true by construction when one side is the other with
# a DOMAIN IDENTITY A → B applied to a subterm: B is defined only where A is and equals it there
# (√(uv) → √u·√v, log(uv) → log u + log v, √(u/v) → √u/√v, u^(p+q) → u^p·u^q, u → |√u|²,
# u → (u³)^(1/3)), so both sides agree wherever both are defined. It is false by construction
# when one side is perturbed (+1, ·2, or a rule that is not an identity: √(u²) → u,
# √(u + v) → √u + √v); the truth of every generated claim is then settled by the reference.

GEN_SYMBOLS = (x, y)
EXPONENTS = (half, third, sp.Rational(3, 2), sp.Rational(2, 3), -half, sp.Integer(2),
             sp.Integer(3), sp.Integer(-1))


def _atom(rng: random.Random) -> sp.Expr:
    return rng.choice([x, y, x, y, sp.Integer(rng.choice([1, 2, 3, -1]))])


def random_expr(rng: random.Random, depth: int = 2) -> sp.Expr:
    """A small random expression (at most `depth` nested operations), real where defined."""
    for _ in range(20):
        try:
            e = _random_expr(rng, depth)
        except (ValueError, TypeError):  # max/min of a non-real constant
            continue
        if _fine(e):
            return e
    return _atom(rng)


def _random_expr(rng: random.Random, depth: int) -> sp.Expr:
    if depth <= 0 or rng.random() < 0.2:
        return _atom(rng)
    op = rng.choice(["sqrt", "log", "pow", "powsym", "abs", "max", "min", "div", "mul", "add",
                     "sub", "sqrt", "pow"])
    u = random_expr(rng, depth - 1)
    if op == "sqrt":
        return sp.sqrt(u)
    if op == "log":
        return sp.log(u)
    if op == "pow":
        return u ** rng.choice(EXPONENTS)
    if op == "powsym":
        return u ** rng.choice([x, y, 2 * y, x + 1])
    if op == "abs":
        return sp.Abs(u)
    v = random_expr(rng, depth - 1)
    return {"max": lambda: sp.Max(u, v), "min": lambda: sp.Min(u, v), "div": lambda: u / v,
            "mul": lambda: u * v, "add": lambda: u + v, "sub": lambda: u - v}[op]()


def _identity(rng: random.Random, u: sp.Expr, v: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(A, B): B is defined only where A is, and equals it there."""
    p, q = rng.choice(EXPONENTS + (y,)), rng.choice(EXPONENTS + (x,))
    return rng.choice([
        (sp.sqrt(u * v), sp.sqrt(u) * sp.sqrt(v)),
        (sp.log(u * v), sp.log(u) + sp.log(v)),
        (sp.sqrt(u / v), sp.sqrt(u) / sp.sqrt(v)),
        (u ** (p + q), u**p * u**q),
        (u, sp.Abs(sp.sqrt(u)) ** 2),
        (u, (u**3) ** third),
        (sp.log(u**2), 2 * sp.log(u)),
    ])


def _wrong(rng: random.Random, u: sp.Expr, v: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(A, B) that differ somewhere both are defined (for most u, v)."""
    return rng.choice([
        (sp.sqrt(u**2), u),
        (sp.sqrt(u + v), sp.sqrt(u) + sp.sqrt(v)),
        (u, u + 1),
        (u, 2 * u),
        (sp.log(u * v), sp.log(u) * sp.log(v)),
        ((u**2) ** half, u),
    ])


def _fine(e: sp.Expr) -> bool:
    return not e.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I) and e.count_ops() <= 40


def _embed(rng: random.Random, hole: sp.Expr) -> sp.Expr:
    """A random context around `hole`."""
    w = random_expr(rng, 1)
    return rng.choice([hole, hole + w, hole * w, sp.Abs(hole), sp.Max(hole, w), hole / (1 + x**2),
                       sp.sqrt(hole) if rng.random() < 0.3 else hole - w])


def claim_pair(rng: random.Random, true: bool) -> tuple[sp.Expr, sp.Expr] | None:
    """A claim lhs = rhs, true (a domain identity) or false (a perturbation) by construction;
    None when the draw degenerates (an infinite constant, or the same expression twice)."""
    u, v = random_expr(rng, 1), random_expr(rng, 1)
    a_, b_ = (_identity if true else _wrong)(rng, u, v)
    with_hole = sp.Dummy("hole", real=True)
    try:
        context = _embed(rng, with_hole)
        lhs, rhs = context.xreplace({with_hole: a_}), context.xreplace({with_hole: b_})
    except (ValueError, TypeError):  # max of a non-real constant
        return None
    if rng.random() < 0.5:
        lhs, rhs = rhs, lhs
    if not (_fine(lhs) and _fine(rhs)) or lhs == rhs or not (lhs.free_symbols | rhs.free_symbols):
        return None
    return lhs, rhs


REWRITINGS = ("swap", "difference", "add-term", "rename", "scale", "identity")
"""Rewritings of a claim; all but "add-term" and "identity" keep the domain and the truth;
those two shrink the domain and keep the truth on it."""


def rewrite(rng: random.Random, lhs: sp.Expr, rhs: sp.Expr, how: str, facts: tuple = ()
            ) -> tuple[sp.Expr, sp.Expr, tuple, bool]:
    """The rewritten claim (lhs, rhs, facts), and whether it has the same domain as the
    original (False: its domain is a subset of the original's, where the two say the same)."""
    if how == "swap":
        return rhs, lhs, facts, True
    if how == "difference":
        return lhs - rhs, sp.Integer(0), facts, True
    if how == "rename":
        fresh = sp.Symbol("w", real=True)
        free = lhs.free_symbols | rhs.free_symbols
        old = rng.choice(sorted(free, key=str))
        fresh = sp.Symbol("w", **old.assumptions0)
        return (lhs.xreplace({old: fresh}), rhs.xreplace({old: fresh}),
                tuple((e.xreplace({old: fresh}), rel) for e, rel in facts), True)
    if how == "scale":
        factor = rng.choice([sp.Integer(2), sp.Integer(-3), half])
        return factor * lhs, factor * rhs, facts, True
    if how == "add-term":
        term = random_expr(rng, 1)
        return lhs + term, rhs + term, facts, False
    # an identity of the domain applied to a subterm: √(ab) → √a·√b, log(ab) → log a + log b,
    # a^(p+q) → a^p·a^q where the claim has one, else a symbol s → |√s|² (never a variable of
    # differentiation)
    for side in (lhs, rhs):
        for node in sp.preorder_traversal(side):
            for pattern in _IDENTITIES:
                out = pattern(node)
                if out is not None:
                    if side is lhs:
                        return lhs.xreplace({node: out}), rhs, facts, False
                    return lhs, rhs.xreplace({node: out}), facts, False
    bound = {v for e in (lhs, rhs) for d in e.atoms(sp.Derivative) for v in d.variables}
    free = sorted((lhs.free_symbols | rhs.free_symbols) - bound, key=str)
    if not free:
        return rhs, lhs, facts, True
    s = free[0]
    to = {s: sp.Abs(sp.sqrt(s)) ** 2}
    return lhs.xreplace(to), rhs.xreplace(to), facts, False


def _split_sqrt(node):
    if isinstance(node, sp.Pow) and node.exp == half and isinstance(node.base, sp.Mul):
        first, *rest = node.base.args
        return sp.sqrt(first) * sp.sqrt(sp.Mul(*rest))
    return None


def _split_log(node):
    if isinstance(node, sp.log) and isinstance(node.args[0], sp.Mul):
        first, *rest = node.args[0].args
        return sp.log(first) + sp.log(sp.Mul(*rest))
    return None


def _split_power(node):
    if isinstance(node, sp.Pow) and isinstance(node.exp, sp.Add):
        first, *rest = node.exp.args
        return node.base**first * node.base ** sp.Add(*rest)
    return None


_IDENTITIES = (_split_sqrt, _split_log, _split_power)


def claims(rng: random.Random, n: int) -> list[tuple[sp.Expr, sp.Expr, bool]]:
    """n claims (lhs, rhs, true by construction?), alternately true and false."""
    out = []
    while len(out) < n:
        true = len(out) % 2 == 0
        pair = claim_pair(rng, true)
        if pair is not None:
            out.append((*pair, true))
    return out
