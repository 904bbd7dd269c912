"""Author-declared mistakes: `[[exercise.mistakes]]` in an exercise, `[[mistakes]]` in the
derive.toml of a bank (docs/authoring.md, "Declaring the mistakes you teach").

A declared mistake is one change to the exercise's derivation, with its words: a quantity's
formula replaced (`define`), a given replaced (`given`), or a quantity's step skipped (`skip`).
It becomes one of the recipe's mistakes: at every quantity, the value computed with the change
in place, so the diagnosis, the exports and the self-check pages name it as they name a
built-in one.

`skip = "q"` means, precisely: a recurrence q (a quantity with a `start`) is never updated,
q_t = q_{t−1} (it keeps its start); any other q passes on the one quantity its formula reads,
member for member (m̂_t = m_t when the bias correction is skipped). A quantity that reads no
other quantity, or several, cannot be skipped: `define` says what it becomes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from derive.errors import quoted, quoted_path
from derive.exercises.diagnosis import _mistakes as known_mistakes
from derive.exercises.diagnosis import _try
from derive.exercises.errors import ExerciseError, ExerciseNotSupported, did_you_mean
from derive.exercises.values import Where, kind_of, shown
from derive.kernel.exact import is_zero_exact
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.recipes import Context, Recipe
from derive.recipes import formulas as author
from derive.recipes.base import Mistake, expand_exact
from derive.wording import joined

MISTAKE_KEYS = ("name", "en", "zh", "define", "given", "skip")
CHANGES = ("define", "given", "skip")
"""The kinds of change, one per mistake."""
NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
MAX_NAME = 60
MAX_WORDS = 300
"""Most characters of a mistake's words, in each language."""
MAX_MISTAKES = 50
"""Most mistakes one exercise, or one bank, may declare."""
DIAGNOSIS_NAMES = frozenset({"float_artefact", "float_at_tie", "half_to_even", "rounded_early"})
"""Names the diagnosis gives of its own, beside the recipe's mistakes."""
EXAMPLE = ('write [[exercise.mistakes]] with name = "bias_gradient_summed", en = "…", '
           'zh = "…" and one change: define = { gb = "sum_i(2*(yhat_i - y_i))" }, '
           'given = { w = "0" } or skip = "buf"')


@dataclass(frozen=True)
class Declaration:
    """One declared mistake as written: its name, words (English, Chinese), its change
    (`kind` in CHANGES; `change` a table of name → text for define and given, a quantity's
    name for skip), and where it was declared (file, and its key there: `mistakes[0]`)."""

    name: str
    en: str
    zh: str
    kind: str
    change: object
    path: str
    key: str
    bank: bool = False

    def names(self) -> tuple[str, ...]:
        """The quantities or givens its change names."""
        return (self.change,) if self.kind == "skip" else tuple(self.change)


# ------------------------------------------------------------------------- reading


def read_list(raw, path: str, exercise: str | None, key: str, bank: bool = False
              ) -> tuple[Declaration, ...]:
    """The declarations of a `mistakes` array of tables, each checked on its own (its name,
    words and the form of its change); what the change names is checked per exercise
    (`bind`)."""
    where = Where(path, exercise)
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        where.fail(key, f"is {kind_of(raw)}" if not isinstance(raw, list)
                   else "is not a list of tables", EXAMPLE)
    if len(raw) > MAX_MISTAKES:
        where.fail(key, f"declares {len(raw)} mistakes", f"at most {MAX_MISTAKES}")
    out, seen = [], set()
    for n, table in enumerate(raw):
        d = _read_one(table, where, f"{key}[{n}]", bank)
        if d.name in seen:
            where.fail(f"{key}[{n}].name", f"{d.name!r} is declared twice",
                       "give each mistake its own name")
        seen.add(d.name)
        out.append(d)
    return tuple(out)


