"""Diagnosis of wrong claims, the way the lesson debugs: from the first mismatch.

For each wrong claim, in the derivation's order:
1. the earliest wrong quantity is named (`first_wrong`);
2. a value printed from binary floating point (`float_artefact`) is named first, and a tie
   rounded to the even digit is the tie of its two causes (`half_to_even` or `float_at_tie`):
   the value is the right one, written the way a program or a rounding rule writes it;
3. if the claim follows correctly from the author's own earlier wrong value, or from several
   of them together, the error is carried forward (`carried_from` names the first of them,
   `carried_from_all` all of them); a wrong formula answer counts by its value on this
   exercise (derive.exercises.formula_values);
4. otherwise the catalogue of known mistakes is tried: named wrong quantities (such as
   `mean_of_means`) and the recipe's mistakes (sign, convention, sum for mean, …), and an
   earlier quantity rounded too early (`rounded_early`);
5. the rule of evidence (derive.exercises.evidence): a mistake is named only when no other
   known mistake gives the same value; several are a tie, listed; a generic edit that alone
   fits is offered unless the same edit fits another wrong claim of the exercise;
6. no name by coincidence: a mistake that matches a claim one slip from the right value (one
   digit off, a rounding of a rounding) cannot be told from the slip, so it is offered
   ("could also be", `also`) and not named.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations, product

import sympy as sp

from derive.exercises import artefacts, evidence
from derive.exercises.claims import Accepted, Claim, accepted, holds, round_places
from derive.exercises.formula_mistakes import formula_mistake
from derive.exercises.near_miss import near_miss
from derive.graph.evaluate import NotEvaluable
from derive.graph.words import cat
from derive.kernel import intervals
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.recipes import Context, Recipe
from derive.wording import joined, plural, short

EARLY_ROUNDING_PLACES = range(0, 5)

MAX_CARRIED_SETS = 64
"""Most sets of several earlier wrong claims tried together for one claim (every subset of
size 2 and more when there are at most 6 of them, else all of them at once); only claims
that, alone, change the quantity's value are in them."""

ALL_SUBSETS_UP_TO = 6

CARRIED_SETS_SECONDS = 2.0
"""Most time spent on the sets for one claim, and then on the values that round to the
earlier claims (`_carried_rounding`), together, within the exercise's own bound."""

