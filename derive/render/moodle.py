"""Moodle XML questions (docs/lms.md, "Moodle"): one question per exercise (and per variant),
from the self-check page's data (`PageExercise`) and the bands an LMS grades with
(`derive.exercises.graded`), both computed in derive.exercises: this module prints.

One number asked is a `numerical` question; several (several quantities, or a list's entries)
a `cloze` question with one NUMERICAL sub-question each,
`{1:NUMERICAL:=centre:tolerance#feedback~%0%centre:tolerance#feedback~…}`.

Escaping, per where the text lands (Moodle's qformat_xml and qtype_multianswer):
- every text is HTML in a CDATA section, `]]>` split across two sections;
- in a cloze question's text, `{`, `}`, `~` and `#` of author text and formulas are character
  references, so that no author string can open, close or split a sub-question;
- a cloze feedback is HTML-decoded once by Moodle (html_entity_decode) before it is stored,
  then its `\\}` and `\\#` unescaped, so it is HTML escaped twice (a backslash a reference),
  its metacharacters references too.
Math is for Moodle's MathJax filter: `\\( … \\)` inline, the rest text.
"""

from __future__ import annotations

import hashlib
import re

import sympy as sp

from derive.exercises.graded import EXACT_SIGNIFICANT, Answer, Part
from derive.exercises.report import PageExercise
from derive.kernel.exact import fixed_str, terminating_places
from derive.render.derivation import given_math
from derive.render.document import Author, InlineMath
from derive.render.escape import clean_text
from derive.render.html import fill
from derive.render.labels import in_language
from derive.render.numbers import writable
from derive.render.questions import _question, states_answer
from derive.render.selfcheck import asked_precision

__all__ = ["MAX_IDNUMBER", "MAX_NAME", "WORDS", "category_question", "moodle_questions",
           "quiz"]

MAX_NAME = 255
"""Moodle's longest question name (question.name is 255 characters)."""
MAX_IDNUMBER = 100
"""Moodle's longest ID number (question_bank_entries.idnumber is 100 characters)."""

WORDS = {
    "en": {
        "given": "Given", "compute": "Compute",
        "right": "Right.",
        "named": "This is the value of a known mistake: {what}.",
        "offered": "This value would come from this mistake: {what}. Check whether you made it.",
        "tied": "This value would come from one of these mistakes: {what}.",
        "carried": "This follows from an earlier part answered with a mistake ({what}). If "
                   "that is what you answered there, your working here is right: {credit}% "
                   "of this part.",
        "from": "{source}: {what}",
        "or": "; or ",
        "entry": "entry {i}",
        "cell": "row {r}, column {c}",
        "variant": "variant {n}",
        "exact_sig": "Give it to {sig} significant figures.",
        "exact_decimal": "Give the exact value, as a decimal (it ends).",
    },
    "zh": {
        "given": "已知", "compute": "求",
        "right": "正确。",
        "named": "这是一个常见错误得到的值:{what}。",
        "offered": "这个值可能来自这个错误:{what}。请检查是否如此。",
        "tied": "这个值可能来自以下错误之一:{what}。",
        "carried": "这个值由前面一问的错误答案推出({what})。如果你前面确实这样答,"
                   "这一问的计算是对的:得本问 {credit}% 的分。",
        "from": "{source}:{what}",
        "or": ";或 ",
        "entry": "第 {i} 个分量",
        "cell": "第 {r} 行第 {c} 列",
        "variant": "变式 {n}",
        "exact_sig": "保留 {sig} 位有效数字。",
        "exact_decimal": "写出精确值(用有限小数表示)。",
    },
}

_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_TEXT = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_HTML = {**_TEXT, '"': "&quot;", "'": "&#39;"}
_CLOZE = {**_HTML, "{": "&#123;", "}": "&#125;", "~": "&#126;", "#": "&#35;"}
_FEEDBACK_HTML = {**_TEXT, "\\": "&#92;"}
"""A cloze feedback as HTML: Moodle turns its `\\}` and `\\#` into `}` and `#` once decoded, so
a backslash is a reference there."""
_FEEDBACK = {**_CLOZE, "\\": "&#92;"}


def _html(text: str, cloze: bool = False, table: dict | None = None) -> str:
    """Text as HTML text; in a cloze question, its metacharacters as references too."""
    table = table or (_CLOZE if cloze else _HTML)
    return "".join(table.get(ch, ch) for ch in text)


