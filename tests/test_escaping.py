"""Author text stays text: exercise ids, titles, claims as written and file names reach the LaTeX
and Markdown outputs only through `derive.render.escape`, and no author string can add a
control sequence, a paragraph, a Markdown block, raw HTML or a math span.

- Tables: hostile strings and their escaped forms, written by hand.
- Properties: hostile ids, titles, claims and file names put into a real exercise file; the
  `derive key` and `derive export` documents compile with pdfLaTeX (English) and XeLaTeX
  (Chinese), KaTeX renders every math span of the Markdown, and the documents have exactly
  the lines, paragraphs, headings, math spans and control sequences of the same file with
  plain author text. Example counts are small (a TeX run per example); HYPOTHESIS_PROFILE=
  thorough multiplies them by ten.

Set DERIVE_SKIP_RENDERERS=1 to skip the TeX and KaTeX runs on a machine without them (as in
tests/test_export.py).
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from support import examples
from test_export import katex_failures, math_spans, need

from derive.exercises.schema import ID_CHARS
from derive.render.document import MINUS
from derive.render.escape import SETTABLE, clean_text, escape_latex, escape_markdown
from derive.render.symbols import MATH, has_cjk

# ----------------------------------------------------------------------- tables, by hand

CLEAN = [
    ("plain", "plain"),
    ("A\n\nB", "A B"),
    ("line\r\nbreak\tand\x0bmore\x0c", "line break and more"),
    ("  padded \n", "padded"),
    ("\x1b[31mred\x1b[0m", "[31mred[0m"),
    ("nul\x00x del\x7fy nel\x85z", "nulx dely nel z"),
    ("a\u2028b\u2029c", "a b c"),
    ("\u202eevil\u202c \u2066x\u2069", "evil x"),
    ("cafe\u0301", "caf\u00e9"),
    ("no\u00a0break", "no\u00a0break"),
]

LATEX = [
    (r"\input{secret}", r"\textbackslash{}input\{secret\}"),
    (r"\write18{rm -rf ~}", r"\textbackslash{}write18\{rm -rf \textasciitilde{}\}"),
    (r"\catcode`\@=11", r"\textbackslash{}catcode\textasciigrave{}\textbackslash{}@=11"),
    (r"x=\input{secret}.toml", r"x=\textbackslash{}input\{secret\}.toml"),
    ("50% off # $5 & more", r"50\% off \# \$5 \& more"),
    ("a_b^c", r"a\_b\textasciicircum{}c"),
    ("__", r"\_\_"),
    ("~", r"\textasciitilde{}"),
    ("\\", r"\textbackslash{}"),
    ("\\\\", r"\textbackslash{}\textbackslash{}"),
    ("{}", r"\{\}"),
    ("}{", r"\}\{"),
    ("A\n\nB", "A B"),
    ("par\n\n\n\\par", r"par \textbackslash{}par"),
    ("\x1b[31mred\x1b[0m", "[31mred[0m"),
    ("<script>alert(1)</script>",
     r"\textless{}script\textgreater{}alert(1)\textless{}/script\textgreater{}"),
    ("a|b", r"a\textbar{}b"),
    ('"quoted"', r"\textquotedbl{}quoted\textquotedbl{}"),
    ("a--b---c", "a-{}-b-{}-{}-c"),
    ("''x'' ,,y", "'{}'x'{}' ,{},y"),
    ("η ≈ 0.1", r"$\eta$ $\approx$ 0.1"),
    ("x\u0302", r"$\hat{x}$"),
    ("cafe\u0301 na\u00efve \u0141\u00f3d\u017a", "caf\u00e9 na\u00efve \u0141\u00f3d\u017a"),
    ("学习率 0.05", r"($\ldots$) 0.05"),
    ("カタカナ", r"($\ldots$)"),
    ("\U0001f600\U0001f600 ok", r"($\ldots$) ok"),
    ("\u202eevil\u202c", "evil"),
    ("zero\u200bwidth", "zerowidth"),
    ("lesson03-example", "lesson03-example"),
]

LATEX_ZH = [
    ("学习率 0.05", "学习率 0.05"),
    ("カタカナ", "カタカナ"),
    ("한국어 ok", r"($\ldots$) ok"),
    (r"\input{学}", r"\textbackslash{}input\{学\}"),
    ("η = 0.1,学习率", r"$\eta$ = 0.1,学习率"),
]

LATEX_MATH = [
    ("a_b", r"a\_b"),
    ("$x$", r"\textdollar{}x\textdollar{}"),
    (r"\write18", r"\textbackslash{}write18"),
    ("{x}", r"\{x\}"),
    ("100% #1 &", r"100\% \#1 \&"),
    ("<|>", r"\textless{}\textbar{}\textgreater{}"),
    ("^~", r"\textasciicircum{}\textasciitilde{}"),
    ("η", r"(\ldots)"),
    ("学 x", r"(\ldots) x"),
    ('"', '"'),
    ("`", "'"),
    ("'`", "'{}'"),
    ("a--b", "a-{}-b"),
    ("a\n\nb", "a b"),
]

MARKDOWN = [
    ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
    ("a & b &amp; &#60;", r"a &amp; b &amp;amp; &amp;\#60;"),
    ("# Heading", r"\# Heading"),
    ("x\n# Heading", r"x \# Heading"),
    ("x\n\n## H", r"x \#\# H"),
    ("title #", r"title \#"),
    ("- item", r"\- item"),
    ("+ item", r"\+ item"),
    ("1. item", r"1\. item"),
    ("2) item", r"2\) item"),
    ("---", r"\---"),
    ("- - -", r"\- - -"),
    ("==", r"\=="),
    ("-4", "-4"),
    ("5.75", "5.75"),
    ("a - b + c = d", "a - b + c = d"),
    ("> quote", "&gt; quote"),
    ("| a | b |", r"\| a \| b \|"),
    ("*em* _u_ **b**", r"\*em\* \_u\_ \*\*b\*\*"),
    ("[x](javascript:alert(1))", r"\[x\](javascript:alert(1))"),
    ("![i](x.png)", r"\!\[i\](x.png)"),
    ("`code`", r"\`code\`"),
    ("$x$ and $$y$$", r"\$x\$ and \$\$y\$\$"),
    (r"\(x\)", r"\\(x\\)"),
    (r"\input{secret}", r"\\input{secret}"),
    ("~~s~~ ^sup^", r"\~\~s\~\~ \^sup\^"),
    ("\x1b[31mred", r"\[31mred"),
    ("A\n\nB\r\nC", "A B C"),
    ("__", r"\_\_"),
    ("lesson03-example", "lesson03-example"),
    ("中文 (1,2)、η = 0.1", "中文 (1,2)、η = 0.1"),
    ("\u202eabc", "abc"),
]


@pytest.mark.parametrize("text,expected", CLEAN)
def test_clean_text(text, expected):
    assert clean_text(text) == expected


@pytest.mark.parametrize("text,expected", LATEX)
def test_latex(text, expected):
    assert escape_latex(text, "en") == expected


@pytest.mark.parametrize("text,expected", LATEX_ZH)
def test_latex_chinese(text, expected):
    assert escape_latex(text, "zh") == expected


@pytest.mark.parametrize("text,expected", LATEX_MATH)
def test_latex_in_math(text, expected):
    assert escape_latex(text, "en", math=True) == expected
    assert escape_latex(text, "zh", math=True) == expected


@pytest.mark.parametrize("text,expected", MARKDOWN)
def test_markdown(text, expected):
    assert escape_markdown(text) == expected


# ------------------------------------------------------------------------- running derive

RECORDS = "w = 1\nlr = 0.1\nrecords = [[2, 4]]\n"


def toml_string(text: str) -> str:
    """A TOML basic string holding `text` exactly."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def exercise_file(exercises: list[tuple[str, str, str]]) -> str:
    """(id, title, claimed prediction) per exercise: an sgd_step exercise each."""
    parts = []
    for ex_id, title, claim in exercises:
        parts.append(f"[[exercise]]\nid = {toml_string(ex_id)}\ntitle = {toml_string(title)}\n"
                     f'recipe = "sgd_step"\n\n[exercise.given]\n{RECORDS}\n'
                     f"[exercise.claims]\nprediction = {toml_string(claim)}\n")
    return "\n".join(parts)


