"""Self-check pages: each exercise's givens and its questions, each question with what the page
judges an answer with (`derive.exercises.selfcheck`, encoded for the page's script) and its
working, shown after a first attempt; several variants of the exercises when asked.

The values are exact rationals written as text (`"-14/3"`) or, for a value that is not rational
(or one too long to type), a certified enclosure `lo ≤ value ≤ hi`; a carried-forward form is
a tree of sums, products, integer powers and square roots the script evaluates with BigInt
rationals (a root within certified bounds).
"""

from __future__ import annotations

import sympy as sp

from derive.exercises.check import Report
from derive.exercises.evidence import DECLARED
from derive.exercises.page import STATIC, Asked, Rule, flat
from derive.exercises.report import PageExercise
from derive.kernel import intervals
from derive.render.derivation import _too_large_unsupported, given_math, graph_sections
from derive.render.document import (
    Author,
    Document,
    Heading,
    InlineMath,
    Paragraph,
    Question,
    Questions,
    Variant,
)
from derive.render.html import WORDS as PAGE_WORDS
from derive.render.html import fill, page_text
from derive.render.labels import in_language, words
from derive.render.numbers import rounding_rule, writable
from derive.render.questions import WORDS as SHEET_WORDS
from derive.render.questions import _question, asked_precision, states_answer
from derive.render.said import typeset

EXACT_DIGITS = 200
"""A rational with more digits than this (in numerator or denominator) is sent as an
enclosure: no typed answer (at most 60 digits a part) can equal it."""
MAX_MAGNITUDE = sp.Integer(10) ** 100
"""A value beyond this (no typed answer, at most 60 digits and an exponent of 30, reaches it)
is not sent: a mistake of that size is left out, an answer of that size is not supported."""
ENCLOSURE_BITS = 400
ENCLOSURE_PLACES = 100
"""An enclosure is computed at ENCLOSURE_BITS bits and widened to ENCLOSURE_PLACES decimals:
finer than any typed answer (60 digits and an exponent of at most 30: 90 places) can ask, so
the page settles every rounding an answer asks for unless the value lies within 10^-100 of its
boundary (then it says undecided)."""


# -------------------------------------------------------------------------------- encoding

def _fraction(r: sp.Rational) -> str:
    return str(r.p) if r.q == 1 else f"{r.p}/{r.q}"


def _widened(lo: sp.Rational, hi: sp.Rational) -> tuple[sp.Rational, sp.Rational]:
    scale = sp.Integer(10) ** ENCLOSURE_PLACES
    return (sp.floor(lo * scale) / scale, sp.ceiling(hi * scale) / scale)


def encode_value(v) -> dict | list | None:
    """A value for the page: {"q": "p/q"} exactly, else {"lo", "hi"} certified; None when it
    cannot be bounded (a list with such an element too)."""
    if isinstance(v, list):
        items = [encode_value(x) for x in v]
        return None if any(i is None or isinstance(i, list) for i in items) else items
    e = sp.Integer(v) if isinstance(v, int) else v
    if not isinstance(e, sp.Basic):  # (no is_number: it walks a shared DAG as a tree)
        return None
    if e.is_Rational and max(len(str(abs(e.p))), len(str(e.q))) <= EXACT_DIGITS:
        return {"q": _fraction(e)}
    try:
        got = intervals.enclose(e, ENCLOSURE_BITS)
    except Exception:  # NoEnclosure: not a real constant the intervals handle
        return None
    if got is None or max(abs(got[0]), abs(got[1])) > MAX_MAGNITUDE:
        return None
    lo, hi = _widened(*got)
    return {"lo": _fraction(lo), "hi": _fraction(hi)}


def _rule(rule: Rule) -> dict:
    if rule.kind == "test":
        return {"kind": "test", "test": rule.test, "tol": _fraction(rule.tolerance)}
    if rule.kind == "places":
        return {"kind": "places", "places": rule.places}
    return {"kind": "exact"}


def _form(e, keys: dict[str, str]):
    """A carried-forward form as the script's tree: ["n", "p/q"], ["a", key, index|null],
    ["+", …], ["*", …], ["^", base, k], ["s", x] (√x)."""
    if e.is_Rational:
        return ["n", _fraction(e)]
    if e.is_Symbol:
        name, _, index = e.name.partition("[")
        return ["a", keys[name], int(index[:-1]) if index else None]
    if e.is_Add or e.is_Mul:
        return ["+" if e.is_Add else "*"] + [_form(a, keys) for a in e.args]
    if e.exp.q == 2:  # a power k/2: (√base)^k
        return ["^", ["s", _form(e.base, keys)], int(e.exp.p)]
    return ["^", _form(e.base, keys), int(e.exp)]


