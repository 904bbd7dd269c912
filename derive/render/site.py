"""The index page of a built site (`derive build`): one row per exercise with its status and
links to its artefacts, one row per invalid file with its error; every author string escaped,
no script."""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

WORDS = {
    "en": {"title": "Exercises", "file": "File", "id": "Exercise", "name": "Title",
           "status": "Status", "files": "Artefacts", "invalid": "invalid",
           "summary": "{n} exercise(s): {ok} ok, {wrong} wrong, {undecided} undecided, "
                      "{invalid_exercises} invalid; {invalid} invalid file(s)",
           "not_written": "{n} artefact(s) not written", "failed": "not written: "},
    "zh": {"title": "练习", "file": "文件", "id": "练习", "name": "标题", "status": "状态",
           "files": "文件", "invalid": "无效", "ok": "正确", "wrong": "有误",
           "undecided": "未定",
           "summary": "{n} 道练习：{ok} 道正确，{wrong} 道有误，{undecided} 道未定，"
                      "{invalid_exercises} 道无效；{invalid} 个无效文件",
           "not_written": "{n} 个文件未能写出", "failed": "未能写出："},
}
STATUSES = ("ok", "wrong", "undecided", "invalid")
"""An exercise's status: its check's verdict (invalid: the check refused the exercise). An
artefact not written is said beside it, never as its status."""


@dataclass
class Row:
    """One exercise of the site (status one of STATUSES; `line` says why, when not ok), or one
    invalid file (`exercise` empty, `line` its error)."""
    file: str
    exercise: str = ""
    title: str = ""
    status: str = "invalid"
    line: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)
    """(file name, relative href) of each artefact written (grouped by `groups`)."""
    wrong: tuple[str, str, str, int] | None = None
    """The first wrong claim: its name, the value claimed, derive's, how many more."""
    failed: list[tuple[str, str]] = field(default_factory=list)
    """(file name, reason) of each artefact not written."""


def _href(path: str) -> str:
    return escape("/".join(_quote(part) for part in path.split("/")), quote=True)


def _quote(part: str) -> str:
    # start-up: loaded only when `derive build` runs this
    from urllib.parse import quote

    # a name's own bytes, percent-encoded (one not UTF-8 is held in str as surrogates)
    return quote(part.encode("utf-8", "surrogateescape"), safe="-_.~")


def _text(text: str) -> str:
    """An author string for the page: a file name's bytes that are not UTF-8 as `\xff`,
    control characters escaped (derive.errors.escaped), then HTML-escaped."""
    # start-up: loaded only when `derive build` runs this
    from derive.errors import escaped

    shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return escape(escaped(shown))


GROUP_WORDS = {
    "en": {"key": "key", "sheet": "sheet", "page": "self-check", "check": "check",
           "sources": "sources", "students": "The students' site (the folder to publish)",
           "lms": "LMS packages", "site_for": "The authors' index: every artefact of every "
           "exercise, with the check's verdict.", "language": "Language",
           "wrong": "{name}: claimed {claimed}, derive finds {expected}",
           "more": " (and {n} more wrong)"},
    "zh": {"key": "答案", "sheet": "习题纸", "page": "自测页", "check": "核验",
           "sources": "源文件", "students": "学生站点（要发布的文件夹）", "lms": "LMS 包",
           "site_for": "作者索引：每道练习的全部产物与核验结论。", "language": "语言",
           "wrong": "{name}：给出 {claimed}，derive 算得 {expected}",
           "more": "(另有 {n} 处有误)"},
}
LANG_NAMES = {"en": "English", "zh": "中文"}


