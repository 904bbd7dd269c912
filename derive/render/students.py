"""The students' site (`derive build` writes it to SITE/students/, the folder a lecturer
publishes): a course page listing the lessons, a page per lesson listing its exercises, and
each lesson's question sheet, printable; the self-check pages are copied beside them.

A lesson is one exercise file of the bank. Nothing here reads a report: an exercise's sheet
is rendered by the worker that checked it (`exercise_sheet`, one page per exercise, its
questions between two markers), and the lesson's sheet is assembled from those pages
(`sheet_sections`, `sheet_page`). Every page is one file that loads nothing (fonts inlined as
data: URLs), has a viewport, no script, and a Content-Security-Policy that allows its one
stylesheet by hash; author text reaches it only through `escape_html`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from derive.render import katex
from derive.render.escape import escape_html
from derive.render.html import csp, html_block

WORDS = {
    "en": {"exercises": "Exercises", "lessons": "Lessons", "sheet": "Question sheet",
           "sheet_print": "Question sheet (printable)", "self_check": "Self-check",
           "name": "Name", "student": "Student number", "course": "Course",
           "print": "To print it, or save it as a PDF, use the browser's Print command.",
           "back": "All lessons", "lesson_back": "Back to the lesson",
           "n_exercises": "{n} exercises", "one_exercise": "1 exercise", "language": "Language",
           "no_page": "no self-check page"},
    "zh": {"exercises": "练习", "lessons": "课程单元", "sheet": "习题纸",
           "sheet_print": "习题纸（可打印）", "self_check": "自测",
           "name": "姓名", "student": "学号", "course": "课程",
           "print": "用浏览器的“打印”即可打印，或另存为 PDF。",
           "back": "全部单元", "lesson_back": "返回本单元",
           "n_exercises": "{n} 道练习", "one_exercise": "1 道练习", "language": "语言",
           "no_page": "无自测页"},
}
LANG_NAMES = {"en": "English", "zh": "中文"}
SECTION = "<!--derive:exercise-->"
END = "<!--/derive:exercise-->"
"""The markers around an exercise's questions in its sheet: author text is escaped, so no `<`
of it can write one."""
_SECTIONS = re.compile(re.escape(SECTION) + "(.*?)" + re.escape(END), re.S)
_TITLE = re.compile(r"<title>(.*?)</title>", re.S)


@dataclass(frozen=True)
class Exercise:
    """An exercise as a lesson page lists it: its id, the title its sheet shows ("" when it
    shows none: a title that states an answer), and the href of its self-check page."""
    id: str
    title: str = ""
    page: str = ""


@dataclass(frozen=True)
class Lesson:
    """A lesson of the students' site: its folder under students/, its title (the course's
    [course.lessons] table, else the file's name), its exercises, and whether it has a sheet."""
    folder: str
    title: str
    exercises: tuple[Exercise, ...]
    sheet: bool = False


def href(path: str) -> str:
    """A relative link to a file of the site, each part of its path percent-encoded from its
    own bytes (a file name of the bank may hold `#`, `?`, a space, bytes that are not UTF-8)."""
    # start-up: loaded only when `derive build` runs this
    from urllib.parse import quote

    return escape_html("/".join(quote(p.encode("utf-8", "surrogateescape"), safe="-_.~")
                                for p in path.split("/")))


def index_name(lang: str, langs: tuple[str, ...]) -> str:
    """The file of a course or lesson page: index.html in the first language, index.zh.html…"""
    return "index.html" if lang == langs[0] else f"index.{lang}.html"


def sheet_name(lang: str, langs: tuple[str, ...]) -> str:
    return "sheet.html" if lang == langs[0] else f"sheet.{lang}.html"


def _css() -> str:
    return katex.asset("site.css").decode("utf-8")


def page(lang: str, title: str, main: str, main_class: str = "") -> str:
    """A whole page: `title` is plain text (escaped here), `main` HTML made of escaped parts;
    the stylesheet is KaTeX's for the formulas `main` holds, then the site's."""
    style = (katex.stylesheet(main) if 'class="katex' in main else "") + _css()
    lang_attr = "zh-Hans" if lang == "zh" else "en"
    cls = f' class="{main_class}"' if main_class else ""
    return ("<!DOCTYPE html>\n"
            f'<html lang="{lang_attr}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta http-equiv="Content-Security-Policy" content="{csp("", style)}">'
            '<meta name="referrer" content="no-referrer">'
            f"<title>{escape_html(title)}</title><style>{style}</style></head>"
            f"<body><main{cls}>{main}</main></body></html>\n")


def _top(course: str, lang: str, switch: list[tuple[str, str]]) -> str:
    """The line above a page's heading: the course's title, and the language switch
    (lang, href) of each language the site has (the page's own not a link)."""
    links = []
    for other, to in switch:
        name = escape_html(LANG_NAMES[other])
        links.append(f"<strong>{name}</strong>" if other == lang else
                     f'<a href="{escape_html(to)}" hreflang="{other}" lang="{other}">'
                     f"{name}</a>")
    nav = (f'<nav class="lang screen" aria-label="{WORDS[lang]["language"]}">'
           f'{"".join(links)}</nav>' if len(switch) > 1 else "")
    return f'<div class="top"><p class="course">{escape_html(course)}</p>{nav}</div>'


def course_title(course, lang: str) -> str:
    """The course's title in `lang` (its English one where no Chinese is given), else
    Exercises / 练习."""
    title = (course.title_zh or course.title) if lang == "zh" else course.title
    return title or WORDS[lang]["exercises"]


