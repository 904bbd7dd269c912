"""zero-stages — the lesson's four per-card formulas follow from the component ledger:
with 2 + 2 + 4 + 4 + 4 bytes per parameter and ZeRO sharding over D cards,

    stage 0: 16P,   stage 1: (4 + 12/D)P,   stage 2: (2 + 14/D)P,   stage 3: 16P/D
"""

import sympy as sp

from derive.model import memory
from derive.statements import PROVED, Instance, Rounded, Statement, calc

P = sp.Symbol("P", positive=True, integer=True)
D = sp.Symbol("D", positive=True, integer=True)

from_components = sp.Matrix([memory.state_bytes(P, memory.DEFAULT, stage, D)
                             for stage in (0, 1, 2, 3)])
lesson = sp.Matrix([16 * P, (4 + 12 / D) * P, (2 + 14 / D) * P, 16 * P / D])


def gib(params, stage=0, dp=1, act=0):
    return memory.total_gib(params, memory.DEFAULT, stage, dp, act)


def gb(params, stage, dp):
    return memory.state_bytes(params, memory.DEFAULT, stage, dp) / memory.GB


STATEMENT = Statement(
    id="zero-stages",
    title="The four ZeRO per-card formulas follow from the 2 + 2 + 4 + 4 + 4 ledger",
    title_zh="四个 ZeRO 每卡公式由 2 + 2 + 4 + 4 + 4 的账目推出",
    expect=PROVED,
    claim="per-card state bytes of stages 0–3 = 16P, (4 + 12/D)P, (2 + 14/D)P, 16P/D",
    assumptions=("the course's ledger: parameters 2, gradients 2, master copy 4, Adam m 4, "
                 "Adam v 4 bytes per parameter",
                 "stage 1 shards the optimizer states and the master copy over D cards, stage 2 "
                 "also the gradients, stage 3 also the parameters", "P ≥ 1, D ≥ 1"),
    lhs=from_components,
    rhs=lesson,
    proof=calc(from_components, (lesson, "sum the components: 2 + 2 + (4 + 4 + 4)/D, "
                                          "2 + (2 + 12)/D, 16/D")),
    instances=(
        Instance(
            label="10⁹ parameters, 2 GiB of activations per card",
            source="lesson, “每参数 16 bytes”是一份有条件的账",
            compute=lambda: {"state GB": gb(10**9, 0, 1), "state GiB": gib(10**9),
                             "total GiB": gib(10**9, act=2),
                             "stage 3, D = 4, total GiB": gib(10**9, 3, 4, 2)},
            expected={"state GB": 16, "state GiB": Rounded("14.901"),
                      "total GiB": Rounded("16.901"),
                      "stage 3, D = 4, total GiB": Rounded("5.725")},
        ),
        Instance(
            label="2·10⁹ parameters, 3 GiB of activations",
            source="lesson, exercise 3 and its reference answer",
            compute=lambda: {"state GiB": gib(2 * 10**9), "total GiB": gib(2 * 10**9, act=3)},
            expected={"state GiB": Rounded("29.802"), "total GiB": Rounded("32.802")},
        ),
        Instance(
            label="Ψ = 7.5·10⁹ parameters on N_d = 64 cards",
            source="the ZeRO paper (Rajbhandari et al., 2020), Figure 1",
            compute=lambda: {f"stage {s} GB": gb(sp.Integer(75 * 10**8), s, 64)
                             for s in range(4)},
            expected={"stage 0 GB": 120, "stage 1 GB": Rounded("31.4"),
                      "stage 2 GB": Rounded("16.6"), "stage 3 GB": Rounded("1.9")},
        ),
    ),
)
