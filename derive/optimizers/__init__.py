"""The optimizers of `optimizer_steps` and of the optimizer statements in proofs/, one module
each (its options, state, update rule as graph nodes, named mistakes, torch class): the
registry below is the one place that lists them."""

from derive.optimizers import adagrad, adam, adamax, rmsprop, sgd
from derive.optimizers.spec import (
    SPECS,
    Optimizer,
    OptimizerMistake,
    OptimizerSpec,
    Option,
    StateSlot,
    registry,
)
from derive.optimizers.step import State, step

REGISTRY = registry(sgd.SPEC, adam.ADAM, adam.ADAMW, adagrad.SPEC, rmsprop.SPEC,
                    adamax.SPEC)

__all__ = ["REGISTRY", "SPECS", "Option", "Optimizer", "OptimizerMistake", "OptimizerSpec",
           "StateSlot", "State", "step", "slots", "option_kinds"]


def slots() -> tuple[StateSlot, ...]:
    """Every registered state slot once, in registry order (a shared slot is one declaration:
    SGD's and RMSprop's momentum buffer)."""
    out: dict[str, StateSlot] = {}
    for spec in REGISTRY.values():
        for s in spec.slots:
            if out.setdefault(s.key, s) is not s:
                raise ValueError(f"two declarations of the state slot {s.key!r}")
    return tuple(out.values())


def option_kinds() -> dict[str, str]:
    """Each option name's kind, over every registered optimizer (one kind per name)."""
    out: dict[str, str] = {}
    for spec in REGISTRY.values():
        for o in spec.options:
            if out.setdefault(o.name, o.kind) != o.kind:
                raise ValueError(f"option {o.name!r} has two kinds")
    return out
