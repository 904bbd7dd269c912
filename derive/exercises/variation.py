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
    loss_new = "< loss"                              # a relation: loss_new < loss
    toward = "w"                                     # the update moves w toward the target

A relation is read by a tiny grammar, `[NAME] OP OPERAND` with OP one of < <= > >= == != and
OPERAND a quantity, a given input or an exact number; nothing in it is ever evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from derive.exercises.errors import did_you_mean
from derive.exercises.reader import Written
from derive.exercises.values import Where, kind_of, number, shown
from derive.kernel.exact import (
    ExactNumberError,
    exact_sign,
    fixed_str,
    parse_exact,
    terminating_places,
    to_expr,
)
from derive.optimizers import REGISTRY

MAX_RANGE = 10_000
"""Most values one `{ from, to, step }` range may hold."""

PATH = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)((?:\.rows)?(?:\[[0-9]{1,6}\])*)$", re.ASCII)
"""An input, or an element of one: w, records[0][1], records.rows[0][1] (a table of records
with named columns)."""
OPTION_PATH = re.compile(r"^optimizer\.([A-Za-z][A-Za-z0-9_]*)((?:\[[0-9]{1,6}\])*)$", re.ASCII)
"""One option of the optimizer table: optimizer.momentum, optimizer.betas[0]."""
RELATION = re.compile(r"^(?:([A-Za-z_][A-Za-z0-9_]*) ?)?(<=|>=|==|!=|<|>) ?([^ ]+)$", re.ASCII)
"""`[NAME] OP OPERAND` (spaces already collapsed to one): the whole grammar of a relation."""
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$", re.ASCII)
MAX_CONDITION = 200
"""Longest condition text read."""
OPERATORS = {"<": (-1,), "<=": (-1, 0), ">": (1,), ">=": (0, 1), "==": (0,), "!=": (-1, 1)}
"""Each relation's allowed signs of left − right, decided exactly."""
TOWARD = "toward"
"""The require key of "the update moves w toward the target": `toward = "w"`."""
MAX_PLACES = 30
"""Largest d in a condition `places <= d` (as for claims)."""
CONDITIONS = ("integer", "nonzero", "positive", "negative", "places <= d", "differs from NAME",
              "OP NAME or OP NUMBER with OP one of < <= > >= == !=")


@dataclass(frozen=True)
class Vary:
    """One input (or element) to vary: its path in [exercise.given] and its raw values."""

    key: str
    path: tuple
    values: tuple
    default: tuple | None = None
    """An element of an option not written in [exercise.given] (`optimizer.betas[1]` without
    betas): the option's default as written values, which a variant writes out before
    changing its element."""


@dataclass(frozen=True)
class Condition:
    """A requirement on a quantity: `integer`, `nonzero`, `positive`, `negative`,
    `places <= d`, or `differs from NAME`."""

    kind: str
    arg: object = None

    def holds(self, value, values: dict, given: dict | None = None) -> bool:
        if self.kind == "differs":
            return _differs(value, values[self.arg])
        if self.kind == "relation":
            op, where, operand = self.arg
            other = (values.get(operand) if where == "quantity" else
                     (given or {}).get(operand) if where == "given" else operand)
            return other is not None and _relation(value, other, OPERATORS[op])
        if self.kind == "toward":
            return _toward(values, given or {}, self.arg)
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
        if self.kind == "relation":
            return f"{self.arg[0]} {self.arg[2]}"
        if self.kind == "toward":
            return "moves w toward the target"
        return {"differs": f"differs from {self.arg}", "places": f"places <= {self.arg}"}.get(
            self.kind, self.kind)


