"""Validating an exercise table against its recipe: every key known, every value of its kind.

Kinds of given inputs (see derive.recipes): `number`, `positive`, `nonnegative`, `count`
(a positive whole number), `counts`, `numbers`, `nonnegatives`, `records` (a list of [x, y]),
`microbatches` (a list of lists of [x, y]), `batches` (the same, one per optimizer step),
`optimizer_state` (a saved torch.optim state: momentum buffers, Adam's step, m, v; of a vector
w, each a list), `parameter` (a number, or a vector as a list of 1 to 8 numbers),
`vector_records` and `vector_batches` (records and batches whose x may be such a vector),
`gradients` (numbers, or vectors as lists) and
`loss` ("half" or "squared").
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import sympy as sp

from derive.exercises import declared, notation
from derive.exercises.author_facts import NONE
from derive.exercises.claims import parse_claim
from derive.exercises.errors import ExerciseNotSupported, did_you_mean
from derive.exercises.formulas import given_facts, prepare
from derive.exercises.page import ASK_TESTS, Ask, Rule
from derive.exercises.reader import Written
from derive.exercises.shape import EXERCISE_KEYS, ID_CHARS, table_shape, unknown_key  # noqa: F401
from derive.exercises.values import Where, kind_of, number, shown
from derive.exercises.variation import parse_require, parse_vary
from derive.kernel.exact import decimal_str
from derive.model.linear import LOSS_CONVENTIONS
from derive.model.memory import COMPONENTS, PRESETS
from derive.optimizers import REGISTRY, Optimizer, option_kinds, slots
from derive.recipes import RECIPES, Recipe
from derive.recipes import formulas as author

MAX_ITEMS = 100_000
"""Most numbers one key may hold."""



@dataclass(frozen=True)
class Exercise:
    """A validated exercise: exact inputs and the author's claims."""

    path: str
    id: str
    title: str
    recipe: Recipe
    given: dict
    claims: dict
    raw: dict
    vary: tuple = ()
    require: dict = field(default_factory=dict)
    notation: dict = field(default_factory=dict)
    """The course's [notation] over this exercise's file (derive.exercises.notation.Written);
    its recipe's graph draws in it."""
    declared: tuple[str, ...] = ()
    """The names of its declared mistakes (derive.exercises.declared), its own and its bank's:
    the first of its recipe's mistakes."""
    bank_applied: frozenset = frozenset()
    """Which of its bank's declared mistakes apply to it ((file, key) of each)."""
    asks: dict = field(default_factory=dict)
    """The questions as the author poses them: quantity → `derive.exercises.page.Ask`, from
    its [exercise.ask.<quantity>] tables."""


def _list(value, where, key, what):
    if not isinstance(value, list):
        where.fail(key, f"is {kind_of(value)}", f"write a list of {what}")
    if not value:
        where.fail(key, "is empty", f"write a nonempty list of {what}")
    if len(value) > MAX_ITEMS:
        where.fail(key, f"has {len(value)} items", f"at most {MAX_ITEMS}")
    return value


def _sign(v, where, key, positive, what):
    if positive and v <= 0:
        where.fail(key, f"is {decimal_str(v)}", f"{what} must be positive")
    if not positive and v < 0:
        where.fail(key, f"is {decimal_str(v)}", f"{what} must not be negative")
    return v


def _count(value, where, key):
    if isinstance(value, Written) and value.value.is_integer:
        value = int(value.value)  # 2e9 is the whole number 2000000000
    if isinstance(value, bool) or not isinstance(value, int):
        where.fail(key, f"is {kind_of(value) if not isinstance(value, Written) else value.text}",
                   "write a whole number such as 3")
    if value < 1:
        where.fail(key, f"is {value}", "a count must be at least 1")
    if value > 10**15:
        where.fail(key, f"is {value}", "a count must be at most 10^15")
    return sp.Integer(value)


