"""A3 — one plain SGD update at a fixed θ_old.

    g = Σ_k (n_k/N)·∇L_k(θ_old),   θ_new = θ_old − η·g   equals the full-batch SGD step.
"""

from derive.model import schemes
from derive.model.objective import (
    N,
    batch_objective,
    eta,
    grad,
    microbatch_objective,
    n,
    over_microbatches,
    sgd_update,
    theta,
    weight,
    weighted,
)
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .course_data import THREE_LR, THREE_RECORDS, THREE_W, TWO_LR, TWO_RECORDS, TWO_W

accumulated = over_microbatches(lambda k: weighted(weight(n(k), N), grad(microbatch_objective(k))))


def one_update(mbs, w, lr):
    sizes = [len(mb) for mb in mbs]
    g = schemes.accumulated_gradient(sizes, schemes.mean_gradients(mbs, w))
    return {
        "g": g,
        "w_new": sgd_update(w, lr, g),
        "full-batch w_new": sgd_update(w, lr, schemes.batch_gradient(mbs, w)),
    }


STATEMENT = Statement(
    id="A3",
    title="One SGD update from accumulated microbatch gradients is the full-batch update",
    title_zh="用累积的微批梯度做一次 SGD 更新,等于整批更新",
    expect=PROVED,
    claim="θ_old − η·Σ_k (n_k/N)·∇L_k(θ_old) = θ_old − η·∇L(θ_old)",
    assumptions=(
        "the assumptions of A2",
        "plain SGD: no momentum, no weight decay; η > 0",
        "every microbatch gradient is taken at θ_old (the window is not stepped inside)",
    ),
    lhs=sgd_update(theta, eta, accumulated),
    rhs=sgd_update(theta, eta, grad(batch_objective())),
    proof=calc(
        sgd_update(theta, eta, accumulated),
        (sgd_update(theta, eta, grad(batch_objective())), "A2, line 1, at θ = θ_old"),
    ),
    instances=(
        Instance(
            label="three records at w = 1, η = 0.1",
            source="reading, 三条记录",
            compute=lambda: one_update(THREE_RECORDS, THREE_W, THREE_LR),
            expected={"g": "14/3", "w_new": "8/15", "full-batch w_new": Rounded("0.533333")},
        ),
        Instance(
            label="two records (1,2), (3,6) at w = 1, η = 0.1",
            source="lesson, 小批次累积",
            compute=lambda: one_update(TWO_RECORDS, TWO_W, TWO_LR),
            expected={"g": -5, "w_new": "1.5", "full-batch w_new": "1.5"},
        ),
    ),
)
