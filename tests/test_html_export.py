"""`derive export --format html`: the page's markup, its policy, its data and its escaping,
read with Python's own HTML parser and hashlib (the browser tests are tests/test_page_browser.py).

Expected values are worked here in Fractions from the course's numbers, never read back from
derive's output."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import re
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest
import sympy as sp
from fraction_reference import form_value
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.cli.main import main
from derive.render.escape import clean_text
from derive.render.html import json_in_html

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "proofs" / "course"


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def page(path: Path | str, *more: str) -> str:
    code, out, err = run("export", str(path), "--format", "html", *more)
    assert code == 0, err
    return out


class Parsed(HTMLParser):
    """Scripts (attributes, text), meta tags, the text of each element kind."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts: list[tuple[dict, str]] = []
        self.styles: list[str] = []
        self.metas: list[dict] = []
        self.texts: dict[str, list[str]] = {}
        self.handlers: list[str] = []
        self._stack: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.handlers += [k for k in a if k.startswith("on")]
        if tag == "meta":
            self.metas.append(a)
        if tag not in ("meta", "input", "br", "img", "link"):
            self._stack.append((tag, a))
            self.texts.setdefault(tag, []).append("")

    def handle_endtag(self, tag):
        if self._stack and self._stack[-1][0] == tag:
            self._stack.pop()

    def handle_data(self, data):
        if not self._stack:
            return
        tag, a = self._stack[-1]
        if tag == "script":
            self.scripts.append((a, data))
        elif tag == "style":
            self.styles.append(data)
        for t, _ in self._stack:
            self.texts[t][-1] += data


def parse(html: str) -> Parsed:
    p = Parsed()
    p.feed(html)
    return p


def data_of(html: str) -> dict:
    (text,) = [t for a, t in parse(html).scripts if a.get("id") == "derive-data"]
    return json.loads(text)


def frac(text: str) -> Fraction:
    return Fraction(text)


# ------------------------------------------------------------------------------- the policy

def test_policy_allows_exactly_the_page_script_and_style():
    html = page(COURSE / "lesson03.toml")
    p = parse(html)
    (policy,) = [m["content"] for m in p.metas
                 if m.get("http-equiv") == "Content-Security-Policy"]
    rules = dict(r.strip().split(" ", 1) for r in policy.split(";") if r.strip())
    code = [t for a, t in p.scripts if "type" not in a]
    assert len(code) == 1
    digest = base64.b64encode(hashlib.sha256(code[0].encode()).digest()).decode()
    assert rules["script-src"] == f"'sha256-{digest}'"
    (style,) = p.styles
    digest = base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()
    assert rules["style-src-elem"] == f"'sha256-{digest}'"
    assert rules["default-src"] == "'none'" and rules["form-action"] == "'none'"
    assert rules["font-src"] == "data:" and "connect-src" not in rules
    assert not p.handlers  # no inline event handler anywhere


def test_page_loads_nothing():
    """Every URL in the page is a data: URL (fonts); no link, no src to fetch."""
    html = page(COURSE / "lesson03.toml", "--lang", "zh")
    assert not re.search(r"""(?:src|href)\s*=\s*["'](?!data:|#)""", html)
    assert not re.search(r"url\((?!data:)", html)
    assert "http://" not in html.replace("http://www.w3.org/1998/Math/MathML", "")
    assert "https://" not in html


def test_statement_page_has_no_script():
    html = page("A2")
    p = parse(html)
    assert not [t for a, t in p.scripts]
    (policy,) = [m["content"] for m in p.metas if m.get("http-equiv")]
    assert "script-src 'none'" in policy


# ---------------------------------------------------------------------------------- data

