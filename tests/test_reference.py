"""Unit tests of the independent judge tests/reference.py (which never imports derive)."""

from collections import namedtuple
from enum import Enum

import pytest
import reference as ref
import sympy as sp
from reference import UNDEFINED, evaluate

i, j, n = sp.symbols("i j n", integer=True)
x, y, t = sp.symbols("x y t", real=True)
f = sp.Function("f", real=True)


# ------------------------------------------------------------------------ Karr's Σ


def test_karr_sum_forward_empty_and_reversed():
    assert ref.karr_sum(lambda v: v, 1, 4) == 10
    assert ref.karr_sum(lambda v: v, 3, 3) == 3

    def never(v):
        raise AssertionError("an empty sum must not evaluate its summand")

    assert ref.karr_sum(never, 5, 4) == 0
    assert ref.karr_sum(lambda v: v, 3, 0) == -(1 + 2)  # −(f(1) + f(2))
    assert ref.karr_sum(lambda v: v, 1, -2) == -(-1 + 0)  # −(f(−1) + f(0))
    # Karr's additivity Σ_a^b = Σ_a^c + Σ_{c+1}^b for every a, b, c
    for a in range(-4, 5):
        for b in range(-4, 5):
            for c in range(-4, 5):
                whole = ref.karr_sum(lambda v: v * v + 1, a, b)
                parts = ref.karr_sum(lambda v: v * v + 1, a, c) + ref.karr_sum(
                    lambda v: v * v + 1, c + 1, b)
                assert whole == parts


def test_sum_nodes_follow_karr():
    assert evaluate(sp.Sum(i, (i, 3, 0)), {}) == -3
    assert evaluate(sp.Sum(i, (i, 1, n)), {n: -2}) == 1  # −Σ_{−1}^{0} i
    assert evaluate(sp.Sum(1, (i, 0, n)), {n: -1}) == 0
    # nested, inner limit depending on the outer index
    assert evaluate(sp.Sum(sp.Sum(1, (j, 0, i)), (i, 0, 2)), {}) == 6
    # a free symbol and a bound index of the same name
    assert evaluate(i + sp.Sum(i, (i, 1, 3)), {i: 100}) == 106


def test_empty_sum_of_an_undefined_summand_is_zero():
    summand = 1 / (i - 1)  # undefined at i = 1
    assert evaluate(sp.Sum(summand, (i, 1, 0)), {}) == 0
    assert evaluate(sp.Sum(summand, (i, 1, n)), {n: 0}) == 0
    assert evaluate(sp.Sum(summand, (i, 1, n)), {n: 1}) is UNDEFINED
    assert evaluate(sp.Sum(1 / sp.factorial(i), (i, 0, n)), {n: -1}) == 0
    assert evaluate(sp.Sum(1 / sp.factorial(i), (i, 0, n)), {n: -2}) is UNDEFINED


def test_products_follow_karr():
    assert evaluate(sp.Product(i, (i, 1, 0)), {}) == 1
    assert evaluate(sp.Product(i, (i, 3, 1)), {}) == sp.Rational(1, 2)  # 1/Π_{2}^{2}
    assert evaluate(sp.Product(i, (i, 1, 4)), {}) == 24


def test_sum_bound_is_enforced():
    with pytest.raises(ValueError):
        evaluate(sp.Sum(i, (i, 0, n)), {n: 10 ** 6})


# ------------------------------------------------------------------------ undefinedness


@pytest.mark.parametrize("expr, env", [
    (1 / x, {x: 0}),
    (sp.log(x), {x: 0}),
    (sp.log(x), {x: -1}),  # log(−1) = iπ is not real
    (sp.sqrt(x), {x: -1}),
    (x ** sp.Rational(1, 3), {x: -8}),  # SymPy's principal cube root is not real
    (sp.factorial(n), {n: -1}),
    (sp.Mod(x, y), {x: 1, y: 0}),
    (sp.I * x, {x: 1}),  # a non-real side
    (sp.zoo + x, {x: 1}),
    (sp.lowergamma(n + 1, 1), {n: -1}),  # SymPy leaves it symbolic; its value is ∞
    (sp.Piecewise((x, x > 0)), {x: -1}),  # no branch applies
    (f(sp.sqrt(x)), {x: -1, f: sp.Lambda(y, 1)}),  # a real function of a non-real argument
    (sp.Max(sp.sqrt(x), 0), {x: -1}),
])
def test_undefined(expr, env):
    assert evaluate(expr, env) is UNDEFINED


def test_piecewise_is_lazy():
    expr = sp.Piecewise((1 / x, x > 0), (0, True))
    assert evaluate(expr, {x: 0}) == 0
    assert evaluate(expr, {x: 2}) == sp.Rational(1, 2)