def run_derive(*args: str) -> str:
    """What `derive ARGS -o OUT` writes (in-process, the file as written, not the terminal)."""
    from derive.cli.main import main

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out"
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main([*args, "-o", str(out)])
        assert code == 0, f"derive {' '.join(args)} exited {code}: {err.getvalue()}"
        return out.read_text(encoding="utf-8")


def outputs(exercises, name: str, command: str, fmt: str, lang: str) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(exercise_file(exercises), encoding="utf-8")
        extra = ["--standalone"] if command == "export" and fmt == "tex" else []
        return run_derive(command, str(path), "--format", fmt, "--lang", lang, *extra)


def plain(exercises):
    """The same exercises with plain author text: ids e0, e1, …, a plain title, the claim as a
    plain number of the same value."""
    return [(f"e{i}", "t", plain_claim(c)) for i, (_, _, c) in enumerate(exercises)]


def plain_claim(claim: str) -> str:
    return re.sub(r"\s+", "", claim)


# ------------------------------------------------------------------------------ TeX checks

def compile_log(source: str, engine: str) -> tuple[list[str], list[str]]:
    """(errors, characters without a glyph) of compiling `source` with `engine`."""
    exe = need(engine)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "doc.tex").write_text(source, encoding="utf-8")
        done = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error",
                               "-no-shell-escape", "doc.tex"], cwd=folder, capture_output=True,
                              text=True, errors="replace", timeout=300)
        log = (Path(folder) / "doc.log").read_text(encoding="utf-8", errors="replace")
        errors = [line for line in log.splitlines() if line.startswith("!")]
        if done.returncode != 0 and not errors:
            errors = [f"{engine} exited {done.returncode}"]
        missing = re.findall(r"Missing character: There is no (.+?) in font", log)
        if not errors and not (Path(folder) / "doc.pdf").exists():
            errors = ["no PDF"]
    return errors, missing


