"""derive.kernel.decide and derive.kernel.facts: `proved` only for identities, `refuted` only
with a witness that re-verifies by exact evaluation."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st
from support import concretely_equal, examples, reverify, reverify_claim

from derive.kernel import CertificateError, Fact, Verdict, certify, decide, decide_chain, hypothesis
from derive.kernel.witness import domain_values
from derive.model import linear
from derive.model.objective import (
    K,
    N,
    batch_objective,
    block_sum,
    boundary,
    ell,
    grad,
    i,
    k,
    n,
    over_microbatches,
    theta,
)

PROVED, REFUTED, UNKNOWN = Verdict.PROVED, Verdict.REFUTED, Verdict.UNKNOWN

a, b, c = sp.symbols("a b c", real=True)
SYMS = (a, b, c)
p_ = sp.Symbol("p", positive=True)
m = sp.Symbol("m", integer=True, positive=True)
j_ = sp.Symbol("j", integer=True)
f = sp.Function("f", real=True)
R = sp.Rational


# --------------------------------------------------------------------------- tables

TRUE_IDENTITIES = [
    ("square of a sum", (a + b) ** 2, a**2 + 2 * a * b + b**2),
    ("difference of squares", a**2 - b**2, (a - b) * (a + b)),
    ("common denominator", a / b + 1, (a + b) / b),
    ("partial fractions", 1 / (a * (a + 1)), 1 / a - 1 / (a + 1)),
    ("rational coefficients", R(1, 3) * a + R(2, 3) * a, a),
    ("lesson's gradient", sp.Derivative((linear.w * linear.x - linear.y) ** 2 / 2, linear.w),
     (linear.w * linear.x - linear.y) * linear.x),
    ("gradient formula", linear.gradient_formula("w"),
     (linear.w * linear.x + linear.b - linear.y) * linear.x),
    ("sgd update", linear.sgd_update(a, b, c), a - b * c),
    ("Gauss", sp.Sum(i, (i, 1, K)), K * (K + 1) / 2),
    ("linearity of Σ", sp.Sum(c * f(i) + 3, (i, 1, K)), c * sp.Sum(f(i), (i, 1, K)) + 3 * K),
    ("telescoping", sp.Sum(f(i) - f(i - 1), (i, 1, K)), f(K) - f(0)),
    ("splitting a Σ", sp.Sum(f(i), (i, 1, K)),
     sp.Sum(f(i), (i, 1, m)) + sp.Sum(f(i), (i, m + 1, K))),
    ("empty Σ", sp.Sum(f(i), (i, 1, 0)), 0),
    ("one-term Σ", sp.Sum(f(i), (i, m, m)), f(m)),
    ("derivative under Σ", sp.Derivative(sp.Sum(ell(i, theta), (i, 1, K)), theta),
     sp.Sum(sp.Derivative(ell(i, theta), theta), (i, 1, K))),
    ("N is Σ n_k", sp.Sum(n(j_), (j_, 1, K)), N),
    ("blocks partition 1..N", sp.Sum(ell(i, theta), (i, 1, N)),
     over_microbatches(lambda k_: block_sum(lambda i_: ell(i_, theta), k_))),
]


@pytest.mark.parametrize(("name", "lhs", "rhs"), TRUE_IDENTITIES, ids=[t[0] for t in TRUE_IDENTITIES])
def test_true_identities_are_proved(name, lhs, rhs):
    d = decide(lhs, rhs)
    assert d.verdict is PROVED, d.detail
    assert d.proved and d.witness is None
    assert d.rules  # a proof names the rules it used


FALSE_CLOSED = [
    ("square without cross term", (a + b) ** 2, a**2 + b**2),
    ("a² = a", a**2, a),
    ("|a| = a", sp.Abs(a), a),
    ("max = first", sp.Max(a, b), a),
    ("min = first", sp.Min(a, b), a),
    ("a/b = b/a", a / b, b / a),
    ("(a+1)² = a²+1", (a + 1) ** 2, a**2 + 1),
    ("1/K weights", (a + b + c) / 3, (a + b) / 4 + c / 2),
    ("clip value", sp.Max(-c, sp.Min(a, c)), a),
    ("wrong gradient", linear.gradient_formula("w"), (linear.w * linear.x - linear.y)),
    ("positive symbol", p_ ** 2, p_),
    ("sqrt", sp.sqrt(a**2), a),
]


@pytest.mark.parametrize(("name", "lhs", "rhs"), FALSE_CLOSED, ids=[t[0] for t in FALSE_CLOSED])
def test_false_closed_identities_are_refuted_with_a_witness(name, lhs, rhs):
    d = decide(lhs, rhs)
    assert d.verdict is REFUTED, d.detail
    assert d.witness is not None
    reverify(lhs, rhs, d.witness)


@pytest.mark.parametrize(("lhs", "rhs", "assignment", "values"), [
    (a**2, a, {"a": -1}, (1, -1)),                    # 0 and 1 agree; −1 is the first
    (sp.Abs(a), a, {"a": -1}, (1, -1)),
    (sp.Max(a, b), a, {"a": 0, "b": 1}, (1, 0)),
    (p_ ** 2, p_, {"p": 2}, (4, 2)),                  # a positive symbol starts at 1
    ((a + b) ** 2, a**2 + b**2, {"a": 1, "b": 1}, (4, 2)),
])
def test_witness_is_the_smallest_in_the_documented_order(lhs, rhs, assignment, values):
    d = decide(lhs, rhs)
    assert d.verdict is REFUTED
    assert {name: v for name, v in d.witness.assignment} == assignment
    assert (d.witness.lhs, d.witness.rhs) == values


def test_witness_as_dict_uses_exact_strings():
    d = decide(a / 3, a / 2)
    w = d.witness.as_dict()
    assert w["assignment"] == {"a": "1"}
    assert (w["lhs"], w["rhs"]) == ("1/3", "1/2")
    assert "1/3" in d.witness.describe() and "1/2" in d.witness.describe()


@pytest.mark.parametrize(("sym", "first"), [
    (sp.Symbol("x", real=True), [0, 1, -1, 2, -2, R(1, 2), R(-1, 2), 3]),
    (sp.Symbol("x", positive=True), [1, 2, R(1, 2), 3, R(3, 2), R(1, 3), R(2, 3), 4]),
    (sp.Symbol("x", nonnegative=True), [0, 1, 2, R(1, 2), 3]),
    (sp.Symbol("x", integer=True, positive=True), [1, 2, 3, 4, 5]),
    (sp.Symbol("x", integer=True), [0, 1, -1, 2, -2]),
])
def test_domain_values_follow_the_witness_order(sym, first):
    assert domain_values(sym, len(first)) == first


def test_false_open_sums_are_refuted_on_small_shapes():
    # Σ_{i=1}^{N} ℓ_i vs Σ_{i=0}^{N−1} ℓ_i: false; K, the n_k and ℓ get small concrete values
    lhs, rhs = sp.Sum(ell(i, theta), (i, 1, N)), sp.Sum(ell(i, theta), (i, 0, N - 1))
    d = decide(lhs, rhs)
    assert d.verdict is REFUTED
    reverify_claim(lhs, rhs, d.witness)


def test_decide_chain_decides_each_link():
    steps = [(a + b) * (a + b), a**2 + 2 * a * b + b**2, a**2 + b**2, a**2 + b**2 + 0]
    out = decide_chain((a + b) ** 2, steps)
    assert [d.verdict for d in out] == [PROVED, PROVED, UNKNOWN, PROVED]
    assert all(d.witness is None for d in out)  # a chain never searches


# --------------------------------------------------------------------------- random polynomials

coefficients = st.fractions(min_value=-5, max_value=5, max_denominator=6)
monomials = st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2))


@st.composite
def polynomials(draw, min_terms=0, max_terms=4, symbols=SYMS):
    terms = draw(st.lists(st.tuples(coefficients, monomials), min_size=min_terms,
                          max_size=max_terms))
    out = sp.S.Zero
    for coeff, exps in terms:
        mono = sp.Mul(*[s**e for s, e in zip(symbols, exps)])
        out += sp.Rational(coeff.numerator, coeff.denominator) * mono
    return out


@st.composite
def nonzero_polynomials(draw, symbols=SYMS):
    q = draw(polynomials(min_terms=1, symbols=symbols))
    assume(sp.expand(q) != 0)
    return q


@st.composite
def false_identities(draw):
    """(lhs, rhs, q) with rhs − lhs = q ≠ 0 as polynomials or rational functions."""
    r1, r2 = draw(polynomials()), draw(polynomials())
    q = draw(nonzero_polynomials())
    form = draw(st.sampled_from(["plain", "product", "quotient"]))
    if form == "plain":
        return r1, r1 + q, q
    if form == "product":
        return r1 * r2, sp.expand(r1 * r2) + q, q
    den = draw(nonzero_polynomials())
    return r1 / den, sp.expand(r1) / sp.expand(den) + q, q


@examples(25, slow=60)
@given(false_identities())
def test_random_false_identities_are_never_proved(case):
    lhs, rhs, q = case
    d = decide(lhs, rhs, seconds=None)
    assert d.verdict is not PROVED
    if d.verdict is REFUTED:
        reverify(lhs, rhs, d.witness)
    sides = lhs.free_symbols | rhs.free_symbols
    if sides <= sp.expand(q).free_symbols:
        # every variable of the sides occurs in the difference: the search must find a point
        assert d.verdict is REFUTED, d.detail


@examples(40)
@given(nonzero_polynomials(), st.data())
def test_false_identities_with_all_variables_in_the_difference_are_refuted(q, data):
    # p uses only the variables of q, so every symbol of the sides is in the difference
    p = data.draw(polynomials(symbols=tuple(sorted(q.free_symbols, key=str)) or (a,)))
    assume(p.free_symbols <= q.free_symbols)
    d = decide(p, p + q, seconds=None)
    assert d.verdict is REFUTED, d.detail
    reverify(p, p + q, d.witness)


@st.composite
def true_identities(draw):
    u, v, w_ = draw(polynomials()), draw(polynomials()), draw(polynomials())
    form = draw(st.sampled_from(["distribute", "square", "difference", "quotient", "expand",
                                 "derivative"]))
    if form == "distribute":
        return u * v + u * w_, sp.expand(u * (v + w_))
    if form == "square":
        return (u + v) ** 2, u**2 + 2 * u * v + v**2
    if form == "difference":
        return u**2 - v**2, (u - v) * (u + v)
    if form == "quotient":
        den = draw(nonzero_polynomials())
        return u / den + v / den, (u + v) / den
    if form == "expand":
        return u * v * w_, sp.expand(u * v * w_)
    return sp.Derivative(u * v, a), sp.diff(u, a) * v + u * sp.diff(v, a)


@examples(60)
@given(true_identities())
def test_random_true_identities_are_proved(case):
    lhs, rhs = case
    d = decide(lhs, rhs, seconds=None)
    assert d.verdict is PROVED, d.detail


# --------------------------------------------------------------------------- A1-like Σ identities

def ellf(i_):
    return ell(i_, theta)


def a1_variant(weighting="n/N", low_shift=0, high_shift=0, den_shift=0, gradient=False):
    """Σ_{i=1}^{N} ℓ_i / N against Σ_k weight_k · (1/n_k) Σ_{i=c_{k−1}+1+low}^{c_k+high} ℓ_i,
    with the weight n_k/N, 1/K or n_k/(N + den_shift)."""
    def block(k_):
        lo = boundary(k_ - 1) + 1 + low_shift
        hi = boundary(k_) + high_shift
        return sp.Sum(ellf(i), (i, lo, hi)) / n(k_)

    def w(k_):
        if weighting == "1/K":
            return 1 / K
        return n(k_) / (N + den_shift)

    lhs = batch_objective()
    rhs = over_microbatches(lambda k_: w(k_) * block(k_))
    if gradient:
        lhs, rhs = grad(lhs), over_microbatches(lambda k_: w(k_) * grad(block(k_)))
    return lhs, rhs


SIZES = {"1,2": sp.Lambda(j_, j_), "2,2": sp.Lambda(j_, 2), "3,2,1": sp.Lambda(j_, 4 - j_)}


def holds_concretely(lhs, rhs, K_value=2, sizes="1,2"):
    return concretely_equal(lhs, rhs, {K: sp.Integer(K_value), n: SIZES[sizes]})


def test_a1_variants_agree_concretely_when_correct():
    lhs, rhs = a1_variant()
    for K_value, sizes in [(1, "1,2"), (2, "1,2"), (3, "1,2"), (2, "2,2"), (3, "3,2,1")]:
        assert holds_concretely(lhs, rhs, K_value, sizes)


@pytest.mark.parametrize("gradient", [False, True])
def test_a1_like_identities_are_proved(gradient):
    lhs, rhs = a1_variant(gradient=gradient)
    assert decide(lhs, rhs).verdict is PROVED
    # the same identity with the blocks summed first and divided by N once
    rhs2 = over_microbatches(lambda k_: block_sum(ellf, k_)) / N
    assert decide(batch_objective(), rhs2).verdict is PROVED
    # and scaled on both sides
    assert decide(7 * batch_objective() / 3, 7 * rhs2 / 3).verdict is PROVED


FALSE_A1 = [
    ("1/K weights", dict(weighting="1/K")),
    ("denominator N+1", dict(den_shift=1)),
    ("denominator N-1", dict(den_shift=-1)),
    ("block starts one late", dict(low_shift=1)),
    ("block starts one early", dict(low_shift=-1)),
    ("block ends one late", dict(high_shift=1)),
    ("block ends one early", dict(high_shift=-1)),
    ("block shifted by one", dict(low_shift=-1, high_shift=-1)),
    ("1/K on gradients", dict(weighting="1/K", gradient=True)),
    ("N+1 on gradients", dict(den_shift=1, gradient=True)),
]


@pytest.mark.parametrize(("name", "variant"), FALSE_A1, ids=[t[0] for t in FALSE_A1])
def test_false_a1_variants_are_never_proved(name, variant):
    lhs, rhs = a1_variant(**variant)
    # the variant really is false: it fails on K = 2 microbatches of 1 and 2 records
    assert not holds_concretely(lhs, rhs, 2, "1,2")
    assert decide(lhs, rhs).verdict is not PROVED


@examples(30)
@given(
    weighting=st.sampled_from(["n/N", "1/K"]),
    low_shift=st.integers(-2, 2),
    high_shift=st.integers(-2, 2),
    den_shift=st.integers(-2, 2),
    gradient=st.booleans(),
)
def test_a1_variants_proved_only_when_true(weighting, low_shift, high_shift, den_shift, gradient):
    lhs, rhs = a1_variant(weighting, low_shift, high_shift, den_shift, gradient)
    d = decide(lhs, rhs)
    correct = (weighting, low_shift, high_shift, den_shift) == ("n/N", 0, 0, 0)
    if correct:
        assert d.verdict is PROVED
    else:
        assert not holds_concretely(lhs, rhs, 2, "1,2")
        assert d.verdict is not PROVED


# random Σ expressions over f with limits from a small grammar; whatever the kernel proves must
# hold once K and m are numbers and every Σ is written out (SymPy's convention for b < a − 1)

LIMITS = [sp.Integer(0), sp.Integer(1), sp.Integer(2), m, m + 1, m - 1, K, K + 1, K - 1]
SUMMANDS = [f(i), i * f(i), f(i + 1), f(i) - f(i - 1), i, i**2, sp.Integer(1), f(2 * i)]


@st.composite
def sum_expressions(draw):
    out = sp.S.Zero
    for _ in range(draw(st.integers(1, 3))):
        coeff = draw(st.sampled_from([1, -1, 2, R(1, 2), R(-3, 2)]))
        g = draw(st.sampled_from(SUMMANDS))
        lo, hi = draw(st.sampled_from(LIMITS)), draw(st.sampled_from(LIMITS))
        out += coeff * sp.Sum(g, (i, lo, hi))
    if draw(st.booleans()):
        out += draw(st.sampled_from([f(m), f(K), f(0), f(1), m, K]))
    return out


def split(e, point):
    """An equal expression: every Σ_{a}^{b} written as Σ_{a}^{point} + Σ_{point+1}^{b}
    (true for all integer limits with SymPy's convention)."""
    return e.replace(
        lambda x: isinstance(x, sp.Sum),
        lambda x: sp.Sum(x.function, (x.limits[0][0], x.limits[0][1], point))
        + sp.Sum(x.function, (x.limits[0][0], point + 1, x.limits[0][2])),
    )


@examples(25, slow=60)
@given(sum_expressions(), sum_expressions(), st.sampled_from(["other", "split", "perturbed"]),
       st.sampled_from(LIMITS))
def test_random_sum_identities_are_proved_only_when_true(e1, e2, how, point):
    if how == "split":
        e2 = split(e1, point)
    elif how == "perturbed":
        e2 = split(e1, point) + e2 - split(e2, point + 1) + f(K + 2)
    d = decide(e1, e2, seconds=None)
    if d.verdict is PROVED:
        for K_value in (1, 2, 3, 4):
            for m_value in (1, 2, 3):
                assert concretely_equal(e1, e2, {K: sp.Integer(K_value), m: sp.Integer(m_value)})
    if how == "split":
        assert d.verdict is PROVED
    if how == "perturbed":
        assert d.verdict is not PROVED


# --------------------------------------------------------------------------- facts

g1, g2, alpha = sp.symbols("g_1 g_2 alpha", real=True)
cpos = sp.Symbol("c", positive=True)


def clip(g):
    return sp.Max(-cpos, sp.Min(g, cpos))


mean = alpha * g1 + (1 - alpha) * g2
H = {
    "a": hypothesis(alpha, "α ≥ 0"),
    "1-a": hypothesis(1 - alpha, "α ≤ 1"),
    "c-g1": hypothesis(cpos - g1, "g_1 ≤ c"),
    "c+g1": hypothesis(cpos + g1, "g_1 ≥ −c"),
    "c-g2": hypothesis(cpos - g2, "g_2 ≤ c"),
    "c+g2": hypothesis(cpos + g2, "g_2 ≥ −c"),
}


def test_a_right_certificate_gives_a_checked_fact():
    fact = certify(cpos - mean, [(1, (H["a"], H["c-g1"])), (1, (H["1-a"], H["c-g2"]))],
                   "c − ḡ = α(c − g_1) + (1−α)(c − g_2)", tuple(H.values()))
    assert fact.origin == "certificate"
    assert set(fact.uses) <= {h.reason for h in H.values()}
    assert isinstance(fact, Fact)
    assert sp.expand(fact.expr - (cpos - mean)) == 0
    # squares and positive constants need no hypothesis
    assert certify(a**2 + 2 * a * b + b**2 + 3, [(1, ((a + b) ** 2,)), (3, ())], "square").expr


@pytest.mark.parametrize(("name", "expr", "terms"), [
    ("identity does not hold", cpos - mean, [(1, (H["a"], H["c-g1"]))]),
    ("wrong factor", cpos - mean, [(1, (H["a"], H["c+g1"])), (1, (H["1-a"], H["c-g2"]))]),
    ("negative coefficient", -(cpos - g1), [(-1, (H["c-g1"],))]),
    ("factor not known ≥ 0", g1 * alpha, [(1, (g1, H["a"]))]),
    ("symbolic coefficient", g1 * alpha, [(g1, (H["a"],))]),
    ("odd power is not a square", a**3, [(1, (a**3,))]),
    ("not an expression", cpos - g1, [(1, ("c - g_1",))]),
])
def test_a_wrong_certificate_raises(name, expr, terms):
    with pytest.raises(CertificateError):
        certify(expr, terms, name, tuple(H.values()))


def test_a_certificate_uses_only_the_statements_facts():
    # a Fact object that is not among the statement's facts proves nothing, even "−1 ≥ 0"
    bogus = Fact(sp.Integer(-1), "bogus")
    with pytest.raises(CertificateError):
        certify(g1, [(1, (bogus,))], "from nothing", tuple(H.values()))
    forged = Fact(g1, "g_1 ≥ 0 (not a fact of the statement)")
    with pytest.raises(CertificateError):
        certify(g1, [(1, (forged,))], "g_1 ≥ 0 from a forged fact", tuple(H.values()))
    with pytest.raises(CertificateError):
        certify(cpos - mean, [(1, (H["a"], H["c-g1"])), (1, (H["1-a"], H["c-g2"]))], "u")
    # and a factor matching no fact is not assumed ≥ 0
    with pytest.raises(CertificateError):
        certify(alpha * (cpos - g1), [(1, (alpha, cpos - g1))], "signs unknown")


lhs_clip = clip(mean)
rhs_clip = alpha * clip(g1) + (1 - alpha) * clip(g2)


def test_clip_within_threshold_is_refuted_without_the_facts():
    d = decide(lhs_clip, rhs_clip)
    assert d.verdict is REFUTED
    point = reverify(lhs_clip, rhs_clip, d.witness)
    # the witness violates one of the hypotheses (it must: the claim holds under them)
    assert any(h.expr.xreplace(point) < 0 for h in H.values())


def test_clip_within_threshold_is_not_proved_from_the_hypotheses_alone():
    d = decide(lhs_clip, rhs_clip, list(H.values()))
    assert d.verdict is not PROVED
    if d.verdict is REFUTED:
        reverify(lhs_clip, rhs_clip, d.witness, constraints=tuple(h.expr for h in H.values()))


def test_clip_within_threshold_is_proved_with_the_certified_facts():
    hs = tuple(H.values())
    upper = certify(cpos - mean, [(1, (H["a"], H["c-g1"])), (1, (H["1-a"], H["c-g2"]))], "u", hs)
    lower = certify(cpos + mean, [(1, (H["a"], H["c+g1"])), (1, (H["1-a"], H["c+g2"]))], "l", hs)
    facts = [*H.values(), upper, lower]
    assert decide(lhs_clip, mean, facts).verdict is PROVED
    assert decide(mean, rhs_clip, facts).verdict is PROVED


@pytest.mark.parametrize(("lhs", "rhs", "fact", "verdict"), [
    (sp.Max(a, b), a, a - b, PROVED),
    (sp.Min(a, b), b, a - b, PROVED),
    (sp.Min(a, b), a, a - b, REFUTED),           # with a ≥ b the minimum is b
    (sp.Abs(a), -a, -a, PROVED),
    (sp.Abs(a), a, -a, REFUTED),
    (sp.Piecewise((1, a <= b), (2, True)), 1, b - a, PROVED),
    (sp.Piecewise((1, a <= b), (2, True)), 2, b - a, REFUTED),
])
def test_facts_choose_branches_soundly(lhs, rhs, fact, verdict):
    facts = [hypothesis(fact, "given")]
    d = decide(lhs, rhs, facts)
    assert d.verdict is verdict
    if verdict is REFUTED:
        reverify(lhs, rhs, d.witness, constraints=(fact,))


# --------------------------------------------------------------------------- known bugs

def nested(lo, hi):
    """Σ_{k=lo}^{hi} Σ_{i=1}^{1} f(i, k): the inner summand depends on the outer index."""
    return sp.Sum(sp.Sum(f(i, k), (i, 1, 1)), (k, lo, hi))


def test_nested_sums_with_different_outer_ranges_differ():
    assert not concretely_equal(nested(1, 2), nested(3, 4), {})


def test_kernel_does_not_prove_false_nested_sums():
    assert decide(nested(1, 2), nested(3, 4)).verdict is not PROVED


def test_kernel_does_not_prove_false_nested_sums_symbolic():
    lhs = sp.Sum(sp.Sum(f(i, k), (i, 1, m)), (k, 1, K))
    rhs = sp.Sum(sp.Sum(f(i, k), (i, 1, m)), (k, 2, K + 1))
    assert not concretely_equal(lhs, rhs, {K: sp.Integer(1), m: sp.Integer(1)})
    assert decide(lhs, rhs).verdict is not PROVED


@pytest.mark.parametrize(("lhs", "rhs"), [(a, a + 1), (a * b, a * b + a), (a**2 * c, a**2 * c - 3)])
def test_false_identity_with_cancelling_symbols_is_refuted(lhs, rhs):
    d = decide(lhs, rhs)
    assert d.verdict is REFUTED
    reverify(lhs, rhs, d.witness)


yneg = sp.Symbol("y", negative=True)


def test_max_identity_holds_for_negative_values():
    # y³ − 1 < y for every y < 0, so Max(y, y³ − 1) = y on the symbol's domain
    for value in domain_values(sp.Symbol("t", real=True), 40):
        if value < 0:
            assert sp.Max(value, value**3 - 1) == value


def test_witness_respects_a_negative_symbol():
    d = decide(sp.Max(yneg, yneg**3 - 1), yneg)
    assert d.verdict is not REFUTED


@pytest.mark.parametrize("sym", [sp.Symbol("y", negative=True),
                                 sp.Symbol("y", integer=True, negative=True),
                                 sp.Symbol("y", real=True, nonzero=True)])
def test_domain_values_stay_in_the_domain(sym):
    from support import in_domain
    assert all(in_domain(sym, v) for v in domain_values(sym, 12))


xs = sp.IndexedBase("x", real=True)
d_int = sp.Symbol("d", integer=True)


def test_a_side_that_is_not_real_is_no_counterexample():
    # √x + √(−x) and √|x| are both real only at x = 0, where they agree: nothing refutes it
    x_ = sp.Symbol("x", real=True)
    d = decide(sp.sqrt(x_) + sp.sqrt(-x_), sp.sqrt(sp.Abs(x_)))
    assert d.verdict is not REFUTED


def test_sum_of_squares_is_negative_for_a_reversed_range():
    s = sp.Sum(xs[i] ** 2, (i, 1, d_int))
    assert s.xreplace({d_int: -1}).doit() == -xs[0] ** 2


def test_sum_of_squares_is_not_assumed_nonnegative_for_any_integer_limit():
    s = sp.Sum(xs[i] ** 2, (i, 1, d_int))
    assert decide(sp.Abs(s), s).verdict is not PROVED


# --------------------------------------------------------------------------- compiled evaluation

from derive.kernel.compile import NotCompilable, compile_exact  # noqa: E402

points = st.tuples(*(st.fractions(min_value=-9, max_value=9, max_denominator=7),) * 3)


@examples(60)
@given(polynomials(max_terms=5), nonzero_polynomials(), points, st.booleans())
def test_compiled_formula_equals_substitution(num, den, point, rational):
    expr = num / den if rational else num * (den + 1) ** 2
    values = [sp.Rational(q.numerator, q.denominator) for q in point]
    substituted = expr.xreplace(dict(zip(SYMS, values)))
    assume(substituted.is_Rational)                     # not at a pole
    compiled = compile_exact(expr, SYMS)
    assert compiled(*values) == substituted
    assert compiled(*point) == substituted              # Fractions are read exactly too


@pytest.mark.parametrize("expr", [sp.sqrt(a), sp.Max(a, b), sp.Abs(a), f(a), a**b, sp.pi * a,
                                  sp.Float("0.5") * a])
def test_compile_refuses_what_it_cannot_evaluate_exactly(expr):
    with pytest.raises(NotCompilable):
        compile_exact(expr, SYMS)


def test_compiled_formula_checks_its_arity_and_refuses_floats():
    compiled = compile_exact(a * b + c, SYMS)
    assert compiled(1, 2, 3) == 5
    assert compiled(a, b, 0) == a * b
    with pytest.raises(TypeError):
        compiled(1, 2)
    with pytest.raises(TypeError):
        compiled(0.5, 2, 3)


# ------------------------------------------------------------------------------ index shift

_i = sp.Symbol("i", integer=True)
_M = sp.Symbol("M", integer=True, positive=True)
_f = sp.Function("f")
_x = sp.IndexedBase("x")


@pytest.mark.parametrize("lhs,rhs,verdict", [
    (sp.Sum(_f(_i), (_i, 1, _M)), sp.Sum(_f(_i + 1), (_i, 0, _M - 1)), PROVED),
    (sp.Sum(_x[_i] ** 2, (_i, 1, _M)), sp.Sum(_x[_i + 2] ** 2, (_i, -1, _M - 2)), PROVED),
    (sp.Sum(_f(_i), (_i, 1, _M)), sp.Sum(_f(_i + 1), (_i, 1, _M)), REFUTED),
    (sp.Sum(_f(_i), (_i, 1, _M)), sp.Sum(_f(_i - 1), (_i, 1, _M)), REFUTED),
    # two shifts in one term: the smallest becomes 0 on both sides
    (sp.Sum(_f(_i) * _f(_i + 1), (_i, 1, _M)), sp.Sum(_f(_i + 1) * _f(_i + 2), (_i, 0, _M - 1)),
     PROVED),
])
def test_index_shift(lhs, rhs, verdict):
    d = decide(lhs, rhs)
    assert d.verdict is verdict, d.detail
    if verdict is REFUTED:
        reverify_claim(lhs, rhs, d.witness)


# ------------------------------------------------------------------------------ calc chains

def test_a_chain_cannot_pass_through_an_undefined_step():
    # a = Σ_{k=1}^{K} 1/K is 0 at K = 0; b = (Σ_{k=1}^{K} 1)/K has no value there. Each link
    # holds where its own sides are defined, yet a = 1 is false at K = 0.
    k_, K_ = sp.symbols("k K", integer=True)
    a_, b_ = sp.Sum(1 / K_, (k_, 1, K_)), sp.Sum(1, (k_, 1, K_)) / K_
    assert decide(a_, b_).verdict is PROVED and decide(b_, 1).verdict is PROVED
    links = decide_chain(a_, [b_, 1])
    assert not all(d.proved for d in links)
    d = decide(a_, 1)
    assert d.verdict is REFUTED
    reverify_claim(a_, 1, d.witness)


def test_a_chain_step_undefined_where_the_claim_is_defined_is_not_proved():
    x_ = sp.Symbol("x", real=True)
    # x = x²/x = x: the middle step has no value at x = 0, where both ends do
    links = decide_chain(x_, [sp.Mul(x_**2, 1 / x_, evaluate=False), x_])
    assert links[0].verdict is not PROVED
    assert "needs x ≠ 0" in links[0].detail
