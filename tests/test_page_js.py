"""derive/render/web/page.js, the self-check page's script, run in QuickJS.

Every expected value comes from an independent reference: Python's `fractions.Fraction` and
derive's own Python reader and judge (parse_exact, decimal_places, round_half_away,
claims.judge against SymPy values, enclosures from derive.kernel.intervals.enclose).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from fractions import Fraction
from pathlib import Path

import pytest
import quickjs
import sympy as sp
from fraction_reference import form_value
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import examples

from derive.exercises.claims import Claim, judge, literal
from derive.exercises.reader import decimal_places
from derive.kernel.exact import ExactNumberError, fixed_str, parse_exact, round_half_away
from derive.kernel.intervals import enclose

PAGE_JS = Path(__file__).resolve().parent.parent / "derive" / "render" / "web" / "page.js"
SOURCE = PAGE_JS.read_text(encoding="utf-8")

WRAPPERS = r"""
function _s(v) { return JSON.stringify(v, function (k, x) {
  return typeof x === "bigint" ? x.toString() : x; }); }
function _x(o) { return { n: BigInt(o.n), d: BigInt(o.d),
  places: o.places === undefined ? null : o.places }; }
function _answers(a) {
  var out = {};
  for (var k in a) out[k] = a[k] === null ? undefined
    : (Array.isArray(a[k]) ? a[k].map(_x) : _x(a[k]));
  return out;
}
function T_parse(t) { return _s(DeriveCheck.parse(t)); }
function T_parseAnswer(t, size) { return _s(DeriveCheck.parseAnswer(t, JSON.parse(size))); }
function T_round(n, d, p) {
  return _s(DeriveCheck.roundHalfAway({ n: BigInt(n), d: BigInt(d) }, p)); }
function T_judgeScalar(x, v, rule) {
  return DeriveCheck.judgeScalar(_x(JSON.parse(x)), JSON.parse(v), JSON.parse(rule)); }
function T_judge(xs, vs, rule) {
  var a = JSON.parse(xs);
  return DeriveCheck.judge(Array.isArray(a) ? a.map(_x) : _x(a), JSON.parse(vs), JSON.parse(rule)); }
function T_eval(e, answers) {
  return _s(DeriveCheck.evalExpr(JSON.parse(e), _answers(JSON.parse(answers)))); }
function T_classify(answer, q, answers, words, questions) {
  var r = DeriveCheck.classify(answer, JSON.parse(q), _answers(JSON.parse(answers)),
                               JSON.parse(words), JSON.parse(questions || "{}"));
  return _s([r.status, r.message]); }
function T_classify_full(answer, q, answers, words, questions) {
  var r = DeriveCheck.classify(answer, JSON.parse(q), _answers(JSON.parse(answers)),
                               JSON.parse(words), JSON.parse(questions || "{}"));
  return _s({status: r.status, key: r.key, message: r.message, verdict: r.verdict,
             mistake: r.mistake, carried: r.carried, unsure: r.unsure}); }
function T_fnv(s) { return DeriveCheck.fnv1a(s); }
function T_fill(words, key, params) {
  return DeriveCheck.fill(JSON.parse(words), key, JSON.parse(params)); }
function _call(name, args) { return globalThis[name].apply(null, JSON.parse(args)); }
"""

CTX = quickjs.Context()
CTX.eval(SOURCE)
CTX.eval(WRAPPERS)


def js(name: str, *args):
    """Call a wrapper; arguments go as one ASCII JSON text (QuickJS's binding would cut a
    Python string at a NUL character)."""
    return CTX.get("_call")(name, json.dumps(list(args)))


def frac_text(v) -> str:
    v = Fraction(int(sp.Rational(v).p), int(sp.Rational(v).q))
    return f"{v.numerator}/{v.denominator}" if v.denominator != 1 else str(v.numerator)


def parsed(text: str) -> dict:
    """The JS form of a student's number, built from derive's Python reader."""
    v = parse_exact(text)
    return {"n": str(v.p), "d": str(v.q), "places": decimal_places(text)}


# ------------------------------------------------------------------ parse / decimal_places

DIGITS = "0123456789"
number_texts = st.builds(
    lambda ws1, sign, whole, dot, frac, e, esign, exp, ws2: (
        ws1 + sign + whole + (("." + frac) if dot else "")
        + ((e + esign + exp) if e else "") + ws2),
    st.sampled_from(["", " ", "\t", "\u3000", "\x1c", "\ufeff"]),
    st.sampled_from(["", "+", "-", "\u2212", "--"]),
    st.text(DIGITS, max_size=66) | st.just("0" * 70 + "7"),
    st.booleans(),
    st.text(DIGITS, max_size=66),
    st.sampled_from(["", "e", "E"]),
    st.sampled_from(["", "+", "-"]),
    st.text(DIGITS, max_size=5) | st.sampled_from(["30", "31", "-0030", "0000005"]),
    st.sampled_from(["", " ", "\n", "\x85", "\u00a0"]),
)
fraction_texts = st.builds(
    lambda sign, num, sp1, den, sp2: f"{sign}{num}{sp1}/{sp2}{den}",
    st.sampled_from(["", "+", "-", "\u2212"]),
    st.text(DIGITS, min_size=0, max_size=64),
    st.sampled_from(["", " ", "\u2003", "\x1f", "\ufeff"]),
    st.text(DIGITS, min_size=0, max_size=64),
    st.sampled_from(["", "  "]),
)
any_texts = st.text(alphabet=st.sampled_from(list("0123456789+-./eE ,x\u2212\u3000")), max_size=14)


SCRIPT_FREE = re.compile("[^\u00b2\u00b3\u00b9\u2070-\u209f]+")


def nfkc(text: str) -> str:
    """Python's NFKC, except superscripts and subscripts (3² is not 32)."""
    return SCRIPT_FREE.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)


