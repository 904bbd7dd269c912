"""The kernel on entry-wise index statements of symbolic size (issue 36): backward passes of a
linear layer and of two layers with ReLU, softmax and cross-entropy, LayerNorm, attention rows.

Every claim here is written by hand as SymPy (sizes positive integer symbols, tensors
IndexedBase entries, reductions Σ over 1..size, derivatives with respect to an entry W[p, q]),
independent of any derive model. Proved targets are checked again on random small sizes and
entries by SymPy's own evaluation (`doit`, then an exact simplification), refutations by
their witness's sizes, re-evaluated facts and, where the sides are rational, Fraction
arithmetic written out by hand.
"""

from __future__ import annotations

import time
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from support import examples

from derive.kernel import Verdict, decide, equal, every, hypothesis, nonzero
from derive.kernel.functions import relu

PROVED, REFUTED, UNKNOWN = Verdict.PROVED, Verdict.REFUTED, Verdict.UNKNOWN

SIZE = dict(integer=True, positive=True)
B, n, m, C, d, h, T = (sp.Symbol(s, **SIZE) for s in ("B", "n", "m", "C", "d", "h", "T"))
p, q, j = (sp.Symbol(s, integer=True) for s in ("p", "q", "j"))
i, k, r, c, t, s = (sp.Symbol(x, integer=True) for x in ("i", "k", "r", "c", "t", "s"))
a, mm = sp.symbols("a mm", real=True)
eps = sp.Symbol("eps", positive=True)
x, W, b, dv, D, X, z, z1, y, V, c2, d2, g, gam, bet, Q, K = (
    sp.IndexedBase(name, real=True) for name in
    ("x", "W", "b", "d", "D", "X", "z", "z1", "y", "V", "c2", "d2", "g", "gamma", "beta",
     "Q", "K"))
KD, S, dx = sp.KroneckerDelta, sp.Sum, sp.Derivative


def within(index, size):
    """1 ≤ index ≤ size, as the two facts a statement gives for a free index."""
    return [hypothesis(index - 1, f"{index} ≥ 1"), hypothesis(size - index, f"{index} ≤ {size}")]


z_lin = S(W[i, k] * x[k], (k, 1, n)) + b[i]                     # z_i of a linear layer
z_batch = S(W[i, k] * X[r, k], (k, 1, n)) + b[i]                # z_ri of a batch
z_two = S(V[i, j] * relu(z1[j]), (j, 1, h)) + c2[i]             # the second layer's z2_i
lse = sp.log(S(sp.exp(z[k]), (k, 1, C)))


def softmax(index, logits=z, size=C):
    return sp.exp(logits[index]) / S(sp.exp(logits[k]), (k, 1, size))


ce = -S(y[c] * (z[c] - lse), (c, 1, C))
smoothed = (1 - eps) * y[c] + eps / C
ce_smooth = -S(smoothed * (z[c] - lse), (c, 1, C))
mu = S(x[k], (k, 1, n)) / n
var = S((x[k] - mu) ** 2, (k, 1, n)) / n
var_unbiased = S((x[k] - mu) ** 2, (k, 1, n)) / (n - 1)
layer_norm = S(g[k] * (gam[k] * (x[k] - mu) / sp.sqrt(var + eps) + bet[k]), (k, 1, n))
layer_norm_plain = S(g[k] * (x[k] - mu) / sp.sqrt(var + eps), (k, 1, n))
score = lambda row, col: S(Q[row, k] * K[col, k], (k, 1, d)) / sp.sqrt(d)  # noqa: E731

z1_nonzero = every(nonzero(z1[i], "every entry of z1 is nonzero"), (i, 1, h))
labels = list(equal(S(y[c], (c, 1, C)) - 1, "the labels sum to 1"))
eps_le_1 = hypothesis(1 - eps, "eps ≤ 1")

