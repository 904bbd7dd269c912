"""Refuting what is false wherever it is false (issue 22): by degree beyond the first values,
past the expansion estimate, with tables whose neighbours differ at and below 0, and with free
functions that have a curvature; and witnesses that show the functions they took.

Every expected value is computed here, independently of derive: sums and products in Python
integers and Fractions, the rational witness order re-enumerated, and each witness re-checked
by tests/reference.py (a brute-force evaluator that imports nothing of derive).
"""

from __future__ import annotations

import re
from fractions import Fraction
from math import factorial, gcd, prod

import pytest
import reference
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.kernel import decide
from derive.kernel import interpret as interpret_module
from derive.kernel.algebra import expand, expansion_size, expansion_work
from derive.kernel.claims import NotSupported
from derive.kernel.facts import hypothesis

i = sp.Symbol("i", integer=True)
k = sp.Symbol("k", integer=True)
N = sp.Symbol("N", integer=True, positive=True)
K = sp.Symbol("K", integer=True, positive=True)
x, y, z, a, b = sp.symbols("x y z a b", real=True)
f = sp.Function("f", real=True)
n = sp.Function("n", integer=True, positive=True)


def rationals(count: int) -> list[Fraction]:
    """The witness order of a real symbol, written out again: 0, then p/q in lowest terms by
    max(p, q), then q, then p, each followed by its negative."""
    out, h = [Fraction(0)], 1
    while len(out) < count:
        for q in range(1, h + 1):
            for p in range(1, h + 1):
                if max(p, q) == h and gcd(p, q) == 1:
                    out += [Fraction(p, q), Fraction(-p, q)]
        h += 1
    return out[:count]


def values(w) -> dict[str, Fraction]:
    """The witness's point: the symbols its shape names (N = 8), then its assignment."""
    shaped = re.findall(r"(?:^|, )([A-Za-z]\w*) = (-?\d+(?:/\d+)?)(?=,|$)", w.shape)
    return {**{name: Fraction(v) for name, v in shaped},
            **{name: Fraction(str(v)) for name, v in w.assignment}}


def refuted(lhs, rhs, facts=()):
    d = decide(lhs, rhs, facts)
    assert d.verdict.value == "refuted", (d.strategy, d.detail)
    return d.witness


# --------------------------------------------------------------------------- by degree

def test_false_only_from_n8_is_refuted_at_8():
    """Σ_{i=1}^{N} i = N(N+1)/2 + (N−1)…(N−7): true at N = 1…7, false from N = 8."""
    w = refuted(sp.Sum(i, (i, 1, N)), N * (N + 1) / 2 + prod(N - j for j in range(1, 8)))
    assert values(w) == {"N": 8}
    assert (w.lhs, w.rhs) == (sum(range(1, 9)), sum(range(1, 9)) + factorial(7))


def test_false_only_from_n31_is_refuted_at_31():
    w = refuted(sp.Sum(i, (i, 1, N)), N * (N + 1) / 2 + prod(N - j for j in range(1, 31)))
    assert values(w) == {"N": 31}
    assert (w.lhs, w.rhs) == (496, 496 + factorial(30))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 24), min_size=1, max_size=9), st.integers(-3, 3).filter(bool))
def test_the_first_size_that_is_not_a_root_is_the_witness(roots, c):
    """Σ i = N(N+1)/2 + c·Π (N − r): false exactly at the sizes that are not roots, so the
    witness is the least positive integer not among them (N's order is 1, 2, 3, …)."""
    w = refuted(sp.Sum(i, (i, 1, N)), N * (N + 1) / 2 + c * prod(N - r for r in roots))
    first = min(m for m in range(1, 40) if m not in roots)
    assert values(w) == {"N": first}
    assert w.lhs == first * (first + 1) // 2
    assert w.rhs == first * (first + 1) // 2 + c * prod(first - r for r in roots)


