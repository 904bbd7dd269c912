"""Self-check pages in a real browser (Debian's Chromium, offline): every course exercise file in
English and Chinese, every question answered right and with every known mistake's value; a
carried-forward answer, rounding, malformed input and an XSS attempt with hand-written expected
feedback; the keyboard; the variants' chooser; a phone-width layout.

The values typed for "right" and for each mistake are the page's own data (the values are
checked against Fractions in tests/test_html_export.py); what is tested here is that the page
says the right thing for them. The hand-written cases take nothing from derive.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from browser import PHONE, feedback_text, open_page
from fraction_reference import half_away
from support import tier

from derive.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
COURSE = sorted(p for p in (ROOT / "proofs" / "course").glob("*.toml")
                if p.name != "derive.toml")  # the bank's settings, no exercise


def export(target: Path | str, out: Path, *more: str) -> Path:
    err = io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(err):
        code = main(["export", str(target), "--format", "html", "-o", str(out), *more])
    assert code == 0, err.getvalue()
    return out


def data_of(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="derive-data">(.*?)</script>', text,
                  re.S)
    return json.loads(m.group(1))


def ask(page, key: str, text: str, enter: bool = False) -> tuple[str, str]:
    """Type `text` as the answer to question `key` and check it (the button, or Enter)."""
    field = page.locator(f"#{key}-input")
    field.fill(text)
    if enter:
        field.press("Enter")
    else:
        page.locator(f"button.check[data-q='{key}']").click()
    feedback = page.locator(f"#{key}-feedback")
    return feedback.get_attribute("data-status"), feedback_text(page, key)


def _fraction(text: str) -> Fraction:
    return Fraction(text)


def _decimal(x: Fraction, places: int) -> str:
    r = half_away(x, places)
    sign = "-" if r < 0 else ""
    n = abs(r.numerator * 10 ** places // r.denominator)
    whole, frac = divmod(n, 10 ** places)
    return f"{sign}{whole}.{frac:0{places}d}"


def typed(value) -> tuple[str, bool]:
    """What a student types for an encoded value, and whether it is exact: the fraction, or for
    an enclosure its 12-place rounding (the same at both ends)."""
    if isinstance(value, list):
        parts = [typed(v) for v in value]
        return ", ".join(p for p, _ in parts), all(e for _, e in parts)
    if "q" in value:
        return value["q"], True
    lo, hi = _fraction(value["lo"]), _fraction(value["hi"])
    assert half_away(lo, 12) == half_away(hi, 12)
    return _decimal(lo, 12), False


# ----------------------------------------------------------------- every course file, en and zh

def _slip(text: str, value) -> bool:
    """Whether derive check would call the claim `text` one slip from the exact `value`
    (derive.exercises.near_miss), so that it names no mistake for it."""
    import sympy as sp

    from derive.exercises.claims import Claim, literal
    from derive.exercises.near_miss import near_miss

    if isinstance(value, list):
        if not all("q" in v for v in value):
            return False
        items = [literal(t.strip()) for t in text.split(",")]
        return near_miss(Claim(items, text), [sp.Rational(v["q"]) for v in value])
    return "q" in value and near_miss(literal(text), sp.Rational(value["q"]))


RIGHT = {"en": "Right.", "zh": "正确。"}


class _Pages(dict):
    """The course's pages, (stem, lang): path, each exported when first asked for (a page of
    the slow tier is not made when its test does not run)."""

    def __init__(self, folder):
        super().__init__()
        self.folder = folder

    def __missing__(self, key):
        stem, lang = key
        self[key] = export(ROOT / "proofs" / "course" / f"{stem}.toml",
                           self.folder / f"{stem}-{lang}.html", "--lang", lang)
        return self[key]


@pytest.fixture(scope="module")
def course_pages(tmp_path_factory):
    return _Pages(tmp_path_factory.mktemp("pages"))


@pytest.mark.parametrize("stem, lang", tier([(f.stem, lang) for f in COURSE
                                              for lang in ("en", "zh")],
                                             always=[(f.stem, "en") for f in COURSE]
                                             + [("lesson03", "zh")]))
def test_every_question_right_and_every_mistake_named(browser, course_pages, stem, lang):
    path = course_pages[(stem, lang)]
    data = data_of(path)
    (variant,) = data["variants"]
    named = typeset = 0
    with open_page(browser, path, lang=lang) as opened:
        page = opened.page
        for key, q in variant["questions"].items():  # in order: earlier answers stay right
            for m in q["mistakes"]:
                text, _ = typed(m["value"])
                status, said = ask(page, key, text)
                assert status == "wrong", (key, q["name"], text, said)
                if _slip(text, q["value"]):  # derive check names no mistake one slip away
                    assert m["text"] not in said, (key, q["name"], text, said)
                    continue
                assert m["text"] in said, (key, q["name"], text, said)
                if "said" in m:  # its words with their math typeset, a copy of its template
                    math = page.locator(f"#{key}-feedback span.said[data-said='{m['said']}']"
                                        " .katex annotation")
                    assert math.count() > 0, (key, q["name"], text, said)
                    typeset += 1
                named += 1
            text, exact = typed(q["value"])
            status, said = ask(page, key, text, enter=True)
            if exact:
                assert (status, said) == ("right", RIGHT[lang]), (key, q["name"], text)
            else:
                assert status in ("right", "rounded"), (key, q["name"], text, said)
        assert opened.errors == [] and opened.requests_blocked == []
        assert opened.csp_violations == []
    assert named > 0 or stem == "lesson03-memory"
    assert typeset > 0 or stem == "lesson03-memory"


# ------------------------------------------------------------------ hand-written feedback

ONE_THIRD = """[[exercise]]
id = "third"
title = "w = 1/3 after one step"
recipe = "sgd_step"
[exercise.given]
w = 0
lr = "1/9"
records = [[3, 1]]
[exercise.claims]
gradient = -3
w_new = 0.333
[exercise.ask.w_new]
places = 3
"""


@pytest.fixture(scope="module")
def third(tmp_path_factory):
    folder = tmp_path_factory.mktemp("third")
    (folder / "third.toml").write_text(ONE_THIRD, encoding="utf-8")
    return {lang: export(folder / "third.toml", folder / f"third-{lang}.html", "--lang", lang)
            for lang in ("en", "zh")}


def _keys(path: Path) -> dict[str, str]:
    (variant,) = data_of(path)["variants"]
    return {q["name"]: key for key, q in variant["questions"].items()}


CASES = [  # (quantity, typed, status, the exact feedback in English)
    ("w_new", "1/3", "right", "Right."),
    ("w_new", "0.333", "right", "Right: the exact value rounded to 3 places."),
    ("w_new", "0.33333", "right", "Right: the exact value rounded to 5 places."),
    ("w_new", " \u22120.333 ", "wrong", None),  # the sign: a minus sign read as one
    ("w_new", "0.33", "rounded",
     "The right value, but rounded differently: the exercise asks for 3 places."),
    ("w_new", "0.334", "rounded", "The right value, but rounded differently: rounded half "
     "away from zero to 3 places it is 0.333."),
    ("w_new", "0.3", "rounded",
     "The right value, but rounded differently: the exercise asks for 3 places."),
    ("w_new", "0.4", "rounded", "The right value, but rounded differently: rounded half "
     "away from zero to 1 place it is 0.3."),  # rounded up: within one step of 1/3
    ("w_new", "0.5", "wrong", None),
    ("gradient", "-3", "right", "Right."),
    ("gradient", "-3.0", "right", "Right."),
    ("gradient", "-6/2", "right", "Right."),
    ("gradient", "-3.5", "wrong", "Not right. Try again, or show the working."),
    ("gradient", "abc", "nan", "\u201cabc\u201d is not a number: write an integer (3), a "
     "decimal (\u22120.25, 2e9) or a fraction (14/3)."),
    ("gradient", "1/0", "nan", None),
    ("gradient", "0x10", "nan", None),
    ("gradient", "1e999", "nan", None),
    ("gradient", "", "nan", "Write an answer first."),
    ("gradient", "3", "wrong", "Not right. This is the value of a known mistake: the gradient "
     "with its sign flipped: x·(y − ŷ)"),
]


@pytest.mark.parametrize("name, text, status, said", CASES)
def test_feedback(browser, third, name, text, status, said):
    keys = _keys(third["en"])
    with open_page(browser, third["en"]) as opened:
        got_status, got = ask(opened.page, keys[name], text)
        assert got_status == status, got
        if said is not None:
            assert got == said
        assert opened.errors == []


def test_chinese_feedback(browser, third):
    keys = _keys(third["zh"])
    with open_page(browser, third["zh"], lang="zh") as opened:
        assert ask(opened.page, keys["gradient"], "-3") == ("right", "正确。")
        assert ask(opened.page, keys["w_new"], "0.33") == (
            "rounded", "数值正确,但保留位数不对:题目要求保留 3 位小数。")
        assert ask(opened.page, keys["gradient"], "x") == (
            "nan", "\u201cx\u201d 不是数:请写整数(3)、小数(\u22120.25、2e9)或分数(14/3)。")


def test_carried_forward(browser, third):
    """A wrong gradient (−5), then the update that follows from it: w = 0 − (1/9)(−5) = 5/9."""
    keys = _keys(third["en"])
    with open_page(browser, third["en"]) as opened:
        page = opened.page
        assert ask(page, keys["gradient"], "-5")[0] == "wrong"
        assert ask(page, keys["w_new"], "5/9") == (
            "wrong", "Not right, but it follows correctly from your own answer to question 1 "
            "(Gradient with respect to w): the error is carried forward.")
        assert ask(page, keys["w_new"], "0.556")[0] == "wrong"  # rounded, still carried
        assert "carried forward" in ask(page, keys["w_new"], "0.556")[1]
        assert ask(page, keys["gradient"], "-3")[0] == "right"  # corrected: no longer carried
        assert ask(page, keys["w_new"], "5/9") == ("wrong",
                                                   "Not right. Try again, or show the working.")


XSS = ['<img src=x onerror="window.__pwned=1">', "</script><script>window.__pwned=2</script>",
       '"><svg onload="window.__pwned=3">', "javascript:window.__pwned=4", "{text}{answer}"]


@pytest.mark.parametrize("text", XSS)
def test_an_answer_is_only_text(browser, third, text):
    keys = _keys(third["en"])
    with open_page(browser, third["en"]) as opened:
        page = opened.page
        status, said = ask(page, keys["gradient"], text)
        assert status == "nan" and text.strip() in said
        assert page.evaluate("window.__pwned") is None
        feedback = page.locator(f"#{keys['gradient']}-feedback")
        assert feedback.evaluate("e => e.children.length") == 0
        assert page.locator("img, svg:not(.katex svg)").count() == 0 or \
            page.locator("main img").count() == 0
        assert opened.errors == [] and opened.requests_blocked == []


def test_a_title_with_script_stays_text(browser, tmp_path):
    bank = tmp_path / "x.toml"
    bank.write_text(ONE_THIRD.replace('title = "w = 1/3 after one step"',
                                      'title = "<script>window.__pwned=1</script><b>x</b>"'),
                    encoding="utf-8")
    path = export(bank, tmp_path / "x.html")
    with open_page(browser, path) as opened:
        page = opened.page
        assert page.evaluate("window.__pwned") is None
        assert "<script>window.__pwned=1</script><b>x</b>" in page.locator("h2").text_content()
        assert page.locator("main b").count() == 0
        assert opened.errors == [] and opened.csp_violations == []


def test_keyboard_and_screen_reader(browser, third):
    """Tab from the answer to its button, Space to check; the feedback is a polite live
    region; the working opens from the keyboard after an attempt."""
    keys = _keys(third["en"])
    k = keys["gradient"]
    with open_page(browser, third["en"]) as opened:
        page = opened.page
        field = page.locator(f"#{k}-input")
        assert page.locator(f"label[for='{k}-input']").count() == 1
        assert "-feedback" in field.get_attribute("aria-describedby")
        feedback = page.locator(f"#{k}-feedback")
        assert feedback.get_attribute("aria-live") == "polite"
        assert feedback.get_attribute("role") == "status"
        reveal = page.locator(f"button.reveal[data-q='{k}']")
        assert reveal.is_disabled()
        field.focus()
        page.keyboard.type("-3")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.className") == "check"
        page.keyboard.press("Space")
        assert feedback.text_content() == "Right."
        assert reveal.is_enabled()
        working = page.locator(f"#{k}-working")
        assert working.is_hidden()
        reveal.focus()
        page.keyboard.press("Enter")
        assert working.is_visible() and reveal.get_attribute("aria-expanded") == "true"
        assert "Gradient" in working.text_content()


# ------------------------------------------------------------------------------ variants

def _fnv1a(text: str) -> int:
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) % 2 ** 32
    return h


def test_variants_one_per_visit_and_per_student(browser, tmp_path):
    path = export(ROOT / "proofs" / "course" / "variants.toml", tmp_path / "v.html",
                  "--variants", "3", "--seed", "7")
    with open_page(browser, path) as opened:
        page = opened.page
        visible = page.locator("section.variant:visible")
        assert visible.count() == 1
        for student in ("20261130", "学号-7", "1"):
            page.locator("#derive-student").fill(student)
            page.locator("#derive-student").press("Enter")
            index = _fnv1a(student) % 3
            assert visible.count() == 1
            assert visible.get_attribute("data-variant") == str(index)
            assert page.locator("#derive-variant-note").text_content() == \
                f"Variant {index + 1} of 3, for this student number."
        key = page.locator("section.variant:visible li.question").first.get_attribute("data-q")
        (variant,) = [v for v in data_of(path)["variants"] if key in v["questions"]]
        text, _ = typed(variant["questions"][key]["value"])
        assert ask(page, key, text)[0] == "right"
        assert opened.errors == [] and opened.requests_blocked == []


# --------------------------------------------------------------------------------- phone

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_readable_on_a_phone(browser, course_pages, lang):
    """At 390 px nothing makes the page scroll sideways (wide formulas scroll in their own
    box), and the inputs are at least 44 px tall to touch."""
    with open_page(browser, course_pages[("reading", lang)], device=PHONE, lang=lang) as o:
        page = o.page
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        height = page.locator("li.question input").first.bounding_box()["height"]
        assert height >= 40


# ------------------------------------------------------------------- honest, accessible page

def test_title_and_noscript_say_what_is_true(tmp_path):
    """The title keeps its space; without JavaScript the working is hidden (every working
    region has `hidden`), and the <noscript> note says so rather than promising it."""
    for lang, title, note in [
            ("en", "<title>Self-check: lesson03.toml</title>",
             "Checking answers and showing the working need JavaScript; without it only the "
             "questions can be read."),
            ("zh", "<title>自测: lesson03.toml</title>",
             "检查答案和显示推导需要 JavaScript;不开启只能阅读题目。")]:
        text = export(ROOT / "proofs" / "course" / "lesson03.toml",
                      tmp_path / f"l3-{lang}.html", "--lang", lang).read_text(encoding="utf-8")
        assert title in text
        assert f"<noscript><p>{note}</p></noscript>" in text
        workings = re.findall(r'<div id="[^"]+-working" class="working"( hidden)?>', text)
        assert workings and all(workings)


SCROLLING = """() => Array.from(document.querySelectorAll("div.display, div.table"))
  .filter(e => e.offsetParent !== null)
  .map(e => [e.scrollWidth > e.clientWidth, e.getAttribute("tabindex"), e.getAttribute("role"),
             e.getAttribute("aria-label"), getComputedStyle(e).backgroundImage,
             getComputedStyle(e).borderBottomStyle])"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_scrolling_formulas_focusable_and_marked(browser, course_pages, lang):
    """At phone width, every formula or table wider than its box is a named, focusable region
    with a visible mark (dashed edge, edge shadows); one that fits is not a tab stop."""
    label = {"en": "Formula, scrolls sideways", "zh": "公式,可横向滚动"}[lang]
    with open_page(browser, course_pages[("reading", lang)], device=PHONE, lang=lang) as o:
        regions = o.page.evaluate(SCROLLING)
        wide = [r for r in regions if r[0]]
        assert wide, "the phone test needs a formula wider than the screen"
        for _, tabindex, role, name, background, border in wide:
            assert (tabindex, role) == ("0", "region")
            assert name in (label, {"en": "Table, scrolls sideways", "zh": "表格,可横向滚动"}[lang])
            assert "radial-gradient" in background and border == "dashed"
        assert all(r[1] is None and r[5] != "dashed" for r in regions if not r[0])
        o.page.locator("div.display[data-scrolls]").first.focus()
        assert o.page.evaluate("document.activeElement.getAttribute('role')") == "region"
        assert o.errors == []