def _pair(value, where, key):
    if not isinstance(value, list) or len(value) != 2:
        shown = kind_of(value) if not isinstance(value, list) else f"a list of {len(value)}"
        where.fail(key, f"is {shown}",
                   "write a record as [x, y]")
    return (number(value[0], where, f"{key}[0]"), number(value[1], where, f"{key}[1]"))


MAX_ENTRIES = 8
"""Most entries of a vector parameter w (and of a record's x) in `optimizer_steps`."""


def _vector(value, where, key, what):
    """A number, or a vector: a list of 1 to MAX_ENTRIES numbers."""
    if not isinstance(value, list):
        return number(value, where, key)
    _list(value, where, key, "numbers")
    if len(value) > MAX_ENTRIES:
        where.fail(key, f"has {len(value)} entries", f"{what} of at most {MAX_ENTRIES} entries")
    return [number(v, where, f"{key}[{j}]") for j, v in enumerate(value)]


def _vector_pair(value, where, key):
    """A record [x, y] whose x is a number or a vector [x1, …, xd]."""
    if not isinstance(value, list) or len(value) != 2:
        shown = kind_of(value) if not isinstance(value, list) else f"a list of {len(value)}"
        where.fail(key, f"is {shown}", "write a record as [x, y], x a number or a list "
                   "[x1, x2, …]")
    return (_vector(value[0], where, f"{key}[0]", "a record's x"),
            number(value[1], where, f"{key}[1]"))


def _total_items(value) -> int:
    return sum(_total_items(v) for v in value) if isinstance(value, list) else 1


def _tensor(value, where, key, depth):
    """A number, a vector, or a list of vectors (several parameter tensors)."""
    if not isinstance(value, list):
        return number(value, where, key)
    if depth >= 2:
        where.fail(key, "nests lists too deeply", "give a number, a vector [..], or several "
                   "tensors [[..], [..]]")
    _list(value, where, key, "numbers")
    return [_tensor(v, where, f"{key}[{i}]", depth + 1) for i, v in enumerate(value)]


