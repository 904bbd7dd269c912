"""micro-steps-first-order — for any losses, per-microbatch steps with shares s_k agree with
one update using weights s_k to first order in η (K = 3, arbitrary gradients G_k).

    d/dη [w_3(η) − (w − η·Σ_k s_k·G_k(w))] at η = 0  =  0
"""

import sympy as sp

from derive.model import schemes
from derive.model.objective import sgd_update, weighted_sum
from derive.statements import PROVED, Statement, calc

from .families import eta, w

G = [sp.Function(f"G_{k}", real=True) for k in (1, 2, 3)]
s = sp.symbols("s_1 s_2 s_3", real=True)
sequential = schemes.steps_in_sequence(G, w, eta, s)[-1]
accumulated = sgd_update(w, eta, weighted_sum(s, [g(w) for g in G]))
first_order = sp.Subs(sp.Derivative(sequential - accumulated, eta), eta, 0)

STATEMENT = Statement(
    id="micro-steps-first-order",
    title=("For K = 3 and any losses, scaled per-microbatch steps agree with one update at "
           "first order"),
    title_zh="K = 3 且损失任意时,缩放的逐微批更新在一阶上与一次更新一致",
    expect=PROVED,
    claim="d/dη [w_K(η) − w_acc(η)] at η = 0 is 0, for K = 3 and any microbatch gradients G_k",
    assumptions=("G_k(w) any differentiable microbatch gradient", "step k scaled by s_k",
                 "K = 3 (the chain rule argument is the same for every K)"),
    lhs=first_order,
    rhs=sp.S.Zero,
    proof=calc(first_order, (sp.S.Zero, "chain rule; every term of order η vanishes at η = 0")),
)
