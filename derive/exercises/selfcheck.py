"""What a self-check page judges a student's answer with, computed here so that the page needs
no derive: the data of `derive check`'s diagnosis of the same answer written as a claim
(derive.exercises.diagnosis), each part in its order. For each asked quantity: its exact value
and rule, the window of a double's printout of it (float_artefact), the values of the known
mistakes (catalogued, wrong schemes), the values after each earlier quantity was rounded early,
and the quantity as a function of the student's earlier answers (each alone, all together) to
say an error was carried forward. Where a part cannot be computed within its bound it is marked
so, and the page names nothing that would depend on it.
"""

from __future__ import annotations

import sympy as sp

from derive.exercises.artefacts import artefact_window
from derive.exercises.check import Report
from derive.exercises.diagnosis import EARLY_ROUNDING_PLACES, _rounded, _try
from derive.exercises.diagnosis import _mistakes as known_mistakes
from derive.exercises.page import STATIC, Asked, Carried, Early, Known, Rule, flat
from derive.kernel.dag import tree_size
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.recipes.base import Context
from derive.recipes.formulas import WORDS as GENERIC_WORDS
from derive.wording import plural

MAX_FORM_NODES = 20_000
"""Largest carried-forward form (tree nodes, all of a list's elements) a page gets; a larger
one is left out."""
CARRIED_SECONDS = 2.0
"""Time for the carried-forward forms of one question; past it, the forms found so far."""
ROUNDED_EARLY_SECONDS = 2.0
"""Time for the rounded-early values of one question (a trajectory recomputed for each
earlier quantity and each place); past it, the values found so far."""
MAX_POWER = 64
"""Largest |exponent| in a carried-forward form (the page's BigInt powers stay small)."""
_GIVE_UP = (DecisionTimeout, RecursionError)
"""A form or a value past these bounds is left out; the page says less, never wrongly."""


def _symbols(name: str, value):
    if isinstance(value, list):
        if any(isinstance(v, list) for v in value):
            return None
        return [sp.Symbol(f"{name}[{i}]") for i in range(len(value))]
    return sp.Symbol(name)


def _rational_form(value) -> bool:
    """Whether a page can evaluate the form: sums, products, integer powers and square roots
    (powers k/2) of rationals and symbols, not too large (a root is bounded by enclosures)."""
    items = flat(value) if isinstance(value, list) else [value]
    left = MAX_FORM_NODES
    for v in items:
        if not isinstance(v, sp.Basic):
            return False
        left -= tree_size(v, left)
        if left < 0:
            return False
        for node in sp.preorder_traversal(v):
            if node.is_Atom:
                if not (node.is_Rational or node.is_Symbol):
                    return False
            elif not (node.is_Add or node.is_Mul or
                      (node.is_Pow and node.exp.is_Rational and node.exp.q in (1, 2)
                       and abs(node.exp.p) <= MAX_POWER)):
                return False
    return True


def _moves(value) -> bool:
    """Whether a form reads a symbol (a matrix's entries too: a nested form that moves is
    never taken as static)."""
    items = flat(value) if isinstance(value, list) else [value]
    return any(isinstance(v, sp.Basic) and v.free_symbols for v in items)


def _carried(report: Report, name: str, earlier: list[str]) -> tuple[Carried, ...]:
    """The forms of `name` in the student's answers to each earlier asked quantity alone,
    then to all of them together (each STATIC where they do not move it, None where the page
    cannot evaluate it: no form within the bounds, or one that is not rational)."""
    ex = report.exercise
    groups = [(p,) for p in earlier]
    if len(earlier) > 1:
        groups.append(tuple(earlier))
    found: dict[tuple[str, ...], object] = {}
    try:
        with time_bound(CARRIED_SECONDS):
            for group in groups:
                symbols = {p: _symbols(p, report.values[p]) for p in group}
                if any(s is None for s in symbols.values()):
                    continue
                form = _try(lambda c: c[name], Context(ex.recipe, ex.given, symbols))
                if form is None:
                    continue
                if not _moves(form):
                    found[group] = STATIC
                elif (_rational_form(form)
                      and isinstance(form, list) == isinstance(report.values[name], list)):
                    found[group] = flat(form)
    except _GIVE_UP:  # this bound, or the command's: that one fires again at once
        pass
    return tuple(Carried(g, found.get(g)) for g in groups)


