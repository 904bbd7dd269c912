"""relu-kink-convention — at the kink, derive takes torch's convention relu′(0) = 0.

    relu′(u) = 0   at u = 0   (torch.relu's backward passes no gradient at 0)

The lhs is the derivative rule of derive's relu itself (`relu(u).fdiff()`, what sympy.diff
uses through every network), not d relu(u)/du: relu has no derivative at 0, and the kernel
decides a claim about d relu(u)/du at u = 0 as having no point in its domain ("no derivative at
a kink"), which would prove relu′(0) = 1 just as well. The convention is a value, stated as one.
"""

import sympy as sp

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc, hypothesis

from .lessons_data import MLP_E, MLP_E_GB1
from .two_layer_relu_delta import bias_gradient

u = sp.Symbol("u", real=True)
lhs = sized.relu(sized.scalar(u)).item.fdiff()
at_kink = (hypothesis(u, "u ≥ 0"), hypothesis(-u, "u ≤ 0"))

STATEMENT = Statement(
    id="relu-kink-convention",
    title="At the kink derive takes torch's relu′(0) = 0",
    title_zh="在折点处取 torch 的约定 relu′(0) = 0",
    expect=PROVED,
    claim="relu′(u) = 0 at u = 0 (derive's relu′, as torch.relu's backward)",
    assumptions=(
        "u = 0, where relu has no derivative: its one-sided derivatives are 0 and 1",
        "the value is torch's convention (torch.relu's backward, 1[u > 0]), not a derivative; "
        "two-layer-relu-delta assumes no pre-activation is 0 and so does not depend on it",
    ),
    lhs=lhs,
    rhs=sp.S.Zero,
    facts=at_kink,
    proof=calc(
        lhs,
        (sp.S.Zero, "derive's relu′(u) is H(u) with H(0) = 0 (torch's 1[u > 0]), and u = 0"),
    ),
    instances=(
        Instance(
            label="mlp-e, two hidden pre-activations exactly 0: ∂L/∂b₁ with the mask 1[z₁ > 0]",
            source="lessons 05–07 bank, mlp-e: gb1 (torch float64, 4 places; its gW1 claim is "
                   "the planted relu′(0) = 1)",
            compute=lambda: bias_gradient(MLP_E),
            expected={"∂L/∂b₁": [Rounded(v) for v in MLP_E_GB1]},
        ),
    ),
)
