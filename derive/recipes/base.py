"""What a recipe is: typed inputs and an ordered graph of named quantities.

A quantity's `compute` reads the given inputs and earlier quantities from a context; the
order of `quantities` is the derivation's order (the order a student computes them in), which
is also the order in which the first wrong claim is looked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import sympy as sp

from derive.kernel.dag import has_type, tree_size
from derive.kernel.timebound import attempt

Value = object
"""An exact SymPy number, or a list of values."""


class QuantityUndefined(ArithmeticError):
    """A quantity with no value for these givens (log 0, a division by zero, √ of a negative),
    or (not `supported`) one too large to compute. `key` is the input to blame (default: the
    quantity's own `define` entry); when it is another key, `reason` says what is wrong with
    that input."""

    def __init__(self, name: str, reason: str, supported: bool = True,
                 expected: str = "", key: str = "", undecided: bool = False):
        super().__init__(f"{name} is undefined for these givens: {reason}")
        self.name, self.reason, self.supported = name, reason, supported
        self.undecided = undecided
        """Its value exists but a sign it needs was not decided (graph.evaluate.UndecidedSign):
        the exercise is `undecided`, not refused."""
        self.key = key or f"define.{name}"
        self.expected = expected or ("change the givens or the formula" if supported
                                     else "use smaller givens or fewer steps")


class Later(Sequence):
    """A tuple made on first use: a recipe's mistakes, which only a wrong claim reads, so
    that reading and checking a right exercise never derives them."""

    def __init__(self, make: Callable[[], Iterator]):
        self._make, self._items = make, None

    def _got(self) -> tuple:
        if self._items is None:
            self._items = tuple(self._make())
            self._make = None
        return self._items

    def __len__(self) -> int:
        return len(self._got())

    def __getitem__(self, index):
        return self._got()[index]

    def __iter__(self):
        return iter(self._got())


@dataclass(frozen=True)
class Input:
    """A given input: its TOML key, its kind (see derive.exercises.schema), its meaning."""

    name: str
    kind: str
    doc: str
    required: bool = True
    default: Value | None = None


@dataclass(frozen=True)
class Quantity:
    """A named quantity, declared once: its docs line (`doc`: `derive recipes`, error
    messages), its heading in the course's words (`words`: English, Chinese), its column
    heading in a steps table (`header`, empty: not a column), and how to compute it (its
    formula is its node in the recipe's derivation graph).

    `wrong` marks a scheme the course warns about (it is computed and rendered like any
    other quantity, and the diagnosis tries it against wrong claims of `mistake_of`).
    `needs` lists the given inputs it requires beyond the recipe's required ones.
    """

    name: str
    doc: str
    compute: Callable[["Context"], Value]
    wrong: bool = False
    mistake_of: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    when: Callable[[Mapping[str, Value]], bool] | None = None
    """A further condition on the given inputs for the quantity to exist."""
    when_text: str = ""
    """That condition in words, for error messages."""
    words: tuple[str, str] = ("", "")
    """Its heading in English and in Chinese: the one label every output uses."""
    header: str = ""
    """Its column heading in a steps table (a recurrent family shown a row per step)."""


@dataclass(frozen=True)
class Example:
    """An exercise that makes a mistake: its inputs (TOML text values) and the claims a
    student who makes it would write. The tests check that it is diagnosed by name."""

    given: Mapping[str, object]
    claims: Mapping[str, object]


@dataclass(frozen=True)
class Candidate:
    """One value a mistake may give, with its own explanation: which stage's rule, which
    element of a list (`details` goes to the diagnosis's JSON as it is: exact strings and
    integers only)."""

    value: Value
    en: str
    zh: str
    details: Mapping[str, object] | None = None


@dataclass(frozen=True)
class Mistake:
    """A known mistake: computing `target` the way `compute` does. Tried against wrong claims.
    `doc` explains it in English, `zh` in Chinese; `example` makes it. A mistake that changes
    other quantities too (a lost optimizer state changes the buffers, then the weights, then
    the later gradients) names them in `also_targets`, `compute_for(name)` computing each.

    A mistake with `candidates` gives several values, each explained in its own words (the
    stage whose rule was applied, the elements divided by the planned size); the diagnosis
    tries them in order, and `compute` is then the first candidate's value."""

    name: str
    target: str
    doc: str
    compute: Callable[["Context"], Value]
    needs: tuple[str, ...] = ()
    zh: str = ""
    example: Example | None = None
    candidates: Callable[["Context"], list[Candidate]] | None = None
    also_targets: tuple[str, ...] = ()
    compute_for: Callable[[str], Callable[["Context"], Value]] | None = None
    origin: str = "course"
    """Where it comes from, for the rule of evidence (derive.exercises.evidence): "course"
    (the recipe's own), "declared" (the author's), "generic" (an edit of any derivation)."""

    def at(self, name: str) -> Callable[["Context"], Value] | None:
        """How the mistake computes quantity `name`, or None when it does not give it."""
        if name == self.target:
            return self.compute
        if name in self.also_targets and self.compute_for is not None:
            return self.compute_for(name)
        return None


class Context(Mapping):
    """Given inputs and quantities, computed on demand in derivation order; `overrides`
    replaces computed quantities by other values (the author's own, to carry errors forward).
    A name that is both an input and a quantity (`loss` in sgd_step) means the quantity;
    the input is `ctx.given[name]`."""

    def __init__(self, recipe: "Recipe", given: Mapping[str, Value],
                 overrides: Mapping[str, Value] | None = None):
        self.recipe = recipe
        self.given = given
        self.overrides = dict(overrides or {})
        self._values: dict[str, Value] = {}
        self._memo: dict[str, Value] = {}

    def __getitem__(self, name: str) -> Value:
        """A quantity when the recipe has one of that name, else a given input."""
        q = self.recipe.quantity(name)
        if q is None:
            return self.given[name]
        if name in self.overrides:
            return self.overrides[name]
        if name not in self._values:
            self._values[name] = q.compute(self)
        return self._values[name]

    def memo(self, key: str, compute: Callable[["Context"], Value]) -> Value:
        """A value computed once per context (several quantities share one trajectory); a
        context with overrides computes its own."""
        if key not in self._memo:
            self._memo[key] = compute(self)
        return self._memo[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.given)

    def __len__(self) -> int:
        return len(self.given)

    def has(self, name: str) -> bool:
        return name in self.given and self.given[name] is not None


@dataclass(frozen=True)
class TensorQuantity:
    """A quantity whose value is a tensor: its shape, the formula its author wrote (text,
    escaped by every renderer) and the graph nodes of its entries in row-major order."""

    shape: tuple[int, ...]
    formula: str
    entries: tuple[str, ...]


@dataclass(frozen=True)
class Recipe:
    """A derivation: inputs, quantities in derivation order, known mistakes."""

    name: str
    title: str
    doc: str
    inputs: tuple[Input, ...]
    quantities: tuple[Quantity, ...]
    mistakes: tuple[Mistake, ...] = ()
    check: Callable[[Mapping[str, Value]], list[tuple[str, str, str]]] = field(
        default=lambda given: [])
    """Cross-input checks: returns (key, what is wrong, what would be right) triples."""
    graph: Callable[["Context"], object] | None = None
    """The derivation graph of an exercise's configuration (derive.graph.Graph), for recipes
    whose quantities are its nodes: the working is rendered from it."""
    node_words: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """English and Chinese words of the graph's nodes that are not quantities (a quantity's
    are its own `words`). Read them, a quantity's too, through `words_of`."""
    node_titles: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Headings an exercise's author wrote for its quantities (English, Chinese): untrusted
    text, which the renderers escape (`formulas`)."""
    node_tables: Mapping[str, str] = field(default_factory=dict)
    """Tables of the working shown before a node's formula: node name → the kind of table
    (`"components"`: the memory ledger, one row per component of a sum); the renderer
    draws them."""
    tensors: Mapping[str, "TensorQuantity"] = field(default_factory=dict)
    """The quantities whose value is a tensor (nested lists, row-major): a claim of one is
    judged entry by entry and reported with the entries that are wrong; the working shows it
    whole, not entry node by entry node."""
    rebuild: Callable[[object], object] | None = None
    """For a recipe with tensor quantities: its derivation graph rebuilt with other tensor
    operations (derive.graph.tensor_language.Ops with one replaced), for a whole-tensor
    mistake computed as a variant in that graph (`graphed.NamedMistake.graph`)."""
    members_shown: int | None = None
    """How many members of a family node the working writes out (None: the renderer's
    default); the rest are left to `working`."""
    def quantity(self, name: str) -> Quantity | None:
        return self._by_name.get(name)

    def words_of(self, name: str) -> tuple[str, str]:
        """A quantity's or another node's words (English, Chinese): the quantity's own
        declaration, else the recipe's `node_words`; ("name", "") when neither has any."""
        q = self.quantity(name)
        if q is not None and q.words != ("", ""):
            return q.words
        if name in self.node_words:
            return tuple(self.node_words[name])
        return (name, "")

    @property
    def steps_columns(self) -> Mapping[str, str]:
        """Nodes of a recurrent family shown as one table after the working, a row per step:
        node name → column heading, in derivation order (optimizer_steps: g_t, u_t or m_t and
        v_t, w_t, b_t, L_t), from the quantities' `header`s."""
        return {q.name: q.header for q in self.quantities if q.header}

    @cached_property
    def _by_name(self) -> dict[str, Quantity]:
        return {q.name: q for q in self.quantities}

    def available(self, given: Mapping[str, Value]) -> list[Quantity]:
        """The quantities this exercise's inputs determine."""
        return [q for q in self.quantities
                if all(given.get(n) is not None for n in q.needs)
                and (q.when is None or q.when(given))]

    def evaluate(self, given: Mapping[str, Value],
                 overrides: Mapping[str, Value] | None = None) -> dict[str, Value]:
        ctx = Context(self, given, overrides)
        return {q.name: ctx[q.name] for q in self.available(given)}


SIMPLIFY_NODES = 400
"""A value of more tree nodes than this is never given to SymPy's simplification (which
walks it as a tree): it stays the DAG the graph computed."""

SIMPLIFY_SECONDS = 2.0
"""The CPU time SymPy's radsimp may take on one value (nested fourth roots can keep it going
for minutes); past it the value stays as computed."""


def expand_exact(value: Value, _seen: set | None = None) -> Value:
    """Exact values in their simplest closed form (lists element by element)."""
    seen = set() if _seen is None else _seen  # the elements of a list share their steps
    if isinstance(value, (list, tuple)):
        return [expand_exact(v, seen) for v in value]
    if isinstance(value, sp.Basic) and not value.is_Rational:

        if has_type(value, sp.Float, seen):
            raise TypeError("a binary float reached an exact value")
        if tree_size(value, SIMPLIFY_NODES) > SIMPLIFY_NODES:
            return value  # a large value (a DAG of nested surds) stays as computed
        try:
            if sp.count_ops(value) > 40 or has_type(value, (sp.exp, sp.log)):
                return value  # radsimp rationalises surds; on exp(−10³⁰) it would evaluate
            return attempt(SIMPLIFY_SECONDS, sp.radsimp, value, default=value)
        except (OverflowError, ValueError, RecursionError):
            return value  # (count_ops rebuilds powers: a surd of a 3,000-digit rational
            # makes SymPy try to factor it, and overflow a float)
    return value