def control_words(tex: str) -> set[str]:
    """Every control sequence of a LaTeX source, read left to right (so `\\\\input` is `\\\\`
    then `input`, not `\\input`)."""
    return {m.group(1) for m in re.finditer(r"\\([A-Za-z]+|.)", tex, re.S)}


ESCAPE_WORDS = {"textbackslash", "textasciitilde", "textasciicircum", "textless", "textgreater",
                "textbar", "textquotedbl", "textasciigrave", "textdollar", "ldots", "hat",
                "{", "}", "$", "&", "#", "%", "_"}
MATH_WORDS = set().union(*(control_words(v) for v in MATH.values()))
DANGEROUS = ("input", "include", "write", "immediate", "openout", "openin", "read", "catcode",
             "def", "edef", "gdef", "xdef", "let", "csname", "special", "expandafter",
             "newcommand", "renewcommand", "endinput", "makeatletter", "par")


def assert_no_author_commands(tex: str, baseline: str) -> None:
    """No control sequence beyond those of the same document with plain author text, the
    escapes' text forms and the course's formula symbols; none of the dangerous ones."""
    words = control_words(tex)
    extra = words - control_words(baseline) - ESCAPE_WORDS - MATH_WORDS
    assert not extra, f"control sequences from author text: {sorted(extra)}"
    assert not words & set(DANGEROUS) - control_words(baseline), sorted(words & set(DANGEROUS))


def assert_same_shape(text: str, baseline: str) -> None:
    """Author text adds no line and no paragraph (blank line)."""
    assert text.count("\n") == baseline.count("\n"), "author text added or removed a line"
    assert len(re.findall(r"\n[ \t]*\n", text)) == len(re.findall(r"\n[ \t]*\n", baseline))


_TEX_TOKENS = re.compile(
    r"\\textbackslash\{\}|\\textasciitilde\{\}|\\textasciicircum\{\}|\\textless\{\}"
    r"|\\textgreater\{\}|\\textbar\{\}|\\textquotedbl\{\}|\\textasciigrave\{\}|\\[{}$&#%_]"
    r"|\\textdollar\{\}|\$-\$|\(\$\\ldots\$\)|\(\\ldots\)|\$\\hat\{[A-Za-z]\}\$|\{\}"
    r"|\\allowbreak\{\}"  # a break inside a long run of digits (layout.breakable): shows nothing
    r"|\$(?:" + "|".join(sorted(map(re.escape, set(MATH.values())), key=len, reverse=True))
    + r")\$|.", re.S)
