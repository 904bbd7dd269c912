"""`[exercise.vary]` and `[exercise.require]`: the inputs a variant may change, and the
conditions every variant's answers must meet.

    [exercise.vary]
    lr = { choices = [0.05, 0.1, 0.2] }
    "records[0][0]" = { from = 1, to = 5 }          # one element of a list input
    w = { from = -2, to = 2, step = 0.5 }
    partition = { choices = [[2, 1], [1, 2]] }       # accumulation: regroup the records

    [exercise.require]
    w_new = "places <= 2"
    gradient = ["integer", "nonzero"]
    mean_of_means = "differs from gradient"
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from derive.exercises.errors import did_you_mean
from derive.exercises.reader import Written
from derive.exercises.values import Where, kind_of, number, shown
from derive.kernel.exact import exact_sign, fixed_str, terminating_places, to_expr

MAX_RANGE = 10_000
"""Most values one `{ from, to, step }` range may hold."""

PATH = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)((?:\.rows)?(?:\[[0-9]{1,6}\])*)$", re.ASCII)
"""An input, or an element of one: w, records[0][1], records.rows[0][1] (a table of records
with named columns)."""
MAX_PLACES = 30
"""Largest d in a condition `places <= d` (as for claims)."""
CONDITIONS = ("integer", "nonzero", "positive", "negative", "places <= d", "differs from NAME")


@dataclass(frozen=True)
class Vary:
    """One input (or element) to vary: its path in [exercise.given] and its raw values."""

    key: str
    path: tuple
    values: tuple


@dataclass(frozen=True)
class Condition:
    """A requirement on a quantity: `integer`, `nonzero`, `positive`, `negative`,
    `places <= d`, or `differs from NAME`."""

    kind: str
    arg: object = None

    def holds(self, value, values: dict) -> bool:
        if self.kind == "differs":
            return _differs(value, values[self.arg])
        items = value if isinstance(value, list) else [value]
        return all(self._one(to_expr(v)) for v in _flat(items))

    def _one(self, v) -> bool:
        if self.kind == "integer":
            return bool(v.is_Integer)
        if self.kind in ("nonzero", "positive", "negative"):  # shown exactly, or not at all
            s = exact_sign(v)
            return s is not None and {"nonzero": s != 0, "positive": s == 1,
                                      "negative": s == -1}[self.kind]
        if self.kind == "places":
            places = terminating_places(v) if v.is_Rational else None
            return places is not None and places <= self.arg
        raise AssertionError(self.kind)

    def __str__(self) -> str:
        return {"differs": f"differs from {self.arg}", "places": f"places <= {self.arg}"}.get(
            self.kind, self.kind)


def _differs(a, b) -> bool:
    """Whether two values are shown to differ: exactly, or by a certified enclosure of their
    difference (log 16 − 2·log 4 does not differ from 0)."""
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            return True
        return any(_differs(x, y) for x, y in zip(a, b))
    s = exact_sign(to_expr(a) - to_expr(b))
    return s is not None and s != 0


def _flat(items):
    for v in items:
        if isinstance(v, list):
            yield from _flat(v)
        else:
            yield v


def _range(spec, where, key):
    lo = number(spec["from"], where, f"{key}.from")
    hi = number(spec["to"], where, f"{key}.to")
    step = number(spec.get("step", 1), where, f"{key}.step")
    if step <= 0:
        where.fail(f"{key}.step", f"is {step}", "a step must be positive")
    if hi < lo:
        where.fail(f"{key}.to", f"is below from ({hi} < {lo})", "write from ≤ to")
    count = int((hi - lo) / step) + 1
    if count > MAX_RANGE:
        where.fail(key, f"holds {count} values", f"at most {MAX_RANGE}: widen the step")
    return tuple(_as_raw(lo + k * step) for k in range(count))


def _as_raw(v: sp.Rational):
    """An exact value as the reader gives it, so the inputs' own validation applies."""
    if v.is_Integer:
        return int(v)
    places = terminating_places(v)
    text = fixed_str(v, places) if places is not None else f"{v.p}/{v.q}"
    return Written(v, places if places is not None else None, text)


def _lookup(raw_given, path):
    node = raw_given
    for step in path:
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                return None
        elif not isinstance(node, dict) or step not in node:
            return None
        node = node[step]
    return node


