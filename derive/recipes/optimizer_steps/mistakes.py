"""The named mistakes of `optimizer_steps`, collected from the registered optimizers: each is
a variant of the configuration's graph that its optimizer's module declares (words, target,
example and variant together)."""

from __future__ import annotations

from functools import lru_cache

from derive.graph import Variant
from derive.optimizers import REGISTRY, OptimizerMistake
from derive.recipes.base import Example, Mistake
from derive.recipes.optimizer_steps.graph import GRAPHED, Config, chains, config, graph_of


@lru_cache(maxsize=None)
def variants(cfg: Config) -> dict[str, Variant]:
    """The known mistakes that this configuration can make, each a variant of its graph."""
    out: dict[str, Variant] = {}
    for m in REGISTRY[cfg.name].mistakes:
        replace = m.build(cfg.shape, chains(cfg))
        if replace is not None:
            out[m.name] = Variant(m.name, m.target, replace, en=m.en, zh=m.zh)
    return out


def declared() -> dict[str, OptimizerMistake]:
    """Each mistake name once (one declared by several optimizers has the same words and
    target in each; its example is the first one given)."""
    out: dict[str, OptimizerMistake] = {}
    for spec in REGISTRY.values():
        for m in spec.mistakes:
            first = out.setdefault(m.name, m)
            if (first.en, first.zh, first.target, first.spreads) != \
                    (m.en, m.zh, m.target, m.spreads):
                raise ValueError(f"mistake {m.name!r} is declared twice with other words")
            if first.example is None and m.example is not None:
                out[m.name] = m
    return out


def _mistake(name: str, target: str | None = None):
    """The mistake's value at its target, or at `target` (a later quantity it changes)."""
    def compute(ctx):
        v = variants(config(ctx)).get(name)
        if v is None:
            raise KeyError(f"{name} does not apply to this optimizer")
        if target is not None:
            if target not in graph_of(ctx).by_name:
                raise KeyError(f"{target} is not a quantity of this exercise")
            v = Variant(v.name, target, v.replace, en=v.en, zh=v.zh)
        return GRAPHED.variant(v)(ctx)
    return compute


def _at(name: str):
    def compute_for(target: str):
        return _mistake(name, target)
    return compute_for


def mistakes(claimable: tuple[str, ...]) -> tuple[Mistake, ...]:
    """The recipe's mistakes; one that `spreads` (a lost state changes the buffers, then the
    weights, then the later gradients) is named at any claimed quantity it changes."""
    return tuple(
        Mistake(m.name, m.target, m.en, _mistake(m.name), zh=m.zh,
                example=Example(*m.example) if m.example else None,
                also_targets=tuple(q for q in claimable if q != m.target) if m.spreads else (),
                compute_for=_at(m.name) if m.spreads else None)
        for m in declared().values())