_TEX_RAW = set("\\{}$&#^_~%<>|\"`")


def tex_skeleton(tex: str, math: bool = False) -> str:
    """The printable ASCII that an escaped LaTeX text shows, read by a strict reader of the
    escapes: a raw special character (`%`, `{`, `\\`, …) fails. A formula symbol and the (…)
    of what cannot be set read as U+FFFD, which is not ASCII. In `\\text{…}` in math (`math`),
    `"` is kept as it is (KaTeX has no `\\textquotedbl`)."""
    raw = _TEX_RAW - {'"'} if math else _TEX_RAW
    out = []
    for m in _TEX_TOKENS.finditer(tex):
        token = m.group(0)
        if len(token) == 1:
            assert token not in raw, f"raw {token!r} in {tex!r}"
            out.append(token)
        elif token.startswith("\\") and len(token) == 2:
            out.append(token[1])
        elif token == r"\allowbreak{}":
            continue
        elif token == "$-$":  # a minus sign before a number (derive.render.document.MINUS)
            out.append("-")
        elif token.startswith(r"$\hat"):
            out.append(token[6] + "\u0302")
        elif token.startswith("\\text"):
            out.append({"backslash": "\\", "asciitilde": "~", "asciicircum": "^", "less": "<",
                        "greater": ">", "bar": "|", "quotedbl": '"', "asciigrave": "`",
                        "dollar": "$"}
                       [token[5:-2]])
        elif token != "{}":
            out.append("\ufffd")
    return "".join(ch for ch in unicodedata.normalize("NFC", "".join(out)) if ch.isascii())


def clean(text: str) -> str:
    """What author text should read as, written apart from derive: NFC, white space (but the
    no-break and ideographic spaces) one space, control characters and bidirectional marks
    gone, trimmed."""
    text = re.sub(r"[^\S\u00a0\u3000]+", " ", unicodedata.normalize("NFC", text))
    text = re.sub("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", "",
                  text)
    return re.sub(" +", " ", text).strip(" ")


def ascii_of(text: str) -> str:
    return "".join(ch for ch in clean(text) if ch.isascii())


def heading_lines(tex: str) -> list[str]:
    """The exercises' headings: \\section* in an answer key, \\subsection* in an export."""
    return [line[line.index("{") + 1:-1] for line in tex.splitlines()
            if line.startswith((r"\section*{", r"\subsection*{"))]


def shown_title(title: str, lang: str) -> bool:
    """Whether a LaTeX heading shows the title: not when it is Chinese in an English document,
    nor when nothing of it is visible (only zero-width formatting characters)."""
    t = clean(title)
    visible = [c for c in t if unicodedata.category(c) != "Cf" or c in SETTABLE]
    return bool(visible) and (lang == "zh" or not has_cjk(t))


def expected_heading(ex_id: str, title: str, lang: str, sep: str) -> str:
    return ascii_of(ex_id) + (sep + ascii_of(title) if shown_title(title, lang) else "")


def allowed_missing(missing: list[str], lang: str) -> list[str]:
    """Characters without a glyph that are not excused: none in English; in Chinese only CJK
    ideographs and kana beyond the Fandol fonts' GB 2312."""
    if lang == "en":
        return missing
    return [m for m in missing if not (has_cjk(m[0]) or "\u3040" <= m[0] <= "\u30ff")]


# ------------------------------------------------------------------------- Markdown checks

_MD_TOKENS = re.compile(r"&lt;|&gt;|&amp;|\\[!-/:-@\[-`{-~]|.", re.S)
_MD_RAW = set("<>&\\`*_[]#|$~^!")


def md_unescape(md: str) -> str:
    """The text that escaped Markdown shows, read by a strict reader: a raw `<`, `&`, `*`, `$`,
    `[`, … fails."""
    out = []
    for m in _MD_TOKENS.finditer(md):
        token = m.group(0)
        if len(token) == 1:
            assert token not in _MD_RAW, f"raw {token!r} in {md!r}"
            out.append(token)
        elif token.startswith("&"):
            out.append({"&lt;": "<", "&gt;": ">", "&amp;": "&"}[token])
        else:
            out.append(token[1])
    return "".join(out)