def test_a_real_symbol_with_roots_at_its_first_30_values():
    """Π over the first 30 values of the rational order of (x − v) = 0: the search's 24 values
    are all roots; the 31st value is the witness."""
    order = rationals(31)
    w = refuted(sp.Mul(*[x - sp.Rational(v.numerator, v.denominator) for v in order[:30]]), 0)
    assert values(w) == {"x": order[30]}
    assert w.lhs == prod(order[30] - v for v in order[:30]) and w.rhs == 0


def test_two_variables_by_total_height():
    """Σ i·x = x·N(N+1)/2 + x·(N−1)…(N−7): needs N ≥ 8 and x ≠ 0; (N, x) = (8, 1) is the
    point of least total height (positions 7 and 1)."""
    w = refuted(sp.Sum(i * x, (i, 1, N)),
                x * N * (N + 1) / 2 + x * prod(N - j for j in range(1, 8)))
    assert values(w) == {"N": 8, "x": 1}
    assert (w.lhs, w.rhs) == (36, 36 + factorial(7))


def test_a_large_grid_is_searched_value_by_value():
    """Roots at the first 16 values of x, y and z each: the grid (19³ points) is searched
    lexicographically, and the only points off the roots have x, y, z ≥ the 17th value."""
    order = rationals(17)
    roots = [sp.Rational(v.numerator, v.denominator) for v in order[:16]]
    lhs = sp.Mul(*[(s - r) for s in (x, y, z) for r in roots])
    w = refuted(lhs, 0)
    assert values(w) == {"x": order[16], "y": order[16], "z": order[16]}
    assert w.lhs == prod(order[16] - v for v in order[:16]) ** 3


def test_a_fact_about_the_size_alone_shifts_the_grid():
    """With N ≥ 5, the roots 5…11 leave N = 12 as the first witness (the grid's values are the
    sizes the fact allows: 5, 6, …, not 1, 2, …)."""
    w = refuted(sp.Sum(i, (i, 1, N)), N * (N + 1) / 2 + prod(N - j for j in range(5, 12)),
                [hypothesis(N - 5, "N >= 5")])
    assert values(w) == {"N": 12}
    assert (w.lhs, w.rhs) == (78, 78 + factorial(7))


def test_a_point_where_the_claim_is_undefined_is_skipped():
    """The right side divides by N − 6: N = 6 is no witness, N = 7 is (roots 1…5)."""
    w = refuted(sp.Sum(i, (i, 1, N)),
                N * (N + 1) / 2 + prod(N - j for j in range(1, 6)) / (N - 6))
    assert values(w) == {"N": 7}
    assert (w.lhs, w.rhs) == (28, 28 + Fraction(factorial(6), 1))


def test_guards_that_cancel_in_the_difference_still_count():
    """1/((N−6)(N−7)(N−8)) on both sides cancels in lhs − rhs, but the claim is undefined at
    N = 6, 7, 8; with the roots 1…5 the first witness is N = 9."""
    g = 1 / ((N - 6) * (N - 7) * (N - 8))
    w = refuted(sp.Sum(i, (i, 1, N)) + g,
                N * (N + 1) / 2 + g + prod(N - j for j in range(1, 6)))
    assert values(w) == {"N": 9}
    assert w.lhs == 45 + Fraction(1, 6) and w.rhs == 45 + Fraction(1, 6) + factorial(8) // 6


@pytest.mark.parametrize("lhs, rhs, facts", [
    (x, 0, [hypothesis(x, "x >= 0"), hypothesis(-x, "x <= 0")]),  # only x = 0
    (sp.Sum(i, (i, 1, N)), N**2, [hypothesis(1 - N, "N <= 1")]),  # only N = 1
    (sp.Sum(i**3, (i, 1, N)), (N * (N + 1) / 2) ** 2, []),
])
def test_true_claims_are_never_refuted_by_degree(lhs, rhs, facts):
    assert decide(lhs, rhs, facts).verdict.value != "refuted"


# --------------------------------------------------------------------------- the expansion

