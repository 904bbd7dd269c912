"""QTI 3.0: one assessment item per exercise (`derive build`'s `qti.{lang}.xml`) and a content
package of a bank's items (`SITE/lms/qti.{lang}.zip`), drawn from what the self-check page
judges with (`derive.exercises.report.page_exercises` → `Asked`), so that one judge scores both.

Each asked quantity is one question: a `qti-text-entry-interaction` of base-type float per
number (a list's or a tensor's entries, row-major, each its own). Its response processing:
- right: every entry inside its window (`derive.exercises.windows`, exact decimal bounds
  compared by `qti-gte`/`qti-gt` and `qti-lte`/`qti-lt`; `qti-equal`'s tolerance modes are
  not used: @citolab/qti-components 7.27.4 ignores them), one point;
- carried forward: wrong, but within the rule's reach of the value that follows from the
  student's own wrong answer to one earlier question (the form of `Asked.carried`, computed
  by the player in its doubles, inside a margin so that a rounding tie never decides);
- a known mistake: wrong, not carried, and inside the window of the mistake's value; one
  mistake fits: named (a generic edit only offered), several: listed, none named (the rule of
  evidence, derive/exercises/evidence.py). A mistake whose value counts as right is not named,
  and nothing is named once two earlier answers that move the question are wrong (the page
  tries their combinations; a static item cannot).
Every author string is XML-escaped; math is MathML (KaTeX's), the TeX kept as its annotation.
"""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from fractions import Fraction
from xml.etree import ElementTree

import sympy as sp

from derive.exercises.evidence import DECLARED, GENERIC
from derive.exercises.page import STATIC, Asked, Rule, flat
from derive.exercises.report import PageExercise
from derive.exercises.windows import Window, decimal_text, exponent, near_values, window
from derive.render.derivation import given_math
from derive.render.document import Author, InlineMath
from derive.render.escape import clean_text, escape_html
from derive.render.html import page_text
from derive.render.katex import render as katex_render
from derive.render.labels import in_language, words
from derive.render.numbers import writable
from derive.render.questions import _question, states_answer
from derive.render.said import typeset
from derive.render.selfcheck import asked_precision

__all__ = ["WORDS", "item_identifier", "item_xml", "package"]

NS = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
SCHEMA = "https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0_v1p0.xsd"
CP_NS = "http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"
CP_SCHEMA = ("https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/"
             "imsqtiv3p0_imscpv1p2_v1p0.xsd")
