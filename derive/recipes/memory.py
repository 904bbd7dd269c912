"""`memory`: the training-state memory ledger per card (Lesson 03's "16 bytes per parameter"
and the ZeRO stages), exact in bytes, GB (10⁹) and GiB (2³⁰).

The ledger is a family over components c (parameters, gradients, the fp32 master copy, Adam's
moments m and v, a momentum buffer), each b_c bytes per parameter. A ZeRO stage shards some
of them over the data-parallel degree D: one card holds b_c/D_c of each, D_c = D for a
sharded component and 1 for the others. Every quantity is one node of the derivation graph
of its (components, stage) configuration, so the per-card formula shows exactly which terms
are divided by D.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derive.graph import Node, Variant, symbol
from derive.graph.evaluate import compiled, exact_value, sympy_value
from derive.graph.graph import Graph
from derive.graph.words import Words, cat, said
from derive.model import memory as m
from derive.recipes.base import Candidate, Example, Input, Quantity, Recipe
from derive.recipes.graphed import Graphed, NamedMistake

P = symbol("mem_P", "P", integer=True, positive=True)
D = symbol("mem_D", "D", integer=True, positive=True)
A = symbol("mem_A", "A", nonnegative=True)
SUBSCRIPT = {"param": r"\mathrm{param}", "grad": r"\mathrm{grad}",
             "grad_fp32_partition": r"\mathrm{grad32}", "master": r"\mathrm{master}",
             "adam_m": "m", "adam_v": "v", "momentum": r"\mathrm{momentum}"}
"""b_c of each component as the course writes it: Adam's moments are m and v."""
BYTES = {c: symbol(f"mem_b_{c}", "b", sub=SUBSCRIPT[c], nonnegative=True) for c in m.COMPONENTS}
COMPONENT_OF = {s.name: c for c, s in BYTES.items()}
B = symbol("mem_B", "B")
B_card = symbol("mem_B_card", "B", sub=r"\mathrm{card}")
M = symbol("mem_M", "M")
M_gb = symbol("mem_M_gb", "M", sub=r"\mathrm{GB}")
M_gib = symbol("mem_M_gib", "M", sub=r"\mathrm{GiB}")
T_gib = symbol("mem_T_gib", "T", sub=r"\mathrm{GiB}")

GB = sp.Pow(10, 9, evaluate=False)
GIB = sp.Pow(2, 30, evaluate=False)


def _sum(terms: list[sp.Expr]) -> sp.Expr:
    """t1 + t2 + …, in the ledger's order (0 for an empty ledger)."""
    if not terms:
        return sp.S.Zero
    return terms[0] if len(terms) == 1 else sp.Add(*terms, evaluate=False)


def _per(x: sp.Expr, unit: sp.Expr) -> sp.Expr:
    """x / unit, written as a fraction."""
    return sp.Mul(x, sp.Pow(unit, -1, evaluate=False), evaluate=False)


