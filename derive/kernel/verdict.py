"""Verdicts, witnesses and decisions: what the kernel answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import sympy as sp


class Verdict(StrEnum):
    """`proved` only from symbolic reasoning, `refuted` only with an exact witness."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Witness:
    """An exact assignment under which the two sides differ.

    `shape` describes the structure chosen (for example microbatch sizes), `assignment`
    the exact values of the free variables, `lhs` and `rhs` the exact values of both sides.
    """

    shape: str
    assignment: tuple[tuple[str, sp.Expr], ...]
    lhs: sp.Expr
    rhs: sp.Expr

    def as_dict(self) -> dict:
        from derive.kernel.exact import exact_str

        return {
            "shape": self.shape,
            "assignment": {name: exact_str(value) for name, value in self.assignment},
            "lhs": exact_str(self.lhs),
            "rhs": exact_str(self.rhs),
        }

    def describe(self) -> str:
        from derive.kernel.exact import exact_str

        values = ", ".join(f"{name}={exact_str(v)}" for name, v in self.assignment)
        parts = [p for p in (self.shape, values) if p]
        return f"{'; '.join(parts)}: lhs={exact_str(self.lhs)} ≠ rhs={exact_str(self.rhs)}"


@dataclass(frozen=True)
class Decision:
    """The kernel's answer to `lhs = rhs`, with the strategy that produced it."""

    verdict: Verdict
    strategy: str
    witness: Witness | None = None
    detail: str = ""
    rules: tuple[str, ...] = field(default=())

    @property
    def proved(self) -> bool:
        return self.verdict is Verdict.PROVED