def convert(kind: str, value, where: Where, key: str):
    """A given input of a recipe, converted from TOML to exact values."""
    if kind == "number":
        return number(value, where, key)
    if kind in ("positive", "nonnegative"):
        return _sign(number(value, where, key), where, key, kind == "positive", key.split(".")[-1])
    if kind == "norm_type":  # torch's norm_type: a positive number, or "inf" (the max norm)
        if isinstance(value, str) and value.strip().lower() == "inf":
            return sp.oo
        return _sign(number(value, where, key), where, key, True, key.split(".")[-1])
    if kind == "count":
        return _count(value, where, key)
    if kind == "counts":
        return [_count(v, where, f"{key}[{i}]")
                for i, v in enumerate(_list(value, where, key, "whole numbers"))]
    if kind == "numbers":
        return [number(v, where, f"{key}[{i}]")
                for i, v in enumerate(_list(value, where, key, "numbers"))]
    if kind == "nonnegatives":
        return [_sign(number(v, where, f"{key}[{i}]"), where, f"{key}[{i}]", False, "a weight")
                for i, v in enumerate(_list(value, where, key, "numbers"))]
    if kind == "records":
        return [_pair(v, where, f"{key}[{i}]")
                for i, v in enumerate(_list(value, where, key, "[x, y] records"))]
    if kind == "parameter":
        return _vector(value, where, key, "a vector w")
    if kind == "vector_records":
        return [_vector_pair(v, where, f"{key}[{i}]")
                for i, v in enumerate(_list(value, where, key, "[x, y] records"))]
    if kind == "vector_batches":
        batches = _list(value, where, key, "batches (lists of [x, y] records), one per step")
        if _total_items(batches) > MAX_ITEMS:
            where.fail(key, f"holds more than {MAX_ITEMS} numbers", "use fewer records")
        return [convert("vector_records", batch, where, f"{key}[{t}]")
                for t, batch in enumerate(batches)]
    if kind == "microbatches":
        mbs = _list(value, where, key, "microbatches (lists of [x, y] records)")
        if _total_items(mbs) > MAX_ITEMS:
            where.fail(key, f"holds more than {MAX_ITEMS} numbers", "use a smaller window")
        return [convert("records", mb, where, f"{key}[{k}]") for k, mb in enumerate(mbs)]
    if kind == "batches":
        batches = _list(value, where, key, "batches (lists of [x, y] records), one per step")
        if _total_items(batches) > MAX_ITEMS:
            where.fail(key, f"holds more than {MAX_ITEMS} numbers", "use fewer records")
        return [convert("records", batch, where, f"{key}[{t}]") for t, batch in enumerate(batches)]
    if kind == "optimizer_state":
        return _optimizer_state(value, where, key)
    if kind == "gradients":
        gs = _list(value, where, key, "numbers or vectors")
        if _total_items(gs) > MAX_ITEMS:
            where.fail(key, f"holds more than {MAX_ITEMS} numbers", "use fewer gradients")
        return [_tensor(g, where, f"{key}[{k}]", depth=0) for k, g in enumerate(gs)]
    if kind == "ledger":
        return _ledger(value, where, key)
    if kind == "preset":
        if not isinstance(value, str) or value not in PRESETS:
            hint = did_you_mean(value, PRESETS) if isinstance(value, str) else ""
            where.fail(key, f"is {shown(value)}", hint or f"use one of: {', '.join(PRESETS)}")
        return value
    if kind == "stage":
        if isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1, 2, 3):
            where.fail(key, f"is {shown(value)}", "a ZeRO stage is 0, 1, 2 or 3")
        return value
    if kind == "optimizer":
        return _optimizer(value, where, key)
    if kind == "steps":
        steps = _count(value, where, key)
        if steps > author.MAX_STEPS:
            raise ExerciseNotSupported(where.path, where.exercise, key, f"{steps} steps",
                                       f"at most {author.MAX_STEPS:,} steps")
        return steps
    if kind == author.TENSOR:
        return _tensor_given(value, where, key)
    if kind == "rows":
        return _rows(value, where, key)
    if kind == "row_groups":
        return _row_groups(value, where, key)
    if kind == "loss":
        if isinstance(value, str) and value.strip().lower() in OTHER_LOSSES:
            raise ExerciseNotSupported(
                where.path, where.exercise, key, f"{shown(value)} as a built-in loss",
                'write it as a formula with recipe = "formulas" (docs/authoring.md); the '
                "built-in losses are " + ", ".join(shown(c) for c in LOSS_CONVENTIONS))
        if not isinstance(value, str) or value not in LOSS_CONVENTIONS:
            where.fail(key, f"is {shown(value)}",
                       f"write one of {', '.join(shown(c) for c in LOSS_CONVENTIONS)}")
        return value
    raise AssertionError(f"unknown input kind {kind}")


OTHER_LOSSES = frozenset({
    "logistic", "bce", "binary_cross_entropy", "cross_entropy", "cross-entropy", "crossentropy",
    "log", "logloss", "absolute", "abs", "l1", "mae", "huber", "smooth_l1", "hinge", "nll",
    "kl", "poisson", "softmax", "mse", "l2"})
"""Losses a course author may name that the built-in recipes do not have (`mse` and `l2` are
the "squared" convention under another name: said as such)."""


def _tensor_given(value, where, key):
    """A tensor given of the formulas recipe as nested lists of exact numbers: its shape as
    `formula_table.tensor_shape` reads it (a ragged list refused, naming the row), each entry
    read as a scalar given is (`number`: 0.5 is 1/2, "1/3" a third)."""
    try:
        author.tensor_shape(value, key)
    except author.DefineError as exc:
        if exc.supported:
            where.fail(exc.key, exc.problem, exc.expected)
        raise ExerciseNotSupported(where.path, where.exercise, exc.key, exc.problem,
                                   exc.expected) from None

    def read(v, at):
        if isinstance(v, list):
            return [read(x, f"{at}[{m}]") for m, x in enumerate(v)]
        return number(v, where, at)
    return read(value, key)


