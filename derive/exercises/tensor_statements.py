"""Statements over tensors of symbolic size in TOML (issue 36): a [[statement]] whose
[statement.given] declares `sizes` and `tensors`, its sides written in the tensor language as a
lecturer writes them (derive/graph/sized_language.py), decided entry by entry.

    [statement.given]
    sizes = ["C"]                            # positive integers, by name
    tensors = { z = "(C,)", y = "(C,)" }     # shapes as torch prints them; "()" a number

The identity lhs = rhs of tensors of shape (m, n) is the identity of their entries [p, q] for
free indices 1 ≤ p ≤ m, 1 ≤ q ≤ n (sized.entrywise), which the kernel decides for every size.
An assumption about a tensor (`z1 != 0`, `y >= 0`) is about every entry; `sum(y) = 1`, an
equation of numbers, is a fact the kernel substitutes. Nothing in the file is evaluated: names
and shapes are read by the rules here, formulas by the tensor language's parser.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import sympy as sp

from derive.exercises.values import kind_of, shown
from derive.graph import sized
from derive.graph.formula_limits import FormulaError, FormulaNotSupported
from derive.graph.sized import Sized
from derive.graph.sized_language import (
    MAX_SIZES,
    SIZED_OPS,
    ShapeError,
    canonical,
    parse_sized,
    read_shape,
)
from derive.graph.tensor import shown as _shape
from derive.graph.tensor_language import _CALLED
from derive.kernel import InvalidClaim, NotSupported, hypothesis, nonzero, positive
from derive.kernel import facts as kernel_facts

KEYS = ("sizes", "tensors")
"""The keys of [statement.given] that make a statement one over tensors."""
MAX_TENSORS = 20
"""Most declared tensors (and numbers) of one statement."""
DOCS = "see docs/writing-statements.md#tensor-statements-in-toml"
FORMULAS = "see docs/formulas.md#vectors-and-matrices"

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]{0,30}")
_TAKEN = frozenset({*_CALLED, "pi", "True", "False"}) - {"d"}
"""Words a declared name may not be: the tensor language's functions; d (d(…)/d(…) in the
scalar language) is the attention's dimension, a name when no bracket follows it."""
_INDEX_LETTERS = "pqrsjlituvwabcdefgh"
"""The free indices of an entry-wise claim, the first letters no declared name takes."""


def is_tensor_statement(given: object) -> bool:
    return isinstance(given, dict) and any(k in given for k in KEYS)


def _sizes(raw: object, at) -> dict[str, sp.Symbol]:
    if not isinstance(raw, list) or not all(isinstance(s, str) for s in raw):
        at.fail("given.sizes", f"is {kind_of(raw)}", "write a list of names, such as "
                "sizes = [\"m\", \"n\"]")
    if len(raw) > MAX_SIZES:
        at.fail("given.sizes", f"has {len(raw)} names", f"at most {MAX_SIZES}")
    out: dict[str, sp.Symbol] = {}
    for name in raw:
        if not _NAME.fullmatch(name) or name in _TAKEN:
            why = "is a word of the formula language" if name in _TAKEN else "is not a name"
            at.fail("given.sizes", f"{shown(name)} {why}",
                    "name each size by ASCII letters and digits, such as \"C\" or \"d1\"")
        if name in out:
            at.fail("given.sizes", f"{shown(name)} is declared twice", "declare each size once")
        out[name] = sized.size(name)
    return out


def _tensors(raw: object, sizes: dict, at) -> dict[str, Sized]:
    if not isinstance(raw, dict):
        at.fail("given.tensors", f"is {kind_of(raw)}",
                "write a table of names and shapes, such as tensors = { z = \"(C,)\" }")
    if len(raw) > MAX_TENSORS:
        at.fail("given.tensors", f"has {len(raw)} names", f"at most {MAX_TENSORS}")
    out: dict[str, Sized] = {}
    for name, shape in raw.items():
        key = f"given.tensors.{name}"
        word = canonical(name) if isinstance(name, str) else name
        if not (isinstance(word, str) and _NAME.fullmatch(word)) or word in _TAKEN:
            why = ("is a word of the formula language" if word in _TAKEN
                   else "is not a name")
            at.fail(key, f"{shown(name)} {why}", "name a tensor by letters and digits, such "
                    "as \"W1\", \"z\" or \"δ\"")
        if word in sizes:
            at.fail(key, f"the tensor {shown(name)} has the name of a size",
                    "give the tensor and the size different names")
        if word in out:
            at.fail(key, f"{shown(name)} is {word}, declared twice", "declare each tensor once")
        if not isinstance(shape, str):
            at.fail(key, f"is {kind_of(shape)}", "write its shape as text, such as \"(m, n)\"")
        try:
            dims = read_shape(shape, sizes)
        except ShapeError as exc:
            at.fail(key, exc.problem, exc.expected)
        out[word] = sized.given(word, *dims)
    return out


