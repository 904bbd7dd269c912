"""The reading's A1–A3 for symbolic K and n_k, and the weights they use.

Records are indexed so that microbatch B_k holds records c_{k−1}+1 … c_k, with
c_k = n_1 + … + n_k and N = c_K (any partition can be so ordered: a finite sum does not
depend on the order of its terms). ℓ(i, θ) is an arbitrary per-record loss.
"""

from __future__ import annotations

import operator
from functools import reduce

import sympy as sp

from derive.kernel.exact import to_expr

theta = sp.Symbol("theta", real=True)
eta = sp.Symbol("eta", positive=True)
i, j, k = sp.symbols("i j k", integer=True)
K = sp.Symbol("K", integer=True, positive=True)
ell = sp.Function("ell", real=True)
n = sp.Function("n", integer=True, positive=True)


def weight(size, total):
    """A microbatch's weight in the batch objective: n_k/N (A2)."""
    return to_expr(size) / to_expr(total)


def boundary(k_, size=n):
    """c_k = Σ_{j=1}^{k} n_j: the last record of microbatch k (`size(j)` gives n_j)."""
    return sp.Sum(size(j), (j, 1, k_))


N = boundary(K)
"""N = Σ_k n_k, the target denominator."""


def record_loss(i_):
    """ℓ_i(θ), an arbitrary per-record loss."""
    return ell(i_, theta)


def grad(expr):
    """∇ with respect to θ, left unevaluated for display; `doit` takes it by `sympy.diff`."""
    return sp.Derivative(expr, theta)


def block_sum(f, k_, size=n):
    """Σ_{i∈B_k} f(i)."""
    return sp.Sum(f(i), (i, boundary(k_ - 1, size) + 1, boundary(k_, size)))


def batch_objective(f=record_loss, count=N):
    """A1: L(θ) = (1/N) Σ_{i=1}^{N} ℓ_i(θ)."""
    return sp.Sum(f(i), (i, 1, count)) / count


def microbatch_objective(k_, f=record_loss, size=n):
    """A1: L_k(θ) = (1/n_k) Σ_{i∈B_k} ℓ_i(θ)."""
    return block_sum(f, k_, size) / size(k_)


def weighted(w, term):
    """w·term kept as written (SymPy would cancel n_k/N · (1/n_k)·Σ at once); the kernel's
    normal form evaluates it."""
    return sp.Mul(w, term, evaluate=False)


def over_microbatches(term):
    """Σ_{k=1}^{K} term(k)."""
    return sp.Sum(term(k), (k, 1, K))


def sgd_update(theta_old, eta_, g):
    """A3: θ_new = θ_old − η·g (plain SGD: no momentum, no weight decay)."""
    return theta_old - eta_ * g


def total(values):
    """Σ of a finite list, added one term at a time: for exact numbers this is Rational
    arithmetic, much faster than building one n-ary sp.Add (same value)."""
    return reduce(operator.add, values, sp.S.Zero)


def mean(values):
    """The mean of a finite list of exact values."""
    values = list(values)
    return total(values) / len(values)


def weights(sizes):
    """n_k/N for every microbatch of a finite window."""
    total = sum(sizes)
    return [weight(s, total) for s in sizes]


def weighted_sum(ws, values):
    """Σ_k w_k·v_k."""
    return total(a * v for a, v in zip(ws, values))
