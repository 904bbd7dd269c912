"""The output formats of each command, in one table: their names (the CLI's `--format`
choices, the first one the default) and how each renders what the command made.

What is rendered depends on the command: `export` renders a `Document` (a statement's proof,
exercise derivations, a question sheet); `key` and `check` render the exercises' reports
(`key --format tex` through the answer key's `Document`). The renderers are imported when
they run, so that `derive prove` does not load them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Format:
    name: str
    render: Callable[..., str]
    """(what the command made, **options) → the text written."""
    help: str = ""


# ----------------------------------------------------------------------------- renderers

def _tex(doc, standalone: bool = False, **_) -> str:
    from derive.render.document import to_tex

    return to_tex(doc, standalone)


def _markdown(doc, **_) -> str:
    from derive.render.document import to_markdown

    return to_markdown(doc)


def _key_md(reports, lang: str = "en", **_) -> str:
    from derive.render.keys import key_markdown

    return key_markdown(reports, lang)


def _key_json(reports, **_) -> str:
    from derive.render.keys import key_json

    return json.dumps({"exercises": [key_json(r) for r in reports]}, ensure_ascii=False,
                      indent=2)


def _key_tex(reports, lang: str = "en", **_) -> str:
    from derive.render.derivation import key_document

    return _tex(key_document(reports, lang), standalone=True)


def _check_text(reports, **_) -> str:
    from derive.render.keys import check_text

    return check_text(reports)


def _check_json(reports, **_) -> str:
    from derive.render.keys import check_json

    return json.dumps({"exercises": [check_json(r) for r in reports]}, ensure_ascii=False,
                      indent=2)


# --------------------------------------------------------------------------------- table

FORMATS: dict[str, tuple[Format, ...]] = {
    "check": (Format("text", _check_text, "a table per exercise and a summary line"),
              Format("json", _check_json, "one JSON document")),
    "key": (Format("md", _key_md, "Markdown tables, math for KaTeX"),
            Format("json", _key_json, "one JSON document"),
            Format("tex", _key_tex, "a standalone LaTeX document")),
    "export": (Format("tex", _tex, "LaTeX (a fragment, or a document with --standalone)"),
               Format("md", _markdown, "Markdown, math for KaTeX")),
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