def full_width(text: str) -> str:
    """ASCII as a Chinese input method types it: U+FF01..U+FF5E for U+0021..U+007E."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def reference_parse(text: str):
    t = nfkc(text).replace("\u2212", "-")
    try:
        v = parse_exact(t)
    except ExactNumberError:
        return None
    written = t.strip()  # the text a claim in a file would hold (Claim.text)
    return {"n": str(v.p), "d": str(v.q), "places": decimal_places(t), "text": written,
            "fraction": "/" in written}


@settings(max_examples=400)
@given(number_texts | fraction_texts | any_texts | st.text(max_size=8))
@example("1e30")
@example("1e31")
@example("1.5e-3")
@example("120e-1")
@example("." )
@example("5.")
@example("-0/3")
@example("3/0")
@example("1" * 60 + "/" + "1" * 61)
@example("0" * 100 + "1")
@example("0" * 130 + "1")
@example("1." + "0" * 130)
@example("1" * 60)
@example("1" * 61)
@example("-" + "0" * 10 + "9" * 60 + ".")
@example("9" * 30 + "." + "9" * 31)
@example("9" * 60 + "/" + "7" * 60)
@example("7/" + "7" * 61)
@example("1e-0000030")
@example("1e0030")
@example("1e-31")
@example(" " * 200 + "1")
def test_parse_matches_parse_exact(text):
    assert json.loads(js("T_parse", text)) == reference_parse(text)


def test_parse_examples():
    assert json.loads(js("T_parse", " \u22120.50 ")) == {"n": "-1", "d": "2", "places": 2,
                                                         "text": "-0.50", "fraction": False}
    assert json.loads(js("T_parse", "2e9")) == {"n": "2000000000", "d": "1", "places": 0,
                                                "text": "2e9", "fraction": False}
    assert json.loads(js("T_parse", "6/ 8")) == {"n": "3", "d": "4", "places": None,
                                                 "text": "6/ 8", "fraction": True}
    assert json.loads(js("T_parse", "1.25e1")) == {"n": "25", "d": "2", "places": 1,
                                                   "text": "1.25e1", "fraction": False}
    for bad in ("", ".", "e5", "1e", "0x10", "1,5", "1/2/3", "Infinity", "NaN", "1_000"):
        assert js("T_parse", bad) == "null"


# ------------------------------------------------------------------ parseAnswer

SEPS = [",", "\uff0c", "\u3001", " , "]


@given(st.lists(number_texts | fraction_texts, min_size=1, max_size=5),
       st.lists(st.sampled_from(SEPS), min_size=5, max_size=5),
       st.booleans(), st.integers(1, 5))
def test_parse_answer_lists(pieces, seps, brackets, size):
    pieces = [p.replace(",", "") for p in pieces]
    text = pieces[0] + "".join(s + p for s, p in zip(seps, pieces[1:]))
    if brackets:
        text = "[" + text + "]"
    got = json.loads(js("T_parseAnswer", text, json.dumps(size)))
    refs = [reference_parse(p) for p in pieces]
    if not text.strip():
        assert got == {"ok": False, "reason": "empty"}
    elif None in refs:
        bad = pieces[refs.index(None)]
        assert got["ok"] is False and got["reason"] == "nan"
        assert got["text"] == nfkc(bad).replace("\u2212", "-").strip()
    elif len(refs) != size:
        assert got == {"ok": False, "reason": "count", "got": len(refs)}
    else:
        assert got == {"ok": True, "values": refs}


def test_parse_answer_limits():
    assert json.loads(js("T_parseAnswer", "1" * 2001, "null")) == {"ok": False, "reason": "long"}
    assert json.loads(js("T_parseAnswer", " " * 1999 + "1", "null"))["ok"] is True
    assert json.loads(js("T_parseAnswer", "1, 2", "null")) == {
        "ok": False, "reason": "nan", "text": "1, 2"}
    assert json.loads(js("T_parseAnswer", "  ", "3")) == {"ok": False, "reason": "empty"}
    assert json.loads(js("T_parseAnswer", "[1 , 2]", "2"))["ok"] is True


# ------------------------------------------------------------------ roundHalfAway

@settings(max_examples=300)
@given(st.fractions(), st.integers(-6, 30))
@example(Fraction(5, 2), 0)
@example(Fraction(-5, 2), 0)
@example(Fraction(25, 1000), 2)
@example(Fraction(-125, 1000), 2)
@example(Fraction(15, 1), -1)
def test_round_half_away(value, places):
    got = json.loads(js("T_round", str(value.numerator), str(value.denominator), places))
    want = round_half_away(sp.Rational(value.numerator, value.denominator), places)
    assert (int(got["n"]), int(got["d"])) == (int(want.p), int(want.q))


# ------------------------------------------------------------------ judgeScalar

def decimal_near(value: Fraction, places: int, offset: int) -> str:
    """value rounded to `places`, moved `offset` units of the last place: a typical answer."""
    r = round_half_away(sp.Rational(value.numerator, value.denominator), places)
    r += sp.Rational(offset, 10**places)
    return fixed_str(r, places)


rationals = st.fractions(max_denominator=10**6).filter(lambda f: abs(f) < 10**6)
tests = st.one_of(
    st.tuples(st.just("places"), st.integers(0, 8).map(str)),
    st.tuples(st.just("sig"), st.integers(1, 8).map(str)),
    st.tuples(st.sampled_from(["rel", "abs"]),
              st.fractions(min_value=0, max_value=Fraction(1, 5), max_denominator=1000)
              .map(lambda f: f"{f.numerator}/{f.denominator}")),
)


def answer_texts(value: Fraction):
    return st.one_of(
        st.builds(lambda p, o: decimal_near(value, p, o), st.integers(0, 8), st.integers(-2, 2)),
        st.builds(lambda p, o, e: decimal_near(value * 10**e, p, o) + f"e-{e}",
                  st.integers(0, 6), st.integers(-1, 1), st.integers(0, 4)),
        st.just(f"{value.numerator}/{value.denominator}"),
        st.integers(-10, 10).map(str),
        number_texts.map(lambda t: t.replace("\u2212", "-")).filter(
            lambda t: reference_parse(t) is not None),
    )


@st.composite
def rational_cases(draw):
    value = draw(rationals)
    text = draw(answer_texts(value))
    return value, text


def js_rule(test, tol):
    return {"kind": "test", "test": test, "tol": tol} if test else {"kind": "exact"}


def py_claim(text, test, tol):
    c = literal(text)
    if test is None:
        return c
    tolerance = sp.Integer(int(tol)) if test in ("places", "sig") else sp.Rational(tol)
    return Claim(c.value, text, test=test, tolerance=tolerance)


@examples(100, slow=300)
@given(rational_cases(), st.none() | tests)
def test_judge_scalar_rational(case, test):
    value, text = case
    t, tol = test if test else (None, None)
    got = js("T_judgeScalar", json.dumps(parsed(text)), json.dumps({"q": frac_text(value)}),
             json.dumps(js_rule(t, tol)))
    want = judge(py_claim(text, t, tol), sp.Rational(value.numerator, value.denominator))
    assert got == want
    places_rule = json.dumps({"kind": "places", "places": 2})
    if t is None:  # a "places" question judges each answer as an exact one does
        assert js("T_judgeScalar", json.dumps(parsed(text)),
                  json.dumps({"q": frac_text(value)}), places_rule) == want


@st.composite
def irrational_cases(draw):
    k = draw(st.fractions(min_value=Fraction(-1000), max_value=Fraction(1000),
                          max_denominator=1000).filter(lambda f: f != 0))
    shift = draw(st.fractions(max_denominator=100).filter(lambda f: abs(f) < 100))
    expr = sp.sqrt(2) * sp.Rational(k.numerator, k.denominator) + sp.Rational(
        shift.numerator, shift.denominator)
    lo, hi = enclose(expr, draw(st.sampled_from([40, 80, 200])))
    approx = Fraction(int(lo.p), int(lo.q)).limit_denominator(10**8)
    text = draw(answer_texts(approx))
    return expr, lo, hi, text


@examples(40, slow=120)
@given(irrational_cases(), st.none() | tests)
def test_judge_scalar_enclosure(case, test):
    """With an enclosure the page may be less decisive than derive (a fixed precision), never
    different: when it decides, derive's judge agrees."""
    expr, lo, hi, text = case
    assert lo < hi
    t, tol = test if test else (None, None)
    got = js("T_judgeScalar", json.dumps(parsed(text)),
             json.dumps({"lo": frac_text(lo), "hi": frac_text(hi)}), json.dumps(js_rule(t, tol)))
    if got != "undecided":
        assert got == judge(py_claim(text, t, tol), expr)


@st.composite
def wide_cases(draw):
    lo = draw(st.fractions(min_value=-20, max_value=20, max_denominator=20))
    hi = lo + draw(st.fractions(min_value=Fraction(1, 1000), max_value=3, max_denominator=1000))
    inner = [lo + (hi - lo) * Fraction(k, 7) for k in range(8)]
    text = draw(answer_texts(draw(st.sampled_from(inner))))
    return lo, hi, inner, text


@settings(max_examples=150)
@given(wide_cases(), st.none() | tests)
@example((Fraction(1), Fraction(2), [Fraction(1), Fraction(3, 2), Fraction(2)], "1.5"),
         ("rel", "2/5"))
@example((Fraction(1), Fraction(2), [Fraction(1), Fraction(3, 2), Fraction(2)], "1.5"),
         ("abs", "1/2"))
def test_judge_scalar_enclosure_sound(case, test):
    """A verdict on an enclosure [lo, hi] holds for every value in it (checked by derive's
    judge at both ends and points between); undecided promises nothing."""
    lo, hi, inner, text = case
    t, tol = test if test else (None, None)
    got = js("T_judgeScalar", json.dumps(parsed(text)),
             json.dumps({"lo": frac_text(lo), "hi": frac_text(hi)}), json.dumps(js_rule(t, tol)))
    if got == "undecided":
        return
    assert got != "exact"
    for v in inner:
        want = judge(py_claim(text, t, tol), sp.Rational(v.numerator, v.denominator))
        assert want == got or (want == "exact" and got in ("rounded", "within")), (v, want)