def _relation(a, b, signs) -> bool:
    """a OP b, decided exactly: the sign of a − b by exact arithmetic or a certified enclosure;
    a sign that cannot be told fails (the variant is rejected, never accepted on a guess).
    Lists compare element by element (same length), a list with a number element-wise."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            return len(a) == len(b) and all(_relation(x, y, signs) for x, y in zip(a, b))
        items, other, left = (a, b, True) if isinstance(a, (list, tuple)) else (b, a, False)
        return bool(items) and all(_relation(x, other, signs) if left else
                                   _relation(other, x, signs) for x in items)
    try:
        s = exact_sign(to_expr(a) - to_expr(b))
    except (TypeError, ValueError):
        return False
    return s is not None and s in signs


def target_w(recipe: str, given: dict):
    """w*, the w that minimises the loss the updates descend, with b held at its given value
    (0 without b); None when every w minimises it (Σ x² = 0) or the records are not (x, y)
    pairs. One batch (`records`; for `accumulation` the records of all its microbatches):
    w* = Σ x·(y − b) / Σ x² over its records. `optimizer_steps` with `batches`, a batch of its
    own at each step: the mean of the steps' batch losses (1/T) Σ_t L_t(w), each L_t a mean
    over its n_t records, so w* = Σ_t (1/n_t) Σ x·(y − b) / Σ_t (1/n_t) Σ x² (with batches
    of one size, the least-squares w of all their records together). None for a vector w."""
    if recipe == "formulas":
        batches = _xy_records(given.get("records"))
    elif recipe == "accumulation":
        groups = given.get("microbatches")
        batches = [[r for g in groups for r in g]] if isinstance(groups, list) else None
    elif recipe == "optimizer_steps" and given.get("batches") is not None:
        batches = given.get("batches")
    else:
        batches = [given.get("records")]
    if not isinstance(batches, (list, tuple)) or not batches or not all(
            isinstance(rs, (list, tuple)) and rs and all(
                isinstance(r, (list, tuple)) and len(r) == 2
                and not isinstance(r[0], (list, tuple)) for r in rs) for rs in batches):
        return None  # (a vector x, of a vector w: no one w* of this formula)
    b = to_expr(given.get("b") or 0)
    sxx = sum((sp.Rational(1, len(rs)) * sum((to_expr(x) ** 2 for x, _ in rs), sp.S.Zero)
               for rs in batches), sp.S.Zero)
    if sxx == 0:
        return None
    sxy = sum((sp.Rational(1, len(rs)) * sum((to_expr(x) * (to_expr(y) - b) for x, y in rs),
                                             sp.S.Zero) for rs in batches), sp.S.Zero)
    return sxy / sxx


def _toward(values: dict, given: dict, recipe) -> bool:
    """|w_after − w*| < |w − w*|, decided exactly: w_after is `w_new`, or the last of
    `w_steps`; w* as `target_w` says. For `formulas` (recipe is ("formulas", before, after)):
    w is the given `before`, w_after the quantity `after` (its last step for a recurrence)."""
    if isinstance(recipe, tuple):
        _, before, name = recipe
        w, star, after = given.get(before), target_w("formulas", given), values.get(name)
        if isinstance(after, list):
            after = after[-1] if after else None
    else:
        w, star = given.get("w"), target_w(recipe, given)
        after = values.get("w_steps", [None])[-1] if "w_steps" in values else \
            values.get("w_new")
    if w is None or star is None or after is None or isinstance(after, list):
        return False
    return _relation(sp.Abs(to_expr(after) - star), sp.Abs(to_expr(w) - star), (-1,))


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


def parse_vary(raw, where: Where, raw_given: dict, recipe, convert,
               option_kinds: dict[str, str]) -> tuple[Vary, ...]:
    """The [exercise.vary] table; `convert` (schema.convert) checks a value as the input it
    replaces, `option_kinds` (schema.OPTIMIZER_KINDS) an optimizer option's: passed in, as
    schema imports this module."""
    if not isinstance(raw, dict):
        where.fail("vary", f"is {kind_of(raw)}", "write an [exercise.vary] table")
    inputs = [i.name for i in recipe.inputs]
    out = []
    for key, spec in raw.items():
        at, default = f"vary.{key}", None
        if key == "partition":
            if recipe.name != "accumulation" or "microbatches" not in raw_given:
                where.fail(at, "only applies to accumulation with microbatches",
                           "vary microbatches' records instead")
            path = ("partition",)
            if isinstance(spec, dict) and "targets" in spec:
                spec = dict(spec)
                out += _targets(spec.pop("targets"), where, f"{at}.targets", raw_given)
        elif key.startswith("optimizer.") and "optimizer" in inputs:
            path, default = _option_path(key, where, at, raw_given)
        else:
            m = PATH.match(key)
            if not m or m.group(1) not in inputs:
                name = m.group(1) if m else key
                where.fail(at, "is not an input (or an element of one) of " + recipe.name,
                           did_you_mean(name, inputs) or f"use one of: {', '.join(inputs)}")
            table = raw_given.get(m.group(1))
            columns = isinstance(table, dict) and "rows" in table  # records as columns
            rows = ("rows",) if m.group(2).startswith(".rows") or (
                columns and m.group(2).startswith("[")) else ()
            path = (m.group(1), *rows,
                    *(int(i) for i in re.findall(r"\[([0-9]+)\]", m.group(2))))
            if m.group(1) not in raw_given and len(path) > 1:
                where.fail(at, f"names an element of {m.group(1)}, which is not given",
                           f"give {m.group(1)} in [exercise.given]")
            if len(path) > 1 and _lookup(raw_given, path) is None:
                where.fail(at, "names an element that the given input does not have",
                           "count elements from 0, as in records[0][1]")
        values = _spec_values(spec, where, at)
        _validate(values, path, recipe, where, at, "choices" in spec, convert, option_kinds,
                  raw_given)
        out.insert(len(out) - sum(1 for v in out if v.path[:2] == ("partition", "targets")
                                  and v.key.startswith(f"{key}.")), Vary(key, path, values,
                                                                         default))
    return tuple(out)


def _spec_values(spec, where: Where, at: str) -> tuple:
    """The values one `[exercise.vary]` entry lists: `{ choices = [...] }` (nonempty, and
    nothing else) or a range `{ from = a, to = b, step = s }`."""
    if not isinstance(spec, dict):
        where.fail(at, f"is {kind_of(spec)}",
                   "write { from = a, to = b, step = s } or { choices = [...] }")
    if "choices" in spec:
        if set(spec) != {"choices"} or not isinstance(spec["choices"], list) or \
                not spec["choices"]:
            where.fail(at, "needs a nonempty list in choices, and nothing else",
                       "write { choices = [a, b, c] }")
        return tuple(spec["choices"])
    if "from" in spec and "to" in spec and set(spec) <= {"from", "to", "step"}:
        return _range(spec, where, at)
    where.fail(at, "is neither a range nor a list of choices",
               "write { from = a, to = b, step = s } or { choices = [...] }")


def _targets(spec, where: Where, at: str, raw_given: dict) -> list[Vary]:
    """`partition = { choices = […], targets = { from = a, to = b } }`: the regrouped variant
    also draws every record's target y from these values, so that its headline answer (the
    mean gradient over all records, which a regrouping alone leaves unchanged) changes too;
    a variant whose `gradient` equals the exercise's own is not kept."""
    groups = raw_given.get("microbatches")
    if not isinstance(groups, list) or not all(
            isinstance(g, list) and all(isinstance(r, list) and len(r) == 2 for r in g)
            for g in groups):
        where.fail(at, "needs microbatches written as lists of [x, y] records",
                   "write microbatches = [[[x, y], …], …]")
    values = _spec_values(spec, where, at)
    for k, v in enumerate(values):
        number(v, where, f"{at}.choices[{k}]" if "choices" in spec else f"{at} ({shown(v)})")
    count = sum(len(g) for g in groups)
    return [Vary(f"partition.targets[{k}]", ("partition", "targets", k), values)
            for k in range(count)]


