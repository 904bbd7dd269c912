"""Author text into each output: one escaping function per output language.

Exercise files come from many authors, so their words — an exercise's id and title, a claim
as written, a given value shown as text, the name of a file — are untrusted. They are text,
never markup, and they reach an output only through these functions (the document model
wraps them as `derive.render.document.Author`; `derive.render.keys` calls `escape_markdown`
itself):

- `escape_latex(text, lang)`: LaTeX text mode, pdfLaTeX with T1 for `en`, XeLaTeX with
  ctexart for `zh`. `escape_latex(text, lang, math=True)`: the argument of `\\text{…}` or
  `\\texttt{…}` inside math, which KaTeX renders too (the exports' display math).
- `escape_markdown(text)`: inline Markdown (CommonMark with GFM tables) for KaTeX.
- `escape_html(text)`: HTML text and quoted attribute values (the web page).

The course's own prose (`proofs/`, `labels.py`) is not escaped here: its formulas are set as
math by `derive.render.symbols`.

Both start from `clean_text`: NFC, control characters and bidirectional overrides removed,
every run of white space (new lines included) one space, no space at either end. Author text
is therefore one line: it never ends a LaTeX paragraph nor starts a Markdown block.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata

# ------------------------------------------------------------------------------ clean text

_KEPT_SPACES = "\u00a0\u3000"
"""The no-break space and the ideographic space: kept as written, not collapsed."""
_BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""The marks that reorder text on screen (a title that reads differently from what it is)."""


def clean_text(text: str) -> str:
    """Author text as one line: NFC; control characters (the ESC of `\\x1b[31m`, NUL, DEL, C1)
    and bidirectional marks removed; every run of white space (new lines, tabs, U+2028, …) one
    space; no space at either end."""
    chars = []
    for ch in unicodedata.normalize("NFC", str(text)):
        if ch.isspace() and ch not in _KEPT_SPACES:
            chars.append(" ")
        elif unicodedata.category(ch) != "Cc" and ch not in _BIDI:
            chars.append(ch)
    return re.sub(" {2,}", " ", "".join(chars)).strip(" ")


# ------------------------------------------------------------------------------------ LaTeX

_LATEX = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "%": r"\%", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "_": r"\_",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
    '"': r"\textquotedbl{}", "`": r"\textasciigrave{}",
}
"""ASCII characters with a meaning in LaTeX, or a ligature or glyph of their own in T1 and
TU fonts (`<<` is «, `"` may be ”, `` ` `` is ‘), as their text forms."""

_LATEX_MATH = {**_LATEX, "$": r"\textdollar{}", '"': '"', "`": "'"}
"""Inside `\\text{…}` in math: the same, in commands KaTeX knows as well (no `$`, so that a
Markdown math span cannot end early)."""

_LIGATURES = ("--", "''", ",,", "!`", "?`")
"""Pairs that T1 and TeX-ligature fonts join (– ” „ ¡ ¿): kept apart by `{}`."""

_SETTABLE_RANGES = (
    "00A0-0125 0128-0137 0139-013E 0141-0148 014A-0165 0168-017E 0192 01CD-01D4 01E6-01E7 "
    "01EA-01EB 01F0 01F4-01F5 0218-021B 0237 02C7 02D8-02D9 02DB 02DD 0E3F 1E0D 1E25 1E37 "
    "1E43 1E45 1E47 1E5B 1E63 1E6D 1EF2-1EF3 2010-2011 2013-2014 2016 2018-201A 201C-201E "
    "2020-2022 2030-2031 2039-203B 203D 2044 2052 20A1 20A4 20A6 20A9 20AB-20AC 20B1 2103 "
    "2116-2117 211E 2120 2122 2127 212E 2190-2193 2422-2423 25E6 266A 3008-3009 FB00-FB04")
"""Characters beyond ASCII that both engines set as text: pdfLaTeX's T1, TS1, OT1 and OMS
encodings declare them (`*enc.dfu`), and the Latin Modern and Fandol fonts of XeLaTeX have
their glyphs (tests/test_escaping.py compiles every one with both engines). Characters that
NFC replaces (the ohm sign, U+2329/232A) are left out: author text is NFC first."""


def _ranges(spec: str) -> frozenset[str]:
    out = set()
    for part in spec.split():
        lo, _, hi = part.partition("-")
        out.update(chr(c) for c in range(int(lo, 16), int(hi or lo, 16) + 1))
    return frozenset(out)


SETTABLE = _ranges(_SETTABLE_RANGES) | frozenset(map(chr, range(0x20, 0x7F)))
"""What an English (pdfLaTeX) document sets as text: printable ASCII and the above."""
_KANA = re.compile(r"[\u3040-\u30ff]")


def _settable(ch: str, lang: str) -> bool:
    if ch in SETTABLE:
        return True
    # start-up: the notation's tables (and SymPy) load with the first LaTeX, not for a terminal
    from derive.render.symbols import has_cjk

    # Chinese documents (XeLaTeX, ctexart) also set CJK text and kana
    return lang == "zh" and (has_cjk(ch) or bool(_KANA.match(ch)))


UNSETTABLE = {False: r"($\ldots$)", True: r"(\ldots)"}
"""What stands for a run of characters the document cannot set: (…), as the English export
writes a run of Chinese text."""


