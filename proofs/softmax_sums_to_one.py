"""softmax-sums-to-one — a softmax over C classes sums to 1.

    Σ_c exp(z_c) / Σ_k exp(z_k) = 1   for every C ≥ 1
"""

import sympy as sp

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import SM_A, SM_A_P
from .tensors import B, C, logits, rows_summed, sizes_of, write_out

lhs = sized.reduce("sum", sized.softmax(logits), 0).item


def sm_a():
    P = write_out(sized.softmax(sized.given("Z", B, C)), sizes_of(SM_A["Z"], B, C), SM_A)
    return {"P": P, "Σ_c P[r, c]": [sp.cancel(sp.together(s)) for s in rows_summed(P)]}


STATEMENT = Statement(
    id="softmax-sums-to-one",
    title="A softmax over C classes sums to 1",
    title_zh="C 个类别上的 softmax 之和为 1",
    expect=PROVED,
    claim="Σ_{c=1}^{C} softmax(z)_c = 1",
    assumptions=("z a real C-vector, for any C ≥ 1",),
    lhs=lhs,
    rhs=sp.S.One,
    proof=calc(lhs, (sp.S.One, "every term has the denominator Σ_k exp(z_k) > 0, and the "
                               "numerators add up to it")),
    instances=(
        Instance(
            label="the 2×3 logits of sm-a, softmax along dim=-1",
            source="lessons 05–07 bank, sm-a (torch float64, 4 places)",
            compute=sm_a,
            expected={"P": [[Rounded(v) for v in row] for row in SM_A_P],
                      "Σ_c P[r, c]": [1, 1]},
        ),
    ),
)