def _option_path(key: str, where: Where, at: str, raw_given: dict) -> tuple:
    """(("optimizer", OPTION[, i…]), default): an option the given optimizer takes, written or
    not (a default it may vary), or an element of a list option (betas[0]); for an element of
    an option that is not written, the option's default as written values (else None)."""

    table = raw_given.get("optimizer")
    if not isinstance(table, dict):
        where.fail(at, "names an option of optimizer, which is not given",
                   'give optimizer = { name = "sgd", … } in [exercise.given]')
    name = table.get("name", "sgd")
    options = REGISTRY[name].defaults() if isinstance(name, str) and name in REGISTRY else {}
    m = OPTION_PATH.match(key)
    option = m.group(1) if m else key.split(".", 1)[1]
    if not m or option not in options:
        where.fail(at, f"is not an option of {shown(name)}",
                   did_you_mean(option, options) or f"use one of: {', '.join(options)}")
    path = ("optimizer", option, *(int(i) for i in re.findall(r"\[([0-9]+)\]", m.group(2))))
    if len(path) == 2:
        return path, None
    default = None
    if option in table:
        found = _lookup(raw_given, path)
    else:  # not written: its element is one of the default's
        value = options[option]
        default = tuple(_as_raw(sp.Rational(v)) for v in value) \
            if isinstance(value, tuple) else None
        found = _lookup({"o": list(default)}, ("o", *path[2:])) if default else None
    if found is None:
        size = options[option]
        where.fail(at, f"names an element that the option {option} does not have",
                   f"optimizer.{option} holds {len(size)} values, counted from 0" if
                   isinstance(size, tuple) else f"optimizer.{option} is one value: vary "
                   f"\"optimizer.{option}\"")
    return path, default


