"""activations-not-sharded — ZeRO divides training state, not activations: dividing the
activations per card by D as well gives a wrong total.

    state(stage, D)/2³⁰ + A/D ≠ state(stage, D)/2³⁰ + A
"""

import sympy as sp

from derive.model import memory
from derive.statements import REFUTED, Instance, Instantiation, Rounded, Schema, Statement


def instantiate(stage):
    P = sp.Symbol("P", positive=True, integer=True)
    D = sp.Symbol("D", positive=True, integer=True)
    A = sp.Symbol("A", nonnegative=True)
    state = memory.state_bytes(P, memory.DEFAULT, stage, D) / memory.GIB
    return Instantiation(shape=f"stage {stage}", lhs=state + A / D, rhs=state + A,
                         variables=(P, D, A))


STATEMENT = Statement(
    id="activations-not-sharded",
    title="Activations per card are not divided by the data-parallel degree",
    title_zh="每卡激活不随数据并行度 D 划分",
    expect=REFUTED,
    claim="state/2³⁰ + A/D = state/2³⁰ + A (activations A GiB per card divided by D)",
    assumptions=("any ZeRO stage; A ≥ 0 GiB of activations on every card",),
    schema=Schema(lambda: [0, 1, 2, 3], instantiate),
    instances=(
        Instance(
            label="10⁹ parameters, stage 3, D = 4, 2 GiB of activations, divided by mistake",
            source="lesson (不要把激活也自动除以 D), constructed",
            compute=lambda: {
                "right total GiB": memory.total_gib(10**9, memory.DEFAULT, 3, 4, 2),
                "wrong total GiB": memory.state_bytes(10**9, memory.DEFAULT, 3, 4) / memory.GIB
                + sp.Rational(2, 4)},
            expected={"right total GiB": Rounded("5.725"), "wrong total GiB": Rounded("4.225")},
        ),
    ),
)