MATHML = "http://www.w3.org/1998/Math/MathML"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""Every entry of a package is dated this (the earliest a zip can say): a rebuild is the same
bytes."""
CARRIED_MARGIN = Fraction(1, 10**6)
"""A carried-forward value is computed by the player in doubles: an answer counts as carried
only within (1 − CARRIED_MARGIN) of the rule's reach, so that a rounding tie of the carried
value never decides (near such a tie a carried error goes unnamed, never the reverse)."""
EXACT_REACH = Fraction(1, 10**9)
"""An exact question's carried value is reached within this (the player's doubles)."""

WORDS = {
    "en": {"given": "Given", "compute": "Compute", "right": "Right.",
           "wrong": "Not right.",
           "carried": "Not right, but it follows correctly from your own answer to question "
                      "{n} ({label}).",
           "mistake": "Not right. This is the value of a known mistake:",
           "tied": "Not right. Several known mistakes give this value, so none is named:",
           "offered": "Not right. It could be a generic edit that happens to give this value "
                      "(offered, not named):",
           "left_out": "Question left out of this format: {label} (its exact value is not a "
                       "number one can type; see the self-check page).",
           "exact_number": "Give the exact value (an integer or a decimal that terminates).",
           "exact_fraction": "Give the exact value as a fraction in lowest terms, such as 14/3."},
    "zh": {"given": "已知", "compute": "计算", "right": "正确。", "wrong": "不正确。",
           "carried": "不正确,但它由你自己对第 {n} 题({label})的答案正确推出。",
           "mistake": "不正确。这是一个已知错误给出的值:",
           "tied": "不正确。几个已知错误都给出这个值,因此不指明其中之一:",
           "offered": "不正确。可能是一个通用的改动恰好给出这个值(只作提示,不指明):",
           "left_out": "本格式未收此题:{label}(其精确值不是能输入的一个数;请用自测页)。",
           "exact_number": "写精确值(整数或有限小数)。",
           "exact_fraction": "写精确值,用最简分数,如 14/3。"},
}


# ------------------------------------------------------------------------------------ text

_NOT_XML = re.compile("[\ufffe\uffff\ud800-\udfff]")


def _x(text: str) -> str:
    """Author text as XML text or a quoted attribute value: one line (clean_text), the five
    special characters as references, and what XML 1.0 cannot hold (U+FFFE, U+FFFF, a lone
    surrogate) left out."""
    return escape_html(_NOT_XML.sub("", clean_text(text)))


def _mathml(tex: str) -> str:
    """A formula as MathML: KaTeX's (its TeX kept as an annotation), checked to be XML; the
    TeX as text where it is not."""
    html = katex_render(tex)
    m = re.search(r"<math\b.*?</math>", html, re.S)
    if m is not None:
        try:
            ElementTree.fromstring(m.group(0))
            return m.group(0)
        except ElementTree.ParseError:
            pass
    return f"<code>{_x(tex)}</code>"


def _inline(parts) -> str:
    """Document parts (prose, author text, inline math) as XML."""
    if isinstance(parts, Author):
        return _x(parts.text)
    if isinstance(parts, InlineMath):
        return _mathml(parts.tex)
    if isinstance(parts, tuple):
        return "".join(_inline(p) for p in parts)
    text = page_text(str(parts))
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() and text.strip() else ""
    return lead + _x(text) + trail  # the space between prose and math kept


def _said(text, origin: str) -> str:
    return _inline(typeset(text, author=origin == DECLARED))


# ---------------------------------------------------------------------------- identifiers

def item_identifier(exercise_id: str) -> str:
    """An item's identifier from its exercise's id (unique in a bank): readable, an XML name,
    and distinct for ids that read alike once cleaned (a hash of the id itself)."""
    readable = re.sub(r"[^A-Za-z0-9_.-]", "_", exercise_id)[:40]
    digest = hashlib.sha256(exercise_id.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"derive-{readable}-{digest}"


# --------------------------------------------------------------------------- expressions

def _num(x: Fraction) -> str:
    return f'<qti-base-value base-type="float">{decimal_text(x)}</qti-base-value>'


def _var(ident: str) -> str:
    return f'<qti-variable identifier="{ident}"/>'


def _typed(ident: str) -> str:
    """The response is a number: not empty (the player reads an empty answer as 0 in a
    comparison) and compared equal to itself (text that is no number is NaN)."""
    return (f"<qti-not><qti-is-null>{_var(ident)}</qti-is-null></qti-not>"
            f"<qti-gte>{_var(ident)}{_var(ident)}</qti-gte>")


def _inside(ident: str, w: Window) -> str:
    low = "qti-gt" if w.lo_open else "qti-gte"
    high = "qti-lt" if w.hi_open else "qti-lte"
    return (f"<qti-and>{_typed(ident)}<{low}>{_var(ident)}{_value(w.lo)}</{low}>"
            f"<{high}>{_var(ident)}{_value(w.hi)}</{high}></qti-and>")


def _all(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"<qti-and>{''.join(parts)}</qti-and>"


def _any(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"<qti-or>{''.join(parts)}</qti-or>"


def _value(q: Fraction) -> str:
    """A rational constant: its decimal, or p/q divided by the player where it does not
    terminate."""
    try:
        return _num(q)
    except ValueError:
        return (f"<qti-divide>{_num(Fraction(q.numerator))}"
                f"{_num(Fraction(q.denominator))}</qti-divide>")


def _constant(r: sp.Rational) -> str:
    return _value(Fraction(int(r.p), int(r.q)))


def _form(e, idents: dict[str, str]) -> str | None:
    """A carried-forward form (sums, products, integer powers and square roots of rationals
    and earlier answers) as a QTI expression the player evaluates; None where it has a part
    QTI cannot write."""
    if e.is_Rational:
        return _constant(e)
    if e.is_Symbol:
        return _var(idents[e.name]) if e.name in idents else None
    args = [_form(a, idents) for a in e.args]
    if any(a is None for a in args):
        return None
    if e.is_Add:
        return f"<qti-sum>{''.join(args)}</qti-sum>"
    if e.is_Mul:
        return f"<qti-product>{''.join(args)}</qti-product>"
    if e.is_Pow and e.exp.is_Rational and e.exp.q in (1, 2):
        return f"<qti-power>{args[0]}{_constant(e.exp)}</qti-power>"
    return None


def _near(ident: str, form: str, reach: Fraction) -> str:
    """(answer − form)² < reach²: the answer within `reach` of the player's value."""
    diff = f"<qti-subtract>{_var(ident)}{form}</qti-subtract>"
    return f"<qti-lt><qti-product>{diff}{diff}</qti-product>{_value(reach * reach)}</qti-lt>"