def _row(value, where, key, width):
    if not isinstance(value, list) or len(value) != width:
        got = kind_of(value) if not isinstance(value, list) else f"a list of {len(value)}"
        where.fail(key, f"is {got}", f"write a record as a list of {width} numbers, one per column")
    return tuple(number(v, where, f"{key}[{j}]") for j, v in enumerate(value))


def _rows_parts(value, where, key):
    """(columns, rows as written) of a records table: a list of [x, y] pairs, or
    { columns = [...], rows = [...] }."""
    if isinstance(value, dict):
        unknown = sorted(set(value) - {"columns", "rows"})
        if unknown:
            unknown_key(where, f"{key}.{unknown[0]}", ["columns", "rows"], "a key of a table")
        try:
            columns = author.columns_of(value, key)
        except author.DefineError as exc:
            where.fail(exc.key, exc.problem, exc.expected)
        return columns, value.get("rows")
    return author.DEFAULT_COLUMNS, value


def _rows(value, where, key):
    """Records with named columns, exact."""
    columns, rows = _rows_parts(value, where, key)
    at = f"{key}.rows" if isinstance(value, dict) else key
    rows = _list(rows, where, at, "records")
    if len(rows) * len(columns) > MAX_ITEMS:
        where.fail(at, f"holds more than {MAX_ITEMS} numbers", "use fewer records")
    return author.Rows(columns, tuple(_row(r, where, f"{at}[{i}]", len(columns))
                                      for i, r in enumerate(rows)))


def _row_groups(value, where, key):
    """Records grouped into microbatches (each a nonempty list of records)."""
    columns, groups = _rows_parts(value, where, key)
    at = f"{key}.rows" if isinstance(value, dict) else key
    groups = _list(groups, where, at, "microbatches (lists of records)")
    if _total_items(groups) > MAX_ITEMS:
        where.fail(at, f"holds more than {MAX_ITEMS} numbers", "use a smaller window")
    rows, sizes = [], []
    for k, g in enumerate(groups):
        g = _list(g, where, f"{at}[{k}]", "records")
        rows += [_row(r, where, f"{at}[{k}][{i}]", len(columns)) for i, r in enumerate(g)]
        sizes.append(len(g))
    return author.Rows(columns, tuple(rows), tuple(sizes))


OPTIMIZER_KINDS = option_kinds()
"""Each option's kind, as torch 2.13 validates it (declared in its optimizer's module): for
example momentum, weight_decay and eps at least 0, betas in [0, 1); dampening any number."""


def _optimizer(value, where, key):
    """An optimizer table: a known name, its own options, values of the right kinds."""
    if not isinstance(value, dict):
        where.fail(key, f"is {kind_of(value)}", 'write a table such as { name = "sgd", '
                   "momentum = 0.9 }")
    name = value.get("name", "sgd")
    if not isinstance(name, str) or name not in REGISTRY:
        hint = did_you_mean(name, REGISTRY) if isinstance(name, str) else ""
        where.fail(f"{key}.name", f"is {shown(name)}",
                   hint or f"use one of: {', '.join(REGISTRY)}")
    spec = REGISTRY[name]
    defaults = spec.defaults()
    options = {}
    for opt_key, raw in value.items():
        if opt_key == "name":
            continue
        if opt_key in spec.refused:
            where.fail(f"{key}.{opt_key}", f"is not an option of {name}", spec.refused[opt_key])
        if opt_key not in defaults:
            hint = did_you_mean(opt_key, defaults)
            where.fail(f"{key}.{opt_key}", f"is not an option of {name}",
                       hint or f"use one of: {', '.join(defaults)}")
        kind, at = OPTIMIZER_KINDS[opt_key], f"{key}.{opt_key}"
        if kind == "bool":
            if not isinstance(raw, bool):
                where.fail(at, f"is {kind_of(raw)}", "write true or false")
            options[opt_key] = raw
        elif kind == "betas":
            pair = convert("numbers", raw, where, at)
            if len(pair) != 2 or not all(0 <= b < 1 for b in pair):
                where.fail(at, f"is {shown(raw)}" if not isinstance(raw, list) else
                           f"has {len(pair)} values" if len(pair) != 2 else
                           "has a value outside [0, 1)", "write [β1, β2] with 0 ≤ β < 1")
            options[opt_key] = tuple(pair)
        else:
            options[opt_key] = convert(kind, raw, where, at)
    opt = Optimizer.make(name, **options)
    for option, what, expected in spec.check(opt):
        where.fail(f"{key}.{option}", what, expected)
    return opt


