"""microbatch-gradient-affine — on the lesson's model a microbatch's mean gradient is affine in w.

    ∇_w L_k(w) = H_k·w − r_k,   H_k = (1/n_k) Σ_{i∈B_k} x_i²,   r_k = (1/n_k) Σ_{i∈B_k} x_i·y_i
"""

import sympy as sp

from derive.model import linear, schemes
from derive.model.objective import block_sum, k, mean, microbatch_objective, n
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import THREE_RECORDS

X, Y = sp.IndexedBase("x", real=True), sp.IndexedBase("y", real=True)
w = linear.w


def loss(i):
    return linear.record_loss(w, X[i], Y[i])


gradient = sp.Derivative(microbatch_objective(k, loss), w)
H = block_sum(lambda i: X[i] ** 2, k) / n(k)
r = block_sum(lambda i: X[i] * Y[i], k) / n(k)


def reading():
    mb = THREE_RECORDS[0]
    H_ = mean([x * x for x, _ in mb])
    r_ = mean([x * y for x, y in mb])
    return {"∇L_1(1)": schemes.mean_gradients([mb], 1)[0], "H_1·1 − r_1": H_ * 1 - r_,
            "H_1": H_}


STATEMENT = Statement(
    id="microbatch-gradient-affine",
    title="On ŷ = w·x a microbatch's mean gradient is H_k·w − r_k",
    title_zh="在 ŷ = w·x 上,微批平均梯度为 H_k·w − r_k",
    expect=PROVED,
    claim="∇_w L_k(w) = H_k·w − r_k,  H_k = (1/n_k)Σ_{B_k} x_i²,  r_k = (1/n_k)Σ_{B_k} x_i·y_i",
    assumptions=("the lesson's model ŷ = w·x, ℓ_i = (w·x_i − y_i)²/2",
                 "microbatch B_k of n_k ≥ 1 records (symbolic n_k)"),
    lhs=gradient,
    rhs=H * w - r,
    proof=calc(
        gradient,
        (block_sum(lambda i: X[i] * (w * X[i] - Y[i]), k) / n(k),
         "sympy.diff of ½(w·x_i − y_i)² is x_i·(w·x_i − y_i)"),
        (H * w - r, "Σ is linear and w does not depend on i"),
    ),
    instances=(
        Instance(
            label="microbatch {(1,0), (2,0)} at w = 1",
            source="reading, table (microbatch mean 2.5)",
            compute=reading,
            expected={"∇L_1(1)": "2.5", "H_1·1 − r_1": "2.5", "H_1": "5/2"},
        ),
    ),
)
