"""cross-entropy-gradient — for a target y that sums to 1, ∂CE/∂z = softmax(z) − y.

    CE(z, y) = −Σ_c y_c·log softmax(z)_c,  Σ_c y_c = 1:   ∂CE/∂z_j = softmax(z)_j − y_j
"""

import sympy as sp

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import CE_F, CE_F_GZ
from .tensors import B, C, logits, numbers, sizes_of, sums_to_one, target

loss = sized.cross_entropy(logits, target)
lhs, rhs, (j,), facts = sized.entrywise(sized.grad(loss, logits), sized.softmax(logits) - target,
                                         "j")
distribution = sums_to_one(target, "Σ_c y_c = 1: y is a distribution (one-hot in particular)")
c, k = sp.Dummy("c", integer=True), sp.Dummy("k", integer=True)
total = sp.Sum(sp.exp(logits[k]), (k, 1, C))
expanded = (-sp.Sum(target[c] * sp.KroneckerDelta(c, j), (c, 1, C))
            + sp.Sum(target[c], (c, 1, C)) * sp.exp(logits[j]) / total)


def batch_gradient(data, smoothing=0):
    """torch's cross_entropy means over the batch, so its ∂/∂Z is (softmax(Z) − q)/B row by
    row, q the (smoothed) target: the statement's rhs on each row of a lesson's batch."""
    Z, Y = numbers(data["Z"]), numbers(data["Y"])
    Zs, Ys = sized.given("Z", B, C), sized.given("Y", B, C)
    target_rows = sized.smoothed(Ys, smoothing) if smoothing else Ys
    return sized.concrete((sized.softmax(Zs) - target_rows) / B, sizes_of(Z, B, C),
                          {"Z": Z, "Y": Y})


STATEMENT = Statement(
    id="cross-entropy-gradient",
    title="For a target that sums to 1, ∂CE/∂z = softmax(z) − y",
    title_zh="目标之和为 1 时,∂CE/∂z = softmax(z) − y",
    expect=PROVED,
    claim="Σ_c y_c = 1 ⇒ ∂/∂z_j [−Σ_c y_c log softmax(z)_c] = softmax(z)_j − y_j",
    assumptions=(
        "z a real C-vector of logits, y a real C-vector with Σ_c y_c = 1, for any C ≥ 1 "
        "(a one-hot row, or any probability target of torch's cross_entropy)",
        "one record (torch's mean over a batch divides each row's gradient by B)",
        "entry j with 1 ≤ j ≤ C",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=facts + distribution,
    proof=calc(
        lhs,
        (expanded, "log softmax(z)_c = z_c − log Σ_k exp(z_k); ∂z_c/∂z_j = δ(c, j), and "
                   "∂ log Σ_k exp(z_k)/∂z_j = softmax(z)_j (logsumexp-gradient)"),
        (rhs, "the Σ over c keeps c = j (1 ≤ j ≤ C), and Σ_c y_c = 1"),
    ),
    instances=(
        Instance(
            label="the 3×3 logits of ce-f against one-hot rows (classes 2, 1, 0), mean over 3",
            source="lessons 05–07 bank, ce-f: gZ (torch float64, 4 places)",
            compute=lambda: {"∂L/∂Z": batch_gradient(CE_F)},
            expected={"∂L/∂Z": [[Rounded(v) for v in row] for row in CE_F_GZ]},
        ),
    ),
)
