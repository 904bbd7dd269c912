"""attention-rows-sum-to-one — each row of the attention weights softmax(Q Kᵀ/√d) sums to 1.

    Σ_t exp(s_it) / Σ_u exp(s_iu) = 1,   s = Q Kᵀ/√d,   for every query i
"""

import sympy as sp

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import ATT_A, ATT_A_A, ATT_A_D
from .tensors import K_, Q, T, d, numbers, rows_summed

weights = sized.attention_scores(Q, K_, 1 / sp.sqrt(d))
lhs, rhs, (i,), facts = sized.entrywise(sized.reduce("sum", weights, 1), sized.ones(T), "i")


def att_a():
    """The 2 queries and 3 keys of att-a (the statement's T queries and keys may differ in
    number: the Σ runs over the keys)."""
    q, k = numbers(ATT_A["Q"]), numbers(ATT_A["Km"])
    queries, keys, dim = (sized.size(s) for s in ("T_q", "T_k", "d"))
    A = sized.concrete(
        sized.attention_scores(sized.given("Q", queries, dim), sized.given("K", keys, dim),
                               1 / sp.sqrt(dim)),
        {queries: len(q), keys: len(k), dim: ATT_A_D}, {"Q": q, "K": k})
    return {"A": A, "Σ_t A[i, t]": [sp.cancel(sp.together(s)) for s in rows_summed(A)]}


STATEMENT = Statement(
    id="attention-rows-sum-to-one",
    title="Each row of the attention weights softmax(Q Kᵀ/√d) sums to 1",
    title_zh="注意力权重 softmax(Q Kᵀ/√d) 的每一行之和为 1",
    expect=PROVED,
    claim="Σ_t softmax(Q Kᵀ/√d)[i, t] = 1",
    assumptions=("Q and K real T×d matrices, for any T, d ≥ 1", "row i with 1 ≤ i ≤ T"),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    proof=calc(lhs, (rhs, "softmax-sums-to-one, on the row i of the scores Q Kᵀ/√d")),
    instances=(
        Instance(
            label="the 2 queries and 3 keys of att-a, d = 2",
            source="lessons 05–07 bank, att-a: A (torch float64, 4 places)",
            compute=att_a,
            expected={"A": [[Rounded(v) for v in row] for row in ATT_A_A],
                      "Σ_t A[i, t]": [1, 1]},
        ),
    ),
)
