"""Concrete shapes for witness searches: windows of microbatches on the lesson's model.

A shape is a tuple of microbatch sizes; the variables are w and every record's x and y
(and η where the claim has it), all real. `lesson_window` interprets a statement's own symbols
on such a shape (K, n_k, ℓ_i(θ) as the lesson's squared error, θ as w); `linear_window` builds
the two sides of a schema from the model's code.
"""

from itertools import count

import sympy as sp

from derive.model import objective
from derive.statements import Instantiation, Interpretation, table
from derive.statements.notation import text_of

w = sp.Symbol("w", real=True)
eta = sp.Symbol("eta", positive=True)


def compositions(total):
    """Ordered tuples of positive sizes adding up to `total`, fewest parts first."""
    def parts(t, k):
        if k == 1:
            yield (t,)
            return
        for first in range(1, t - k + 2):
            for rest in parts(t - first, k - 1):
                yield (first, *rest)
    for k in range(1, total + 1):
        yield from parts(total, k)


def partitions():
    """Every window shape, smallest N first."""
    for total in count(1):
        yield from compositions(total)


def records_for(sizes):
    """Symbolic records x_i, y_i grouped into microbatches of the given sizes."""
    mbs, names, variables, i = [], {}, [], 0
    for size in sizes:
        mb = []
        for _ in range(size):
            i += 1
            xi, yi = sp.Symbol(f"x_{i}", real=True), sp.Symbol(f"y_{i}", real=True)
            names[xi], names[yi] = f"x_{i}", f"y_{i}"
            variables += [xi, yi]
            mb.append((xi, yi))
        mbs.append(mb)
    return mbs, variables, names


def linear_window(sizes, lhs, rhs, with_eta=False):
    """lhs(mbs, w[, η]) against rhs(mbs, w[, η]) on symbolic records of the given sizes."""
    mbs, variables, names = records_for(sizes)
    args = (mbs, w, eta) if with_eta else (mbs, w)
    head = [w, eta] if with_eta else [w]
    names.update({w: text_of(w.name), eta: text_of(eta.name)})
    return Instantiation(
        shape=f"n = {tuple(sizes)}" if len(sizes) > 1 else f"n = ({sizes[0]},)",
        lhs=sp.expand(lhs(*args)),
        rhs=sp.expand(rhs(*args)),
        variables=tuple(head + variables),
        names=names,
    )


def lesson_window(sizes):
    """K = len(sizes), n_k = sizes[k], ℓ_i(θ) = (θ·x_i − y_i)²/2 with θ = w: the statements of
    proofs/ about symbolic windows, on the lesson's model with symbolic records."""
    mbs, variables, names = records_for(sizes)
    records = [r for mb in mbs for r in mb]
    i_, k_, t_ = sp.Dummy("i", integer=True), sp.Dummy("k", integer=True), sp.Dummy("t")
    X, Y = sp.Function("x"), sp.Function("y")
    ell = sp.Lambda((i_, t_), (t_ * X(i_) - Y(i_)) ** 2 / 2)
    names.update({w: "w"})
    return Interpretation(
        shape=f"n = {tuple(sizes)}" if len(sizes) > 1 else f"n = ({sizes[0]},)",
        symbols={objective.K: sp.Integer(len(sizes)), objective.theta: w},
        functions={objective.n: table((k_,), {(k,): s for k, s in enumerate(sizes, 1)}, 1),
                   objective.ell: ell,
                   X: table((i_,), {(n,): x for n, (x, _) in enumerate(records, 1)}, 0),
                   Y: table((i_,), {(n,): y for n, (_, y) in enumerate(records, 1)}, 0)},
        variables=(w, *variables),
        names=names,
    )
