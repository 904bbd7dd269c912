"""What the outputs of an exercise draw from, computed here so that the renderers compute
nothing: the quantities a sheet asks for, each quantity's symbolic form (JSON), and for a
self-check page each asked question's value, rule, known mistakes' values and carried-forward
forms. A checked exercise's values, verdicts and diagnoses are its `Report`
(`derive.exercises.check`); its working is `derive.exercises.working.Working`.

`Rows` (records with named columns, a given of the `formulas` recipe) is re-exported as a
plain data type the renderers may test for."""

from __future__ import annotations

from dataclasses import dataclass, replace

from derive.exercises.check import Report
from derive.exercises.formulas import quantity_formula
from derive.exercises.page import Asked, Rule, rule_of
from derive.exercises.schema import Exercise
from derive.exercises.selfcheck import asked_questions
from derive.graph.evaluate import reset_work
from derive.recipes.formulas import WORDS as GENERIC_WORDS
from derive.recipes.formulas import Rows

__all__ = ["PageExercise", "Rows", "asked_quantities", "formula_of", "page_exercise",
           "page_exercises", "question_prompt", "question_rule", "question_words"]


def asked_quantities(ex: Exercise) -> list:
    """The quantities the exercise asks for, in derivation order: those it claims or poses
    ([exercise.ask.<quantity>]), or every quantity its inputs determine when it does
    neither."""
    available = ex.recipe.available(ex.given)
    asks = getattr(ex, "asks", {})
    chosen = [q for q in available if q.name in ex.claims or q.name in asks]
    return chosen or available


def question_rule(report: Report, name: str) -> Rule:
    """The precision a question asks (every output asks the same): its author's declaration,
    else chosen from this report's exact answer (`rule_of`), never from a claim's digits."""
    return rule_of(report.values[name], getattr(report.exercise, "asks", {}).get(name))


def question_words(ex: Exercise, name: str) -> tuple[tuple[str, str], bool] | None:
    """How a question names its quantity to students, (English, Chinese) and whether the
    words are the author's (escaped as such): the declared label, else the author's title of
    its node, else the recipe's words; None for an author's quantity with neither (its
    symbol alone names it: never "Quantity (gw)")."""
    ask = getattr(ex, "asks", {}).get(name)
    if ask is not None and ask.label != ("", ""):
        return ask.label, True
    title = ex.recipe.node_titles.get(name)
    if title is not None:
        return tuple(title), True
    words = ex.recipe.words_of(name)
    return None if words in (GENERIC_WORDS, (name, "")) else (words, False)


def question_prompt(ex: Exercise, name: str) -> tuple[str, str]:
    """The author's wording of a question ([exercise.ask.<quantity>] prompt), ("", "") when
    not declared."""
    ask = getattr(ex, "asks", {}).get(name)
    return ask.prompt if ask is not None else ("", "")


def formula_of(report: Report, name: str) -> str | None:
    """A quantity's symbolic form in the formula language (what a formula answer would
    write), None when it has none."""
    ex = report.exercise
    return quantity_formula(ex.recipe, ex.given, name)


@dataclass(frozen=True)
class PageExercise:
    """One exercise of one variant of a self-check page: the exercise as written
    (`original`: its id, title and the rules of its claims), this variant's report, and what
    the page judges each asked quantity with (`asked`, in derivation order)."""

    original: Report
    report: Report
    asked: tuple[Asked, ...]


def page_exercise(original: Report, report: Report) -> PageExercise:
    """The page's questions of `report` (a variant of `original`, or itself): the quantities
    `original` asks for, each judged by the precision its author declared, else by one chosen
    from this variant's exact answer (`rule_of`: never from a claim's digits), and labelled
    and worded as declared."""
    first = original.exercise
    asks = getattr(first, "asks", {})
    names = [q.name for q in asked_quantities(first)]
    rules = {n: question_rule(report, n) for n in names}
    reset_work()  # its own budget of work (the key's was spent)
    asked = []
    for a in asked_questions(report, names, rules):
        ask = asks.get(a.name)
        if ask is not None:
            words = ask.label if ask.label != ("", "") else a.words
            a = replace(a, words=words, prompt=ask.prompt)
        asked.append(a)
    return PageExercise(original, report, tuple(asked))


def page_exercises(reports: list[Report], variants: list[list[Report]] | None = None
                   ) -> list[list[PageExercise]]:
    """Every variant's exercises (the exercises as written when no variants are given)."""
    return [[page_exercise(o, r) for o, r in zip(reports, set_)]
            for set_ in (variants or [reports])]
