"""logsumexp-shift — log Σ_k exp(z_k) = m + log Σ_k exp(z_k − m) for any m.

The stable way to compute it: with m = max z no exp overflows.
"""

import sympy as sp

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import SM_D, SM_D_S
from .tensors import C, logits, numbers

mm = sp.Symbol("m", real=True)
lhs = sized.logsumexp(logits).item
rhs = mm + sized.logsumexp(logits - mm).item
k = sp.Dummy("k", integer=True)
factored = sp.log(sp.exp(mm) * sp.Sum(sp.exp(logits[k] - mm), (k, 1, C)))


def sm_d():
    return {"max z + logsumexp(z − max z)": [
        sized.concrete(sized.scalar(rhs), {C: len(row)}, {"z": row, "m": max(row)})
        for row in numbers(SM_D["Z"])]}


STATEMENT = Statement(
    id="logsumexp-shift",
    title="logsumexp(z) = m + logsumexp(z − m) for any m",
    title_zh="对任意 m,logsumexp(z) = m + logsumexp(z − m)",
    expect=PROVED,
    claim="log Σ_k exp(z_k) = m + log Σ_k exp(z_k − m)",
    assumptions=("z a real C-vector, m real, for any C ≥ 1",),
    lhs=lhs,
    rhs=rhs,
    proof=calc(
        lhs,
        (factored, "exp(z_k) = exp(m)·exp(z_k − m), and exp(m) leaves the Σ"),
        (rhs, "log(exp(m)·S) = m + log S, as exp(m) > 0 and S = Σ_k exp(z_k − m) > 0 (C ≥ 1)"),
    ),
    instances=(
        Instance(
            label="the logits of sm-d with m = the row's maximum",
            source="lessons 05–07 bank, sm-d (torch float64, 4 places)",
            compute=sm_d,
            expected={"max z + logsumexp(z − max z)": [Rounded(v) for v in SM_D_S]},
        ),
    ),
)