def assert_markdown_safe(md: str, baseline: str, headings: list[str]) -> None:
    """Same lines and paragraphs as with plain author text; the headings show the author's
    text exactly; no raw HTML; KaTeX renders every math span, and there are as many as with
    plain author text."""
    assert_same_shape(md, baseline)
    lines = md.splitlines()
    assert [line.startswith("#") for line in lines] == \
        [line.startswith("#") for line in baseline.splitlines()]
    assert not re.search(r"<[A-Za-z!/?]", md), "raw HTML"
    assert not re.search(r"(?m)^ {0,3}(?:[-+*>]|\d{1,9}[.)])(?: |$)", md), \
        "a list or quote started"
    shown = [line.split(" ", 1)[1] for line in lines if line.startswith("## ")]
    assert [md_unescape(s) for s in shown] == headings
    spans = math_spans(md, "md")
    assert len(spans) == len(math_spans(baseline, "md")), "author text started a math span"
    failures = katex_failures(spans)
    assert not failures, failures[:3]


# ------------------------------------------------------------------------------ strategies

HOSTILE = [
    r"\input{secret}", r"\write18{touch pwned}", r"\catcode`\@=11", r"\def\x{}", r"\par",
    "\\", "{", "}", "}{", "$", "$$", "%", "#", "&", "^", "_", "~", "--", "''", ",,", "!`",
    "\n\n", "\r\n", "\t", "\u2028", "\x0c", "<script>alert(1)</script>", "<b>", "&amp;",
    "\x1b[31m", "\x00", "\x7f", "\x85", "\u202e", "\u200b", "# heading", "\n# h", "- item",
    "\n- ", "> quote", "| a | b |", "`code`", "[x](javascript:alert(1))", "![i](x)", "*em*",
    "1. ", "---", "===", "学习率", "カタ", "한", "η ≈ 0.1", "x\u0302", "\U0001f600", "café",
    "e\u0301", "\u00a0", "\u3000",
]
TEXT = st.lists(st.one_of(st.sampled_from(HOSTILE),
                          st.text(st.characters(blacklist_categories=("Cs",)), max_size=6)),
                max_size=6).map("".join)
IDS = st.one_of(st.sampled_from(["__", "_", ".", "..", "-", "--", "---", "a--b", "1.", "-1",
                                 "_a_", "a_b_c", "x" * 100]),
                st.text(sorted(ID_CHARS), min_size=1, max_size=100))
WHITESPACE = st.sampled_from([" ", "\n\n", "\t", "\u2028", "\x1c", "\x85", "\u3000", "\r\n"])
CLAIMS = st.one_of(
    st.builds(lambda a, s1, s2, b: f"{a}{s1}/{s2}{b}", st.integers(-99, 99), WHITESPACE,
              WHITESPACE, st.integers(1, 99)),
    st.sampled_from(["2", "-4", "0.5", "2.00", "1e0", "+2"]))
EXERCISES = st.lists(st.tuples(IDS, TEXT, CLAIMS), min_size=1, max_size=3,
                     unique_by=lambda e: e[0])
EVERYTHING = [("__", "".join(HOSTILE), "1\n\n/2"),
              ("-", "".join(h for h in HOSTILE if not has_cjk(h)), "-4"),
              ("x" * 100, "# h\n- x\n| a |\n", "2")]
"""Every hostile string at once (and once without Chinese, which an English LaTeX heading
leaves out): an explicit example of each property below."""
FILE_NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
                     min_size=1, max_size=30).filter(lambda s: len(s.encode()) < 200)


# ---------------------------------------------------------- properties of the functions