def test_sqrt_of_a_negative_side_is_rejected():
    assert evaluate(sp.sqrt(x), {x: -1}) is UNDEFINED
    # x < 0: the left side 1 + i is not real, so it is undefined; no counterexample exists,
    # only points where one side is undefined
    claim = (sp.sqrt(x) + sp.sqrt(-x), sp.sqrt(sp.Abs(x)))
    assert ref.find_counterexample(*claim) is None
    assert ref.find_partial_point(*claim) is not None
    assert ref.classify(*claim) == ref.PARTIAL
    # every subterm must be real: i·i = −1 is no value of √x·√y at x = y = −1, so the claim
    # √x·√y = √(xy) has no counterexample (it holds wherever both sides are defined)
    assert evaluate(sp.sqrt(x) * sp.sqrt(y), {x: -1, y: -1}) is UNDEFINED
    assert evaluate(sp.log(x) + 1, {x: -1}) is UNDEFINED
    assert evaluate((-8) ** sp.Rational(1, 3) * 0, {}) in (0, UNDEFINED)  # SymPy folds 0·c
    assert evaluate(sp.Pow(x, sp.Rational(1, 3)), {x: -8}) is UNDEFINED
    assert ref.find_counterexample(sp.sqrt(x) * sp.sqrt(y), sp.sqrt(x * y)) is None
    # sqrt(x*x) = x is false with both sides real
    assert ref.find_counterexample(sp.sqrt(x * x), x) == {x: -1}


# ------------------------------------------------------------------------ derivatives


def test_derivative_at_a_kink_where_it_exists():
    # t·|t| and max(t, 0)² are C¹: the one-sided derivatives agree at 0
    assert evaluate(sp.Derivative(t * sp.Abs(t), t), {t: 0}) == 0
    assert evaluate(sp.Derivative(sp.Max(t, 0) ** 2, t), {t: 0}) == 0
    assert evaluate(sp.Derivative(sp.Abs(t) ** 3, t), {t: 0}) == 0
    assert evaluate(sp.Derivative(sp.Abs(t) + t, t), {t: 0}) is UNDEFINED
    assert evaluate(sp.Derivative(sp.Abs(t) * t, t), {t: 2}) == 4


def test_derivative_at_a_kink_is_undefined():
    d = sp.Derivative(sp.Max(t, 0), t)
    assert evaluate(d, {t: 0}) is UNDEFINED  # not SymPy's Heaviside(0) = 1/2
    assert evaluate(d, {t: 1}) == 1
    assert evaluate(d, {t: -1}) == 0
    assert evaluate(sp.Derivative(sp.Abs(t), t), {t: 0}) is UNDEFINED  # not sign(0) = 0
    assert evaluate(sp.Derivative(sp.Abs(t), t), {t: -3}) == -1
    assert evaluate(sp.Derivative(sp.Heaviside(t), t), {t: 0}) is UNDEFINED
    assert evaluate(sp.Derivative(sp.Heaviside(t), t), {t: 2}) == 0
    c = sp.Symbol("c", positive=True)
    clip = sp.Derivative(sp.Max(-c, sp.Min(t, c)), t)
    assert evaluate(clip, {t: 1, c: 1}) is UNDEFINED
    assert evaluate(clip, {t: -1, c: 1}) is UNDEFINED
    assert evaluate(clip, {t: 0, c: 1}) == 1
    assert evaluate(clip, {t: 2, c: 1}) == 0
    pw = sp.Derivative(sp.Piecewise((t, t < 0), (2 * t, True)), t)
    assert evaluate(pw, {t: 0}) is UNDEFINED
    assert evaluate(pw, {t: 1}) == 2
    assert evaluate(sp.Derivative(sp.floor(t), t), {t: 1}) is UNDEFINED
    assert evaluate(sp.Derivative(sp.floor(t), t), {t: sp.Rational(1, 2)}) == 0
    # a kink that does not involve the differentiation variable is harmless
    assert evaluate(sp.Derivative(sp.Abs(x) * t, t), {x: 0, t: 5}) == 0


def test_derivative_is_symbolic_in_its_variable_only():
    cube = sp.Lambda(sp.Symbol("z"), sp.Symbol("z") ** 3)
    assert evaluate(sp.Derivative(f(t), t), {t: 2, f: cube}) == 12
    assert evaluate(sp.diff(f(2 * t), t), {t: 1, f: cube}) == 24  # through SymPy's Subs
    assert evaluate(sp.Derivative(f(t), (t, 2)), {t: 2, f: cube}) == 12
    assert evaluate(sp.Derivative(sp.Sum(t ** i, (i, 0, n)), t), {n: 3, t: 2}) == 17
    assert evaluate(sp.Derivative(x * t ** 2, t), {x: 3, t: 1}) == 6
    assert evaluate(sp.Derivative(sp.sqrt(t), t), {t: 0}) is UNDEFINED


# ------------------------------------------------------------------------ domains and facts


