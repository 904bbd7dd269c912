"""momentum-full-state — restoring w together with the momentum buffer resumes SGD exactly:
the next update depends on (w, b) only, so two steps in one run equal a step, a save of
(w_1, b_1), a restore and a step.

    step(step(w_0, ∅)) = step(restore(w_1, b_1))
"""

import sympy as sp

from derive.optimizers import Optimizer, State, step
from derive.statements import PROVED, Statement, calc

w0 = sp.Symbol("w_0", real=True)
eta = sp.Symbol("eta", positive=True)
mu, tau, lam = sp.Symbol("mu", positive=True), sp.Symbol("tau", nonnegative=True), \
    sp.Symbol("lambda", nonnegative=True)
G = sp.Function("G", real=True)
opt = Optimizer.make("sgd", momentum=mu, dampening=tau, weight_decay=lam)

w1, state1 = step(w0, G(w0), State(), opt, eta)
uninterrupted, _ = step(w1, G(w1), state1, opt, eta)
saved_w, saved_b = sp.Symbol("w_saved", real=True), sp.Symbol("b_saved", real=True)
restored, _ = step(saved_w, G(saved_w), State(buffer=saved_b, t=1), opt, eta)
resumed = restored.xreplace({saved_w: w1, saved_b: state1.buffer})

STATEMENT = Statement(
    id="momentum-full-state",
    title="Restoring w and the momentum buffer resumes SGD exactly",
    title_zh="同时恢复 w 与动量缓冲,SGD 可精确继续",
    expect=PROVED,
    claim="w_2 of an uninterrupted run = w_2 after saving and restoring (w_1, b_1)",
    assumptions=("torch.optim.SGD with momentum μ > 0, dampening τ, weight decay λ",
                 "G any gradient function; the same batch after the restore"),
    lhs=uninterrupted,
    rhs=resumed,
    proof=calc(uninterrupted, (resumed, "SGD's update is a function of (w, b, g) only")),
)
