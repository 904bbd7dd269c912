"""A course's notation: `[notation]` in an exercise file, or in a `derive.toml` beside the bank
(every file under that folder; the file's own table wins), restyles inputs and quantities
(`lr = "\\alpha"`). Each exercise gets its own scope of notation; two of its symbols that print
the same are an error when the file is loaded."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path

from derive.exercises import declared
from derive.exercises.errors import ExerciseError, did_you_mean
from derive.exercises.reader import SETTINGS_FILE, read_toml
from derive.graph.notation import DECLARED, Notation, Notations
from derive.graph.overrides import (
    EXPECTED,
    WrittenError,
    collisions,
    names_of,
    parse_written,
    restyle,
)
from derive.recipes import RECIPES, Context, Recipe

SETTINGS_KEYS = ("notation", "mistakes", "build", "course")
"""build: `derive build` options; course: the students' site's titles (derive.cli.settings)."""
MAX_ENTRIES = 200


class Written(dict):
    """A validated `[notation]` table: name → (Notation, the LaTeX written, where it was).
    `mistakes` holds the bank's declared mistakes (derive.toml `[[mistakes]]`,
    derive.exercises.declared), which go wherever the bank's settings go."""

    mistakes: tuple = ()


def known_names() -> set[str]:
    """Every name a `[notation]` table may restyle in some exercise: the recipes' inputs and
    quantities (a formulas exercise adds its own givens and quantities)."""
    out = set()
    for r in RECIPES.values():
        out |= {i.name for i in r.inputs if i.name != "NAME"}
        out |= {q.name for q in r.quantities}
    return out


def read_table(raw, path: str, key: str = "notation") -> Written:
    """The `[notation]` table of a file, each value read into a Notation (never evaluated)."""
    if not isinstance(raw, dict):
        raise ExerciseError(path, None, key, "is not a table",
                            'write [notation] with entries such as lr = "\\\\alpha"')
    if len(raw) > MAX_ENTRIES:
        raise ExerciseError(path, None, key, f"has {len(raw)} entries", f"at most {MAX_ENTRIES}")
    out = Written()
    for name, text in raw.items():
        at = f"{key}.{name}"
        try:
            out[name] = (parse_written(text), text, path)
        except WrittenError as exc:
            raise ExerciseError(path, None, at, str(exc), EXPECTED) from None
    return out


def bank_settings(path: Path, root: Path) -> Written:
    """The `[notation]` of the nearest derive.toml from the file's folder up to `root` (the
    folder named on the command line, or the file's own folder)."""
    settings = settings_file(path, root)
    return Written() if settings is None else _read_settings(settings)


def settings_file(path: Path, root: Path) -> Path | None:
    """The nearest derive.toml from the file's folder up to `root`, or None; named from the
    file's folder or `root` as the user named them (`bank/derive.toml`), so that a message
    shows the path the user wrote, never an absolute one (a published index page among them).
    """
    folder, top = path.parent.resolve(), root.resolve()
    while True:
        settings = folder / SETTINGS_FILE
        if settings.is_file():
            if folder == path.parent.resolve():
                return path.parent / SETTINGS_FILE
            return root / settings.relative_to(top)  # folder is under top: checked below
        if folder == top or folder.parent == folder or top not in folder.parents:
            return None
        folder = folder.parent


def _read_settings(settings: Path) -> Written:
    doc = read_toml(settings)
    name = str(settings)
    for key in doc:
        if key not in SETTINGS_KEYS:
            hint = did_you_mean(key, SETTINGS_KEYS)
            raise ExerciseError(name, None, key, "is not a key of derive.toml",
                                hint or "derive.toml holds a [notation] table and "
                                "[[mistakes]] tables")
    out = read_table(doc.get("notation", {}), name) if "notation" in doc else Written()
    if "mistakes" in doc:
        out.mistakes = declared.read_list(doc["mistakes"], name, None, "mistakes", bank=True)
    return out


def merged(bank: Written, own: Written, tables: list) -> Written:
    """The file's notation over the bank's; a name no exercise could have is refused (with the
    closest name)."""
    out = Written(bank)
    out.mistakes = bank.mistakes
    out.update(own)
    names = known_names()
    for t in tables:
        if isinstance(t, dict) and t.get("recipe") == "formulas":
            names |= set(t.get("given", {}) or {}) | set(t.get("define", {}) or {})
    for name, (_, _, where) in out.items():
        if name not in names:
            hint = did_you_mean(name, names)
            raise ExerciseError(where, None, f"notation.{name}",
                                "is not an input or a quantity of any recipe",
                                hint or "name an input (lr, w) or a quantity (w_new, gradient)")
    return out


def scoped(recipe: Recipe, given: dict, written: Written, path: str, ex_id: str
           ) -> tuple[Recipe, Notations | None]:
    """The exercise's recipe drawing in its own notation, and that notation: the recipe's
    symbols, restyled where the course says so. Two symbols that print the same are one line
    naming the key (exit 2)."""
    if recipe.graph is None:
        return recipe, None
    graph = recipe.graph(Context(recipe, given))
    base = graph.notation or DECLARED
    names = names_of(graph, {q.name for q in recipe.quantities})
    chosen = {names[k]: n for k, (n, _, _) in written.items() if k in names}
    scope = restyle(base, chosen) if chosen else base
    by_symbol = {names[k]: k for k in written if k in names}
    shown = {symbol: k for k, symbol in names.items()}
    for a, b in collisions(graph, scope, frozenset(chosen)):
        mine, other = (a, b) if a in by_symbol else (b, a)
        key = by_symbol.get(mine)
        what = _written(scope[mine])
        other_name = shown.get(other, other)
        if key is not None:
            raise ExerciseError(written[key][2], ex_id, f"notation.{key}",
                                f"writes {key} as {what}, a letter {other_name} already "
                                "prints in this exercise",
                                "choose a symbol that no other input or quantity of the "
                                "exercise uses (or restyle that one too)")
        raise ExerciseError(path, ex_id, None,
                            f"{shown.get(mine, mine)} and {other_name} both print as {what}",
                            "rename one of them, or restyle one in [notation]")
    if scope is base:
        return recipe, None
    return replace(recipe, graph=_drawn_in(recipe.graph, scope)), scope


def _written(n: Notation) -> str:
    return n.text_letter()


def _drawn_in(graph_of, scope: Notations):
    def graph(ctx):
        g = copy.copy(graph_of(ctx))
        g.notation = scope
        return g
    return graph