# name: (lhs, rhs, facts, ranges of the free indices, constraints on entries for the
# property test: "nonzero" bases, "sum1" bases whose entries sum to 1)
TARGETS = {
    "P1 δ picks x_q": (S(KD(k, q) * x[k], (k, 1, n)), x[q], within(q, n), {q: n}, {}),
    "P1 two deltas": (S(S(KD(i, p) * KD(k, q) * dv[i] * x[k], (k, 1, n)), (i, 1, m)),
                      dv[p] * x[q], within(p, m) + within(q, n), {p: m, q: n}, {}),
    "P2 dL/dW = δxᵀ": (S(dv[i] * dx(z_lin, W[p, q]), (i, 1, m)), dv[p] * x[q],
                       within(p, m) + within(q, n), {p: m, q: n}, {}),
    "P2 dL/db = δ": (S(dv[i] * dx(z_lin, b[p]), (i, 1, m)), dv[p], within(p, m), {p: m}, {}),
    "P2 dL/dx = Wᵀδ": (S(dv[i] * dx(z_lin, x[q]), (i, 1, m)), S(W[i, q] * dv[i], (i, 1, m)),
                       within(q, n), {q: n}, {}),
    "P3 batch mean": (S(S(D[r, i] * dx(z_batch, W[p, q]), (i, 1, m)), (r, 1, B)) / B,
                      S(D[r, p] * X[r, q], (r, 1, B)) / B, within(p, m) + within(q, n),
                      {p: m, q: n}, {}),
    "P4 two layers": (S(d2[i] * dx(z_two, z1[p]), (i, 1, m)),
                      sp.Heaviside(z1[p], 0) * S(V[i, p] * d2[i], (i, 1, m)),
                      within(p, h) + [z1_nonzero], {p: h}, {"nonzero": [z1]}),
    "P5 softmax sums to 1": (S(softmax(c), (c, 1, C)), 1, [], {}, {}),
    "P5 softmax shift": (sp.exp(z[j] + a) / S(sp.exp(z[k] + a), (k, 1, C)), softmax(j),
                         within(j, C), {j: C}, {}),
    "P5 logsumexp shift": (lse, mm + sp.log(S(sp.exp(z[k] - mm), (k, 1, C))), [], {}, {}),
    "P6 dlogsumexp": (dx(lse, z[j]), softmax(j), within(j, C), {j: C}, {}),
    "P7 cross-entropy": (dx(ce, z[j]), softmax(j) - y[j], within(j, C) + labels, {j: C},
                         {"sum1": [y]}),
    "P7 label smoothing": (dx(ce_smooth, z[j]), softmax(j) - smoothed.xreplace({c: j}),
                           within(j, C) + labels + [eps_le_1], {j: C}, {"sum1": [y]}),
    "P8 LayerNorm mean 0": (S((x[k] - mu) / sp.sqrt(var + eps), (k, 1, n)), 0, [], {}, {}),
    "P8 LayerNorm gradient": (S(dx(layer_norm, x[j]), (j, 1, n)), 0, [], {}, {}),
    "P8 LayerNorm gradient, no affine": (S(dx(layer_norm_plain, x[j]), (j, 1, n)), 0, [], {},
                                         {}),
    "every y ≥ 0 chooses |y_c| = y_c in the Σ": (
        S(sp.Abs(y[c]), (c, 1, C)), S(y[c], (c, 1, C)),
        [every(hypothesis(y[i], "every y ≥ 0"), (i, 1, C))], {}, {"nonnegative": [y]}),
    "P9 attention rows": (S(sp.exp(score(i, t)) / S(sp.exp(score(i, s)), (s, 1, T)),
                            (t, 1, T)), 1, [], {}, {}),
}


@pytest.mark.parametrize("name", list(TARGETS))
def test_proved(name):
    lhs, rhs, facts, _, _ = TARGETS[name]
    start = time.process_time()
    decision = decide(lhs, rhs, facts)
    seconds = time.process_time() - start
    assert decision.verdict is PROVED, (name, decision.strategy, decision.detail)
    assert seconds < 3, (name, seconds)


