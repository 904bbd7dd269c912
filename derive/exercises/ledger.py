"""The memory ledger computed (what `derive ledger` and a memory exercise's working draw):
each ZeRO stage's quantities from the `memory` recipe's graph, a stage's working, and each
component's term of the bytes on one card, B_card = Σ_c b_c / D_c (D_c = D where the stage
shards c, else 1)."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.exercises.working import Working
from derive.graph.node import leaves
from derive.model import memory as m
from derive.recipes.memory import BYTES, COMPONENT_OF, RECIPE, D, card_terms, stage_values

STAGES = (0, 1, 2, 3)


def rows(params, ledger, dp, activation_gib):
    """(stage, sharded, bytes/param on a card, state bytes, GB, GiB, total GiB) per stage: the
    `memory` recipe's quantities, from its graph of each stage."""
    out = []
    for stage in STAGES:
        values = stage_values(params, ledger, stage, dp, activation_gib)
        out.append({"stage": stage, "bytes_per_param": values["bytes_per_param"],
                    "sharded": sorted(set(ledger) & m.SHARDED[stage], key=m.COMPONENTS.index),
                    **{k: values[k] for k in ("card_bytes_per_param", "state_bytes", "state_gb",
                                              "state_gib", "total_gib")}})
    return out


def stage_working(params, ledger, stage, dp, activation_gib) -> Working:
    """The working of the `memory` recipe at one stage."""
    return Working(RECIPE, {"params": params, "bytes": dict(ledger), "preset": None,
                            "stage": stage, "dp": dp, "activation_gib": activation_gib})


def per_card(ledger, dp) -> list[dict]:
    """Each stage's bytes per parameter on one card, by component."""
    return [card_terms(ledger, s, dp) for s in STAGES]


@dataclass(frozen=True)
class Term:
    """One component's term of B_card: its symbol b_c and bytes, the divisor D_c (the
    symbol D and its value where the stage shards c, else None) and what one card holds."""

    component: str
    symbol: sp.Symbol
    bytes: object
    divisor: sp.Symbol | None
    divisor_value: object
    on_card: object


def component_terms(working: Working) -> list[Term]:
    """The terms of the working's `card_bytes_per_param` node (an empty ledger's 0 has
    none)."""
    node = working.graph.by_name["card_bytes_per_param"]
    terms = node.expr.args if isinstance(node.expr, sp.Add) else (node.expr,)
    out = []
    for t in terms:
        names = [n for n in leaves(t) if n in COMPONENT_OF]
        if not names:
            continue
        b = BYTES[COMPONENT_OF[names[0]]]
        sharded = D.name in leaves(t)
        out.append(Term(COMPONENT_OF[b.name], b, working.value(b.name, None),
                        D if sharded else None,
                        working.value(D.name, None) if sharded else None,
                        working.expr_value(t)))
    return out
