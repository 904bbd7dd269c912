"""Integer reasoning in the kernel (issue 22, index letters): powers of −1 with an integer
exponent, facts about integers used as integers (m > 0 gives m ≥ 1), and equalities that two
facts force (i ≥ N, i ≤ N). Each claim's truth is written by hand and checked here by Python
integer and Fraction arithmetic over a range of points, never by derive; every witness is
evaluated again with Python numbers."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.kernel import Verdict, decide, hypothesis
from derive.kernel.claims import ContradictoryFacts
from derive.kernel.facts import nonzero, positive

PROVED, REFUTED = Verdict.PROVED, Verdict.REFUTED

i, j = sp.symbols("i j", integer=True)
n = sp.Symbol("n", integer=True, positive=True)
N = sp.Symbol("N", integer=True, positive=True)
m = sp.Symbol("m", integer=True)
y, z = sp.symbols("y z", real=True)
x = sp.IndexedBase("x", real=True)
f = sp.Function("f", real=True)
k = sp.Symbol("k", integer=True)


def sgn(e: int) -> int:
    """(−1)^e for an integer e, by its parity (Python's (-1)**-3 would be a float)."""
    return 1 if e % 2 == 0 else -1


def assignment(d) -> dict[str, Fraction]:
    return {name: Fraction(str(value)) for name, value in d.witness.assignment}


# ------------------------------------------------------------------------- parity table

# (name, lhs, rhs, lhs(i, j), rhs(i, j)) for integers i, j; truth from the Python functions
PARITY = [
    ("(−1)^(2i) = 1", (-1) ** (2 * i), 1, lambda a, b: sgn(2 * a), lambda a, b: 1),
    ("(−1)^i·(−1)^i = 1", (-1) ** i * (-1) ** i, 1, lambda a, b: sgn(a) * sgn(a),
     lambda a, b: 1),
    ("(−1)^(i+1) = −(−1)^i", (-1) ** (i + 1), -(-1) ** i, lambda a, b: sgn(a + 1),
     lambda a, b: -sgn(a)),
    ("(−1)^(2i+1) = −1", (-1) ** (2 * i + 1), -1, lambda a, b: sgn(2 * a + 1), lambda a, b: -1),
    ("(−1)^i·(−1)^(i+2) = 1", (-1) ** i * (-1) ** (i + 2), 1,
     lambda a, b: sgn(a) * sgn(a + 2), lambda a, b: 1),
    ("(−1)^(3i) = (−1)^i", (-1) ** (3 * i), (-1) ** i, lambda a, b: sgn(3 * a),
     lambda a, b: sgn(a)),
    ("(−1)^(i²) = (−1)^i", (-1) ** (i**2), (-1) ** i, lambda a, b: sgn(a * a),
     lambda a, b: sgn(a)),
    ("(−1)^(i³+2j) = (−1)^i", (-1) ** (i**3 + 2 * j), (-1) ** i,
     lambda a, b: sgn(a**3 + 2 * b), lambda a, b: sgn(a)),
    ("(−1)^(5i+3) = −(−1)^i", (-1) ** (5 * i + 3), -(-1) ** i, lambda a, b: sgn(5 * a + 3),
     lambda a, b: -sgn(a)),
    ("(−1)^(i−j) = (−1)^(i+j)", (-1) ** (i - j), (-1) ** (i + j), lambda a, b: sgn(a - b),
     lambda a, b: sgn(a + b)),
    ("(−1)^(i²j+ij²) = 1", (-1) ** (i**2 * j + i * j**2), 1,
     lambda a, b: sgn(a * a * b + a * b * b), lambda a, b: 1),
    ("cos(πi) = (−1)^i", sp.cos(sp.pi * i), (-1) ** i, lambda a, b: sgn(a), lambda a, b: sgn(a)),
    ("y·(−1)^(2i) = y", y * (-1) ** (2 * i), y, None, None),
    # false ones
    ("(−1)^i = 1", (-1) ** i, 1, lambda a, b: sgn(a), lambda a, b: 1),
    ("(−1)^(ij) = (−1)^i·(−1)^j", (-1) ** (i * j), (-1) ** i * (-1) ** j,
     lambda a, b: sgn(a * b), lambda a, b: sgn(a) * sgn(b)),
    ("(−1)^(i(i+1)/2) = 1", (-1) ** (i * (i + 1) / 2), 1, lambda a, b: sgn(a * (a + 1) // 2),
     lambda a, b: 1),
    ("(−1)^(i²+j) = (−1)^i", (-1) ** (i**2 + j), (-1) ** i, lambda a, b: sgn(a * a + b),
     lambda a, b: sgn(a)),
]
POINTS = list(product(range(-5, 6), repeat=2))


@pytest.mark.parametrize("name, lhs, rhs, left, right", PARITY, ids=[p[0] for p in PARITY])
def test_parity_claims_are_decided_over_the_integers(name, lhs, rhs, left, right):
    true = left is None or all(left(a, b) == right(a, b) for a, b in POINTS)
    d = decide(sp.sympify(lhs), sp.sympify(rhs))
    assert d.verdict is (PROVED if true else REFUTED), (name, d)
    if not true:
        point = assignment(d)
        a, b = (point.get(s, Fraction(0)) for s in ("i", "j"))
        assert a.denominator == 1 and b.denominator == 1, point  # an integer witness
        a, b = int(a), int(b)
        assert (left(a, b), right(a, b)) == (d.witness.lhs, d.witness.rhs) and \
            left(a, b) != right(a, b)


def test_an_alternating_sum_with_an_even_exponent():
    """Σ_{k=1}^{n} (−1)^(2k) = n: the bound index is an integer too."""
    assert decide(sp.Sum((-1) ** (2 * k), (k, 1, n)), n).verdict is PROVED


def test_a_real_exponent_is_not_reduced():
    """(−1)^(2y) = 1 for a real y is false: at y = 1/2 the left side is (−1)^1 = −1."""
    d = decide((-1) ** (2 * y), sp.S.One)
    assert d.verdict is REFUTED
    value = assignment(d)["y"]
    assert (2 * value).denominator == 1
    assert d.witness.lhs == sgn(int(2 * value)) != 1


EXPONENTS = st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 3), st.integers(0, 3)),
                     min_size=1, max_size=4)


