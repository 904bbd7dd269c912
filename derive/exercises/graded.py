"""An asked quantity as a learning management system's numerical question grades it: each
answer a band of decimals, centre ± tolerance, both exact terminating decimals, so that an
LMS that reads decimals only (Moodle's numerical and cloze questions) accepts what derive's
judge accepts. Computed here, from the self-check page's data (`Asked`: the one judge), so
that the renderers print and compute nothing.

A part's answers, in the order an LMS tries them (the first band that holds a response wins):
the right band; each band of known mistakes whose values lie close together (one named, or
several given as candidates, never one named for another's value); the values that follow
from an earlier part answered with a named mistake (carried forward). A mistake's band that
meets the right band is left out, and so is a carried-forward band that meets a mistake's: an
explanation that names a mistake the student did not make is worse than none.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.exercises.claims import round_places, round_sig
from derive.exercises.evidence import GENERIC
from derive.exercises.page import DEFAULT_SIG, STATIC, Asked, Rule, flat
from derive.kernel import intervals
from derive.kernel.dag import joined, nodes, postorder
from derive.kernel.exact import terminating_places

__all__ = ["CARRIED_CREDIT", "EXACT_SIGNIFICANT", "Answer", "Band", "Part", "band",
           "carried_value", "graded_parts"]

EXACT_SIGNIFICANT = 10
"""An exact value whose decimal does not terminate (1/3, √2) is asked to this many
significant digits: an LMS's numerical question reads decimals only."""
CARRIED_CREDIT = 50
"""Percent given to a value that follows from an earlier part answered with a named mistake:
the LMS grades each part alone and cannot see that the earlier answer was that mistake, so the
working is rewarded by half, not whole (a value right for the wrong reason earns no more)."""
ABS_SLACK_DIGITS = 6
"""An `abs`/`rel` tolerance around a value that cannot be written exactly is written with
this many more decimals than the tolerance's first significant one, and shrunk by the
centre's rounding: the band stays inside the judge's interval (it loses < 10^-6 of it)."""
MAX_BITS = 4096


@dataclass(frozen=True)
class Band:
    """The decimals from centre − tolerance to centre + tolerance (ends included)."""

    centre: sp.Rational
    tolerance: sp.Rational

    @property
    def lo(self) -> sp.Rational:
        return self.centre - self.tolerance

    @property
    def hi(self) -> sp.Rational:
        return self.centre + self.tolerance

    def meets(self, other: Band) -> bool:
        return self.lo <= other.hi and other.lo <= self.hi


@dataclass(frozen=True)
class Answer:
    """One answer of a part: its band, the credit in percent, what it is (`right`, `mistake`,
    `carried`), and the candidates' words (English, Chinese) with whether they are named (one
    course or declared mistake alone) or only offered (a tie, or a generic edit)."""

    band: Band
    credit: int
    kind: str
    en: tuple[str, ...] = ()
    zh: tuple[str, ...] = ()
    named: bool = False
    sources: tuple[tuple[str, str], ...] = ()
    """For `carried`: each candidate's earlier quantity, its words (English, Chinese)."""


@dataclass(frozen=True)
class Part:
    """One number a student types: an asked quantity, or one entry of a list or tensor one
    (`index`, row-major); `words` the quantity's (English, Chinese)."""

    name: str
    index: int | None
    words: tuple[str, str]
    rule: Rule
    answers: tuple[Answer, ...]


def _enclosure(value) -> tuple[sp.Rational, sp.Rational] | None:
    """(lo, hi) around the value, (v, v) for a rational; None when it cannot be bounded."""
    e = sp.Integer(value) if isinstance(value, int) else value
    if not isinstance(e, sp.Basic):
        return None
    if e.is_Rational:
        return e, e
    try:
        for bits in (128, 512, MAX_BITS):
            got = intervals.enclose(e, bits)
            if got is not None and got[1] - got[0] < sp.Rational(1, 10 ** 40) * max(
                    1, abs(got[0])):
                return got
    except Exception:  # noqa: BLE001 — NoEnclosure: not a real constant the intervals handle
        return None
    return None


def _from_sig(parts, sig: int) -> Band | None:
    """The decimals whose `sig`-figure rounding is m·10^e (`parts`), as the page judges a sig
    answer (its rounding equals the value's): half a unit of the last figure either side, but
    on the side towards zero of a power of ten (1.000, −0.01000) the decimals below it have a
    figure more, so half a unit of that one (0.99995 rounds to 1.000 at 4 figures, 0.9996 does
    not); zero is zero alone."""
    if parts is None:
        return None
    m, e = parts
    if m == 0:
        return Band(sp.Integer(0), sp.Integer(0))
    unit = sp.Integer(10) ** e
    value = sp.Integer(m) * unit
    outer = inner = unit / 2
    if abs(m) == 10 ** (sig - 1):
        inner = unit / 20
    lo, hi = (value - inner, value + outer) if m > 0 else (value - outer, value + inner)
    return Band((lo + hi) / 2, (hi - lo) / 2)


