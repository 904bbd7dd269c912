"""Question sheets: each exercise's givens and what to compute, numbered, without the answers.

The quantities asked are those the recipe derives from the exercise's inputs
(`Recipe.available`), in derivation order: the ones the exercise claims, or every one of them
when it claims none (the list `derive export` derives). A sheet shows the exercise's id, its
title, its givens and the questions; nothing of a report's values but one test: a title that
states an answer (see `states_answer`) is left out, the id still heads the exercise. The
claims as written are never read.
"""

from __future__ import annotations

import re

import sympy as sp

from derive.exercises.check import Report
from derive.exercises.claims import round_places
from derive.exercises.page import Rule
from derive.exercises.report import asked_quantities as asked
from derive.exercises.report import question_prompt, question_rule, question_words
from derive.exercises.schema import Exercise
from derive.kernel import intervals
from derive.kernel.exact import decimal_str, terminating_places, to_expr
from derive.render.derivation import given_math
from derive.render.document import Author, Document, Heading, InlineMath, Items, Paragraph
from derive.render.escape import clean_text
from derive.render.html import WORDS as PAGE_WORDS
from derive.render.html import fill
from derive.render.labels import in_language, words
from derive.render.numbers import writable
from derive.render.working import formula_tex

WORDS = {
    "en": {"questions": "Questions", "compute": "Compute",
           "note": "Each question says how precisely to answer: an exact value is an integer, "
                   "a fraction or a decimal that terminates; a rounded one is rounded half away "
                   "from zero.",
           "exact": "(exact)", "places": "({places} decimal {places:place|places})",
           "sig": "({tol} significant {tol:figure|figures})", "abs": "(within {tol})",
           "rel": "(within a relative {tol})"},
    "zh": {"questions": "习题", "compute": "求",
           "note": "每题注明答案的精度:精确值可写整数、分数或有限小数;"
                   "要求保留位数的,按四舍五入取舍。",
           "exact": "(精确值)", "places": "(保留 {places} 位小数)",
           "sig": "(保留 {tol} 位有效数字)", "abs": "(误差不超过 {tol})",
           "rel": "(相对误差不超过 {tol})"},
}


_NUMBER = re.compile(r"(?<![0-9.])(?:[0-9]+(?:\.[0-9]+)?)(?![0-9]|\.[0-9])")