def quantity_words(recipe, name: str) -> tuple[str, str]:
    """A quantity's words (English, Chinese) as its question names it: the author's title of
    its node, else the recipe's words, else (an author's formula without a title) its name."""
    title = recipe.node_titles.get(name)
    if title is not None:
        return tuple(title)
    words = recipe.words_of(name)
    return (name, name) if words == GENERIC_WORDS else words


def _known(report: Report, name: str) -> tuple[Known, ...]:
    """Every known mistake's value for `name` (the recipe's, then its wrong schemes; a
    candidate list flattened in its order), in `derive check`'s order, with its origin: every
    mistake that gives a value is kept (the page lists a tie as derive check does, the rule of
    evidence), a value once per mistake, none equal to the right one."""
    ex, right = report.exercise, report.values[name]
    base = Context(ex.recipe, ex.given)
    out: list[Known] = []
    origin = {m.name: m.origin for m in ex.recipe.mistakes}

    def add(mistake, en, zh, value):
        if value is not None and value != right:
            out.append(Known(mistake, en, zh, value, origin.get(mistake, "course")))

    for mistake, (en, zh), compute, candidates in known_mistakes(ex.recipe, name, ex.given):
        try:
            if candidates is None:
                add(mistake, en, zh, _try(compute, base))
                continue
            for cand in _try(candidates, base) or ():
                add(mistake, cand.en, cand.zh, cand.value)
        except RecursionError:  # a mistake too deep to compute: left out
            continue
    return tuple(out)


def _early(report: Report, name: str) -> tuple[Early, ...]:
    """The value of `name` after each earlier quantity (asked or not) was rounded to 0…4
    places, in `derive check`'s order, where it differs from the right value. Which of them
    apply depends on the student's own answers (derive.exercises.diagnosis._shown_places):
    the page decides that."""
    ex, right = report.exercise, report.values[name]
    order = [q.name for q in ex.recipe.available(ex.given)]
    en_n, zh_n = quantity_words(ex.recipe, name)
    out: list[Early] = []
    try:
        with time_bound(ROUNDED_EARLY_SECONDS):
            for p in order[: order.index(name)]:
                en_p, zh_p = quantity_words(ex.recipe, p)
                for places in EARLY_ROUNDING_PLACES:
                    ctx = Context(ex.recipe, ex.given, {p: _rounded(report.values[p], places)})
                    value = _try(lambda c: c[name], ctx)
                    if value is None or value == right:
                        continue
                    out.append(Early(
                        p, places, f"{en_p} was rounded to {plural(places, 'place')} before "
                        f"computing {en_n}", f"先把{zh_p or p}四舍五入到 {places} 位小数,"
                        f"再算{zh_n or name}", value))
    except _GIVE_UP:
        pass
    return tuple(out)


def _artefact(value):
    """Each element's float-artefact window (derive.exercises.artefacts.artefact_window)."""
    if isinstance(value, list):
        return [_artefact(v) for v in value]
    if not isinstance(value, sp.Basic):
        return None
    try:
        return artefact_window(value)
    except _GIVE_UP:
        return None


def asked_questions(report: Report, names: list[str], rules: dict[str, Rule]) -> list[Asked]:
    """What a page needs for each asked quantity, in derivation order."""
    out = []
    ex = report.exercise
    for i, name in enumerate(names):
        earlier = names[:i]
        tensor = ex.recipe.tensors.get(name)
        out.append(Asked(name, report.values[name], rules[name], _known(report, name),
                         _carried(report, name, earlier), _early(report, name),
                         _artefact(report.values[name]), quantity_words(ex.recipe, name),
                         tensor.shape if tensor is not None and tensor.shape else None))
    return out