def test_in_domain():
    assert ref.in_domain(sp.Symbol("m", odd=True), 3)
    assert not ref.in_domain(sp.Symbol("m", odd=True), 2)
    assert not ref.in_domain(sp.Symbol("p", prime=True), 4)
    assert ref.in_domain(sp.Symbol("r", irrational=True), sp.sqrt(2))
    assert not ref.in_domain(sp.Symbol("r", irrational=True), 1)
    assert ref.in_domain(sp.Symbol("x", noninteger=True), sp.Rational(1, 2))
    assert not ref.in_domain(sp.Symbol("x", noninteger=True), 0)
    assert not ref.in_domain(sp.Symbol("x", integer=False), 3)
    assert not ref.in_domain(sp.Symbol("n", integer=True), sp.Rational(1, 2))
    assert not ref.in_domain(sp.Symbol("x", positive=True), 0)
    assert not ref.in_domain(sp.Symbol("x", nonzero=True), 0)


def test_samples_respect_every_assumption():
    for sym in [sp.Symbol("m", odd=True), sp.Symbol("e", even=True), sp.Symbol("p", prime=True),
                sp.Symbol("x", noninteger=True), sp.Symbol("r", irrational=True),
                sp.Symbol("n", integer=True, nonnegative=True), sp.Symbol("x", nonzero=True),
                sp.Symbol("x", real=True, integer=False)]:
        pool = ref._pool(sym)
        assert pool and all(ref.in_domain(sym, v) for v in pool), sym
    ints = ref._pool(n)
    assert {0, -1, -2, 1, 2} <= set(ints)  # zero and negatives are tried


def test_function_assumptions_are_respected():
    N = sp.Function("N", integer=True, positive=True)
    assert ref.holds(N(i), sp.Abs(N(i)))
    assert ref.holds(N(i), sp.floor(N(i)))
    assert ref.fails(N(i), 1)
    with pytest.raises(ref.OutOfDomain):
        evaluate(N(1), {N: sp.Lambda(sp.Symbol("z"), -1)})


def test_facts_as_tuples_and_objects():
    Fact = namedtuple("Fact", "expr relation")

    class Relation(str, Enum):
        GE = ">="
        GT = ">"
        NE = "!="

    assert ref.fact_holds((x, ">="), {x: 0})
    assert not ref.fact_holds((x, ">"), {x: 0})
    assert not ref.fact_holds(Fact(x, Relation.NE), {x: 0})
    assert ref.fact_holds(Fact(x, Relation.GT), {x: sp.sqrt(2) - 1})
    assert not ref.fact_holds((1 / x, ">="), {x: 0})  # an undefined fact does not hold
    # facts select the points
    assert ref.fails(sp.Abs(x), x)
    assert ref.holds(sp.Abs(x), x, facts=[(x, ">=")])
    assert ref.holds(1 / x * x, 1, facts=[Fact(x, Relation.NE)])


def test_bound_index_is_not_the_free_one():
    X = sp.IndexedBase("X", real=True)
    assert ref.fails(sp.Sum(sp.Abs(X[i]), (i, 1, n)), sp.Sum(X[i], (i, 1, n)),
                     facts=[(X[i], ">=")])
    assert ref.holds(sp.Abs(X[i]), X[i], facts=[(X[i], ">=")])


# ------------------------------------------------------------------------ verdicts


def test_exact_comparison_of_constants():
    assert ref.holds(sp.sqrt(2) + sp.sqrt(3), sp.sqrt(5 + 2 * sp.sqrt(6)))
    assert ref.fails(sp.sqrt(2) + sp.sqrt(3), sp.sqrt(5 + sp.sqrt(6)))
    assert ref.holds(sp.log(6), sp.log(2) + sp.log(3))
    assert ref.fails(sp.log(6), sp.log(2) + sp.log(4))


def test_known_sum_verdicts():
    K = sp.Symbol("K", integer=True)
    k = sp.Symbol("k", integer=True)
    assert ref.holds(sp.Sum(i, (i, 1, n)), n * (n + 1) / 2)  # Gauss, every integer n
    assert ref.find_counterexample(sp.Sum(1 / K, (k, 1, K)), 1) == {K: 0}
    assert ref.find_counterexample(sp.Sum((-1) ** i * sp.binomial(n, i), (i, 0, n)), 0) == {n: 0}
    assert ref.fails(sp.Sum(f(i), (i, 0, n)), sp.Sum(f(i), (i, 1, n)))
    assert ref.holds(sp.Sum(f(i), (i, 0, n)), f(0) + sp.Sum(f(i), (i, 1, n)))


def test_classify_partial_claims():
    d = sp.Derivative(sp.Max(t, 0), t)
    assert ref.classify(d, 1, facts=[(t, ">=")]) == ref.PARTIAL
    assert ref.classify(d, 1, facts=[(t, ">")]) == ref.TRUE
    assert ref.classify(d, 1, facts=[(t + 1, ">=")]) == ref.FALSE
    assert ref.classify(sp.Derivative(sp.Abs(t), t), t / sp.Abs(t)) == ref.TRUE
    assert ref.classify(sp.Derivative(sp.Abs(t), t), sp.sign(t)) == ref.PARTIAL


def test_counterexamples_are_deterministic():
    claim = (sp.Sum(f(i), (i, 0, n)), sp.Sum(f(i), (i, 1, n)))
    first = ref.find_counterexample(*claim)
    again = ref.find_counterexample(*claim)
    assert repr(first) == repr(again)