MAX_ROUNDED_LEAVES = 6
"""Most rounded numbers taken as intervals together (a box of at most 2^6 = 64 corners,
each one computation of the quantity)."""

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
    ("rounded", quantity, places, target), ("unknown", first_wrong_is_this_one, the first
    wrong quantity it is computed from: "" for none, None when not known),
    ("formula", witness), ("undecided", reason, its Chinese), ("float", ((index, claimed,
    write), …), suggested test), ("half_even", ((index, claimed, exact, "places" |
    "sig", digits, half away), …)) or ("near", the mistake's own Diagnosis) for a mistake
    offered but not named; an index is 1-based, 0 for a number."""
    witness: dict | None = None
    """A wrong formula answer's witness: {symbol: value, …, "claimed": value, "expected":
    value}, exact strings."""
    carried_from_all: tuple[str, ...] = ()
    """Every earlier wrong claim the error is carried from, in derivation order
    (`carried_from` is the first of them)."""
    details: dict | None = None
    """The facts of a named mistake, for JSON: which elements, which stage (exact strings and
    integers)."""
    from_formula: tuple[str, ...] = ()
    """The carried claims that are wrong formula answers (carried by their value on this
    exercise)."""
    candidates: tuple[str, ...] = ()
    """Every known mistake that gives the claimed value, in the order they are listed
    (derive.exercises.evidence): the named one, the tie, or the one offered."""
    certainty: str | None = None
    """"named", "tied" or "offered" when a known mistake gives the value (the rule of
    evidence), else None."""

    @property
    def carried(self) -> tuple[str, ...]:
        """The earlier wrong claims this one follows from (empty when it does not)."""
        if self.carried_from_all:
            return self.carried_from_all
        return (self.carried_from,) if self.carried_from else ()

    def as_dict(self) -> dict:
        out = {"first_wrong": self.first_wrong, "carried_from": self.carried_from,
               "carried_from_all": list(self.carried),
               "mistake": self.mistake, "also": list(self.also),
               "explanation": self.explanation}
        if self.witness is not None:
            out["witness"] = dict(self.witness)
        if self.details is not None:
            out["details"] = dict(self.details)
        if self.certainty is not None:
            out["candidates"] = list(self.candidates)
            out["certainty"] = self.certainty
        return out


def formula_diagnosis(name: str, judgement, answer=None, recipe: Recipe | None = None,
                      given=None) -> Diagnosis | None:
    """The diagnosis of a formula answer: where it differs (wrong), and the named mutation of
    the right formula it is exactly (derive.exercises.formula_mistakes) when `answer`,
    `recipe` and `given` are passed; or why it is undecided."""
    if judgement.status == "wrong":
        w = dict(judgement.witness)
        claimed, expected, member = w.pop("claimed"), w.pop("expected"), w.pop("member", None)
        shown = {k: v for k, v in w.items() if v != "0"} if len(w) > 6 else w
        at = ", ".join(f"{k} = {short(v)}" for k, v in shown.items())
        if len(shown) < len(w):
            at = f"{at} and every other symbol 0" if at else "every symbol 0"
        of = f" (member {member})" if member else ""
        where = f"at {at}{of} " if at else (f"for member {member} " if member else "")
        said = (f"{where}the formula gives {short(claimed)}, but {name} is {short(expected)}")
        named = None if answer is None or recipe is None else \
            formula_mistake(answer, recipe, given, name)
        if named is not None:
            return Diagnosis(name, mistake=named.name, explanation=cat(named.en, "; ", said),
                             zh=named.zh, also=named.also, args=("formula", judgement.witness),
                             witness=judgement.witness)
        return Diagnosis(name, explanation=said, args=("formula", judgement.witness),
                         witness=judgement.witness)
    if judgement.status == "undecided":  # a declared sentence (derive/exercises/undecided.py)
        zh = judgement.why.say("zh") if judgement.why is not None else judgement.reason
        return Diagnosis(name, explanation=f"undecided: {judgement.reason}",
                         args=("undecided", judgement.reason, zh))
    return None


def _try(compute, ctx):
    """A mistake's (or a carried claim's) value, or None where it has none: a division by
    zero, a log of 0 or a value too large in that computation (ArithmeticError) explains
    nothing; nor does one nested too deeply to compute (RecursionError)."""
    try:
        return compute(ctx)
    except (KeyError, TypeError, ArithmeticError, IndexError, NotEvaluable, RecursionError):
        return None


def _mistakes(recipe: Recipe, name: str, given) -> list[tuple[str, tuple[str, str], object,
                                                              object]]:
    """(name, (English, Chinese) description, compute, candidates) of every known mistake for
    quantity `name` (its target, or a later quantity it also changes): the recipe's own mistakes
    first (they are the more specific), then its wrong schemes."""
    out = [(m.name, (m.doc, m.zh), compute, m.candidates if name == m.target else None)
           for m in recipe.mistakes if (compute := m.at(name)) is not None
           and all(given.get(n) is not None for n in m.needs)]
    own = {m.name for m in recipe.mistakes}  # a wrong scheme that is also a mistake: once
    out += [(q.name, (q.doc, ""), q.compute, None) for q in recipe.available(given)
            if name in q.mistake_of and q.name not in own]
    return out


def _rounded(value, places):
    if isinstance(value, list):
        return [_rounded(v, places) for v in value]
    return round_places(value, places)


def _dims(value) -> tuple[int, ...] | None:
    """The shape of a rectangular nested list ((2, 3) for two rows of three), None if
    ragged; () for a number."""
    if not isinstance(value, (list, tuple)):
        return ()
    inner = {_dims(v) for v in value}
    if len(inner) != 1 or None in inner:
        return None
    return (len(value), *inner.pop())


def _shape(value) -> str:
    dims = _dims(value)
    if dims is not None and len(dims) > 1:  # a matrix: of shape 2×3
        return "of shape " + "×".join(map(str, dims))
    if dims is None and all(isinstance(v, (list, tuple)) for v in value):
        return "a ragged list (rows of " + joined(
            [str(len(v)) for v in value]) + " entries)"
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


def _elements(claim: Claim, expected) -> list[tuple[int, Claim, object]]:
    """(1-based index, element claim, its expected value) of a flat list claim, or the claim
    itself as element 0 of a number; [] for a nested list (not diagnosed element-wise)."""
    if not claim.is_list:
        return [(0, claim, expected)]
    if any(c.is_list for c in claim.value) or not isinstance(expected, (list, tuple)):
        return []
    return [(n, c, e) for n, (c, e) in enumerate(zip(claim.value, expected), 1)]


def _explained(claim: Claim, expected, explains) -> list[tuple[int, Claim, object, object]]:
    """The elements `explains` accounts for, (index, element, expected, what it returned),
    when every wrong element is one of them (else []): a list claim is diagnosed only when
    each of its wrong elements has the same story."""
    out = []
    for n, c, e in _elements(claim, expected):
        if holds(c, e):
            continue
        why = explains(c, e)
        if why is None:
            return []
        out.append((n, c, e, why))
    return out


def _where(n: int) -> str:
    return f"element {n}: " if n else ""


def _value_text(c: Claim) -> str:
    """The claimed value as written, without its stated test (`0.12`, not `0.12 (places 2)`)."""
    return c.text.rsplit(" (", 1)[0] if c.test else c.text


def _float_artefact(claim: Claim, expected, first: str) -> Diagnosis | None:
    """The claim (or each of its wrong elements) is a double's printed value a few ulps from
    the right value: written from binary floating point."""
    found = _explained(claim, expected, lambda c, e: (
        True if c.test is None and c.places is not None  # a decimal, as a program prints
        and getattr(c.value, "is_Rational", False) and artefacts.float_artefact(c.value, e)
        else None))
    if not found:
        return None
    parts, elements = [], []
    for n, c, e, _ in found:
        right = artefacts.terminating(e) or str(e)
        elements.append({"index": n, "claimed": c.text, "expected": str(e), "write": right})
        parts.append(f"{_where(n)}{c.text} is {right} as binary floating point prints it")
    test = 'abs = 1e-12' if all(e == 0 for _, _, e, _ in found) else 'rel = 1e-12'
    if found[0][0] == 0:
        write, tests = elements[0]["write"], f"{{ value = {found[0][1].text}, {test} }}"
    else:  # each artefact element of a list states its own test
        write = "the exact values"
        tests = "; ".join(f"element {n}: {{ value = {c.text}, {test} }}" for n, c, _, _ in found)
    return Diagnosis(first, mistake="float_artefact", explanation=(
        f"{'; '.join(parts)} (a double within {artefacts.FLOAT_ULPS} ulps of the exact value): "
        f"write {write}, or state the test: {tests}"),
        args=("float", tuple((d["index"], d["claimed"], d["write"]) for d in elements), test),
        details={"elements": elements, "suggest": test})


def _tie_to_even(c: Claim, e) -> tuple[str, object, object] | None:
    """("places" | "sig", digits, the half-away rounding) when the element claim is e, an
    exact tie at its precision, rounded half to even (and that differs from half away)."""
    if c.test == "sig":
        kind, digits = "sig", int(c.tolerance)
        even = artefacts.half_even_sig(e, digits)
    else:
        digits = int(c.tolerance) if c.test == "places" else c.places
        if c.test not in (None, "places") or digits is None:
            return None
        kind, even = "places", artefacts.half_even_places(e, digits)
    if even is None or not holds(c, even):
        return None
    return kind, digits, even


def _half_to_even(claim: Claim, expected, first: str) -> Diagnosis | None:
    """The claim (or each wrong element) is an exact tie rounded to the even digit. Two known
    causes give that value and nothing tells them apart, so they are a tie (the rule of
    evidence): rounding half to even (四舍六入五成双, STACK, decimal rounding to even) and
    a value computed in binary floating point that lands a hair on the other side of the tie
    before it is rounded (what torch prints for 1.98005 computed as 1.98004999…)."""
    found = _explained(claim, expected, _tie_to_even)
    if not found:
        return None
    parts, elements, facts = [], [], []
    for n, c, e, (kind, digits, even) in found:
        at = (plural(digits, "place") if kind == "places"
              else plural(digits, "significant digit"))
        away = artefacts.terminating(-even + 2 * e) or str(-even + 2 * e)
        exact = artefacts.terminating(e) or str(e)
        parts.append(f"{_where(n)}{_value_text(c)} is the exact tie {exact} rounded to the "
                     f"even digit at {at}; half away from zero it is {away}")
        elements.append({"index": n, "claimed": _value_text(c), "expected": str(e), "kind": kind,
                         "digits": digits, "half_away": away})
        facts.append((n, _value_text(c), exact, kind, digits, away))
    fits = tuple(evidence.Fit(name, en, zh) for name, en, zh in TIE_CAUSES)
    en, zh = evidence.words(evidence.TIED, fits)
    names = tuple(f.name for f in fits)
    return Diagnosis(first, also=names, explanation=(
        f"{'; '.join(parts)}. {en[0].upper()}{en[1:]}; derive rounds half away from zero"),
        zh=zh, args=("half_even", tuple(facts), zh), details={"elements": elements},
        candidates=names, certainty=evidence.TIED)


TIE_CAUSES = (
    ("half_to_even", "rounded half to even (banker's rounding), as STACK rounds a tie",
     "按“四舍六入五成双”(银行家舍入)取舍,STACK 也这样舍入中点"),
    ("float_at_tie", "computed in binary floating point, a hair on the other side of the "
     "tie, then rounded, as torch and numpy print it",
     "用二进制浮点数计算,结果落在中点另一侧极近处,再舍入(torch、numpy 打印的就是它)"))
"""The two causes of an exact tie rounded to the even digit (name, English, Chinese)."""


def _carried_value(recipe: Recipe, given, claims: dict[str, Claim], name: str, carried):
    """The value of `name` computed from the author's own claims of `carried` (each replacing
    the computed value: a number as claimed, a wrong formula answer by its value on this
    exercise, a `FormulaValue`), or None where it has none."""
    ctx = Context(recipe, given, {p: claims[p].exact_value() for p in carried})
    return _try(lambda c: c[name], ctx)


@dataclass(frozen=True)
class FormulaValue:
    """A wrong formula answer as a source of carried errors: its value on this exercise."""

    value: object

    def exact_value(self):
        return self.value


def carried_sets(earlier_wrong: list[str]) -> list[tuple[str, ...]]:
    """The sets of earlier wrong claims tried together, smallest first (each in derivation
    order): every subset of 2 and more when there are at most ALL_SUBSETS_UP_TO, else all of
    them at once; at most MAX_CARRIED_SETS."""
    n = len(earlier_wrong)
    if n < 2:
        return []
    if n > ALL_SUBSETS_UP_TO:
        return [tuple(earlier_wrong)]
    out = [s for size in range(2, n + 1) for s in combinations(earlier_wrong, size)]
    return out[:MAX_CARRIED_SETS]


FORMULA_VALUE = "your formula's value on this exercise"
"""How a wrong formula answer a claim is carried from is named in the explanation."""


def _sources(group: tuple[str, ...], formulas: set[str]) -> str:
    """The carried claims' names, a formula answer's marked as its value on this exercise."""
    return joined([f"{p} ({FORMULA_VALUE})" if p in formulas else p for p in group])


ROUNDS_TO = "a value that rounds to your wrong {}"
"""How a carried claim taken as the values that round to it is named (`_carried_rounding`)."""


ROUND_TO = "values that round to your wrong {}"
"""The same for a claim of a list, or for several claims, each taken as the values that round
to it."""


def _through_rounding(group: tuple[str, ...], rounded: tuple[str, ...],
                      formulas: set[str], lists: tuple[str, ...] = ()) -> str:
    """The carried claims' names for the interval path: "a value that rounds to your wrong
    p" (each claim taken as the values that round to it; "values that round to …" for a
    claim of a list), "your wrong q" (one taken as claimed); "values that round to your
    wrong p and q" when every one is rounded."""
    if len(group) > 1 and set(group) == set(rounded):
        return ROUND_TO.format(joined(list(group)))
    return joined([(ROUND_TO if p in lists else ROUNDS_TO).format(p) if p in rounded else
                   f"your wrong {_sources((p,), formulas)}" for p in group])


