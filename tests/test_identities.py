"""A1–A3 on concrete data: they hold exactly for random rational records and random partitions
(contiguous and not), and the model agrees with an independent Fraction computation."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st
from support import examples

from derive.model import clipping, linear, schemes
from derive.model.objective import mean, sgd_update, weighted_sum, weights

# --------------------------------------------------------------------------- strategies

DENOMINATORS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12)
small_rationals = st.builds(Fraction, st.integers(-60, 60), st.sampled_from(DENOMINATORS))
"""Rationals in [−60, 60] with small denominators (cheap to draw, so N can be 50)."""
nonzero_rationals = small_rationals.filter(lambda f: f != 0)


def S(q: Fraction) -> sp.Rational:
    return sp.Rational(q.numerator, q.denominator)


def F(v: sp.Expr) -> Fraction:
    assert v.is_Rational, v
    return Fraction(int(v.p), int(v.q))


@st.composite
def batches(draw, max_n=50):
    """Records (x, y) as Fractions, N in 1..max_n."""
    n = draw(st.integers(1, max_n))
    return draw(st.lists(st.tuples(small_rationals, small_rationals), min_size=n, max_size=n))


@st.composite
def contiguous_partitions(draw, n):
    """Sizes of K ≥ 1 nonempty consecutive blocks covering n records (random cut points)."""
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=n - 1))) if n > 1 else []
    bounds = [0, *cuts, n]
    return [list(range(lo, hi)) for lo, hi in zip(bounds, bounds[1:])]


@st.composite
def any_partitions(draw, n):
    """Any partition of range(n) into K ≥ 1 nonempty microbatches, records in any order:
    a random permutation cut at random points (so microbatches need not be contiguous)."""
    order = draw(st.permutations(list(range(n))))
    blocks = draw(contiguous_partitions(n))
    return [[order[i] for i in block] for block in blocks]


@st.composite
def windows(draw, max_n=50):
    """(records, partition as lists of record indices, w, lr)."""
    records = draw(batches(max_n))
    contiguous = draw(st.booleans())
    parts = draw(contiguous_partitions(len(records)) if contiguous
                 else any_partitions(len(records)))
    return records, parts, draw(small_rationals), draw(small_rationals.filter(lambda q: q > 0))


@st.composite
def equal_windows(draw):
    """K microbatches of m records each, records assigned in any order."""
    K = draw(st.integers(1, 8))
    m = draw(st.integers(1, 6))
    n = K * m
    records = draw(st.lists(st.tuples(small_rationals, small_rationals), min_size=n, max_size=n))
    order = draw(st.permutations(list(range(n))))
    parts = [order[k * m:(k + 1) * m] for k in range(K)]
    return records, parts, draw(small_rationals), draw(small_rationals.filter(lambda q: q > 0))


def microbatches(records, parts):
    return [[(S(records[i][0]), S(records[i][1])) for i in part] for part in parts]


# --------------------------------------------------------------------------- reference (Fractions)

def ref_loss(w: Fraction, x: Fraction, y: Fraction) -> Fraction:
    return (w * x - y) ** 2 / 2


def ref_grad(w: Fraction, x: Fraction, y: Fraction) -> Fraction:
    """d/dw (w·x − y)²/2 = x·(w·x − y)."""
    return x * (w * x - y)


def ref_mean(values) -> Fraction:
    values = list(values)
    return sum(values, Fraction(0)) / len(values)


# --------------------------------------------------------------------------- A1, A2, A3

@examples(60)
@given(windows())
def test_a2_gradient_identities(window):
    records, parts, w, _ = window
    mbs = microbatches(records, parts)
    W = S(w)
    N = len(records)
    sizes = [len(p) for p in parts]
    assert sum(sizes) == N and sorted(i for p in parts for i in p) == list(range(N))

    target = schemes.batch_gradient(mbs, W)
    means = schemes.mean_gradients(mbs, W)
    sums = schemes.gradient_sums(mbs, W)

    expected = ref_mean(ref_grad(w, x, y) for x, y in records)
    assert F(target) == expected
    # A2 line 1: Σ_k (n_k/N)·∇L_k
    assert F(schemes.accumulated_gradient(sizes, means)) == expected
    # A2 line 2: (1/N)·Σ_k Σ_{i∈B_k} ∇ℓ_i
    assert F(sp.Add(*sums) / N) == expected
    # each microbatch's pieces, independently
    for part, mean_k, sum_k in zip(parts, means, sums):
        assert F(sum_k) == sum((ref_grad(w, *records[i]) for i in part), Fraction(0))
        assert F(mean_k) == F(sum_k) / len(part)
    assert [F(v) for v in weights(sizes)] == [Fraction(s, N) for s in sizes]
    assert sum((F(v) for v in weights(sizes)), Fraction(0)) == 1


@examples(60)
@given(windows())
def test_a1_on_the_losses(window):
    records, parts, w, _ = window
    mbs = microbatches(records, parts)
    W = S(w)
    N = len(records)
    losses = [[linear.record_loss(W, x, y) for x, y in mb] for mb in mbs]
    L = mean([v for mb in losses for v in mb])
    L_k = [mean(mb) for mb in losses]
    weighted = weighted_sum(weights([len(mb) for mb in mbs]), L_k)
    expected = ref_mean(ref_loss(w, x, y) for x, y in records)
    assert F(L) == expected
    assert F(weighted) == expected
    # and each L_k is its own records' mean
    for part, value in zip(parts, L_k):
        assert F(value) == ref_mean(ref_loss(w, *records[i]) for i in part)
    assert len(L_k) == len(parts) and sum(len(p) for p in parts) == N


@examples(60)
@given(windows())
def test_a3_update_equality(window):
    records, parts, w, lr = window
    mbs = microbatches(records, parts)
    W, LR = S(w), S(lr)
    sizes = [len(p) for p in parts]
    g = schemes.accumulated_gradient(sizes, schemes.mean_gradients(mbs, W))
    accumulated = sgd_update(W, LR, g)
    full = sgd_update(W, LR, schemes.batch_gradient(mbs, W))
    expected = w - lr * ref_mean(ref_grad(w, x, y) for x, y in records)
    assert F(accumulated) == expected
    assert F(full) == expected
    assert F(linear.sgd_update(W, LR, g)) == expected


@examples(40)
@given(windows(), st.randoms(use_true_random=False))
def test_the_order_of_microbatches_and_records_does_not_matter(window, rnd):
    records, parts, w, _ = window
    W = S(w)
    target = schemes.batch_gradient(microbatches(records, parts), W)
    shuffled = [list(p) for p in parts]
    rnd.shuffle(shuffled)
    for p in shuffled:
        rnd.shuffle(p)
    mbs = microbatches(records, shuffled)
    sizes = [len(p) for p in shuffled]
    assert schemes.batch_gradient(mbs, W) == target
    assert schemes.accumulated_gradient(sizes, schemes.mean_gradients(mbs, W)) == target


# --------------------------------------------------------------------------- the wrong schemes

@examples(50)
@given(equal_windows())
def test_one_over_k_agrees_with_a2_when_sizes_are_equal(window):
    records, parts, w, lr = window
    mbs = microbatches(records, parts)
    W = S(w)
    K = len(parts)
    means = schemes.mean_gradients(mbs, W)
    target = schemes.batch_gradient(mbs, W)
    assert schemes.mean_of_means(means) == target
    assert schemes.sum_of_means(means) == K * target
    assert schemes.divisor_gradient(means, K) == target
    assert schemes.accumulated_gradient([len(p) for p in parts], means) == target
    # tail-divisor-scale: dividing K equal microbatches by a planned d scales by K/d
    for d in (K + 1, 2 * K + 3):
        assert schemes.divisor_gradient(means, d) == sp.Rational(K, d) * target
    expected = ref_mean(ref_grad(w, x, y) for x, y in records)
    assert F(target) == expected


@examples(50)
@given(windows())
def test_the_error_of_one_over_k_is_exact(window):
    records, parts, w, _ = window
    mbs = microbatches(records, parts)
    W = S(w)
    K, N = len(parts), len(records)
    means = schemes.mean_gradients(mbs, W)
    target = schemes.batch_gradient(mbs, W)
    wrong = schemes.mean_of_means(means)
    # (1/K)Σ∇L_k − ∇L = Σ_k (1/K − n_k/N)·∇L_k, exactly
    gap = sum(((Fraction(1, K) - Fraction(len(p), N)) * F(g) for p, g in zip(parts, means)),
              Fraction(0))
    assert F(wrong) - F(target) == gap
    assert F(schemes.sum_of_means(means)) == K * F(wrong)
    assert F(schemes.divisor_gradient(means, K)) == F(wrong)


def test_one_over_k_differs_on_the_readings_data():
    # the witness the kernel reports for mean-of-means, re-evaluated on the model directly
    mbs = [[(sp.Integer(0), sp.Integer(0))], [(sp.Integer(0), sp.Integer(0)),
                                              (sp.Integer(1), sp.Integer(1))]]
    means = schemes.mean_gradients(mbs, 0)
    assert schemes.mean_of_means(means) == sp.Rational(-1, 4)
    assert schemes.batch_gradient(mbs, 0) == sp.Rational(-1, 3)


# --------------------------------------------------------------------------- other model checks

@examples(40)
@given(windows(max_n=12))
def test_micro_steps_against_a_fraction_loop(window):
    records, parts, w, lr = window
    mbs = microbatches(records, parts)
    steps = schemes.micro_steps(mbs, S(w), S(lr))
    scaled = schemes.micro_steps(mbs, S(w), S(lr), scale_by_weight=True)
    N = len(records)
    current, current_scaled = w, w
    for part, got, got_scaled in zip(parts, steps, scaled, strict=True):
        current = current - lr * ref_mean(ref_grad(current, *records[i]) for i in part)
        share = Fraction(len(part), N)
        current_scaled = current_scaled - lr * share * ref_mean(
            ref_grad(current_scaled, *records[i]) for i in part)
        assert F(got) == current
        assert F(got_scaled) == current_scaled
    if len(parts) == 1:
        assert steps[-1] == sgd_update(S(w), S(lr), schemes.batch_gradient(mbs, S(w)))


@examples(40)
@given(windows(max_n=20))
def test_microbatch_gradient_is_affine_in_w(window):
    records, parts, w, _ = window
    for part in parts:
        xs = [records[i][0] for i in part]
        ys = [records[i][1] for i in part]
        H = ref_mean(x * x for x in xs)
        r = ref_mean(x * y for x, y in zip(xs, ys))
        mb = [(S(records[i][0]), S(records[i][1])) for i in part]
        assert F(schemes.mean_gradients([mb], S(w))[0]) == H * w - r


@examples(40)
@given(x=small_rationals, y=small_rationals, w=small_rationals, b=small_rationals)
def test_record_gradients_and_losses(x, y, w, b):
    X, Y, W, B = S(x), S(y), S(w), S(b)
    assert F(linear.prediction(W, X, B)) == w * x + b
    assert F(linear.record_loss(W, X, Y, B)) == (w * x + b - y) ** 2 / 2
    assert F(linear.record_loss(W, X, Y, B, linear.SQUARED)) == (w * x + b - y) ** 2
    # the compiled evaluation of the same formula
    assert F(linear.record_loss_at(W, X, Y, B)) == (w * x + b - y) ** 2 / 2
    assert F(linear.record_loss_at(w, x, y, b)) == (w * x + b - y) ** 2 / 2       # Fractions
    assert F(linear.record_loss_at(W, X, Y, B, linear.SQUARED)) == (w * x + b - y) ** 2
    assert F(linear.record_gradient(w, x, y, b)) == x * (w * x + b - y)          # Fractions
    assert F(linear.record_gradient(W, X, Y, B)) == x * (w * x + b - y)
    assert F(linear.record_gradient(W, X, Y, B, param="b")) == w * x + b - y
    assert F(linear.record_gradient(W, X, Y, B, convention=linear.SQUARED)) == 2 * x * (w * x + b - y)
    assert F(linear.record_gradient(W, X, Y, B, param="b", convention=linear.SQUARED)) == (
        2 * (w * x + b - y))


@examples(30)
@given(windows(max_n=20))
def test_squared_convention_doubles_every_gradient(window):
    records, parts, w, _ = window
    mbs = microbatches(records, parts)
    W = S(w)
    half = schemes.batch_gradient(mbs, W)
    assert schemes.batch_gradient(mbs, W, convention=linear.SQUARED) == 2 * half
    assert [2 * g for g in schemes.mean_gradients(mbs, W)] == schemes.mean_gradients(
        mbs, W, convention=linear.SQUARED)


def test_an_unknown_loss_convention_is_refused():
    with pytest.raises(ValueError):
        linear.squared_error(1, 2, "absolute")


@examples(40)
@given(sizes=st.lists(st.integers(1, 30), min_size=1, max_size=8),
       tau=st.fractions(min_value=Fraction(1, 10), max_value=50, max_denominator=10))
def test_token_weights_equal_record_weights_when_proportional(sizes, tau):
    tokens = [S(tau) * s for s in sizes]
    assert weights(tokens) == weights(sizes)
    assert [F(v) for v in weights(sizes)] == [Fraction(s, sum(sizes)) for s in sizes]


# --------------------------------------------------------------------------- clipping

def ref_clip(g: Fraction, c: Fraction) -> Fraction:
    return max(-c, min(g, c))


@examples(50)
@given(g=small_rationals, c=small_rationals.filter(lambda q: q > 0))
def test_clipping_a_number(g, c):
    G, C = S(g), S(c)
    assert F(clipping.clip_value(G, C)) == ref_clip(g, c)
    # a number is a one-coordinate vector: its norm is |g|
    assert F(clipping.clip_norm(G, C)) == (g if abs(g) <= c else g * c / abs(g))


@examples(40)
@given(t=nonzero_rationals, c=small_rationals.filter(lambda q: q > 0),
       triple=st.sampled_from([(3, 4, 5), (5, 12, 13), (8, 15, 17), (0, 1, 1)]))
def test_clipping_a_vector_by_norm(t, c, triple):
    gx, gy, norm = (Fraction(v) * abs(t) for v in triple)
    got = clipping.clip_norm([S(gx), S(gy)], S(c))
    scale = Fraction(1) if norm <= c else c / norm
    assert [F(v) for v in got] == [gx * scale, gy * scale]
    assert [F(v) for v in clipping.clip_value([S(gx), S(gy)], S(c))] == [
        ref_clip(gx, c), ref_clip(gy, c)]


@examples(50)
@given(gs=st.lists(small_rationals, min_size=1, max_size=6),
       raw=st.lists(st.integers(0, 10), min_size=6, max_size=6),
       c=small_rationals.filter(lambda q: q > 0))
def test_clipping_commutes_with_averaging_within_the_threshold(gs, raw, c):
    raw = raw[: len(gs)]
    assume(sum(raw) > 0)
    ws = [sp.Rational(r, sum(raw)) for r in raw]
    inside = [max(-c, min(g, c)) for g in gs]          # every g_k within [−c, c]
    G, C = [S(g) for g in inside], S(c)
    for clip in (lambda g: clipping.clip_value(g, C), lambda g: clipping.clip_norm(g, C)):
        assert clipping.clip_then_combine(ws, G, clip) == clipping.combine_then_clip(ws, G, clip)
    # and in general both orders are the Fraction computation of what they say
    G = [S(g) for g in gs]
    value = lambda g: clipping.clip_value(g, C)  # noqa: E731
    assert F(clipping.clip_then_combine(ws, G, value)) == sum(
        (F(w) * ref_clip(g, c) for w, g in zip(ws, gs)), Fraction(0))
    assert F(clipping.combine_then_clip(ws, G, value)) == ref_clip(
        sum((F(w) * g for w, g in zip(ws, gs)), Fraction(0)), c)


@pytest.mark.parametrize("seed", range(4))
def test_a1_a2_a3_at_fifty_records(seed):
    """The largest window the issue asks for, N = 50, scattered into unequal microbatches."""
    rnd = random.Random(seed)
    records = [(Fraction(rnd.randint(-99, 99), rnd.choice(DENOMINATORS)),
                Fraction(rnd.randint(-99, 99), rnd.choice(DENOMINATORS))) for _ in range(50)]
    order = list(range(50))
    rnd.shuffle(order)
    cuts = sorted(rnd.sample(range(1, 50), rnd.randint(1, 12)))
    bounds = [0, *cuts, 50]
    parts = [order[lo:hi] for lo, hi in zip(bounds, bounds[1:])]
    w, lr = Fraction(rnd.randint(-9, 9), 7), Fraction(1, rnd.randint(1, 100))
    mbs = microbatches(records, parts)
    sizes = [len(p) for p in parts]
    means = schemes.mean_gradients(mbs, S(w))
    g = ref_mean(ref_grad(w, x, y) for x, y in records)
    assert F(schemes.batch_gradient(mbs, S(w))) == g
    assert F(schemes.accumulated_gradient(sizes, means)) == g
    assert F(sp.Add(*schemes.gradient_sums(mbs, S(w))) / 50) == g
    assert F(sgd_update(S(w), S(lr), schemes.accumulated_gradient(sizes, means))) == w - lr * g
    L_k = [mean([linear.record_loss(S(w), x, y) for x, y in mb]) for mb in mbs]
    assert F(weighted_sum(weights(sizes), L_k)) == ref_mean(ref_loss(w, x, y) for x, y in records)