STATE_KINDS = {"step": "step", **{p + slot.key: slot.kind for slot in slots()
                                     for p in ("", "b_")}}
"""A saved optimizer state's keys (the step count; each registered optimizer's state slots,
of w, and b_… of b) and their kinds. Which of them an exercise needs depends on its
optimizer: the recipe's check says."""


def _optimizer_state(value, where, key):
    """A saved optimizer state: known keys, exact numbers, a whole step count ≥ 0."""
    if not isinstance(value, dict):
        where.fail(key, f"is {kind_of(value)}", 'write a table such as { buffer = "-1.2", '
                   'b_buffer = "0.4" } or { step = 2, m = "0.1", v = "0.01" }')
    out = {}
    for name, raw in value.items():
        at = f"{key}.{name}"
        if name not in STATE_KINDS:
            unknown_key(where, at, list(STATE_KINDS), "a key of a saved optimizer state")
        if STATE_KINDS[name] == "step":
            if isinstance(raw, Written) and raw.value.is_integer:
                raw = int(raw.value)
            if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
                where.fail(at, f"is {shown(raw) if not isinstance(raw, Written) else raw.text}",
                           "write the saved step count as a whole number such as 2")
            out[name] = raw
        elif isinstance(raw, list):  # a vector w's: one value per entry
            _list(raw, where, at, "numbers")
            if len(raw) > MAX_ENTRIES:
                where.fail(at, f"has {len(raw)} entries",
                           f"a state tensor of at most {MAX_ENTRIES} entries, as w")
            out[name] = [convert(STATE_KINDS[name], v, where, f"{at}[{j}]")
                         for j, v in enumerate(raw)]
        else:
            out[name] = convert(STATE_KINDS[name], raw, where, at)
    return out


def _ledger(value, where, key):
    """Bytes per parameter by component: known component names, nonnegative numbers."""
    if not isinstance(value, dict) or not value:
        where.fail(key, f"is {kind_of(value)}" if not isinstance(value, dict) else "is empty",
                   "write a table such as { param = 2, grad = 2, master = 4, adam_m = 4, "
                   "adam_v = 4 }")
    out = {}
    for name, raw in value.items():
        if name not in COMPONENTS:
            hint = did_you_mean(name, COMPONENTS)
            where.fail(f"{key}.{name}", "is not a ledger component",
                       hint or f"use: {', '.join(COMPONENTS)}")
        out[name] = convert("nonnegative", raw, where, f"{key}.{name}")
    return out


def _author_recipe(raw_given, raw_define, where: Where) -> Recipe:
    """The exercise's own recipe from its define table; a DefineError is one line, invalid or
    not supported."""
    try:
        return author.recipe_for(raw_given, raw_define)
    except author.DefineError as exc:
        if exc.supported:
            where.fail(exc.key, exc.problem, exc.expected)
        raise ExerciseNotSupported(where.path, where.exercise, exc.key, exc.problem,
                                   exc.expected) from None


ASK_WORDS = ("label", "prompt")
"""The words an [exercise.ask.<quantity>] table may give: a string, or { en = "…", zh = "…" }."""
MAX_ASK_TEXT = 500
"""Longest label or prompt, in characters."""