def groups(links: list[tuple[str, str]], lang: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """An exercise's files (file name, href) grouped as an author looks for them: the key, the
    sheet and the self-check page rendered (by language), the check, then the sources (Markdown,
    LaTeX, JSON: opened as text by a browser)."""
    g = GROUP_WORDS[lang]
    out: dict[str, list[tuple[str, str]]] = {k: [] for k in ("key", "sheet", "page", "check",
                                                               "sources")}
    for name, href in links:
        stem, _, rest = name.partition(".")
        ext = name.rsplit(".", 1)[1]
        in_lang = rest.partition(".")[0]
        if stem in ("key", "sheet", "page") and ext == "html":
            out[stem].append((in_lang, href))
        elif stem == "key" and ext == "pdf":
            out["key"].append((f"{in_lang} PDF", href))
        elif stem == "check" and ext == "txt":
            out["check"].append(("text", href))
        else:
            out["sources"].append((name, href))
    return [(g[k], v) for k, v in out.items() if v]


def index_html(rows: list[Row], lang: str = "en", students: str = "",
               lms: list[str] = (), switch: list[tuple[str, str]] = ()) -> str:
    """The authors' index: a summary, links to the students' site and the LMS packages, then a
    row per exercise (its status, with why when it is not ok: the first wrong claim) and its
    files grouped; on a phone each row is a block (site.css)."""
    # start-up: loaded only when `derive build` runs this
    from derive.render.html import csp
    from derive.render.katex import asset

    w, g = WORDS[lang], GROUP_WORDS[lang]
    exercises = [r for r in rows if r.exercise]
    counts = {s: sum(r.status == s for r in exercises) for s in STATUSES}
    summary = w["summary"].format(n=len(exercises), invalid=len(rows) - len(exercises),
                                  invalid_exercises=counts.pop("invalid"), **counts)
    lost = sum(len(r.failed) for r in rows)
    if lost:
        summary += ("; " if lang == "en" else "；") + w["not_written"].format(n=lost)
    style = asset("site.css").decode("utf-8")
    nav = "".join(f"<strong>{LANG_NAMES[x]}</strong>" if x == lang else
                  f'<a href="{_href(href)}" hreflang="{x}">{LANG_NAMES[x]}</a>'
                  for x, href in switch) if len(switch) > 1 else ""
    out = ["<!DOCTYPE html>", f'<html lang="{"zh-Hans" if lang == "zh" else "en"}">', "<head>",
           '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f'<meta http-equiv="Content-Security-Policy" content="{csp("", style)}">',
           f"<title>{escape(w['title'])}</title>", f"<style>{style}</style>", "</head>",
           "<body>", '<main class="wide">',
           f'<div class="top"><p class="course">{escape(g["site_for"])}</p>'
           + (f'<nav class="lang" aria-label="{g["language"]}">{nav}</nav>' if nav else "")
           + "</div>",
           f"<h1>{escape(w['title'])}</h1>", f"<p>{escape(summary)}</p>"]
    if students:
        out.append(f'<p class="links"><a href="{_href(students)}">{escape(g["students"])}</a>'
                   "</p>")
    if lms:
        out.append(f'<p class="links">{escape(g["lms"])}: '
                   + " ".join(f'<a href="{_href(p)}">{_text(p.rsplit("/", 1)[-1])}</a>'
                              for p in lms) + "</p>")
    out += ["<table>", f"<thead><tr><th>{w['file']}</th><th>{w['id']}</th><th>{w['name']}</th>"
            f"<th>{w['status']}</th><th>{w['files']}</th></tr></thead>", "<tbody>"]
    for r in rows:
        status = w.get(r.status, r.status)
        line = f'<span class="hint">{_text(r.line)}</span>' if r.line else ""
        if r.wrong is not None:
            name, claimed, expected, more = r.wrong
            said = g["wrong"].format(name=name, claimed=claimed, expected=expected)
            said += g["more"].format(n=more) if more else ""
            line += f'<span class="hint">{_text(said)}</span>'
        links = "".join(
            f'<span class="group"><b>{escape(label)}</b>'
            + " ".join(f'<a href="{_href(href)}">{escape(text)}</a>' for text, href in files)
            + "</span>" for label, files in groups(r.links, lang))
        links += _failed(r.failed, w["failed"])
        out.append(f'<tr><td data-label="{w["file"]}">{_text(r.file)}</td>'
                   f'<td data-label="{w["id"]}">{_text(r.exercise)}</td>'
                   f'<td data-label="{w["name"]}">{_text(r.title)}</td>'
                   f'<td class="{escape(r.status)}" data-label="{w["status"]}">'
                   f"{escape(status)}{line}</td>"
                   f'<td data-label="{w["files"]}">{links}</td></tr>')
    out += ["</tbody>", "</table>", "</main>", "</body>", "</html>", ""]
    return "\n".join(out)


def _failed(failed: list[tuple[str, str]], words: str) -> str:
    """The artefacts not written, one line per distinct reason with the files it left out."""
    reasons: dict[str, list[str]] = {}
    for name, reason in failed:
        reasons.setdefault(reason, []).append(name)
    return "".join(f'<br><span class="failed">{escape(words)}{_text(", ".join(names))} '
                   f"({_text(reason)})</span>" for reason, names in reasons.items())