def _inner(value, tolerance: sp.Rational) -> Band | None:
    """The widest written band inside [value − tolerance, value + tolerance]."""
    got = _enclosure(value)
    if got is None or tolerance <= 0:
        return None
    lo, hi = got
    places = ABS_SLACK_DIGITS
    while sp.Rational(1, 10 ** places) * 10 ** ABS_SLACK_DIGITS > tolerance and places < 400:
        places += 1
    centre = round_places((lo + hi) / 2, places)
    slack = max(abs(centre - lo), abs(centre - hi))
    scale = sp.Integer(10) ** places
    tol = sp.floor((tolerance - slack) * scale) / scale
    return Band(centre, tol) if tol >= 0 else None


def band(value, rule: Rule) -> Band | None:
    """The decimals the judge accepts for `value` under `rule`, as one written band: places d,
    the value rounded half away from zero ± ½·10⁻ᵈ; sig n, its n-digit rounding ± half a unit
    of its last digit; abs t, the value ± t; rel r, the value ± r·|value|; exact, the value
    itself when its decimal terminates, else EXACT_SIGNIFICANT digits ± half the last. None
    when the value cannot be bounded."""
    e = sp.Integer(value) if isinstance(value, int) else value
    if not isinstance(e, sp.Basic):
        return None
    places = rule.places if rule.kind == "places" else (
        int(rule.tolerance) if rule.kind == "test" and rule.test == "places" else None)
    if places is not None:
        r = round_places(e, places)
        return None if r is None else Band(r, sp.Rational(1, 2) / sp.Integer(10) ** places)
    if rule.kind == "test" and rule.test == "sig":
        return _from_sig(round_sig(e, int(rule.tolerance)), int(rule.tolerance))
    if rule.kind == "test" and rule.test == "abs":
        return _inner(e, sp.Rational(rule.tolerance))
    if rule.kind == "test" and rule.test == "rel":
        got = _enclosure(e)
        if got is None:
            return None
        if got == (0, 0):
            return Band(sp.Integer(0), sp.Integer(0))
        if got[0] <= 0 <= got[1]:
            return None
        return _inner(e, sp.Rational(rule.tolerance) * min(abs(got[0]), abs(got[1])))
    if e.is_Rational:
        if terminating_places(e) is not None and len(str(abs(e.p))) <= 60:
            return Band(e, sp.Integer(0))
    return _from_sig(round_sig(e, EXACT_SIGNIFICANT), EXACT_SIGNIFICANT)


def _mistake_band(value, rule: Rule) -> Band | None:
    """A wrong value's band: as the right one's, but a value asked exactly whose decimal does
    not end is taken at DEFAULT_SIG figures, not EXACT_SIGNIFICANT: the page names such a
    mistake for any rounding of it a student types (12/7 for 1.714 or 1.71), and nobody types
    1.714285714 (its 10 figures); the band names a part of what the page names, never more."""
    e = sp.Integer(value) if isinstance(value, int) else value
    if rule.kind == "exact" and isinstance(e, sp.Basic) and not (
            e.is_Rational and terminating_places(e) is not None):
        return band(e, Rule("test", test="sig", tolerance=sp.Integer(DEFAULT_SIG)))
    return band(value, rule)


def _entries(value, shape) -> list | None:
    """A value as the list of numbers a student types (one for a number), None when it has
    not the quantity's form."""
    if isinstance(value, list):
        got = flat(value)
        return got if shape is None or len(got) == _size(shape) else None
    return [value]


