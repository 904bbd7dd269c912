"""The named mistakes of `optimizer_steps`, collected from the registered optimizers: each is
a variant of the configuration's graph that its optimizer's module declares (words, target,
example and variant together); and the recipe's own, which every optimizer can make (the loss
claimed before the step, the gradients summed over the batch)."""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derive.graph import Variant
from derive.graph.words import cat, said
from derive.optimizers import REGISTRY, OptimizerMistake
from derive.optimizers.chain import B, t
from derive.optimizers.common import ONE
from derive.recipes.base import Candidate, Example, Mistake
from derive.recipes.graphed import first_value
from derive.recipes.optimizer_steps.graph import (
    GRAPHED,
    Config,
    chains,
    config,
    gradient_summed,
    graph_of,
    loss_before,
    steps_of,
)

MAX_RESET_STEPS = 50
"""A mistake made at one step k (`at_step`) is tried at k = 2 … at most this."""

_TWO_RECORDS = {**ONE, "b": "0", "records": [["2", "4"], ["1", "3"]]}
"""w = 1, b = 0 on (2, 4), (1, 3): the records' ∂ℓ/∂b are −2, −2 and their ∂ℓ/∂w −4, −2."""

STEP_MISTAKES = (
    OptimizerMistake(
        "loss_before_step",
        said(r"the loss claimed before the step, at $(w_{t-1}, b_{t-1})$, instead of after it "
             r"at $(w_t, b_t)$"),
        said(r"把更新前的损失(在 $w_{t-1}, b_{t-1}$ 处)当成了更新后的损失(应在 $w_t, b_t$ 处)"),
        lambda cfg, cs: {"loss_steps": loss_before(cfg)},
        target="loss_steps", example=(ONE, {"loss_steps": ["2"]})),
    OptimizerMistake(
        "gradient_sum",
        said(r"the sum of the records' gradients, not their mean "
             r"($\sum_i \partial\ell_i/\partial w$ not divided by $N$)"),
        said(r"把各记录的梯度相加而没有取平均($\sum_i \partial\ell_i/\partial w$ 没有除以 $N$)"),
        lambda cfg, cs: {"gradient_steps": gradient_summed(cfg, cs[0].param[t - 1])},
        target="gradient_steps", spreads=True,
        example=(_TWO_RECORDS, {"gradient_steps": ["-6"]})),
    OptimizerMistake(
        "b_gradient_sum",
        said(r"the bias's gradient summed over the records, not averaged "
             r"($\sum_i \partial\ell_i/\partial b$ not divided by $N$)"),
        said(r"把偏置的各记录梯度相加而没有取平均($\sum_i \partial\ell_i/\partial b$ "
             r"没有除以 $N$)"),
        lambda cfg, cs: ({"b_gradient_steps": gradient_summed(cfg, B.param[t - 1])}
                         if cfg.has_b else None),
        target="b_gradient_steps", spreads=True,
        example=(_TWO_RECORDS, {"b_gradient_steps": ["-4"]})),
)


@lru_cache(maxsize=None)
def variants(cfg: Config) -> dict[str, Variant]:
    """The known mistakes that this configuration can make, each a variant of its graph (one
    made at a step k, at step 2)."""
    out: dict[str, Variant] = {}
    for m in STEP_MISTAKES:
        replace = m.build(cfg, chains(cfg))
        if replace is not None:
            out[m.name] = Variant(m.name, m.target, replace, en=m.en, zh=m.zh)
    for m in REGISTRY[cfg.name].mistakes:
        replace = m.build(cfg.shape, chains(cfg), 2) if m.at_step else \
            m.build(cfg.shape, chains(cfg))
        if replace is not None:
            out[m.name] = Variant(m.name, m.target, replace, en=m.en, zh=m.zh)
    return out


def declared() -> dict[str, OptimizerMistake]:
    """Each mistake name once (one declared by several optimizers has the same words and
    target in each; its example is the first one given)."""
    out: dict[str, OptimizerMistake] = {m.name: m for m in STEP_MISTAKES}
    for spec in REGISTRY.values():
        for m in spec.mistakes:
            first = out.setdefault(m.name, m)
            if (first.en, first.zh, first.target, first.spreads, first.at_step) != \
                    (m.en, m.zh, m.target, m.spreads, m.at_step):
                raise ValueError(f"mistake {m.name!r} is declared twice with other words")
            if first.example is None and m.example is not None:
                out[m.name] = m
    return out


def _retargeted(ctx, v: Variant, target: str | None) -> Variant:
    if target is None:
        return v
    if target not in graph_of(ctx).by_name:
        raise KeyError(f"{target} is not a quantity of this exercise")
    return Variant(v.name, target, v.replace, en=v.en, zh=v.zh)


def _mistake(name: str, target: str | None = None):
    """The mistake's value at its target, or at `target` (a later quantity it changes)."""
    def compute(ctx):
        v = variants(config(ctx)).get(name)
        if v is None:
            raise KeyError(f"{name} does not apply to this optimizer")
        return GRAPHED.variant(_retargeted(ctx, v, target))(ctx)
    return compute


def _at(name: str):
    def compute_for(target: str):
        return _mistake(name, target)
    return compute_for


def _at_steps(m: OptimizerMistake, target: str):
    """A mistake made at one step k: its value at `target` for each k = 2 … T, each a
    candidate naming k."""
    def candidates(ctx) -> list[Candidate]:
        cfg = config(ctx)
        own = next((x for x in REGISTRY[cfg.name].mistakes if x.name == m.name), None)
        if own is None:
            return []
        out = []
        for k in range(2, min(int(steps_of(ctx)), MAX_RESET_STEPS) + 1):
            replace = own.build(cfg.shape, chains(cfg), sp.Integer(k))
            if replace is None:
                return []
            v = _retargeted(ctx, Variant(m.name, m.target, replace), target)
            at_k = said(f"$k = {k}$")
            out.append(Candidate(GRAPHED.variant(v)(ctx), cat(m.en, ", at step ", at_k),
                                 cat(m.zh, ",在第 ", at_k, " 步"),
                                 details={"step": k}))
        return out
    return candidates


def mistakes(claimable: tuple[str, ...]) -> tuple[Mistake, ...]:
    """The recipe's mistakes; one that `spreads` (a lost state changes the buffers, then the
    weights, then the later gradients) is named at any claimed quantity it changes; one made
    at a step k is one mistake per quantity, its candidates the steps."""
    out = []
    for m in declared().values():
        example = Example(*m.example) if m.example else None
        if m.at_step:  # named at each quantity its example claims
            for q in (m.target, *(q for q in m.example[1] if q != m.target)):
                found = _at_steps(m, q)
                out.append(Mistake(m.name, q, m.en, first_value(found), zh=m.zh,
                                   example=Example(example.given, {q: example.claims[q]}),
                                   candidates=found))
            continue
        out.append(Mistake(
            m.name, m.target, m.en, _mistake(m.name), zh=m.zh, example=example,
            also_targets=tuple(q for q in claimable if q != m.target) if m.spreads else (),
            compute_for=_at(m.name) if m.spreads else None))
    return tuple(out)
