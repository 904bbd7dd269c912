"""Moodle XML (derive/render/moodle.py, docs/lms.md "Moodle"): what `derive build` writes,
read back the way Moodle reads it.

Two readers:
- Moodle's own code, in PHP (tests/moodle/harness.php): qformat_xml's import, the cloze parser
  qtype_multianswer_extract_question, and qtype_numerical_answer::within_tolerance, run
  unchanged from a Moodle source tree named by MOODLE_DIR (Moodle's code is GPL and is not
  copied into derive; no registry serves it). Without MOODLE_DIR those tests skip.
- A PORT, labelled as such (`extract` and `within` below): the cloze grammar transcribed from
  question/type/multianswer/questiontype.php (Moodle 4.1) into Python's `re` (PHP's
  variable-width look-behind `(?<!\\\\|&|&amp;)` written as three), and the nominal tolerance
  rule of question/type/numerical/question.php. Run always; where MOODLE_DIR is set, a test
  checks that the port and Moodle agree on every question of the course.

Expected values are hand-written or computed here in Fractions, never read from derive.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from fractions import Fraction as F
from pathlib import Path

import pytest
from lxml import etree

from derive.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tests" / "moodle" / "harness.php"
MOODLE_DIR = os.environ.get("MOODLE_DIR", "")

# ------------------------------------------------------------------ the port (labelled)

_FRACTION = r"=|%(-?[0-9]+(?:[.,][0-9]*)?)%"
_ANSWER = r".+?(?<!\\)(?<!&)(?<!&amp;)(?=[~#}]|$)"
_FEEDBACK = r".*?(?<!\\)(?=[~}]|$)"
_ALT = f"({_FRACTION})?({_ANSWER})(#({_FEEDBACK}))?"
_NUMBER = r"-?(([0-9]+[.,]?[0-9]*|[.,][0-9]+)([eE][-+]?[0-9]+)?)"
_NUMERICAL_ALT = re.compile(f"^({_NUMBER})(:{_NUMBER})?$", re.S)
_TYPES = ("(NUMERICAL|NM)|(MULTICHOICE|MC)|(MULTICHOICE_V|MCV)|(MULTICHOICE_H|MCH)|"
          "(SHORTANSWER|SA|MW)|(SHORTANSWER_C|SAC|MWC)|"
          "(MULTICHOICE_S|MCS)|(MULTICHOICE_VS|MCVS)|(MULTICHOICE_HS|MCHS)|"
          "(MULTIRESPONSE|MR)|(MULTIRESPONSE_H|MRH)|(MULTIRESPONSE_S|MRS)|(MULTIRESPONSE_HS|MRHS)")
_ANSWER_REGEX = re.compile(r"\{([0-9]*):(" + _TYPES + "):(" + _ALT + "(~" + _ALT + r")*)\}",
                           re.S)
_ALT_REGEX = re.compile("~?" + _ALT, re.S)


def extract(text: str) -> tuple[str, list[list[dict]]]:
    """PORT of qtype_multianswer_extract_question for NUMERICAL sub-questions: the text with
    {#n} placeholders, and each sub-question's answers (answer, tolerance, fraction, feedback)."""
    parts = []
    while (m := _ANSWER_REGEX.search(text)) is not None:
        assert m.group(3), f"not a NUMERICAL sub-question: {m.group(0)[:80]}"
        alts, remaining = [], m.group(16)
        while (a := _ALT_REGEX.search(remaining)) is not None:
            fraction = 1.0 if a.group(1) == "=" else (
                0.01 * float(a.group(2).replace(",", ".")) if a.group(2) else 0.0)
            feedback = html.unescape(a.group(5) or "").replace("\\}", "}").replace("\\#", "#")
            num = _NUMERICAL_ALT.match(a.group(3))
            assert num is not None, f"not a number: {a.group(3)!r}"
            alts.append({"answer": num.group(1), "tolerance": num.group(6) or "0",
                         "fraction": fraction, "feedback": feedback})
            remaining = remaining.split(a.group(0), 1)[1]
        parts.append(alts)
        text = text.replace(m.group(0), "{#%d}" % len(parts), 1)
    return text, parts


def within(answer: dict, typed: str) -> bool:
    """PORT of qtype_numerical_answer::within_tolerance, nominal: |x − a| ≤ t + ε·max(t, |a|,
    ε) with ε = 10⁻¹⁴ (PHP's precision), in doubles as Moodle computes it."""
    a, t, x, eps = float(answer["answer"]), float(answer["tolerance"]), float(typed), 1e-14
    tol = t + eps * max(abs(t), abs(a), eps)
    return a - tol <= x <= a + tol


def grade(answers: list[dict], typed: str) -> dict | None:
    """The first answer whose interval holds the response (Moodle's matching), or None."""
    return next((a for a in answers if within(a, typed)), None)


# ------------------------------------------------------------------------- building

def build(bank: Path, out: Path) -> int:
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(["build", str(bank), "-o", str(out), "--only", "moodle", "--no-cache",
                     "--quiet"])


def questions(path: Path) -> list:
    """Every question element of a Moodle XML file, parsed strictly (lxml)."""
    root = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True))
    assert root.getroot().tag == "quiz"
    return root.getroot().findall("question")