def _size(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _substituted(form: sp.Basic, subs: dict) -> sp.Basic:
    """The form with its symbols replaced, node by node over its DAG (each shared node once):
    a node whose arguments are all rational is computed, any other rebuilt unevaluated
    (`joined`), never through SymPy's constructors, which ask assumptions of the whole tree
    (minutes for an Adam trajectory)."""
    done: dict[int, sp.Basic] = {}
    for x in postorder(form):
        if x.is_Symbol:
            done[id(x)] = subs.get(x, x)
            continue
        if not x.args:
            done[id(x)] = x
            continue
        args = [done[id(a)] for a in x.args]
        if all(a.is_Rational for a in args) and (
                not x.is_Pow or args[1].is_Integer or args[0] >= 0):
            value = (sp.Add(*args) if x.is_Add else sp.Mul(*args) if x.is_Mul
                     else sp.Pow(args[0], args[1]))
        elif x.is_Add or x.is_Mul:
            value = joined(type(x), *args)
        else:
            value = sp.Pow(args[0], args[1], evaluate=False)
        done[id(x)] = value
    return done[id(form)]


def _number(value) -> sp.Basic:
    """An exact value as SymPy holds it: a SymPy number as it is, a Python int as an Integer;
    never text parsed (no sympify: nothing that came from a file is evaluated)."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return sp.Integer(value)
    raise TypeError(f"not an exact number: {type(value).__name__}")


def carried_value(form, source: str, value):
    """A carried-forward form (`Carried.form`, symbols `p` or `p[i]` for the earlier
    quantity `p`; sums, products and powers k/2 only) at the earlier quantity's value `value`
    (a number, or a flat list for a list quantity), substituted exactly; None for a form the
    page does not evaluate, or one that reads another symbol."""
    if form is None or form == STATIC:
        return None
    if isinstance(value, list):
        subs = {sp.Symbol(f"{source}[{i}]"): _number(v) for i, v in enumerate(value)}
    else:
        subs = {sp.Symbol(source): _number(value)}
    items = form if isinstance(form, list) else [form]
    got = []
    for f in items:
        if not isinstance(f, sp.Basic):
            return None
        g = _substituted(f, subs)
        if any(n.is_Symbol for n in nodes(g)):
            return None
        got.append(g)
    return got if isinstance(form, list) else got[0]


@dataclass(frozen=True)
class _Candidate:
    band: Band
    kind: str
    en: str
    zh: str
    origin: str
    source: tuple[str, str] = ("", "")
    mistake: str = ""


def _clusters(cands: list[_Candidate]) -> list[list[_Candidate]]:
    """Candidates grouped by chains of bands that meet, in the order of their lowest ends."""
    out: list[list[_Candidate]] = []
    for c in sorted(cands, key=lambda c: (c.band.lo, c.band.hi)):
        if out and any(c.band.meets(o.band) for o in out[-1]):
            out[-1].append(c)
        else:
            out.append([c])
    return out


def _answer(group: list[_Candidate]) -> Answer | None:
    kinds = {c.kind for c in group}
    if "carried" in kinds and len(kinds) > 1:
        carried = {c.mistake for c in group if c.kind == "carried"}
        if any(c.mistake not in carried for c in group):
            return None  # a mistake here or an earlier one carried: neither is said
        # the earlier part's mistake is this part's too: the working from it is right
        group, kinds = [c for c in group if c.kind == "carried"], {"carried"}
    lo = min(c.band.lo for c in group)
    hi = max(c.band.hi for c in group)
    hull = Band((lo + hi) / 2, (hi - lo) / 2)
    en, zh, sources = [], [], []
    for c in group:
        if (c.en, c.zh, c.source) not in zip(en, zh, sources):
            en.append(c.en)
            zh.append(c.zh)
            sources.append(c.source)
    if kinds == {"carried"}:
        return Answer(hull, CARRIED_CREDIT, "carried", tuple(en), tuple(zh), len(en) == 1,
                      tuple(sources))
    named = len(en) == 1 and group[0].origin != GENERIC
    return Answer(hull, 0, "mistake", tuple(en), tuple(zh), named)


def graded_parts(asked: tuple[Asked, ...]) -> tuple[Part, ...] | None:
    """Every number an exercise's questions ask, with its answers; None when a right value
    cannot be written as a band (the exercise then has no LMS question)."""
    parts: list[Part] = []
    named_values: dict[str, list[tuple[object, str, str]]] = {}
    for a in asked:
        right = _entries(a.value, a.shape)
        if right is None:
            return None
        known = []
        for k in a.known:
            got = _entries(k.value, a.shape)
            if got is not None and len(got) == len(right):
                known.append((k, got))
                if k.origin != GENERIC:
                    named_values.setdefault(a.name, []).append((k.value, k.en, k.zh,
                                                                k.mistake))
        early = [(e, got) for e in a.early
                 if (got := _entries(e.value, a.shape)) is not None and len(got) == len(right)]
        carried = []
        for c in a.carried:
            if len(c.sources) != 1 or c.sources[0] not in named_values:
                continue
            source = c.sources[0]
            words = next((b.words for b in asked if b.name == source), (source, source))
            for value, en, zh, mistake in named_values[source]:
                v = value if not isinstance(value, list) else flat(value)
                got = carried_value(c.form, source, v)
                got = None if got is None else _entries(got, a.shape)
                if got is not None and len(got) == len(right):
                    carried.append((words, en, zh, mistake, got))
        for i, value in enumerate(right):
            centre = band(value, a.rule)
            if centre is None:
                return None
            cands = []
            for k, got in known:
                b = _mistake_band(got[i], a.rule)
                if b is not None:
                    cands.append(_Candidate(b, "mistake", k.en, k.zh, k.origin,
                                            mistake=k.mistake))
            for e, got in early:
                b = _mistake_band(got[i], a.rule)
                if b is not None:
                    cands.append(_Candidate(b, "mistake", e.en, e.zh, "course"))
            for words, en, zh, mistake, got in carried:
                b = _mistake_band(got[i], a.rule)
                if b is not None:
                    cands.append(_Candidate(b, "carried", en, zh, "course", tuple(words),
                                            mistake))
            cands = [c for c in cands if not c.band.meets(centre)]
            answers = [Answer(centre, 100, "right")]
            answers += [x for g in _clusters(cands) if (x := _answer(g)) is not None]
            parts.append(Part(a.name, i if len(right) > 1 or isinstance(a.value, list) else None,
                              a.words, a.rule, tuple(answers)))
    return tuple(parts)
