"""micro-steps-scaled — steps scaled by n_k/N agree with one update to first order only.

    s_k = n_k/N  ⇒  w_2 − w_acc = η²·(n_1·n_2/N²)·H_2·∇L_1(w)
"""

from derive.model import schemes
from derive.model.objective import mean, sgd_update
from derive.statements import PROVED, Instance, Statement, calc

from .course_data import THREE_LR, THREE_RECORDS, THREE_W
from .families import eta, w
from .micro_steps_difference import H1, H2, G, a1, a2, accumulated, closed, n1, n2, r1, s1, s2

sequential = schemes.steps_in_sequence(G, w, eta, [a1, a2])[-1]
second_order = eta**2 * (n1 * n2 / (n1 + n2) ** 2) * H2 * G[0](w)


def reading():
    seq = schemes.micro_steps(THREE_RECORDS, THREE_W, THREE_LR, scale_by_weight=True)[-1]
    acc = sgd_update(THREE_W, THREE_LR, schemes.batch_gradient(THREE_RECORDS, THREE_W))
    mb1, mb2 = THREE_RECORDS
    point = {eta: THREE_LR, w: THREE_W, n1: len(mb1), n2: len(mb2),
             H1: mean([x * x for x, _ in mb1]), r1: mean([x * y for x, y in mb1]),
             H2: mean([x * x for x, _ in mb2])}
    return {"w_2 − w_acc": seq - acc,
            "η²·(n_1 n_2/N²)·H_2·G_1": second_order.xreplace(point)}


STATEMENT = Statement(
    id="micro-steps-scaled",
    title="Per-microbatch steps scaled by n_k/N match one update at first order, not second",
    title_zh="按 n_k/N 缩放的逐微批更新只在一阶上与一次更新一致",
    expect=PROVED,
    claim="s_k = n_k/N  ⇒  w_2 − w_acc = η²·(n_1·n_2/N²)·H_2·∇L_1(w)",
    assumptions=("the assumptions of micro-steps-difference", "s_k = n_k/N"),
    lhs=sequential - accumulated,
    rhs=second_order,
    proof=calc(
        sequential - accumulated,
        (closed.subs({s1: a1, s2: a2}),
         "micro-steps-difference with s_k = n_k/N"),
        (second_order, "the first-order term vanishes: s_k − n_k/N = 0"),
    ),
    instances=(
        Instance(
            label="three records from w = 1, η = 0.1, steps scaled by 2/3 and 1/3",
            source="constructed from the reading's numbers",
            compute=reading,
            expected={"w_2 − w_acc": "1/20", "η²·(n_1 n_2/N²)·H_2·G_1": "1/20"},
        ),
    ),
)
