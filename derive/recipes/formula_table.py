"""The formulas recipe's reading of an exercise (docs/authoring.md): the names an author may
give, the givens' kinds (numbers, records, microbatches, steps), the records' columns and the
`[exercise.define]` table, each checked with one clear line on what is wrong."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from derive.graph import Family, lesson
from derive.graph.language import ALIASES, CONSTANTS, FUNCTIONS

NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]{2,})*\Z")
"""A quantity's or a given's name: w, lr, beta1, w_new, b_gradient (a part after "_" has two or
more characters: a single letter or digits after "_" is an index, as in x_i and w_0)."""
MAX_NAME = 30
MAX_DEFINES = 100
"""Most quantities one exercise may define."""
MAX_STEPS = 10_000
"""Most steps a recurrence may run (`steps`)."""
MAX_OPS = 20_000
"""Largest derivative, in SymPy operations, that a quantity may become once taken."""

RECORDS, MICROBATCHES, STEPS = "records", "microbatches", "steps"
TABLES = (RECORDS, MICROBATCHES, STEPS)
"""Givens that are not numbers: the records (a table with named columns), the records grouped
into microbatches, and the number of steps of a recurrence."""
WORDS = frozenset({*FUNCTIONS, *CONSTANTS, "min", "max", "grad", "sum", "mean", "in", "j",
                   *TABLES})
"""Names no author may give: the language's functions and words, π, the elements' index j and
the tables' keys."""
BY_TABLE = {
    RECORDS: frozenset({"i", "N"}),
    MICROBATCHES: frozenset({"i", "N", "k", "K", "n", "c", "B"}),
    STEPS: frozenset({"t", "T"}),
}
"""Names an exercise's families take, reserved only where that family is given: records
i = 1…N; microbatches k = 1…K of n_k records, boundaries c_k, blocks B_k; steps t = 1…T. So an
exercise without steps may name a temperature T, and one without microbatches a count n, a
class c or a batch size B (issue 35: 30 names were reserved everywhere)."""
RESERVED = WORDS | frozenset().union(*BY_TABLE.values())
"""Every name reserved in some exercise."""


def reserved(tables) -> frozenset[str]:
    """The names reserved in an exercise whose givens include `tables`."""
    return WORDS.union(*(BY_TABLE[t] for t in tables if t in BY_TABLE))


DEFAULT_COLUMNS = ("x", "y")

FAMILIES = {
    "i": Family(RECORDS, lesson.i, lesson.N),
    "k": Family(MICROBATCHES, lesson.k, lesson.K),
    "t": Family(STEPS, lesson.t, lesson.T),
}


class DefineError(ValueError):
    """An author's derivation that is not valid (`supported`) or asks for more than derive does:
    the key, what is wrong, what would be right."""

    def __init__(self, key: str, problem: str, expected: str = "", supported: bool = True):
        super().__init__(f"{key}: {problem}")
        self.key, self.problem, self.expected, self.supported = key, problem, expected, supported


