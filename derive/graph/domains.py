"""The declared domains of the inputs a formula names, each declared once: the learning rate
η > 0, a decay rate 0 ≤ β < 1, a stabiliser ε > 0.

A formula answer holds when it equals the quantity wherever these hold, and a witness that it
does not is a point inside them (never η = 0, where every update is the same, or β₁ = 1, where
Adam's m̂ = m/(1 − β₁ᵗ) has no value). The names are the formula language's canonical
spellings (lr and η are eta, β₁ is beta1, ε is eps).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.kernel.exact import to_expr
from derive.kernel.facts import Fact, hypothesis, positive


@dataclass(frozen=True)
class Domain:
    """An interval of the reals, `low < v` or `low ≤ v`, and `v < high` when bounded above."""

    low: int
    closed_low: bool
    high: int | None = None
    words: str = ""

    def facts(self, v: sp.Symbol) -> tuple[Fact, ...]:
        """The kernel's facts saying v is in the domain."""
        reason = f"{v.name} {self.words}"
        low = (hypothesis if self.closed_low else positive)(v - self.low, reason)
        if self.high is None:
            return (low,)
        return (low, positive(self.high - v, reason))

    def holds(self, value: sp.Expr) -> bool:
        """Whether an exact value lies in the domain."""
        value = to_expr(value)
        above = value >= self.low if self.closed_low else value > self.low
        return bool(above) and (self.high is None or bool(value < self.high))


RATE = Domain(0, False, words="> 0")
DECAY = Domain(0, True, 1, words="in [0, 1)")
STABILISER = Domain(0, False, words="> 0")

DOMAINS: dict[str, Domain] = {
    "eta": RATE,
    "beta": DECAY, "beta1": DECAY, "beta2": DECAY, "momentum": DECAY, "mu": DECAY,
    "rho": DECAY,
    "eps": STABILISER,
}
"""Each declared input by its canonical name: η (lr) a learning rate; β, β₁, β₂, momentum,
μ and ρ decay rates (the weight of the running average's old value); ε (eps) a stabiliser."""


def domain_facts(symbols) -> tuple[Fact, ...]:
    """The facts of the declared domains of those of `symbols` that have one (by name)."""
    out: list[Fact] = []
    for s in sorted(symbols, key=lambda s: s.name):
        if isinstance(s, sp.Symbol) and s.name in DOMAINS and not s.is_integer:
            out += DOMAINS[s.name].facts(s)
    return tuple(out)