def _set(ident: str, value: str = "show") -> str:
    return (f'<qti-set-outcome-value identifier="{ident}">'
            f'<qti-base-value base-type="identifier">{value}</qti-base-value>'
            f"</qti-set-outcome-value>")


def _set_true(ident: str) -> str:
    """A flag set (flags are integers 0 and 1: the player's qti-not reads a stored boolean
    outcome, the text 'false', as true)."""
    return (f'<qti-set-outcome-value identifier="{ident}">'
            f'<qti-base-value base-type="integer">1</qti-base-value></qti-set-outcome-value>')


def _int(n: int) -> str:
    return f'<qti-base-value base-type="integer">{n}</qti-base-value>'


def _at_least(ident: str, n: int) -> str:
    return f"<qti-gte>{_var(ident)}{_int(n)}</qti-gte>"


def _below(ident: str, n: int) -> str:
    return f"<qti-lt>{_var(ident)}{_int(n)}</qti-lt>"


def _add(ident: str, base: str = "integer") -> str:
    return (f'<qti-set-outcome-value identifier="{ident}"><qti-sum>{_var(ident)}'
            f'<qti-base-value base-type="{base}">1</qti-base-value></qti-sum>'
            f"</qti-set-outcome-value>")


def _if(condition: str, *rules: str) -> str:
    return (f"<qti-response-condition><qti-response-if>{condition}{''.join(rules)}"
            f"</qti-response-if></qti-response-condition>")


# ------------------------------------------------------------------------------ questions

def _reach(a: Asked) -> Fraction | None:
    """How far the player's carried value may be from the answer (with the margin), by the
    question's rule; None for a rule whose reach depends on the value (sig, rel)."""
    rule = a.rule
    if rule.kind == "places":
        return Fraction(1, 2 * 10**rule.places) * (1 - CARRIED_MARGIN)
    if rule.kind == "test" and rule.test == "places":
        return Fraction(1, 2 * 10 ** int(rule.tolerance)) * (1 - CARRIED_MARGIN)
    if rule.kind == "test" and rule.test == "abs":
        t = Fraction(int(rule.tolerance.p), int(rule.tolerance.q))
        return t * (1 - CARRIED_MARGIN)
    if rule.kind == "exact":
        return EXACT_REACH
    return None


SIG_DECADES = 6
"""A carried value under a significant-figures rule is reached within half a step of its own
decade; the item writes the decades within this many powers of ten of the right value's, and
a carried value outside them (or within CARRIED_MARGIN of a power of ten, where doubles may
put it in the wrong decade) names nothing."""


def _sig_decades(v, sig: int) -> list[tuple[Fraction, Fraction, Fraction]] | None:
    """(c² from, c² below, reach²) per decade [10ᵏ, 10ᵏ⁺¹) of a carried value c around the
    value v, for a `sig` rule: an answer typed to `sig` figures within half a step (10ᵏ⁻ˢ⁺¹/2,
    with the margin) of c is c's rounding. None when v is not a nonzero rational."""
    q = None
    if isinstance(v, int):
        q = Fraction(v)
    elif isinstance(v, sp.Basic) and v.is_Rational:
        q = Fraction(int(v.p), int(v.q))
    elif isinstance(v, sp.Basic):
        got = _enclosed(v)
        q = got
    if q is None or q == 0:
        return None
    e0 = exponent(q)
    out = []
    for k in range(e0 - SIG_DECADES, e0 + SIG_DECADES + 1):
        low, high = Fraction(10) ** k, Fraction(10) ** (k + 1)
        reach = Fraction(10) ** (k - sig + 1) / 2 * (1 - CARRIED_MARGIN)
        out.append(((low * (1 + CARRIED_MARGIN)) ** 2, (high * (1 - CARRIED_MARGIN)) ** 2,
                    reach * reach))
    return out


def _enclosed(v) -> Fraction | None:
    """A rational inside a value's enclosure (for its decade only), None without one."""
    w = window(v, Rule("test", test="sig", tolerance=sp.Integer(1)))
    return None if w is None else w.shown


def _near_sig(ident: str, form: str, decades) -> tuple[str, str]:
    """(the answer is within its decade's reach of the player's carried value, the carried
    value is in one of the decades written): the second false means the item cannot tell."""
    diff = f"<qti-subtract>{_var(ident)}{form}</qti-subtract>"
    square = f"<qti-product>{form}{form}</qti-product>"
    inside, near = [], []
    for low, high, reach2 in decades:
        within = (f"<qti-gte>{square}{_value(low)}</qti-gte>"
                  f"<qti-lt>{square}{_value(high)}</qti-lt>")
        inside.append(f"<qti-and>{within}</qti-and>")
        near.append(f"<qti-and>{within}<qti-lt><qti-product>{diff}{diff}</qti-product>"
                    f"{_value(reach2)}</qti-lt></qti-and>")
    return _any(near), _any(inside)