def _read_one(table: dict, where: Where, key: str, bank: bool) -> Declaration:
    for k in table:
        if k not in MISTAKE_KEYS:
            hint = did_you_mean(k, MISTAKE_KEYS)
            where.fail(f"{key}.{k}", "is not a key of a mistake",
                       hint or f"use {', '.join(MISTAKE_KEYS)}")
    name = table.get("name")
    if not isinstance(name, str) or not NAME.match(name) or len(name) > MAX_NAME:
        where.fail(f"{key}.name", "is missing" if name is None else f"is {shown(name)}",
                   "name the mistake in lowercase letters, digits and '_' (at most "
                   f"{MAX_NAME} characters), such as \"bias_gradient_summed\"")
    words = [_words(table.get(lang), where, f"{key}.{lang}", what)
             for lang, what in (("en", "English"), ("zh", "Chinese"))]
    kinds = [k for k in CHANGES if k in table]
    if len(kinds) != 1:
        where.fail(key, "declares no change" if not kinds else
                   f"declares {len(kinds)} changes ({', '.join(kinds)})",
                   "give exactly one of define = { q = \"formula\" }, given = { w = \"0\" } "
                   "or skip = \"q\"")
    kind = kinds[0]
    raw = table[kind]
    at = f"{key}.{kind}"
    if kind == "skip":
        if not isinstance(raw, str) or not raw:
            where.fail(at, f"is {shown(raw)}", 'name the quantity whose step is skipped: '
                       'skip = "buf"')
        change = raw
    else:
        if not isinstance(raw, dict) or not raw:
            where.fail(at, f"is {kind_of(raw)}" if not isinstance(raw, dict) else "is empty",
                       'write a table: define = { gb = "sum_i(2*(yhat_i - y_i))" }'
                       if kind == "define" else 'write a table: given = { w = "0" }')
        if kind == "define":
            for q, text in raw.items():
                if not isinstance(text, str):
                    where.fail(f"{at}.{q}", f"is {kind_of(text)}",
                               'write the formula as text: gb = "sum_i(2*(yhat_i - y_i))"')
        change = dict(raw)
    return Declaration(name, words[0], words[1], kind, change, where.path, key, bank)


def _words(text, where: Where, key: str, what: str) -> str:
    """A mistake's words in one language: one line of text (no control character, line or
    paragraph separator)."""
    if text is None:
        where.fail(key, "is missing", f"say what the mistake is, in {what}")
    if not isinstance(text, str) or not text.strip():
        where.fail(key, f"is {kind_of(text)}" if not isinstance(text, str) else "is empty",
                   f"say what the mistake is, in {what}")
    if len(text) > MAX_WORDS:
        where.fail(key, f"has {len(text)} characters", f"at most {MAX_WORDS}")
    bad = next((c for c in text if unicodedata.category(c)[0] == "C"
                or unicodedata.category(c) in ("Zl", "Zp")), None)  # U+2028, U+2029 too
    if bad is not None:
        where.fail(key, f"holds U+{ord(bad):04X}, a line break or another control character",
                   "write the words as one line of text")
    return " ".join(text.split())


# ------------------------------------------------------------------------- binding


Convert = Callable[[str, object, Where, str], object]
"""schema.convert: a given's TOML value as the exact value of its kind (passed in: schema
imports this module)."""


@dataclass(frozen=True)
class Bound:
    """The declared mistakes of one exercise as the recipe's mistakes, and which bank
    declarations apply to it ((path, key) of each)."""

    mistakes: tuple[Mistake, ...]
    applied: frozenset[tuple[str, str]]


def bind(own: tuple[Declaration, ...], bank: tuple[Declaration, ...], recipe: Recipe,
         given: dict, raw_given: Mapping, raw_define, ex_path: str, ex_id: str,
         convert: Convert) -> Bound:
    """The exercise's own declarations, then its bank's that apply to it (those whose change
    names only quantities or givens the exercise has), as `Mistake`s of its recipe. One line,
    exit 2, for a name a built-in mistake has, a name the exercise does not have (own
    declarations), or a change that is not valid."""
    if not own + bank:  # the recipe's mistakes are derived only when a wrong claim asks
        return Bound((), frozenset())
    builtin = {m.name for m in recipe.mistakes} | DIAGNOSIS_NAMES | {
        q.name for q in recipe.quantities if q.wrong}
    out, applied, names = [], set(), {}
    for d in own + bank:
        if d.bank and not _applies(d, recipe, given, raw_define):
            continue
        path, ex = d.path, ex_id
        if d.name in builtin:
            raise ExerciseError(path, ex, f"{d.key}.name", f"{d.name!r} is the name of a "
                                f"built-in mistake of recipe {recipe.name!r}",
                                "choose another name (`derive recipes "
                                f"{recipe.name}` lists them)")
        if d.name in names:
            raise ExerciseError(path, ex, f"{d.key}.name", f"{d.name!r} is also declared at "
                                f"{names[d.name]}", "give each mistake its own name")
        names[d.name] = f"{quoted_path(d.path)} {d.key}"
        mistaken_recipe, mistaken_given = _changed(d, recipe, given, raw_given, raw_define,
                                                   ex_path, ex_id, convert)
        out.append(_mistake(d, recipe, given, mistaken_recipe, mistaken_given))
        if d.bank:
            applied.add((d.path, d.key))
    return Bound(tuple(out), frozenset(applied))


