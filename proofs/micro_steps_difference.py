"""micro-steps-difference — the exact gap between stepping per microbatch and one update.

On the lesson's model a microbatch's mean gradient is affine in w,
∇L_k(w) = H_k·w − r_k with H_k = (1/n_k)Σ_{B_k} x², r_k = (1/n_k)Σ_{B_k} x·y. For K = 2,
with G_k = ∇L_k(w) at the start of the window and steps η·s_k·G_k:

    w_2 − w_acc = −η·Σ_k (s_k − n_k/N)·G_k + η²·s_1·s_2·H_2·G_1

so the reading's scheme (s_k = 1) already differs at first order in η.
"""

import sympy as sp

from derive.model import schemes
from derive.model.objective import mean, sgd_update, weights
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import THREE_LR, THREE_RECORDS, THREE_W
from .families import eta, w

H1, H2 = sp.symbols("H_1 H_2", nonnegative=True)
r1, r2 = sp.symbols("r_1 r_2", real=True)
s1, s2 = sp.symbols("s_1 s_2", real=True)
n1, n2 = sp.symbols("n_1 n_2", integer=True, positive=True)

G = [lambda v: H1 * v - r1, lambda v: H2 * v - r2]
a1, a2 = weights([n1, n2])
sequential = schemes.steps_in_sequence(G, w, eta, [s1, s2])[-1]
accumulated = sgd_update(w, eta, schemes.accumulated_gradient([n1, n2], [G[0](w), G[1](w)]))
closed = -eta * ((s1 - a1) * G[0](w) + (s2 - a2) * G[1](w)) + eta**2 * s1 * s2 * H2 * G[0](w)


def reading():
    mbs = THREE_RECORDS
    xs = [[x for x, _ in mb] for mb in mbs]
    H = [mean([x * x for x in xk]) for xk in xs]
    Gs = schemes.mean_gradients(mbs, THREE_W)
    a = weights([len(mb) for mb in mbs])
    gap = -THREE_LR * ((1 - a[0]) * Gs[0] + (1 - a[1]) * Gs[1]) + THREE_LR**2 * H[1] * Gs[0]
    seq = schemes.micro_steps(mbs, THREE_W, THREE_LR)[-1]
    acc = sgd_update(THREE_W, THREE_LR, schemes.batch_gradient(mbs, THREE_W))
    return {"closed form": gap, "w_2 − w_acc": seq - acc}


STATEMENT = Statement(
    id="micro-steps-difference",
    title="Per-microbatch steps differ from the accumulated step by a polynomial in η",
    title_zh="逐微批更新与累积更新之差是 η 的多项式",
    expect=PROVED,
    claim="w_2 − w_acc = −η·Σ_k (s_k − n_k/N)·G_k + η²·s_1·s_2·H_2·G_1",
    assumptions=(
        "the lesson's model: ∇L_k(w) = H_k·w − r_k (statement microbatch-gradient-affine)",
        "K = 2 microbatches of n_1, n_2 ≥ 1 records, step k scaled by s_k",
    ),
    lhs=sequential - accumulated,
    rhs=closed,
    proof=calc(sequential - accumulated, (closed, "expand both steps; collect powers of η")),
    instances=(
        Instance(
            label="three records from w = 1, η = 0.1, s_k = 1: 0.075 − 8/15",
            source="reading, 逐微批更新 (derived from its numbers)",
            compute=reading,
            expected={"closed form": "-11/24", "w_2 − w_acc": "-11/24"},
        ),
    ),
)
