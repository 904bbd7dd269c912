"""Witness shapes for the two orders of clipping: K equally weighted microbatch gradients of
dimension d, a threshold c > 0."""

import sympy as sp

from derive.model.clipping import clip_then_combine, combine_then_clip
from derive.model.objective import weights
from derive.statements import Instantiation

from .course_data import CLIP_GRADIENTS, CLIP_THRESHOLD

c = sp.Symbol("c", positive=True)


def reading(clip):
    """The reading's example: gradients 10 and −8, equal weights, threshold 1, in both orders."""
    ws = weights([1] * len(CLIP_GRADIENTS))
    at_threshold = lambda g: clip(g, CLIP_THRESHOLD)  # noqa: E731
    return {"clip then average": clip_then_combine(ws, CLIP_GRADIENTS, at_threshold),
            "average then clip": combine_then_clip(ws, CLIP_GRADIENTS, at_threshold)}


def shapes():
    """(K, d): K microbatches of d-dimensional gradients, smallest first."""
    return [(1, 1), (2, 1), (3, 1), (2, 2), (3, 2)]


def instantiate(shape, clip):
    K, d = shape
    gs = [[sp.Symbol(f"g_{k}{'' if d == 1 else f'_{j}'}", real=True) for j in range(1, d + 1)]
          for k in range(1, K + 1)]
    grads = [g[0] for g in gs] if d == 1 else gs
    ws = weights([1] * K)
    lhs = clip_then_combine(ws, grads, lambda g: clip(g, c))
    rhs = combine_then_clip(ws, grads, lambda g: clip(g, c))
    if d > 1:  # compare the vectors through one coordinate at a time
        lhs, rhs = sp.Matrix(lhs), sp.Matrix(rhs)
        diff_coord = next((j for j in range(d) if lhs[j] != rhs[j]), 0)
        lhs, rhs = lhs[diff_coord], rhs[diff_coord]
    variables = tuple(v for g in gs for v in g) + (c,)
    return Instantiation(shape=f"K = {K}, d = {d}, weights 1/K", lhs=lhs, rhs=rhs,
                         variables=variables)
