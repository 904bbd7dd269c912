"""One number display: `derive.render.numbers` against hand-written strings, its rounding
against `fractions.Fraction`, and the answer key's three renderings (Markdown, LaTeX, the
notebook) showing the same quantities with the same numbers."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
from fraction_reference import half_away
from hypothesis import given
from hypothesis import strategies as st

from derive.cli.main import main
from derive.exercises import check_exercise, load
from derive.render import numbers as n
from derive.render.document import Document, Paragraph, Table, to_text

ROOT = Path(__file__).resolve().parents[1]
R = sp.Rational
SURDS = sum(sp.sqrt(p) for p in (2, 3, 5, 7, 11, 13, 17, 19))
"""A closed form longer than Style.large as text; its value is 23.4322642934840758735…
(mpmath at 40 digits)."""

# ------------------------------------------------------------------------ the rules, by hand

NUMBER_LATEX = [
    (0, "0"),
    (5, "5"),
    (-4, "-4"),
    (10**40, "1" + "0" * 40),
    (-(10**40) - 1, "-1" + "0" * 39 + "1"),
    (R(6, 5), "1.2"),
    (R(-6, 5), "-1.2"),
    (R(1, 64), "0.015625"),          # 6 places: still a decimal
    (R(1, 128), r"\frac{1}{128}"),   # 7 places: a fraction
    (R(14, 3), r"\frac{14}{3}"),
    (R(-14, 3), r"-\frac{14}{3}"),
    (sp.sqrt(2), r"\sqrt{2}"),
    (-sp.sqrt(2) / 2, r"-\frac{\sqrt{2}}{2}"),  # the reader form (tests/test_reader_form.py)
]


@pytest.mark.parametrize("value, text", NUMBER_LATEX)
def test_number_latex(value, text):
    assert n.number_latex(value) == text


def test_number_latex_without_decimals():
    assert n.number_latex(R(6, 5), decimals=False) == r"\frac{6}{5}"
    assert n.number_latex(R(-1, 4), decimals=False) == r"-\frac{1}{4}"


APPROX = [
    (R(14, 3), r"\approx 4.666667"),
    (R(-14, 3), r"\approx -4.666667"),
    (R(2, 3), r"\approx 0.666667"),
    (R(1, 128), r"\approx 0.007813"),       # 0.0078125: half away from zero
    (R(-1, 128), r"\approx -0.007813"),
    (R(1, 3 * 10**7), r"\approx 0.000000"),
    (R(6, 5), None),
    (5, None),
    (sp.sqrt(2), r"\approx 1.414214"),       # 7 significant digits
    (-sp.sqrt(2) / 2, r"\approx -0.707107"),
    ([R(1, 2), R(1, 3)], r"\approx \left[0.5, 0.333333\right]"),
    ([[1, R(2, 3)], [5]], r"\approx \left[\left[1, 0.666667\right], \left[5\right]\right]"),
    ([1, R(5, 2)], None),
]


@pytest.mark.parametrize("value, text", APPROX)
def test_approx_latex(value, text):
    assert n.approx_latex(value) == text


EXACT_LATEX = [
    (R(-14, 3), r"-\frac{14}{3}"),
    ([R(1, 2), [R(-1, 3), 2]], r"\left[0.5, \left[-\frac{1}{3}, 2\right]\right]"),
    (SURDS, r"\approx 23.432264"),         # too long to show: rounded to 6 places
    ([SURDS, 1], r"\left[\approx 23.432264, 1\right]"),
]


@pytest.mark.parametrize("value, text", EXACT_LATEX)
def test_exact_latex(value, text):
    assert n.exact_latex(value) == text


RESULT = [
    (R(14, 3), r"\frac{14}{3} \approx 4.666667"),
    (R(-3, 2), "-1.5"),
    (SURDS, r"\approx 23.432264"),
    ([R(1, 3), 1], r"\left[\frac{1}{3}, 1\right] \approx \left[0.333333, 1\right]"),
]


@pytest.mark.parametrize("value, text", RESULT)
def test_result_latex(value, text):
    assert n.result_latex(value) == text


DECIMAL = [
    (0, "0"),
    (-4, "-4"),
    (R(1, 8), "0.125"),
    (R(1, 3), "0.333333333333333"),
    (R(2, 3), "0.666666666666667"),
    (R(-2, 3), "-0.666666666666667"),
    (R(1, 7000), "0.000142857142857143"),    # 15 significant digits after the zeros
    (R(123456789, 1000), "123456.789"),
    (10**20, "100000000000000000000"),
    (-(10**20) - R(1, 3), "-100000000000000000000"),
    (sp.sqrt(2), "1.4142135623731"),          # 1.41421356237310: the trailing zero dropped
]


@pytest.mark.parametrize("value, text", DECIMAL)
def test_decimal_text(value, text):
    assert n.decimal_text(value) == text


FLAT = [
    (5, "5"),
    (R(-1, 4), "-1/4 ≈ -0.25"),
    (R(14, 3), "14/3 ≈ 4.66666666666667"),
    (sp.sqrt(2), "√2 ≈ 1.4142135623731"),
    ([R(1, 2), [1, R(2, 3)]], "[1/2, [1, 2/3]] ≈ [0.5, [1, 0.666666666666667]]"),
    ([1, [2, [3]]], "[1, [2, [3]]]"),
    (SURDS, "≈ 23.4322642934841"),       # 23.43226429348407587…
]


@pytest.mark.parametrize("value, text", FLAT)
def test_flat(value, text):
    assert n.flat(value) == text


def test_decimal_line_keeps_every_bracket():
    assert n.decimal_line([R(1, 2), -1]) == "[0.5, -1]"
    assert n.decimal_line([[R(3, 5), R(4, 5)], [sp.sqrt(2) / 2]]) == \
        "[[0.6, 0.8], [0.707106781186548]]"
    assert n.decimal_line(R(-7, 2)) == "-3.5"


def test_json_forms():
    assert n.exact_text([R(-14, 3), [5]]) == ["-14/3", ["5"]]
    assert n.decimal_text([R(1, 3)]) == ["0.333333333333333"]
    assert n.latex_text(R(6, 5)) == r"\frac{6}{5}"
    assert n.latex_text([1, R(-2, 3)]) == r"\left[1, - \frac{2}{3}\right]"


def test_another_style():
    three = n.Style(places=3, terminating=3)
    assert n.rounded_text(R(1953125, 131072), three) == "14.901"
    assert n.rounded_text(R(1, 2), three) == "0.5"
    assert n.rounded_text(R(-2, 3), three) == "-0.667"
    assert n.rounded_text(R(1, 16), three) == "0.063"     # 0.0625: half away from zero
    assert n.approx_latex(R(1, 16), three) == r"\approx 0.063"
    assert n.number_latex(R(1, 16), style=three) == r"\frac{1}{16}"
    assert n.bracketed(["1", ["2"]], n.Style(brackets=("(", ")"))) == "(1, (2))"


def test_the_rule_is_stated_from_the_settings():
    assert n.rounding_rule("en") == ("Decimals after ≈ are rounded half away from zero to 6 "
                                     "places; exact values are fractions.")
    assert "保留 3 位" in n.rounding_rule("zh", n.Style(places=3))
    assert n.key_rounding_rule("en") == (
        "Exact values are integers, decimals that end within 6 places, or fractions; decimals "
        "are rounded half away from zero to 15 significant digits.")


def test_style_is_frozen():
    with pytest.raises(AttributeError):
        n.STYLE.places = 3  # type: ignore[misc]


# ------------------------------------------------------------------- rounding, by Fraction

RATIONALS = st.builds(Fraction, st.integers(-(10**25), 10**25), st.integers(1, 10**12))


@given(RATIONALS)
def test_the_decimal_after_approx_is_rounded_half_away_from_zero(x):
    shown = n.approx_decimal(R(x.numerator, x.denominator))
    if shown is None:  # a decimal that ends within 6 places: shown exact, no ≈
        assert half_away(x, 6) == x
        return
    _, _, frac = shown.partition(".")
    assert len(frac) == 6
    assert Fraction(shown) == half_away(x, 6)


@given(RATIONALS)
def test_the_decimal_column_is_good_to_15_significant_digits(x):
    shown = n.decimal_text(R(x.numerator, x.denominator))
    if x == 0:
        assert shown == "0"
        return
    e = 0  # 10^(e-1) <= |x| < 10^e
    while abs(x) >= Fraction(10) ** e:
        e += 1
    while abs(x) < Fraction(10) ** (e - 1):
        e -= 1
    assert Fraction(shown) == half_away(x, max(15 - e, 0))


# ------------------------------------------------ the key's three renderings agree

def _cli(*argv) -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([str(a) for a in argv]) == 0
    return out.getvalue()


def _split(text: str, sep: str) -> list[str]:
    return [c.strip() for c in re.split(rf"(?<!\\){re.escape(sep)}", text)]


def _math(cell: str) -> str:
    cell = cell.replace(r"\raggedright ", "").strip()
    assert cell.startswith("$") and cell.endswith("$"), cell
    return cell[1:-1]


MD_NOTE = re.compile(r"\$\$\n(?:\\begin\{aligned\}\n)?(?:& )?\\text\{\((\d+)\)\}\\quad (.*?)\n"
                     r"(?:\\end\{aligned\}\n)?\$\$", re.S)
"""A math cell moved below a Markdown table (→ (k)), on one row or broken over several."""


MD_TEXT_NOTE = re.compile(r"^\((\d+)\) (.+?)(?=\n\n|\Z)", re.M | re.S)
"""A text cell (a long list of decimals) moved below a Markdown table, wrapped at spaces."""


def _md_note(tex: str) -> str:
    """A moved cell's LaTeX with the rows it was broken into joined back."""
    rows = [re.sub(r"^& (\\quad )?", "", r.strip()) for r in tex.split(" \\\\\n")]
    rows = [re.sub(r"(\s*\\right\.)+$", "", re.sub(r"^(\\left\.\s*)+", "", r)) for r in rows]
    return " ".join(rows).replace("\n", " ")