def text_of(q, path: str) -> str:
    node = q.find(path)
    return "" if node is None or node.text is None else node.text


def parts_of(q) -> list[list[dict]]:
    """A question's answers by part, read with the PORT (numerical: one part)."""
    if q.get("type") == "numerical":
        return [[{"answer": text_of(a, "text"), "tolerance": text_of(a, "tolerance"),
                  "fraction": float(a.get("fraction")) / 100,
                  "feedback": text_of(a, "feedback/text")} for a in q.findall("answer")]]
    return extract(text_of(q, "questiontext/text"))[1]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    assert build(ROOT / "proofs" / "course", out) == 0
    return out


# ------------------------------------------------------------------------- the course

def test_every_file_is_well_formed_and_every_number_reads(course):
    """Every exercise's file and the bank's, en and zh: strict XML, each question numerical
    or cloze with at least one part, each answer a number Moodle's grammar reads."""
    files = sorted(course.glob("**/moodle.*.xml"))
    assert len(files) == 2 * 17 + 2
    for f in files:
        for q in questions(f):
            if q.get("type") == "category":
                # the [course] title of proofs/course/derive.toml, in the file's language
                assert text_of(q, "category/text").startswith(
                    ("$course$/AI Engineering/", "$course$/AI 工程/"))
                continue
            assert q.get("type") in ("numerical", "cloze")
            assert text_of(q, "name/text")
            parts = parts_of(q)
            assert parts and all(p for p in parts)
            for p in parts:
                assert p[0]["fraction"] == 1.0 and p[0]["feedback"] in ("Right.", "正确。")
                for a in p:
                    assert _NUMERICAL_ALT.match(f"{a['answer']}:{a['tolerance']}")


def test_the_bank_holds_a_category_per_exercise_and_the_variants(course):
    qs = questions(course / "lms" / "moodle.en.xml")
    cats = [text_of(q, "category/text") for q in qs if q.get("type") == "category"]
    assert len(cats) == 17
    assert "$course$/AI Engineering/lesson03/lesson03-example" in cats
    assert "$course$/AI Engineering/variants/lesson03-ex1-vary" in cats
    # the questions after a variant category: the exercise as written, then its variants
    at = [text_of(q, "category/text") for q in qs].index(
        "$course$/AI Engineering/variants/lesson03-ex1-vary")
    following = []
    for q in qs[at + 1:]:
        if q.get("type") == "category":
            break
        following.append(text_of(q, "idnumber"))
    assert following[0] == "lesson03-ex1-vary"
    assert following[1:] == [f"lesson03-ex1-vary-v{n:03d}" for n in range(1, len(following))]
    assert 2 <= len(following) <= 11


def _example(course, lang="en"):
    [q] = questions(course / "lesson03" / "lesson03-example" / f"moodle.{lang}.xml")
    return q


