"""The course's mathematics as SymPy expressions, each formula stated once.

- `linear`: the lesson's model ŷ = w·x (+ b), its losses, gradients by `sympy.diff`, SGD.
- `objective`: the reading's A1–A3 objects for symbolic K and n_k (Σ over blocks).
- `schemes`: accumulation over a concrete list of microbatches, right and wrong.
- `clipping`: value and norm clipping.
"""