class _Question:
    """One asked quantity of the item: its number, entries (response identifiers and
    windows), and what its feedback can say."""

    def __init__(self, n: int, a: Asked):
        self.n, self.asked = n, a
        values = flat(a.value) if isinstance(a.value, list) else [a.value]
        self.is_list = isinstance(a.value, list)
        self.idents = [f"Q{n}_{i}" for i in range(1, len(values) + 1)]
        self.values = values
        self.windows = [window(v, a.rule) for v in values]
        self.fractions = [_lowest(v) if w is None and a.rule.kind == "exact" else None
                          for v, w in zip(values, self.windows)]
        """An exact question's value that is a fraction with no terminating decimal (14/3):
        (p, q), answered as text and matched as written in lowest terms."""

    @property
    def scorable(self) -> bool:
        return all(w is not None or f is not None for w, f in zip(self.windows, self.fractions))

    @property
    def numeric(self) -> bool:
        """Every entry is a float: the player can compute with the answers."""
        return all(w is not None for w in self.windows)

    def right(self) -> str:
        return _all([_inside(i, w) if w is not None else _spelled(i, f)
                     for i, w, f in zip(self.idents, self.windows, self.fractions)])

    def exact(self) -> str:
        """Every entry is the rounding a key shows (1.4 for 7/5 to 1 place), or the fraction:
        an answer the window takes that is not it (1.41) may be wrong to the page, which asks
        the places typed beyond the asked to be right too."""
        return _all([_inside(i, Window(w.shown, w.shown)) if w is not None else _spelled(i, f)
                     for i, w, f in zip(self.idents, self.windows, self.fractions)])

    def typed(self) -> str:
        """Every entry is answered: a number (a float entry) or any text (a fraction's)."""
        return _all([f"<qti-and>{_typed(i)}</qti-and>" if w is not None else
                     f"<qti-not><qti-is-null>{_var(i)}</qti-is-null></qti-not>"
                     for i, w in zip(self.idents, self.windows)])

    def mistakes(self) -> tuple[list[tuple[str, str, object, list[list[Window]]]],
                                list[list[Window]]]:
        """(name, origin, the Known, its candidates' windows) of each known mistake the item
        can name, and the regions where naming must stop. A candidate is left out when it is
        not of the question's shape or its value counts as right; it is a region that stops
        naming when the item cannot tell it apart (no window: the page may still see the answer
        fit it, and then lists a tie) or when an answer in its window may be the page's near
        miss of the right value (one element off by a slip of a digit, rounded twice, a tie
        rounded to even), which the page names no mistake for."""
        out: dict[str, tuple[str, object, list]] = {}
        stops: list[list[Window]] = []
        for k in self.asked.known:
            values = flat(k.value) if isinstance(k.value, list) else [k.value]
            if isinstance(k.value, list) != self.is_list or len(values) != len(self.values):
                continue
            if self.asked.shape is not None and isinstance(k.value, list) and \
                    _shape(k.value) != tuple(self.asked.shape):
                continue
            if all(_fraction_in(v, w) for v, w in zip(values, self.windows)):
                continue  # its value counts as right: never named
            ws = [window(v, self.asked.rule) for v in values]
            if any(w is None for w in ws):
                stops.append([_reach_of(v, w) for v, w in zip(values, self.windows)])
                continue
            off = [i for i, v in enumerate(values) if not _fraction_in(v, self.windows[i])]
            if len(off) == 1 and any(ws[off[0]].holds(x) for x in
                                     near_values(self.values[off[0]], self.asked.rule)):
                stops.append(ws)
                continue
            out.setdefault(k.mistake, (k.origin, k, []))[2].append(ws)
        for i, v in enumerate(self.values):  # the value rounded short of the places asked
            for r in _shorter(v, self.asked.rule):
                stops.append([Window(r, r) if j == i else _anything() for j in
                              range(len(self.values))])
        return ([(name, origin, known, cands) for name, (origin, known, cands) in out.items()],
                stops)


def _anything() -> Window:
    """Any number (an element of a list that a stop does not constrain)."""
    return Window(Fraction(-10**60), Fraction(10**60))