def test_lesson03_example_right_mistake_and_carried_forward(course):
    """lesson03-example: w = 1, η = 0.1, one record (x, y) = (2, 4), loss (ŷ − y)²/2. Parts:
    ŷ, L, g, w', ŷ', L'. Computed here: g = x(ŷ − y) = −4; the sign flipped, 4; w' = 1 − 0.1·g
    = 7/5, whose decimal ends within 4 places, so it is asked exactly (no declaration: 1.4 ± 0;
    1.40 is the same number, 1.43 is not it); from g = 4 instead, w' = 0.6 and ŷ' = 1.2
    (carried forward)."""
    x, y, w, lr = F(2), F(4), F(1), F(1, 10)
    g = x * (w * x - y)
    assert g == -4
    w_new = w - lr * g
    carried_pred = (w - lr * (-g)) * x
    assert (w_new, carried_pred) == (F(7, 5), F(6, 5))
    q = _example(course)
    assert q.get("type") == "cloze"
    parts = parts_of(q)
    assert len(parts) == 6
    right = grade(parts[2], "-4")
    assert right["fraction"] == 1.0 and right["feedback"] == "Right."
    flipped = grade(parts[2], "4")
    assert flipped["fraction"] == 0.0
    assert flipped["feedback"].startswith("This is the value of a known mistake: the gradient "
                                          "with its sign flipped")
    assert (parts[3][0]["answer"], F(parts[3][0]["tolerance"])) == ("1.4", 0)
    assert grade(parts[3], "1.4")["fraction"] == 1.0
    assert grade(parts[3], "1.40")["fraction"] == 1.0
    assert grade(parts[3], "1.43") is None  # asked exactly: no window around 1.4
    carried = grade(parts[4], str(float(carried_pred)))
    assert carried["fraction"] == 0.5
    assert carried["feedback"].startswith("This follows from an earlier part answered with a "
                                          "mistake (Gradient with respect to w: the gradient "
                                          "with its sign flipped")
    assert grade(parts[4], "1.3") is None  # nothing named for a value no mistake gives


def test_lesson03_example_in_chinese(course):
    parts = parts_of(_example(course, "zh"))
    assert grade(parts[2], "-4")["feedback"] == "正确。"
    assert grade(parts[2], "4")["feedback"].startswith("这是一个常见错误得到的值:")
    assert grade(parts[4], "1.2")["feedback"].startswith("这个值由前面一问的错误答案推出")


def test_an_exact_question_asks_for_a_decimal(course):
    """Asked exactly, a value whose decimal ends is asked as a decimal: Moodle's numerical
    answer reads no fraction (7/5 is no number to it), so the page's "a fraction" is not said."""
    en = text_of(_example(course), "questiontext/text")
    assert "Give the exact value, as a decimal (it ends)." in en and "fraction" not in en
    zh = text_of(_example(course, "zh"), "questiontext/text")
    assert "写出精确值(用有限小数表示)。" in zh and "分数" not in zh


def _three_records(course):
    [q, *_] = questions(course / "reading" / "reading-three-records" / "moodle.en.xml")
    assert text_of(q, "idnumber") == "reading-three-records"
    return q


