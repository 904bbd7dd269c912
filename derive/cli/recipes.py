"""`derive recipes [NAME]`: the recipes, their inputs and their quantities."""

from __future__ import annotations

from derive.cli.errors import UsageError, did_you_mean
from derive.cli.output import emit
from derive.errors import quoted


def add_parser(sub) -> None:
    p = sub.add_parser("recipes", help="list the recipes, or one recipe's inputs and quantities")
    p.add_argument("name", nargs="?", metavar="NAME")
    p.set_defaults(run=run)


def describe(name: str) -> str:
    # start-up: only `derive recipes` loads the recipes
    from derive.recipes import RECIPES

    r = RECIPES[name]
    lines = [f"{r.name}: {r.title}", "", r.doc.strip(), "", "inputs ([exercise.given]):"]
    w = max(len(i.name) for i in r.inputs)
    k = max(len(i.kind) for i in r.inputs)
    for i in r.inputs:
        need = "required" if i.required else "optional"
        lines.append(f"  {i.name:<{w}}  {i.kind:<{k}}  {need:<8}  {i.doc}")
    lines += ["", "quantities ([exercise.claims]), in derivation order:"]
    if not r.quantities:  # formulas: each exercise names its own
        lines += ["  the exercise's own, named in [exercise.define] (docs/authoring.md)", "",
                  "known mistakes tried by the diagnosis:",
                  "  every mutation of the exercise's derivation (docs/diagnosis.md)"]
        return "\n".join(lines)
    w = max(len(q.name) for q in r.quantities)
    for q in r.quantities:
        extra = (" [wrong scheme]" if q.wrong else "") + (
            f" [needs {', '.join(q.needs)}]" if q.needs else "")
        lines.append(f"  {q.name:<{w}}  {q.doc}{extra}")
    if r.mistakes:
        lines += ["", "known mistakes tried by the diagnosis:"]
        w = max(len(m.name) for m in r.mistakes)
        for m in r.mistakes:
            also = " and the later quantities it changes" if m.also_targets else ""
            lines.append(f"  {m.name:<{w}}  for {m.target}{also}: {m.doc}")
    return "\n".join(lines)


def run(args) -> int:
    # start-up: only `derive recipes` loads the recipes
    from derive.recipes import RECIPES

    if args.name is None:
        w = max(map(len, RECIPES))
        emit("\n".join(f"{r.name:<{w}}  {r.title}" for r in RECIPES.values()), None)
        return 0
    if args.name not in RECIPES:
        hint = did_you_mean(args.name, RECIPES)
        raise UsageError(f"no recipe '{quoted(args.name)}'{hint} (`derive recipes` lists them)")
    emit(describe(args.name), None)
    return 0