def _plus(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    return sp.Add(a, b, evaluate=False)


def term(component: str, stage: int) -> sp.Expr:
    """What one card holds of a component per parameter: b_c/D when the stage shards it,
    else b_c."""
    b = BYTES[component]
    return _per(b, D) if component in m.SHARDED[stage] else b


def ordered(components) -> tuple[str, ...]:
    """Components in the course's order (parameters, gradients, master copy, optimizer
    states)."""
    return tuple(c for c in m.COMPONENTS if c in set(components))


@lru_cache(maxsize=None)
def graph(components: tuple[str, ...], stage: int) -> Graph:
    """The graph of one configuration: the ledger's components (in the course's order) and the
    ZeRO stage, which decides which of them are divided by D."""
    nodes = (
        Node("bytes_per_param", B, _sum([BYTES[c] for c in components])),
        Node("card_bytes_per_param", B_card, _sum([term(c, stage) for c in components])),
        Node("state_bytes", M, sp.Mul(P, B_card, evaluate=False)),
        Node("state_gb", M_gb, _per(M, GB)),
        Node("state_gib", M_gib, _per(M, GIB)),
        Node("total_gib", T_gib, _plus(M_gib, A)),
    )
    inputs = {"mem_P": lambda c: c["params"], "mem_D": _dp, "mem_A": _activations}
    for comp in components:
        inputs[BYTES[comp].name] = lambda c, comp=comp: _ledger(c)[comp]
    return Graph(nodes, inputs)


def _ledger(c):
    if c.has("bytes"):
        return c.given["bytes"]
    if c.has("preset"):
        return m.PRESETS[c.given["preset"]].bytes
    return m.DEFAULT


def _stage(c):
    return int(c.given["stage"]) if c.has("stage") else 0


def _dp(c):
    return c.given["dp"] if c.has("dp") else sp.Integer(1)


def _activations(c):
    return c.given["activation_gib"] if c.has("activation_gib") else sp.S.Zero


def graph_of(ctx, components=None, stage=None) -> Graph:
    """The exercise's graph, or the graph of other components or another stage (a mistake)."""
    return graph(ordered(_ledger(ctx) if components is None else components),
                 _stage(ctx) if stage is None else stage)


def _without(*dropped):
    """The graph of the ledger without the components `dropped` (forgetting one)."""
    return lambda ctx: graph_of(ctx, components=[c for c in _ledger(ctx) if c not in dropped])


def _one_adam_state(ctx):
    """Adam's m and v counted as one state: v left out when both are in the ledger."""
    ledger = _ledger(ctx)
    both = "adam_m" in ledger and "adam_v" in ledger
    return graph_of(ctx, components=[c for c in ledger if not (both and c == "adam_v")])


def _next_stage(ctx):
    """The next stage's graph: a component this stage keeps whole divided by D too."""
    return graph_of(ctx, stage=min(_stage(ctx) + 1, 3))


def _stage_0(ctx):
    return graph_of(ctx, stage=0)


def card_terms(ledger, stage: int, dp) -> dict:
    """Each component's bytes per parameter on one card (`derive ledger`'s chart): the terms
    of the stage's `card_bytes_per_param` node, evaluated."""
    env = exact_value({**{BYTES[c].name: b for c, b in ledger.items()}, "mem_D": dp})
    return {c: sympy_value(compiled(term(c, stage))(env, {})) for c in ordered(ledger)}


def stage_values(params, ledger, stage: int, dp, activation_gib) -> dict:
    """Every quantity of one stage (`derive ledger`'s rows), from the recipe's graph."""
    return RECIPE.evaluate({"params": params, "bytes": dict(ledger), "preset": None,
                            "stage": stage, "dp": dp, "activation_gib": activation_gib})


# ------------------------------------------------------------------------ words and mistakes

GRAPHED = Graphed(graph_of, lambda: (q.name for q in QUANTITIES))


def _quantity(name: str, doc: str, words: tuple[str, str]) -> Quantity:
    return Quantity(name, doc, GRAPHED.value(name), words=words)


QUANTITIES = (
    _quantity("bytes_per_param", "the ledger's bytes per parameter, unsharded",
              ("Bytes per parameter, the whole ledger", "每参数字节")),
    _quantity("card_bytes_per_param", "bytes per parameter held on one card at this stage",
              ("Bytes per parameter on one card at this stage", "每卡每参数字节")),
    _quantity("state_bytes", "training-state bytes per card",
              ("Training-state bytes per card", "每卡状态字节")),
    _quantity("state_gb", "the state in GB (10⁹ bytes)",
              ("The state in GB (10⁹ bytes)", "状态 GB")),
    _quantity("state_gib", "the state in GiB (2³⁰ bytes)",
              ("The state in GiB (2³⁰ bytes)", "状态 GiB")),
    _quantity("total_gib",
              "state plus activations per card, in GiB (activations not divided by D)",
              ("State plus activations per card, in GiB", "合计 GiB")),
)
"""The claimable quantities, in derivation order (every node of the graph is one)."""

CLAIMABLE = tuple(q.name for q in QUANTITIES)


COMPONENT_WORDS = {
    "param": ("the parameters", "参数"), "grad": ("the gradients", "梯度"),
    "master": ("the master copy", "主副本"),
    "adam_m": (said("Adam's $m$"), said("Adam 的 $m$")),
    "adam_v": (said("Adam's $v$"), said("Adam 的 $v$")),
    "momentum": ("the momentum buffer", "动量缓冲"),
}
"""Each ledger component in words, English and Chinese (what a stage divides by D)."""


def _sharded(ctx, stage: int, lang: str = "en") -> Words:
    """The ledger's components a stage divides by D, in words (`nothing` / `没有`)."""
    words = [COMPONENT_WORDS[c][lang == "zh"] for c in ordered(_ledger(ctx))
             if c in m.SHARDED[stage]]
    if not words:
        return cat("没有" if lang == "zh" else "nothing")
    if lang == "zh":
        return cat(*(x for n, w in enumerate(words) for x in ((("、", w) if n else (w,)))))
    head = [x for n, w in enumerate(words[:-1]) for x in ((", ", w) if n else (w,))]
    return cat(*head, " and ", words[-1]) if head else cat(words[-1])


D_WORD = said("$D$")
"""The data-parallel degree, as the ledger writes it."""


def stage_rules(target: str):
    """The candidates of `wrong_stage_rule` for `target`: its value by each other stage's rule
    (the nearest stage first), each saying which stage and what that stage divides by D."""
    def candidates(ctx) -> list[Candidate]:
        here = _stage(ctx)
        out = []
        for s in sorted((s for s in range(4) if s != here), key=lambda s: (abs(s - here), s)):
            value = GRAPHED.variant(Variant(f"stage_{s}", target),
                                    lambda c, s=s: graph_of(c, stage=s))(ctx)
            out.append(Candidate(
                value,
                en=cat(f"stage {s}'s rule applied at stage {here}: stage {s} divides ",
                       _sharded(ctx, s), " by ", D_WORD, f"; stage {here} divides ",
                       _sharded(ctx, here)),
                zh=cat(f"在阶段 {here} 用了阶段 {s} 的规则:阶段 {s} 除以 ", D_WORD, " 的是 ",
                       _sharded(ctx, s, "zh"), f",阶段 {here} 除以 ", D_WORD, " 的是 ",
                       _sharded(ctx, here, "zh")),
                details={"stage": s, "given_stage": here}))
        return out
    return candidates


_COURSE = {"params": "1000000000"}
_STAGE_1 = {"params": "1000000000", "stage": "1", "dp": "4"}
_STAGE_3 = {"params": "1000000000", "stage": "3", "dp": "4", "activation_gib": "2"}
_SGD_MOMENTUM = {"params": "1000000000",
                 "bytes": {"param": "2", "grad": "2", "master": "4", "momentum": "4"}}
"""Mixed-precision SGD with momentum: one optimizer state, so the master copy is the only
component worth 4 bytes besides it (the examples of forgetting the master copy)."""
_ADAM = {"params": "1000000000", "preset": "fp32_adam"}


def _stage_example(stage: str, claims: dict) -> Example:
    return Example({"params": "1000000000", "stage": stage, "dp": "4", "activation_gib": "2"},
                   claims)


STAGE_EXAMPLES = {
    # Lesson 03: per card 16P, (4+12/D)P, (2+14/D)P, 16P/D bytes at stages 0-3 (P = 10⁹, D = 4)
    "card_bytes_per_param": _stage_example("1", {"card_bytes_per_param": "4"}),  # stage 3's
    "state_bytes": _stage_example("1", {"state_bytes": "5500000000"}),  # stage 2's
    "state_gb": _stage_example("1", {"state_gb": "5.5"}),  # stage 2's
    "state_gib": _stage_example("1", {"state_gib": "5.122"}),  # stage 2's: 5.5·10⁹/2³⁰
    "total_gib": _stage_example("2", {"total_gib": "8.519"}),  # stage 1's: 7·10⁹/2³⁰ + 2
}
"""`wrong_stage_rule` for each quantity a ZeRO stage changes, with its example."""


def _wrong_stage_rule(target: str, example: Example) -> NamedMistake:
    """A quantity by another ZeRO stage's rule: one candidate per other stage."""
    zh = next(q.words[1] for q in QUANTITIES if q.name == target)
    return NamedMistake(
        "wrong_stage_rule", target,
        (f"{target} by another ZeRO stage's rule (the diagnosis names the stage)",
         f"{zh}用了另一个 ZeRO 阶段的规则(诊断会指出是哪个阶段)"),
        example, candidates=stage_rules(target))


MISTAKES = GRAPHED.mistakes((
    NamedMistake(
        "state_gb_as_gib", "state_gib",
        (said(r"the state in GB written as GiB ($10^9$ for $2^{30}$)"),
         said(r"把 GB($10^9$ 字节)当成 GiB($2^{30}$ 字节)")),
        Example(_COURSE, {"state_gib": "16"}), replace={"state_gib": _per(M, GB)}),
    NamedMistake(
        "state_gib_as_gb", "state_gb",
        (said(r"the state in GiB written as GB ($2^{30}$ for $10^9$)"),
         said(r"把 GiB($2^{30}$ 字节)当成 GB($10^9$ 字节)")),
        Example(_COURSE, {"state_gb": "14.901"}), replace={"state_gb": _per(M, GIB)}),
    NamedMistake(
        "activations_divided_by_dp", "total_gib",
        (cat("the activations divided by ", D_WORD, " too"),
         cat("激活也除以了数据并行度 ", D_WORD)),
        Example(_STAGE_3, {"total_gib": "4.225"}),
        replace={"total_gib": _plus(M_gib, _per(A, D))}),
    NamedMistake(
        "total_gib_unsharded", "total_gib",
        ("the stage-0 state: no sharding applied", "没有按阶段分片:用了阶段 0 的状态"),
        Example(_STAGE_3, {"total_gib": "16.901"}), graph=_stage_0),
    NamedMistake(
        "total_in_gb", "total_gib", ("GB state plus GiB activations", "GB 的状态加上 GiB 的激活"),
        Example({"params": "1000000000", "activation_gib": "2"}, {"total_gib": "18"}),
        replace={"total_gib": _plus(M_gb, A)}),
    NamedMistake(
        "card_bytes_next_stage", "card_bytes_per_param",
        (said("a component this stage keeps whole divided by $D$ too (the next stage's ledger: "
              "stage 1 shards the gradients, stage 2 the parameters)"),
         said("把本阶段不分片的部分也除以了 $D$(用了下一阶段的账:阶段 1 分了梯度,阶段 2 分了"
              "参数)")),
        Example(_STAGE_1, {"card_bytes_per_param": "5.5"}), graph=_next_stage),
    NamedMistake(
        "total_gib_next_stage", "total_gib",
        (said("the total with a component this stage keeps whole divided by $D$ too"),
         said("合计时把本阶段不分片的部分也除以了 $D$")),
        Example(_STAGE_1, {"total_gib": "5.122"}), graph=_next_stage),
    NamedMistake(
        "bytes_per_param_without_master", "bytes_per_param",
        ("the fp32 master copy forgotten (mixed precision keeps one beside the "
         "low-precision parameters)", "漏算了 fp32 主副本(混合精度在低精度参数之外还存一份)"),
        Example(_SGD_MOMENTUM, {"bytes_per_param": "8"}), graph=_without("master")),
    NamedMistake(
        "card_bytes_without_master", "card_bytes_per_param",
        ("the per-card bytes without the fp32 master copy", "每卡字节漏算了 fp32 主副本"),
        Example({**_SGD_MOMENTUM, "stage": "1", "dp": "2"}, {"card_bytes_per_param": "6"}),
        graph=_without("master")),
    NamedMistake(
        "total_gib_without_master", "total_gib",
        ("the total without the fp32 master copy", "合计时漏算了 fp32 主副本"),
        Example(_SGD_MOMENTUM, {"total_gib": "7.451"}), graph=_without("master")),
    NamedMistake(
        "bytes_per_param_one_adam_state", "bytes_per_param",
        (said("Adam's two states $m$ and $v$ counted as one"),
         said("把 Adam 的两个状态 $m$ 和 $v$ 算成了一个")),
        Example(_ADAM, {"bytes_per_param": "12"}), graph=_one_adam_state),
    NamedMistake(
        "card_bytes_one_adam_state", "card_bytes_per_param",
        (said("the per-card bytes with Adam's two states $m$ and $v$ counted as one"),
         said("每卡字节把 Adam 的两个状态 $m$ 和 $v$ 算成了一个")),
        Example({**_ADAM, "stage": "1", "dp": "4"}, {"card_bytes_per_param": "9"}),
        graph=_one_adam_state),
    NamedMistake(
        "total_gib_one_adam_state", "total_gib",
        (said("the total with Adam's two states $m$ and $v$ counted as one"),
         said("合计时把 Adam 的两个状态 $m$ 和 $v$ 算成了一个")),
        Example(_ADAM, {"total_gib": "11.176"}), graph=_one_adam_state),
    *(_wrong_stage_rule(target, example) for target, example in STAGE_EXAMPLES.items()),
))
"""The known mistakes: a variant of the graph (definitions replaced, or the graph of other
components or another stage), or another stage's rule (the diagnosis names the stage)."""


def check(given):
    problems = []
    if given.get("bytes") is not None and given.get("preset") is not None:
        problems.append(("bytes", "is given together with preset", "give one of them"))
    stage = given.get("stage")
    if stage is not None and stage not in (0, 1, 2, 3):
        problems.append(("stage", f"is {stage}", "a ZeRO stage is 0, 1, 2 or 3"))
    return problems


RECIPE = Recipe(
    name="memory",
    title="The training-state memory ledger per card (ZeRO stages, GB and GiB)",
    doc=__doc__,
    inputs=(
        Input("params", "count", "P, the number of parameters (2e9 is fine)"),
        Input("bytes", "ledger", "bytes per parameter by component: param, grad, "
              "grad_fp32_partition, master, "
              "adam_m, adam_v, momentum (default: the course's 2 + 2 + 4 + 4 + 4)",
              required=False),
        Input("preset", "preset", "a named ledger instead of bytes: " + ", ".join(m.PRESETS),
              required=False),
        Input("stage", "stage", "ZeRO stage 0, 1, 2 or 3 (default 0)", required=False),
        Input("dp", "count", "the data-parallel degree D (default 1)", required=False),
        Input("activation_gib", "nonnegative", "activations per card in GiB (default 0; never "
              "divided by D)", required=False),
    ),
    quantities=QUANTITIES,
    mistakes=MISTAKES,
    check=check,
    graph=lambda ctx: graph_of(ctx),
    node_tables={"card_bytes_per_param": "components"},
)