def _shorter(v, rule) -> list[Fraction]:
    """The value rounded half away from zero to fewer places than asked (to 0–6 places for an
    exact question): a claim derive holds as rounded, and the page calls short of the places
    asked, naming nothing."""
    if not (isinstance(v, int) or isinstance(v, sp.Basic) and v.is_Rational):
        return []
    q = Fraction(int(v)) if isinstance(v, int) else Fraction(int(v.p), int(v.q))
    if rule.kind == "places":
        upto = rule.places
    elif rule.kind == "exact":
        upto = 7
    else:
        return []
    out = []
    for d in range(upto):
        scale = Fraction(10) ** d
        n = abs(q) * scale
        r = Fraction(int(n + Fraction(1, 2)) * (1 if q >= 0 else -1)) / scale
        if r != q and r not in out:
            out.append(r)
    return out


def _reach_of(v, right: Window) -> Window:
    """Every answer that may hold for a value the item has no window of: within 1/2 of it
    (a decimal that rounds to it at its own places); the right window where it has no value
    the item can bound."""
    q = None
    if isinstance(v, int):
        q = Fraction(v)
    elif isinstance(v, sp.Basic) and v.is_Rational:
        q = Fraction(int(v.p), int(v.q))
    if q is None:
        return Window(right.lo - 1, right.hi + 1)
    return Window(q - Fraction(1, 2), q + Fraction(1, 2))


def _lowest(v) -> tuple[int, int] | None:
    if isinstance(v, sp.Basic) and v.is_Rational and v.q != 1:
        return int(v.p), int(v.q)
    return None


def _spelled(ident: str, f: tuple[int, int]) -> str:
    """A fraction answered as written in lowest terms: 14/3 or 14 / 3 (a minus sign as - or
    −); the player matches text exactly, so 28/6 or 4.667 is not it."""
    p, q = f
    signs = ["-", "\u2212"] if p < 0 else [""]
    spellings = [f"{sign}{abs(p)}{gap}/{gap}{q}" for sign in signs for gap in ("", " ")]
    matches = "".join(f'<qti-string-match case-sensitive="true">{_var(ident)}'
                      f'<qti-base-value base-type="string">{text}</qti-base-value>'
                      f"</qti-string-match>" for text in spellings)
    return (f"<qti-and><qti-not><qti-is-null>{_var(ident)}</qti-is-null></qti-not>"
            f"<qti-or>{matches}</qti-or></qti-and>")


def _shape(v) -> tuple[int, ...]:
    return (len(v), *_shape(v[0])) if isinstance(v, list) and v else ()


def _fraction_in(v, w: Window | None) -> bool:
    if w is None:  # a fraction's entry: no other value is it
        return False
    if isinstance(v, int):
        return w.holds(Fraction(v))
    if isinstance(v, sp.Basic) and v.is_Rational:
        return w.holds(Fraction(int(v.p), int(v.q)))
    return False


# -------------------------------------------------------------------------------- the item

def _interaction(q: _Question, lang: str) -> str:
    """The question's inputs: one for a number; a list's in brackets; a matrix's as a table."""
    boxes = [f'<qti-text-entry-interaction response-identifier="{i}" expected-length="12"/>'
             for i in q.idents]
    shape = q.asked.shape
    if shape is not None and len(shape) == 2:
        rows = ["<tr>" + "".join(f"<td>{b}</td>" for b in boxes[r * shape[1]:(r + 1) * shape[1]])
                + "</tr>" for r in range(shape[0])]
        return f"<table><tbody>{''.join(rows)}</tbody></table>"
    if q.is_list:
        return f"<p>[ {', '.join(boxes)} ]</p>"
    return f"<p>{boxes[0]}</p>"


def _block(ident: str, body: str) -> str:
    return (f'<qti-feedback-block outcome-identifier="{ident}" identifier="show" '
            f'show-hide="show"><p>{body}</p></qti-feedback-block>')