def markdown_key(md: str) -> dict:
    """{(id, quantity): (exact LaTeX, decimal)} read from a Markdown key; a math cell moved
    below a long table row (→ (k)) is read from its numbered display."""
    rows, ex, pending, notes = {}, None, [], {}
    for line in md.splitlines():
        if line.startswith("## "):
            ex, notes = line[3:].split(" — ")[0].replace("\\", ""), {}
            pending.append(notes)
        elif line.startswith("| ") and ex and not line.startswith("| ---"):
            cells = _split(line, "|")[1:-1]
            names = re.findall(r"`([^`]+)`", cells[0])
            if names:
                rows[ex, names[-1]] = (cells[2], cells[3], notes)
    for block in md.split("\n## ")[1:]:
        ex = block.split("\n", 1)[0].split(" — ")[0].replace("\\", "")
        for m in MD_NOTE.finditer(block):
            for key, (exact, decimal, _) in rows.items():
                if key[0] == ex and exact == rf"$\to$ ({m.group(1)})":
                    rows[key] = (f"${_md_note(m.group(2))}$", decimal, None)
        for m in MD_TEXT_NOTE.finditer(block):  # a long decimal list, wrapped at spaces
            for key, (exact, decimal, moved) in rows.items():
                if key[0] == ex and decimal == rf"$\to$ ({m.group(1)})":
                    rows[key] = (exact, m.group(2).replace("\n", " "), moved)
    return {k: (_math(e).replace(r"\vert ", "|"), d) for k, (e, d, _) in rows.items()}