@pytest.mark.parametrize(("text", "value", "test", "tol"), [
    ("0.6", "1/2", "abs", "1/10"), ("0.4", "1/2", "abs", "1/10"), ("0.61", "1/2", "abs", "1/10"),
    ("2.2", "2", "rel", "1/10"), ("-2.2", "-2", "rel", "1/10"), ("2.21", "2", "rel", "1/10"),
    ("0", "0", "rel", "0"), ("0.1", "0", "rel", "1"), ("0", "0", "sig", "2"),
    ("0.001", "0", "sig", "2"), ("0", "1/1000", "sig", "1"), ("1.00", "9995/10000", "sig", "3"),
    ("0.125", "1/8", "places", "2"), ("0.13", "1/8", "places", "2"),
    ("-0.13", "-1/8", "places", "2"), ("0.12", "1/8", "places", "2"), ("100", "149", "places", "0"),
])
def test_judge_scalar_boundaries(text, value, test, tol):
    got = js("T_judgeScalar", json.dumps(parsed(text)), json.dumps({"q": value}),
             json.dumps(js_rule(test, tol)))
    assert got == judge(py_claim(text, test, tol), sp.Rational(value))


def test_judge_scalar_enclosure_decides():
    """A tight enclosure decides the usual answers."""
    expr = sp.sqrt(2)
    lo, hi = enclose(expr, 200)
    v = json.dumps({"lo": frac_text(lo), "hi": frac_text(hi)})
    cases = [("1.414", None, None), ("1.41", None, None), ("1.42", None, None),
             ("3/2", None, None), ("7", None, None), ("1.4142", "places", "3"),
             ("1.41", "sig", "3"), ("1.5", "sig", "1"), ("1.4", "rel", "1/100"),
             ("1.41", "rel", "1/100"), ("1.41", "abs", "1/100"), ("1.4", "abs", "1/100")]
    for text, t, tol in cases:
        got = js("T_judgeScalar", json.dumps(parsed(text)), v, json.dumps(js_rule(t, tol)))
        assert got == judge(py_claim(text, t, tol), expr) != "undecided", (text, t, tol)
    wide = json.dumps({"lo": "7/5", "hi": "3/2"})
    for text in ("1.45", "3/2", "1.4"):
        assert js("T_judgeScalar", json.dumps(parsed(text)), wide, '{"kind": "exact"}') \
            == "undecided"
    assert js("T_judgeScalar", json.dumps(parsed("2")), wide, '{"kind": "exact"}') == "wrong"


@given(st.lists(rational_cases(), min_size=1, max_size=4), st.none() | tests)
def test_judge_lists(cases, test):
    t, tol = test if test else (None, None)
    xs = [parsed(text) for _, text in cases]
    vs = [{"q": frac_text(v)} for v, _ in cases]
    claim = Claim([py_claim(text, t, tol) for _, text in cases], "[…]")
    want = judge(claim, [sp.Rational(v.numerator, v.denominator) for v, _ in cases])
    assert js("T_judge", json.dumps(xs), json.dumps(vs), json.dumps(js_rule(t, tol))) == want


# ------------------------------------------------------------------ evalExpr

ANSWERS = {"A": "-3/4", "B": ["0", "2", "5/3"], "C": "1.25"}
ANSWERS_JS = {
    "A": parsed("-3/4"), "B": [parsed("0"), parsed("2"), parsed("5/3")], "C": parsed("1.25"),
}
ANSWERS_PY = {"A": Fraction(-3, 4), "B": [Fraction(0), Fraction(2), Fraction(5, 3)],
              "C": Fraction(5, 4)}

leaves = st.one_of(
    st.fractions(max_denominator=50).filter(lambda f: abs(f) < 50).map(
        lambda f: ["n", f"{f.numerator}/{f.denominator}"]),
    st.sampled_from([["a", "A", None], ["a", "C", None], ["a", "B", 0], ["a", "B", 1],
                     ["a", "B", 2]]),
)
exprs = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: ["+", *xs]),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: ["*", *xs]),
        st.tuples(inner, st.integers(-3, 3)).map(lambda p: ["^", p[0], p[1]]),
    ),
    max_leaves=8,
)


def py_eval(e):
    return form_value(e, ANSWERS_PY)


@examples(70, slow=200)
@given(exprs)
def test_eval_expr(e):
    try:
        want = py_eval(e)
    except ZeroDivisionError:
        want = None
    got = json.loads(js("T_eval", json.dumps(e), json.dumps(ANSWERS_JS)))
    if want is None:
        assert got is None
    else:
        assert Fraction(int(got["n"]), int(got["d"])) == want and int(got["d"]) > 0


def test_eval_expr_missing_answers():
    for e in (["a", "Z", None], ["a", "B", None], ["a", "A", 0], ["a", "B", 3],
              ["+", ["n", "1"], ["a", "Z", None]]):
        assert js("T_eval", json.dumps(e), json.dumps(ANSWERS_JS)) == "null"
    assert js("T_eval", json.dumps(["a", "A", None]), json.dumps({"A": None})) == "null"


# ------------------------------------------------------------------ fnv1a