def _applies(d: Declaration, recipe: Recipe, given: dict, raw_define) -> bool:
    """Whether a bank declaration names only what this exercise has."""
    if d.kind == "given":
        return all(given.get(k) is not None for k in d.change)
    return isinstance(raw_define, dict) and all(q in raw_define for q in d.names())


def _changed(d: Declaration, recipe: Recipe, given: dict, raw_given: Mapping, raw_define,
             ex_path: str, ex_id: str, convert: Convert) -> tuple[Recipe, dict]:
    """The recipe and the givens with the declared change in place."""
    where = Where(d.path, ex_id)
    if d.kind == "given":
        return recipe, _given(d, recipe, given, where, convert)
    if recipe.name != author.RECIPE.name:
        raise ExerciseNotSupported(d.path, where.exercise, f"{d.key}.{d.kind}",
                                   f"a mistake that {_WHAT[d.kind]} in recipe {recipe.name!r}",
                                   "a mistake of a built-in recipe replaces a given (given = "
                                   '{ w = "0" }); define and skip take recipe = "formulas"')
    defines = dict(raw_define)
    if d.kind == "skip":
        texts = {d.change: _skipped(d, recipe, given, defines, where)}
    else:
        texts = dict(d.change)
    for q, text in texts.items():
        if q not in defines:
            hint = did_you_mean(q, defines)
            where.fail(f"{d.key}.{d.kind}" + ("" if d.kind == "skip" else f".{q}"),
                       f"'{quoted(q)}' is not a quantity of this exercise",
                       hint or f"name one of its defined quantities: {', '.join(defines)}")
        old = defines[q]
        defines[q] = {**old, "formula": text} if isinstance(old, dict) else text
    try:
        return author.recipe_for(raw_given, defines), given
    except author.DefineError as exc:
        key = exc.key
        if key.startswith("define."):
            key = f"{d.key}.{d.kind}" + ("" if d.kind == "skip" else key[len("define"):])
        else:
            key = d.key
        if exc.supported:
            where.fail(key, exc.problem, exc.expected)
        raise ExerciseNotSupported(d.path, where.exercise, key, exc.problem,
                                   exc.expected) from None


_WHAT = {"define": "replaces a quantity's formula", "skip": "skips a step"}


def _given(d: Declaration, recipe: Recipe, given: dict, where: Where, convert: Convert) -> dict:
    """The givens with the declared ones replaced, each converted as the input it replaces."""
    inputs = {i.name: i for i in recipe.inputs}
    out = dict(given)
    for k, raw in d.change.items():
        at = f"{d.key}.given.{k}"
        if given.get(k) is None:
            present = [n for n in inputs if given.get(n) is not None]
            hint = did_you_mean(k, present)
            where.fail(at, f"'{quoted(k)}' is not a given of this exercise",
                       hint or f"replace one of its givens: {', '.join(present)}")
        out[k] = convert(inputs[k].kind, raw, where, at)
    for key, problem, expected in recipe.check(out):
        where.fail(f"{d.key}.given.{key}", problem, expected)
    return out


def _skipped(d: Declaration, recipe: Recipe, given: dict, defines: dict,
             where: Where) -> str:
    """The formula a skipped quantity takes (see the module's docstring)."""
    q = d.change
    at = f"{d.key}.skip"
    if q not in defines:
        hint = did_you_mean(q, defines)
        where.fail(at, f"'{quoted(q)}' is not a quantity of this exercise",
                   hint or f"name one of its defined quantities: {', '.join(defines)}")
    graph = recipe.graph(Context(recipe, given))
    node = graph.by_name[q]
    if node.start is not None:
        ix = node.over.index.name
        return f"{q}_{{{ix}-1}}"
    reads = [m for m in graph.needs[q] if m.name != q]
    if len(reads) != 1:
        what = ("reads no other quantity" if not reads else
                f"reads {len(reads)} quantities ({', '.join(m.name for m in reads)})")
        where.fail(at, f"{q} {what}: a skipped step passes on the one quantity it reads",
                   f'say what {q} becomes instead: define = {{ {q} = "…" }}')
    p = reads[0]
    if p.over is None:
        return p.name
    if node.over is None or node.over.index != p.over.index:
        where.fail(at, f"{q} and {p.name} are not families of one index: {p.name} cannot "
                   f"stand for {q}", f'say what {q} becomes instead: define = {{ {q} = "…" }}')
    return f"{p.name}_{p.over.index.name}"