def _names(sizes: dict, tensors: dict) -> dict[str, Sized]:
    """What a formula's names mean: each tensor, and each size as the number it is (eps/C)."""
    return {**{n: sized.scalar(s) for n, s in sizes.items()}, **tensors}


def _parsed(text: object, key: str, at, names: dict, whole: str | None = None,
            offset: int = 0) -> Sized:
    if not isinstance(text, str):
        at.fail(key, "is missing" if text is None else f"is {kind_of(text)}",
                f"write {key} as a tensor formula in quotes, such as \"softmax(z) - y\"")
    try:
        return parse_sized(text, names)
    except FormulaNotSupported as exc:
        at.unsupported(key, f"{shown(whole or text)}: {exc}", FORMULAS)
    except FormulaError as exc:
        message = str(exc)
        if exc.column is not None and offset:
            message = message.rsplit(" at column ", 1)[0] + f" at column {exc.column + offset}"
        at.fail(key, f"{shown(whole or text)}: {message}", FORMULAS)
    except (ValueError, TypeError, IndexError, RecursionError) as exc:  # a form sized.py refuses
        at.unsupported(key, f"{shown(whole or text)}: {type(exc).__name__}: {exc}", FORMULAS)


def _expanded(t: Sized, shape: tuple) -> Sized:
    """t broadcast to `shape` as torch does: a size 1 or a missing dimension repeats."""
    if t.shape == shape:
        return t
    lead = len(shape) - t.ndim
    return Sized(shape, lambda *i: t.at(*(sp.S.One if s == 1 else j
                                           for s, j in zip(t.shape, i[lead:]))))


def _free(shape, taken: set[str]) -> tuple[sp.Symbol, ...]:
    letters = [c for c in _INDEX_LETTERS if c not in taken]
    return tuple(sized.index(letters[k]) for k in range(len(shape)))


def _ranges(idx, shape) -> list:
    facts = []
    for i, n in zip(idx, shape):
        facts += [hypothesis(i - 1, f"{i} ≥ 1"), hypothesis(n - i, f"{i} ≤ {n}")]
    return facts


COMPARISONS = (">=", "<=", "!=", "==", "≥", "≤", "≠", ">", "<", "=")
_COMPARISON = re.compile("|".join(re.escape(c) for c in COMPARISONS))
_RELATIONS = {">=": ">=", "≥": ">=", ">": ">", "!=": "!=", "≠": "!=", "<=": "<=", "≤": "<=",
              "<": "<", "=": "=", "==": "="}


def _outside_brackets(text: str) -> list[re.Match]:
    """The comparisons of a fact outside brackets: the = of a keyword (sum(Y, dim=1) = 1) is
    not one."""
    depth, marks = 0, []
    for ch in text:
        depth += (ch in "([{") - (ch in ")]}")
        marks.append(depth)
    return [m for m in _COMPARISON.finditer(text) if marks[m.start()] == 0]


def _every(fact, idx, shape, text: str, key: str, at):
    """A fact about every entry: the kernel's every-entry fact over the indices' ranges."""
    every = getattr(kernel_facts, "every", None)
    if every is None:
        at.unsupported(key, f"{shown(text)}: a fact about every entry of a tensor needs the "
                       "kernel's every-entry facts, which this build does not have",
                       "state the fact about a number, such as \"eps > 0\"")
    return every(fact, *((i, 1, n) for i, n in zip(idx, shape)))


def _equal(difference, text: str):
    """difference = 0, a fact the kernel substitutes (Σ_c y_c = 1): its equality fact where it
    has one, else the two inequalities it reads as one equality."""
    equal = getattr(kernel_facts, "equal", None)
    if equal is not None:
        return list(equal(difference, text))
    return [hypothesis(difference, text), hypothesis(-difference, text)]


