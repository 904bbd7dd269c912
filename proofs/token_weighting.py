"""token-weighting — when the target is the mean over valid tokens, weighting microbatches by
their record counts is wrong.

    Σ_k (n_k/N)·∇L_k ≠ Σ_k (t_k/T)·∇L_k,   L_k the mean over microbatch k's t_k valid tokens
"""

import sympy as sp

from derive.model import schemes
from derive.model.objective import weights
from derive.statements import REFUTED, Instance, Instantiation, Schema, Statement

from .course_data import TOKENS


def shapes():
    return [1, 2, 3]


def instantiate(K):
    ns = [sp.Symbol(f"n_{k}", integer=True, positive=True) for k in range(1, K + 1)]
    ts = [sp.Symbol(f"t_{k}", integer=True, positive=True) for k in range(1, K + 1)]
    gs = [sp.Symbol(f"G_{k}", real=True) for k in range(1, K + 1)]
    return Instantiation(
        shape=f"K = {K}",
        lhs=schemes.accumulated_gradient(ns, gs),
        rhs=schemes.accumulated_gradient(ts, gs),
        variables=tuple(ns + ts + gs),
    )


STATEMENT = Statement(
    id="token-weighting",
    title="For a mean over valid tokens, weight microbatches by tokens, not records",
    title_zh="目标是有效 token 均值时,应按 token 而不是记录数加权",
    expect=REFUTED,
    claim="Σ_k (n_k/N)·∇L_k = Σ_k (t_k/T)·∇L_k,  n_k records, t_k valid tokens, L_k a token mean",
    assumptions=("microbatch k holds n_k ≥ 1 records and t_k ≥ 1 valid tokens",
                 "L_k is the mean loss over microbatch k's valid tokens",
                 "the target is the mean over all T = Σ t_k valid tokens"),
    schema=Schema(shapes, instantiate),
    holds_when=("token-weighting-proportional",),
    instances=(
        Instance(
            label="microbatches A and B with 100 and 20 valid tokens",
            source="reading, 带掩码的序列任务 (100/120 and 20/120)",
            compute=lambda: {"token weights": weights(TOKENS)},
            expected={"token weights": ["5/6", "1/6"]},
        ),
    ),
)
