"""Certified enclosures (derive/kernel/intervals.py) and the claims decided by them.

Every expected value is computed independently of derive: exact rationals of known value
built as unevaluated SymPy trees (√(q²) = |q|, exp(log q) = q, (a + √b)(a − √b) = a² − b),
integer square roots (`math.isqrt`) for the digits of √n, and the `decimal` module at 80
digits for exp, log and an Adam reference."""

from __future__ import annotations

import decimal
import math
import os
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from support import tier

from derive.exercises.claims import (
    ROUNDED,
    UNDECIDED,
    WITHIN,
    WRONG,
    Claim,
    judge,
    literal,
)
from derive.exercises.claims import round_places as claim_round_places
from derive.kernel import intervals
from derive.kernel.exact import decimal_str, exact_sign, is_zero_exact

Q = st.fractions(min_value=-50, max_value=50, max_denominator=60)
POS = st.fractions(min_value=Fraction(1, 60), max_value=50, max_denominator=60)


def R(f: Fraction) -> sp.Rational:
    return sp.Rational(f.numerator, f.denominator)


def _add(a, b):
    return sp.Add(a, b, evaluate=False)


def _mul(a, b):
    return sp.Mul(a, b, evaluate=False)


def _pow(a, b):
    return sp.Pow(a, b, evaluate=False)


def half_away(x: Fraction) -> int:
    n, d = abs(x.numerator), x.denominator
    q, r = divmod(n, d)
    return (-1 if x < 0 else 1) * (q + (2 * r >= d))


# An expression (unevaluated, so SymPy does not simplify it away) and its exact value.
leaves = Q.map(lambda q: (R(q), q))


def _extend(children):
    def sqrt_square(p):
        e, v = p
        return _pow(_mul(e, e), sp.S.Half), abs(v)

    def exp_log(p):
        e, v = p
        if v <= 0:
            return e, v
        return sp.exp(sp.log(e, evaluate=False), evaluate=False), v

    def conjugate(pq):
        (a, va), (b, vb) = pq
        if vb <= 0:
            return _add(a, b), va + vb
        root = _pow(b, sp.S.Half)
        return _mul(_add(a, root), _add(a, _mul(-1, root))), va * va - vb

    return st.one_of(
        st.tuples(children, children).map(lambda p: (_add(p[0][0], p[1][0]), p[0][1] + p[1][1])),
        st.tuples(children, children).map(lambda p: (_mul(p[0][0], p[1][0]), p[0][1] * p[1][1])),
        children.map(sqrt_square),
        children.map(exp_log),
        st.tuples(children, children).map(conjugate),
        st.tuples(children, children).map(
            lambda p: (sp.Max(p[0][0], p[1][0], evaluate=False), max(p[0][1], p[1][1]))),
        st.tuples(children, children).map(
            lambda p: (sp.Min(p[0][0], p[1][0], evaluate=False), min(p[0][1], p[1][1]))),
        children.map(lambda p: (sp.Abs(p[0], evaluate=False), abs(p[1]))),
    )


known = st.recursive(leaves, _extend, max_leaves=8)


@given(known)
def test_every_enclosure_contains_the_exact_value(pair):
    e, v = pair
    for bits in intervals.PRECISIONS[:3]:
        box = intervals.enclose(e, bits)
        if box is not None:
            lo, hi = box
            assert lo <= R(v) <= hi, (e, v, bits)


@given(known)
def test_a_value_on_the_boundary_is_never_decided_wrong(pair):
    """compare(e, v) for e = v: 0 only when e is that Rational itself, never ±1."""
    e, v = pair
    assert intervals.compare(e, v) in ((0,) if e.is_Rational else (None,))
    eps = Fraction(1, 10**40)
    assert intervals.compare(e, v - eps) in (1, None)
    assert intervals.compare(e, v + eps) in (-1, None)


@given(known, st.integers(0, 6))
def test_rounding_agrees_with_exact_rational_rounding(pair, places):
    e, v = pair
    got = intervals.round_places(e, places)
    expected = Fraction(half_away(v * 10**places), 10**places)
    assert got is None or got == R(expected)
    if got is None:  # undecided only on a tie
        assert (v * 10**places * 2).denominator == 1


