"""softmax-shift — adding the same a to every logit leaves the softmax unchanged.

    exp(z_j + a) / Σ_k exp(z_k + a) = exp(z_j) / Σ_k exp(z_k)
"""

import sympy as sp

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import SM_D, SM_D_P
from .tensors import B, C, logits, numbers, shift, sizes_of

lhs, rhs, (j,), facts = sized.entrywise(sized.softmax(logits + shift), sized.softmax(logits), "j")
k = sp.Dummy("k", integer=True)
scaled = sp.exp(shift) * sp.exp(logits[j]) / (sp.exp(shift) * sp.Sum(sp.exp(logits[k]), (k, 1, C)))


def sm_d():
    """torch's stable softmax: each row shifted by minus its largest logit."""
    Z = numbers(SM_D["Z"])
    sizes = sizes_of(Z, B, C)
    rows = []
    for row in Z:
        top = max(row)
        rows.append(sized.concrete(sized.softmax(logits + shift), {C: sizes[C]},
                                   {"z": row, "a": -top}))
    return {"softmax(z − max z)": rows}


STATEMENT = Statement(
    id="softmax-shift",
    title="Adding the same a to every logit leaves the softmax unchanged",
    title_zh="每个 logit 加上同一个 a,softmax 不变",
    expect=PROVED,
    claim="softmax(z + a·1)_j = softmax(z)_j",
    assumptions=("z a real C-vector, a real, for any C ≥ 1", "entry j with 1 ≤ j ≤ C"),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    proof=calc(
        lhs,
        (scaled, "exp(z_k + a) = exp(a)·exp(z_k), and exp(a) leaves the Σ over k"),
        (rhs, "exp(a) > 0 cancels"),
    ),
    instances=(
        Instance(
            label="the logits of sm-d, each row shifted by minus its maximum (torch's way)",
            source="lessons 05–07 bank, sm-d (torch float64, 4 places)",
            compute=sm_d,
            expected={"softmax(z − max z)": [[Rounded(v) for v in row] for row in SM_D_P]},
        ),
    ),
)