def _ask_words(value, where: Where, key: str) -> tuple[str, str]:
    """A label or a prompt: one string for every language, or a table of `en` and `zh`."""
    hint = f'write {key.rsplit(".", 1)[-1]} = "…" or {{ en = "…", zh = "…" }}'
    if isinstance(value, str):
        value = {"en": value, "zh": value}
    elif not isinstance(value, dict):
        where.fail(key, f"is {kind_of(value)}", hint)
    for lang in value:
        if lang not in ("en", "zh"):
            unknown_key(where, f"{key}.{lang}", ["en", "zh"], "a language")
    if "en" not in value:
        where.fail(key, "has no en", hint)
    out = []
    for lang in ("en", "zh"):
        text = value.get(lang, "")
        if not isinstance(text, str):
            where.fail(f"{key}.{lang}", f"is {kind_of(text)}", hint)
        if not text.strip() and lang == "en":
            where.fail(f"{key}.{lang}", "is empty", hint)
        if len(text) > MAX_ASK_TEXT:
            where.fail(f"{key}.{lang}", f"has {len(text)} characters",
                       f"at most {MAX_ASK_TEXT}")
        out.append(text.strip())
    return (out[0], out[1])


def _ask_rule(table: dict, where: Where, key: str) -> Rule | None:
    """The precision of one declaration: exactly one of places, sig, abs, rel, exact (None
    when it gives none: derive chooses from the exact answer)."""
    tests = [k for k in table if k in ASK_TESTS]
    if len(tests) > 1:
        where.fail(key, f"declares {' and '.join(tests)}",
                   "declare one precision: places, sig, abs, rel or exact")
    if not tests:
        return None
    test, value = tests[0], table[tests[0]]
    at = f"{key}.{test}"
    if test == "exact":
        if value is not True:
            where.fail(at, f"is {shown(value)}",
                       "write exact = true, or leave it out for derive's choice")
        return Rule("exact")
    if test in ("places", "sig"):
        low = 0 if test == "places" else 1
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 30:
            where.fail(at, f"is {shown(value)}", f"write a whole number from {low} to 30")
        if test == "places":
            return Rule("places", places=value)
        return Rule("test", test="sig", tolerance=sp.Integer(value))
    tol = number(value, where, at)
    if tol <= 0:
        where.fail(at, f"is {decimal_str(tol)}",
                   f'a tolerance above 0, such as {test} = "{"0.005" if test == "abs" else "1e-3"}"'
                   " (or exact = true)")
    return Rule("test", test=test, tolerance=tol)


def _asks(raw, where: Where, recipe: Recipe, names: list[str], all_names: list[str],
          given: dict) -> dict:
    """The [exercise.ask.<quantity>] tables: each a quantity these inputs determine, with
    exactly one precision at most, and a label and a prompt each at most once."""
    if not isinstance(raw, dict):
        where.fail("ask", f"is {kind_of(raw)}",
                   "write one [exercise.ask.<quantity>] table per question")
    asks = {}
    for name, table in raw.items():
        key = f"ask.{name}"
        if name not in names:
            if name in all_names:
                q = recipe.quantity(name)
                missing = [n for n in q.needs if given.get(n) is None]
                where.fail(key, "cannot be computed from these inputs",
                           f"it needs {', '.join(missing)} in [exercise.given]" if missing
                           else f"it needs {q.when_text or 'other inputs'}")
            unknown_key(where, key, names, f"a quantity of {recipe.name}")
        if not isinstance(table, dict):
            where.fail(key, f"is {kind_of(table)}",
                       f"write a table: [exercise.ask.{name}] with places = d (or sig, abs, "
                       "rel, exact = true), label and prompt")
        for k in table:
            if k not in ASK_TESTS + ASK_WORDS:
                unknown_key(where, f"{key}.{k}", ASK_TESTS + ASK_WORDS, "a key of a question")
        words = {w: _ask_words(table[w], where, f"{key}.{w}") if w in table else ("", "")
                 for w in ASK_WORDS}
        asks[name] = Ask(_ask_rule(table, where, key), words["label"], words["prompt"])
    return asks