@examples(300)
@given(TEXT)
@example("".join(HOSTILE))
@example("(…)")
def test_any_text_escapes_to_text(text):
    """For any text: LaTeX with no control sequence but the escapes' and the formula symbols',
    no raw special character and every printable ASCII character kept; Markdown that reads
    back as the text; each one line."""
    for lang in ("en", "zh"):
        tex = escape_latex(text, lang)
        assert "\n" not in tex
        assert control_words(tex) <= ESCAPE_WORDS | MATH_WORDS
        # an author's own "(…)" is written as the (…) that stands for what cannot be set,
        # and reads as it (hypothesis drew "(…)", whose "()" the reader dropped)
        assert tex_skeleton(tex) == ascii_of(text.replace("(…)", "\ufffd"))
    math = escape_latex(text, "en", math=True)
    assert math.isascii() and "$" not in math and "\n" not in math
    assert control_words(math) <= ESCAPE_WORDS
    assert tex_skeleton(math, math=True) == ascii_of(text).replace("`", "'")
    md = escape_markdown(text)
    assert "\n" not in md
    assert md_unescape(md) == clean(text)
    # at the start of a line it would start no list, quote, heading, table row, thematic break
    # or setext underline (CommonMark's rules)
    assert not re.match(r" {0,3}(?:[-+*](?: |$)|\d{1,9}[.)](?: |$)|[>#|<]|[-=*_][-=*_ ]*$)", md)


def test_math_text_renders():
    """Author text in `\\text{…}` inside math (a given value shown as text): KaTeX in strict
    mode renders it, pdfLaTeX and XeLaTeX compile it."""
    texts = [escape_latex(h, "en", math=True) for h in HOSTILE + ["".join(HOSTILE)]]
    spans = [{"tex": rf"x = \text{{{t}}}", "display": True, "where": repr(h)}
             for t, h in zip(texts, HOSTILE + ["all"])]
    spans += [{"tex": rf"\texttt{{{t}}}", "display": False, "where": repr(h)}
              for t, h in zip(texts, HOSTILE + ["all"])]
    assert not katex_failures(spans)
    from derive.render.document import PREAMBLE

    for lang, engine in (("en", "pdflatex"), ("zh", "xelatex")):
        body = "\n\n".join(rf"\[ x = \text{{{t}}} \]" for t in texts)
        errors, missing = compile_log(PREAMBLE[lang] + "\\begin{document}\n" + body
                                      + "\n\\end{document}\n", engine)
        assert not errors and not missing, (engine, errors, missing)


# ------------------------------------------------------------------ properties of derive

@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_every_settable_character_compiles(lang, engine):
    """The characters `escape_latex` keeps (SETTABLE) and the formula symbols it sets as math,
    as author text in a document: both engines set every one, with a glyph."""
    from derive.render.document import Author, Document, Paragraph, to_tex

    chars = " ".join(sorted(c for c in SETTABLE if not c.isascii())) + " ".join(MATH)
    tex = to_tex(Document(Author(chars), (Paragraph(Author(chars)),), lang), standalone=True)
    assert r"($\ldots$)" not in tex  # nothing left out
    errors, missing = compile_log(tex, engine)
    assert not errors
    assert not missing


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_key_tex_of_hostile_exercises(lang, engine):
    """`derive key --format tex` of one file of every hostile string as ids and titles."""
    ids = ["__", "-", "a--b", "_a_", "1.", "x" * 100]
    titles = HOSTILE[: len(ids)] + ["".join(HOSTILE)]
    exercises = [(i, t, "2") for i, t in zip(ids + ["all"], titles)]
    check_key_tex(exercises, lang, engine)


@examples(10)
@given(EXERCISES)
@example(EVERYTHING)
def test_key_tex_compiles_with_pdflatex(exercises):
    check_key_tex(exercises, "en", "pdflatex")


@examples(10)
@given(EXERCISES)
@example(EVERYTHING)
@example([("0" * 30, "", "2")])  # an id of 30 digits: a break every ten (layout.breakable)
def test_key_tex_compiles_with_xelatex(exercises):
    check_key_tex(exercises, "zh", "xelatex")


def check_key_tex(exercises, lang: str, engine: str) -> None:
    tex = outputs(exercises, "ex.toml", "key", "tex", lang)
    baseline = outputs(plain(exercises), "ex.toml", "key", "tex", lang)
    assert_same_shape(tex, baseline)
    assert_no_author_commands(tex, baseline)
    assert [tex_skeleton(h) for h in heading_lines(tex)] == \
        [expected_heading(i, t, lang, " --- ") for i, t, _ in exercises]
    errors, missing = compile_log(tex, engine)
    assert not errors, errors[:3]
    assert not allowed_missing(missing, lang), missing