def _carried(recipe: Recipe, given, claims: dict, name: str,
             earlier_wrong: list[str], expected, first: str) -> Diagnosis | None:
    """Carried forward: the claim follows from one earlier wrong claim (the nearest first),
    else from several of them together (the fewest first). Only claims that move the value on
    their own join a set: one the quantity does not read (or a recipe does not carry) adds
    nothing but work. A wrong formula answer carries its value on this exercise (its claim
    here a `FormulaValue`). Where the claimed values themselves give nothing, a rounded claim
    stands for every value that rounds to it (`_carried_rounding`), in the same order."""
    formulas = {p for p, c in claims.items() if isinstance(c, FormulaValue)}
    claim, movers = claims[name], []
    for p in reversed(earlier_wrong):
        value = _carried_value(recipe, given, claims, name, (p,))
        if value is None:
            continue
        if holds(claim, value):
            return Diagnosis(first, carried_from=p, carried_from_all=(p,), explanation=(
                f"follows correctly from your wrong {_sources((p,), formulas)}: the error is "
                "carried forward"), from_formula=(p,) if p in formulas else ())
        if value != expected:
            movers.insert(0, p)
    try:
        with time_bound(CARRIED_SETS_SECONDS):
            group = _carried_set(recipe, given, claims, name, movers)
            found = None if group is not None else \
                _carried_rounding(recipe, given, claims, name, earlier_wrong, movers)
    except DecisionTimeout:  # this search's bound, or the exercise's: that one fires again
        return None  # at once when this bound is left (derive.kernel.timebound nests them)
    if group is not None:
        return Diagnosis(first, carried_from=group[0], carried_from_all=group, explanation=(
            f"follows correctly from your wrong {_sources(group, formulas)} together: the "
            "errors are carried forward"), from_formula=tuple(p for p in group if p in formulas))
    if found is None:
        return None
    group, rounded = found
    together = len(group) > 1
    lists = tuple(p for p in rounded if claims[p].is_list)
    return Diagnosis(
        first, carried_from=group[0], carried_from_all=group, explanation=(
            f"follows correctly from {_through_rounding(group, rounded, formulas, lists)}"
            f"{' together' if together else ''}: the "
            f"{'errors are' if together else 'error is'} carried forward"),
        from_formula=tuple(p for p in group if p in formulas),
        args=("carried_rounding", rounded, lists))


