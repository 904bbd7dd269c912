"""Concrete shapes for witness searches: windows of microbatches on the lesson's model.

A shape is a tuple of microbatch sizes; the variables are w and every record's x and y
(and η where the claim has it), all real.
"""

from itertools import count

import sympy as sp

from derive.statements import Instantiation

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
    names.update({w: "w", eta: "η"})
    return Instantiation(
        shape=f"n = {tuple(sizes)}" if len(sizes) > 1 else f"n = ({sizes[0]},)",
        lhs=sp.expand(lhs(*args)),
        rhs=sp.expand(rhs(*args)),
        variables=tuple(head + variables),
        names=names,
    )