def escape_latex(text: str, lang: str = "en", math: bool = False) -> str:
    """Author text as LaTeX text: no control sequence, group, math shift, alignment tab,
    parameter, comment or paragraph break of the author's passes; the characters with a
    meaning become their text forms (`\\` is `\\textbackslash{}`, `_` is `\\_`); a formula
    symbol of the course's notation (η, ≈, ·) is set as math, as in the course's prose; a run
    of characters the engine cannot set (Chinese in an English document, emoji) becomes (…).

    `math`: the text sits in `\\text{…}` or `\\texttt{…}` inside math, which KaTeX renders
    too: printable ASCII only, every other character a (…)."""
    # start-up: the notation's tables (and SymPy) load with the first LaTeX, not for a terminal
    from derive.render.symbols import ACCENTED, MATH, accent_latex

    table = _LATEX_MATH if math else _LATEX
    text = clean_text(text)
    out: list[str] = []
    unsettable = False
    for i, ch in enumerate(text):
        accented = ACCENTED.match(text, i - 1) if i and not math else None
        if accented and (text[i - 1].isascii() and text[i - 1].isalpha() or text[i - 1] in MATH):
            out[-1] = f"${accent_latex(accented)}$"  # x̂, g̃, θ̂: a letter and a combining accent
            unsettable = False
            continue
        if math and not ch.isascii():
            shown = None
        elif ch in table:
            shown = table[ch]
        elif ch in MATH and not math:
            shown = f"${MATH[ch]}$"
        elif _settable(ch, lang):
            shown = ch
        elif unicodedata.category(ch) == "Cf":
            continue  # invisible formatting (zero-width joiners, BOM): nothing to set
        else:
            shown = None
        if shown is None:
            if not unsettable:
                out.append(UNSETTABLE[math])
            unsettable = True
            continue
        unsettable = False
        if out and (out[-1][-1:] + shown[:1]) in _LIGATURES:
            out.append("{}")
        out.append(shown)
    return "".join(out)


# --------------------------------------------------------------------------------- Markdown

_MARKDOWN = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
"""No raw HTML and no character reference of the author's: entities."""
_MARKDOWN_ESCAPED = set("\\`*_[]#|$~^!")
"""Backslash-escaped everywhere: code spans, emphasis, links and images, a heading's closing
`#`, table cells, KaTeX's math (`$`), strikethrough and superscript."""
_LEADING = re.compile(r"^(?:[-+](?= |$)|[0-9]{1,9}[.)](?= |$)|[-=](?=[-= ]*$))")
"""At the start of a line: a list item (`- `, `+ `, `1. `, `1) `), a thematic break or a setext
underline (`---`, `- - -`, `==`). Author text never starts a line in derive's Markdown, but its
escape holds there too; a number such as -4 or 5.75 is not one of them and is left alone."""


def escape_markdown(text: str) -> str:
    """Author text as inline Markdown for KaTeX: one line (no heading, list, quote or table row
    can start); `<`, `>`, `&` as entities (no raw HTML); `\\ ` * _ [ ] # | $ ~ ^ !` escaped by a
    backslash, so no code span, emphasis, link, image or math starts; a list marker, thematic
    break or setext underline escaped at the start. `(`, `)`, `+`, `-`, `=` and `.` elsewhere
    mean nothing once `[` and `]` are escaped, and are left as written."""
    text = clean_text(text)
    lead = _LEADING.match(text)
    out = []
    for i, ch in enumerate(text):
        if ch in _MARKDOWN:
            out.append(_MARKDOWN[ch])
        elif ch in _MARKDOWN_ESCAPED or (lead and i == lead.end() - 1):
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


# -------------------------------------------------------------------------------------- HTML

def escape_html(text: str) -> str:
    """Author text as HTML text or an attribute value (quoted): one line (`clean_text`), with
    `&`, `<`, `>`, `"` and `'` as character references; no markup can start."""
    return html.escape(clean_text(text), quote=True)


# --------------------------------------------------------------------------------------- XML

_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")


def escape_xml(text: str) -> str:
    """Author text as XML text or an attribute value (quoted): escaped as for HTML
    (`escape_html`), and without the characters XML 1.0 cannot hold at all (a lone surrogate,
    U+FFFE, U+FFFF; control characters are gone already)."""
    return escape_html(_NOT_XML.sub("", str(text)))


# ---------------------------------------------------------------------------------- terminal

_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                       "\u202a-\u202e\u2066-\u2069]")


def _escaped(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def escape_terminal(text: str) -> str:
    """Text for a terminal: every control character (the ESC of `\\x1b[31m`) and every
    bidirectional mark shown as an escape, never sent raw; new lines and tabs kept."""
    return _TERMINAL.sub(_escaped, str(text))


def terminal_line(text: str) -> str:
    """Author text on one terminal line: escaped, and new lines shown as `\\n`."""
    return escape_terminal(text).replace("\r", "\\r").replace("\n", "\\n")


# ----------------------------------------------------------------------------------- JSON

_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_text(data, **options) -> str:
    """Data as JSON (UTF-8 kept: `ensure_ascii=False`) whose every control character, line or
    paragraph separator and bidirectional mark is a JSON escape (`\\u2028`), never raw: it reads
    back as the same data, and printing it on a terminal changes nothing (escape_terminal would
    write U+0085 as `\\x85`, which is not JSON)."""
    text = json.dumps(data, ensure_ascii=False, **options)  # C0 escaped already
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