def test_reading_three_records_under_four_significant_figures(course):
    """reading-three-records declares no precision: g = 14/3 and w' = 8/15 do not end, so
    they are asked to 4 significant figures; the named mistake and the carried-forward answer
    stay. Computed here: records x = 1, 2, 3 (y = 0), loss (wx − y)²/2, gradients x²w = 1, 4,
    9; microbatches {1, 2}, {3}: means 5/2 and 9, weights 2/3 and 1/3, g = 14/3 = 4.667 (4
    figures: 4.6665 … 4.6675); w' = 1 − 0.1·14/3 = 8/15 = 0.5333 (0.53325 … 0.53335).
    Stepping after each microbatch: 1 − 0.1·5/2 = 3/4, then 3/4 − 0.1·9·3/4 = 3/40 = 0.075
    (a named mistake). The sums not divided by n_k (means 5 and 9): g = 2/3·5 + 1/3·9 = 19/3,
    w' = 1 − 19/30 = 11/30 = 0.3667 (carried forward, half credit)."""
    g = F(2, 3) * F(1 + 4, 2) + F(1, 3) * F(9)
    assert g == F(14, 3) and 1 - g / 10 == F(8, 15)
    w1 = 1 - F(1, 10) * F(5, 2)
    assert w1 - F(1, 10) * 9 * w1 == F(3, 40)
    assert 1 - (F(2, 3) * 5 + F(1, 3) * 9) / 10 == F(11, 30)
    parts = parts_of(_three_records(course))
    gradient, w_new = parts[8], parts[10]
    assert (gradient[0]["answer"], F(gradient[0]["tolerance"])) == ("4.667", F(1, 2000))
    assert (w_new[0]["answer"], F(w_new[0]["tolerance"])) == ("0.5333", F(1, 20000))
    for typed in ("4.667", "4.6667", "4.66667"):
        assert grade(gradient, typed)["fraction"] == 1.0
    assert grade(gradient, "4.67") is None  # 4.670 to 4 figures, not 4.667: the page says wrong
    assert grade(w_new, "0.53333")["fraction"] == 1.0
    assert grade(w_new, "0.5334") is None
    stepped = grade(w_new, "0.075")
    assert (stepped["fraction"], stepped["feedback"]) == (
        0.0, "This is the value of a known mistake: the w reached by stepping after every "
             "microbatch.")
    for typed in ("0.3667", "0.36667"):
        carried = grade(w_new, typed)
        assert carried["fraction"] == 0.5
        assert carried["feedback"].startswith(
            "This follows from an earlier part answered with a mistake (Mean gradient of each "
            "microbatch: the microbatch gradient sums, not divided by n_k).")
    text = text_of(_three_records(course), "questiontext/text")
    assert text.count("Give it to 4 significant figures.") == 3  # weights, g, w'


def test_a_mistake_that_does_not_end_is_named_at_four_figures(course):
    """lesson03-ex2 asks g = 2/3·3 + 1/3·9 = 5 exactly; its means (3, 9) summed and divided by
    7 microbatches give 12/7 = 1.714285…, which derive check names for a claim 1.714. The
    answer is 12/7 to 4 figures, 1.714 ± 0.0005 (not its 10 figures, which nobody types)."""
    assert F(2, 3) * 3 + F(1, 3) * 9 == 5 and F(3 + 9, 7) == F(12, 7)
    [q] = questions(course / "lesson03" / "lesson03-ex2" / "moodle.en.xml")[:1]
    gradient = parts_of(q)[0]
    assert (gradient[0]["answer"], F(gradient[0]["tolerance"])) == ("5", 0)
    for typed in ("1.714", "1.7143"):
        named = grade(gradient, typed)
        assert named["fraction"] == 0.0
        assert named["feedback"].startswith("This is the value of a known mistake: the "
                                            "microbatch means summed and divided by 7")
    assert grade(gradient, "1.72") is None


def test_no_mistake_answer_meets_the_right_one(course):
    """No answer after the first (right) one accepts a value the right one accepts: its
    interval [a − t, a + t] is apart from the right one's, exactly (Fractions)."""
    for f in course.glob("*/*/moodle.en.xml"):
        for q in questions(f):
            for p in parts_of(q):
                lo = [F(a["answer"]) - F(a["tolerance"]) for a in p]
                hi = [F(a["answer"]) + F(a["tolerance"]) for a in p]
                for i in range(len(p)):
                    for j in range(i + 1, len(p)):
                        assert hi[i] < lo[j] or hi[j] < lo[i], (f, p[i], p[j])


def test_rebuild_is_byte_identical(course, tmp_path):
    again = tmp_path / "again"
    assert main(["build", str(ROOT / "proofs" / "course"), "-o", str(again), "--only",
                 "moodle", "--no-cache", "--quiet", "--jobs", "1"]) == 0
    for f in sorted(course.glob("**/moodle.*.xml")):
        assert (again / f.relative_to(course)).read_bytes() == f.read_bytes(), f