def parse_vary(raw, where: Where, raw_given: dict, recipe) -> tuple[Vary, ...]:
    if not isinstance(raw, dict):
        where.fail("vary", f"is {kind_of(raw)}", "write an [exercise.vary] table")
    inputs = [i.name for i in recipe.inputs]
    out = []
    for key, spec in raw.items():
        at = f"vary.{key}"
        if key == "partition":
            if recipe.name != "accumulation" or "microbatches" not in raw_given:
                where.fail(at, "only applies to accumulation with microbatches",
                           "vary microbatches' records instead")
            path = ("partition",)
        else:
            m = PATH.match(key)
            if not m or m.group(1) not in inputs:
                name = m.group(1) if m else key
                where.fail(at, "is not an input (or an element of one) of " + recipe.name,
                           did_you_mean(name, inputs) or f"use one of: {', '.join(inputs)}")
            rows = ("rows",) if m.group(2).startswith(".rows") else ()
            path = (m.group(1), *rows,
                    *(int(i) for i in re.findall(r"\[([0-9]+)\]", m.group(2))))
            if m.group(1) not in raw_given and len(path) > 1:
                where.fail(at, f"names an element of {m.group(1)}, which is not given",
                           f"give {m.group(1)} in [exercise.given]")
            if len(path) > 1 and _lookup(raw_given, path) is None:
                where.fail(at, "names an element that the given input does not have",
                           "count elements from 0, as in records[0][1]")
        if not isinstance(spec, dict):
            where.fail(at, f"is {kind_of(spec)}",
                       "write { from = a, to = b, step = s } or { choices = [...] }")
        if "choices" in spec:
            if set(spec) != {"choices"} or not isinstance(spec["choices"], list) or \
                    not spec["choices"]:
                where.fail(at, "needs a nonempty list in choices, and nothing else",
                           "write { choices = [a, b, c] }")
            values = tuple(spec["choices"])
        elif "from" in spec and "to" in spec and set(spec) <= {"from", "to", "step"}:
            values = _range(spec, where, at)
        else:
            where.fail(at, "is neither a range nor a list of choices",
                       "write { from = a, to = b, step = s } or { choices = [...] }")
        _validate(values, path, recipe, where, at, "choices" in spec)
        out.append(Vary(key, path, values))
    return tuple(out)


def _validate(values, path, recipe, where: Where, at: str, choices: bool) -> None:
    """Every value a variant may take is checked as the input it replaces would be: a number
    for an element, the input's own kind for a whole input, sizes for a partition."""
    from derive.exercises.schema import convert

    kinds = {i.name: i.kind for i in recipe.inputs}
    for k, v in enumerate(values):
        here = f"{at}.choices[{k}]" if choices else f"{at} (its value {shown(v)})"
        if path == ("partition",):
            if not (isinstance(v, list) and v and all(
                    isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in v)):
                where.fail(here, f"is {shown(v)}", "write microbatch sizes such as [2, 1]")
        elif len(path) > 1:
            number(v, where, here)
        else:
            convert(kinds[path[0]], v, where, here)


def parse_require(raw, where: Where, names: list[str]) -> dict[str, tuple[Condition, ...]]:
    if not isinstance(raw, dict):
        where.fail("require", f"is {kind_of(raw)}", "write an [exercise.require] table")
    out = {}
    for name, spec in raw.items():
        at = f"require.{name}"
        if name not in names:
            where.fail(at, "is not a quantity of this exercise",
                       did_you_mean(name, names) or f"use one of: {', '.join(names)}")
        texts = spec if isinstance(spec, list) else [spec]
        conditions = []
        for text in texts:
            if not isinstance(text, str):
                where.fail(at, f"holds {kind_of(text)}", f"write conditions as text: "
                           f"{', '.join(CONDITIONS)}")
            t = " ".join(text.split())
            if t in ("integer", "nonzero", "positive", "negative"):
                conditions.append(Condition(t))
            elif m := re.fullmatch(r"places\s*<=\s*([0-9]{1,3})", t, re.ASCII):
                if int(m.group(1)) > MAX_PLACES:
                    where.fail(at, f"allows {m.group(1)} places", f"at most {MAX_PLACES}")
                conditions.append(Condition("places", int(m.group(1))))
            elif m := re.fullmatch(r"differs from ([a-z_0-9]+)", t, re.ASCII):
                if m.group(1) not in names:
                    where.fail(at, f"compares with {shown(m.group(1))}, not a quantity here",
                               did_you_mean(m.group(1), names) or "name a quantity")
                conditions.append(Condition("differs", m.group(1)))
            else:
                where.fail(at, f"has the condition {shown(text)}",
                           f"use: {', '.join(CONDITIONS)}")
        out[name] = tuple(conditions)
    return out
