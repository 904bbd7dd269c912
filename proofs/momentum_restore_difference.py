"""momentum-restore-difference — the exact gap when the momentum buffer is lost: for any
gradient function G, with momentum μ and dampening τ,

    w_2(full state) − w_2(buffer reset) = −η·(μ·b_1 − τ·g_2),   b_1 = G(w_0), g_2 = G(w_1)
"""

import sympy as sp

from derive.optimizers import Optimizer, State, step
from derive.statements import PROVED, Statement, calc

w0 = sp.Symbol("w_0", real=True)
eta = sp.Symbol("eta", positive=True)
mu, tau = sp.Symbol("mu", positive=True), sp.Symbol("tau", nonnegative=True)
G = sp.Function("G", real=True)

opt = Optimizer.make("sgd", momentum=mu, dampening=tau)
w1, state = step(w0, G(w0), State(), opt, eta)
full, _ = step(w1, G(w1), state, opt, eta)
reset, _ = step(w1, G(w1), State(), opt, eta)
gap = -eta * (mu * G(w0) - tau * G(w1))

STATEMENT = Statement(
    id="momentum-restore-difference",
    title="Losing the momentum buffer moves the next step by −η·(μ·b_1 − τ·g_2)",
    title_zh="丢失动量缓冲使下一步移动 −η·(μ·b_1 − τ·g_2)",
    expect=PROVED,
    claim="w_2(w_1, b_1) − w_2(w_1, reset) = −η·(μ·b_1 − τ·g_2)",
    assumptions=("torch.optim.SGD: the first buffer is the gradient itself, undamped",
                 "G any gradient function; μ > 0, τ ≥ 0, η > 0"),
    lhs=full - reset,
    rhs=gap,
    proof=calc(full - reset, (gap, "b_2 = μ·b_1 + (1 − τ)·g_2 against b_2 = g_2 after a reset")),
)