# ------------------------------------------------------------------------ hostile author

HOSTILE = "a]]>b <b>&amp; {1:NUMERICAL:=7} {#1} # ~ } { \\}"
TITLE = "a]]>b <b>&amp; {:NUMERICAL:=} {#} # ~ } { \\}"
"""A title without digits: a title that writes a number of the exercise is left out."""

BANK = """
[[exercise]]
id = "hostile"
title = "T TITLE"
recipe = "formulas"

[exercise.given]
w = 0.5
b = 0.25
lr = 0.1
records = [[1.5, 2.0], [-0.5, 1.25], [2.0, 3.5]]

[exercise.define]
yhat = "w*x_i + b"
loss = "mean_i((yhat_i - y_i)^2)"
gb = { formula = "grad(loss, b)", title = "G HOSTILE", title_zh = "梯度 HOSTILE" }
b_new = "b - lr*gb"

[[exercise.mistakes]]
name = "bias_gradient_summed"
en = "summed HOSTILE"
zh = "求和 HOSTILE"
define = { gb = "sum_i(2*(yhat_i - y_i))" }

[exercise.claims]
gb = -3
b_new = 0.55
"""


def _hostile_bank(tmp_path: Path) -> Path:
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "hostile.toml").write_text(
        BANK.replace("HOSTILE", json.dumps(HOSTILE)[1:-1]).replace(
            "TITLE", json.dumps(TITLE)[1:-1]), encoding="utf-8")
    return bank


def test_author_strings_cannot_break_a_question(tmp_path):
    """Author words with <, &, ]]>, {, }, #, ~ and a whole cloze sub-question in them: the XML
    stays well-formed, the cloze keeps its 2 parts, the words come back as HTML that shows
    them as written. Values computed here: gb = 2·mean(ŷ − y) = −3, summed 2·Σ = −9; b' =
    0.25 + 0.1·3 = 0.55, and from gb = −9, 1.15 (carried forward)."""
    records = [(F(3, 2), F(2)), (F(-1, 2), F(5, 4)), (F(2), F(7, 2))]
    diffs = [F(1, 2) * x + F(1, 4) - y for x, y in records]
    gb, summed = 2 * sum(diffs) / 3, 2 * sum(diffs)
    assert (gb, summed) == (-3, -9)
    assert (F(1, 4) - F(1, 10) * gb, F(1, 4) - F(1, 10) * summed) == (F(11, 20), F(23, 20))
    out = tmp_path / "site"
    assert build(_hostile_bank(tmp_path), out) == 0
    for lang in ("en", "zh"):
        [q] = questions(out / "hostile" / "hostile" / f"moodle.{lang}.xml")
        assert q.get("type") == "cloze"
        assert TITLE in text_of(q, "name/text")
        placed, parts = extract(text_of(q, "questiontext/text"))
        assert len(parts) == 2
        assert placed.count("{#") == 2  # the author's {#1} is a reference, not a placeholder
        assert html.unescape(re.sub(r"\{#\d\}", "", placed)).count(HOSTILE) == 1
        named = grade(parts[0], "-9")  # a tie: the declared mistake and a generic Σ for mean
        assert named["fraction"] == 0.0
        assert html.unescape(named["feedback"]).count(HOSTILE) == 1
        assert "<b>" not in named["feedback"]  # shown as text, never markup
        carried = grade(parts[1], "1.15")
        assert carried["fraction"] == 0.5 and HOSTILE in html.unescape(carried["feedback"])
        assert grade(parts[1], "0.55")["fraction"] == 1.0
    bank = (out / "lms" / "moodle.en.xml").read_text(encoding="utf-8")
    assert questions(out / "lms" / "moodle.en.xml")[0].get("type") == "category"
    assert "a]]&gt;b" in bank and "a]]>b" not in bank  # > is a reference: no CDATA end


# --------------------------------------------------------------- the other test banks

@pytest.mark.parametrize("name", ["clipping.toml", "mistakes.toml", "decimal_adam.toml",
                                  "exports/given_line.toml"])