def _window(w) -> dict | None:
    return None if w is None else {"lo": _fraction(sp.Rational(w[0].numerator, w[0].denominator)),
                                   "hi": _fraction(sp.Rational(w[1].numerator, w[1].denominator))}


def _encoded_form(form, keys: dict[str, str]):
    if form is None or form == STATIC:
        return form
    return [_form(f, keys) for f in form] if isinstance(form, list) else _form(form, keys)


def _shape(v) -> tuple[int, ...] | None:
    """The shape of a nested list (() for a number), None for a ragged one."""
    if not isinstance(v, list):
        return ()
    inner = {_shape(x) for x in v}
    if not inner:
        return (0,)
    if len(inner) > 1 or None in inner:
        return None
    return (len(v), *inner.pop())


def _entries(v, shape):
    """A value of a tensor quantity as the page's grid reads it: its entries row-major, when
    it has the quantity's shape (a transposed non-square matrix does not: it is not a value
    a grid of this shape can be typed as); None otherwise."""
    if shape is None:
        return v
    return flat(v) if _shape(v) == tuple(shape) else None


def encode_check(a: Asked, keys: dict[str, str], label: str, lang: str) -> dict:
    """What the page's script needs for one question (`keys`: question keys by name, in the
    exercise's order): the data of `derive check`'s diagnosis (derive.exercises.diagnosis),
    each part in its order, so that the script names what derive check would name. A tensor
    quantity (a vector or a matrix: `shape`) is a list of its entries row-major, as its grid
    of inputs is read; each of its known mistakes and early roundings too, where it has the
    quantity's shape."""
    if a.shape is not None and len(a.shape) > 2:
        raise ValueError(f"{a.name}: a tensor of {len(a.shape)} dimensions has no grid")
    value = encode_value(_entries(a.value, a.shape))
    if value is None:
        raise ValueError(f"{a.name}: a value the page cannot bound")
    is_list = isinstance(value, list)

    def fits(v):
        return v is not None and isinstance(v, list) == is_list and (
            not is_list or len(v) == len(value))

    mistakes, encoded = [], []  # a value several mistakes give is encoded once

    def encode_once(value):
        for seen, v in encoded:
            if seen is value or seen == value:
                return v
        encoded.append((value, encode_value(value)))
        return encoded[-1][1]

    for k in a.known:
        v = encode_once(_entries(k.value, a.shape))
        if fits(v):
            mistakes.append({"name": k.mistake, "value": v, "origin": k.origin,
                             "text": k.zh if lang == "zh" and k.zh else k.en})
    early = []
    for e in a.early:
        v = encode_value(_entries(e.value, a.shape))
        if fits(v):
            early.append({"source": e.source, "from": keys.get(e.source), "places": e.places,
                          "value": v, "text": e.zh if lang == "zh" and e.zh else e.en})
    single, together = {}, None
    for c in a.carried:
        if len(c.sources) == 1 and c.sources[0] not in single:
            single[keys[c.sources[0]]] = _encoded_form(c.form, keys)
        else:
            together = _encoded_form(c.form, keys)
    artefact = flat(a.artefact) if isinstance(a.artefact, list) else [a.artefact]
    names = list(keys)
    grid = {} if a.shape is None else {"shape": list(a.shape)}
    return {"name": a.name, "label": label, "number": names.index(a.name) + 1,
            "size": len(value) if is_list else None, **grid, "value": value,
            "rule": _rule(a.rule), "earlier": [keys[n] for n in names[: names.index(a.name)]],
            "artefact": [_window(w) for w in artefact], "mistakes": mistakes, "early": early,
            "carried": {"single": single, "all": together}}


# -------------------------------------------------------------------------------- document

def _workings(report: Report, names: list[str], lang: str) -> dict[str, list]:
    """Each asked quantity's working: the nodes after the previous asked one, up to its own
    (a steps table and the nodes after the last asked one go with the last)."""
    sections = graph_sections(report, lang, claims=False, students=True)
    out: dict[str, list] = {n: [] for n in names}
    pending: list = []
    for node, blocks in sections:
        pending += blocks
        if node in out:
            out[node] += pending
            pending = []
    if names:
        out[names[-1]] += pending
    return out