def test_values_and_rules_of_the_worked_example():
    """Lesson 03's example: w = 1, x = 2, y = 4, η = 0.1 (worked here in Fractions)."""
    w, x, y, lr = Fraction(1), Fraction(2), Fraction(4), Fraction(1, 10)
    pred = w * x
    loss = (pred - y) ** 2 / 2
    grad = (pred - y) * x
    w_new = w - lr * grad
    qs = data_of(page(COURSE / "lesson03.toml"))["variants"][0]["questions"]
    ex = {q["name"]: q for k, q in qs.items() if k.startswith("v0-e0-")}
    want = {"prediction": pred, "loss": loss, "gradient": grad, "w_new": w_new,
            "prediction_new": w_new * x, "loss_new": (w_new * x - y) ** 2 / 2}
    assert {n: frac(q["value"]["q"]) for n, q in ex.items()} == want
    # the rule is chosen from the exact answer, not the claim: -4, 1.4 and 0.72 all end
    # within 4 places, so each is asked exactly
    assert ex["gradient"]["rule"] == {"kind": "exact"}
    assert ex["w_new"]["rule"] == {"kind": "exact"}
    assert ex["loss_new"]["rule"] == {"kind": "exact"}
    mistakes = {frac(m["value"]["q"]): m["name"] for m in ex["gradient"]["mistakes"]}
    assert mistakes[2 * grad] == "gradient_other_convention"  # MSELoss: no ½
    assert mistakes[-grad] == "gradient_sign"
    assert not any(m["text"].endswith(f"({m['name']})")  # no internal name in the words
                   for m in ex["gradient"]["mistakes"])
    w_sign = {frac(m["value"]["q"]) for m in ex["w_new"]["mistakes"]}
    assert w + lr * grad in w_sign


@settings(max_examples=30, deadline=None)
@given(st.fractions(min_value=-50, max_value=50))
def test_carried_forward_form_is_the_update_from_the_students_gradient(g):
    """w_new from a student's own gradient g: w − η·g, in the page's form tree."""
    qs = _example_questions()
    key = "v0-e0-q2"  # the gradient, lesson03's third question
    assert qs["gradient"]["number"] == 3
    expr = qs["w_new"]["carried"]["single"][key]
    assert form_value(expr, {key: g}) == 1 - Fraction(1, 10) * g


_CACHE: dict = {}


def _example_questions() -> dict:
    if "example" not in _CACHE:
        qs = data_of(page(COURSE / "lesson03.toml"))["variants"][0]["questions"]
        _CACHE["example"] = {q["name"]: q for k, q in qs.items() if k.startswith("v0-e0-")}
    return _CACHE["example"]


def test_an_irrational_value_is_a_certified_enclosure():
    from derive.render.selfcheck import encode_value

    got = encode_value(sp.sqrt(2) / 3)
    lo, hi = sp.Rational(got["lo"]), sp.Rational(got["hi"])
    assert lo < sp.sqrt(2) / 3 < hi and hi - lo < sp.Rational(1, 10) ** 70
    assert encode_value(sp.Rational(-14, 3)) == {"q": "-14/3"}
    long = sp.Rational(10 ** 250 + 1, 3 * 10 ** 246)  # 251 digits: nobody types it
    enc = encode_value(long)
    assert sp.Rational(enc["lo"]) <= long <= sp.Rational(enc["hi"])
    assert encode_value(sp.Integer(10) ** 150 + sp.sqrt(2)) is None  # beyond any typed answer


# ------------------------------------------------------------------------------ escaping

HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&amp;</script>'


def _toml_string(text: str) -> str:
    return '"' + "".join(f"\\u{ord(c):04x}" if c in '"\\' or ord(c) < 32 or 127 <= ord(c) < 160
                         else c for c in text) + '"'


def _bank(tmp_path: Path, title: str, ex_id: str = "ex-1") -> Path:
    f = tmp_path / "bank.toml"
    f.write_text("[[exercise]]\n"
                 f"id = {_toml_string(ex_id)}\ntitle = {_toml_string(title)}\n"
                 'recipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.1\n'
                 "records = [[2, 4]]\n[exercise.claims]\nw_new = 1.4\n", encoding="utf-8")
    return f


def test_a_title_with_script_stays_text(tmp_path):
    html = page(_bank(tmp_path, HOSTILE))
    p = parse(html)
    assert [a for a, _ in p.scripts] == [{"type": "application/json", "id": "derive-data"}, {}]
    assert not p.handlers
    assert clean_text(HOSTILE) in "".join(p.texts["h2"])
    assert "<img" not in html and "<script>alert" not in html


