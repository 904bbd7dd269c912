"""Accumulation over a concrete window of microbatches: the right scheme (A2, A3) and the
wrong ones the course warns about, on the lesson's model.

Every function takes exact values (or SymPy symbols) and returns exact values.
"""

from __future__ import annotations

import sympy as sp

from derive.model import linear
from derive.model.objective import mean, sgd_update, total, weighted_sum, weights


def record_gradients(microbatch, w, convention=linear.HALF):
    """∇ℓ_i at w for every record (x, y) of one microbatch."""
    return [linear.record_gradient(w, x, y, convention=convention) for x, y in microbatch]


def gradient_sums(microbatches, w, convention=linear.HALF):
    """Σ_{i∈B_k} ∇ℓ_i for every microbatch."""
    return [total(record_gradients(mb, w, convention)) for mb in microbatches]


def mean_gradients(microbatches, w, convention=linear.HALF):
    """∇L_k = (1/n_k) Σ_{i∈B_k} ∇ℓ_i for every microbatch."""
    return [mean(record_gradients(mb, w, convention)) for mb in microbatches]


def batch_gradient(microbatches, w, convention=linear.HALF):
    """∇L: the mean of every record's gradient over the whole window (the target)."""
    return mean([g for mb in microbatches for g in record_gradients(mb, w, convention)])


def accumulated_gradient(sizes, means):
    """A2: Σ_k (n_k/N)·∇L_k."""
    return weighted_sum(weights(sizes), means)


def mean_of_means(means):
    """The 1/K mistake: (1/K) Σ_k ∇L_k."""
    return mean(means)


def sum_of_means(means):
    """The undivided sum: Σ_k ∇L_k."""
    return total(means)


def divisor_gradient(means, divisor):
    """A tail window that keeps dividing by the planned count d: (1/d) Σ_k ∇L_k."""
    return total(means) / divisor


def steps_in_sequence(gradient_fns, w, eta, shares=None):
    """w after each per-microbatch SGD step: w_k = w_{k−1} − η·s_k·G_k(w_{k−1}), where G_k
    is microbatch k's mean gradient as a function of w and s_k its share (default 1)."""
    out, current = [], w
    for n, G in enumerate(gradient_fns):
        share = 1 if shares is None else shares[n]
        current = sgd_update(current, eta * share, G(current))
        out.append(current)
    return out


def micro_steps(microbatches, w, eta, scale_by_weight=False, convention=linear.HALF):
    """w after each step on one microbatch's mean gradient (the reading's per-microbatch
    stepping); with `scale_by_weight` each step is η·(n_k/N)·∇L_k."""
    fns = [lambda v, mb=mb: mean(record_gradients(mb, v, convention)) for mb in microbatches]
    shares = weights([len(mb) for mb in microbatches]) if scale_by_weight else None
    return [sp.expand(v) for v in steps_in_sequence(fns, w, eta, shares)]
