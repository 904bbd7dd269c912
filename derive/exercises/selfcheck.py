"""What a self-check page judges a student's answer with, computed here so that the page needs
no derive: each asked quantity's exact value and the exercise's rule for it, the value of every
known mistake (catalogued, wrong schemes, an earlier quantity rounded early), and the quantity
as a function of the student's own earlier answers (to say an error was carried forward).

The same sources as `derive check`'s diagnosis (`derive.exercises.diagnosis`): a page names the
mistakes that the check would name for the same value.
"""

from __future__ import annotations

import sympy as sp

from derive.exercises.check import Report
from derive.exercises.diagnosis import EARLY_ROUNDING_PLACES, _rounded, _shown_places, _try
from derive.exercises.diagnosis import _mistakes as known_mistakes
from derive.exercises.page import Asked, Carried, Known, Rule
from derive.kernel.dag import tree_size
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.recipes.base import Context
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
    """Whether a page can evaluate the form exactly: sums, products and integer powers of
    rationals and symbols, not too large."""
    items = value if isinstance(value, list) else [value]
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
                      (node.is_Pow and node.exp.is_Integer and abs(node.exp) <= MAX_POWER)):
                return False
    return True


def _moves(value) -> bool:
    items = value if isinstance(value, list) else [value]
    return any(isinstance(v, sp.Basic) and v.free_symbols for v in items)


def _carried(report: Report, name: str, earlier: list[str]) -> tuple[Carried, ...]:
    """The forms of `name` in the student's answers to each earlier quantity (the nearest
    first), then to all of them together."""
    ex = report.exercise
    groups = [(p,) for p in reversed(earlier)]
    if len(earlier) > 1:
        groups.append(tuple(earlier))
    out: list[Carried] = []
    try:
        with time_bound(CARRIED_SECONDS):
            for group in groups:
                symbols = {p: _symbols(p, report.values[p]) for p in group}
                if any(s is None for s in symbols.values()):
                    continue
                form = _try(lambda c: c[name], Context(ex.recipe, ex.given, symbols))
                if form is None or not _moves(form) or not _rational_form(form):
                    continue
                if isinstance(form, list) != isinstance(report.values[name], list):
                    continue
                out.append(Carried(group, form))
    except _GIVE_UP:  # this bound, or the command's: that one fires again at once
        pass
    return tuple(out)


def _known(report: Report, name: str, earlier: list[str]) -> tuple[Known, ...]:
    """Every known mistake's value for `name` (the recipe's, its wrong schemes, and an earlier
    quantity rounded to 0…4 places first), each value once, none equal to the right one."""
    ex, right = report.exercise, report.values[name]
    base = Context(ex.recipe, ex.given)
    out: list[Known] = []
    seen = [right]

    def add(mistake, en, zh, value):
        if value is not None and value not in seen:
            seen.append(value)
            out.append(Known(mistake, en, zh, value))

    for mistake, (en, zh), compute, candidates in known_mistakes(ex.recipe, name, ex.given):
        try:
            if candidates is None:
                add(mistake, en, zh, _try(compute, base))
                continue
            for cand in _try(candidates, base) or ():
                add(mistake, cand.en, cand.zh, cand.value)
        except RecursionError:  # a mistake too deep to compute: left out
            continue
    claims = ex.claims
    try:
        with time_bound(ROUNDED_EARLY_SECONDS):
            for p in earlier:
                shown = _shown_places(claims.get(p), report.values[p])
                for places in EARLY_ROUNDING_PLACES:
                    if places < shown:
                        continue
                    ctx = Context(ex.recipe, ex.given, {p: _rounded(report.values[p], places)})
                    add("rounded_early",
                        f"{p} was rounded to {plural(places, 'place')} before computing {name}",
                        f"先把 {p} 四舍五入到 {places} 位小数,再算 {name}",
                        _try(lambda c: c[name], ctx))
    except _GIVE_UP:
        pass
    return tuple(out)


def asked_questions(report: Report, names: list[str], rules: dict[str, Rule]) -> list[Asked]:
    """What a page needs for each asked quantity, in derivation order."""
    out = []
    for i, name in enumerate(names):
        earlier = names[:i]
        out.append(Asked(name, report.values[name], rules[name],
                         _known(report, name, earlier), _carried(report, name, earlier)))
    return out