@settings(max_examples=25, deadline=None)
@given(title=st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
       ex_id=st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True))
def test_any_title_is_text(tmp_path_factory, title, ex_id):
    html = page(_bank(tmp_path_factory.mktemp("t"), title, ex_id))
    p = parse(html)
    assert len(p.scripts) == 2 and not p.handlers
    heading = "".join(p.texts["h2"])
    assert heading.startswith(ex_id)
    if clean_text(title):
        assert clean_text(title) in heading


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(), c,
                                                                        max_size=3)))
def test_json_in_html_cannot_end_its_element(value):
    text = json_in_html(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


# ------------------------------------------------------------------------------ variants

def test_variants_page_holds_n_verified_variants():
    """Each variant's values are its own exercise's: the gradient of each variant of
    lesson03-ex1-vary is (w·x − y)·x at its givens (read from the page's givens)."""
    html = page(COURSE / "variants.toml", "--variants", "4", "--seed", "3")
    data = data_of(html)
    assert len(data["variants"]) == 4
    assert html.count('class="variant"') == 4
    values = [json.dumps(v["questions"], sort_keys=True) for v in data["variants"]]
    assert len(set(values)) == 4
    assert page(COURSE / "variants.toml", "--variants", "4", "--seed", "3") == html


@pytest.mark.parametrize("args, words", [
    (["proofs/course/lesson03.toml", "--format", "md", "--variants", "2"], "--format html"),
    (["proofs/course/variants.toml", "--format", "html", "--variants", "0"], "1 to 100"),
    (["proofs/course/lesson03.toml", "--format", "html", "--variants", "2"],
     "[exercise.vary]"),
    (["A2", "--format", "html", "--variants", "2"], "statement"),
])
def test_variants_misuse_is_one_line(args, words):
    code, out, err = run("export", *args)
    assert code == 2 and out == ""
    assert words in err and len(err.strip().splitlines()) == 1


# ------------------------------------------------------------------------------- bounds

POW = """[[exercise]]
id = "pow"
recipe = "formulas"
[exercise.given]
w = 1
[exercise.define]
a = "w + 0"
a1 = "a^10000"
a2 = "a1^10000"
[exercise.claims]
a = 1
a2 = 1
"""


def test_no_huge_power_reaches_the_page(tmp_path):
    """A carried form a^100000000 would freeze the student's browser (BigInt powers): forms
    with an exponent past 64 are left out (found by the red team)."""
    bank = tmp_path / "pow.toml"
    bank.write_text(POW, encoding="utf-8")
    data = data_of(page(bank))
    text = json.dumps(data)
    exponents = [int(e) for e in re.findall(r'"\^", \[[^\]]*\], (-?\d+)', text)]
    assert all(abs(e) <= 64 for e in exponents)


def test_adam_trajectory_page_is_quick(tmp_path):
    """Adam with amsgrad over 5 steps: the question sheet's title test and the page's values
    never ask SymPy's is_number/abs of the nested radicals (minutes before the fix)."""
    html = page(ROOT / "tests" / "hostile" / "adam5-amsgrad.toml", "--time-limit", "20")
    assert len(data_of(html)["variants"][0]["questions"]) == 3


# ------------------------------------------------------------ what the student reads

def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_question_the_page_cannot_bound_is_left_out_with_a_note(tmp_path, lang):
    """clip-vectors asks a list of vectors (clipped_gradients): the page leaves that question
    out with a note; the exercise's other questions and the file's other exercises stay."""
    folder = tmp_path / "bank"
    folder.mkdir()
    (folder / "clipping.toml").write_text(
        (ROOT / "tests" / "data" / "clipping.toml").read_text(encoding="utf-8"), "utf-8")
    (folder / "reading.toml").write_text(
        (COURSE / "reading.toml").read_text(encoding="utf-8"), "utf-8")
    html = page(folder, "--lang", lang)
    keys = {q["name"] for v in data_of(html)["variants"] for q in v["questions"].values()}
    assert "clipped_gradients" not in keys
    assert {"mean_gradient", "mean_then_clip", "clip_then_mean", "w_new"} <= keys
    note = ("Not on this page: Each microbatch gradient clipped:" if
            lang == "en" else "本页未收此题:")
    why = ("a page cannot check a value of this shape; derive check can." if lang == "en"
           else "网页无法检查这种形状的值;derive check 可以。")
    notes = [p for p in re.findall(r"<p>(.*?)</p>", html) if _text(p).startswith(note)]
    assert notes and all(_text(p).endswith(why) for p in notes)


def test_each_question_states_its_precision():
    """The hint under each question says what precision is asked: chosen from the exact
    answer, never from the claim's digits (clipping.toml claims 0.6, 0.707107, 0.624695…)."""
    html = page(ROOT / "tests" / "data" / "clipping.toml")
    hints = dict(re.findall(r'<p id="(v0-e\d-q\d)-hint" class="hint">(.*?)</p>', html))
    data = data_of(html)["variants"][0]["questions"]
    by_name = {q["name"]: hints[k] for k, q in data.items() if k.startswith("v0-e0-")}
    # [2, 2.5]: exact; (2, 2.5)/√10.25: irrational entries, 4 significant figures
    assert by_name["mean_gradient"] == ("2 numbers, separated by commas. Give the exact "
                                        "values (an integer, a fraction or a decimal that "
                                        "terminates).")
    assert by_name["mean_then_clip"] == ("2 numbers, separated by commas. Give each to 4 "
                                         "significant figures.")
    zh = page(ROOT / "tests" / "data" / "clipping.toml", "--lang", "zh")
    assert "结果保留 4 位有效数字。" in zh
    exact = page(COURSE / "reading.toml")
    assert "Give the exact value (an integer, a fraction or a decimal that terminates)." in exact
    assert "A number: an integer, a decimal or a fraction (14/3). Give it to 4 significant " \
        "figures." in exact  # 14/3
    assert "1 number" not in exact and "1 numbers" not in exact


@pytest.mark.parametrize("stem", ["reading", "lesson03"])
def test_page_words_are_plain_text_and_count_right(stem):
    """Mistakes' words reach the page without Markdown and with "1 place", not "1 places"."""
    data = data_of(page(COURSE / f"{stem}.toml"))
    texts = [m["text"] for v in data["variants"] for q in v["questions"].values()
             for m in q["mistakes"]] + \
        [e["text"] for v in data["variants"] for q in v["questions"].values()
         for e in q["early"]]
    assert texts
    for t in texts:
        assert "`" not in t and "**" not in t, t
        assert not re.search(r"\b1 places\b", t), t


@pytest.mark.parametrize("rule, en, zh", [
    (("places", 1, None, None), "Give it rounded to 1 decimal place.", "结果四舍五入,保留 1 位小数。"),
    (("places", 4, None, None), "Give it rounded to 4 decimal places.",
     "结果四舍五入,保留 4 位小数。"),
    (("exact", None, None, None),
     "Give the exact value (an integer, a fraction or a decimal that terminates).",
     "写出精确值(整数、分数或有限小数)。"),
    (("test", None, "places", 2), "Give it rounded to 2 decimal places.",
     "结果四舍五入,保留 2 位小数。"),
    (("test", None, "sig", 1), "Give it to 1 significant figure.", "结果保留 1 位有效数字。"),
    (("test", None, "sig", 3), "Give it to 3 significant figures.", "结果保留 3 位有效数字。"),
    (("test", None, "rel", sp.Rational(1, 10**10)),
     "Any value within a relative 1e-10 of the exact value is right.",
     "与精确值的相对误差不超过 1e-10 即为正确。"),
    (("test", None, "abs", sp.Rational(1, 200)),
     "Any value within 0.005 of the exact value is right.", "与精确值的误差不超过 0.005 即为正确。"),
    (("test", None, "abs", sp.Rational(1, 3)),
     "Any value within 1/3 of the exact value is right.", "与精确值的误差不超过 1/3 即为正确。"),
])
def test_precision_in_words(rule, en, zh):
    from derive.exercises.page import Rule
    from derive.render.selfcheck import asked_precision
    kind, places, test, tol = rule
    r = Rule(kind, places=places, test=test, tolerance=tol)
    assert asked_precision(r, "en") == en
    assert asked_precision(r, "zh") == zh