def test_test_banks_are_well_formed(tmp_path, name):
    bank = tmp_path / "bank"
    bank.mkdir()
    shutil.copy(ROOT / "tests" / "data" / name, bank / Path(name).name)
    out = tmp_path / "site"
    build(bank, out)
    files = sorted(out.glob("**/moodle.*.xml"))
    assert files
    for f in files:
        for q in questions(f):
            if q.get("type") != "category":
                for p in parts_of(q):
                    assert p and p[0]["fraction"] == 1.0


# ------------------------------------------------------------- Moodle's own code (PHP)

needs_moodle = pytest.mark.skipif(
    not MOODLE_DIR or not shutil.which("php"),
    reason="Moodle's own import code needs php and MOODLE_DIR (a Moodle source tree; GPL, "
           "not in derive, not served by a registry)")


def moodle(path: Path, responses: dict, tmp_path: Path) -> dict:
    r = tmp_path / "responses.json"
    r.write_text(json.dumps(responses), encoding="utf-8")
    got = subprocess.run(["php", str(HARNESS), str(path), str(r)], capture_output=True,
                         text=True, timeout=120, env={**os.environ, "MOODLE_DIR": MOODLE_DIR})
    assert got.returncode == 0, got.stderr
    assert "Warning" not in got.stderr and "Error" not in got.stderr, got.stderr
    return json.loads(got.stdout)


@needs_moodle
def test_moodle_imports_and_grades_lesson03_example(course, tmp_path):
    d = moodle(course / "lesson03" / "lesson03-example" / "moodle.en.xml",
               {"*": [[3, "-4"], [3, "4"], [5, "1.2"], [5, "1.3"], [4, "1.40"], [4, "1.43"]]},
               tmp_path)
    assert d["errors"] == []
    [q] = d["questions"]
    assert q["type"] == "multianswer" and q["defaultmark"] == 6 and len(q["parts"]) == 6
    right, flipped, carried, nothing, same, near = q["graded"]
    assert (right["fraction"], right["feedback"]) == (1, "Right.")
    assert flipped["fraction"] == 0 and "sign flipped" in flipped["feedback"]
    assert carried["fraction"] == 0.5 and carried["feedback"].startswith("This follows from")
    assert nothing["matched"] is None
    assert same["fraction"] == 1 and near["matched"] is None  # 7/5 asked exactly


@needs_moodle
def test_moodle_reads_the_hostile_bank(tmp_path):
    out = tmp_path / "site"
    assert build(_hostile_bank(tmp_path), out) == 0
    for lang in ("en", "zh"):
        d = moodle(out / "lms" / f"moodle.{lang}.xml", {"*": [[1, "-9"], [2, "1.15"]]},
                   tmp_path)
        assert d["errors"] == []
        cat, q = d["questions"]
        assert cat["category"] == "$course$/bank/hostile/hostile"
        # Moodle strips tags from a name (clean_param PARAM_TEXT), the rest is kept
        assert "]]>b &amp; {:NUMERICAL:=} {#} # ~ } { \\}" in q["name"]
        assert len(q["parts"]) == 2
        assert html.unescape(q["questiontext"]).count(HOSTILE) == 1  # the label
        named, carried = q["graded"]
        assert named["fraction"] == 0 and html.unescape(named["feedback"]).count(HOSTILE) == 1
        assert "<b>" not in named["feedback"]
        assert carried["fraction"] == 0.5


@needs_moodle
def test_the_port_agrees_with_moodle_on_the_course(course, tmp_path):
    for lang in ("en", "zh"):
        path = course / "lms" / f"moodle.{lang}.xml"
        d = moodle(path, {}, tmp_path)
        assert d["errors"] == []
        ours = [q for q in questions(path) if q.get("type") != "category"]
        theirs = [q for q in d["questions"] if q["type"] != "category"]
        assert len(ours) == len(theirs)
        for mine, q in zip(ours, theirs):
            port = parts_of(mine)
            real = [q["parts"][k] for k in sorted(q["parts"], key=int)]
            assert len(port) == len(real)
            for p, r in zip(port, real):
                assert [(a["answer"], float(a["tolerance"]), a["fraction"], a["feedback"])
                        for a in p] == [(a["answer"], float(a["tolerance"]), a["fraction"],
                                         a["feedback"]) for a in r]