def _poly(terms):
    return sp.Add(*(c * i**p * j**q for c, p, q in terms))


def _value(terms, a, b):
    return sum(c * a**p * b**q for c, p, q in terms)


@settings(max_examples=60, deadline=None)
@given(EXPONENTS, EXPONENTS)
def test_powers_of_minus_one_are_decided_by_parity(e1, e2):
    """(−1)^p(i, j) = (−1)^q(i, j) for integer polynomials p, q: true exactly when p ≡ q
    (mod 2) at every point, which depends only on the parities of i and j (checked here over
    −3…3 as well). Proved when true, refuted at an integer point when false."""
    true = all(sgn(_value(e1, a, b)) == sgn(_value(e2, a, b))
               for a, b in product(range(-3, 4), repeat=2))
    d = decide((-1) ** _poly(e1), (-1) ** _poly(e2))
    assert d.verdict is (PROVED if true else REFUTED), d
    if not true:
        point = assignment(d)
        a, b = (int(point.get(s, 0)) for s in ("i", "j"))
        assert (sgn(_value(e1, a, b)), sgn(_value(e2, a, b))) == (d.witness.lhs, d.witness.rhs)


# ----------------------------------------------------------------- facts about integers

def _ge(e, why):
    return hypothesis(e, why)


# (name, lhs, rhs, facts, the integers m the facts allow (by hand), true?)
BOUNDS = [
    ("m > 0: max(m, 1) = m", sp.Max(m, 1), m, [positive(m, "m > 0")], True),
    ("m > 0: min(m, 1) = 1", sp.Min(m, 1), sp.S.One, [positive(m, "m > 0")], True),
    ("m > 1/2: max(m, 1) = m", sp.Max(m, 1), m, [positive(m - sp.S.Half, "m > 1/2")], True),
    ("m ≥ 1/2: max(m, 1) = m", sp.Max(m, 1), m, [_ge(2 * m - 1, "m >= 1/2")], True),
    ("m > 3/2: max(m, 2) = m", sp.Max(m, 2), m, [positive(2 * m - 3, "m > 3/2")], True),
    ("m ≥ 5/2: max(m, 3) = m", sp.Max(m, 3), m, [_ge(m - sp.Rational(5, 2), "m >= 5/2")],
     True),
    ("m < 0: max(m, −1) = −1", sp.Max(m, -1), sp.S.NegativeOne, [positive(-m, "m < 0")], True),
    ("m < −1/2: min(m, −1) = m", sp.Min(m, -1), m, [positive(-2 * m - 1, "m < -1/2")], True),
    ("m ≤ −3/2: min(m, −2) = m", sp.Min(m, -2), m, [_ge(-m - sp.Rational(3, 2), "m <= -3/2")],
     True),
    ("m ≠ 0: max(|m|, 1) = |m|", sp.Max(sp.Abs(m), 1), sp.Abs(m), [nonzero(m, "m != 0")], True),
    ("m ≠ 2: max(|m − 2|, 1) = |m − 2|", sp.Max(sp.Abs(m - 2), 1), sp.Abs(m - 2),
     [nonzero(2 * m - 4, "m != 2")], True),
    ("m > 0: Σ_{k=1}^{m} 1 = m", sp.Sum(1, (k, 1, m)), m, [positive(m, "m > 0")], True),
    # false: the bound is one integer further than the facts give
    ("m > 1/2: max(m, 2) = m", sp.Max(m, 2), m, [positive(m - sp.S.Half, "m > 1/2")], False),
    ("m > 0: max(m, 2) = m", sp.Max(m, 2), m, [positive(m, "m > 0")], False),
    ("m > 1/2: min(m, 1) = m", sp.Min(m, 1), m, [positive(2 * m - 1, "m > 1/2")], False),
    ("m < −1/2: min(m, −2) = m", sp.Min(m, -2), m, [positive(-2 * m - 1, "m < -1/2")], False),
    ("m ≠ 1/2: max(|m|, 1) = |m|", sp.Max(sp.Abs(m), 1), sp.Abs(m),
     [nonzero(2 * m - 1, "m != 1/2")], False),
]


