"""The symbols every part of the course shares, each declared once here: the lesson's weight w,
bias b and learning rate η; the records x_i, y_i and predictions ŷ_i; the batch gradient g and
the updated weight w′; the indices i (records), k (microbatches), t (steps) and their counts
N, K, T. The recipes build on them; statements print them the same way."""

from __future__ import annotations

from derive.graph.notation import family, index, symbol

w = symbol("w", "w")
b = symbol("b", "b")
eta = symbol("eta", "eta", nonnegative=True)

i, k, t = index("i"), index("k"), index("t")
N = symbol("N", "N", integer=True, positive=True)
K = symbol("K", "K", integer=True, positive=True)
T = symbol("T", "T", integer=True, positive=True)

x, y = family("x", "x"), family("y", "y")
yhat = family("yhat", "y", accent="hat")
g = symbol("g", "g")
w_new = symbol("w_new", "w", prime=True)