@dataclass(frozen=True)
class Rows:
    """Records as the exercise gives them: named columns, exact rows, and for microbatches the
    number of records in each (the rows of microbatch 1 first)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[sp.Rational, ...], ...]
    sizes: tuple[int, ...] | None = None


def canonical(name: str) -> str:
    """The name a formula reads for what the author wrote (lr is η, theta is θ)."""
    return ALIASES.get(name, name)


def check_name(name, key: str, what: str, taken: frozenset[str] = RESERVED) -> str:
    """A valid name for a given, a column or a quantity, else DefineError (`taken`: the
    names reserved in this exercise)."""
    if not isinstance(name, str) or not NAME.match(name) or len(name) > MAX_NAME:
        shown = name if isinstance(name, str) and len(name) <= MAX_NAME else "this name"
        raise DefineError(key, f"{shown!r} is not a name for {what}",
                          "write letters and digits, parts joined by '_' of two or more "
                          "characters (w_new, b_gradient, x1), at most 30 characters")
    if name in taken or canonical(name) in taken:
        word = name if name in taken else canonical(name)
        family = next((t for t, names in BY_TABLE.items() if word in names and word not in
                       WORDS), None)
        why = (f"in an exercise with {family} it is the family's " +
               ("index" if word.islower() and word in "ikt" else "own name")) if family else \
            "the formula language reads it"
        raise DefineError(key, f"{name!r} is a reserved name ({why})",
                          f"choose another, such as {name}0; taken here: "
                          + ", ".join(sorted(taken, key=str.lower)))
    return name


def columns_of(raw, key: str, taken: frozenset[str] = RESERVED) -> tuple[str, ...]:
    """The column names of a records table as written: `{ columns = [...], rows = [...] }`,
    or [x, y] for a plain list of pairs."""
    if not isinstance(raw, dict):
        return DEFAULT_COLUMNS
    cols = raw.get("columns")
    if not isinstance(cols, list) or not cols or len(cols) > 50:
        raise DefineError(f"{key}.columns", "is missing or not a list of 1 to 50 names",
                          'write columns = ["x", "y"] (or ["x1", "x2", "y"])')
    out = tuple(check_name(c, f"{key}.columns", "a column", taken) for c in cols)
    if len({canonical(c) for c in out}) != len(out):
        raise DefineError(f"{key}.columns", "names one column twice", "give each column once")
    return out


@dataclass(frozen=True)
class _Define:
    name: str
    text: str
    start: str | None
    title: str = ""
    title_zh: str = ""


MAX_TITLE = 200
DEFINE_KEYS = ("formula", "start", "title", "title_zh")


def _defines(raw, taken: frozenset[str] = RESERVED) -> tuple[_Define, ...]:
    if not isinstance(raw, dict) or not raw:
        raise DefineError("define", "is missing or empty",
                          'write an [exercise.define] table: loss = "mean_i((w*x_i - y_i)^2/2)"')
    if len(raw) > MAX_DEFINES:
        raise DefineError("define", f"has {len(raw)} quantities",
                          f"at most {MAX_DEFINES}", supported=False)
    out = []
    for name, value in raw.items():
        key = f"define.{name}"
        check_name(name, key, "a quantity", taken)
        if isinstance(value, str):
            out.append(_Define(name, value, None))
        elif isinstance(value, dict):
            unknown = sorted(set(value) - set(DEFINE_KEYS))
            if unknown:
                raise DefineError(f"{key}.{unknown[0]}", "is not a key of a quantity",
                                  "use " + ", ".join(DEFINE_KEYS))
            if not all(isinstance(value.get(k, ""), str) for k in DEFINE_KEYS) or \
                    "formula" not in value:
                raise DefineError(key, "is a table without a formula as text",
                                  'write { formula = "w_{t-1} - lr*g_t", start = "w0", '
                                  'title = "The weight after step t" }')
            for k in ("title", "title_zh"):
                if len(value.get(k, "")) > MAX_TITLE:
                    raise DefineError(f"{key}.{k}", f"has {len(value[k])} characters",
                                      f"at most {MAX_TITLE}")
            out.append(_Define(name, value["formula"], value.get("start"),
                               value.get("title", ""), value.get("title_zh", "")))
        else:
            raise DefineError(key, "is not a formula",
                              'write the formula as text: loss = "mean_i(ell_i)"')
    return tuple(out)


def _kinds(raw_given: Mapping) -> dict[str, str]:
    """The kind of each given (derive.exercises.schema converts it): a (nested) list is a
    tensor (`tensor_shape` reads its shape)."""
    out = {}
    for name, value in raw_given.items():
        if name == STEPS:
            out[name] = "steps"
        elif name in (RECORDS, MICROBATCHES):
            out[name] = "rows" if name == RECORDS else "row_groups"
        elif isinstance(value, list):
            check_name(name, f"given.{name}", "a given", reserved(raw_given))
            tensor_shape(value, f"given.{name}")
            out[name] = TENSOR
        else:
            check_name(name, f"given.{name}", "a given", reserved(raw_given))
            if isinstance(value, str) and not _looks_numeric(value):
                raise DefineError(f"given.{name}", f"is the text {value[:40]!r}",
                                  "a given is a number; write formulas in [exercise.define]")
            out[name] = "number"
    if RECORDS in out and MICROBATCHES in out:
        raise DefineError("given.microbatches", "is given with records",
                          "give the records once: as records, or grouped as microbatches")
    return out


TENSOR = "tensor"
"""The kind of a given written as a (nested) list: a vector, a matrix, up to 4 dimensions."""
MAX_DIMS = 4
MAX_ENTRIES = 256
"""Most dimensions and entries of one tensor given: every entry is a symbol of the graph, and
every quantity that reads the tensor one node per entry."""


def tensor_shape(raw: list, key: str) -> tuple[int, ...]:
    """The shape of a given written as a nested list, read from the data: every row of one
    level the same length (torch.tensor refuses a ragged list too), 1 to 4 dimensions, at most
    256 entries; an entry is a number, read by derive.exercises.schema as a scalar given is."""
    def shape_of(v, at: str) -> tuple[int, ...]:
        if isinstance(v, dict):
            raise DefineError(at, "is a table inside a tensor",
                              "write a tensor as nested lists of numbers: [[1, -1], [2, 0.5]]")
        if isinstance(v, bool):
            raise DefineError(at, "is a boolean", "write a number such as 0.5 or \"1/3\"")
        if not isinstance(v, list):
            return ()
        if not v:
            raise DefineError(at, "is an empty list",
                              "a tensor has at least one entry per dimension: x = [2, 1]")
        first = shape_of(v[0], f"{at}[0]")
        for m, row in enumerate(v[1:], 1):
            got = shape_of(row, f"{at}[{m}]")
            if got != first:
                expected = ("every row of a matrix has the same length" if len(first) == 1
                            and len(got) == 1 else "every row of a tensor has the same shape"
                            if first and got else "a row holds numbers only or lists only")
                raise DefineError(f"{at}[{m}]", _ragged(got, first, f"{at}[0]"), expected)
        return (len(v), *first)

    shape = shape_of(raw, key)
    if len(shape) > MAX_DIMS:
        raise DefineError(key, f"has {len(shape)} dimensions",
                          f"at most {MAX_DIMS}", supported=False)
    size = 1
    for n in shape:
        size *= n
    if size > MAX_ENTRIES:
        raise DefineError(key, f"has {size} entries", f"at most {MAX_ENTRIES} per tensor",
                          supported=False)
    return shape


def _ragged(got: tuple[int, ...], first: tuple[int, ...], first_key: str) -> str:
    """How a row differs from the first: a number for a list, its length, or its shape."""
    if not got:
        return f"is a number where {first_key} is a list of {first[0]}"
    if not first:
        return f"is a list of {got[0]} where {first_key} is a number"
    if len(got) == len(first) == 1:
        return f"has {got[0]} entries where {first_key} has {first[0]}"
    return f"has shape {_dims(got)} where {first_key} has shape {_dims(first)}"


def _dims(shape: tuple[int, ...]) -> str:
    return "×".join(str(n) for n in shape) if shape else "()"


def _looks_numeric(text: str) -> bool:
    return bool(re.fullmatch(r"\s*[-+]?[0-9./eE+\- ]+\s*", text))


def _quoted(text: str) -> str:
    shown = text if len(text) <= 60 else text[:59] + "…"
    return '"' + shown.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unknown(name: str, known, indexed: bool = False) -> str:
    return f"reads {name!r}, which is not a given, a column or an earlier quantity"


def _hint(name: str, known) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    names = ", ".join(sorted(known)[:20]) or "none"
    return (f"did you mean {close[0]!r}? " if close else "") + (
        f"names here: {names} (define quantities in derivation order)")