def _carried_set(recipe: Recipe, given, claims: dict[str, Claim], name: str,
                 movers: list[str]) -> tuple[str, ...] | None:
    """The first of `carried_sets(movers)` the claim follows from, or None (its caller bounds
    the search by CARRIED_SETS_SECONDS: the verdict never waits on a diagnosis)."""
    for group in carried_sets(movers):
        value = _carried_value(recipe, given, claims, name, group)
        if value is not None and holds(claims[name], value):
            return group
    return None


def _carried_rounding(recipe: Recipe, given, claims: dict, name: str,
                      earlier_wrong: list[str], movers: list[str]
                      ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(the carried claims, those of them taken as intervals) when the claim follows from some
    value that rounds to one earlier wrong claim (the nearest first), else to several of them
    together (`carried_sets(movers)`, the fewest first), or None: the author carried the
    unrounded value and wrote it rounded (a loss 0.948437… claimed 0.9484, the gradient
    computed from 0.948437…). Tried only where the claimed values themselves give nothing,
    in the time the sets left (its caller's bound, CARRIED_SETS_SECONDS)."""
    for group in [*((p,) for p in reversed(earlier_wrong)), *carried_sets(movers)]:
        rounded = _reached(recipe, given, claims, name, group)
        if rounded:
            return group, rounded
    return None


@dataclass(frozen=True)
class _Leaf:
    """One rounded number of a carried claim taken as an interval: the claim's name, its
    element (None for a number), the values it holds against."""

    source: str
    index: int | None
    within: Accepted


def _leaves(claims: dict, group: tuple[str, ...]) -> list[_Leaf] | None:
    """The numbers of `group`'s claims that stand for more than one value (a decimal rounded,
    a tolerance), or None when a claim of the group is a nested list; a wrong formula answer's
    value, an integer, a fraction, a `sig` or `rel` claim each stay the one value claimed."""
    out = []
    for p in group:
        c = claims[p]
        if isinstance(c, FormulaValue):
            continue
        items = list(enumerate(c.value)) if c.is_list else [(None, c)]
        for i, e in items:
            if e.is_list:
                return None
            within = accepted(e)
            if within is not None and not within.point:
                out.append(_Leaf(p, i, within))
    return out


def _overridden(claims: dict, group: tuple[str, ...], leaves: list[_Leaf], at) -> dict:
    """The carried claims' values with each leaf's number replaced by `at[k]` (leaf k)."""
    values = {p: claims[p].exact_value() for p in group}
    values = {p: list(v) if isinstance(v, list) else v for p, v in values.items()}
    for leaf, v in zip(leaves, at):
        if leaf.index is None:
            values[leaf.source] = v
        else:
            values[leaf.source][leaf.index] = v
    return values


def _below(value, q) -> bool:
    """value < q, certified (False when not shown)."""
    return (bool(value < q) if value.is_Rational else intervals.compare(value, q) == -1)


def _above(value, q) -> bool:
    """value > q, certified (False when not shown)."""
    return (bool(value > q) if value.is_Rational else intervals.compare(value, q) == 1)


def _reached(recipe: Recipe, given, claims: dict, name: str,
             group: tuple[str, ...]) -> tuple[str, ...]:
    """The claims of `group` taken as intervals when some values that round to them give a
    value that the claim `name` holds against; () when that is not shown.

    The argument. Each rounded number v_k stands for the values S_k it holds against, an
    interval from lo_k to hi_k (claims.accepted); their product S lies between the closed box
    B = Π [lo_k, hi_k] and its interior. Let f be the quantity's value as the recipe computes
    it from them, and A the values the claim holds against, an interval from a to b.
    1. f is continuous on B. The quantity is computed with each v_k a fresh real Dummy: the
       evaluator decides no sign of a value with a symbol in it (exact_sign: None, so relu,
       clamp, sign and the like raise UndecidedSign: not shown), and a recipe's own Python
       comparison of a symbolic value raises TypeError, so no branch is taken on the v_k
       and the expression F is f at every point. A finite enclosure of F over B
       (intervals.enclose_box) certifies that F is a composition of functions continuous
       where they are enclosed.
    2. f(interior of B) is connected (the interior of a box is), and every corner's value is
       a limit of interior values: the closure of f(interior of B) holds the interval from
       the least to the greatest corner value. When some corner value is below b and some is
       above a (for a point A = {a}: some below a and some above), that interval meets the
       open interval (a, b) (or holds a strictly inside it), which lies in A; an open set met
       by the closure of a set meets the set, so some point of the interior, which lies in
       S, gives a value in A.
    3. A corner in S whose value the claim holds against gives it directly (no continuity
       needed: it is checked first).
    The corners' values are computed exactly, as the claims' own are (a Context with the
    corner as the override); the Dummy and the enclosure only certify step 1, so they are
    computed only when steps 2 or 3 find a value."""
    claim, leaves = claims[name], _leaves(claims, group)
    if claim.is_list and leaves:
        return _reached_list(recipe, given, claims, name, group, leaves)
    want = accepted(claim)
    if want is None or not leaves or len(leaves) > MAX_ROUNDED_LEAVES:
        return ()
    a, b = want.lo, want.hi
    below = above = direct = False
    for corner in product(*[(0, 1)] * len(leaves)):
        at = [leaf.within.hi if end else leaf.within.lo for leaf, end in zip(leaves, corner)]
        ctx = Context(recipe, given, _overridden(claims, group, leaves, at))
        value = _try(lambda c: c[name], ctx)
        if not isinstance(value, sp.Expr) or not value.is_number:
            return ()
        inside = all(leaf.within.hi_in if end else leaf.within.lo_in
                     for leaf, end in zip(leaves, corner))
        direct = direct or (inside and holds(claim, value))
        below, above = below or _below(value, b), above or _above(value, a)
    sources = tuple(dict.fromkeys(leaf.source for leaf in leaves))
    if direct:  # a point of the box itself: no continuity needed
        return sources
    if not (below and above):
        return ()
    symbols = [sp.Dummy(f"{leaf.source}_{leaf.index}", real=True) for leaf in leaves]
    ctx = Context(recipe, given, _overridden(claims, group, leaves, symbols))
    form = _try(lambda c: c[name], ctx)
    if not isinstance(form, sp.Expr):
        return ()
    box = {x: (leaf.within.lo, leaf.within.hi) for x, leaf in zip(symbols, leaves)}
    return () if intervals.enclose_box(form, box) is None else sources


MAX_LIST_LEAVES = 64
"""Most rounded numbers of the earlier claims for a later claim of a list (each of its
elements reads at most MAX_ROUNDED_LEAVES of them)."""


def _reached_list(recipe: Recipe, given, claims: dict, name: str, group: tuple[str, ...],
                  leaves: list[_Leaf]) -> tuple[str, ...]:
    """`_reached` for a later claim of a list: its elements need one common point of the box,
    which corners do not show in general; they show it when no two elements read the same
    rounded number. The quantity is first computed with a real Dummy per rounded number
    (as in `_reached`, step 1: no branch is taken on them); when the elements' expressions
    read disjoint sets of the Dummies, each element is decided on its own sub-box as a
    number is (its corners' values computed exactly, a corner of the sub-box that rounds to
    the claims and holds, or values on either side with continuity certified), and the
    points found for the elements together are one point of the box, since each element's
    value depends on its own numbers alone. An element that reads none is the value
    computed (the claims' own). Else ()."""
    claim = claims[name]
    if len(leaves) > MAX_LIST_LEAVES or any(c.is_list for c in claim.value):
        return ()
    wants = [accepted(c) for c in claim.value]
    if any(w is None for w in wants):
        return ()
    symbols = [sp.Dummy(f"{leaf.source}_{leaf.index}", real=True) for leaf in leaves]
    form = _try(lambda c: c[name], Context(recipe, given,
                                           _overridden(claims, group, leaves, symbols)))
    if not isinstance(form, list) or len(form) != len(claim.value) or \
            not all(isinstance(f, sp.Expr) for f in form):
        return ()
    reads = [[k for k, x in enumerate(symbols) if x in f.free_symbols] for f in form]
    seen: set[int] = set()
    for ks in reads:
        if seen & set(ks) or len(ks) > MAX_ROUNDED_LEAVES:
            return ()
        seen |= set(ks)
    width = max(map(len, reads))
    found = [not ks and holds(c, f) for ks, c, f in zip(reads, claim.value, form)]
    if not all(found[j] for j, ks in enumerate(reads) if not ks):
        return ()
    below, above = [False] * len(form), [False] * len(form)
    for corner in product(*[(0, 1)] * width):  # element j's k-th number at end corner[k]
        ends = {k: corner[i] for ks in reads for i, k in enumerate(ks)}
        at = [leaf.within.hi if ends.get(k) else leaf.within.lo
              for k, leaf in enumerate(leaves)]
        values = _try(lambda c: c[name], Context(recipe, given,
                                                 _overridden(claims, group, leaves, at)))
        if not isinstance(values, list) or len(values) != len(form):
            return ()
        for j, ks in enumerate(reads):
            v = values[j]
            if not ks or found[j]:
                continue
            if not isinstance(v, sp.Expr) or not v.is_number:
                return ()
            inside = all(leaves[k].within.hi_in if ends[k] else leaves[k].within.lo_in
                         for k in ks)
            found[j] = inside and holds(claim.value[j], v)
            below[j] = below[j] or _below(v, wants[j].hi)
            above[j] = above[j] or _above(v, wants[j].lo)
    for j, ks in enumerate(reads):
        if found[j]:
            continue
        box = {symbols[k]: (leaves[k].within.lo, leaves[k].within.hi) for k in ks}
        if not (below[j] and above[j]) or intervals.enclose_box(form[j], box) is None:
            return ()
    return tuple(dict.fromkeys(leaves[k].source for k in sorted(seen)))


def _fits(recipe: Recipe, given, claim: Claim, name: str) -> list[evidence.Fit]:
    """The recipe's known mistakes and wrong schemes that give the claimed value, in the
    catalogue's order, each with its words and origin (derive.exercises.evidence)."""
    base = Context(recipe, given)
    origin = {m.name: m.origin for m in recipe.mistakes}
    matches = []
    for mname, (doc, zh), compute, candidates in _mistakes(recipe, name, given):
        where = origin.get(mname, evidence.COURSE)  # a wrong scheme is the course's own
        if candidates is None:
            value = _try(compute, base)
            if value is not None and holds(claim, value):
                matches.append(evidence.Fit(mname, doc, zh, where))
            continue
        for cand in _try(candidates, base) or ():
            if cand.value is not None and holds(claim, cand.value):
                matches.append(evidence.Fit(mname, cand.en, cand.zh, where, cand.details))
                break
    return matches


def _known(fits: list[evidence.Fit], first: str,
           corroborated: frozenset[str] = frozenset()) -> Diagnosis | None:
    """The known mistakes that give the claimed value, weighed by the rule of evidence: one
    named, several listed as a tie, a generic edit alone offered (unless corroborated)."""
    weighed = evidence.weigh(fits, corroborated)
    if weighed is None:
        return None
    certainty, ordered = weighed
    names = tuple(f.name for f in ordered)
    if certainty == evidence.NAMED:
        (fit,) = ordered
        return Diagnosis(first, mistake=fit.name, explanation=evidence.said(fit),
                         zh=evidence.said(fit, "zh") if fit.zh else "",
                         details=None if fit.details is None else dict(fit.details),
                         candidates=names, certainty=certainty, args=("fits", ordered))
    en, zh = evidence.words(certainty, ordered)
    return Diagnosis(first, also=names, explanation=en, zh=zh, candidates=names,
                     certainty=certainty, args=(certainty, ordered))


def _shown_places(claim: Claim | None, expected) -> int:
    """Places below which the author did not round `expected`: those of their own claim of
    it when that claim is the exact value as a decimal (a claim of 6.5 means 6.5 was known,
    so it was not rounded to 0 places on the way); 0 otherwise."""
    if claim is None or claim.is_list or claim.formula is not None or claim.test is not None:
        return 0
    if claim.places is None or claim.exact_value() != expected:
        return 0
    return claim.places


def _rounded_early(recipe: Recipe, given, claims: dict[str, Claim], name: str,
                   order: list[str], expected: dict, first: str) -> Diagnosis | None:
    """An earlier quantity rounded to 0…4 places before computing this one (never to fewer
    places than the author's own exact claim of it shows). Not for a claim written as a
    fraction (15/3, 8/16): a value computed from a rounded decimal is written as a decimal, and
    a fraction that happens to equal one is a slip of the exact computation."""
    claim = claims[name]
    if not claim.is_list and "/" in claim.text:
        return None
    for p in order[: order.index(name)]:
        shown = _shown_places(claims.get(p), expected[p])
        for places in EARLY_ROUNDING_PLACES:
            if places < shown:
                continue
            ctx = Context(recipe, given, {p: _rounded(expected[p], places)})
            value = _try(lambda c: c[name], ctx)
            if value is not None and value != expected[name] and holds(claim, value):
                return Diagnosis(first, mistake="rounded_early", explanation=(
                    f"{p} was rounded to {plural(places, 'place')} before computing "
                    f"{name}"), args=("rounded", p, places, name))
    return None


def _not_by_coincidence(claim: Claim, expected, found: Diagnosis | None) -> Diagnosis | None:
    """A named mistake, unless the claim is also one slip from the right value (a digit off,
    a rounding of a rounding): then the slip and the mistake cannot be told apart, and the
    mistake is offered as a possibility (`also`), not named."""
    if found is None or not (found.mistake or found.candidates) or \
            not near_miss(claim, expected):
        return found
    if found.candidates:
        fits = found.args[1]
        also_en, also_zh = evidence.listed(fits), evidence.listed(fits, "zh")
    else:  # rounded_early
        also_en, also_zh = f"{found.mistake}: {found.explanation}", None
    return Diagnosis(found.first_wrong, also=found.candidates or (found.mistake,), explanation=cat(
        "one slip from the right value (a digit off, or a rounding of a rounding), so no "
        "mistake is named; it could also be ", also_en),
        args=("near", found, also_zh), candidates=found.candidates or (found.mistake,),
        certainty=evidence.OFFERED)


def diagnose(recipe: Recipe, given, claims: dict[str, Claim], wrong: list[str],
             expected: dict, formulas: dict | None = None) -> dict[str, Diagnosis]:
    """A diagnosis for each wrong claim of a value (names in derivation order). `formulas`:
    the wrong formula answers, each with its value on this exercise (None where it has none):
    an earlier one is the first wrong quantity, and a claim may follow from its value."""
    if not wrong:
        return {}
    formulas = formulas or {}
    order = [q.name for q in recipe.available(given)]
    first = min([*wrong, *(f for f in formulas if f in order)], key=order.index)
    values = {f: v for f, v in formulas.items() if v is not None and f in order}
    sources = {**claims, **{f: FormulaValue(v) for f, v in values.items()}}
    out, fits = {}, {}
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
        earlier_wrong = sorted(
            (p for p in [*wrong, *values] if order.index(p) < order.index(name)
             and (p in values or shape_mismatch(claims[p], expected[p]) is None)),
            key=order.index)
        found = (_float_artefact(claim, expected[name], first)
                 or _half_to_even(claim, expected[name], first)
                 or _carried(recipe, given, sources, name, earlier_wrong, expected[name], first))
        if found is None:
            fits[name] = _fits(recipe, given, claim, name)  # weighed once all are known
        out[name] = found
    for name, found in fits.items():  # the rule of evidence: another wrong claim that the
        others = frozenset(f.name for n, fs in fits.items() if n != name for f in fs)
        claim = claims[name]  # same generic edit fits corroborates it
        found = _not_by_coincidence(
            claim, expected[name], _known(found, first, others)
            or _rounded_early(recipe, given, claims, name, order, expected, first))
        if found is None:
            feeder = _feeder(recipe, given, name, order, [*wrong, *values])
            where = ("this is the first wrong quantity" if name == first
                     else f"the first wrong quantity is {first}" if feeder in (None, first)
                     else f"the first wrong quantity it depends on is {feeder}" if feeder
                     else f"no earlier wrong quantity feeds it (the first wrong quantity, "
                          f"{first}, is not used in computing it)")
            found = Diagnosis(first, explanation=f"no known mistake gives this value; {where}",
                              args=("unknown", name == first, feeder))
        out[name] = found
    return {name: _certain(d) for name, d in out.items()}


def _feeder(recipe: Recipe, given, name: str, order: list[str], wrong) -> str | None:
    """The first wrong quantity that `name` is computed from (directly or not), "" when no
    wrong quantity is, None when the recipe has no graph to tell."""
    if recipe.graph is None:
        return None
    tensors = recipe.tensors or {}

    def nodes(q: str) -> tuple[str, ...]:  # a tensor quantity is its entries' nodes
        return tensors[q].entries if q in tensors else (q,)

    try:
        graph = recipe.graph(Context(recipe, given))
        feeds = [p for p in sorted(set(wrong), key=order.index)
                 if order.index(p) < order.index(name)
                 and all(n in graph.by_name for n in nodes(p))
                 and any(set(nodes(name)) & graph.depends(n) for n in nodes(p))]
    except (KeyError, ValueError, NotEvaluable):
        return None
    return feeds[0] if feeds else ""


def _certain(d: Diagnosis) -> Diagnosis:
    """A mistake named by a step before the rule of evidence's (a value printed from floating
    point, a tie rounded to even, a quantity rounded too early) has one candidate, named."""
    if d.mistake and d.certainty is None:
        return replace(d, candidates=(d.mistake,), certainty=evidence.NAMED)
    return d
