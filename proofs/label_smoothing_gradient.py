"""label-smoothing-gradient — with label smoothing ε the target is (1 − ε)·y + ε/C.

    CE_ε(z, y) = −Σ_c ((1 − ε)·y_c + ε/C)·log softmax(z)_c (torch's label_smoothing),
    Σ_c y_c = 1:   ∂CE_ε/∂z_j = softmax(z)_j − ((1 − ε)·y_j + ε/C)
"""

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .cross_entropy_gradient import batch_gradient, distribution
from .lessons_data import CE_E, CE_E_GZ, CE_E_SMOOTHING
from .tensors import logits, numbers, smoothing, target

loss = sized.cross_entropy(logits, target, label_smoothing=smoothing)
smoothed = sized.smoothed(target, smoothing)
lhs, rhs, (j,), facts = sized.entrywise(sized.grad(loss, logits),
                                        sized.softmax(logits) - smoothed, "j")
as_plain = sized.entrywise(sized.grad(sized.cross_entropy(logits, smoothed), logits),
                           sized.softmax(logits), "j")[0]

STATEMENT = Statement(
    id="label-smoothing-gradient",
    title="With label smoothing ε, ∂CE/∂z = softmax(z) − ((1 − ε)·y + ε/C)",
    title_zh="标签平滑 ε 下,∂CE/∂z = softmax(z) − ((1 − ε)·y + ε/C)",
    expect=PROVED,
    claim="Σ_c y_c = 1 ⇒ ∂CE_ε(z, y)/∂z_j = softmax(z)_j − ((1 − ε)·y_j + ε/C)",
    assumptions=(
        "the assumptions of cross-entropy-gradient; ε real (torch takes 0 ≤ ε ≤ 1)",
        "torch's label smoothing: the target (1 − ε)·y + ε/C, which sums to 1 when y does",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=facts + distribution,
    proof=calc(
        lhs,
        (as_plain, "the same loss: CE_ε(z, y) = CE(z, (1 − ε)·y + ε/C)"),
        (rhs, "cross-entropy-gradient with the target (1 − ε)·y + ε/C: Σ_c ((1 − ε)·y_c + "
              "ε/C) = (1 − ε) + ε = 1"),
    ),
    instances=(
        Instance(
            label="the 2×3 logits of ce-e, classes 0 and 2, label smoothing 0.2, mean over 2",
            source="lessons 05–07 bank, ce-e: gZ (torch float64, 4 places)",
            compute=lambda: {"∂L/∂Z": batch_gradient(CE_E, numbers(CE_E_SMOOTHING))},
            expected={"∂L/∂Z": [[Rounded(v) for v in row] for row in CE_E_GZ]},
        ),
    ),
)