@examples(10)
@given(EXERCISES)
@example(EVERYTHING)
def test_key_markdown(exercises):
    for lang in ("en", "zh"):
        md = outputs(exercises, "ex.toml", "key", "md", lang)
        baseline = outputs(plain(exercises), "ex.toml", "key", "md", lang)
        assert_markdown_safe(md, baseline, [clean(i) + (" — " + clean(t)
                                                             if clean(t) else "")
                                            for i, t, _ in exercises])


@examples(10)
@given(FILE_NAMES, EXERCISES)
@example("x=\\input{secret}", EVERYTHING)
@example("".join(h for h in HOSTILE if "/" not in h and "\x00" not in h), EVERYTHING)
def test_export_of_a_hostile_file(name, exercises):
    """`derive export PATH`: the file's name titles the document, the claims are shown as
    written; LaTeX (pdfLaTeX) and Markdown (KaTeX)."""
    name = name + ".toml"
    tex = outputs(exercises, name, "export", "tex", "en")
    baseline = outputs(plain(exercises), "base.toml", "export", "tex", "en")
    assert_same_shape(tex, baseline)
    assert_no_author_commands(tex, baseline)
    (title,) = [line for line in tex.splitlines() if line.startswith(r"\begin{center}\Large")]
    assert tex_skeleton(title[len(r"\begin{center}\Large Derivation: "):-len(r"\end{center}")]) \
        == ascii_of(name)
    claims = [line for line in tex.splitlines() if line.startswith(r"\emph{claimed: ")]
    assert [tex_skeleton(c[len(r"\emph{claimed: "):].split(" — ")[0]) for c in claims] == \
        [ascii_of(c) for _, _, c in exercises]
    errors, missing = compile_log(tex, "pdflatex")
    assert not errors, errors[:3]
    assert not missing

    md = outputs(exercises, name, "export", "md", "en")
    md_baseline = outputs(plain(exercises), "base.toml", "export", "md", "en")
    assert md.splitlines()[0] == "# Derivation: " + escape_markdown(name)
    assert md_unescape(md.splitlines()[0][len("# Derivation: "):]) == clean(name)
    headings = [line for line in md.splitlines() if line.startswith("### ")]
    assert [md_unescape(h[4:]) for h in headings] == \
        [clean(i) + (" — " + clean(t) if clean(t) else "") for i, t, _ in exercises]
    claims = [line for line in md.splitlines() if line.startswith("*claimed: ")]
    assert [md_unescape(c[len("*claimed: "):].split(" — ")[0]) for c in claims] == \
        [MINUS.sub("\u2212", clean(c)) for _, _, c in exercises]  # −4: a real minus sign
    assert_markdown_safe(md.replace("### ", "## "), md_baseline.replace("### ", "## "),
                         [clean(i) + (" — " + clean(t) if clean(t) else "")
                          for i, t, _ in exercises])


def test_the_reported_attacks():
    """The attacks found by hand: a file name set as math (`x=\\input{secret}.toml`), an id of
    underscores, a title with a blank line, raw HTML and a heading in the Markdown."""
    exercises = [("__", "A\n\nB <script>alert(1)</script>\n# injected", "1\n\n/2")]
    tex = outputs(exercises, r"x=\input{secret}.toml", "export", "tex", "en")
    assert r"\input" not in tex.replace(r"\textbackslash{}input", "")
    assert r"Derivation: x=\textbackslash{}input\{secret\}.toml" in tex
    assert r"\subsection*{\_\_ --- A B \textless{}script\textgreater{}alert(1)" \
           r"\textless{}/script\textgreater{} \# injected}" in tex
    assert r"\emph{claimed: 1 /2 — wrong" in tex
    md = outputs(exercises, r"x=\input{secret}.toml", "export", "md", "en")
    assert md.startswith("# Derivation: x=\\\\input{secret}.toml\n")
    assert "### \\_\\_ — A B &lt;script&gt;alert(1)&lt;/script&gt; \\# injected\n" in md
    assert not any(line.startswith("# injected") for line in md.splitlines())