def _assumptions(raw: object, at, names: dict, taken: set[str], most: int):
    """The facts of the assumptions, and each every-entry fact at one entry (with its
    range), so that facts that cannot hold together at one entry are refused as such."""
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        at.fail("assumptions", f"is {kind_of(raw)}",
                "write a list of facts as text, such as assumptions = [\"sum(y) = 1\"]")
    if len(raw) > most:
        at.fail("assumptions", f"has {len(raw)} facts", f"at most {most}")
    facts: list = []
    instances: list = []  # each every-entry fact at one entry: z > 0 and z < 0 clash there
    for n, text in enumerate(raw):
        key = f"assumptions[{n}]"
        found = _outside_brackets(text)
        if len(found) != 1:
            at.fail(key, f"{shown(text)} has {len(found) or 'no'} comparisons",
                    "write one comparison, such as \"sum(y) = 1\", \"z1 != 0\" or \"eps > 0\"")
        m = found[0]
        left = _parsed(text[:m.start()], key, at, names, whole=text)
        right = _parsed(text[m.end():], key, at, names, whole=text, offset=m.end())
        relation = _RELATIONS[m.group()]
        try:
            difference = SIZED_OPS.binary("-", left, right) if relation in (
                ">=", ">", "!=", "=") else SIZED_OPS.binary("-", right, left)
        except FormulaError as exc:
            at.fail(key, f"{shown(text)}: {str(exc).rsplit(' at column ', 1)[0]}",
                    "compare a tensor with a number or with a tensor of its shape")
        idx = _free(difference.shape, taken)
        entry = difference.at(*idx)
        try:
            if relation == "=":  # per entry (each row of Y sums to 1) when it has a shape
                pair = _equal(entry, text)
                if difference.shape:
                    facts += [_every(f, idx, difference.shape, text, key, at) for f in pair]
                    instances += [*pair, *_ranges(idx, difference.shape)]
                else:
                    facts += pair
                continue
            make = {">=": hypothesis, "<=": hypothesis, ">": positive, "<": positive,
                    "!=": nonzero}[relation]
            fact = make(entry, text)
            if difference.shape:
                facts.append(_every(fact, idx, difference.shape, text, key, at))
                instances += [fact, *_ranges(idx, difference.shape)]
            else:
                facts.append(fact)
        except NotSupported as exc:
            at.unsupported(key, f"{shown(text)}: {exc}")
        except (InvalidClaim, ValueError) as exc:
            at.fail(key, f"{shown(text)}: {exc}", "write a fact that can hold")
    return facts, instances


def tensor_statement(table: dict, at, consistent: Callable, most: int) -> dict:
    """The parts of a Statement over tensors: lhs, rhs (one entry each), facts, notes (the
    declarations and the entry decided, in words), sizes, free indices, the sides as written
    and the declared names; its assumptions are the author's own. `consistent(facts, at)`
    refuses facts that cannot hold together."""
    given = table["given"]
    for key in given:
        if key not in KEYS:
            at.fail(f"given.{key}", "is not a key of [statement.given] of a statement over "
                    "tensors", "use sizes and tensors (a window and functions are for scalar "
                    "statements)")
    if "search" in table:
        at.fail("search", "is a search of the microbatches window",
                "leave it out: the kernel searches the smallest sizes first")
    sizes = _sizes(given.get("sizes", []), at)
    tensors = _tensors(given.get("tensors", {}), sizes, at)
    names = _names(sizes, tensors)
    lhs = _parsed(table.get("lhs"), "lhs", at, names)
    rhs = _parsed(table.get("rhs"), "rhs", at, names)
    try:
        shape = SIZED_OPS.binary("-", lhs, rhs).shape  # torch's broadcasting: "= 1" per row
    except FormulaError:
        at.fail("rhs", f"has shape {_shape(rhs.shape)} and lhs {_shape(lhs.shape)}",
                "write two sides of one shape (or one a number): the identity holds entry "
                "by entry")
    lhs, rhs = _expanded(lhs, shape), _expanded(rhs, shape)
    taken = set(sizes) | set(tensors)
    idx = _free(lhs.shape, taken)
    ranges = _ranges(idx, lhs.shape)
    every = taken | {i.name for i in idx}  # an every-entry fact's indices are its own
    stated, instances = _assumptions(table.get("assumptions", []), at, names, every, most)
    facts = ranges + stated
    consistent(tuple(facts + instances), at)
    try:
        left, right = lhs.at(*idx), rhs.at(*idx)
    except (ValueError, TypeError) as exc:
        at.unsupported(None, f"{type(exc).__name__}: {exc}", FORMULAS)
    declared = [f"{n} of shape {_shape(t.shape)}" for n, t in tensors.items()]
    words = ([f"sizes {', '.join(sizes)}: positive integers"] if sizes else []) + (
        [", ".join(declared) + ": real entries"] if declared else [])
    ranges_text = tuple(f"1 ≤ {i} ≤ {n}" for i, n in zip(idx, lhs.shape))
    notes = tuple(words) + ((f"entry-wise: the entry [{', '.join(map(str, idx))}] of each "
                             f"side, {', '.join(ranges_text)}",) if idx else ())
    shapes = {**{n: () for n in sizes}, **{n: tuple(map(str, t.shape))
                                           for n, t in tensors.items()}}
    return dict(lhs=left, rhs=right, facts=tuple(facts), assumptions=(),
                notes=notes, sizes=tuple(sizes), indices=ranges_text,
                written=(table["lhs"], table["rhs"]), names=tuple(shapes.items()))
