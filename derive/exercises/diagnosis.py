"""Diagnosis of wrong claims, the way the lesson debugs: from the first mismatch.

For each wrong claim, in the derivation's order:
1. the earliest wrong quantity is named (`first_wrong`);
2. if the claim follows correctly from the author's own earlier wrong value, the error is
   carried forward (`carried_from` names that quantity);
3. otherwise the catalogue of known mistakes is tried: named wrong quantities (such as
   `mean_of_means`) and the recipe's mistakes (sign, convention, sum for mean, …), and an
   earlier quantity rounded too early (`rounded_early`).
"""

from __future__ import annotations

from dataclasses import dataclass

from derive.exercises.claims import Claim, holds, round_places
from derive.graph.evaluate import NotEvaluable
from derive.recipes import Context, Recipe
from derive.wording import plural

EARLY_ROUNDING_PLACES = range(0, 5)


@dataclass(frozen=True)
class Diagnosis:
    first_wrong: str
    carried_from: str | None = None
    mistake: str | None = None
    explanation: str = ""
    also: tuple[str, ...] = ()
    """Other known mistakes that give the same value."""
    zh: str = ""
    """The explanation in Chinese, where the mistake's recipe gives one."""
    args: tuple = ()
    """The facts behind the explanation, for other languages: ("shape", claimed, expected),
    ("rounded", quantity, places, target), ("unknown", first_wrong_is_this_one),
    ("formula", witness) or ("undecided", reason)."""
    witness: dict | None = None
    """A wrong formula answer's witness: {symbol: value, …, "claimed": value, "expected":
    value}, exact strings."""

    def as_dict(self) -> dict:
        out = {"first_wrong": self.first_wrong, "carried_from": self.carried_from,
               "mistake": self.mistake, "also": list(self.also),
               "explanation": self.explanation}
        if self.witness is not None:
            out["witness"] = dict(self.witness)
        return out


def short(value: str, limit: int = 40) -> str:
    """An exact value as the explanation shows it: whole up to `limit` characters, else its
    ends and its length (the JSON witness keeps every digit)."""
    if len(value) <= limit:
        return value
    return f"{value[:12]}…{value[-6:]} ({len(value):,} characters)"


def formula_diagnosis(name: str, judgement) -> Diagnosis | None:
    """The diagnosis of a formula answer: where it differs (wrong), or why it is undecided."""
    if judgement.status == "wrong":
        w = dict(judgement.witness)
        claimed, expected, member = w.pop("claimed"), w.pop("expected"), w.pop("member", None)
        shown = {k: v for k, v in w.items() if v != "0"} if len(w) > 6 else w
        at = ", ".join(f"{k} = {short(v)}" for k, v in shown.items())
        if len(shown) < len(w):
            at = f"{at} and every other symbol 0" if at else "every symbol 0"
        of = f" (member {member})" if member else ""
        return Diagnosis(name, explanation=f"at {at}{of} the formula gives {short(claimed)}, "
                         f"but {name} is {short(expected)}", args=("formula", judgement.witness),
                         witness=judgement.witness)
    if judgement.status == "undecided":
        return Diagnosis(name, explanation=f"undecided: {judgement.reason}",
                         args=("undecided", judgement.reason))
    return None


def _try(compute, ctx):
    """A mistake's (or a carried claim's) value, or None where it has none: a division by
    zero, a log of 0 or a value too large in that computation (ArithmeticError) explains
    nothing."""
    try:
        return compute(ctx)
    except (KeyError, TypeError, ArithmeticError, IndexError, NotEvaluable):
        return None


def _mistakes(recipe: Recipe, name: str, given) -> list[tuple[str, tuple[str, str], object]]:
    """(name, (English, Chinese) description, compute) of every known mistake for quantity
    `name`: the recipe's own mistakes first (they are the more specific), then its wrong
    schemes."""
    out = [(m.name, (m.doc, m.zh), compute) for m in recipe.mistakes
           if (compute := m.at(name)) is not None
           and all(given.get(n) is not None for n in m.needs)]
    own = {m.name for m in recipe.mistakes}  # a wrong scheme that is also a mistake: once
    out += [(q.name, (q.doc, ""), q.compute) for q in recipe.available(given)
            if name in q.mistake_of and q.name not in own]
    return out


def _rounded(value, places):
    if isinstance(value, list):
        return [_rounded(v, places) for v in value]
    return round_places(value, places)


def _shape(value) -> str:
    if isinstance(value, (list, tuple)):
        inner = {_shape(v) for v in value}
        return f"a list of {plural(len(value), 'value')}" + (
            "" if inner == {"a number"} else " (nested)")
    return "a number"


def shape_mismatch(claim: Claim, expected) -> tuple[str, str] | None:
    """(the claim's shape, the quantity's shape) when they differ (a number for a list, a
    wrong length), else None."""
    def same(c, e):
        if c.is_list != isinstance(e, (list, tuple)):
            return False
        return not c.is_list or (len(c.value) == len(e) and all(map(same, c.value, e)))
    if same(claim, expected):
        return None
    got = _shape(claim.exact_value())
    return got, _shape(expected)


def diagnose(recipe: Recipe, given, claims: dict[str, Claim], wrong: list[str],
             expected: dict) -> dict[str, Diagnosis]:
    """A diagnosis for each wrong claim (names in derivation order)."""
    if not wrong:
        return {}
    order = [q.name for q in recipe.available(given)]
    first = wrong[0]
    out = {}
    for name in wrong:
        claim = claims[name]
        mismatch = shape_mismatch(claim, expected[name])
        if mismatch:
            got, want = mismatch
            out[name] = Diagnosis(first, explanation=f"the claim is {got}, but the quantity is "
                                  f"{want}", args=("shape", got, want))
            continue
        # an earlier claim of the wrong shape (a list for a number) is never carried forward:
        # computing with it would repeat lists, not diagnose
        earlier_wrong = [p for p in wrong if order.index(p) < order.index(name)
                         and shape_mismatch(claims[p], expected[p]) is None]
        found = None
        for p in reversed(earlier_wrong):
            ctx = Context(recipe, given, {p: claims[p].exact_value()})
            value = _try(lambda c, name=name: c[name], ctx)
            if value is not None and holds(claim, value):
                found = Diagnosis(first, carried_from=p, explanation=(
                    f"follows correctly from your wrong {p}: the error is carried forward"))
                break
        if found is None:
            base = Context(recipe, given)
            matches = [(mname, doc) for mname, doc, compute in _mistakes(recipe, name, given)
                       if (value := _try(compute, base)) is not None and holds(claim, value)]
            if matches:
                (mname, (doc, zh)), others = matches[0], tuple(m for m, _ in matches[1:])
                found = Diagnosis(first, mistake=mname, explanation=doc, zh=zh, also=others)
        if found is None:
            for p in order[: order.index(name)]:
                for places in EARLY_ROUNDING_PLACES:
                    ctx = Context(recipe, given, {p: _rounded(expected[p], places)})
                    value = _try(lambda c, name=name: c[name], ctx)
                    if (value is not None and value != expected[name]
                            and holds(claim, value)):
                        found = Diagnosis(first, mistake="rounded_early", explanation=(
                            f"{p} was rounded to {plural(places, 'place')} before computing "
                            f"{name}"), args=("rounded", p, places, name))
                        break
                if found:
                    break
        if found is None:
            where = ("this is the first wrong quantity" if name == first
                     else f"the first wrong quantity is {first}")
            found = Diagnosis(first, explanation=f"no known mistake gives this value; {where}",
                              args=("unknown", name == first))
        out[name] = found
    return out