def item_xml(page: PageExercise, lang: str = "en") -> str:
    """The QTI 3.0 assessment item of one exercise as written (its first variant)."""
    w, t = WORDS[lang], words(lang)
    original, report = writable(page.original), writable(page.report)
    ex, first = report.exercise, original.exercise
    questions = [_Question(n, a) for n, a in enumerate(page.asked, 1)]
    scored = [q for q in questions if q.scorable]
    by_name = {q.asked.name: q for q in scored}

    declarations, outcomes, body, rules = [], [], [], []
    for q in scored:
        for ident, win, f in zip(q.idents, q.windows, q.fractions):
            base, shown = ("float", decimal_text(win.shown)) if win is not None else \
                ("string", f"{f[0]}/{f[1]}")
            declarations.append(
                f'<qti-response-declaration identifier="{ident}" cardinality="single" '
                f'base-type="{base}"><qti-correct-response><qti-value>{shown}'
                f"</qti-value></qti-correct-response></qti-response-declaration>")
    outcomes.append('<qti-outcome-declaration identifier="SCORE" cardinality="single" '
                    'base-type="float"><qti-default-value><qti-value>0</qti-value>'
                    "</qti-default-value></qti-outcome-declaration>")
    outcomes.append('<qti-outcome-declaration identifier="MAXSCORE" cardinality="single" '
                    f'base-type="float"><qti-default-value><qti-value>{len(scored)}</qti-value>'
                    "</qti-default-value></qti-outcome-declaration>")

    def outcome(ident: str, base: str = "identifier") -> str:
        default = {"integer": "0", "boolean": "false"}.get(base)
        value = (f"<qti-default-value><qti-value>{default}</qti-value></qti-default-value>"
                 if default is not None else "")
        outcomes.append(f'<qti-outcome-declaration identifier="{ident}" cardinality="single" '
                        f'base-type="{base}">{value}</qti-outcome-declaration>')
        return ident

    shown = "" if states_answer(first.title, original) else first.title
    title = f"{first.id}: {shown}" if shown else first.id
    body.append(f"<h2>{_x(title)}</h2>")
    givens = "".join(_mathml(line) for line in given_math(ex).lines)
    body.append(f"<p>{_x(t['given'])}: {givens}</p>")
    body.append(f"<p>{_x(w['compute'])}:</p>")
    items = []
    for q in questions:
        label = _inline(_question(ex, ex.recipe.quantity(q.asked.name), lang))
        plain = in_language(q.asked.words, lang) or q.asked.name
        if not q.scorable:
            items.append(f"<li><p>{_x(w['left_out'].format(label=plain))}</p></li>")
            continue
        n = q.n
        right_fb, wrong_fb = outcome(f"FB_Q{n}_RIGHT"), outcome(f"FB_Q{n}_WRONG")
        right_flag = outcome(f"RIGHT_Q{n}", "integer")
        told = outcome(f"TOLD_Q{n}", "integer")
        blocks = [_block(right_fb, _x(w["right"]))]
        rules.append(_if(q.right(), _add("SCORE", "float"), _set_true(right_flag),
                         _set(right_fb)))
        wrong = f"<qti-and>{q.typed()}{_below(right_flag, 1)}</qti-and>"
        # short: each number right or the value rounded to fewer places than asked, which
        # derive holds as a rounding (the page asks for more places): not an error to carry
        short = outcome(f"SHORT_Q{n}", "integer")
        if q.numeric:
            entries = [_any([_inside(i, w_)] + [_inside(i, Window(r, r))
                                                for r in _shorter(v, q.asked.rule)])
                       for i, w_, v in zip(q.idents, q.windows, q.values)]
            rules.append(_if(f"<qti-and>{wrong}{_all(entries)}</qti-and>", _set_true(short)))
        # carried forward: the latest wrong earlier answer first, as the page tries them
        movers, unsure, fits_from, undecided = [], [], [], []
        for c in reversed(q.asked.carried):
            if len(c.sources) != 1 or c.form == STATIC:
                continue
            source = by_name.get(c.sources[0])
            if source is None:
                continue
            movers.append(source)
            reach = _reach(q.asked)
            forms = c.form if isinstance(c.form, list) else [c.form]
            idents = {(source.asked.name if not source.is_list else
                       f"{source.asked.name}[{i}]"): ident
                      for i, ident in enumerate(source.idents)}
            exprs = [] if c.form is None or not (q.numeric and source.numeric) else \
                [_form(f, idents) for f in forms]
            sig = q.asked.rule.kind == "test" and q.asked.rule.test == "sig"
            decades = [_sig_decades(v, int(q.asked.rule.tolerance)) for v in q.values] \
                if sig else []
            if sig and len(exprs) == len(q.idents) and all(e is not None for e in exprs) \
                    and all(d is not None for d in decades):
                pairs = [_near_sig(i, e, d) for i, e, d in zip(q.idents, exprs, decades)]
                fits_from.append((source, _all([near for near, _ in pairs])))
                # a carried value in no decade written (or at a power of ten): hushed
                undecided.append((source, f"<qti-not>{_all([ok for _, ok in pairs])}"
                                          f"</qti-not>"))
                continue
            if reach is None or len(exprs) != len(q.idents) or any(e is None for e in exprs):
                unsure.append(source)  # the page may find it carried: name nothing then
                continue
            fits_from.append((source, _all([_near(i, e, reach)
                                             for i, e in zip(q.idents, exprs)])))
        # hushed: an earlier answer the window took but the page may not (1.41 for 1.4), from
        # which this answer follows: the page may say carried from it; the item says neither
        # that nor a mistake
        hush = outcome(f"HUSH_Q{n}", "integer")
        for ws in q.mistakes()[1]:  # and inside a region where the page may say another thing
            rules.append(_if(f"<qti-and>{wrong}"
                             f"{_all([_inside(i, wd) for i, wd in zip(q.idents, ws)])}"
                             f"</qti-and>", _set_true(hush)))
        for source, fits_source in fits_from:
            rules.append(_if(f"<qti-and>{wrong}{source.typed()}"
                             f"{_at_least(f'RIGHT_Q{source.n}', 1)}<qti-not>{source.exact()}"
                             f"</qti-not>{fits_source}</qti-and>", _set_true(hush)))
        for source, fits_source in fits_from:
            rules.append(_if(f"<qti-and>{wrong}{source.typed()}"
                             f"{_at_least(f'SHORT_Q{source.n}', 1)}{fits_source}</qti-and>",
                             _set_true(hush)))
        for source, unknown in undecided:
            rules.append(_if(f"<qti-and>{wrong}{source.typed()}"
                             f"{_below(f'RIGHT_Q{source.n}', 1)}{unknown}</qti-and>",
                             _set_true(hush)))
        for source, fits_source in fits_from:  # the latest wrong earlier answer first
            fb = outcome(f"FB_Q{n}_FROM_Q{source.n}")
            blocks.append(_block(fb, _x(w["carried"].format(
                n=source.n, label=in_language(source.asked.words, lang) or source.asked.name))))
            condition = (f"<qti-and>{wrong}{_below(told, 1)}{_below(hush, 1)}"
                         f"{_below(f'RIGHT_Q{source.n}', 1)}{_below(f'SHORT_Q{source.n}', 1)}"
                         f"{source.typed()}{fits_source}</qti-and>")
            rules.append(_if(condition, _set(fb), _set_true(told)))
        # naming stops (BLOCK ≥ 2) when hushed, at two wrong earlier answers that move it
        # (their combinations are the page's to try), at one (or one the window took but the
        # page may not) whose carried value the item cannot compute, and inside a region where
        # the page may say something else
        block = outcome(f"BLOCK_Q{n}", "integer")
        rules.append(_if(_at_least(hush, 1), _add(block), _add(block)))
        for source in movers:
            rules.append(_if(f"<qti-and>{source.typed()}{_below(f'RIGHT_Q{source.n}', 1)}"
                             f"</qti-and>", *[_add(block)] * (2 if source in unsure else 1)))
            if source in unsure:
                rules.append(_if(f"<qti-and>{source.typed()}"
                                 f"{_at_least(f'RIGHT_Q{source.n}', 1)}<qti-not>"
                                 f"{source.exact()}</qti-not></qti-and>",
                                 _add(block), _add(block)))
        mistakes = q.mistakes()[0]
        fits = outcome(f"FITS_Q{n}", "integer")
        open_ = f"<qti-and>{wrong}{_below(told, 1)}{_below(block, 2)}</qti-and>"
        fit_flags = []
        for k, (_, origin, _, cands) in enumerate(mistakes, 1):
            flag = outcome(f"FIT_Q{n}_M{k}", "integer")
            fit_flags.append((flag, k, origin))
            inside = _any([_all([_inside(i, wd) for i, wd in zip(q.idents, ws)])
                           for ws in cands])
            rules.append(_if(f"<qti-and>{open_}{inside}</qti-and>", _set_true(flag),
                             _add(fits)))
        one = f"<qti-and>{_at_least(fits, 1)}{_below(fits, 2)}</qti-and>"
        several = _at_least(fits, 2)
        if mistakes:
            tied_fb = outcome(f"FB_Q{n}_TIED")
            offered_fb = outcome(f"FB_Q{n}_OFFERED")
            blocks.append(_block(tied_fb, _x(w["tied"])))
            blocks.append(_block(offered_fb, _x(w["offered"])))
            rules.append(_if(several, _set(tied_fb)))
        for (flag, k, origin), (name, _, known, _) in zip(fit_flags, mistakes):
            text = known.zh if lang == "zh" and known.zh else known.en
            named_fb, listed_fb = outcome(f"FB_Q{n}_M{k}"), outcome(f"FB_Q{n}_L{k}")
            gap = " " if lang == "en" else ""
            blocks.append(_block(named_fb, _x(w["mistake"]) + gap + _said(text, origin)))
            blocks.append(_block(listed_fb, f"{_x(name)} ({_said(text, origin)})"))
            fit = _at_least(flag, 1)
            rules.append(_if(f"<qti-and>{fit}{several}</qti-and>", _set(listed_fb)))
            if origin == GENERIC:
                rules.append(_if(f"<qti-and>{fit}{one}</qti-and>", _set(offered_fb),
                                 _set(listed_fb)))
            else:
                rules.append(_if(f"<qti-and>{fit}{one}</qti-and>", _set(named_fb)))
        rules.append(_if(f"<qti-and>{wrong}{_below(told, 1)}{_below(fits, 1)}</qti-and>",
                         _set(wrong_fb)))
        blocks.insert(1, _block(wrong_fb, _x(w["wrong"])))
        hint = _x(asked_precision(q.asked.rule, lang) if q.asked.rule.kind != "exact" else
                  w["exact_number"] if q.numeric else w["exact_fraction"])
        items.append(f"<li><p>{label}</p>{_interaction(q, lang)}<p>{hint}</p>"
                     f"{''.join(blocks)}</li>")
    body.append(f"<ol>{''.join(items)}</ol>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<qti-assessment-item xmlns="{NS}" '
        f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xsi:schemaLocation="{NS} {SCHEMA}" identifier="{item_identifier(first.id)}" '
        f'title="{_x(title)}" adaptive="false" time-dependent="false" xml:lang="{lang}">\n'
        + "\n".join(declarations + outcomes)
        + f"\n<qti-item-body>{''.join(body)}</qti-item-body>\n"
        + f"<qti-response-processing>{''.join(rules)}</qti-response-processing>\n"
        + "</qti-assessment-item>\n")