def isqrt_rounded(n: Fraction, places: int) -> Fraction:
    """√n rounded half away from zero, by integer square roots: floor(√X + 1/2) =
    (isqrt(floor(4X)) + 1) // 2 for X = n·10^(2·places)."""
    x = n * 10 ** (2 * places)
    return Fraction((math.isqrt(math.floor(4 * x)) + 1) // 2, 10**places)


@given(POS, st.integers(0, 30))
def test_square_roots_round_like_integer_square_roots(n, places):
    e = sp.sqrt(R(n))
    got = intervals.round_places(e, places)
    if e.is_Rational:
        assert got == R(Fraction(half_away(n ** 0 * Fraction(int(e.p), int(e.q)) * 10**places),
                                 10**places))
        return
    assert got == R(isqrt_rounded(n, places))


@pytest.mark.parametrize("places", range(0, 31))
def test_sqrt2_is_decided_at_every_place(places):
    assert intervals.round_places(sp.sqrt(2), places) == R(isqrt_rounded(Fraction(2), places))
    assert intervals.round_places(-sp.sqrt(2), places) == -R(isqrt_rounded(Fraction(2), places))


def _decimal_round(d: decimal.Decimal, places: int) -> Fraction:
    with decimal.localcontext() as ctx:
        ctx.prec = 120
        q = d.quantize(decimal.Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP)
    return Fraction(q)


@given(POS, st.integers(0, 20), st.booleans())
def test_exp_and_log_round_like_the_decimal_module(q, places, use_log):
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        x = decimal.Decimal(q.numerator) / decimal.Decimal(q.denominator)
        ref = x.ln() if use_log else x.exp()
    e = sp.log(R(q)) if use_log else sp.exp(R(q))
    if e.is_Rational:  # log(1) = 0
        return
    got = intervals.round_places(e, places)
    assert got == R(_decimal_round(ref, places))


@given(POS, st.integers(1, 20))
def test_significant_digits_of_a_surd(q, sig):
    e = sp.sqrt(R(q)) * 1000
    if e.is_Rational:
        return
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        ref = (decimal.Decimal(q.numerator) / decimal.Decimal(q.denominator)).sqrt() * 1000
        exponent = ref.adjusted()
    assert intervals.round_sig(e, sig) == R(_decimal_round(ref, sig - 1 - exponent))


def test_a_rational_tie_rounds_half_away_exactly():
    assert claim_round_places(sp.Rational(1, 8), 2) == sp.Rational(13, 100)
    assert claim_round_places(sp.Rational(-1, 8), 2) == sp.Rational(-13, 100)
    assert intervals.round_places(sp.Rational(-1, 8), 2) == sp.Rational(-13, 100)


TIE = sp.Add(sp.sqrt(2), sp.Mul(-1, sp.sqrt(2), evaluate=False), sp.Rational(1, 8),
             evaluate=False)
"""√2 − √2 + 1/8, unevaluated: exactly the tie 0.125, in a form only enclosures see."""


def test_a_value_exactly_on_a_tie_is_undecided():
    assert intervals.round_places(TIE, 2) is None
    assert intervals.round_places(TIE, 3) == sp.Rational(1, 8)
    assert judge(Claim(sp.Rational(13, 100), "0.13 (places 2)", test="places",
                       tolerance=sp.Integer(2)), TIE) == UNDECIDED
    assert judge(literal("0.13"), TIE) == UNDECIDED


def test_claims_on_surds_are_decided_by_enclosures():
    root = sp.sqrt(2)
    assert judge(literal("1.414"), root) == ROUNDED
    assert judge(literal("1.4142135623730950488"), root) == ROUNDED
    assert judge(literal("1.415"), root) == WRONG
    assert judge(literal("3/2"), root) == WRONG
    c = lambda v, test, tol: Claim(sp.Rational(v), f"{v}", test=test,  # noqa: E731
                                   tolerance=sp.Rational(tol))
    assert judge(c("1.41", "rel", "0.01"), root) == WITHIN
    assert judge(c("1.40", "rel", "0.001"), root) == WRONG
    assert judge(c("1.41", "abs", "0.005"), root) == WITHIN
    assert judge(c("1.41", "abs", "0.004"), root) == WRONG
    assert judge(c("1.41", "places", "2"), root) == WITHIN
    assert judge(c("1.42", "places", "2"), root) == WRONG
    assert judge(c("1.41", "sig", "3"), root) == WITHIN
    assert judge(c("1.42", "sig", "3"), root) == WRONG
    e = sp.exp(1) / 3  # 0.906093942819...
    assert judge(literal("0.906094"), e) == ROUNDED
    assert judge(c("0.9", "abs", "0.00609394281"), e) == WRONG
    assert judge(c("0.9", "abs", "0.00609394282"), e) == WITHIN


def test_abs_boundary_on_an_unevaluated_rational_is_undecided():
    claim = Claim(sp.Rational(1, 4), "0.25 (abs 0.125)", test="abs", tolerance=sp.Rational(1, 8))
    assert judge(claim, TIE) == UNDECIDED


def test_signs_and_zero_tests():
    assert exact_sign(sp.sqrt(2) - sp.Rational(141421356237, 10**11)) == 1
    assert exact_sign(sp.log(2) - sp.Rational(693147180559945, 10**15)) == 1
    assert exact_sign(sp.sqrt(8) - 2 * sp.sqrt(2)) == 0
    assert is_zero_exact(TIE - sp.Rational(1, 8)) is True
    assert intervals.sign(sp.Symbol("x")) is None
    assert intervals.round_places(sp.sqrt(-2 + sp.sqrt(2)), 2) is None  # not real


def test_printed_decimals_of_a_surd_are_certified():
    assert decimal_str(sp.sqrt(2)) == "1.4142135623731"  # 1.41421356237309|5… → …310
    assert decimal_str(-sp.exp(1)) == "-2.71828182845905"
    assert decimal_str(TIE) == "0.125"


# ------------------------------------------------------------------------- Adam, certified

def adam_reference(steps: int, amsgrad: bool, records, w, b, lr, betas=("0.9", "0.999"),
                   eps="1e-8"):
    """torch's Adam (`_single_tensor_adam`) in the decimal module at 80 digits: w after each
    step (an independent reference for the exact values)."""
    D = decimal.Decimal
    with decimal.localcontext() as ctx:
        ctx.prec = 80
        b1, b2, ep, lr_ = D(betas[0]), D(betas[1]), D(eps), D(lr)
        w, b = D(w), D(b)
        xs = [D(x) for x, _ in records]
        ys = [D(y) for _, y in records]
        n = len(xs)
        state = {"w": [D(0), D(0), D(0)], "b": [D(0), D(0), D(0)]}
        out = []
        for t in range(1, steps + 1):
            errs = [w * x + b - y for x, y in zip(xs, ys)]
            grads = {"w": sum(e * x for e, x in zip(errs, xs)) / n, "b": sum(errs) / n}
            new = {}
            for name, p in (("w", w), ("b", b)):
                m, v, vmax = state[name]
                g = grads[name]
                m = b1 * m + (1 - b1) * g
                v = b2 * v + (1 - b2) * g * g
                vmax = max(vmax, v)
                state[name] = [m, v, vmax]
                m_hat = m / (1 - b1**t)
                v_hat = (vmax if amsgrad else v) / (1 - b2**t)
                new[name] = p - lr_ * m_hat / (v_hat.sqrt() + ep)
            w, b = new["w"], new["b"]
            out.append(w)
        return out


RECORDS = [["1", "2"], ["2", "3"], ["0.5", "-1"]]


def _exercise(steps, amsgrad, claims):
    from derive.exercises.schema import exercise

    table = {"id": "adam", "recipe": "optimizer_steps",
             "given": {"w": 1, "b": "0.5", "lr": "0.1", "steps": steps, "records": RECORDS,
                       "optimizer": {"name": "adam", "amsgrad": amsgrad}},
             "claims": claims}
    return exercise(table, "adam.toml", 0)


@pytest.mark.parametrize("amsgrad", tier([False, True], always=[False]))
def test_100_adam_steps_check_against_a_decimal_reference(amsgrad):
    from derive.exercises import check_exercise

    ref = adam_reference(100, amsgrad, RECORDS, "1", "0.5", "0.1")
    claimed = [f"{v:.8f}" for v in ref]
    report = check_exercise(_exercise(100, amsgrad, {"w_steps": claimed}))
    assert [c.status for c in report.claims] == [ROUNDED]
    off = list(claimed)
    off[-1] = f"{ref[-1] + decimal.Decimal('1e-8'):.8f}"
    report = check_exercise(_exercise(100, amsgrad, {"w_steps": off}))
    assert [c.status for c in report.claims] == [WRONG]


def test_ten_adam_steps_agree_with_torch_float64():
    if os.environ.get("DERIVE_SKIP_TORCH") == "1":
        pytest.importorskip("torch")
    torch = pytest.importorskip("torch")
    from derive.exercises.check import answer_key

    for amsgrad in (False, True):
        w = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        b = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
        x = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
        y = torch.tensor([2.0, 3.0, -1.0], dtype=torch.float64)
        opt = torch.optim.Adam([w, b], lr=0.1, amsgrad=amsgrad)
        got = []
        for _ in range(10):
            opt.zero_grad()
            (((w * x + b - y) ** 2) / 2).mean().backward()
            opt.step()
            got.append(w.item())
        values = answer_key(_exercise(10, amsgrad, {}))["w_steps"]
        for exact, g in zip(values, got):
            lo, hi = intervals.enclose(exact, 128)
            assert hi - lo < sp.Rational(1, 10**30)
            assert abs(float(lo) - g) <= 1e-12 * abs(float(lo))


# ------------------------------------------------------------------- DAG size and text

@given(known)
def test_tree_size_counts_the_nodes_of_the_tree(pair):
    from derive.kernel.dag import tree_size

    e, _ = pair
    assert tree_size(e) == sum(1 for _ in sp.preorder_traversal(e))


@given(known)
def test_shared_text_is_the_same_value(pair):
    """The `x1 = …; …` text read back (by SymPy, in the test only) encloses the same value."""
    from derive.kernel.dag import shared_str

    e, v = pair
    *defs, body = shared_str(e, limit=0).split("; ")
    names: dict = {"Max": sp.Max, "Min": sp.Min, "Abs": sp.Abs, "exp": sp.exp, "log": sp.log}
    for d in defs:
        name, text = d.split(" = ", 1)
        names[name] = sp.sympify(text, locals=names)
    back = sp.sympify(body, locals=names)
    lo, hi = intervals.enclose(back, 256) or (None, None)
    if lo is not None:
        assert lo <= R(v) <= hi


def test_shared_text_names_a_repeated_subexpression_once():
    from derive.kernel.dag import shared_str

    s = _add(sp.sqrt(2), 1)
    e = _mul(_add(s, s), _pow(s, 2))
    assert shared_str(e, limit=0) == "x1 = 2**(1/2) + 1; (x1 + x1)*x1**2"


def _taylor_bracket(q: Fraction, sine: bool) -> tuple[Fraction, Fraction]:
    """sin q or cos q between two exact rationals, by the Taylor series in Fractions: past the
    terms that grow, the series alternates with decreasing terms, so the next term bounds the
    remainder."""
    total, k = Fraction(0), 1 if sine else 0
    term = q if sine else Fraction(1)
    sign = 1
    while True:
        nxt = term * q * q / ((k + 1) * (k + 2))
        total += sign * term
        if abs(nxt) < Fraction(1, 10**50) and k > abs(q):
            return total - abs(nxt), total + abs(nxt)
        term, k, sign = nxt, k + 2, -sign


@given(st.fractions(min_value=-8, max_value=8, max_denominator=50), st.booleans())
def test_sin_and_cos_enclose_the_taylor_value(q, sine):
    e = (sp.sin if sine else sp.cos)(R(q))
    if e.is_Rational:  # sin 0, cos 0
        return
    lo, hi = intervals.enclose(e, 256)
    ref_lo, ref_hi = _taylor_bracket(q, sine)
    assert Fraction(lo) <= ref_hi and Fraction(hi) >= ref_lo
    assert Fraction(hi) - Fraction(lo) < Fraction(1, 10**30)
    assert -1 <= Fraction(lo) and Fraction(hi) <= 1


def test_sin_and_cos_of_huge_arguments_are_within_one():
    lo, hi = intervals.enclose(sp.cos(sp.Integer(10) ** 40), 64)
    assert (lo, hi) == (-1, 1)


def _just_above_one(digits: int) -> sp.Expr:
    """1 + 10^−digits·√2 − 1, unevaluated: positive, and certified so only by an enclosure of
    more than digits·log₂10 bits."""
    tiny = sp.Mul(sp.Rational(1, 10**digits), sp.sqrt(2), evaluate=False)
    return sp.Add(sp.Add(1, tiny, evaluate=False), -1, evaluate=False)


def test_the_precision_doubles_past_4096_bits():
    """√2·10^−5000 under 1 needs about 16,600 bits: reached by doubling (64, 128, … bits)."""
    assert intervals.sign(_just_above_one(5000)) == 1
    assert intervals.round_places(sp.Add(_just_above_one(5000), 1, evaluate=False), 5) == 1


def test_past_the_highest_precision_undecided():
    """10^−20000 needs about 66,500 bits, past MAX_BITS: undecided, never a guess."""
    assert intervals.MAX_BITS < 66_500
    assert intervals.sign(_just_above_one(20000)) is None


def test_a_full_cache_keeps_the_enclosures_at_the_precision_in_use(monkeypatch):
    """Issue 33 (variants of 1,000 Adam steps): a full cache forgets the enclosures at other
    precisions first, not the chain at the precision a recurrence has climbed to (emptying it
    all made every later value enclose its whole chain again)."""
    from derive.kernel import intervals as iv

    iv.forget()
    monkeypatch.setattr(iv, "_CACHE_SIZE", 4)
    kept = sp.sqrt(2)
    iv._interval(kept, 1024)
    for n in (3, 5, 7):
        iv._interval(sp.sqrt(n), 64)
    iv._interval(sp.sqrt(11), 1024)  # the cache is full: what goes is what is at 64 bits
    assert iv._cached(kept, 1024) is not None
    assert all(bits == 1024 for _, bits in iv._CACHE)
    iv.forget()
