"""What an optimizer is: its options (torch's names, defaults and validation), its state (the
saved keys of torch's state_dict), its update rule as graph nodes in torch's order of
operations, and its named mistakes. One `OptimizerSpec` per optimizer module; the registry
(derive/optimizers/__init__.py) lists them."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from derive.kernel.exact import decimal_str

OPTION_KINDS = ("nonnegative", "number", "bool", "betas")
"""As torch validates them: a number ≥ 0, any number, true/false, a pair [β1, β2] in [0, 1)."""


@dataclass(frozen=True)
class Option:
    """One constructor argument of the torch optimizer: name, PyTorch's default, kind."""

    name: str
    default: object
    kind: str
    doc: str = ""

    def __post_init__(self):
        if self.kind not in OPTION_KINDS:
            raise ValueError(f"unknown option kind {self.kind!r}")


def always(opt) -> bool:
    return True


@dataclass(frozen=True)
class StateSlot:
    """One per-parameter state tensor: its key in the exercise's `state` table (b's is
    `b_` + key), torch's state_dict key, its family (node `node`, b's `b_` + node; internal
    base `base`, written `letter` with `sub`), when the optimizer keeps it, and, when it can be
    claimed, its quantity: doc line, words (en, zh) and steps-table header."""

    key: str
    torch_key: str
    node: str
    base: str
    letter: str
    sub: str = ""
    kind: str = "number"
    used: Callable[[object], bool] = always
    used_text: str = ""
    words: tuple[str, str] = ("", "")
    b_words: tuple[str, str] = ("", "")
    doc: str = ""
    b_doc: str = ""
    header: str = ""
    claimable: tuple[str, ...] = ()
    """Which chains' families are claimable quantities: ("w",), ("w", "b") or ()."""
    initial: Callable[[object], object] | None = None
    """The state of a fresh optimizer when it is not 0 (Adagrad's initial_accumulator_value)."""


@dataclass(frozen=True)
class OptimizerMistake:
    """A named mistake: words (en, zh), the quantity it gives (`target`; with `spreads`, it is
    named at any claimed quantity it changes), an exercise that makes it with the wrong claim,
    and `build(shape, chains)`: the replaced node definitions of its variant, or None where it
    does not apply. A mistake `at_step` is made at one step k of the run (a buffer restarted
    at step k): `build(shape, chains, k)`, tried at each k = 2…T, the diagnosis naming k."""

    name: str
    en: str
    zh: str
    build: Callable[[Hashable, list], dict | None]
    target: str = "w_steps"
    example: tuple[Mapping, Mapping] | None = None
    spreads: bool = False
    at_step: bool = False


@dataclass(frozen=True)
class OptimizerSpec:
    """One torch.optim optimizer, one coordinate at a time, in exact arithmetic.

    `shape(opt, saved)` is what decides its graph's shape (which terms apply, never the values)
    from the configured optimizer and the keys of a saved state; `nodes(shape, chain)` the
    update of one parameter as graph nodes over the steps t; `symbols` the graph inputs it
    reads (symbol name → value from the configured optimizer)."""

    name: str
    title: str
    options: tuple[Option, ...]
    slots: tuple[StateSlot, ...]
    shape: Callable[[object, frozenset], Hashable]
    nodes: Callable[[Hashable, object], list]
    symbols: Mapping[str, Callable[[object], object]]
    torch_class: str
    keeps_step: bool = True
    """A saved state holds torch's step count (all of its state or none otherwise)."""
    mistakes: tuple[OptimizerMistake, ...] = ()
    words: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    """Words of its nodes that are not state quantities (w's name and b's)."""
    refused: Mapping[str, str] = field(default_factory=dict)
    """Names that are not its options, with the reason (AdamW has no decoupled_weight_decay)."""
    check: Callable[[object], list[tuple[str, str, str]]] = lambda opt: []
    """Cross-option rules as torch enforces them: (option, what is wrong, what would be right)."""
    undefined: Callable[[object, Mapping, Exception], tuple[str, str, str]] | None = None
    """(key to blame, reason, what would be right) when a value does not exist (a division by
    zero with eps = 0, the root of a negative number)."""
    describe: Callable[[object], str] | None = None
    """How messages name a configured optimizer ("SGD with momentum"); default its name."""

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    def defaults(self) -> dict:
        return {o.name: o.default for o in self.options}

    def used_slots(self, opt) -> tuple[StateSlot, ...]:
        return tuple(s for s in self.slots if s.used(opt))

    def torch_kwargs(self, opt) -> dict:
        """Keyword arguments of the torch class, by torch's option names, exact (the
        differential tests make them floats)."""
        return {o.name: opt[o.name] for o in self.options}

    def kind_text(self, opt) -> str:
        return self.describe(opt) if self.describe else self.name


SPECS: dict[str, OptimizerSpec] = {}
"""The registered optimizers by name (filled by `registry`)."""


def registry(*specs: OptimizerSpec) -> dict[str, OptimizerSpec]:
    for s in specs:
        SPECS[s.name] = s
    return SPECS


@dataclass(frozen=True)
class Optimizer:
    """A configured optimizer: a registered name and every option's value (what is not given
    takes PyTorch's default). `opt.momentum` reads an option."""

    name: str = "sgd"
    values: tuple = ()

    @property
    def spec(self) -> OptimizerSpec:
        return SPECS[self.name]

    def __getitem__(self, option: str):
        return dict(self.values)[option]

    def __getattr__(self, option: str):
        if option.startswith("_") or option in ("name", "values"):
            raise AttributeError(option)
        for k, v in object.__getattribute__(self, "values"):
            if k == option:
                return v
        raise AttributeError(f"{self.name} has no option {option!r}")

    def options(self) -> dict:
        return dict(self.values)

    def __str__(self) -> str:
        """`adamw(betas=[0.9, 0.99], eps=1e-8, weight_decay=0.01)`: name and every option."""
        return self.shown()

    def shown(self, keys=None) -> str:
        """The name and the options in `keys` (every option when None): a student's Given line
        shows what the author wrote, `sgd(momentum=0.9)`, not every default."""
        def show(v):
            if isinstance(v, bool):
                return str(v).lower()
            if isinstance(v, tuple):
                return "[" + ", ".join(show(x) for x in v) + "]"
            return decimal_str(v)
        opts = ", ".join(f"{k}={show(v)}" for k, v in self.values if keys is None or k in keys)
        return f"{self.name}({opts})"

    @classmethod
    def make(cls, name: str = "sgd", **given) -> "Optimizer":
        if name not in SPECS:
            raise ValueError(f"unknown optimizer {name!r}; use one of {', '.join(SPECS)}")
        defaults = SPECS[name].defaults()
        unknown = set(given) - set(defaults)
        if unknown:
            raise ValueError(f"{name} has no option {sorted(unknown)[0]!r}")
        values = {**defaults, **given}
        return cls(name, tuple((k, _exact(values[k])) for k in defaults))


def _exact(v):
    """An option's value as an exact SymPy number; never parsed from text."""
    if isinstance(v, bool):
        return v
    if isinstance(v, (tuple, list)):
        return tuple(_exact(x) for x in v)
    if isinstance(v, Fraction):
        return sp.Rational(v.numerator, v.denominator)
    if isinstance(v, int):
        return sp.Integer(v)
    if isinstance(v, sp.Expr) and not v.has(sp.Float):  # proofs/ give symbols (λ, μ)
        return v
    raise TypeError("an optimizer option is exact (a number, a symbol) or a bool, "
                    f"not {type(v).__name__}")