def _validate(values, path, recipe, where: Where, at: str, choices: bool, convert,
              option_kinds: dict[str, str], raw_given: dict | None = None) -> None:
    """Every value a variant may take is checked as the input it replaces would be: a number
    for an element, the input's own kind for a whole input, sizes for a partition."""
    kinds = {i.name: i.kind for i in recipe.inputs}
    for k, v in enumerate(values):
        here = f"{at}.choices[{k}]" if choices else f"{at} (its value {shown(v)})"
        if path == ("partition",):
            if not (isinstance(v, list) and v and all(
                    isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in v)):
                where.fail(here, f"is {shown(v)}", "write microbatch sizes such as [2, 1]")
        elif path[0] == "optimizer" and len(path) > 1:  # the option's own kind
            kind = option_kinds[path[1]]
            if kind == "bool":
                if not isinstance(v, bool):
                    where.fail(here, f"is {kind_of(v)}", "write true or false")
            elif kind == "betas":
                if len(path) == 2:
                    pair = convert("numbers", v, where, here)
                    if len(pair) != 2 or not all(0 <= b < 1 for b in pair):
                        where.fail(here, f"is {shown(v)}", "write [β1, β2] with 0 ≤ β < 1")
                elif not 0 <= number(v, where, here) < 1:
                    where.fail(here, f"is {shown(v)}", "a β is in [0, 1)")
            else:
                convert(kind, v, where, here)
        elif len(path) > 1:
            number(v, where, here)
        else:
            convert(kinds[path[0]], v, where, here)


TOWARD_RECIPES = ("sgd_step", "optimizer_steps", "accumulation")


def _xy_records(records) -> list | None:
    """The (x, y) pairs of a `formulas` exercise's records (a list of pairs, or a table whose
    columns include x and y, raw or read), as one batch; None without both columns."""
    columns, rows = ("x", "y"), records
    if isinstance(records, dict):
        columns, rows = records.get("columns"), records.get("rows")
    elif hasattr(records, "columns") and hasattr(records, "rows"):
        columns, rows = records.columns, records.rows
    if not isinstance(columns, (list, tuple)) or "x" not in columns or "y" not in columns or \
            not isinstance(rows, (list, tuple)):
        return None
    jx, jy = list(columns).index("x"), list(columns).index("y")
    if not all(isinstance(r, (list, tuple)) and len(r) == len(columns) for r in rows):
        return None
    return [[[r[jx], r[jy]] for r in rows]]


def _formulas_toward(where: Where, at: str, recipe, raw_given: dict) -> tuple:
    """("formulas", the given w starts from, the quantity w ends at): a given `w` and a
    quantity `w_new`, or a recurrence `w` whose start is a given (`start = "w0"`); the
    records need columns x and y."""
    graph = recipe.graph(None)
    node = graph.by_name.get("w")
    if "w_new" in graph.by_name and "w" in raw_given:
        before, after = "w", "w_new"
    elif node is not None and isinstance(node.start, sp.Symbol) and any(
            k in raw_given for k in (node.start.name,)):
        before, after = node.start.name, "w"
    else:
        where.fail(at, "needs the weight w of a formulas derivation",
                   'a given w and a quantity w_new, or a recurrence w with start = "w0"')
    if _xy_records(raw_given.get("records")) is None:
        where.fail(at, "needs records with columns x and y (w* is the least-squares w of "
                   "y ≈ w·x + b)", 'records = [[x, y], …], or columns = ["x", "y", …]')
    return ("formulas", before, after)


def _toward_condition(spec, where: Where, recipe, raw_given: dict) -> "Condition":
    at = f"require.{TOWARD}"
    if spec != "w":
        where.fail(at, f"is {shown(spec)}", 'write toward = "w" (the update moves w toward '
                   "the w that minimises the batch loss)")
    name = getattr(recipe, "name", None)
    if name == "formulas":
        return Condition(TOWARD, _formulas_toward(where, at, recipe, raw_given))
    if name not in TOWARD_RECIPES or "w" not in raw_given or (
            name == "accumulation" and ("microbatches" not in raw_given or
                                        "tokens" in raw_given or "divisor" in raw_given)):
        where.fail(at, f"needs w and (x, y) records of {', '.join(TOWARD_RECIPES)}",
                   "accumulation: microbatches of records, without tokens or divisor")
    return Condition(TOWARD, name)


NUMERIC_KINDS = frozenset({"number", "positive", "nonnegative", "count", "norm_type", "steps",
                           "stage", "numbers", "counts", "nonnegatives", "gradients"})
"""Input kinds a relation may compare with: a number, or a list (of lists) of numbers, compared
element by element. Records, batches, the optimizer table, a loss convention, a memory ledger
are not numbers: a relation with one is refused, never silently false."""