def test_rules_are_named():
    """A proof lists the index rules it used, and the facts it relied on."""
    lhs, rhs, facts, _, _ = TARGETS["P2 dL/dW = δxᵀ"]
    got = decide(lhs, rhs, facts)
    assert "Σ of a Kronecker δ (the index's one term)" in got.rules
    assert "sympy.diff" in got.rules
    lhs, rhs, facts, _, _ = TARGETS["P7 cross-entropy"]
    got = decide(lhs, rhs, facts)
    assert "equalities with Σ from the facts" in got.rules
    assert "the labels sum to 1" in got.facts
    lhs, rhs, facts, _, _ = TARGETS["P4 two layers"]
    assert "every entry of z1 is nonzero" in decide(lhs, rhs, facts).facts
    assert z1_nonzero.describe() == "z1[i] ≠ 0 for every 1 ≤ i ≤ h"
    lhs, rhs, facts, _, _ = TARGETS["P5 softmax shift"]
    assert "exp(u + a) = exp(u)·exp(a)" in decide(lhs, rhs, facts).rules


def test_without_the_facts_not_proved():
    """P4 without 'every entry of z1 ≠ 0' (relu has a kink in the Σ): never proved; P7
    without Σ y = 1: refuted (R3 below); a δ whose index is not known in range: not proved."""
    lhs, rhs, facts, _, _ = TARGETS["P4 two layers"]
    assert decide(lhs, rhs, within(p, h)).verdict is UNKNOWN
    assert decide(lhs, rhs, [z1_nonzero]).verdict is not PROVED  # p not known in 1..h
    lhs, rhs, _, _, _ = TARGETS["P1 δ picks x_q"]
    assert decide(lhs, rhs, [hypothesis(q - 1, "q ≥ 1")]).verdict is not PROVED


# ------------------------------------------------------------------ refutations

def _witness_values(w):
    symbols = dict(w.symbols)
    functions = dict(w.functions)
    return symbols, functions


def _evaluate(e, symbols, functions):
    """`e` at the witness by SymPy alone: sizes substituted, Σ written out, entries looked up."""
    e = sp.S(e).xreplace(symbols).doit()
    entries = {a: functions[a.base](*a.indices) for a in e.atoms(sp.Indexed)
               if a.base in functions}
    return sp.simplify(e.xreplace(entries).doit())


def _fact_holds(f, symbols, functions):
    """One fact at the witness, each fact over a range at every index of it."""
    subs = [{}]
    for index, lo, hi in f.over:
        lo, hi = (int(sp.S(v).xreplace(symbols)) for v in (lo, hi))
        subs = [{**sub, index: sp.Integer(v)} for sub in subs for v in range(lo, hi + 1)]
    for sub in subs:
        value = _evaluate(f.expr.xreplace(sub), symbols, functions)
        if not f.relation.holds(value):
            return False
    return True


REFUTED_TARGETS = {
    # name: (lhs, rhs, facts, the witness's sizes)
    "R1 transposed": (S(dv[i] * dx(S(W[i, k] * x[k], (k, 1, n)) + b[i], W[p, q]), (i, 1, n)),
                      x[p] * dv[q], within(p, n) + within(q, n), {n: 2}),
    "R2 batch sum for mean": (S(D[r, p] * X[r, q], (r, 1, B)) / B, S(D[r, p] * X[r, q], (r, 1, B)),
                              within(p, m) + within(q, n), {B: 2, m: 1, n: 1}),
    "R3 CE without Σy = 1": (dx(ce, z[j]), softmax(j) - y[j], within(j, C), {C: 1}),
    "R4 p for p − y": (dx(ce, z[j]), softmax(j), within(j, C) + labels, {C: 1}),
    "R5 mask on the wrong layer": (S(d2[i] * dx(z_two, z1[p]), (i, 1, m)),
                                   S(sp.Heaviside(c2[i], 0) * V[i, p] * d2[i], (i, 1, m)),
                                   within(p, h) + [z1_nonzero], {h: 1, m: 1}),
    "R6 1/√d against 1/d": (sp.exp(z[j] / sp.sqrt(d)) / S(sp.exp(z[k] / sp.sqrt(d)), (k, 1, C)),
                           sp.exp(z[j] / d) / S(sp.exp(z[k] / d), (k, 1, C)), within(j, C),
                           {d: 2, C: 2}),
    "R7 unbiased variance": (var_unbiased, var, [], {n: 2}),
    # the witness keeps Σ y = 1 at C = 2 (y = (−1, 2)): at C = 1, y = (1) makes both sides 1
    "Σ y² = 1 given Σ y = 1": (S(y[c] ** 2, (c, 1, C)), 1, labels, {C: 2}),
}


