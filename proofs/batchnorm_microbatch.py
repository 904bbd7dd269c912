"""batchnorm-microbatch — with batch-norm statistics taken per microbatch, accumulating the
microbatch gradients does not give the full-batch gradient: A2's premise (a sum of losses of
independent records) fails, because each output depends on the other records of its batch.

    Σ_k (n_k/N)·∂L_k/∂γ (statistics of B_k)  ≠  ∂L/∂γ (statistics of the whole batch)
"""

import sympy as sp

from derive.model.batchnorm import gamma_gradient
from derive.model.objective import weighted_sum, weights
from derive.statements import REFUTED, Instantiation, Schema, Statement

from .families import partitions

g, b = sp.symbols("gamma beta", real=True)
eps = sp.Symbol("epsilon", positive=True)


def shapes():
    """Windows of K ≥ 2 microbatches of at least 2 records each: BatchNorm1d in training
    mode refuses a batch of one ("Expected more than 1 value per channel")."""
    return (s for s in partitions() if len(s) > 1 and min(s) >= 2)


def instantiate(sizes):
    xs, ts, names, mbs = [], [], {g: "γ", b: "β", eps: "ε"}, []
    for n in sizes:
        mb = []
        for _ in range(n):
            i = len(xs) + 1
            x, t = sp.Symbol(f"x_{i}", real=True), sp.Symbol(f"t_{i}", real=True)
            xs.append(x), ts.append(t), mb.append((x, t))
        mbs.append(mb)
    micro = [gamma_gradient([x for x, _ in mb], [t for _, t in mb], g, b, eps) for mb in mbs]
    return Instantiation(
        shape=f"n = {tuple(sizes)}",
        lhs=weighted_sum(weights(list(sizes)), micro),
        rhs=gamma_gradient(xs, ts, g, b, eps),
        variables=tuple(v for pair in zip(xs, ts) for v in pair) + (g, b, eps),
        names=names,
    )


STATEMENT = Statement(
    id="batchnorm-microbatch",
    title="Batch-norm statistics per microbatch break the accumulation identity",
    title_zh="按微批计算 BatchNorm 统计量会破坏累积等式",
    expect=REFUTED,
    claim="Σ_k (n_k/N)·∂L_k/∂γ (each microbatch normalised by its own statistics) = ∂L/∂γ "
          "(the whole batch normalised by its statistics)",
    assumptions=("scalar features, BatchNorm in training mode: biased variance, ε > 0",
                 "every microbatch holds at least 2 records (torch refuses a batch of one)",
                 "y_i = γ·x̂_i + β, per-record loss (y_i − t_i)²/2, K ≥ 2 microbatches"),
    schema=Schema(shapes, instantiate, max_shapes=4),
    notes=("the gradient with respect to β agrees (Σ x̂ = 0 in every batch); γ shows the gap",),
)