def _holds(fact, value: Fraction) -> bool:
    v = Fraction(str(fact.expr.subs(m, sp.Rational(value.numerator, value.denominator))))
    return {">=": v >= 0, ">": v > 0, "!=": v != 0}[fact.relation.value]


def _py(e, value: int) -> Fraction:
    return Fraction(str(e.subs(m, value).doit()))


@pytest.mark.parametrize("name, lhs, rhs, facts, true", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_facts_about_an_integer_give_integer_bounds(name, lhs, rhs, facts, true):
    allowed = [v for v in range(-20, 21) if all(_holds(fa, Fraction(v)) for fa in facts)]
    assert allowed
    # the hand truth, checked at every integer of the range the facts allow
    assert all(_py(lhs, v) == _py(rhs, v) for v in allowed) is true
    d = decide(lhs, rhs, facts)
    assert d.verdict is (PROVED if true else REFUTED), (name, d)
    if true:
        assert d.facts == tuple(fa.reason for fa in facts)
    else:
        v = assignment(d)["m"]
        assert v.denominator == 1 and int(v) in allowed
        assert (_py(lhs, int(v)), _py(rhs, int(v))) == (d.witness.lhs, d.witness.rhs)


@pytest.mark.parametrize("lhs, rhs, facts", [
    (sp.Max(y, 1), y, [positive(y, "y > 0")]),
    (sp.Max(y, 1), y, [positive(y - sp.S.Half, "y > 1/2")]),
    (sp.Max(sp.Abs(y), 1), sp.Abs(y), [nonzero(y, "y != 0")]),
])
def test_a_real_symbol_gets_no_integer_bound(lhs, rhs, facts):
    """The same facts about a real y allow 0 < y < 1, where max(y, 1) ≠ y."""
    d = decide(lhs, rhs, facts)
    assert d.verdict is REFUTED
    v = assignment(d)["y"]
    assert abs(v) < 1 and v != 0 and Fraction(str(d.witness.lhs)) == 1 != abs(v)


@settings(max_examples=60, deadline=None)
@given(st.fractions(min_value=-4, max_value=4, max_denominator=4),
       st.sampled_from([">", ">=", "<", "<="]), st.integers(-2, 2))
def test_an_integer_bound_is_never_one_too_far(t, relation, delta):
    """For an integer m with the fact m ⋈ t, let b be the integer the fact makes tight (the
    least, or greatest, integer it allows, counted here) and c = b + delta: max(m, c) = m (for
    > and ≥) or min(m, c) = m (for < and ≤) holds exactly when c is not past b. At c = b it
    is proved and one integer past b refuted, at an integer the fact allows; c inside the range
    (delta toward it) needs a sum of two bounds the sign rules do not add, so it may be
    unknown, never refuted."""
    t_ = sp.Rational(t.numerator, t.denominator)
    above = relation in (">", ">=")
    fact = (positive if relation in (">", "<") else hypothesis)(m - t_ if above else t_ - m,
                                                                f"m {relation} {t}")
    holds = {">": lambda v: v > t, ">=": lambda v: v >= t, "<": lambda v: v < t,
             "<=": lambda v: v <= t}[relation]
    allowed = [v for v in range(-30, 31) if holds(v)]
    b = min(allowed) if above else max(allowed)
    c = b + delta
    lhs = sp.Max(m, c) if above else sp.Min(m, c)
    true = all((max(v, c) if above else min(v, c)) == v for v in allowed)
    assert true is (delta <= 0 if above else delta >= 0)
    d = decide(lhs, m, [fact])
    inside = delta < 0 if above else delta > 0
    if inside:
        assert d.verdict in (PROVED, Verdict.UNKNOWN), (relation, t, c, d)
    else:
        assert d.verdict is (PROVED if true else REFUTED), (relation, t, c, d)
    if d.verdict is REFUTED:
        v = assignment(d)["m"]
        assert v.denominator == 1 and int(v) in allowed and (max if above else min)(v, c) != v


def test_facts_an_integer_cannot_meet_are_contradictory():
    """0 < m < 1 holds for no integer m (it does for the real y = 1/2)."""
    with pytest.raises(ContradictoryFacts) as caught:
        decide(m, m, [positive(m, "m > 0"), positive(1 - m, "m < 1")])
    assert caught.value.reasons == ("m > 0", "m < 1")
    assert decide(y, y, [positive(y, "y > 0"), positive(1 - y, "y < 1")]).verdict is PROVED


# -------------------------------------------------------------------- forced equalities

PINNED = [hypothesis(i - N, "i >= N"), hypothesis(N - i, "i <= N")]


@pytest.mark.parametrize("lhs, rhs", [(x[i], x[N]), (f(i), f(N)), (x[i] - f(N), x[N] - f(i)),
                                      ((-1) ** (i + N), 1)])
def test_two_facts_that_pin_an_index_make_it_equal(lhs, rhs):
    d = decide(lhs, rhs, PINNED)
    assert d.verdict is PROVED, d
    assert set(d.facts) == {"i >= N", "i <= N"}
    assert "equalities from the facts" in d.rules


def test_one_of_the_two_facts_pins_nothing():
    """With i ≥ N alone, x_i = x_N is false: a witness with i > N, x_i ≠ x_N, checked here."""
    d = decide(x[i], x[N], PINNED[:1])
    assert d.verdict is REFUTED
    size = {str(s): int(v) for s, v in d.witness.symbols}
    assert size["i"] > size["N"] >= 1
    values = assignment(d)
    assert (values[f"x[{size['i']}]"], values[f"x[{size['N']}]"]) == (d.witness.lhs,
                                                                     d.witness.rhs)
    assert d.witness.lhs != d.witness.rhs


def test_integer_facts_pin_a_value_a_real_one_does_not():
    """1 ≤ m < 2 forces m = 1 for an integer m; for a real y it leaves y = 3/2 (say)."""
    d = decide(m, sp.Integer(1), [hypothesis(m - 1, "m >= 1"), positive(2 - m, "m < 2")])
    assert d.verdict is PROVED and set(d.facts) == {"m >= 1", "m < 2"}
    d = decide(y, sp.Integer(1), [hypothesis(y - 1, "y >= 1"), positive(2 - y, "y < 2")])
    assert d.verdict is REFUTED
    v = assignment(d)["y"]
    assert 1 < v < 2 and d.witness.lhs == sp.Rational(v.numerator, v.denominator)


def test_reals_pinned_by_two_facts_and_a_derivative_variable_kept():
    assert decide(sp.sin(y), sp.sin(z), [hypothesis(2 * y - 2 * z, "y >= z"),
                                         hypothesis(z - y, "z >= y")]).verdict is PROVED
    # d(y²)/dy = 2z given y = z: z is replaced, never the variable y
    d = decide(sp.Derivative(y**2, y), 2 * z, [hypothesis(y - z, "y >= z"),
                                               hypothesis(z - y, "z >= y")])
    assert d.verdict is PROVED, d


def test_a_derivative_variable_is_never_replaced_by_an_expression():
    """y = z + 1 by the facts: z is replaced (z = y − 1), never y, which d/dy binds."""
    d = decide(sp.Derivative(y**2, y), 2 * z + 2, [hypothesis(y - z - 1, "y >= z + 1"),
                                                   hypothesis(z + 1 - y, "y <= z + 1")])
    assert d.verdict is PROVED, d


def test_the_pinned_symbol_keeps_its_assumptions():
    """An integer i and a real y pinned equal: y is replaced by i (an integer, so real too),
    never i by y, so floor(y) = y and (−1)^(2y) = 1 are proved: y is that integer."""
    pinned = [hypothesis(i - y, "i >= y"), hypothesis(y - i, "y >= i")]
    assert decide(sp.floor(y), y, pinned).verdict is PROVED
    assert decide((-1) ** (2 * y), sp.S.One, pinned).verdict is PROVED


def test_a_term_is_reduced_only_when_every_factor_is_an_integer():
    """i²·y ≢ i·y (mod 2) for a real y: such a term is left alone (None)."""
    from derive.kernel.integers import _mod2

    assert _mod2(3 * i**2 * y) is None
    assert _mod2(3 * i**2 * j**3) == i * j and _mod2(4 * i * j) == 0


def test_a_calc_chain_names_an_integer_fact_once():
    """max(m, 1) = m in one link, given m > 0: the fact is used through its bound m − 1 ≥ 0,
    and named once."""
    from derive.kernel import decide_chain

    (link,) = decide_chain(sp.Max(m, 1), [m], [positive(m, "m > 0")])
    assert link.verdict is PROVED and link.facts == ("m > 0",)
