"""Question sheets: each exercise's givens and what to compute, numbered, without the answers.

A sheet is built from the exercises alone (`Exercise`, never a `Report`): no value of the
recipe is computed, so none can be printed. The quantities asked are those the recipe derives
from the exercise's inputs (`Recipe.available`), in derivation order: the ones the exercise
claims, or every one of them when it claims none (the list `derive export` derives).
"""

from __future__ import annotations

from derive.exercises.schema import Exercise
from derive.recipes.base import Quantity
from derive.render.derivation import given_math
from derive.render.document import Author, Document, Heading, Items, Paragraph
from derive.render.labels import words

WORDS = {
    "en": {"questions": "Questions", "compute": "Compute",
           "note": "Give exact values (fractions) or decimals."},
    "zh": {"questions": "习题", "compute": "求",
           "note": "答案写精确值(分数)或小数。"},
}


def asked(ex: Exercise) -> list[Quantity]:
    """The quantities the exercise asks for, in derivation order: those it claims, or every
    quantity its inputs determine when it claims none."""
    available = ex.recipe.available(ex.given)
    claimed = [q for q in available if q.name in ex.claims]
    return claimed or available


def symbol(q: Quantity) -> str:
    """The quantity's symbol in the course's notation: the left side of its formula (`L` of
    `L = (1/N) Σ ℓ_i`), or the formula itself when it is one symbol (`w_t`, `S·ḡ`); empty
    when the formula is an expression (`(1/K) Σ_k ∇L_k`, `clip(g_k)`)."""
    left = q.formula.split(" = ", 1)[0].strip()
    if " = " not in q.formula and any(ch in left for ch in "()[]{}"):
        return ""  # an expression such as clip(g_k), not a name
    return left if left and not any(ch.isspace() for ch in left) else ""


def question(q: Quantity, lang: str) -> str:
    """One question as prose: the quantity in the course's words, its name, and its symbol
    (set as math: `L = ?`)."""
    t = words(lang)
    wrong = f", {t['wrong_scheme']}" if q.wrong else ""
    text = f"{q.zh if lang == 'zh' and q.zh else q.doc} (`{q.name}`{wrong})"
    s = symbol(q)
    return f"{text}: {s} = ?" if s else text


def question_blocks(ex: Exercise, lang: str) -> list:
    """One exercise: its id and title, the givens, the numbered questions."""
    t, w = words(lang), WORDS[lang]
    return [Heading(Author(ex.id), 2, ex.title),
            Paragraph(f"{t['given']}:"), given_math(ex),
            Paragraph(f"{w['compute']}:"),
            Items(tuple(question(q, lang) for q in asked(ex)), numbered=True)]


def questions_document(exercises: list[Exercise], lang: str = "en", name: str = "") -> Document:
    """The sheet of every exercise; `name` (the file or folder) titles it."""
    t, w = words(lang), WORDS[lang]
    blocks: list = [Paragraph(w["note"])]
    for ex in exercises:
        blocks += question_blocks(ex, lang)
    title = (Author(name) if name else Author(exercises[0].id) if len(exercises) == 1
             else t["exercises"])
    return Document((f"{w['questions']}: ", title), tuple(blocks), lang)