def py_fnv1a(text: str) -> int:
    h = 0x811C9DC5
    for b in text.encode("utf-8"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


@settings(max_examples=200)
@given(st.text(max_size=40))
@example("")
@example("a")
@example("学生 012 \U0001f600")
@example("Иван Петров")
@example("\u07ff\u0800\uffff\U00010000\U0010ffff")
def test_fnv1a(text):
    assert js("T_fnv", text) == py_fnv1a(text)


def test_fnv1a_lone_surrogates():
    """A lone surrogate is hashed as U+FFFD, as TextEncoder encodes it."""
    for text in ("a\ud800b", "\udc00", "x\ud83d", "\ud83d\ude00\ud83d"):
        assert js("T_fnv", text) == py_fnv1a(re.sub("[\ud800-\udfff]", "\ufffd",
                                                     text.encode("utf-16", "surrogatepass")
                                                     .decode("utf-16", "surrogatepass")))


def test_fnv1a_known_vectors():
    assert js("T_fnv", "") == 0x811C9DC5
    assert js("T_fnv", "a") == 0xE40C292C
    assert js("T_fnv", "foobar") == 0xBF9CF968


# ------------------------------------------------------------------ classify

KEYS = ["right", "right_within", "right_rounded", "rounded_places", "rounded_exact",
        "rounded_test", "rounded_other", "undecided", "wrong", "wrong_element", "wrong_count",
        "wrong_carried", "wrong_mistake", "not_a_number", "empty", "too_long"]
PLACEHOLDERS = {
    "right_rounded": "{places}", "rounded_places": "{places}",
    "rounded_other": "{places} {expected}", "wrong_element": "{i}", "wrong_count": "{n} {m}",
    "wrong_carried": "{names}", "wrong_mistake": "{mistake}", "not_a_number": "{text}", "too_long": "{max}",
}
WORDS = {k: f"{k}|{PLACEHOLDERS.get(k, '')}|{{name}}|{{answer}}|{{nothing}}" for k in KEYS}
WORDS.update({"question_ref": "{label}", "names_sep": "+"})

SQRT2 = enclose(sp.sqrt(2), 200)
QS = {
    "mean": {"name": "g_mean", "label": "mean gradient", "size": None,
             "value": {"q": "349/1000"}, "rule": {"kind": "places", "places": 2},
             "earlier": ["v0-e0-q0"],
             "mistakes": [{"name": "sign", "value": {"q": "-349/1000"}, "text": "sign flipped"},
                          {"name": "half", "value": {"q": "1/2"}, "text": "halved"},
                          {"name": "double", "value": {"q": "2"}, "text": "doubled"}],
             "carried": {"single": {"v0-e0-q0": ["*", ["a", "v0-e0-q0", None], ["n", "2"]]},
                         "all": None}},
    "third": {"name": "t", "label": "a third", "size": None, "value": {"q": "1/3"},
              "rule": {"kind": "exact"}, "mistakes": [], "carried": []},
    "pair": {"name": "w", "label": "weights", "size": 2,
             "value": [{"q": "1/2"}, {"q": "3/4"}], "rule": {"kind": "exact"},
             "earlier": ["v0-e0-q1"],
             "mistakes": [{"name": "signs", "value": [{"q": "-1/2"}, {"q": "-3/4"}],
                           "text": "signs"}],
             "carried": {"single": {"v0-e0-q1": [["a", "v0-e0-q1", 0],
                                                 ["+", ["a", "v0-e0-q1", 1], ["n", "1"]]]},
                         "all": None}},
    "root": {"name": "r", "label": "root", "size": None,
             "value": {"lo": frac_text(SQRT2[0]), "hi": frac_text(SQRT2[1])},
             "rule": {"kind": "exact"}, "mistakes": [], "carried": []},
    "rel": {"name": "r", "label": "root", "size": None,
            "value": {"lo": frac_text(SQRT2[0]), "hi": frac_text(SQRT2[1])},
            "rule": {"kind": "test", "test": "rel", "tol": "1/100"}, "mistakes": [],
            "carried": []},
    "sig": {"name": "s", "label": "two thirds", "size": None, "value": {"q": "2/3"},
            "rule": {"kind": "test", "test": "sig", "tol": "3"}, "mistakes": [], "carried": []},
    "mixed": {"name": "m", "label": "mixed", "size": 2,
              "value": [{"lo": "7/5", "hi": "3/2"}, {"q": "1"}], "rule": {"kind": "exact"},
              "mistakes": [], "carried": []},
    "wide": {"name": "u", "label": "unsure", "size": None,
             "value": {"lo": "7/5", "hi": "3/2"}, "rule": {"kind": "exact"}, "mistakes": [],
             "carried": []},
}
EARLIER = {
    "v0-e0-q0": {"name": "w_new", "label": "w_new", "number": 1, "size": None,
                 "value": {"q": "349/2000"}, "rule": {"kind": "exact"}},
    "v0-e0-q1": {"name": "loss", "label": "loss", "number": 1, "size": 2,
                 "value": [{"q": "1/2"}, {"q": "-1/4"}], "rule": {"kind": "exact"}},
}
ONE = {"v0-e0-q0": parsed("1")}
NO_CARRY = {"v0-e0-q0": parsed("349/2000")}


def msg(key, fill="", name="g_mean", answer=""):
    return f"{key}|{fill}|{name}|{answer}|{{nothing}}"


CLASSIFY = [
    ("mean", "0.349", {}, "right", msg("right", answer="0.349")),
    ("mean", "349/1000", {}, "right", msg("right", answer="349/1000")),
    ("mean", " 0.35 ", {}, "right", msg("right_rounded", "2", answer="0.35")),
    ("mean", "0.3", {}, "rounded", msg("rounded_places", "2", answer="0.3")),
    ("mean", "0.34", {}, "rounded", msg("rounded_other", "2 0.35", answer="0.34")),
    ("mean", "0.350", {}, "wrong", msg("wrong", answer="0.350")),
    ("mean", "\u22120.35", {}, "wrong", msg("wrong_mistake", "sign flipped", answer="-0.35")),
    ("mean", "0.5", {}, "wrong", msg("wrong_mistake", "halved", answer="0.5")),
    ("mean", "2.0", ONE, "wrong", msg("wrong_carried", "w_new", answer="2.0")),
    ("mean", "4/2", ONE, "wrong", msg("wrong_carried", "w_new", answer="4/2")),
    ("mean", "2", {}, "wrong", msg("wrong_mistake", "doubled", answer="2")),
    ("mean", "2", {"v0-e0-q0": [parsed("1")]}, "wrong",
     msg("wrong_mistake", "doubled", answer="2")),
    ("mean", "3", ONE, "wrong", msg("wrong", answer="3")),
    ("mean", "0.4", ONE, "rounded", msg("rounded_other", "1 0.3", answer="0.4")),
    ("mean", "0.35", NO_CARRY, "right", msg("right_rounded", "2", answer="0.35")),
    ("mean", "0.6", NO_CARRY, "wrong", msg("wrong", answer="0.6")),
    ("mean", "0.6", {"v0-e0-q0": parsed("0.3")}, "wrong",
     msg("wrong_carried", "w_new", answer="0.6")),
    ("mean", "abc", {}, "nan", msg("not_a_number", "abc", answer="abc")),
    ("mean", "", {}, "nan", msg("empty")),
    ("mean", "1" + " " * 2000, {}, "nan", msg("too_long", "2000", answer="1" + " " * 19 + "\u2026")),
    ("mean", " " * 1995 + "0.349", {}, "right", msg("right", answer="0.349")),
    ("mean", "  \u3000", {}, "nan", msg("empty")),
    ("mean", "{name}", {}, "nan", msg("not_a_number", "{name}", answer="{name}")),
    ("third", "1/3", {}, "right", msg("right", name="t", answer="1/3")),
    ("third", "0.33", {}, "rounded", msg("rounded_exact", name="t", answer="0.33")),
    ("third", "0.3333", {}, "rounded", msg("rounded_exact", name="t", answer="0.3333")),
    ("third", "0.34", {}, "rounded", msg("rounded_other", "2 0.33", name="t", answer="0.34")),
    ("third", "0.5", {}, "wrong", msg("wrong", name="t", answer="0.5")),
    ("pair", "[0.5, 0.75]", {}, "right", msg("right", name="w", answer="[0.5, 0.75]")),
    ("pair", "1/2\u30013/4", {}, "right", msg("right", name="w", answer="1/2\u30013/4")),
    ("pair", "0.5\uff0c0.8", {}, "rounded", msg("rounded_exact", name="w", answer="0.5,0.8")),
    ("pair", "0.5, 0.7", {}, "rounded",
     msg("rounded_other", "1 0.8", name="w", answer="0.5, 0.7")),
    ("pair", "0.5, 1", {}, "wrong", msg("wrong_element", "2", name="w", answer="0.5, 1")),
    ("pair", "2, 1", {}, "wrong", msg("wrong_element", "1", name="w", answer="2, 1")),
    ("pair", "-0.5, -0.75", {}, "wrong", msg("wrong_mistake", "signs", name="w",
                                             answer="-0.5, -0.75")),
    ("pair", "0.5", {}, "wrong", msg("wrong_count", "2 1", name="w", answer="0.5")),
    ("pair", "1, 2, 3", {}, "wrong", msg("wrong_count", "2 3", name="w", answer="1, 2, 3")),
    ("pair", "0.5, x", {}, "nan", msg("not_a_number", "x", name="w", answer="0.5, x")),
    ("pair", "3, 5", {"v0-e0-q1": [parsed("3"), parsed("4")]}, "wrong",
     msg("wrong_carried", "loss", name="w", answer="3, 5")),
    ("pair", "3, 5", {"v0-e0-q1": parsed("3")}, "wrong",
     msg("wrong_element", "1", name="w", answer="3, 5")),
    ("root", "1.414", {}, "rounded", msg("rounded_exact", name="r", answer="1.414")),
    ("root", "1.42", {}, "rounded", msg("rounded_other", "2 1.41", name="r", answer="1.42")),
    ("root", "3/2", {}, "wrong", msg("wrong", name="r", answer="3/2")),
    ("rel", "1.41", {}, "right", msg("right_within", name="r", answer="1.41")),
    ("rel", "1.4", {}, "rounded", msg("rounded_test", name="r", answer="1.4")),
    ("rel", "1.5", {}, "rounded", msg("rounded_other", "1 1.4", name="r", answer="1.5")),
    ("rel", "1.6", {}, "wrong", msg("wrong", name="r", answer="1.6")),
    ("sig", "0.667", {}, "right", msg("right_within", name="s", answer="0.667")),
    ("sig", "0.67", {}, "rounded", msg("rounded_test", name="s", answer="0.67")),
    ("sig", "0.7", {}, "rounded", msg("rounded_test", name="s", answer="0.7")),
    ("wide", "1.45", {}, "undecided", msg("undecided", name="u", answer="1.45")),
    ("mixed", "1.45, 1", {}, "undecided", msg("undecided", name="m", answer="1.45, 1")),
    ("mixed", "1.45, 2", {}, "wrong", msg("wrong_element", "2", name="m", answer="1.45, 2")),
]


@pytest.mark.parametrize(("q", "answer", "answers", "status", "message"), CLASSIFY)
def test_classify(q, answer, answers, status, message):
    got = json.loads(js("T_classify", answer, json.dumps(QS[q]), json.dumps(answers),
                        json.dumps(WORDS), json.dumps(EARLIER)))
    assert got == [status, message]


def test_classify_covers_every_message():
    used = {m.split("|")[0] for *_, m in CLASSIFY}
    assert used == set(KEYS)


def test_classify_status_agrees_with_derive():
    """Where classify says right or wrong from the judge alone, derive's judge agrees."""
    for q, answer, _answers, status, _ in CLASSIFY:
        spec = QS[q]
        if spec["size"] is not None or "q" not in spec["value"] or status == "nan":
            continue
        value = sp.Rational(spec["value"]["q"])
        rule = spec["rule"]
        text = answer.replace("\u2212", "-").strip()
        claim = (py_claim(text, rule["test"], rule["tol"]) if rule["kind"] == "test"
                 else literal(text))
        verdict = judge(claim, value)
        if status == "right":
            assert verdict in ("exact", "rounded", "within")
        if verdict in ("exact", "within"):
            assert status == "right"


# ------------------------------------------------------------------ the page, on a fake DOM

FAKE_DOM = r"""
function El(tag, attrs) {
  this.tag = tag; this.attrs = attrs || {}; this.hidden = !!this.attrs.hidden;
  this.disabled = !!this.attrs.disabled; this.textContent = this.attrs.text || "";
  this.value = ""; this.listeners = {};
}
El.prototype.getAttribute = function (k) { return k in this.attrs ? this.attrs[k] : null; };
El.prototype.setAttribute = function (k, v) { this.attrs[k] = String(v); };
El.prototype.addEventListener = function (t, f) { (this.listeners[t] = this.listeners[t] || []).push(f); };
El.prototype.fire = function (t, ev) {
  ev = ev || {}; ev.prevented = false; ev.preventDefault = function () { ev.prevented = true; };
  (this.listeners[t] || []).forEach(function (f) { f(ev); }); return ev; };
function FakeDoc(data, nvariants, keys) {
  var els = this.els = {}, all = this.all = [];
  function add(id, el) { if (id) els[id] = el; all.push(el); return el; }
  add("derive-data", new El("script", { text: JSON.stringify(data) }));
  add("derive-variant", new El("form", { cls: "form" }));
  add("derive-student", new El("input", {}));
  add("derive-variant-note", new El("p", {}));
  for (var v = 0; v < nvariants; v++) add(null, new El("section", { cls: "variant", "data-variant": String(v), hidden: true }));
  keys.forEach(function (k) {
    add(k + "-input", new El("input", {}));
    add(null, new El("button", { cls: "check", "data-q": k }));
    add(k + "-feedback", new El("p", {}));
    add(k + "-reveal", new El("button", { cls: "reveal", "data-q": k, "aria-expanded": "false", disabled: true }));
    add(k + "-working", new El("div", { hidden: true }));
  });
}
FakeDoc.prototype.getElementById = function (id) { return this.els[id] || null; };
FakeDoc.prototype.querySelectorAll = function (sel) {
  var m = /^(\w+)\.(\w+)(\[data-q\])?$/.exec(sel);
  return this.all.filter(function (e) {
    return e.tag === m[1] && e.attrs.cls === m[2] && (!m[3] || "data-q" in e.attrs); });
};
function shown(doc) {
  return doc.querySelectorAll("section.variant").filter(function (s) { return !s.hidden; })
    .map(function (s) { return s.getAttribute("data-variant"); }); }
function T_page(data, nvariants, keys, student) {
  data = JSON.parse(data); keys = JSON.parse(keys);
  var doc = new FakeDoc(data, nvariants, keys), log = {};
  DeriveCheck.start(doc);
  log.first = shown(doc); log.note = doc.els["derive-variant-note"].textContent;
  var k = keys[0], input = doc.els[k + "-input"], reveal = doc.els[k + "-reveal"];
  log.revealBefore = reveal.disabled;
  input.value = " \u3000 ";
  doc.all.filter(function (e) { return e.attrs.cls === "check"; })[0].fire("click");
  log.empty = [doc.els[k + "-feedback"].textContent, reveal.disabled];
  input.value = "0.35";
  doc.all.filter(function (e) { return e.attrs.cls === "check"; })[0].fire("click");
  log.feedback = [doc.els[k + "-feedback"].textContent, doc.els[k + "-feedback"].getAttribute("data-status")];
  log.revealAfter = reveal.disabled;
  input.value = "x";
  var enter = input.fire("keydown", { key: "Enter" });
  log.enter = [doc.els[k + "-feedback"].textContent, doc.els[k + "-feedback"].getAttribute("data-status"), enter.prevented];
  reveal.fire("click");
  log.open = [doc.els[k + "-working"].hidden, reveal.getAttribute("aria-expanded"), reveal.textContent];
  reveal.fire("click");
  log.closed = [doc.els[k + "-working"].hidden, reveal.getAttribute("aria-expanded"), reveal.textContent];
  doc.els["derive-student"].value = student;
  var sub = doc.els["derive-variant"].fire("submit");
  log.submitted = [sub.prevented, shown(doc), doc.els["derive-variant-note"].textContent];
  return JSON.stringify(log);
}
"""
CTX.eval(FAKE_DOM)


def page_data(n):
    words = dict(WORDS, show_working="show", hide_working="hide",
                 variant_note="variant {i} of {n}", student_variant_note="yours: {i} of {n}")
    return {"lang": "en", "words": words,
            "variants": [{"questions": {f"v{i}-e0-q0": QS["mean"]}} for i in range(n)]}


@pytest.mark.parametrize("n", [1, 3])
def test_page_wiring(n):
    student = "  Zhang Wei 张伟 "
    log = json.loads(js("T_page", json.dumps(page_data(n)), n, json.dumps(["v0-e0-q0"]),
                        student))
    assert log["first"] == ["0"]  # no crypto in QuickJS: variant 0
    assert log["note"] == ("variant 1 of 3" if n > 1 else "")
    assert log["revealBefore"] is True and log["revealAfter"] is False
    assert log["empty"] == [msg("empty"), True]  # an empty Check unlocks nothing
    assert log["feedback"] == [msg("right_rounded", "2", answer="0.35"), "right"]
    assert log["enter"] == [msg("not_a_number", "x", answer="x"), "nan", True]
    assert log["open"] == [False, "true", "hide"]
    assert log["closed"] == [True, "false", "show"]
    if n > 1:
        i = py_fnv1a(student.strip()) % n
        assert log["submitted"] == [True, [str(i)], f"yours: {i + 1} of {n}"]
    else:
        assert log["submitted"][1] == ["0"]


SAID_DOM = r"""
El.prototype.appendChild = function (c) { (this.kids = this.kids || []).push(c); return c; };
FakeDoc.prototype.createTextNode = function (t) { return { text: String(t) }; };
FakeDoc.prototype.importNode = function (n, deep) {  // a copy: the content's marker, its slots
  var slots = (n.slots || []).map(function (id) { return new El("span", { "data-math": id }); });
  return { copyOf: n.marker, deep: deep, slots: slots,
           querySelectorAll: function (sel) {
             return sel === "span.math[data-math]" ? slots : []; } };
};
function template(doc, id, tag, marker, slots) {
  var t = new El(tag.toLowerCase(), {}); t.tagName = tag;
  t.content = { marker: marker, slots: slots || [] }; doc.els[id] = t;
}
function T_said(data, typed) {
  data = JSON.parse(data);
  var doc = new FakeDoc(data, 1, ["v0-e0-q0"]);
  template(doc, "derive-said-0", "TEMPLATE", "words0", ["derive-math-0", "derive-math-0"]);
  template(doc, "derive-math-0", "TEMPLATE", "math0");
  template(doc, "derive-said-1", "P", "p");  // an id that names no template: its words' text
  template(doc, "derive-said-2", "TEMPLATE", "words2", ["derive-math-0", "derive-math-9"]);
  DeriveCheck.start(doc);
  var out = [], f = doc.els["v0-e0-q0-feedback"];
  function shown(k) {
    if (k.text !== undefined) return k.text;
    if (k.copyOf) return ["copy", k.copyOf, k.deep].concat(k.slots.map(shown));
    return (k.kids || []).map(shown);
  }
  JSON.parse(typed).forEach(function (t) {
    doc.els["v0-e0-q0-input"].value = t; f.kids = [];
    doc.all.filter(function (e) { return e.attrs.cls === "check"; })[0].fire("click");
    out.push(f.kids.length ? f.kids.map(shown) : f.textContent);
  });
  return JSON.stringify(out);
}
"""
CTX.eval(SAID_DOM)


def test_typeset_words_are_a_copy_of_their_template():
    """A mistake's typeset words are a deep copy of their <template>'s content, with a deep
    copy of its formula's template in each slot; words whose template, or one of whose
    formulas' templates, is missing or is no template show their text; words without an id
    and every other message are text as before."""
    q = json.loads(json.dumps(QS["mean"]))
    q["mistakes"][0]["said"] = "derive-said-0"
    q["mistakes"][1]["said"] = "derive-said-1"
    q["mistakes"][2]["said"] = "derive-said-2"
    q["mistakes"] += [{"name": "gone", "value": {"q": "3"}, "text": "gone", "said": "x-9"},
                      {"name": "plain", "value": {"q": "4"}, "text": "plain words"}]
    data = {"lang": "en", "words": WORDS, "variants": [{"questions": {"v0-e0-q0": q}}]}
    got = json.loads(js("T_said", json.dumps(data), json.dumps(["-0.349", "0.5", "2", "3",
                                                                    "4", "0.349"])))
    head = "wrong_mistake|"
    tail = "|g_mean|{}|{{nothing}}"
    math = ["copy", "math0", True]
    assert got[0] == [head, ["copy", "words0", True, [math], [math]], tail.format("-0.349")]
    assert got[1] == [head, "halved", tail.format("0.5")]
    assert got[2] == [head, "doubled", tail.format("2")]
    assert got[3] == [head, "gone", tail.format("3")]
    assert got[4] == head + "plain words" + tail.format("4")
    assert got[5] == msg("right", answer="0.349")


# ------------------------------------------------------------------ the source

FORBIDDEN = ["eval(", "new Function", "Function(", "innerHTML", "outerHTML",
             "insertAdjacentHTML", "document.write", "parseFloat", "parseInt", "toFixed",
             "toPrecision", "sessionStorage", "indexedDB", "fetch(",
             "XMLHttpRequest", "WebSocket", "import(", "setTimeout(\"", ".src ="]


def test_source_has_no_forbidden_calls():
    for word in FORBIDDEN:
        assert word not in SOURCE, word
    # the one storage: the reader's answers, through pageStore only
    store = SOURCE[SOURCE.index("function pageStore"):]
    store = store[:store.index("\n  }\n")]
    assert store.count("localStorage") == 2
    assert SOURCE.count("localStorage") == 3  # and the header comment


def test_source_number_and_math_allowlist():
    """Values are BigInt rationals. `Number(` turns counts into numbers (places, a digit, a
    test's places or significant digits, all checked small) and, once, reads the typed
    decimal as the double a program would print (a float artefact is named only when that
    double prints back as the very same decimal, compared as exact rationals); `Math.` only
    as Math.imul in fnv1a."""
    number_lines = [ln.strip() for ln in SOURCE.splitlines() if "Number(" in ln]
    assert number_lines == [
        "places = frac.length - Number(e);",
        "var f = Number(x.text);",
        'kind = "sig"; digits = Number(tolerance(rule).n);',
        'digits = rule.kind === "test" ? Number(tolerance(rule).n) : x.places;',
        'var d = Number(text.charAt(k)) + step, before = k > 0 ? text.charAt(k - 1) : "";',
        'var d = rule.kind === "test" ? (rule.test === "places" ? Number(tolerance(rule).n) '
        ': null)']
    printed = SOURCE[SOURCE.index("function printedDouble"):]
    printed = printed[:printed.index("\n  }\n")]
    assert "back.n === x.n && back.d === x.d" in printed  # the double decides nothing itself
    math_uses = re.findall(r"Math\.\w+", SOURCE)
    assert math_uses == ["Math.imul"]
    fnv = SOURCE[SOURCE.index("function fnv1a"):]
    assert "Math.imul" in fnv[:fnv.index("\n  }\n")]
    # no float literals in the value code (hex constants of the hash are integers)
    assert not re.search(r"(?<![\w.])\d+\.\d", SOURCE.replace("0.35", ""))
    assert SOURCE.startswith('"use strict";')
    assert SOURCE.rstrip().endswith('if (typeof document !== "undefined") '
                                    '{ DeriveCheck.start(document); }')


def test_page_random_variant_uses_crypto_without_bias():
    """With crypto, a draw at or past the largest multiple of N below 2^32 is drawn again."""
    ctx = quickjs.Context()
    ctx.eval("var draws = [4294967295, 7], calls = 0; var crypto = { getRandomValues: "
             "function (b) { b[0] = draws[calls++]; return b; } };")
    ctx.eval(SOURCE)
    ctx.eval(WRAPPERS)
    ctx.eval(FAKE_DOM)
    log = json.loads(ctx.get("_call")("T_page", json.dumps(
        [json.dumps(page_data(3)), 3, json.dumps(["v0-e0-q0"]), ""])))
    assert log["first"] == ["1"] and log["note"] == "variant 2 of 3"
    assert ctx.eval("calls") == 2
    assert log["submitted"] == [True, ["1"], "variant 2 of 3"]  # an empty name changes nothing


def test_classify_uses_page_words_by_default():
    ctx = quickjs.Context()
    ctx.eval(SOURCE)
    ctx.eval(FAKE_DOM)
    ctx.get("T_page")(json.dumps(page_data(1)), 1, json.dumps(["v0-e0-q0"]), "")
    got = ctx.eval('DeriveCheck.classify("0.349", ' + json.dumps(QS["mean"]) + ', {}).message')
    assert got == msg("right", answer="0.349")
    assert ctx.eval('DeriveCheck.judgeScalar({n: 1n, d: 100n, places: 2}, {q: "0"}, '
                    '{kind: "test", test: "abs", tol: "0.01"})') == "within"


# ------------------------------------------------------------------ bounded input

GUARD = r"""
var regexText = { longest: 0, calls: 0 };
function _guard(proto, name) {
  var orig = proto[name];
  proto[name] = function (a) {
    var s = String(this instanceof RegExp ? a : this);
    regexText.calls++;
    if (s.length > regexText.longest) regexText.longest = s.length;
    if (s.length > 2000) throw new Error("a pattern over " + s.length + " characters");
    return orig.apply(this, arguments);
  };
}
_guard(RegExp.prototype, "exec"); _guard(RegExp.prototype, "test");
_guard(String.prototype, "replace"); _guard(String.prototype, "split");
_guard(String.prototype, "match");
"""


def guarded_context():
    """page.js where every pattern match and replace refuses text over the 2,000-character cap:
    the old script (a quadratic trim of the whole text, then the cap) fails here at once
    instead of freezing for minutes."""
    ctx = quickjs.Context()
    ctx.eval(SOURCE)
    ctx.eval(WRAPPERS)
    ctx.eval(FAKE_DOM)
    ctx.eval(GUARD)
    return ctx


@pytest.mark.parametrize("n", [30_000, 100_000, 1_000_000])
@pytest.mark.parametrize("q", ["mean", "pair"])
def test_long_answer_capped_before_any_work(n, q):
    """`1` + n spaces + `1` (and padding around a right answer): the cap's message, and no
    pattern ever sees more than the cap."""
    ctx = guarded_context()
    words = json.dumps(WORDS)
    for text in ["1" + " " * n + "1", " " * n + "0.349", "1," + " " * n]:
        got = json.loads(ctx.get("_call")("T_classify", json.dumps(
            [text, json.dumps(QS[q]), "{}", words])))
        assert got == ["nan", msg("too_long", "2000", name=QS[q]["name"],
                                  answer=text[:20] + "\u2026")]
        assert json.loads(ctx.get("_call")("T_parse", json.dumps([text]))) is None
    assert ctx.eval("regexText.longest") <= 2000


def test_answer_read_once_per_check():
    """One Check reads the typed text once: two replaces over it (NFKC, the minus sign; the
    old script made four, reading it twice), and the
    whitespace trim looks at each end's run once, not at every position."""
    ctx = guarded_context()
    text = " 1" + " " * 1996 + "1 "
    ctx.eval("var typed = " + json.dumps(text) + ", overTyped = 0, wsTests = 0;"
             "var _r = String.prototype.replace; String.prototype.replace = function () {"
             "  if (String(this) === typed) overTyped++; return _r.apply(this, arguments); };"
             "var _t = RegExp.prototype.test; RegExp.prototype.test = function (s) {"
             "  if (String(s).length === 1) wsTests++; return _t.apply(this, arguments); };")
    ctx.eval("var doc = new FakeDoc(" + json.dumps(json.dumps(page_data(1))) + ", 1, "
             "['v0-e0-q0']); doc.els['derive-data'].textContent = "
             + json.dumps(json.dumps(page_data(1))) + "; DeriveCheck.start(doc);"
             "doc.els['v0-e0-q0-input'].value = typed; overTyped = 0; wsTests = 0;"
             "doc.all.filter(function (e) { return e.attrs.cls === 'check'; })[0].fire('click');")
    assert ctx.eval("doc.els['v0-e0-q0-feedback'].textContent") == msg(
        "not_a_number", text.strip(), answer=text.strip())
    assert ctx.eval("overTyped") == 2
    # two end characters of the text and two of its trimmed form: at most a handful of tests
    assert ctx.eval("wsTests") <= 8


def test_no_trailing_run_pattern():
    """A pattern ending in a repeated class at `$` (`[ws]+$`, `\\s+$`) restarts at every
    position of a run: quadratic in it. Ends are trimmed by pyTrim's two loops instead."""
    assert not re.search(r"\]\+\$|\]\*\$|\\s[+*]\$", SOURCE)


# ------------------------------------------------------------------ full-width input (NFKC)

@settings(max_examples=300)
@given(number_texts | fraction_texts)
def test_full_width_reads_as_ascii(text):
    assert json.loads(js("T_parse", full_width(text))) == json.loads(js("T_parse", text)) \
        == reference_parse(text)


def test_full_width_examples():
    def val(t):
        got = json.loads(js("T_parse", t))
        return got and {k: got[k] for k in ("n", "d", "places")}
    assert val("\uff11\uff12") == {"n": "12", "d": "1", "places": None}
    assert val("\uff0d\uff13") == {"n": "-3", "d": "1", "places": None}
    assert val("\uff0e\uff15") == {"n": "1", "d": "2", "places": 1}
    assert val("\uff0d\uff12\uff0e\uff11\uff12\uff15") == {"n": "-17", "d": "8", "places": 3}
    assert val("\uff11\uff14\uff0f\uff13") == {"n": "14", "d": "3", "places": None}
    assert val("\u3000\uff12\uff45\uff19\u3000") == {"n": "2000000000", "d": "1", "places": 0}
    for not_one in ["3\u00b2", "10\u207b\u00b3", "2\u2082", "\u00b9\u00b2"]:
        assert val(not_one) is None, not_one


def test_full_width_answers_classified():
    words = json.dumps(WORDS)

    def said(q, text):
        return json.loads(js("T_classify", text, json.dumps(QS[q]), "{}", words))
    assert said("mean", "\uff10\uff0e\uff13\uff14\uff19") == ["right", msg("right", answer="0.349")]
    assert said("mean", "\uff0d\uff10\uff0e\uff13\uff15") == [
        "wrong", msg("wrong_mistake", "sign flipped", answer="-0.35")]
    assert said("pair", "\uff11\uff0f\uff12\uff0c\uff13\uff0f\uff14") == [
        "right", msg("right", name="w", answer="1/2,3/4")]
    assert said("mean", "0.3\u00b2")[0] == "nan"


@pytest.mark.parametrize(("n", "ascii_id"), [(3, "S1234"), (5, "20231234")])
def test_full_width_student_number_picks_the_ascii_variant(n, ascii_id):
    """Chosen so that the full-width text's own hash picks another variant."""
    typed = "\u3000" + full_width(ascii_id) + " "
    assert py_fnv1a(full_width(ascii_id)) % n != py_fnv1a(ascii_id) % n
    log = json.loads(js("T_page", json.dumps(page_data(n)), n, json.dumps(["v0-e0-q0"]), typed))
    i = py_fnv1a(ascii_id) % n
    assert log["submitted"] == [True, [str(i)], f"yours: {i + 1} of {n}"]


# ------------------------------------------------------------------ derive check's diagnosis
# Two questions of one exercise: g = 14/3 (2 places asked) and w = 1 − g = −11/3 (4 places).
# Every expected name below is what derive.exercises.diagnosis says of the same claims, worked
# out by hand from its rules (docs/diagnosis.md): float artefact, tie to even, carried forward
# only from a wrong earlier answer, known mistake, early rounding, no name for a slip.

def _ulp_window(q: Fraction, ulps: int = 4) -> dict:
    """[q − 4 ulp, q + 4 ulp] of the double nearest q: artefacts.artefact_window, by hand."""
    bound = ulps * Fraction(math.ulp(float(q)))
    return {"lo": frac_text(q - bound), "hi": frac_text(q + bound)}


G = {"name": "g", "label": "the gradient", "number": 1, "size": None, "value": {"q": "14/3"},
     "rule": {"kind": "places", "places": 2}, "earlier": [],
     "artefact": [_ulp_window(Fraction(14, 3))],
     "mistakes": [{"name": "gradient_sign", "value": {"q": "-14/3"}, "text": "the sign"}],
     "early": [], "carried": {"single": {}, "all": None}}
W = {"name": "w", "label": "the new weight", "number": 2, "size": None,
     "value": {"q": "-11/3"}, "rule": {"kind": "places", "places": 4}, "earlier": ["q0"],
     "artefact": [_ulp_window(Fraction(-11, 3))],
     "mistakes": [{"name": "lr_forgotten", "value": {"q": "-37/3"}, "text": "no lr"},
                  {"name": "slip_like", "value": {"q": "-36667/10000"}, "text": "a slip"}],
     "early": [{"source": "g", "from": "q0", "places": 2, "value": {"q": "-367/100"},
                "text": "g rounded to 2 places first"},
               {"source": "loss", "from": None, "places": 1, "value": {"q": "-41/10"},
                "text": "loss rounded to 1 place first"}],
     "carried": {"single": {"q0": ["+", ["n", "1"], ["*", ["n", "-1"], ["a", "q0", None]]]},
                 "all": None}}
HALF = {"name": "h", "label": "an eighth", "number": 1, "size": None, "value": {"q": "1/8"},
        "rule": {"kind": "exact"}, "earlier": [], "artefact": [_ulp_window(Fraction(1, 8))],
        "mistakes": [], "early": [], "carried": {"single": {}, "all": None}}
BOOK = {"q0": G, "q1": W, "h": HALF}


def full(answer, q, answers=None):
    return json.loads(js("T_classify_full", answer, json.dumps(BOOK[q]),
                         json.dumps(answers or {}), json.dumps(WORDS), json.dumps(BOOK)))


def named(r):
    return (r["verdict"], r["mistake"], r["carried"], r["unsure"])


DIAGNOSED = [
    # a double's printout of 14/3, two ulps off: float_artefact (wrong at 15 places)
    ("4.666666666666669", "q0", {}, ("wrong", "float_artefact", None, False)),
    # 4.666666666666667 is 14/3 correctly rounded to 15 places: right
    ("4.666666666666667", "q0", {}, ("holds", None, None, False)),
    # 1/8 = 0.125 to 2 places is 0.13 half away from zero; 0.12 is the tie to even, which
    # banker's rounding and a float a hair below the tie give alike: none named
    ("0.12", "h", {}, ("wrong", None, None, False)),
    ("0.11", "h", {}, ("wrong", None, None, False)),
    # g right (4.67 holds), then w from the rounded g: rounded_early, never carried forward
    ("-3.6700", "q1", {"q0": parsed("4.67")}, ("wrong", "rounded_early", None, False)),
    # g wrong (4.6 is not 14/3 rounded to 1 place), w follows from it: carried forward
    ("-3.6", "q1", {"q0": parsed("4.6")}, ("wrong", None, ["g"], False)),
    # the early rounding of a quantity the page does not ask (loss), to 1 place
    ("-4.1", "q1", {}, ("wrong", "rounded_early", None, False)),
    # a known mistake
    ("-12.3333", "q1", {}, ("wrong", "lr_forgotten", None, False)),
    # a mistake one digit from the right value (-3.6667): a slip, so no name
    ("-3.6666", "q1", {}, ("wrong", None, None, False)),
]


@pytest.mark.parametrize(("answer", "q", "answers", "expected"), DIAGNOSED)
def test_classify_names_what_derive_check_names(answer, q, answers, expected):
    assert named(full(answer, q, answers)) == expected


def test_no_name_when_a_carried_source_cannot_be_evaluated():
    """An earlier wrong answer whose effect the page cannot compute: derive check might
    carry the error from it, so the page names no mistake (here lr_forgotten's value)."""
    book = dict(BOOK, q1=dict(W, carried={"single": {"q0": None}, "all": None}))
    r = json.loads(js("T_classify_full", "-12.3333", json.dumps(book["q1"]),
                      json.dumps({"q0": parsed("5")}), json.dumps(WORDS), json.dumps(book)))
    assert named(r) == ("wrong", None, None, True)
    # the same answer after a right g: nothing to carry, the mistake is named
    r = json.loads(js("T_classify_full", "-12.3333", json.dumps(book["q1"]),
                      json.dumps({"q0": parsed("4.67")}), json.dumps(WORDS), json.dumps(book)))
    assert named(r) == ("wrong", "lr_forgotten", None, False)


def test_messages_name_questions_by_their_words():
    r = full("-3.6", "q1", {"q0": parsed("4.6")})
    assert r["key"] == "wrong_carried" and "the gradient" in r["message"]
    assert "(" not in json.dumps(full("-12.3333", "q1")["message"])  # no internal name


# ------------------------------------------------------------------ counts in words

COUNTED = re.compile(r"\b1 (?:decimal )?(?:places|values|numbers|variants|characters|figures|"
                     r"significant figures|times)\b")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_counted_word_reads_right_for_one(lang):
    """Every template of the page's WORDS that takes a number, filled with 1 and with 2 by
    page.js's fill and by derive.render.html.fill (the same text): never "1 places"."""
    from derive.render.html import WORDS, fill
    words = WORDS[lang]
    for key, template in words.items():
        names = set(re.findall(r"\{([a-z_]+)", template))
        if not names:
            continue
        for n in ("1", "2"):
            params = {name: n for name in names}
            text = js("T_fill", json.dumps(words), key, json.dumps(params))
            assert text == fill(template, **params) or key.endswith("_one") or \
                key + "_one" in words, key
            assert "{" not in text and not COUNTED.search(text), (key, text)
    if lang == "en":  # hand-written
        assert fill(words["hint_list"], n=3) == "3 numbers, separated by commas."
        assert fill(words["ask_places"], places=1, n=1) == "Give it rounded to 1 decimal place."
        assert fill(words["ask_places"], places=4, n=3) == \
            "Give each rounded to 4 decimal places."
        assert js("T_fill", json.dumps(words), "wrong_count", json.dumps({"n": 1, "m": 2})) == \
            "This answer has 2 numbers; the question asks for 1."
        assert js("T_fill", json.dumps(words), "wrong_count", json.dumps({"n": 2, "m": 1})) == \
            "This answer has 1 number; the question asks for 2."
    else:
        assert fill(words["ask_places"], places=1) == "结果四舍五入,保留 1 位小数。"


def test_page_text_has_no_markdown():
    from derive.render.html import page_text
    assert page_text("a plan (`divisor = 3` states it)") == "a plan (divisor = 3 states it)"
    assert page_text("**not** *this* a*b*c 2*3") == "not this a*b*c 2*3"


def _q(name, value, earlier, single, together):
    return {"name": name, "label": name, "number": len(earlier) + 1, "size": None,
            "value": {"q": value}, "rule": {"kind": "exact"}, "earlier": earlier,
            "artefact": [None], "mistakes": [], "early": [],
            "carried": {"single": single, "all": together}}


def a(key):
    return ["a", key, None]


# A = 1; B = A + 1; C = A·B; D = C + B. derive check overrides only the claims of a set:
# with A = 3 and B = 5 claimed, C is recomputed from them (15) and D = 20, not C's right
# value 2 plus 5.
CHAIN = {
    "A": _q("A", "1", [], {}, None),
    "B": _q("B", "2", ["A"], {"A": ["+", a("A"), ["n", "1"]]}, None),
    "C": _q("C", "2", ["A", "B"], {"A": ["*", a("A"), ["+", a("A"), ["n", "1"]]],
                                   "B": a("B")}, ["*", a("A"), a("B")]),
    "D": _q("D", "4", ["A", "B", "C"],
            {"A": ["+", ["*", a("A"), ["+", a("A"), ["n", "1"]]], a("A"), ["n", "1"]],
             "B": ["*", ["n", "2"], a("B")], "C": ["+", a("C"), ["n", "2"]]},
            ["+", a("C"), a("B")]),
}


@pytest.mark.parametrize(("typed_d", "carried"), [
    ("20", ["A", "B"]),  # C recomputed from A and B: 3·5 + 5
    ("7", None),  # C at its right value instead: derive check never computes this
    ("102", ["C"]), ("10", ["B"]), ("16", ["A"]), ("105", ["B", "C"]),
])
def test_a_set_recomputes_the_quantities_between(typed_d, carried):
    answers = {"A": parsed("3"), "B": parsed("5"), "C": parsed("100")}
    r = json.loads(js("T_classify_full", typed_d, json.dumps(CHAIN["D"]), json.dumps(answers),
                      json.dumps(WORDS), json.dumps(CHAIN)))
    assert (r["verdict"], r["carried"]) == ("wrong", carried)


# A = 4; R = √A = 2 (a form with a root: the page bounds it by enclosures).
ROOTS = {
    "A": _q("A", "4", [], {}, None),
    "R": _q("R", "2", ["A"], {"A": ["^", ["s", a("A")], 1]}, None),
}


@pytest.mark.parametrize(("typed_a", "typed_r", "expected"), [
    ("2", "1.414", ("wrong", None, ["A"], False)),  # √2 to 3 places
    ("2", "1.4142", ("wrong", None, ["A"], False)),
    ("2", "1.41", ("wrong", None, ["A"], False)),
    ("2", "1.42", ("wrong", None, None, False)),  # not √2 rounded
    ("9", "3", ("wrong", None, ["A"], False)),  # √9 is exact
    ("-1", "1", ("wrong", None, None, True)),  # √−1: undefined here, derive might say more
])
def test_carried_forward_through_a_square_root(typed_a, typed_r, expected):
    answers = {"A": parsed(typed_a)}
    r = json.loads(js("T_classify_full", typed_r, json.dumps(ROOTS["R"]), json.dumps(answers),
                      json.dumps(WORDS), json.dumps(ROOTS)))
    assert named(r) == expected


PIECES = st.one_of(st.text(alphabet="ab {}|:_1", max_size=4),
                   st.sampled_from(["{n}", "{n:one|many}", "{m}", "{m:|x}", "{absent}",
                                    "{n:a|b", "{N}"]))


@examples(200)
@given(template=st.lists(PIECES, max_size=8).map("".join),
       n=st.one_of(st.integers(-2, 12), st.sampled_from(["1", "01", "", "{m}"])),
       m=st.text(alphabet="ab1{}|:$\\<", max_size=5))
def test_fill_is_derives_fill(template, n, m):
    """page.js's fill (text joined from its parts) and derive.render.html.fill give the same
    text for any template: a value, a count's word ("1" reads one), a name without a value
    kept as written, a value's own braces never read again."""
    from derive.render.html import fill

    params = {"n": n, "m": m}
    got = js("T_fill", json.dumps({"k": template}), "k", json.dumps(params))
    assert got == fill(template, **params)