def _cdata(html: str) -> str:
    """HTML as one XML text: CDATA sections, `]]>` split between two, characters XML 1.0
    forbids replaced."""
    html = _XML_INVALID.sub("\ufffd", html)
    return "<![CDATA[" + html.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def _xml(text: str) -> str:
    """Plain text as XML character data."""
    return _html(_XML_INVALID.sub("\ufffd", text))


def number(r: sp.Rational) -> str:
    """An exact terminating decimal as Moodle's numbers read it (-?digits[.digits][e±n]):
    fixed-point up to 20 places, else mantissa and exponent; never a float."""
    r = sp.Rational(r)
    places = terminating_places(r)
    if places is None:
        raise ValueError(f"{r} is no terminating decimal")
    if places <= 20 and abs(r) < sp.Integer(10) ** 20:
        return fixed_str(r, places)
    m, e = int(r * sp.Integer(10) ** places), -places
    while m and m % 10 == 0:
        m, e = m // 10, e + 1
    return f"{m}e{e}"


def _inline(parts, cloze: bool) -> str:
    """A label's pieces (derive's words, author words, derive's formulas) as HTML."""
    out = []
    for p in parts if isinstance(parts, tuple) else (parts,):
        if isinstance(p, InlineMath):
            out.append(r"\(" + _html(p.tex, cloze) + r"\)")
        elif isinstance(p, Author):
            out.append(_html(clean_text(p.text), cloze))
        else:  # derive's own words (a quantity's name between backticks)
            text = _html(str(p), cloze)
            out.append(re.sub(r"`([^`]*)`", r"<code>\1</code>", text))
    return "".join(out)


def _feedback(answer: Answer, lang: str) -> str:
    """An answer's feedback as plain text."""
    w = WORDS[lang]
    if answer.kind == "right":
        return w["right"]
    said = [zh if lang == "zh" and zh else en for en, zh in zip(answer.en, answer.zh)]
    if answer.kind == "carried":
        what = w["or"].join(fill(w["from"], source=in_language(source, lang), what=m)
                            for source, m in zip(answer.sources, said))
        return fill(w["carried"], what=what, credit=answer.credit)
    what = w["or"].join(said)
    if answer.named:
        return fill(w["named"], what=what)
    return fill(w["tied" if len(said) > 1 else "offered"], what=what)


def _precision(part: Part, lang: str) -> str:
    """The precision asked, in words: the page's, but an exact value as a decimal (the page
    also takes a fraction, 7/5; Moodle's numerical answer reads decimals only and calls 7/5 no
    number), or the significant figures a non-terminating exact value is asked to."""
    right = part.answers[0].band
    if part.rule.kind == "exact":
        if right.tolerance != 0:
            return fill(WORDS[lang]["exact_sig"], sig=EXACT_SIGNIFICANT)
        return WORDS[lang]["exact_decimal"]
    return asked_precision(part.rule, lang)


def _entry_label(part: Part, shape, lang: str) -> str:
    w = WORDS[lang]
    if part.index is None:
        return ""
    if shape is not None and len(shape) == 2:
        r, c = divmod(part.index, shape[1])
        return fill(w["cell"], r=r + 1, c=c + 1)
    return fill(w["entry"], i=part.index + 1)


def _answers_cloze(part: Part, lang: str) -> str:
    alts = []
    for a in part.answers:
        mark = "=" if a.credit == 100 else f"%{a.credit}%"
        feedback = _html(_html(_feedback(a, lang), table=_FEEDBACK_HTML), table=_FEEDBACK)
        alts.append(f"{mark}{number(a.band.centre)}:{number(a.band.tolerance)}#{feedback}")
    return "{1:NUMERICAL:" + "~".join(alts) + "}"


def _answers_numerical(part: Part, lang: str) -> list[str]:
    out = []
    for a in part.answers:
        out += [f'    <answer fraction="{a.credit}" format="moodle_auto_format">',
                f"      <text>{number(a.band.centre)}</text>",
                f'      <feedback format="html"><text>{_cdata(_html(_feedback(a, lang)))}'
                f"</text></feedback>",
                f"      <tolerance>{number(a.band.tolerance)}</tolerance>",
                "    </answer>"]
    return out