def test_the_same_answer_twice_is_announced_again(browser, third):
    """The live region's text changes on a second Check of the same wrong answer (a screen
    reader says it again), counted by a MutationObserver on the feedback."""
    key = _keys(third["en"])["gradient"]
    with open_page(browser, third["en"]) as opened:
        page = opened.page
        page.evaluate("""k => { window.changes = 0; new MutationObserver(() => window.changes++)
            .observe(document.getElementById(k + '-feedback'),
                     {childList: true, characterData: true, subtree: true}); }""", key)
        first = ask(page, key, "-3.5")
        second = ask(page, key, "-3.5")
        third_ = ask(page, key, "-3.5")
        assert first == ("wrong", "Not right. Try again, or show the working.")
        assert second == ("wrong", "Not right. Try again, or show the working. "
                          "(checked 2 times)")
        assert third_[1].endswith("(checked 3 times)")
        assert page.evaluate("window.changes") >= 3
        assert ask(page, key, "-3")[1] == "Right."  # a new message: no count


def test_answers_kept_on_reload_and_start_over(browser, third):
    keys = _keys(third["en"])
    with open_page(browser, third["en"]) as opened:
        page = opened.page
        assert page.locator("#derive-start-over").is_visible()
        ask(page, keys["gradient"], "-3")
        ask(page, keys["w_new"], "0.5")
        page.reload()
        page.wait_for_load_state("load")
        assert page.locator(f"#{keys['gradient']}-input").input_value() == "-3"
        feedback = page.locator(f"#{keys['w_new']}-feedback")
        assert page.locator(f"#{keys['w_new']}-input").input_value() == "0.5"
        assert feedback.get_attribute("data-status") == "wrong"
        assert page.locator(f"button.reveal[data-q='{keys['w_new']}']").is_enabled()
        page.locator("#derive-start-over").click()
        assert page.locator(f"#{keys['gradient']}-input").input_value() == ""
        assert feedback.text_content() == ""
        page.reload()
        page.wait_for_load_state("load")
        assert page.locator(f"#{keys['gradient']}-input").input_value() == ""
        assert opened.requests_blocked == [] and opened.csp_violations == []
        assert opened.errors == []


@pytest.mark.parametrize("refusal", [
    "Object.defineProperty(window, 'localStorage', {get() { throw new DOMException("
    "'denied', 'SecurityError'); }});",
    "Storage.prototype.setItem = function () { throw new DOMException('full', "
    "'QuotaExceededError'); }; Storage.prototype.getItem = function () { throw new "
    "DOMException('denied', 'SecurityError'); };",
])
def test_a_browser_that_refuses_storage_still_checks(browser, third, refusal):
    key = _keys(third["en"])["gradient"]
    context = browser.new_context(service_workers="block")
    try:
        context.set_offline(True)
        context.add_init_script(refusal)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(Path(third["en"]).resolve().as_uri())
        assert ask(page, key, "-3") == ("right", "Right.")
        page.locator("#derive-start-over").click()
        assert page.locator(f"#{key}-input").input_value() == ""
        assert errors == []
    finally:
        context.close()