@pytest.mark.parametrize("name", list(REFUTED_TARGETS))
def test_refuted(name):
    lhs, rhs, facts, sizes = REFUTED_TARGETS[name]
    start = time.process_time()
    decision = decide(lhs, rhs, facts)
    seconds = time.process_time() - start
    assert decision.verdict is REFUTED, (name, decision.strategy, decision.detail)
    assert seconds < 3, (name, seconds)
    symbols, functions = _witness_values(decision.witness)
    for size, value in sizes.items():
        assert symbols[size] == value, (name, size, symbols)
    for f in facts:
        assert _fact_holds(f, symbols, functions), (name, f.reason)
    left, right = (_evaluate(e, symbols, functions) for e in (lhs, rhs))
    assert sp.simplify(left - right) != 0


def test_r2_by_hand():
    """R2's witness recomputed with Fraction: the mean (1/B)·Σ_r D_rp·X_rq against the sum."""
    lhs, rhs, facts, _ = REFUTED_TARGETS["R2 batch sum for mean"]
    w = decide(lhs, rhs, facts).witness
    symbols, functions = _witness_values(w)
    size, pp, qq = (int(symbols[v]) for v in (B, p, q))
    entry = lambda base, *idx: Fraction(str(functions[base](*idx)))  # noqa: E731
    total = sum(entry(D, row, pp) * entry(X, row, qq) for row in range(1, size + 1))
    assert total / size != total
    assert size == 2  # at B = 1 the mean is the sum: no witness there


def test_r7_by_hand():
    """R7's witness with Fraction: Σ(x − μ)²/(n − 1) against Σ(x − μ)²/n; n = 1 divides by 0."""
    w = decide(var_unbiased, var, []).witness
    symbols, functions = _witness_values(w)
    size = int(symbols[n])
    xs = [Fraction(str(functions[x](v))) for v in range(1, size + 1)]
    mean = sum(xs) / size
    squares = sum((v - mean) ** 2 for v in xs)
    assert size == 2 and squares / (size - 1) != squares / size


# ------------------------------------------------------------------ soundness