def _relation_condition(t: str, name: str, where: Where, at: str, names, inputs: dict,
                        raw_given: dict) -> "Condition":
    """`OP OPERAND` or `NAME OP OPERAND` (NAME the key's quantity), else one clear line. A name
    that is both a quantity and a given (`loss` in sgd_step) is the quantity, as in
    `derive.recipes.base.Context`; a given that is not a number cannot be compared."""
    m = RELATION.match(t)
    if m.group(1) is not None and m.group(1) != name:
        where.fail(at, f"relates {shown(m.group(1))}, not {name}",
                   f"write it under its own quantity: {m.group(1)} = \"{m.group(2)} "
                   f"{m.group(3)}\"" if m.group(1) in names else
                   f"the left side is {name}: write {name} = \"{m.group(2)} {m.group(3)}\"")
    op, operand = m.group(2), m.group(3)
    if NAME.match(operand):
        if operand in names:
            return Condition("relation", (op, "quantity", operand))
        if operand in inputs and operand in raw_given:
            if inputs[operand] not in NUMERIC_KINDS:
                numeric = [n for n in inputs if n in raw_given and inputs[n] in NUMERIC_KINDS]
                where.fail(at, f"compares with {shown(operand)}, a given that is not a number",
                           "compare with a quantity (" + ", ".join(names) + ")" +
                           (", a given number (" + ", ".join(numeric) + ")" if numeric else "")
                           + " or a number such as 0.5")
            return Condition("relation", (op, "given", operand))
        where.fail(at, f"compares with {shown(operand)}, not a quantity or a given input here",
                   did_you_mean(operand, [*names, *raw_given]) or "name a quantity")
    try:
        number_ = parse_exact(operand)
    except ExactNumberError as exc:
        where.fail(at, f"compares with {shown(operand)}: {exc}",
                   "compare with a quantity, a given input or a number such as 0.5")
    return Condition("relation", (op, "number", number_))


def parse_require(raw, where: Where, names: list[str], recipe=None,
                  raw_given: dict | None = None) -> dict[str, tuple[Condition, ...]]:
    if not isinstance(raw, dict):
        where.fail("require", f"is {kind_of(raw)}", "write an [exercise.require] table")
    raw_given = raw_given if isinstance(raw_given, dict) else {}
    inputs = {i.name: i.kind for i in recipe.inputs} if recipe is not None else {}
    out = {}
    for name, spec in raw.items():
        at = f"require.{name}"
        if name == TOWARD and name not in names:
            out[name] = (_toward_condition(spec, where, recipe, raw_given),)
            continue
        if name not in names:
            where.fail(at, "is not a quantity of this exercise",
                       did_you_mean(name, names) or f"use one of: {', '.join(names)}")
        texts = spec if isinstance(spec, list) else [spec]
        conditions = []
        for text in texts:
            if not isinstance(text, str):
                where.fail(at, f"holds {kind_of(text)}", f"write conditions as text: "
                           f"{', '.join(CONDITIONS)}")
            if len(text) > MAX_CONDITION:
                where.fail(at, f"has a condition of {len(text)} characters",
                           f"at most {MAX_CONDITION}")
            t = " ".join(text.split())
            if t in ("integer", "nonzero", "positive", "negative"):
                conditions.append(Condition(t))
            elif m := re.fullmatch(r"places\s*<=\s*(\S+)", t, re.ASCII):
                d = m.group(1)
                if not (re.fullmatch("[0-9]{1,3}", d, re.ASCII) and int(d) <= MAX_PLACES):
                    where.fail(at, f"has the condition {shown(text)}, whose places are not a "
                               f"whole number from 0 to {MAX_PLACES}",
                               f"write places <= d with d from 0 to {MAX_PLACES}")
                conditions.append(Condition("places", int(d)))
            elif m := re.fullmatch(r"differs from ([a-z_0-9]+)", t, re.ASCII):
                if m.group(1) not in names:
                    where.fail(at, f"compares with {shown(m.group(1))}, not a quantity here",
                               did_you_mean(m.group(1), names) or "name a quantity")
                conditions.append(Condition("differs", m.group(1)))
            elif RELATION.match(t):
                conditions.append(_relation_condition(t, name, where, at, names, inputs,
                                                      raw_given))
            else:
                where.fail(at, f"has the condition {shown(text)}",
                           f"use: {', '.join(CONDITIONS)}")
        out[name] = tuple(conditions)
    return out
