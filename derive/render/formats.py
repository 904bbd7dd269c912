"""The output formats of each command, in one table: their names (the CLI's `--format`
choices, the first one the default) and how each renders what the command made.

Every output but JSON is a `Document` rendered by one of the document model's
renderers (`to_tex`, `to_markdown`, `to_text`, `to_html`): `export` renders the document it
made (a statement's proof, exercise derivations, a question sheet, a self-check page); `key`
and `check` first make one from the exercises' reports (`key_document`, `check_document`).
JSON is data and has its own serializer. The renderers are imported when they run, so that
`derive prove` does not load them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from derive.render.escape import json_text


@dataclass(frozen=True)
class Format:
    name: str
    render: Callable[..., str]
    """(what the command made, **options) → the text written."""
    help: str = ""


# ----------------------------------------------------------------------------- renderers
# A document's renderers: every text output but JSON is one of these.

def _tex(doc, standalone: bool = False, **_) -> str:
    # start-up: loaded only when this format is asked
    from derive.render.document import to_tex

    return to_tex(doc, standalone)


def _markdown(doc, **_) -> str:
    # start-up: loaded only when this format is asked
    from derive.render.document import to_markdown

    return to_markdown(doc)


def _html(doc, **_) -> str:
    # start-up: loaded only when this format is asked
    from derive.render.html import to_html

    return to_html(doc)


def _text(doc, **_) -> str:
    # start-up: loaded only when this format is asked
    from derive.render.document import to_text

    return to_text(doc)


# ------------------------------------------------------------------------------ documents
# What `key` and `check` make into a document, then render with one of the above.

def _key_document(reports, lang: str = "en", **_):
    # start-up: loaded only when this format is asked
    from derive.render.derivation import key_document

    return key_document(reports, lang)


def _check_document(reports, **_):
    # start-up: loaded only when this format is asked
    from derive.render.keys import check_document

    return check_document(reports)


def _via(make: Callable, render: Callable, **fixed) -> Callable[..., str]:
    """Render the document `make` builds from the command's reports (`fixed` options win)."""
    def run(reports, **options) -> str:
        return render(make(reports, **options), **{**options, **fixed})
    return run


# ----------------------------------------------------------------------------------- data
# JSON is data, not a document: its own serializer (numbers from derive.render.numbers).

def _key_json(reports, **_) -> str:
    # start-up: loaded only when this format is asked
    from derive.render.keys import key_json

    return json_text({"exercises": [key_json(r) for r in reports]}, indent=2)


def _check_json(reports, **_) -> str:
    # start-up: loaded only when this format is asked
    from derive.render.keys import check_json

    return json_text({"exercises": [check_json(r) for r in reports]}, indent=2)


# --------------------------------------------------------------------------------- table

FORMATS: dict[str, tuple[Format, ...]] = {
    "check": (Format("text", _via(_check_document, _text),
                     "a table per exercise and a summary line"),
              Format("json", _check_json, "one JSON document")),
    "key": (Format("md", _via(_key_document, _markdown), "Markdown tables, math for KaTeX"),
            Format("json", _key_json, "one JSON document"),
            Format("tex", _via(_key_document, _tex, standalone=True),
                   "a standalone LaTeX document")),
    "export": (Format("tex", _tex, "LaTeX (a fragment, or a document with --standalone)"),
               Format("md", _markdown, "Markdown, math for KaTeX"),
               Format("html", _html, "one standalone web page: an exercise file's self-check "
                      "(a statement's proof, a question sheet)")),
}
"""Each command's formats, its default first."""


def choices(command: str) -> tuple[str, ...]:
    return tuple(f.name for f in FORMATS[command])


def default(command: str) -> str:
    return FORMATS[command][0].name


def render(command: str, name: str, subject, **options) -> str:
    """`subject` (a document or reports, as the command makes them) in format `name`."""
    (fmt,) = [f for f in FORMATS[command] if f.name == name]
    return fmt.render(subject, **options)