def _hint(a: Asked, lang: str) -> str:
    """What to write and to what precision: "A number: …", "3 numbers, separated by commas."
    (a list of one is a number to whoever types it), a vector's or a matrix's boxes."""
    w = PAGE_WORDS[lang]
    count = len(flat(a.value)) if isinstance(a.value, list) else 1
    if a.shape is not None and len(a.shape) == 2:
        kind = fill(w["hint_matrix"], rows=a.shape[0], cols=a.shape[1])
    elif a.shape is not None:
        kind = fill(w["hint_vector"], n=a.shape[0])
    else:
        kind = fill(w["hint_list"], n=count) if count > 1 else w["hint_one"]
    return f"{kind} {asked_precision(a.rule, lang, count)}"


def _plain_check(check: dict, said: dict[tuple, str]) -> tuple[dict, tuple]:
    """The page's data with its words as plain text (what the script compares and writes
    where it has nothing typeset), and the mistakes' words with math typeset as the exports
    do (derive.render.said): each distinct words once in `said` (the page's, shared by its
    exercises and variants), which a mistake names by id ("said"). An author's declared words
    are never typeset: their text is all the page shows."""
    mistakes, used = [], {}
    for m in check["mistakes"]:
        plain = {**m, "text": page_text(m["text"])}
        parts = typeset(m["text"], author=m["origin"] == DECLARED)
        if any(isinstance(p, InlineMath) for p in parts):
            plain["said"] = said.setdefault(parts, f"derive-said-{len(said)}")
            used[plain["said"]] = parts
        mistakes.append(plain)
    early = [{**e, "text": page_text(e["text"])} for e in check["early"]]
    return ({**check, "label": page_text(check["label"]), "mistakes": mistakes, "early": early},
            tuple(used.items()))


def exercise_blocks(page: PageExercise, v: int, j: int, lang: str,
                    said: dict[tuple, str] | None = None) -> list:
    """One exercise of variant v (`page.report`, whose givens may differ from
    `page.original`'s): its id and title, its givens, its questions (`said`: the page's
    typeset words by id, `_plain_check`)."""
    said = {} if said is None else said
    t = words(lang)
    original, report = writable(page.original), writable(page.report)
    ex, first = report.exercise, original.exercise
    names = [a.name for a in page.asked]
    keys = {n: f"v{v}-e{j}-q{k}" for k, n in enumerate(names)}
    workings = _too_large_unsupported(report, "writing out its working", _workings, report,
                                      names, lang)
    items, left_out = [], []
    for a in page.asked:
        q = ex.recipe.quantity(a.name)
        label = _question(ex, q, lang)
        plain = in_language(a.words, lang) or a.name
        try:
            check, typeset_words = _plain_check(encode_check(a, keys, plain, lang), said)
        except ValueError:  # a value the page cannot bound: this question is left out
            w = PAGE_WORDS[lang]
            left_out.append(Paragraph((w["left_out"], " ", *label, " ", w["left_out_why"])))
            continue
        items.append(Question(keys[a.name], label, _hint(a, lang),
                              tuple(workings[a.name]), check, typeset_words))
    title = "" if states_answer(first.title, original) else first.title
    asked = [Questions(tuple(items))] if items else []
    return [Heading(Author(first.id), 1, title), Paragraph(f"{t['given']}:"),
            given_math(ex, authored=True),
            Paragraph(f"{SHEET_WORDS[lang]['compute']}:"), *asked, *left_out]


def selfcheck_document(pages: list[list[PageExercise]], lang: str = "en",
                       name: str = "") -> Document:
    """The self-check page of the exercises: one variant (the exercises as written) or
    several, each a list of computed exercises (`derive.exercises.report.page_exercises`)."""
    t = words(lang)
    blocks: list = [Paragraph(PAGE_WORDS[lang]["note"] + " " + rounding_rule(lang))]
    said: dict[tuple, str] = {}
    for v, set_ in enumerate(pages):
        inner: list = []
        for j, page in enumerate(set_):
            inner += exercise_blocks(page, v, j, lang, said)
        blocks.append(Variant(v, tuple(inner)))
    first = pages[0]
    title = (Author(name) if name else Author(first[0].original.exercise.id) if len(first) == 1
             else t["exercises"])
    return Document((f"{t['self_check']}: ", title), tuple(blocks), lang)