def test_a_product_of_high_powers_is_proved_and_its_variant_refuted():
    d = decide((x + 1) ** 1000 * (x - 1) ** 1000, (x**2 - 1) ** 1000)
    assert d.verdict.value == "proved", d.detail
    w = refuted((x + 1) ** 1000 * (x - 1) ** 1000, (x**2 - 1) ** 1000 + 1)
    assert values(w) == {"x": 0} and (w.lhs, w.rhs) == (1, 2)  # 1·(−1)^1000 and (−1)^1000 + 1


def test_a_claim_beyond_the_expansion_bound_is_searched_first():
    """(x+y+z+1)^200 has C(203, 3) = 1,373,701 terms: no proof is tried, but the witness search
    runs; the true claim beside it stays `unknown`, "not supported"."""
    w = refuted((x + y + z + 1) ** 200, (x + y + z + 2) ** 200)
    assert values(w) == {"x": 0, "y": 0, "z": 0} and (w.lhs, w.rhs) == (1, 2**200)
    d = decide(((x + y + z + 1) ** 2 - 1) ** 100, ((x + y + z) * (x + y + z + 2)) ** 100)
    assert (d.verdict.value, d.strategy) == ("unknown", "not supported")


@pytest.mark.parametrize("e, terms", [
    ((x + 1) ** 1000 * (x - 1) ** 1000, 2001),  # degree 2000 in one variable
    ((x + y + 1) ** 60, 1891),  # C(62, 2)
    (sp.Mul(*[N - j for j in range(1, 31)]), 31),  # not 2^30
    ((x + y + z + 1) ** 30 * (x - y) ** 30, 39711),  # C(63, 3): the monomials of degree ≤ 60
])
def test_the_estimate_counts_monomials(e, terms):
    assert expansion_size(e) == terms


