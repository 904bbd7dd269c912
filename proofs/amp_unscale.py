"""amp-unscale — accumulating gradients of the loss scaled by a constant S and unscaling once
equals accumulating the true gradients (PyTorch's AMP gradient-accumulation recipe).

    (1/S)·Σ_k S·(n_k/N)·∇L_k = Σ_k (n_k/N)·∇L_k
"""

import sympy as sp

from derive.model import schemes
from derive.model.amp import scaled, unscaled
from derive.model.objective import N, grad, microbatch_objective, n, over_microbatches, weight
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import THREE_RECORDS, THREE_W

S = sp.Symbol("S", positive=True)


def contribution(k):
    return weight(n(k), N) * grad(microbatch_objective(k))


lhs = unscaled(over_microbatches(lambda k: scaled(contribution(k), S)), S)
rhs = over_microbatches(contribution)


def reading():
    means = schemes.mean_gradients(THREE_RECORDS, THREE_W)
    sizes = [len(mb) for mb in THREE_RECORDS]
    scale = 2**16
    acc = schemes.accumulated_gradient(sizes, [scaled(g, scale) for g in means])
    return {"accumulated scaled gradient": acc, "unscaled once": unscaled(acc, scale)}


STATEMENT = Statement(
    id="amp-unscale",
    title="Accumulating with a constant loss scale and unscaling once is exact",
    title_zh="在固定损失缩放下累积、只反缩放一次是精确的",
    expect=PROVED,
    claim="(1/S)·Σ_k S·(n_k/N)·∇L_k = Σ_k (n_k/N)·∇L_k,  S constant in the window",
    assumptions=("the assumptions of A2", "one loss scale S > 0 for the whole window "
                 "(GradScaler updates it only after the step)"),
    lhs=lhs,
    rhs=rhs,
    proof=calc(lhs, (rhs, "S does not depend on k: Σ is linear, S/S = 1")),
    holds_when=(),
    instances=(
        Instance(
            label="the reading's three records at w = 1 with S = 2^16",
            source="constructed from the reading's numbers",
            compute=reading,
            expected={"accumulated scaled gradient": "917504/3", "unscaled once": "14/3"},
        ),
    ),
)