# ----------------------------------------------------------------------------- the package

def _test_xml(identifier: str, title: str, items: list[tuple[str, str]]) -> str:
    refs = "".join(f'<qti-assessment-item-ref identifier="{i}" href="../items/{i}.xml"/>'
                   for i, _ in items)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<qti-assessment-test xmlns="{NS}" '
        f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xsi:schemaLocation="{NS} {SCHEMA}" identifier="{identifier}" title="{_x(title)}">\n'
        f'<qti-test-part identifier="{identifier}-part" navigation-mode="nonlinear" '
        f'submission-mode="simultaneous">'
        f'<qti-assessment-section identifier="{identifier}-section" title="{_x(title)}" '
        f'visible="true">{refs}</qti-assessment-section></qti-test-part>\n'
        "</qti-assessment-test>\n")


def package(lessons: list[tuple[str, list[tuple[str, bytes]]]]) -> bytes:
    """A QTI 3.0 content package: each item (items/<identifier>.xml), one assessment test per
    lesson (tests/<identifier>.xml, its items in the bank's order) and imsmanifest.xml listing
    them; `lessons` is (lesson name, [(exercise id, item XML)]) in the bank's order. Entries are
    sorted and dated ZIP_DATE: the same bank gives the same bytes."""
    files: dict[str, bytes] = {}
    resources = []
    for lesson, items in lessons:
        refs = []
        for ex_id, xml in items:
            ident = item_identifier(ex_id)
            path = f"items/{ident}.xml"
            files[path] = xml
            refs.append((ident, path))
            resources.append(f'<resource identifier="{ident}" type="imsqti_item_xmlv3p0" '
                             f'href="{path}"><file href="{path}"/></resource>')
        test_id = "test-" + item_identifier(lesson)[len("derive-"):]
        path = f"tests/{test_id}.xml"
        files[path] = _test_xml(test_id, lesson, refs).encode("utf-8")
        deps = "".join(f'<dependency identifierref="{i}"/>' for i, _ in refs)
        resources.append(f'<resource identifier="{test_id}" type="imsqti_test_xmlv3p0" '
                         f'href="{path}"><file href="{path}"/>{deps}</resource>')
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<manifest xmlns="{CP_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        f'xsi:schemaLocation="{CP_NS} {CP_SCHEMA}" identifier="derive-qti-package">\n'
        "<metadata><schema>QTI Package</schema><schemaversion>3.0.0</schemaversion></metadata>\n"
        "<organizations/>\n<resources>\n" + "\n".join(resources) + "\n</resources>\n</manifest>\n")
    files["imsmanifest.xml"] = manifest.encode("utf-8")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, files[name])
    return out.getvalue()
