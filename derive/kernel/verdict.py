"""Verdicts, witnesses and decisions: what the kernel answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import sympy as sp

from derive.kernel.exact import exact_str


class Verdict(StrEnum):
    """`proved` only from symbolic reasoning, `refuted` only with an exact witness."""

    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Witness:
    """An exact point at which the two sides of a claim are defined, real and different.

    `shape` describes the structure chosen (microbatch sizes, a count), `assignment` the exact
    values of the shape's variables by display name, `lhs` and `rhs` the exact values of both
    sides. `symbols` and `functions` say the same in terms of the claim itself: the value of each
    of its free symbols and a Lambda for each of its undefined functions (or IndexedBase), so
    that anyone can substitute them into the claim and see the difference.
    """

    shape: str
    assignment: tuple[tuple[str, sp.Expr], ...]
    lhs: sp.Expr
    rhs: sp.Expr
    symbols: tuple[tuple[sp.Symbol, sp.Expr], ...] = ()
    functions: tuple[tuple[object, sp.Lambda], ...] = ()

    def substitution(self) -> dict:
        """{Symbol: exact value, undefined function or IndexedBase: Lambda}."""
        return {**dict(self.symbols), **dict(self.functions)}

    def as_dict(self) -> dict:

        return {
            "shape": self.shape,
            "assignment": {name: exact_str(value) for name, value in self.assignment},
            "lhs": exact_str(self.lhs),
            "rhs": exact_str(self.rhs),
        }

    def describe(self) -> str:

        values = ", ".join(f"{name}={exact_str(v)}" for name, v in self.assignment)
        parts = [p for p in (self.shape, values) if p]
        return f"{'; '.join(parts)}: lhs={exact_str(self.lhs)} ≠ rhs={exact_str(self.rhs)}"


@dataclass(frozen=True)
class Decision:
    """The kernel's answer to `lhs = rhs`, with the strategy that produced it.

    `rules` names the rewrite rules a proof used, `facts` the statement's facts it relied on,
    and `conditions` the side conditions (expressions ≠ 0) it discharged.
    """

    verdict: Verdict
    strategy: str
    witness: Witness | None = None
    detail: str = ""
    rules: tuple[str, ...] = field(default=())
    facts: tuple[str, ...] = field(default=())
    conditions: tuple[str, ...] = field(default=())
    residual: sp.Expr | None = field(default=None, compare=False)
    """For `unknown` after the normal form: the difference it left (not 0, and no witness),
    from which a reader is told what it still depends on (derive/exercises/undecided.py)."""

    @property
    def proved(self) -> bool:
        return self.verdict is Verdict.PROVED