ADVERSARIAL = {
    "every y ≥ 0 one entry short of the Σ": (
        S(sp.Abs(y[c]), (c, 1, C)), S(y[c], (c, 1, C)),
        [every(hypothesis(y[i], "y ≥ 0 but the last"), (i, 1, C - 1))]),
    "δ sum off by one at the top": (S(KD(k, q) * x[k], (k, 1, n - 1)), x[q], within(q, n)),
    "δ sum off by one at the bottom": (S(KD(k, q) * x[k], (k, 2, n)), x[q], within(q, n)),
    "δ index out of range": (S(KD(k, q) * x[k], (k, 1, n)), x[q],
                             [hypothesis(q - n - 1, "q > n")]),
    "δ index range missing": (S(KD(k, q) * x[k], (k, 1, n)), x[q], []),
    "δ index only bounded below": (S(KD(k, q) * x[k], (k, 1, n)), x[q], [hypothesis(q - 1, "")]),
    "δ shifted": (S(KD(k + 1, q) * x[k], (k, 1, n)), x[q], within(q, n)),
    "δ picks the wrong entry": (S(KD(k, q) * x[k], (k, 1, n)), x[q + 1], within(q, n)),
    "two deltas swapped": (S(S(KD(i, p) * KD(k, q) * dv[i] * x[k], (k, 1, n)), (i, 1, m)),
                           dv[q] * x[p], within(p, m) + within(q, n)),
    "δ(p, q) taken as 1": (KD(p, q) * x[p], x[p], within(p, n) + within(q, n)),
    "δ(p, q) taken as 0": (KD(p, q) * x[p], 0, within(p, n) + within(q, n)),
    "dL/dW with the sum over the wrong size": (S(dv[i] * dx(z_lin, W[p, q]), (i, 1, n)),
                                               dv[p] * x[q], within(p, m) + within(q, n)),
    "dL/dW with p out of range": (S(dv[i] * dx(z_lin, W[p, q]), (i, 1, m)), dv[p] * x[q],
                                  within(q, n)),
    "dL/db missing δ": (S(dv[i] * dx(z_lin, b[p]), (i, 1, m)), S(dv[i], (i, 1, m)),
                        within(p, m)),
    "dL/dx not transposed": (S(dv[i] * dx(z_lin, x[q]), (i, 1, m)),
                             S(W[q, i] * dv[i], (i, 1, m)), within(q, n)),
    "batch mean without 1/B": (S(S(D[r, i] * dx(z_batch, W[p, q]), (i, 1, m)), (r, 1, B)),
                               S(D[r, p] * X[r, q], (r, 1, B)) / B,
                               within(p, m) + within(q, n)),
    "two layers without the mask": (S(d2[i] * dx(z_two, z1[p]), (i, 1, m)),
                                    S(V[i, p] * d2[i], (i, 1, m)), within(p, h) + [z1_nonzero]),
    "two layers, mask from the range of m": (
        S(d2[i] * dx(z_two, z1[p]), (i, 1, m)),
        sp.Heaviside(z1[p], 0) * S(V[i, p] * d2[i], (i, 1, m)),
        [hypothesis(p - 1, "p ≥ 1"), hypothesis(m - p, "p ≤ m")]
        + [every(nonzero(z1[i], "z1 ≠ 0 on 1..m"), (i, 1, m))]),
    "softmax sums to 1 with one term short": (S(softmax(c), (c, 1, C - 1)), 1, []),
    "softmax shift on one side only": (sp.exp(z[j] + a) / S(sp.exp(z[k]), (k, 1, C)),
                                       softmax(j), within(j, C)),
    "logsumexp shift with the wrong sign": (lse, -mm + sp.log(S(sp.exp(z[k] - mm), (k, 1, C))),
                                            []),
    "dlogsumexp without the normaliser": (dx(lse, z[j]), sp.exp(z[j]), within(j, C)),
    "CE gradient with Σy = 1 missing": (dx(ce, z[j]), softmax(j) - y[j], within(j, C)),
    "CE gradient with Σy ≥ 1 only": (dx(ce, z[j]), softmax(j) - y[j],
                                     within(j, C) + labels[:1]),
    "label smoothing without ε/C": (dx(ce_smooth, z[j]), softmax(j) - (1 - eps) * y[j],
                                    within(j, C) + labels + [eps_le_1]),
    "LayerNorm mean with unbiased variance is not 1": (
        S(((x[k] - mu) / sp.sqrt(var + eps)) ** 2, (k, 1, n)) / n, 1, []),
    "δ sum reversed": (S(KD(k, q) * x[k], (k, n, 1)), x[q], within(q, n)),
    "δ sum taken as 0 with q ≥ n only": (S(KD(k, q) * x[k], (k, 1, n)), 0,
                                         [hypothesis(q - n, "q ≥ n")]),
    "Σy = 1 given over one label short": (S(y[c], (c, 1, C)), 1,
                                          list(equal(S(y[c], (c, 1, C - 1)) - 1, "short"))),
    "Heaviside(z, 0) = Heaviside(z) where z may be 0": (sp.Heaviside(x[p], 0),
                                                       sp.Heaviside(x[p]), []),
    "d(W_12·W_21)/dW_pq = W_qp": (dx(W[1, 2] * W[2, 1], W[p, q]), W[q, p], []),
    "d(x_p²)/dx_q = 2x_p": (dx(x[p] ** 2, x[q]), 2 * x[p], []),
    "every W ≥ 0 with a column short": (
        S(S(sp.Abs(W[i, k]), (k, 1, n)), (i, 1, m)), S(S(W[i, k], (k, 1, n)), (i, 1, m)),
        [every(hypothesis(W[i, k], "W ≥ 0 but column 1"), (i, 1, m), (k, 2, n))]),
    "every W ≥ 0 read transposed": (
        S(S(sp.Abs(W[i, k]), (k, 1, n)), (i, 1, m)), S(S(W[i, k], (k, 1, n)), (i, 1, m)),
        [every(hypothesis(W[k, i], "Wᵀ ≥ 0"), (i, 1, m), (k, 1, n))]),
    "attention row over one column too many": (
        S(sp.exp(score(i, t)) / S(sp.exp(score(i, s)), (s, 1, T)), (t, 1, T + 1)), 1, []),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_adversarial_never_proved(name):
    lhs, rhs, facts = ADVERSARIAL[name]
    decision = decide(lhs, rhs, facts)
    assert decision.verdict is not PROVED, (name, decision.strategy)


def test_adversarial_all_refuted():
    """Every false statement of the table is refuted (35 of 35 when written), each with a
    witness the kernel confirmed on the claim itself."""
    unrefuted = [name for name in ADVERSARIAL if decide(*ADVERSARIAL[name]).verdict
                 is not REFUTED]
    assert len(ADVERSARIAL) >= 20
    assert unrefuted == []


# ------------------------------------------------------------------ on concrete sizes

def _concrete(name, data):
    """Both sides of a proved target at small sizes and entries (SymPy's own evaluation)."""
    lhs, rhs, _, ranges, constraints = TARGETS[name]
    claim = lhs - rhs
    sizes = sorted((v for v in claim.free_symbols if v.is_positive and v.is_integer
                    and v not in ranges), key=str)
    symbols = {v: sp.Integer(data.draw(st.integers(1, 3), label=str(v))) for v in sizes}
    for index, size in ranges.items():
        symbols[index] = sp.Integer(data.draw(st.integers(1, int(symbols[size])),
                                              label=str(index)))
    labels = {base.label for base in claim.atoms(sp.IndexedBase)}
    for v in sorted(claim.free_symbols - set(symbols) - labels, key=str):
        if isinstance(v, sp.Symbol) and not isinstance(v, sp.Dummy) and v.is_real:
            pool = [sp.Rational(1, 2), sp.Integer(1)] if v.is_positive else [
                sp.Integer(-1), sp.Integer(0), sp.Integer(2)]
            symbols[v] = data.draw(st.sampled_from(pool), label=str(v))
    if eps in symbols and eps_le_1 in TARGETS[name][2]:
        symbols[eps] = min(symbols[eps], sp.Integer(1))
    sides = [sp.S(e).xreplace(symbols).doit() for e in (lhs, rhs)]
    atoms = sorted(set().union(*(e.atoms(sp.Indexed) for e in sides)), key=sp.default_sort_key)
    nonzero_bases = constraints.get("nonzero", [])
    values = {}
    for atom in atoms:
        pool = [-2, -1, 1, 2] if atom.base in nonzero_bases else [-2, -1, 0, 1, 2]
        if atom.base in constraints.get("nonnegative", []):
            pool = [0, 1, 2]
        values[atom] = sp.Rational(data.draw(st.sampled_from(pool), label=str(atom)))
    for base in constraints.get("sum1", []):
        size = symbols[C]
        entries = [base[sp.Integer(v)] for v in range(1, int(size) + 1)]
        for e in entries[:-1]:
            values.setdefault(e, sp.Integer(0))
        values[entries[-1]] = 1 - sum(values[e] for e in entries[:-1])
    return [e.xreplace(values).doit() for e in sides]


@pytest.mark.parametrize("name", list(TARGETS))
@examples(8)
@given(data=st.data())
def test_proved_on_concrete_sizes(name, data):
    """Random small sizes (1 to 3), indices in range and entries in −2…2 substituted into every
    proved target: both sides agree exactly (SymPy's simplification of the difference)."""
    left, right = _concrete(name, data)
    assert _same(left, right), (name, left, right)


def _same(left, right) -> bool:
    """Two real constants equal, by SymPy's simplification of their difference, or of the
    difference of their exponentials (exp is one-to-one on the reals): log(e⁻² + 1) and
    −1 + log(e⁻¹ + e) are one number that simplify alone does not show."""
    if sp.simplify(left - right) == 0:
        return True
    return bool(left.has(sp.log) or right.has(sp.log)) and sp.simplify(
        sp.expand(sp.exp(left) - sp.exp(right))) == 0


def test_more_proved():
    """A δ sum that is 0 (q > n), a fact over two ranges, the derivative of an entry by
    another; and a kink past a fact's range that stays unknown."""
    assert decide(S(KD(k, q) * x[k], (k, 1, n)), 0, [hypothesis(q - n - 1, "q > n")]).proved
    assert decide(S(S(sp.Abs(W[i, k]), (k, 1, n)), (i, 1, m)),
                  S(S(W[i, k], (k, 1, n)), (i, 1, m)),
                  [every(hypothesis(W[i, k], "W ≥ 0"), (i, 1, m), (k, 1, n))]).proved
    assert decide(dx(x[p] ** 2, x[q]), 2 * x[p] * KD(p, q)).proved
    beyond = S(dx(S(V[i, j] * relu(z1[j]), (j, 1, h + 1)), z1[p]), (i, 1, m))
    assert decide(beyond, sp.Heaviside(z1[p], 0) * S(V[i, p], (i, 1, m)),
                  within(p, h) + [z1_nonzero]).verdict is UNKNOWN


def test_delta_outside_a_sum():
    """δ(p, q) outside a Σ: chosen by the facts (p > q written as p − q − 1 ≥ 0), else proved
    in the cases p > q, p < q, p = q; a wrong claim about it refuted."""
    cases = [
        (KD(p, q) * x[p], KD(p, q) * x[q], [], PROVED),
        (KD(p, q) * x[p], 0, [hypothesis(p - q - 1, "p > q")], PROVED),
        (KD(p, q) * x[p], x[q], [hypothesis(p - q, "p ≥ q"), hypothesis(q - p, "p ≤ q")], PROVED),
        (KD(p, q) * x[p], KD(p, q) * x[q + 1], [], REFUTED),
        (KD(p, q) * x[p], 0, [hypothesis(p - q, "p ≥ q")], REFUTED),
    ]
    for lhs, rhs, facts, verdict in cases:
        assert decide(lhs, rhs, facts).verdict is verdict, (lhs, rhs, facts)
    assert any(rule.startswith("cases on the sign of") for rule in
               decide(KD(p, q) * x[p], KD(p, q) * x[q]).rules)


def test_relu_at_the_kink_torch_convention():
    """δ₁ as torch's backward writes it, relu′(0) = 0 (Heaviside(u, 0)), needs no fact about
    z1; relu′(0) = 1 (Heaviside(u, 1)) is refuted at z1 = 0."""
    backward = S(d2[i] * S(V[i, j] * sp.Heaviside(z1[j], 0) * KD(j, p), (j, 1, h)), (i, 1, m))
    mask = S(V[i, p] * d2[i], (i, 1, m))
    assert decide(backward, sp.Heaviside(z1[p], 0) * mask, within(p, h)).proved
    got = decide(backward, sp.Heaviside(z1[p], 1) * mask, within(p, h))
    assert got.verdict is REFUTED
    symbols, functions = _witness_values(got.witness)
    assert functions[z1](symbols[p]) == 0


def test_accumulation_for_a_matrix_parameter():
    """A1 for an entry of a matrix gradient: the batch mean (1/N)·Σ_r D_rp·X_rq over N = Σ_k n_k
    records is the count-weighted mean of the microbatch means; the mean of the microbatch
    means (the 1/K mistake) is refuted with K = 2 microbatches of unequal size."""
    K = sp.Symbol("K", **SIZE)
    kk, tt = sp.symbols("kk tt", integer=True)
    count = sp.Function("n", integer=True, positive=True)
    upto = lambda e: S(count(tt), (tt, 1, e))  # noqa: E731
    entry = D[r, p] * X[r, q]
    micro = lambda e: S(entry, (r, upto(e - 1) + 1, upto(e)))  # noqa: E731
    mean = S(entry, (r, 1, upto(K))) / upto(K)
    facts = within(p, m) + within(q, n)
    weighted = S(count(kk) / upto(K) * micro(kk) / count(kk), (kk, 1, K))
    assert decide(mean, weighted, facts).proved
    got = decide(mean, S(micro(kk) / count(kk), (kk, 1, K)) / K, facts)
    assert got.verdict is REFUTED
    symbols, functions = _witness_values(got.witness)
    sizes = [functions[count](v) for v in (1, 2)]
    assert symbols[K] == 2 and sizes[0] != sizes[1]


def _float_entries(functions, base, shape):
    """A tensor of the witness's entries of `base` (1-based indices), as float64 values."""
    import itertools

    import torch

    out = torch.zeros(shape, dtype=torch.float64)
    for idx in itertools.product(*(range(1, s + 1) for s in shape)):
        out[tuple(v - 1 for v in idx)] = float(functions[base](*idx))
    return out


def test_witnesses_confirmed_by_torch():
    """The witnesses of R1 (transposed), R2 (sum for mean), R3/R4 (cross-entropy) and R7
    (unbiased variance) re-checked by torch float64 autograd: torch's value is the claim's
    true side, and it differs from the wrong side."""
    torch = pytest.importorskip("torch")
    # R1: z = W x + b, L = d·z; ∂L/∂W[p, q] is d_p x_q, not x_p d_q
    lhs, rhs, facts, _ = REFUTED_TARGETS["R1 transposed"]
    symbols, functions = _witness_values(decide(lhs, rhs, facts).witness)
    size, pp, qq = (int(symbols[v]) for v in (n, p, q))
    w = torch.zeros((size, size), dtype=torch.float64, requires_grad=True)
    xs, ds = (_float_entries(functions, base, (size,)) for base in (x, dv))
    (ds @ (w @ xs)).backward()
    assert w.grad[pp - 1, qq - 1].item() == float(ds[pp - 1] * xs[qq - 1])
    assert w.grad[pp - 1, qq - 1].item() != float(xs[pp - 1] * ds[qq - 1])
    # R2: the batch mean of per-record losses D_r·z_r has ∂/∂W_pq = (1/B)·Σ_r D_rp X_rq
    lhs, rhs, facts, _ = REFUTED_TARGETS["R2 batch sum for mean"]
    symbols, functions = _witness_values(decide(lhs, rhs, facts).witness)
    bb, mm_, nn, pp, qq = (int(symbols[v]) for v in (B, m, n, p, q))
    w = torch.zeros((mm_, nn), dtype=torch.float64, requires_grad=True)
    big_d, big_x = _float_entries(functions, D, (bb, mm_)), _float_entries(functions, X, (bb, nn))
    (big_d * (big_x @ w.T)).sum(dim=1).mean().backward()
    total = float((big_d[:, pp - 1] * big_x[:, qq - 1]).sum())
    assert w.grad[pp - 1, qq - 1].item() == total / bb != total
    # R3, R4: torch's soft-target cross-entropy gradient (softmax·Σy − y) is the left side
    for name in ("R3 CE without Σy = 1", "R4 p for p − y"):
        lhs, rhs, facts, _ = REFUTED_TARGETS[name]
        symbols, functions = _witness_values(decide(lhs, rhs, facts).witness)
        size, jj = int(symbols[C]), int(symbols[j])
        logits = _float_entries(functions, z, (size,)).requires_grad_(True)
        target = _float_entries(functions, y, (size,))
        torch.nn.functional.cross_entropy(logits[None], target[None]).backward()
        wrong = float(_evaluate(rhs, symbols, functions))
        assert abs(logits.grad[jj - 1].item() - wrong) > 1e-9
        assert abs(logits.grad[jj - 1].item() - float(_evaluate(lhs, symbols, functions))) < 1e-12
    # R7: torch's LayerNorm variance is the biased one
    symbols, functions = _witness_values(decide(var_unbiased, var, []).witness)
    xs = _float_entries(functions, x, (int(symbols[n]),))
    assert xs.var(unbiased=False).item() == float(_evaluate(var, symbols, functions))
    assert xs.var(unbiased=True).item() != float(_evaluate(var, symbols, functions))


def test_two_layers_with_the_mask_written_otherwise():
    """P4 with the mask 1[z1_p > 0] written as a Piecewise, or as Heaviside(z1_p, 1): the same
    where every z1 ≠ 0 (the branch comes out of the Σ with the δ's one term and is chosen
    there); its negation refuted."""
    lhs, _, facts, _, _ = TARGETS["P4 two layers"]
    back = S(V[i, p] * d2[i], (i, 1, m))
    indicator = sp.Piecewise((1, z1[p] > 0), (0, True))
    assert decide(lhs, indicator * back, facts).proved
    assert decide(lhs, sp.Heaviside(z1[p], 1) * back, facts).proved
    assert decide(lhs, -indicator * back, facts).verdict is REFUTED