MICRO = """
[[exercise]]
id = "micro"
recipe = "accumulation"
[exercise.given]
w = 1
lr = 0.1
microbatches = [[[1, 0], [2, 0]], [[3, 0]]]
[exercise.claims]
w_new = 0.533
"""
ASK_PLACES = """[exercise.ask.w_new]
places = 3
"""


def test_one_number_is_a_numerical_question(tmp_path):
    """One claim: a numerical question. Computed here: loss (wx − y)²/2 per record, gradient
    x²w = 1, 4, 9, mean 14/3, w' = 1 − 0.1·14/3 = 8/15, declared 3 places: 0.533 ± 0.0005;
    stepping per microbatch (w ← w − η·mean of each microbatch) gives 0.075 (tests/data's
    mistake-micro-steps)."""
    w, lr = F(1), F(1, 10)
    assert w - lr * F(1 + 4 + 9, 3) == F(8, 15)
    for batch in ([1, 2], [3]):
        w -= lr * F(sum(x * x for x in batch), len(batch)) * w
    assert w == F(3, 40)  # 0.075
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "micro.toml").write_text(MICRO + ASK_PLACES, encoding="utf-8")
    out = tmp_path / "site"
    assert build(bank, out) == 0
    [q] = questions(out / "micro" / "micro" / "moodle.en.xml")
    assert q.get("type") == "numerical"
    [answers] = parts_of(q)
    assert (answers[0]["answer"], answers[0]["tolerance"]) == ("0.533", "0.0005")
    assert "3 decimal places" in text_of(q, "questiontext/text")
    assert grade(answers, "0.5333")["fraction"] == 1.0
    micro = grade(answers, "0.075")
    assert micro["fraction"] == 0.0 and "known mistake" in micro["feedback"]
    if MOODLE_DIR and shutil.which("php"):
        d = moodle(out / "micro" / "micro" / "moodle.en.xml",
                   {"micro": [[1, "0.5333"], [1, "0.075"], [1, "0.54"]]}, tmp_path)
        [q] = d["questions"]
        assert q["type"] == "numerical" and q["idnumber"] == "micro"
        right, mistake, none = q["graded"]
        assert right["fraction"] == 1 and mistake["fraction"] == 0
        assert "known mistake" in mistake["feedback"] and none["matched"] is None


def test_without_a_declaration_one_number_is_asked_to_four_figures(tmp_path):
    """The same bank with no `ask` table: 8/15 does not end, so 4 significant figures,
    0.5333 ± 0.00005 (0.53325 … 0.53335, written here); 0.533, right at 3 places, is not
    right now: it is 1 − 0.1·4.67, the gradient rounded to 2 places before the step, which
    the page names too; the micro-step mistake 3/40 = 0.075 still named."""
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "micro.toml").write_text(MICRO, encoding="utf-8")
    out = tmp_path / "site"
    assert build(bank, out) == 0
    [q] = questions(out / "micro" / "micro" / "moodle.en.xml")
    [answers] = parts_of(q)
    right = answers[0]
    assert (F(right["answer"]) - F(right["tolerance"]), F(right["answer"]) + F(right["tolerance"])
            ) == (F(53325, 10**5), F(53335, 10**5))
    assert "Give it to 4 significant figures." in text_of(q, "questiontext/text")
    assert grade(answers, "0.5333")["fraction"] == 1.0
    assert 1 - F(467, 100) / 10 == F(533, 1000)
    early = grade(answers, "0.533")
    assert early["fraction"] == 0.0 and "rounded to 2 places" in early["feedback"]
    micro = grade(answers, "0.075")
    assert micro["fraction"] == 0.0 and "known mistake" in micro["feedback"]