def _mistake(d: Declaration, recipe: Recipe, given: dict, mistaken_recipe: Recipe,
             mistaken_given: dict) -> Mistake:
    """The recipe's Mistake: every quantity the exercise has, computed with the change (the
    first is its target, the others `also_targets`: it is named at any claim it changes)."""
    names = [q.name for q in recipe.available(given)]
    memo = f"declared:{d.name}"

    def compute_for(name: str):
        def compute(ctx):
            other = ctx.memo(memo, lambda c: Context(mistaken_recipe, mistaken_given))
            return other[name]
        return compute

    return Mistake(d.name, names[0], d.en, compute_for(names[0]), zh=d.zh,
                   also_targets=tuple(names[1:]), compute_for=compute_for, origin="declared")


def unapplied(bank: tuple[Declaration, ...], applied: set) -> None:
    """A bank declaration that applies to no exercise of its bank is an error (a name
    misspelt there would otherwise be silently unused)."""
    for d in bank:
        if (d.path, d.key) not in applied:
            what = ("gives " if d.kind == "given" else "defines ") + ", ".join(
                quoted(n) for n in d.names()[:8]) + (", …" if len(d.names()) > 8 else "")
            raise ExerciseError(d.path, None, f"{d.key}.{d.kind}",
                                f"applies to no exercise of the bank: none {what}",
                                "name quantities or givens the bank's exercises have")


# ------------------------------------------------------------------------- warnings

WARNING_SECONDS = 2.0
"""Most time spent on one exercise's warnings (within its own bound)."""


def warnings(recipe: Recipe, given: dict, declared: tuple[str, ...], values: dict
             ) -> tuple[str, ...]:
    """What `derive check` warns about each declared mistake, on the exercise's own values: it
    gives the right value of every quantity (it can never be named), or it gives a quantity
    the value another known mistake gives (a claim of that value is named by the first of
    them, the other is `also`)."""
    out = []
    try:
        with time_bound(WARNING_SECONDS):
            for name in declared:
                out += _warnings_of(recipe, given, name, values)
    except DecisionTimeout:
        out.append("the declared mistakes were not all compared with the others (it took "
                   f"more than {WARNING_SECONDS:g} s)")
    return tuple(out)


def _warnings_of(recipe: Recipe, given: dict, name: str, values: dict) -> list[str]:
    base = Context(recipe, given)
    mistake = next(m for m in recipe.mistakes if m.name == name)
    changed = []
    for q, right in values.items():
        compute = mistake.at(q)
        got = _try(compute, base) if compute is not None else None
        if got is not None and not _same(got, right):
            changed.append((q, got))
    if not changed:
        return [f"mistake {name!r} gives the right value of every quantity on this "
                "exercise's values: no claim can be named by it"]
    out, seen = [], {name}
    for q, got in changed:
        same = []
        for other, _, compute, candidates in known_mistakes(recipe, q, given):
            if other in seen:
                continue
            tried = ([c.value for c in _try(candidates, base) or ()]
                     if candidates is not None else [_try(compute, base)])
            if any(v is not None and _same(v, got) for v in tried):
                seen.add(other)
                same.append(repr(other))
        if same:
            out.append(f"mistake {name!r} gives the same {q} as {joined(same)} on this "
                       "exercise's values: a claim of that value names none of them, it lists "
                       "them all as a tie (docs/diagnosis.md, the rule of evidence)")
    return out


def _same(a, b) -> bool:
    """Exact equality of two values (lists element by element): the kernel's zero test of
    their difference, never guessed."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))
                and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b)))
    if a == b:
        return True
    try:
        return is_zero_exact(expand_exact(a) - expand_exact(b)) is True
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return False