leaf = st.sampled_from([x, y, z, sp.Integer(1), sp.Integer(-2), sp.Rational(1, 2)])
trees = st.recursive(leaf, lambda sub: st.one_of(
    st.lists(sub, min_size=2, max_size=3).map(lambda xs: sp.Add(*xs)),
    st.lists(sub, min_size=2, max_size=3).map(lambda xs: sp.Mul(*xs)),
    st.tuples(sub, st.integers(2, 5)).map(lambda p: p[0] ** p[1])), max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(trees)
def test_the_estimate_is_an_upper_bound(e):
    """Never fewer terms than SymPy's expansion has (the count that decides whether expanding
    is refused); the products formed on the way are never fewer than the terms."""
    assert expansion_size(e) >= len(sp.Add.make_args(sp.expand(e)))
    assert expansion_work(e) >= expansion_size(e)


def test_a_term_by_term_expansion_of_a_million_products_is_refused_at_once():
    """(x+1)^1000·(x−1)^1000 has 2,001 terms but 1001² products on the way (SymPy: minutes):
    `expand` (used for signs and Σ summands) refuses it; only the ring's zero test takes it."""
    e = (x + 1) ** 1000 * (x - 1) ** 1000
    assert expansion_work(e) > 100_000 and 1001 * 1001 > 100_000
    with pytest.raises(NotSupported, match="products of terms"):
        expand(e)


def test_formula_answers_use_the_same_estimate():
    from derive.exercises.formulas import _terms

    assert _terms((x + 1) ** 1000 * (x - 1) ** 1000) == 2001  # past 2,000: searched only
    assert _terms(sp.Mul(*[N - j for j in range(1, 31)])) == 31


# --------------------------------------------------------------------------- tables

TELESCOPE = (sp.Sum(n(k) - n(k - 1), (k, 0, K)), n(K) - n(0))
"""False: the sum is n(K) − n(−1), so only a table with n(−1) ≠ n(0) refutes it."""


def injective(m: int) -> int:
    return 2 * m if m >= 1 else 1 - 2 * m


def test_neighbours_at_and_below_zero_differ():
    w = refuted(*TELESCOPE)
    assert w.shape == "K = 1, n(k) = 2k for k ≥ 1, 1 − 2k for k ≤ 0"
    assert [injective(m) for m in (-1, 0, 1)] == [3, 1, 2]
    env = {K: 1, n: injective}
    assert (reference.evaluate(TELESCOPE[0], env), reference.evaluate(TELESCOPE[1], env)) == (
        w.lhs, w.rhs) == (-1, 1)  # (1 − 3) + (2 − 1), and 2 − 1


def test_only_the_table_with_unequal_neighbours_refutes_it(monkeypatch):
    own = interpret_module._integer_tables
    monkeypatch.setattr(interpret_module, "_integer_tables",
                        lambda fn, args: [t for t in own(fn, args) if "2k" not in t[0]])
    assert decide(*TELESCOPE).verdict.value != "refuted"


def test_every_rule_says_what_n_is_for_k_at_most_zero():
    args = (sp.Dummy("a", integer=True),)
    tables = interpret_module._integer_tables(n, args)
    ramps = [label for label, rule in tables if rule.free_symbols]
    assert len(ramps) == 3 and all("k ≤ 0" in label or "k ≤ 1" in label for label in ramps)
    for label, rule in tables:  # each rule is the value its label says, at every k shown
        for m in range(-5, 12):
            value = rule.subs(args[0], m)
            ramp = {"n(k) = k for k ≥ 1, 1 for k ≤ 0": max(m, 1),
                    "n(k) = 2k for k ≥ 1, 1 − 2k for k ≤ 0": injective(m),
                    "n(k) = 2 for k ≤ 1, 1 for k ≥ 2": 2 if m <= 1 else 1}
            expected = ramp[label] if label in ramp else int(label.rsplit("= ", 1)[1])
            assert value == expected, (label, m)


# --------------------------------------------------------------------------- curvature

def _function(w, name="f"):
    """The witness's function, read back from its text: "f(u)" → "u**2"."""
    (shown, text), = [(s, v) for s, v in w.assignment if s.startswith(f"{name}(")]
    arg = sp.Symbol(shown[len(name) + 1:-1])
    return sp.Lambda(arg, sp.sympify(str(text), locals={arg.name: arg}))


CURVED = {
    "d f(2x)/dx = 2 f′(x)": (sp.Derivative(f(2 * x), x),
                             2 * sp.Subs(sp.Derivative(f(y), y), y, x)),
    "f((a + b)/2) = (f(a) + f(b))/2": (f((a + b) / 2), (f(a) + f(b)) / 2),
    "f(x + 1) − 2f(x) + f(x − 1) = 0": (f(x + 1) - 2 * f(x) + f(x - 1), sp.S.Zero),
}


@pytest.mark.parametrize("name", list(CURVED))
def test_claims_true_for_affine_functions_are_refuted(name):
    lhs, rhs = CURVED[name]
    w = refuted(lhs, rhs)
    g = _function(w)
    assert sp.degree(g.expr, g.variables[0]) == 2
    env = {f: g, **{s: Fraction(str(v)) for s, v in w.assignment if not s.startswith("f(")}}
    left, right = reference.evaluate(lhs, env), reference.evaluate(rhs, env)
    assert (left, right) == (w.lhs, w.rhs) and left != right


def test_the_chain_rule_slip_at_its_hand_computed_witness():
    """f(u) = u², x = 1: d/dx (2x)² = 8x = 8, and 2·f′(1) = 2·2 = 4."""
    w = refuted(*CURVED["d f(2x)/dx = 2 f′(x)"])
    assert [(s, str(v)) for s, v in w.assignment] == [("f(u)", "u**2"), ("x", "1")]
    assert (w.lhs, w.rhs) == (8, 4)


def test_without_curvature_the_chain_rule_slip_stands(monkeypatch):
    monkeypatch.setattr(interpret_module, "MAX_CURVED_SHAPES", 0)
    assert decide(*CURVED["d f(2x)/dx = 2 f′(x)"]).verdict.value != "refuted"


@pytest.mark.parametrize("lhs, rhs", [
    (sp.Derivative(f(2 * x), x), 2 * sp.Subs(sp.Derivative(f(y), y), y, 2 * x)),
    (f((a + b) / 2) + f(a), f(a) + f((b + a) / 2)),
])
def test_true_claims_with_functions_are_not_refuted(lhs, rhs):
    assert decide(lhs, rhs).verdict.value != "refuted"


# --------------------------------------------------------------------------- what a witness shows

@pytest.mark.parametrize("rhs, scale", [
    (sp.Subs(sp.Derivative(f(y), y), y, x), 1),  # f′(x)
    (sp.S.Zero, 0),  # SymPy writes d f(2x)/dx with f at its own dummy argument, alone here
])
def test_a_witness_names_the_function_it_took_never_a_dummy(rhs, scale):
    w = refuted(sp.Derivative(f(2 * x), x), rhs)
    names = [s for s, _ in w.assignment]
    assert names == ["f(u)", "x"], names
    assert not any(t in str(w.assignment) for t in ("_xi", "_c", "Dummy"))
    g, point = _function(w), Fraction(str(dict(w.assignment)["x"]))
    # d f(2x)/dx = 2 f′(2x), and f′(x) (or 0), from the polynomial read back
    u = g.variables[0]
    slope = sp.Lambda(u, sp.diff(g.expr, u))
    assert (w.lhs, w.rhs) == (2 * slope(2 * point), scale * slope(point))


def test_a_function_used_at_one_symbol_keeps_that_name():
    ell = sp.Function("ell", real=True)
    theta = sp.Symbol("theta", real=True)
    w = refuted(sp.Sum(ell(i, theta), (i, 1, N)), N * ell(1, theta))
    assert [s for s, _ in w.assignment][:2] == ["ell(1, theta)", "ell(2, theta)"]


def test_a_count_shows_its_rule_at_every_k():
    """The witness's Lambda for n is the rule of its label at every integer (not a table that
    falls back to another value outside −2…6)."""
    w = refuted(*TELESCOPE)
    (lam,) = [lam for g, lam in w.functions if g == n]
    assert [lam(m) for m in range(-9, 12)] == [injective(m) for m in range(-9, 12)]


def test_a_count_beyond_the_listed_arguments_follows_its_rule():
    """n(K + 7) = n(K + 8) is false for n(k) = max(k, 1) (8 ≠ 9 at K = 1); a table that fell
    back to one value outside k = −2…6 made both sides 1 there."""
    claim = (n(K + 7), n(K + 8))
    w = refuted(*claim)
    assert w.shape == "K = 1, n(k) = k for k ≥ 1, 1 for k ≤ 0"
    env = {K: 1, n: lambda m: max(m, 1)}
    assert (reference.evaluate(claim[0], env), reference.evaluate(claim[1], env)) == (
        w.lhs, w.rhs) == (8, 9)


def test_the_json_witness_of_a_toml_statement_shows_the_function(tmp_path):
    """`derive prove --format json`: the assignment names f by a polynomial that, substituted
    into the statement, gives its lhs and rhs (d f(2x)/dx against 2·f′(x))."""
    import contextlib
    import io
    import json

    from derive.cli.main import main

    path = tmp_path / "s.toml"
    path.write_text('[[statement]]\nid = "slip"\ntitle = "t"\nexpect = "refuted"\n'
                    'lhs = "d(f(2*x))/d(x)"\nrhs = "2*d(f(x))/d(x)"\n\n'
                    '[statement.given]\nfunctions = ["f"]\n', encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["prove", "--format", "json", str(path)]) == 0
    (rec,) = json.loads(out.getvalue())["statements"]
    w = rec["witness"]
    assert w["assignment"] == {"f(u)": "u**2", "x": "1"}
    u = sp.Symbol("u")
    g = sp.Lambda(u, sp.sympify(w["assignment"]["f(u)"], locals={"u": u}))
    at = Fraction(w["assignment"]["x"])
    slope = sp.Lambda(u, sp.diff(g.expr, u))
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (2 * slope(2 * at), 2 * slope(at))
