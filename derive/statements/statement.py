"""What a statement of the course is: a claim, its assumptions, a calc-style proof or a family
to refute, and the course's own numbers as instances."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import sympy as sp

from derive.ids import ID_PATTERN
from derive.kernel import Fact, Family, Schema, Verdict, exact
from derive.kernel.claims import check_expr
from derive.kernel.exact import round_half_away, to_expr
from derive.kernel.intervals import round_places


@dataclass(frozen=True)
class Step:
    """One link of a calc chain: `= expr` because `reason`."""

    expr: sp.Expr
    reason: str


@dataclass(frozen=True)
class Calc:
    """start = step₁ = step₂ = …, each link decided by the kernel (like Lean's `calc`)."""

    start: sp.Expr
    steps: tuple[Step, ...]

    @property
    def end(self) -> sp.Expr:
        return self.steps[-1].expr if self.steps else self.start


def calc(start: sp.Expr, *steps: tuple[sp.Expr, str]) -> Calc:
    """A chain from `(expr, reason)` pairs."""
    return Calc(start, tuple(Step(e, r) for e, r in steps))


@dataclass(frozen=True)
class Certificate:
    """`expr ≥ 0` because expr = Σ c·Π factors (checked by the kernel when proving)."""

    name: str
    expr: sp.Expr
    terms: tuple[tuple[sp.Expr, tuple[object, ...]], ...]
    reason: str


@dataclass(frozen=True)
class Rounded:
    """A value the course prints rounded: the exact value rounded half away from zero to the
    places written must equal it (`Rounded("4.666667")`). An irrational value (a softmax, a
    LayerNorm output) is rounded from certified enclosures (derive.kernel.intervals), never
    from a float: it matches only when both ends of an enclosure round to the text."""

    text: str

    def matches(self, value: sp.Expr) -> bool:
        written = exact(self.text)
        places = len(self.text.split(".")[1]) if "." in self.text else 0
        if value.is_Rational:
            return round_half_away(value, places) == written
        if not (value.is_real and value.is_number):
            return False
        return round_places(value, places) == written


def _matches(expected: object, value: object) -> bool:
    if isinstance(expected, Rounded):
        return expected.matches(to_expr(value))
    if isinstance(expected, (list, tuple)):
        return (isinstance(value, (list, tuple)) and len(expected) == len(value)
                and all(_matches(e, v) for e, v in zip(expected, value)))
    if isinstance(value, (list, tuple)):
        return False
    value = to_expr(value)
    return value.is_Rational and value == exact(expected)


@dataclass(frozen=True)
class Instance:
    """The course's numbers: `compute()` gives named exact values, each must equal
    `expected[name]` (an exact number, text such as "14/3", a Rounded, or a list)."""

    label: str
    source: str
    compute: Callable[[], Mapping[str, object]]
    expected: Mapping[str, object]

    def check(self) -> list[tuple[str, object, object, bool]]:
        got = self.compute()
        return [(name, want, got.get(name), name in got and _matches(want, got[name]))
                for name, want in self.expected.items()]


@dataclass(frozen=True)
class Statement:
    """A formula of the course with its expected verdict.

    For an identity (`expect=proved`), `proof` is a calc chain from `lhs` to `rhs`; without
    one the kernel decides `lhs = rhs` directly. A non-identity (`expect=refuted`) is refuted
    on its own sides: `family` may give the interpretations to search first (concrete shapes
    for K, n_k, ℓ); without one the kernel builds small ones itself. A claim about a discrete
    parameter whose sides only exist shape by shape (a number of records, a ZeRO stage) is a
    `schema` instead of lhs and rhs.
    """

    id: str
    title: str
    expect: Verdict
    claim: str
    assumptions: tuple[str, ...]
    lhs: sp.Expr | None = None
    rhs: sp.Expr | None = None
    proof: Calc | None = None
    facts: tuple[Fact | Certificate, ...] = ()
    family: Family | None = None
    schema: Schema | None = None
    instances: tuple[Instance, ...] = ()
    holds_when: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    title_zh: str = ""
    """The title in Chinese, for `--lang zh` exports."""
    sizes: tuple[str, ...] = ()
    """The symbolic sizes of a statement over tensors (C, m, n): positive integers."""
    indices: tuple[str, ...] = ()
    """The free indices of an entry-wise claim with their ranges ("1 ≤ p ≤ C"): the identity
    of two tensors is that of their entries at every such index."""
    written: tuple[str, str] | None = None
    """The two sides as the author wrote them in the tensor language, for the exports (the
    entries lhs and rhs are what the kernel decides)."""
    names: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """A statement over tensors: each declared name with its shape's sizes, () a number."""

    def __post_init__(self):
        if not ID_PATTERN.match(self.id):
            raise ValueError(f"statement id {self.id!r}: use A1, A2, … or lowercase-hyphen words")
        if self.expect is Verdict.UNKNOWN:
            raise ValueError(f"statement {self.id}: `unknown` is never an expected verdict")
        if self.schema is None and (self.lhs is None or self.rhs is None):
            raise ValueError(f"statement {self.id}: a statement needs lhs and rhs (or a schema)")
        if self.schema is not None and (self.lhs is not None or self.family is not None
                                        or self.expect is Verdict.PROVED):
            raise ValueError(f"statement {self.id}: a schema is refuted shape by shape; it has "
                             f"no lhs, rhs or family and cannot be proved")
        for side, what in ((self.lhs, "lhs"), (self.rhs, "rhs")):
            if side is not None:
                check_expr(side, f"statement {self.id}: {what}")
        if self.family is not None and not isinstance(self.family, Family):
            raise ValueError(f"statement {self.id}: family must be a kernel Family of "
                             f"interpretations")