def lesson_title(course, folder: str, lang: str) -> str:
    title, title_zh = course.lesson(folder)
    return ((title_zh or title) if lang == "zh" else title) or folder.encode(
        "utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# ---------------------------------------------------------------------------- the pages

def students_index(course, lessons: list[Lesson], lang: str, langs: tuple[str, ...]) -> str:
    """students/index.html: the course's title and one entry per lesson."""
    w = WORDS[lang]
    title = course_title(course, lang)
    items = []
    for lesson in lessons:
        to = href(f"{lesson.folder}/{index_name(lang, langs)}")
        n = len(lesson.exercises)
        count = w["one_exercise"] if n == 1 else w["n_exercises"].format(n=n)
        links = [f'<span class="muted">{escape_html(count)}</span>']
        if lesson.sheet:
            links.append(f'<a href="{href(f"{lesson.folder}/{sheet_name(lang, langs)}")}">'
                         f'{escape_html(w["sheet"])}</a>')
        items.append(f'<li><a class="title" href="{to}">'
                     f"{escape_html(lesson_title(course, lesson.folder, lang))}</a>"
                     f'<span class="links">{" ".join(links)}</span></li>')
    term = escape_html(course.author)
    main = (_top(course.term, lang,
                 [(x, index_name(x, langs)) for x in langs]) +
            f"<h1>{escape_html(title)}</h1>" + (f'<p class="muted">{term}</p>' if term else "")
            + f"<h2>{escape_html(w['lessons'])}</h2>"
            + f'<ul class="list">{"".join(items)}</ul>')
    return page(lang, title, main)


def lesson_page(course, lesson: Lesson, lang: str, langs: tuple[str, ...]) -> str:
    """students/<lesson>/index.html: the lesson's exercises, each with its self-check page,
    and the lesson's question sheet."""
    w = WORDS[lang]
    title = lesson_title(course, lesson.folder, lang)
    up = "../" * (lesson.folder.count("/") + 1)
    items = []
    for ex in lesson.exercises:
        said = escape_html(ex.id) + (f" — {escape_html(ex.title)}" if ex.title else "")
        link = (f'<a class="title" href="{href(ex.page)}">{said}</a>' if ex.page else
                f'<span class="title">{said}</span><span class="muted">'
                f'{escape_html(w["no_page"])}</span>')
        items.append(f"<li>{link}</li>")
    sheet = (f'<p class="links"><a href="{sheet_name(lang, langs)}">'
             f'{escape_html(w["sheet_print"])}</a></p>' if lesson.sheet else "")
    main = (_top(course_title(course, lang), lang,
                 [(x, index_name(x, langs)) for x in langs]) +
            f'<p class="links screen"><a href="{up}{index_name(lang, langs)}">'
            f'← {escape_html(w["back"])}</a></p>'
            f"<h1>{escape_html(title)}</h1>{sheet}"
            f"<h2>{escape_html(w['self_check'])}</h2>"
            f'<ul class="list">{"".join(items)}</ul>')
    return page(lang, title, main)


def sheet_page(course, lesson_folder: str, sections: list[str], lang: str,
               langs: tuple[str, ...], note: str) -> str:
    """students/<lesson>/sheet.html: the course's and the lesson's titles, lines for the
    student's name and number, then every exercise's questions (HTML from `exercise_sheet`),
    each followed by room to answer (site.css); no answers. Printed from the browser (print
    CSS: A4, the screen-only links hidden) it is the PDF."""
    w = WORDS[lang]
    title = lesson_title(course, lesson_folder, lang)
    main = (_top(course_title(course, lang), lang,
                 [(x, sheet_name(x, langs)) for x in langs]) +
            f'<p class="links screen"><a href="{index_name(lang, langs)}">'
            f'← {escape_html(w["lesson_back"])}</a></p>'
            f"<h1>{escape_html(title)}</h1>"
            f'<p class="screen muted print">{escape_html(w["print"])}</p>'
            f'<div class="student"><span>{escape_html(w["name"])}:</span>'
            f'<span>{escape_html(w["student"])}:</span></div>'
            f"<p>{escape_html(note)}</p>" + "".join(sections))
    return page(lang, f"{w['sheet']}: {title}", main, "sheet")


def exercise_sheet(blocks, lang: str, title: str) -> str:
    """One exercise's sheet (the blocks of derive.render.questions.question_blocks), its
    questions between the markers that `sheet_sections` finds; `title` is the page's."""
    inner = "".join(html_block(b) for b in blocks)
    main = f'{SECTION}<section class="exercise">{inner}</section>{END}'
    return page(lang, title, main, "sheet")


def sheet_sections(text: str) -> list[str]:
    """The exercises' questions in a sheet `exercise_sheet` wrote."""
    return _SECTIONS.findall(text)


def shown_title(text: str) -> str:
    """The title (plain text) of a page this module wrote."""
    # start-up: loaded only when `derive build` runs this
    from html import unescape

    found = _TITLE.search(text)
    return unescape(found.group(1)) if found else ""


def with_back_link(page_html: str, back: str, label: str) -> str:
    """A self-check page as the students' site copies it: a link back to its lesson first in
    its <main> (derive's own markup: the first `<main>` is the page's)."""
    link = (f'<p style="margin:0 0 .5rem"><a href="{escape_html(back)}">← '
            f"{escape_html(label)}</a></p>")
    return page_html.replace("<main>", "<main>" + link, 1)
