"""HTML: a document as one standalone web page that works offline.

Formulas are KaTeX's HTML (with MathML) made at export time (`derive.render.katex`); the
stylesheet inlines the fonts it uses; the one script (web/page.js, the self-check, after
web/scorm.js, its report to an LMS's SCORM API where one is found) and the page's data are
inline too. A Content-Security-Policy in the page allows that script and that
stylesheet by their hashes and nothing else: no other script, no network, no form target.
Author text reaches the page only through `escape_html`; the page's data is JSON in a
`<script type="application/json">` element, with `<`, `>` and `&` escaped so that it cannot
end the element.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from functools import singledispatch

from derive.exercises.errors import ExerciseNotSupported
from derive.render import katex
from derive.render.document import (
    MINUS,
    Author,
    Document,
    Heading,
    Inline,
    InlineMath,
    Items,
    Math,
    Paragraph,
    Question,
    Questions,
    Table,
    Variant,
    _joined,
)
from derive.render.escape import escape_html
from derive.render.layout import rows
from derive.render.symbols import _prose

WORDS = {
    "en": {
        "check": "Check", "show_working": "Show the working", "hide_working": "Hide the working",
        "answer": "Your answer", "student": "Student number",
        "note": "Answer with exact values (integers, fractions such as 14/3, decimals that "
                "terminate) or with decimals rounded half away from zero as each question "
                "asks. A question shows its working once you have tried it.",
        "student_button": "Show my variant",
        "variant_intro": "This page has {n} {n:variant|variants} with different numbers. It "
                         "picked one at random; type your student number to get your own.",
        "variant_note": "Variant {i} of {n}.",
        "student_variant_note": "Variant {i} of {n}, for this student number.",
        "no_script": "Checking answers and showing the working need JavaScript; without it "
                     "only the questions can be read.",
        "scroll_formula": "Formula, scrolls sideways",
        "scroll_table": "Table, scrolls sideways",
        "right": "Right.",
        "right_within": "Right, within the exercise's tolerance.",
        "right_rounded": "Right: the exact value rounded to {places} places.",
        "rounded_places": "The right value, but rounded differently: the exercise asks for "
                          "{places} places.",
        "rounded_places_one": "The right value, but rounded differently: the exercise asks "
                              "for 1 place.",
        "right_rounded_one": "Right: the exact value rounded to 1 place.",
        "rounded_other_one": "The right value, but rounded differently: rounded half away "
                             "from zero to 1 place it is {expected}.",
        "rounded_exact": "The right value, but rounded: the exercise asks for the exact value "
                         "(a fraction or a terminating decimal).",
        "rounded_test": "The right value, but rounded differently from what the exercise asks.",
        "rounded_other": "The right value, but rounded differently: rounded half away from "
                         "zero to {places} places it is {expected}.",
        "undecided": "This page cannot decide this answer exactly; derive check can.",
        "wrong": "Not right. Try again, or show the working.",
        "wrong_element": "Not right: value {i} of the list is wrong.",
        "wrong_count": "This answer has {m} {m:number|numbers}; the question asks for {n}.",
        "wrong_carried": "Not right, but it follows correctly from your own answer to {names}: "
                         "the error is carried forward.",
        "wrong_mistake": "Not right. This is the value of a known mistake: {mistake}",
        "wrong_tied": "Not right. Several known mistakes give this value, so none is named: "
                      "{mistakes}",
        "wrong_offered": "Not right. It could be a generic edit that happens to give this "
                         "value (not asserted): {mistakes}",
        "wrong_float": "Not quite: {text} is {write} as binary floating point prints it. "
                       "Write {write}.",
        "wrong_float_exact": "Not quite: {text} is the right value as binary floating point "
                             "prints it. Write the exact value (a fraction).",
        "wrong_half_even": "Not quite: {exact} is an exact tie, and {text} rounds it to the "
                           "even digit (banker's rounding, or a floating-point result a hair "
                           "on the other side of the tie). Rounded half away from zero to "
                           "{places} places, as this page rounds, it is {away}.",
        "wrong_half_even_one": "Not quite: {exact} is an exact tie, and {text} rounds it to "
                               "the even digit (banker's rounding, or a floating-point result "
                               "a hair on the other side of the tie). Rounded half away from "
                               "zero to 1 place, as this page rounds, it is {away}.",
        "wrong_half_even_sig": "Not quite: {exact} is an exact tie, and {text} rounds it to "
                               "the even digit (banker's rounding, or a floating-point result "
                               "a hair on the other side of the tie). Rounded half away from "
                               "zero to {places} significant digits, as this page rounds, it "
                               "is {away}.",
        "wrong_float_round": "Not quite: {text} is the right value as binary floating point "
                             "prints it. Write it rounded half away from zero, as the "
                             "question asks.",
        "question_ref": "question {number} ({label})",
        "names_sep": " and ",
        "or_sep": "; or ",
        "not_a_number": "\u201c{text}\u201d is not a number: write an integer (3), a decimal "
                        "(\u22120.25, 2e9) or a fraction (14/3).",
        "empty": "Write an answer first.",
        "too_long": "This answer is longer than {max} {max:character|characters}: write "
                    "only the number (or the numbers, separated by commas).",
        "hint_one": "A number: an integer, a decimal or a fraction (14/3).",
        "hint_list": "{n} {n:number|numbers}, separated by commas.",
        "hint_matrix": "A {rows}\u00d7{cols} matrix: one number in each box.",
        "hint_vector": "A vector of {n} {n:entry|entries}: one number in each box.",
        "cell": "{name}, row {r}, column {c}",
        "cell_vector": "{name}, entry {i}",
        "wrong_entries": "Not right: the marked {n:entry is|entries are} wrong: {at}.",
        "grid_empty": "Write a number in every box: {n} {n:is|are} empty.",
        "ask_exact": "Give the exact {n:value|values} (an integer, a fraction or a decimal "
                     "that terminates).",
        "ask_places": "Give {n:it|each} rounded to {places} decimal {places:place|places}.",
        "ask_sig": "Give {n:it|each} to {tol} significant {tol:figure|figures}.",
        "ask_rel": "Any value within a relative {tol} of the exact value is right.",
        "ask_abs": "Any value within {tol} of the exact value is right.",
        "again": "(checked {n} {n:time|times})",
        "start_over": "Start over",
        "left_out": "Not on this page:",
        "left_out_why": "a page cannot check a value of this shape; derive check can.",
    },
    "zh": {
        "check": "检查", "show_working": "显示推导", "hide_working": "隐藏推导",
        "answer": "你的答案", "student": "学号", "student_button": "显示我的题目",
        "note": "答案可写精确值(整数、分数如 14/3、有限小数),或按题目要求四舍五入后的小数。"
                "作答一次后即可查看该题的推导过程。",
        "variant_intro": "本页有 {n} 套数据不同的题目,已随机选出一套;"
                         "输入学号即可得到你自己的一套。",
        "variant_note": "第 {i} 套(共 {n} 套)。",
        "student_variant_note": "按此学号:第 {i} 套(共 {n} 套)。",
        "no_script": "检查答案和显示推导需要 JavaScript;不开启只能阅读题目。",
        "scroll_formula": "公式,可横向滚动",
        "scroll_table": "表格,可横向滚动",
        "right": "正确。",
        "right_within": "正确(在题目允许的误差范围内)。",
        "right_rounded": "正确:即精确值四舍五入保留 {places} 位小数。",
        "rounded_places": "数值正确,但保留位数不对:题目要求保留 {places} 位小数。",
        "rounded_exact": "数值正确,但写成了近似值:题目要求精确值(分数或有限小数)。",
        "rounded_test": "数值正确,但近似方式与题目要求不符。",
        "rounded_other": "数值正确,但舍入有误:四舍五入保留 {places} 位小数应为 {expected}。",
        "undecided": "本页无法精确判定这个答案;可用 derive check 判定。",
        "wrong": "不正确。请再试一次,或查看推导过程。",
        "wrong_element": "不正确:列表中第 {i} 个值有误。",
        "wrong_count": "这个答案有 {m} 个数,题目要的是 {n} 个。",
        "wrong_carried": "不正确,但它由你在{names}的答案正确推出:"
                         "错误来自前面的题目。",
        "wrong_mistake": "不正确。这正是以下错误会得到的值:{mistake}",
        "wrong_tied": "不正确。几个已知错误都给出这个值,因此不指明其中之一:{mistakes}",
        "wrong_offered": "不正确。可能是一个通用的改动恰好给出这个值(只作提示,不指明):{mistakes}",
        "wrong_float": "差一点:{text} 是 {write} 按二进制浮点数打印出的样子。请写 {write}。",
        "wrong_float_exact": "差一点:{text} 是正确值按二进制浮点数打印出的样子。请写精确值(分数)。",
        "wrong_half_even": "差一点:{exact} 恰是中点,{text} 把它舍入到了偶数位(“四舍六入五成双”,"
                           "或浮点数计算结果落在中点另一侧极近处)。"
                           "本页按四舍五入(远离零)取到 {places} 位小数,应为 {away}。",
        "wrong_half_even_sig": "差一点:{exact} 恰是中点,{text} 把它舍入到了偶数位(“四舍六入五成双”,"
                               "或浮点数计算结果落在中点另一侧极近处)。"
                               "本页按四舍五入(远离零)取到 {places} 位有效数字,应为 {away}。",
        "wrong_float_round": "差一点:{text} 是正确值按二进制浮点数打印出的样子。"
                             "请按题目要求四舍五入(远离零)后再写。",
        "question_ref": "第 {number} 题({label})",
        "names_sep": "和",
        "or_sep": ";或 ",
        "not_a_number": "\u201c{text}\u201d 不是数:请写整数(3)、小数(\u22120.25、2e9)"
                        "或分数(14/3)。",
        "empty": "请先写出答案。",
        "too_long": "这个答案超过 {max} 个字符:只写数(或用逗号分隔的几个数)。",
        "hint_one": "填一个数:整数、小数或分数(如 14/3)。",
        "hint_list": "{n} 个数,用逗号分隔。",
        "hint_matrix": "一个 {rows}\u00d7{cols} 矩阵:每格填一个数。",
        "hint_vector": "一个含 {n} 个分量的向量:每格填一个数。",
        "cell": "{name},第 {r} 行第 {c} 列",
        "cell_vector": "{name},第 {i} 个分量",
        "wrong_entries": "不正确:标记的 {n} 个元素有误:{at}。",
        "grid_empty": "每一格都要填数:还有 {n} 格是空的。",
        "ask_exact": "写出精确值(整数、分数或有限小数)。",
        "ask_places": "结果四舍五入,保留 {places} 位小数。",
        "ask_sig": "结果保留 {tol} 位有效数字。",
        "ask_rel": "与精确值的相对误差不超过 {tol} 即为正确。",
        "ask_abs": "与精确值的误差不超过 {tol} 即为正确。",
        "again": "(第 {n} 次检查)",
        "start_over": "重新开始",
        "left_out": "本页未收此题:",
        "left_out_why": "网页无法检查这种形状的值;derive check 可以。",
    },
}
"""The page's own words: its buttons, hints and the feedback the script writes. A template's
`{n}` is the number n; `{n:one|many}` is the word for that count (`one` when n is 1), so that
English reads "1 place", "2 places" (page.js's fill reads the same syntax)."""

PLACEHOLDER = re.compile(r"\{([A-Za-z_]+)(?::([^|{}]*)\|([^{}]*))?\}")


def fill(template: str, **params) -> str:
    """A template of WORDS with its parameters (as page.js's fill writes it)."""
    def one(m: re.Match) -> str:
        name, single, many = m.groups()
        if name not in params:
            return m.group(0)
        if single is None:
            return str(params[name])
        return single if str(params[name]) == "1" else many
    return PLACEHOLDER.sub(one, template)


MARKDOWN = re.compile(r"`([^`]*)`|\*\*([^*]+)\*\*|(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])")


def page_text(text: str) -> str:
    """Text the page's script writes as text (mistakes' descriptions, written for Markdown
    and terminals): `code`, **bold** and *emphasis* as their plain words."""
    return MARKDOWN.sub(lambda m: next(g for g in m.groups() if g is not None), text)


# ---------------------------------------------------------------------------------- prose

def _math(tex: str, display: bool = False) -> str:
    return katex.render(tex, display)


def prose_html(text: str) -> str:
    """The course's prose: formula runs as KaTeX, `code` as code, words escaped."""
    return _prose(text, _math, escape_html, lambda c: f"<code>{escape_html(c)}</code>")


def inline_html(text: Inline) -> str:
    """Inline text in HTML: the one place where author text enters a page."""
    if isinstance(text, InlineMath):
        return _math(text.tex)
    if isinstance(text, Author):  # in a value, a minus sign before a number is set as one
        return escape_html(MINUS.sub("\u2212", text.text) if text.number else text.text)
    if isinstance(text, tuple):
        return _joined(text, inline_html)
    return prose_html(text)


# --------------------------------------------------------------------------------- blocks

@singledispatch
def html_block(block) -> str:
    raise TypeError(f"no HTML for {type(block).__name__}")


@html_block.register
def _(block: Heading) -> str:
    level = min(block.level + 1, 6)
    text = inline_html(block.text)
    if block.shows_detail():
        text += " — " + inline_html(Author(block.detail))
    return f"<h{level}>{text}</h{level}>"


@html_block.register
def _(block: Paragraph) -> str:
    text = inline_html(block.text)
    return f"<p><em>{text}</em></p>" if block.emphasis else f"<p>{text}</p>"


def _display(lines: tuple[str, ...]) -> str:
    broken = rows(lines)
    if broken is None and len(lines) == 1 and "&" not in lines[0]:
        return lines[0]
    return "\\begin{aligned}\n" + " \\\\\n".join(lines if broken is None else broken) + \
        "\n\\end{aligned}"


@html_block.register
def _(block: Math) -> str:
    try:
        title = f' title="{escape_html(block.exact)}"' if block.exact else ""
        return f'<div class="display"{title}>{_math(_display(block.lines), True)}</div>'
    except katex.FormulaTooLong as exc:
        if block.source is None:
            raise
        path, exercise, key = block.source
        raise ExerciseNotSupported(path, exercise, key, exc.problem, exc.expected) from None


@html_block.register
def _(block: Items) -> str:
    tag = "ol" if block.numbered else "ul"
    items = "".join(f"<li>{inline_html(i)}</li>" for i in block.items)
    return f"<{tag}>{items}</{tag}>"


def _cell(cell) -> str:
    if isinstance(cell, tuple) and cell[0] == "math":
        return _math(cell[1])
    return inline_html(cell if isinstance(cell, Author) else str(cell))


@html_block.register
def _(block: Table) -> str:
    head = "".join(f'<th scope="col">{inline_html(h)}</th>' for h in block.header)
    body = "".join("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>"
                   for row in block.rows)
    return (f'<div class="table"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def _grid(k: str, q: Question, words: dict) -> str:
    """A vector's or a matrix's answer as a grid of inputs, one per entry (a vector one column,
    as it is written), row-major as the page's data lists its entries: `{key}-cell-{i}`. Each
    is labelled with its row and column; the script marks a wrong one (aria-invalid)."""
    shape = q.check["shape"]
    rows, cols = (shape[0], 1) if len(shape) == 1 else shape
    name = q.check["label"]
    cells = []
    for i in range(rows * cols):
        label = (fill(words["cell_vector"], name=name, i=i + 1) if len(shape) == 1 else
                 fill(words["cell"], name=name, r=i // cols + 1, c=i % cols + 1))
        cells.append(f'<span class="cell"><input id="{k}-cell-{i}" type="text" '
                     'inputmode="decimal" autocomplete="off" autocapitalize="off" '
                     f'spellcheck="false" aria-label="{escape_html(label)}"></span>')
    return (f'<div class="answer grid-answer"><div id="{k}-input" class="grid" role="group" '
            f'aria-labelledby="{k}-label" aria-describedby="{k}-hint {k}-feedback" '
            f'data-rows="{rows}" data-cols="{cols}" style="--cols: {cols}">{"".join(cells)}'
            f'</div><button type="button" class="check" data-q="{k}">'
            f'{escape_html(words["check"])}</button></div>')


def _question(q: Question, words: dict) -> str:
    k = escape_html(q.key)
    working = "".join(html_block(b) for b in q.working)
    reveal = ""
    if working:
        reveal = (f'<button type="button" class="reveal" data-q="{k}" aria-expanded="false" '
                  f'aria-controls="{k}-working" disabled>{escape_html(words["show_working"])}'
                  f'</button><div id="{k}-working" class="working" hidden>{working}</div>')
    if isinstance(q.check, dict) and q.check.get("shape"):
        label = f'<span class="label" id="{k}-label">{inline_html(q.label)}</span>'
        answer = _grid(k, q, words)
    else:
        label = f'<label for="{k}-input">{inline_html(q.label)}</label>'
        answer = (f'<div class="answer"><input id="{k}-input" type="text" autocomplete="off" '
                  'autocapitalize="off" spellcheck="false" '
                  f'aria-describedby="{k}-hint {k}-feedback"><button type="button" '
                  f'class="check" data-q="{k}">{escape_html(words["check"])}</button></div>')
    return (f'<li class="question" data-q="{k}">{label}{answer}'
            f'<p id="{k}-hint" class="hint">{escape_html(q.hint)}</p>'
            f'<p id="{k}-feedback" class="feedback" role="status" aria-live="polite"></p>'
            f"{reveal}</li>")


@html_block.register
def _(block: Questions, words: dict | None = None) -> str:
    words = words or WORDS["en"]
    return '<ol class="questions">' + "".join(_question(q, words) for q in block.items) + \
        "</ol>"


@html_block.register
def _(block: Variant, words: dict | None = None) -> str:
    hidden = " hidden" if block.index else ""
    inner = "".join(_block(b, words) for b in block.blocks)
    return f'<section class="variant" data-variant="{block.index}"{hidden}>{inner}</section>'


def _block(block, words: dict | None) -> str:
    if isinstance(block, (Questions, Variant)):
        return html_block(block, words)
    return html_block(block)


# ----------------------------------------------------------------------------------- page

def _questions(blocks, index: int = 0):
    """Every question of the page, with the index of its variant, in order."""
    for b in blocks:
        if isinstance(b, Variant):
            yield from _questions(b.blocks, b.index)
        elif isinstance(b, Questions):
            for q in b.items:
                yield index, q


def _checks(blocks) -> dict:
    """The page's data: each variant's questions, by key, with what the script judges."""
    variants: dict[int, dict] = {}
    for index, q in _questions(blocks):
        if q.check is not None:
            variants.setdefault(index, {})[q.key] = q.check
    n = max(variants, default=-1) + 1
    return [{"questions": variants.get(i, {})} for i in range(n)]


def said_templates(blocks) -> str:
    """Each mistake's words with their math (a question's `said`) in an inert `<template>`
    whose id the page's data names, once: a `span.said` that names the words, their text as
    the exports write it, and for each formula an empty `span.math` naming the template of its
    KaTeX, made now, once for each formula of the page (many words share one: a mask
    [z_i > 0], a buffer's update). The script shows a copy of the words with a copy of each
    formula in its place (never HTML from data). Words with a formula past KaTeX's bound get
    no template: the script writes their text."""
    said = {id_: parts for _, q in _questions(blocks) for id_, parts in q.said}
    maths: dict[str, str] = {}
    refused: set[str] = set()  # past the bound once: not given to KaTeX again
    out: list[str] = []

    def slot(part) -> str:
        if not isinstance(part, InlineMath):
            return inline_html(part)
        if part.tex in refused:
            raise katex.FormulaTooLong(part.tex[:40])
        if part.tex not in maths:
            try:
                made = _math(part.tex)
            except katex.FormulaTooLong:
                refused.add(part.tex)
                raise
            maths[part.tex] = id_ = f"derive-math-{len(maths)}"
            out.append(f'<template id="{id_}">{made}</template>')
        return f'<span class="math" data-math="{maths[part.tex]}"></span>'
    for id_, parts in said.items():
        try:
            inner = _joined(parts, slot)
        except katex.FormulaTooLong:
            continue
        id_ = escape_html(id_)
        out.append(f'<template id="{id_}"><span class="said" data-said="{id_}">{inner}</span>'
                   "</template>")
    return "".join(out)


def json_in_html(data) -> str:
    """JSON that cannot end its <script> element nor be read as HTML."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def csp(script: str, style: str) -> str:
    """The page's policy: its one script and one stylesheet by hash; KaTeX's inline style
    attributes; fonts and images only from data: URLs; nothing else."""
    scripts = f"'{_sha256(script)}'" if script else "'none'"
    return ("default-src 'none'; "
            f"script-src {scripts}; "
            f"style-src-elem '{_sha256(style)}'; style-src-attr 'unsafe-inline'; "
            "style-src 'unsafe-inline'; font-src data:; img-src data:; "
            "base-uri 'none'; form-action 'none'")


def _variant_form(n: int, words: dict) -> str:
    if n < 2:
        return ""
    return (f'<p>{escape_html(fill(words["variant_intro"], n=n))}</p>'
            '<form id="derive-variant" class="variant-form">'
            f'<label for="derive-student">{escape_html(words["student"])}</label> '
            '<input id="derive-student" type="text" autocomplete="off" inputmode="numeric">'
            f' <button type="submit">{escape_html(words["student_button"])}</button></form>'
            '<p id="derive-variant-note" role="status" aria-live="polite"></p>')


def to_html(doc: Document) -> str:
    """The document as one page: checked questions where it has them."""
    words = WORDS[doc.lang]
    body = "".join(_block(b, words) for b in doc.blocks + doc.end)
    variants = _checks(doc.blocks)
    has_questions = any(v["questions"] for v in variants)
    title_html = inline_html(doc.title)
    # scorm.js first: page.js's start reports to an LMS through it, where there is one
    script = (katex.asset("scorm.js") + katex.asset("page.js")).decode("utf-8") \
        if has_questions else ""
    head_text = _joined(doc.title if isinstance(doc.title, tuple) else (doc.title,),
                        lambda p: escape_html(p.text if isinstance(p, Author) else str(p)))
    main = f"<h1>{title_html}</h1>"
    if has_questions:
        main += (_variant_form(len(variants), words) +
                 f'<noscript><p>{escape_html(words["no_script"])}</p></noscript>'
                 f'<p><button type="button" id="derive-start-over" hidden>'
                 f'{escape_html(words["start_over"])}</button></p>')
    main += body
    said = said_templates(doc.blocks) if has_questions else ""
    style = katex.stylesheet(main + said) + katex.asset("page.css").decode("utf-8")
    data = ""
    if has_questions:
        payload = {"lang": doc.lang, "words": words, "variants": variants}
        data = (f'<script type="application/json" id="derive-data">{json_in_html(payload)}'
                f"</script><script>{script}</script>")
    lang = "zh-Hans" if doc.lang == "zh" else "en"
    return ("<!DOCTYPE html>\n"
            f'<html lang="{lang}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta http-equiv="Content-Security-Policy" content="{csp(script, style)}">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>{head_text}</title><style>{style}</style></head>"
            f"<body><main>{main}</main>{said}{data}</body></html>\n")

