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
    """(label, relative href) of each artefact written."""
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


def index_html(rows: list[Row], lang: str = "en") -> str:
    w = WORDS[lang]
    exercises = [r for r in rows if r.exercise]
    counts = {s: sum(r.status == s for r in exercises) for s in STATUSES}
    summary = w["summary"].format(n=len(exercises), invalid=len(rows) - len(exercises),
                                  invalid_exercises=counts.pop("invalid"), **counts)
    lost = sum(len(r.failed) for r in rows)
    if lost:
        summary += ("; " if lang == "en" else "；") + w["not_written"].format(n=lost)
    out = ["<!DOCTYPE html>", f'<html lang="{lang}">', "<head>", '<meta charset="utf-8">',
           f"<title>{escape(w['title'])}</title>",
           "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:.3em .6em;vertical-align:top;text-align:left}"
           ".ok{color:#070}.wrong,.invalid,.failed{color:#b00}.undecided{color:#a60}"
           "</style>", "</head>", "<body>", f"<h1>{escape(w['title'])}</h1>",
           f"<p>{escape(summary)}</p>", "<table>",
           f"<tr><th>{w['file']}</th><th>{w['id']}</th><th>{w['name']}</th>"
           f"<th>{w['status']}</th><th>{w['files']}</th></tr>"]
    for r in rows:
        status = w.get(r.status, r.status)
        line = f"<br>{_text(r.line)}" if r.line else ""
        links = " ".join(f'<a href="{_href(href)}">{escape(label)}</a>'
                         for label, href in r.links) + _failed(r.failed, w["failed"])
        out.append(f"<tr><td>{_text(r.file)}</td><td>{_text(r.exercise)}</td>"
                   f"<td>{_text(r.title)}</td>"
                   f'<td class="{escape(r.status)}">{escape(status)}{line}</td>'
                   f"<td>{links}</td></tr>")
    out += ["</table>", "</body>", "</html>", ""]
    return "\n".join(out)


def _failed(failed: list[tuple[str, str]], words: str) -> str:
    """The artefacts not written, one line per distinct reason with the files it left out."""
    reasons: dict[str, list[str]] = {}
    for name, reason in failed:
        reasons.setdefault(reason, []).append(name)
    return "".join(f'<br><span class="failed">{escape(words)}{_text(", ".join(names))} '
                   f"({_text(reason)})</span>" for reason, names in reasons.items())