def exercise(table, path: str, index: int, written=None) -> Exercise:
    """A validated exercise from the `index`-th [[exercise]] table of a file; `written`, the
    file's [notation] (derive.exercises.notation), restyles its symbols."""
    where, title, name = table_shape(table, path, index)
    ex_id = where.exercise
    recipe = RECIPES[name]
    raw_given = table.get("given", {})
    if not isinstance(raw_given, dict):
        where.fail("given", f"is {kind_of(raw_given)}", "write an [exercise.given] table")
    if name == author.RECIPE.name:
        recipe = _author_recipe(raw_given, table.get("define"), where)
    elif "define" in table:
        where.fail("define", f"is not a key of recipe {name!r}",
                   'a derivation of your own takes recipe = "formulas" (docs/authoring.md)')
    inputs = {i.name: i for i in recipe.inputs}
    for key in raw_given:
        if key not in inputs:
            unknown_key(where, f"given.{key}", list(inputs), f"an input of {name}")
    given = {}
    for inp in recipe.inputs:
        if inp.name in raw_given:
            given[inp.name] = convert(inp.kind, raw_given[inp.name], where, f"given.{inp.name}")
        elif inp.required:
            where.fail(f"given.{inp.name}", "is missing", f"{name} needs {inp.name}: {inp.doc}")
        else:
            given[inp.name] = None
    for key, problem, expected in recipe.check(given):
        where.fail(f"given.{key}", problem, expected)
    raw_claims = table.get("claims", {})
    if not isinstance(raw_claims, dict):
        where.fail("claims", f"is {kind_of(raw_claims)}", "write an [exercise.claims] table")
    names = [q.name for q in recipe.available(given)]
    all_names = [q.name for q in recipe.quantities]
    facts = given_facts(table["facts"], recipe, given, where) if "facts" in table else NONE
    claims = {}
    for key, value in raw_claims.items():
        if key not in names:
            if key in all_names:
                q = recipe.quantity(key)
                missing = [n for n in q.needs if given.get(n) is None]
                where.fail(f"claims.{key}", "cannot be computed from these inputs",
                           f"it needs {', '.join(missing)} in [exercise.given]" if missing
                           else f"it needs {q.when_text or 'other inputs'}")
            unknown_key(where, f"claims.{key}", names, f"a quantity of {name}")
        claims[key] = parse_claim(value, where, f"claims.{key}")
        if claims[key].formula is not None:


            claims[key] = replace(claims[key], formula=prepare(
                claims[key].formula, recipe, given, key, where, f"claims.{key}.formula",
                facts))
    asks = _asks(table["ask"], where, recipe, names, all_names, given) if "ask" in table else {}
    vary = parse_vary(table["vary"], where, raw_given, recipe, convert, OPTIMIZER_KINDS) \
        if "vary" in table else ()
    require = parse_require(table["require"], where, names, recipe, raw_given) \
        if "require" in table else {}
    bank = getattr(written, "mistakes", ())
    if not isinstance(written, notation.Written):  # (an empty Written is falsy: kept)
        written = written or notation.Written()
    own = declared.read_list(table["mistakes"], path, ex_id, "mistakes") \
        if "mistakes" in table else ()
    bound = declared.bind(own, bank, recipe, given, raw_given, table.get("define"), path,
                          ex_id, convert)
    if bound.mistakes:
        recipe = replace(recipe, mistakes=bound.mistakes + tuple(recipe.mistakes))
    recipe, _ = notation.scoped(recipe, given, written, path, ex_id)
    return Exercise(path, ex_id, title, recipe, given, claims, table, vary, require, written,
                    tuple(m.name for m in bound.mistakes), bound.applied, asks)
