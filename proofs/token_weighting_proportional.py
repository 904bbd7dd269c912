"""token-weighting-proportional — record weights are token weights when every microbatch has
the same number of valid tokens per record.

    t_k = τ·n_k for every k  ⇒  t_k/T = n_k/N
"""

import sympy as sp

from derive.model.objective import K, N, boundary, k, n, weight
from derive.statements import PROVED, Statement, calc

tau = sp.Symbol("tau", positive=True)


def tokens(k_):
    return tau * n(k_)


T = boundary(K, tokens)

STATEMENT = Statement(
    id="token-weighting-proportional",
    title="Token and record weights agree when tokens are proportional to records",
    title_zh="token 数与记录数成比例时,两种权重一致",
    expect=PROVED,
    claim="t_k = τ·n_k for all k  ⇒  t_k/T = n_k/N",
    assumptions=("microbatch k holds n_k ≥ 1 records with τ > 0 valid tokens each on average",),
    lhs=weight(tokens(k), T),
    rhs=weight(n(k), N),
    proof=calc(weight(tokens(k), T), (weight(n(k), N), "T = Σ_k τ·n_k = τ·N; τ cancels")),
)
