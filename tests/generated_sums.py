"""Random Σ identities, true by construction, and their perturbations, for judging the kernel.

A true identity is an expression E and E rewritten by rules that hold for all integer limits
under Karr's convention (linearity, splitting a range at any integer, index shifts, telescoping,
reversal, reflection, peeling the last term). A false candidate adds to the rewritten side a
term that may be nonzero, or moves one limit by one; whether it really is false is decided by
`counterexample`, an exact brute-force evaluation independent of derive (random integer tables
for the undefined functions, small integers for the limits, every Σ written out).

Used by tests/test_kernel_generated.py (hypothesis drives the random source) and by
benchmarks/kernel_share.py (a seeded sample, to report the share decided).
"""

from __future__ import annotations

import random
from fractions import Fraction

import sympy as sp

i = sp.Symbol("i", integer=True)
m, n = sp.symbols("m n", integer=True)
x = sp.Symbol("x", real=True)
j = sp.Symbol("j", integer=True)
f = sp.Function("f", real=True)
h = sp.Function("h", real=True)
g2 = sp.Function("g", real=True)

SUMMANDS = [
    lambda v: f(v), lambda v: f(v + 1), lambda v: v * f(v), lambda v: f(v) * f(v + 1),
    lambda v: x * f(v), lambda v: v, lambda v: v**2, lambda v: sp.Integer(3),
    lambda v: f(v) - f(v - 1), lambda v: x * h(v) + v, lambda v: f(2 - v), lambda v: h(v) ** 2,
]
LIMITS = [sp.Integer(0), sp.Integer(1), sp.Integer(2), sp.Integer(-1), m, m + 1, m - 1, n,
          n - 2, m + n]
COEFFS = [sp.Integer(1), sp.Integer(-1), sp.Integer(2), sp.Rational(1, 2), sp.Rational(-3, 2), x]


def random_sum(rng: random.Random) -> sp.Sum:
    g = rng.choice(SUMMANDS)(i)
    return sp.Sum(g, (i, rng.choice(LIMITS), rng.choice(LIMITS)))


INNER = [lambda u, v: g2(u, v), lambda u, v: u * g2(u, v), lambda u, v: g2(u, v) + f(u),
         lambda u, v: f(u) * h(v)]


def random_double_sum(rng: random.Random) -> sp.Sum:
    """Σ_i Σ_j F(i, j), with independent limits or a triangular inner limit."""
    F = rng.choice(INNER)(i, j)
    a, b = rng.choice(LIMITS), rng.choice(LIMITS)
    if rng.random() < 0.5:
        inner = (j, rng.choice(LIMITS), rng.choice(LIMITS))
    else:
        inner = (j, a + rng.choice([0, 1, -1]), i + rng.choice([0, 1, -1]))
    return sp.Sum(sp.Sum(F, inner), (i, a, b))


def random_expression(rng: random.Random) -> sp.Expr:
    out = sp.S.Zero
    for _ in range(rng.randint(1, 3)):
        out += rng.choice(COEFFS) * (random_sum(rng) if rng.random() < 0.8
                                     else random_double_sum(rng))
    if rng.random() < 0.4:
        out += rng.choice([f(m), f(0), m, x * n, h(n + 1)])
    return out


# --------------------------------------------------------------------------- valid rewrites

def _parts(s: sp.Sum):
    """(summand, outermost limit) of a Σ, SymPy's several limits read as nested sums."""
    body = sp.Sum(s.function, *s.limits[:-1]) if len(s.limits) > 1 else s.function
    return body, s.limits[-1]


def _split(s: sp.Sum, rng) -> sp.Expr:
    g, (v, a, b) = _parts(s)
    p = rng.choice(LIMITS + [a + 1, b - 1])
    return sp.Sum(g, (v, a, p)) + sp.Sum(g, (v, p + 1, b))


def _shift(s: sp.Sum, rng) -> sp.Expr:
    g, (v, a, b) = _parts(s)
    t = rng.choice([1, -1, 2, m, -n])
    return sp.Sum(g.xreplace({v: v - t}), (v, a + t, b + t))


def _reverse(s: sp.Sum, rng) -> sp.Expr:
    g, (v, a, b) = _parts(s)
    return -sp.Sum(g, (v, b + 1, a - 1))


def _reflect(s: sp.Sum, rng) -> sp.Expr:
    g, (v, a, b) = _parts(s)
    c = rng.choice([0, 1, m, n + 1])
    return sp.Sum(g.xreplace({v: c - v}), (v, c - b, c - a))


def _peel(s: sp.Sum, rng) -> sp.Expr:
    g, (v, a, b) = _parts(s)
    return sp.Sum(g, (v, a, b - 1)) + g.xreplace({v: b})


def _linear(s: sp.Sum, rng) -> sp.Expr:
    g, (v, a, b) = _parts(s)
    extra = rng.choice(SUMMANDS)(v)
    c = rng.choice(COEFFS)
    return sp.Sum(g + c * extra, (v, a, b)) - c * sp.Sum(extra, (v, a, b))