def _idnumber(text: str) -> str:
    """A stable ID number of at most MAX_IDNUMBER characters (a longer one cut, with a digest
    of the whole)."""
    if len(text) <= MAX_IDNUMBER:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return text[: MAX_IDNUMBER - 17] + "-" + digest


def _question_xml(page: PageExercise, parts: tuple[Part, ...], lang: str, n: int) -> list[str]:
    """One exercise (variant `n`, 0 the exercise as written) as one question."""
    w = WORDS[lang]
    original, report = writable(page.original), writable(page.report)
    first, ex = original.exercise, report.exercise
    cloze = len(parts) > 1
    title = "" if states_answer(first.title or "", original) else (first.title or "")
    name = " ".join(x for x in (first.id, clean_text(title)) if x)
    if n:
        name += f" ({fill(w['variant'], n=n)})"
    idnumber = _idnumber(first.id if not n else f"{first.id}-v{n:03d}")
    given = " ".join(r"\(" + _html(line, cloze) + r"\)" for line in given_math(ex).lines)
    shapes = {a.name: a.shape for a in page.asked}
    html = [f"<p>{_html(w['given'], cloze)}: {given}</p>",
            f"<p>{_html(w['compute'], cloze)}:</p>"]
    labels = {a.name: _inline(_question(ex, ex.recipe.quantity(a.name), lang), cloze)
              for a in page.asked}
    if cloze:
        items, seen = [], set()
        for part in parts:
            head = ""
            if part.name not in seen:
                seen.add(part.name)
                hint = _html(_precision(part, lang), cloze)
                head = f"<p>{labels[part.name]} <em>{hint}</em></p>"
            entry = _html(_entry_label(part, shapes.get(part.name), lang), cloze)
            items.append(f"{head}<p>{entry + ': ' if entry else ''}"
                         f"{_answers_cloze(part, lang)}</p>")
        html += items
    else:
        part = parts[0]
        html.append(f"<p>{labels[part.name]}</p><p><em>{_html(_precision(part, lang))}</em>"
                    f"</p>")
    lines = [f'  <question type="{"cloze" if cloze else "numerical"}">',
             f"    <name><text>{_xml(name[:MAX_NAME])}</text></name>",
             f'    <questiontext format="html"><text>{_cdata("".join(html))}</text>'
             f"</questiontext>",
             '    <generalfeedback format="html"><text></text></generalfeedback>',
             f"    <defaultgrade>{len(parts) if cloze else 1}</defaultgrade>",
             "    <penalty>0.3333333</penalty>",
             "    <hidden>0</hidden>",
             f"    <idnumber>{_xml(idnumber)}</idnumber>"]
    if not cloze:
        lines += _answers_numerical(parts[0], lang)
        lines += ["    <unitgradingtype>0</unitgradingtype>", "    <unitpenalty>0</unitpenalty>",
                  "    <showunits>3</showunits>", "    <unitsleft>0</unitsleft>"]
    lines.append("  </question>")
    return lines


def moodle_questions(pages: list[tuple[PageExercise, tuple[Part, ...] | None]],
                     lang: str = "en") -> str:
    """One exercise's questions, the exercise as written then each variant, as a Moodle XML
    file of its own (a `<quiz>`); an exercise none of whose numbers can be written as a band
    has none."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>"]
    for n, (page, parts) in enumerate(pages):
        if parts:
            lines += _question_xml(page, parts, lang, n)
    lines.append("</quiz>")
    return "\n".join(lines) + "\n"


def category_question(path: list[str]) -> str:
    """The question that sets the category of the questions after it: `$course$/a/b`, each
    part's own `/` doubled (Moodle's escape)."""
    text = "/".join(["$course$", *(p.replace("/", "//") for p in path)])
    return "\n".join(['  <question type="category">',
                      f"    <category><text>{_xml(text)}</text></category>",
                      '    <info format="html"><text></text></info>',
                      "  </question>"])


_BODY = re.compile(r"\A<\?xml[^>]*\?>\n<quiz>\n(.*)</quiz>\n?\Z", re.S)


def quiz(fragments: list[tuple[list[str], str]]) -> str:
    """The bank's file: each exercise's file (`moodle_questions`) under its category."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>"]
    for path, text in fragments:
        m = _BODY.match(text)
        if m is None or not m.group(1).strip():
            continue
        lines.append(category_question(path))
        lines.append(m.group(1).rstrip("\n"))
    lines.append("</quiz>")
    return "\n".join(lines) + "\n"