def tex_key(tex: str) -> dict:
    """{(id, quantity): (exact LaTeX, decimal)} read from a LaTeX key; a math cell moved
    below a wide table (→ (k)) is read from its numbered display."""
    rows, ex = {}, None
    pending = []
    for line in tex.splitlines():
        heading = re.match(r"\\(?:sub)?section\*\{(.*)\}$", line)
        note = re.match(r"\\\[ \\text\{\((\d+)\)\}\\quad (.*) \\\]$", line)
        if heading:
            ex = heading.group(1).split(" --- ")[0].replace(r"\_", "_")
        elif note:
            for _key, i, cells in pending:
                if cells[i] == rf"$\to$\,({note.group(1)})":
                    cells[i] = f"${note.group(2)}$"
        elif ex and " & " in line and r"\textbf" not in line:
            body = re.sub(r"\s*(\\\\|\\tabularnewline)$", "", line)
            cells = [c.replace(r"\raggedright ", "") for c in _split(body, "&")]
            name = re.findall(r"\\texttt\{([^}]*)\}", cells[0])[-1].replace(r"\_", "_")
            pending.append(((ex, name), 2, cells))
    for key, _, cells in pending:
        rows[key] = (_math(cells[2]), cells[3])
    return rows


def _value(tex: str):
    """The exact value of a shown LaTeX number or list; None for a closed form."""
    tex = tex.strip()
    if tex.startswith(r"\left[") and tex.endswith(r"\right]"):
        inner, depth, parts, start = tex[len(r"\left["):-len(r"\right]")], 0, [], 0
        for m in re.finditer(r"\\left\[|\\right\]|, ", inner):
            if m.group() == r"\left[":
                depth += 1
            elif m.group() == r"\right]":
                depth -= 1
            elif depth == 0:
                parts.append(inner[start:m.start()])
                start = m.end()
        parts.append(inner[start:])
        return [_value(p) for p in parts]
    m = re.fullmatch(r"(-?)\\frac\{(\d+)\}\{(\d+)\}", tex)
    if m:
        return Fraction(int(m.group(2)), int(m.group(3))) * (-1 if m.group(1) else 1)
    if re.fullmatch(r"-?\d+(\.\d+)?", tex):
        return Fraction(tex)
    return None