def _numbers(value) -> list:
    """The numbers of a given or computed value (lists and ledger tables walked)."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in _numbers(v)]
    if isinstance(value, (int, sp.Basic)) and not isinstance(value, bool):
        e = to_expr(value)
        if e.is_Rational:
            return [abs(e)]
        # not rational (Adam's square roots): no abs(), is_finite nor is_number, which walk a
        # long trajectory's shared radicals as a tree (minutes); the sign is tried both ways
        return [e, -e] if intervals.is_enclosable(e) else []
    return []


def states_answer(title: str, report: Report) -> bool:
    """Whether the title writes an answer: a number equal to a value of the exercise, or to one
    rounded to the places it is written with (`约 14.901GiB`), that is not also a given (a
    title may repeat the givens: `w = 1, η = 0.1`). Signs are ignored."""
    if not _NUMBER.search(clean_text(title)):
        return False
    ex = report.exercise
    givens = set(_numbers(list(ex.given.values())))
    values = [v for v in _numbers(list(report.values.values())) if v not in givens]
    for m in _NUMBER.finditer(clean_text(title)):
        written = m.group(0)
        number = sp.Rational(written)
        if number in givens:
            continue
        places = len(written.split(".")[1]) if "." in written else 0
        if any(v == number or (places and round_places(v, places) == number) for v in values):
            return True
    return False


def _tolerance(t: sp.Rational) -> str:
    """A tolerance as an author writes it: 1e-10 for a power of ten below one, else its
    decimal when it terminates, else its fraction."""
    t = sp.Rational(t)
    if t.p == 1 and t.q > 1 and str(t.q).rstrip("0") == "1":
        return f"1e-{len(str(t.q)) - 1}"
    return decimal_str(t) if terminating_places(t) is not None else f"{t.p}/{t.q}"


def asked_precision(rule: Rule, lang: str, count: int = 1) -> str:
    """The precision a question asks, in words, from its rule (`count`: how many numbers the
    answer has: "Give it …" for one, "Give each …" for several)."""
    w = PAGE_WORDS[lang]
    if rule.kind == "places":
        return fill(w["ask_places"], places=rule.places, n=count)
    if rule.kind == "test" and rule.test in ("places", "sig"):
        n = int(rule.tolerance)
        return fill(w["ask_places"], places=n, n=count) if rule.test == "places" else \
            fill(w["ask_sig"], tol=n, n=count)
    if rule.kind == "test":
        return fill(w["ask_" + rule.test], tol=_tolerance(rule.tolerance))
    return fill(w["ask_exact"], n=count)


def question_blocks(report: Report, lang: str) -> list:
    """One exercise: its id and title, the givens, the numbered questions."""
    t, w = words(lang), WORDS[lang]
    ex = report.exercise
    title = "" if states_answer(ex.title, report) else ex.title
    return [Heading(Author(ex.id), 2, title),
            Paragraph(f"{t['given']}:"), given_math(ex, authored=True),
            Paragraph(f"{w['compute']}:"),
            Items(tuple((*_question(ex, q, lang), " ", sheet_precision(
                question_rule(report, q.name), lang)) for q in asked(ex)), numbered=True)]


def sheet_precision(rule: Rule, lang: str) -> str:
    """The precision a question asks, as a sheet writes it after the question: (exact),
    (3 decimal places), (4 significant figures); the sheet's note says what each means."""
    w = WORDS[lang]
    if rule.kind == "places" or rule.kind == "test" and rule.test == "places":
        return fill(w["places"], places=rule.places if rule.kind == "places"
                    else int(rule.tolerance))
    if rule.kind == "test" and rule.test == "sig":
        return fill(w["sig"], tol=int(rule.tolerance))
    if rule.kind == "test":
        return fill(w[rule.test], tol=_tolerance(rule.tolerance))
    return w["exact"]


def _question(ex: Exercise, q, lang: str):
    """A question as students read it, with the quantity's symbol from its node in the
    recipe's graph (`q`, a recipe's Quantity): the author's prompt when declared ("Average the
    gradients." g = ?), else its words (the declared label, the author's title, the course's
    words: `Batch loss: L = ?`), else the symbol alone; never an internal name."""
    tex = formula_tex(ex.recipe, ex.given, q.name)
    head = tex.split(" = ", 1)[0]
    ask = InlineMath(f"{head} = ?")
    prompt = question_prompt(ex, q.name)
    if prompt != ("", ""):
        return (Author(in_language(prompt, lang)), " ", ask)
    t = words(lang)
    wrong = (f"({t['wrong_scheme']})" if lang == "zh" else f" ({t['wrong_scheme']})") \
        if q.wrong else ""
    named = question_words(ex, q.name)
    if named is None:
        return (ask,) if not wrong else (wrong.strip()[1:-1] + ":", " ", ask)
    said, authored = named
    label = in_language(said, lang)
    return (Author(label) if authored else label, f"{wrong}:", " ", ask)


def questions_document(reports: list[Report], lang: str = "en", name: str = "") -> Document:
    """The sheet of every exercise; `name` (the file or folder) titles it."""
    t, w = words(lang), WORDS[lang]
    blocks: list = [Paragraph(w["note"])]
    for r in map(writable, reports):
        blocks += question_blocks(r, lang)
    title = (Author(name) if name else Author(reports[0].exercise.id) if len(reports) == 1
             else t["exercises"])
    return Document((f"{w['questions']}: ", title), tuple(blocks), lang)