def _telescope(s: sp.Sum, rng) -> sp.Expr:
    # Σ g = Σ (g + H(i) − H(i−1)) − (H(b) − H(a−1)) for an undefined H
    g, (v, a, b) = _parts(s)
    H = rng.choice([lambda u: h(u), lambda u: u * h(u), lambda u: x * f(u + 1)])
    return sp.Sum(g + H(v) - H(v - 1), (v, a, b)) - (H(b) - H(a - 1))


def _exchange(s: sp.Sum, rng) -> sp.Expr:
    """Σ_i Σ_j F = Σ_j Σ_i F (independent limits), or the triangular exchange
    Σ_{i=a}^{b} Σ_{j=c}^{i+t} F
        = Σ_{i=a}^{b} Σ_{j=c}^{a+t−1} F + Σ_{j=a+t}^{b+t} Σ_{i=j−t}^{b} F."""
    body, (v, a, b) = _parts(s)
    if not isinstance(body, sp.Sum):
        return _split(s, rng)
    F, (u, c, d) = _parts(body)
    if not (c.has(v) or d.has(v)):
        return sp.Sum(sp.Sum(F, (v, a, b)), (u, c, d))
    t = sp.expand(d - v)
    if c.has(v) or t.has(v):
        return _split(s, rng)
    return (sp.Sum(sp.Sum(F, (u, c, a + t - 1)), (v, a, b))
            + sp.Sum(sp.Sum(F, (v, u - t, b)), (u, a + t, b + t)))


REWRITES = [_split, _shift, _reverse, _reflect, _peel, _linear, _telescope, _exchange]


def rewrite(e: sp.Expr, rng: random.Random, steps: int = 2) -> sp.Expr:
    """`e` with `steps` valid rewrites, each applied to one Σ of it."""
    for _ in range(steps):
        sums = sorted(e.atoms(sp.Sum), key=sp.default_sort_key)
        if not sums:
            break
        target = rng.choice(sums)
        e = e.xreplace({target: rng.choice(REWRITES)(target, rng)})
    return e


def perturb(e: sp.Expr, rng: random.Random) -> sp.Expr:
    """A change that is usually not an identity: an added term, or one limit moved by one."""
    if rng.random() < 0.5 or not e.atoms(sp.Sum):
        return e + rng.choice([f(m + 3), sp.Integer(1), x, h(n) - h(n - 1), m * f(n)])
    target = rng.choice(sorted(e.atoms(sp.Sum), key=sp.default_sort_key))
    g, (v, a, b) = _parts(target)
    moved = sp.Sum(g, (v, a, b + 1)) if rng.random() < 0.5 else sp.Sum(g, (v, a - 1, b))
    return e.xreplace({target: moved})


def pair(rng: random.Random) -> tuple[sp.Expr, sp.Expr, bool]:
    """(lhs, rhs, built_true)."""
    e = random_expression(rng)
    r = rewrite(e, rng, rng.randint(1, 3))
    if rng.random() < 0.5:
        return e, r, True
    return e, perturb(r, rng), False


# --------------------------------------------------------------------------- brute force

def _karr(g, a: int, b: int):
    if b >= a:
        return sum((g(k) for k in range(a, b + 1)), Fraction(0))
    if b == a - 1:
        return Fraction(0)
    return -sum((g(k) for k in range(b + 1, a)), Fraction(0))


def evaluate(e: sp.Expr, env: dict, tables: dict):
    """e at integers `env` with undefined functions read from `tables` (dicts int → Fraction),
    by Python Fractions; Karr sums."""
    if e.is_Integer or e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if isinstance(e, sp.Symbol):
        return env[e]
    if e.is_Add:
        return sum((evaluate(a, env, tables) for a in e.args), Fraction(0))
    if e.is_Mul:
        out = Fraction(1)
        for a in e.args:
            out *= evaluate(a, env, tables)
        return out
    if e.is_Pow and e.exp.is_Integer:
        return evaluate(e.base, env, tables) ** int(e.exp)
    if isinstance(e, sp.Sum):
        (v, a, b) = e.limits[-1]
        g = sp.Sum(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function
        lo, hi = evaluate(a, env, tables), evaluate(b, env, tables)
        return _karr(lambda k: evaluate(g, {**env, v: Fraction(k)}, tables), int(lo), int(hi))
    if e.func in tables:
        key = tuple(int(evaluate(arg, env, tables)) for arg in e.args)
        return tables[e.func][key if len(key) > 1 else key[0]]
    raise TypeError(f"cannot evaluate {e}")


def counterexample(lhs: sp.Expr, rhs: sp.Expr, seed: int = 0, tries: int = 40):
    """A point (m, n, x, tables) where the sides differ, or None."""
    rng = random.Random(seed)
    for _ in range(tries):
        env = {m: Fraction(rng.randint(-4, 5)), n: Fraction(rng.randint(-4, 5)),
               x: Fraction(rng.choice([0, 1, 2, -3, 5]), rng.choice([1, 2, 3]))}
        tables = {fn: {k: Fraction(rng.randint(-40, 40)) for k in range(-40, 41)}
                  for fn in (f, h)}
        tables[g2] = {(p, q): Fraction(rng.randint(-40, 40))
                      for p in range(-25, 26) for q in range(-25, 26)}
        if evaluate(lhs, env, tables) != evaluate(rhs, env, tables):
            return env, tables
    return None