def _exact(v):
    if isinstance(v, (list, tuple)):
        return [_exact(x) for x in v]
    e = sp.sympify(v)
    return Fraction(int(e.p), int(e.q)) if e.is_Rational else None


KEY_FILES = [ROOT / "proofs" / "course", ROOT / "tests" / "data" / "mistakes.toml"]

EXTRA = """
[[exercise]]
id = "signs-and-surds"
recipe = "clipping"
[exercise.given]
gradients = [[[3, -4], [2]], [[-1, 1], [-7]]]
max_norm = 1

[[exercise]]
id = "negative-thirds"
recipe = "sgd_step"
[exercise.given]
w = -1
lr = "1/7"
records = [[3, 1], [-2, 5]]
"""


def test_md_tex_and_notebook_keys_show_the_same_numbers(tmp_path):
    from derive import notebook

    extra = tmp_path / "extra.toml"
    extra.write_text(EXTRA, encoding="utf-8")
    paths = [*KEY_FILES, extra]
    reports = [check_exercise(ex) for ex in load(paths)]
    values = {(r.exercise.id, k): v for r in reports for k, v in r.values.items()}
    for lang in ("en", "zh"):
        md = _cli("key", *paths, "--lang", lang)
        tex = _cli("key", *paths, "--format", "tex", "--lang", lang)
        nb = notebook.key(*map(str, paths), lang=lang)
        keys = {"md": markdown_key(md), "tex": tex_key(tex),
                "notebook md": markdown_key(nb._repr_markdown_()),
                "notebook tex": tex_key(nb._repr_latex_())}
        for what, got in keys.items():
            assert set(got) == set(values), what
            for key, (exact, decimal) in got.items():
                assert exact == keys["md"][key][0], (what, key)
                assert decimal == keys["md"][key][1], (what, key)
                assert _value(exact) == _exact(values[key]), (what, key, exact)
                assert decimal == n.decimal_line(values[key]), (what, key)
        assert md == nb._repr_markdown_()
    # the exact values parsed above cover rationals, lists, nested lists and negatives
    parsed = [_value(e) for e, _ in markdown_key(md).values()]
    assert any(isinstance(p, list) and isinstance(p[0], list) for p in parsed)
    assert any(isinstance(p, Fraction) and p < 0 and p.denominator > 1 for p in parsed)


# ------------------------------------------------------------------------ the text renderer

def test_to_text_aligns_tables_and_escapes_author_text():
    from derive.render.document import Author, Heading

    doc = Document("", (
        Heading((Author("ex\x1b[31m1"), " (sgd_step) ok"), 1, "a\nb"),
        Paragraph("note"),
        Table(("a", "bb", "c"), (("xxx", Author("\u202e1"), "last column"), ("y", "2", ""))),
        Heading(Author("ex2"), 1),
        Paragraph("(no claims)"),
    ), end=(Paragraph("summary"),))
    lines = [
        r"ex\x1b[31m1 (sgd_step) ok — a\nb",
        "  note",
        "  a    bb       c",
        r"  xxx  \u202e1  last column",
        "  y    2",
        "",
        "ex2",
        "  (no claims)",
        "",
        "summary",
    ]
    assert to_text(doc) == "\n".join(lines)
