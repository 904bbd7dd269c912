"""Question sheets (`derive export PATH --questions`): every bundled exercise file, in English
and Chinese, as Markdown and LaTeX.

- Every quantity the exercise asks for (those it claims, or every one its inputs determine
  when it claims none) is asked, numbered 1., 2., …, in the derivation's order, in the
  course's words (the quantity's doc in English, its Chinese name with --lang zh).
- No answer: no exact value, decimal or LaTeX of `derive key --format json` appears, unless
  the same number is written in the sheet anyway (a given, or a number of the recipe's own
  words such as the 2 of (ŷ − y)²/2).
- The LaTeX compiles (pdfLaTeX, XeLaTeX) and KaTeX renders every math span of the Markdown.
- Hostile ids, titles and file names (the strategies of tests/test_escaping.py) stay text.
- `derive export PATH` never loads the statements; `--format` choices come from
  derive/render/formats.py.

Set DERIVE_SKIP_RENDERERS=1 to skip the TeX and KaTeX runs (as in tests/test_export.py).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import tempfile
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from golden import ROOT
from hypothesis import assume, example, given
from support import examples, tier
from test_escaping import (
    EVERYTHING,
    EXERCISES,
    FILE_NAMES,
    HOSTILE,
    allowed_missing,
    ascii_of,
    assert_no_author_commands,
    assert_same_shape,
    clean,
    compile_log,
    exercise_file,
    expected_heading,
    heading_lines,
    md_unescape,
    plain,
    tex_skeleton,
)
from test_export import katex_failures, math_spans

from derive.cli.main import build_parser, main
from derive.exercises import load
from derive.recipes import RECIPES
from derive.render import formats
from derive.render.symbols import prose_latex, prose_markdown

FILES = sorted(p for p in [*(ROOT / "proofs" / "course").glob("*.toml"),
                           *(ROOT / "tests" / "data").glob("*.toml")]
               if p.name != "derive.toml")  # a bank's settings, no exercise
FORMS = [(lang, fmt) for lang in ("en", "zh") for fmt in ("md", "tex")]


def derive(*args: str) -> str:
    """What `derive ARGS` prints (in-process, from the repository root); it must exit 0."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        code = main(list(args))
    assert code == 0, f"derive {' '.join(args)} exited {code}: {err.getvalue()}"
    return out.getvalue()


def sheet(path: Path, lang: str, fmt: str, standalone: bool = True) -> str:
    args = ["export", str(path.relative_to(ROOT)), "--questions", "--format", fmt,
            "--lang", lang]
    return derive(*args, *(["--standalone"] if fmt == "tex" and standalone else []))


def key(path: Path) -> list[dict]:
    return json.loads(derive("key", str(path.relative_to(ROOT)), "--format", "json"))[
        "exercises"]


def asked(exercise: dict, toml: dict) -> list[str]:
    """What the exercise asks, from the file and the key, apart from derive's own rule: the
    claimed quantities in the key's order, or the whole key without claims."""
    claims = toml.get("claims", {})
    names = list(exercise["quantities"])
    return [n for n in names if n in claims] or names


def sections(text: str, fmt: str) -> list[str]:
    """The text of each exercise's section."""
    mark = r"(?m)^### " if fmt == "md" else r"(?m)^\\subsection\*\{"
    return re.split(mark, text)[1:]


def numbered(section: str, fmt: str) -> list[str]:
    """The numbered questions of one section, checking that they count 1, 2, …"""
    if fmt == "md":
        items = re.findall(r"(?m)^(\d+)\. (.*)$", section)
        assert [int(n) for n, _ in items] == list(range(1, len(items) + 1)), items
        return [text for _, text in items]
    (body,) = re.findall(r"\\begin\{enumerate\}\n(.*?)\n\\end\{enumerate\}", section, re.DOTALL)
    return re.findall(r"(?m)^  \\item (.*)$", body)


def code(name: str, fmt: str) -> str:
    return f"(`{name}`" if fmt == "md" else r"(\texttt{" + name.replace("_", r"\_") + "}"


def words(q, lang: str, fmt: str, recipe=None) -> str:
    """The quantity in the course's words, as the output sets prose (a graph recipe's words
    for its nodes)."""
    en, zh = recipe.words_of(q.name) if recipe is not None else (q.doc, "")
    text = zh if lang == "zh" and zh else en
    return prose_markdown(text) if fmt == "md" else prose_latex(text, cjk=(lang == "zh"))


# ------------------------------------------------------------------- numbers in a text

NUMBER = re.compile(r"\\frac\{(-?[0-9]+)\}\{([0-9]+)\}"
                    r"|(?<![0-9.])(-?[0-9]+(?:\.[0-9]+)?(?:/[0-9]+)?)(?![0-9]|\.[0-9])")


POWER = re.compile(r"(-?)(?:([0-9]+(?:\.[0-9]+)?) \\times )?10\^\{(-?[0-9]+)\}")
"""A number written in e-notation, as the Given line shows it: 10^{-6}, 2.5 \\times 10^{3}."""


def numbers(text: str) -> set[Fraction]:
    """Every number a text shows: integers, decimals, a/b, \\frac{a}{b} and powers of ten,
    with and without their sign (`-4` shows 4 too)."""
    out = set()
    for m in POWER.finditer(text):
        v = Fraction(m.group(2) or 1) * Fraction(10) ** int(m.group(3))
        out |= {-v if m.group(1) else v, v}
    text = POWER.sub(" ", text)
    for m in NUMBER.finditer(text.replace(r"\left", "").replace(r"- \frac", r"-\frac")):
        v = Fraction(int(m.group(1)), int(m.group(2))) if m.group(1) else Fraction(m.group(3))
        out |= {v, abs(v)}
    return out


def flat(v) -> list:
    if isinstance(v, dict):
        v = list(v.values())
    return [y for x in v for y in flat(x)] if isinstance(v, list) else [v]


def answers(quantity: dict) -> tuple[set[Fraction], list[str]]:
    """(rational values, strings of the irrational ones) of a key entry."""
    rational, other = set(), []
    for exact, decimal in zip(flat(quantity["exact"]), flat(quantity["decimal"])):
        try:
            rational.add(Fraction(exact))
        except ValueError:
            other += [exact, decimal]
    if other:
        other.append(quantity["latex"])
    return rational, other


def round_half_away(v: Fraction, places: int) -> Fraction:
    scale = 10 ** places
    return Fraction(int(abs(v) * scale + Fraction(1, 2)), scale)


def recipe_numbers(name: str, lang: str, fmt: str) -> set[Fraction]:
    """The numbers of a recipe's own words and formulas, as a sheet sets them."""
    out = set()
    for q in RECIPES[name].quantities:
        out |= numbers(words(q, lang, fmt)) | numbers(words(q, lang, fmt, RECIPES[name]))
    return out


def given_numbers(toml: dict) -> set[Fraction]:
    """The numbers of the givens as the file writes them, and of every input derive reads
    (defaults included: an optimizer's dampening=0)."""
    out = set()
    for v in flat(list(toml.get("given", {}).values())):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out |= {Fraction(repr(v)), abs(Fraction(repr(v)))}
        elif isinstance(v, str):
            out |= numbers(v)
    return out | DEFAULTS.get(toml["id"], set())


DEFAULTS = {ex.id: {n for v in ex.given.values() if v is not None for n in numbers(str(v))}
            for ex in load([str(p) for p in FILES])}
"""Every exercise's inputs as derive reads them, by id."""


# -------------------------------------------------------------------- the bundled files

@pytest.fixture(scope="module")
def keys():
    return {path: key(path) for path in FILES}


@pytest.mark.parametrize("lang,fmt", FORMS)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_asked_quantity_is_numbered(path, lang, fmt, keys):
    tables = tomllib.loads(path.read_text(encoding="utf-8"))["exercise"]
    text = sheet(path, lang, fmt)
    found = sections(text, fmt)
    assert len(found) == len(tables) == len(keys[path])
    for exercise, toml, section in zip(keys[path], tables, found):
        recipe = RECIPES[exercise["recipe"]]
        names = asked(exercise, toml)
        items = numbered(section, fmt)
        assert len(items) == len(names), (exercise["id"], items, names)
        for name, item in zip(names, items):
            assert code(name, fmt) not in item, (exercise["id"], name, item)  # no internal name
            assert words(recipe.quantity(name), lang, fmt, recipe) in item, (exercise["id"], item)


PRECISION = re.compile(
    r"\((?:[0-9]+ decimal places?|[0-9]+ significant figures?|within (?:a relative )?[0-9e./-]+)\)"
    r"|(保留 [0-9]+ 位(?:小数|有效数字)|(?:相对)?误差不超过 [0-9e./-]+)")
"""The precision a question states (hand-written from the sheet's words)."""


@pytest.mark.parametrize("lang,fmt", FORMS)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_answer_is_shown(path, lang, fmt, keys):
    tables = tomllib.loads(path.read_text(encoding="utf-8"))["exercise"]
    text = sheet(path, lang, fmt)
    for exercise, toml, section in zip(keys[path], tables, sections(text, fmt)):
        section = re.sub(r"(?m)^[0-9]+\. ", "", section)  # the questions' own numbers
        section = PRECISION.sub("", section)  # "to 4 significant figures": not an answer
        values = {abs(v) for q in exercise["quantities"].values() for v in answers(q)[0]}
        allowed = (given_numbers(toml) | numbers(toml["id"])
                   | recipe_numbers(exercise["recipe"], lang, fmt))
        allowed |= numbers(toml.get("title", "")) - values  # a title's numbers but answers
        shown = numbers(section)
        assert shown <= allowed, (f"{exercise['id']}: numbers that are neither givens nor the "
                                  f"recipe's words: {sorted(shown - allowed)}")
        for name, quantity in exercise["quantities"].items():
            rational, other = answers(quantity)
            leaked = (rational & shown) - allowed
            assert not leaked, f"{exercise['id']}: {name} = {sorted(leaked)} is shown"
            for s in other:
                assert s not in section, f"{exercise['id']}: {name} = {s} is shown"
        for m in re.finditer(r"(?<![0-9.])([0-9]+)\.([0-9]+)(?![0-9])", section):
            places, shown_value = len(m.group(2)), Fraction(m.group(0))
            if shown_value in given_numbers(toml):
                continue
            rounded = {round_half_away(v, places) for v in values}
            assert shown_value not in rounded, \
                f"{exercise['id']}: {m.group(0)} is an answer rounded to {places} places"
        for s in toml.get("claims", {}).values():  # the claims as written, too
            for v in flat(s if not isinstance(s, dict) else s.get("value")):
                written = v if isinstance(v, str) else repr(v)
                if len(written) > 3 or Fraction(written) not in allowed:
                    assert not re.search(r"(?<![\w.])" + re.escape(written) + r"(?![\w.])",
                                         section), f"{exercise['id']}: claim {written} shown"


@pytest.mark.parametrize("lang,engine", tier([("en", "pdflatex"), ("zh", "xelatex")],
                                             always=[("en", "pdflatex")]))
def test_sheets_compile(lang, engine):
    """Every bundled file's sheet in one document, compiled by the engine of its language."""
    texts = [sheet(path, lang, "tex", standalone=False) for path in FILES]
    whole = sheet(FILES[0], lang, "tex")
    source = whole.replace("\\end{document}", "\n\\clearpage\n".join(texts) + "\n\\end{document}")
    errors, missing = compile_log(source, engine)
    assert not errors, errors[:3]
    assert not allowed_missing(missing, lang), missing


def test_sheets_render_with_katex():
    spans = []
    for lang in ("en", "zh"):
        for path in FILES:
            spans += math_spans(sheet(path, lang, "md"), f"{path.name} ({lang})")
    assert len(spans) > 100
    failures = katex_failures(spans)
    assert not failures, "\n".join(f"{f['where']}: {f['error']}\n  {f['tex']}"
                                   for f in failures[:5])


def test_a_sheet_by_hand():
    """lesson03-ex1 claims five of the recipe's six quantities: five questions (no
    `prediction_new`); a title that states an answer is left out."""
    md = derive("export", "proofs/course/lesson03.toml", "--questions", "--format", "md")
    assert md.startswith("# Questions: lesson03.toml\n")
    assert "### lesson03-ex1 — 学习率改为 0.05\n\nGiven:\n\n$$\nw = 1,\\quad \\eta = 0.05," \
           "\\quad \\text{records} = \\left[\\left[2, 4\\right]\\right]\n$$\n\nCompute:\n\n" \
           "1. Prediction of each record: $\\hat{y}_{i} = ?$ (exact)\n" in md
    assert "\n4. The weight after the step: $w' = ?$ (exact)\n" \
           "5. Batch loss at the new parameters: $L' = ?$ (exact)\n\n" \
           "### lesson03-two-records\n" in md
    zh = derive("export", "proofs/course/lesson03.toml", "--questions", "--format", "md",
                "--lang", "zh")
    assert "求:\n\n1. 每条记录的预测: $\\hat{y}_{i} = ?$ (精确值)\n" \
           "2. 批损失: $L = ?$ (精确值)\n3. 对 w 的梯度: $g = ?$ (精确值)\n" \
           "4. 更新后的权重: $w' = ?$ (精确值)\n" \
           "5. 新参数下的批损失: $L' = ?$ (精确值)\n" in zh
    # the GiB the lesson writes to 3 places, declared ([exercise.ask.state_gib] places = 3)
    assert "3. 状态 GiB: $M_{\\mathrm{GiB}} = ?$ (保留 3 位小数)\n" in derive(
        "export", "proofs/course/lesson03-memory.toml", "--questions", "--format", "md",
        "--lang", "zh")
    memory = derive("export", "proofs/course/lesson03-memory.toml", "--questions", "--format",
                    "md", "--lang", "zh")
    assert "### lesson03-ledger\n" in memory and "14.901" not in memory  # 约 14.901GiB
    assert "### lesson03-ex3 — 为 20 亿参数建立完整状态账,另计 3GiB 激活\n" in memory


# -------------------------------------------------------------------- hostile author text

def hostile_sheets(exercises, name: str, fmt: str, lang: str) -> tuple[str, str]:
    """The sheet of a file of sgd_step exercises with these (id, title, claim), and of the
    same file with plain author text."""
    out = []
    for exs, file_name in ((exercises, name), (plain(exercises), "base.toml")):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / file_name
            path.write_text(exercise_file(exs), encoding="utf-8")
            args = ["export", str(path), "--questions", "--format", fmt, "--lang", lang]
            out.append(derive(*args, *(["--standalone"] if fmt == "tex" else [])))
    return out[0], out[1]


def check_hostile(name: str, exercises) -> None:
    name = name + ".toml"
    for lang, engine in (("en", "pdflatex"), ("zh", "xelatex")):
        tex, baseline = hostile_sheets(exercises, name, "tex", lang)
        assert_same_shape(tex, baseline)
        assert_no_author_commands(tex, baseline)
        assert [tex_skeleton(h) for h in heading_lines(tex)] == \
            [expected_heading(i, t, lang, " --- ") for i, t, _ in exercises]
        (title,) = [line for line in tex.splitlines()
                    if line.startswith(r"\begin{center}\Large")]
        shown = title[len(r"\begin{center}\Large "):-len(r"\end{center}")].split(": ", 1)[1]
        if lang == "en":
            assert tex_skeleton(shown) == ascii_of(name)
        assert [len(numbered(s, "tex")) for s in sections(tex, "tex")] == [1] * len(exercises)
        errors, missing = compile_log(tex, engine)
        assert not errors, errors[:3]
        assert not allowed_missing(missing, lang), missing

        md, md_baseline = hostile_sheets(exercises, name, "md", lang)
        assert_same_shape(md, md_baseline)
        first = md.splitlines()[0]
        assert md_unescape(first.split(": ", 1)[1]) == clean(name)
        headings = [line[4:] for line in md.splitlines() if line.startswith("### ")]
        assert [md_unescape(h) for h in headings] == \
            [clean(i) + (" — " + clean(t) if clean(t) else "") for i, t, _ in exercises]
        assert not re.search(r"<[A-Za-z!/?]", md), "raw HTML"
        assert [len(numbered(s, "md")) for s in sections(md, "md")] == [1] * len(exercises)
        spans = math_spans(md, "md")
        assert len(spans) == len(math_spans(md_baseline, "md")), "author text started math"
        failures = katex_failures(spans)
        assert not failures, failures[:3]


@examples(3, slow=8)
@given(FILE_NAMES, EXERCISES)
@example("x=\\input{secret}", EVERYTHING)
@example("".join(h for h in HOSTILE if "/" not in h and "\x00" not in h), EVERYTHING)
def test_hostile_ids_titles_and_names_stay_text(name, exercises):
    """The claim is asked (`prediction`), never shown: one question per exercise."""
    assume(not any(_states_an_answer(t) for _, t, _ in exercises))
    check_hostile(name, [(i, t, c) for i, t, c in exercises])


ANSWERS = (Fraction("1.4"), Fraction("0.72"))
"""The values of test_escaping's exercise (w = 1, η = 0.1, record (2, 4)) that are not givens,
by hand: w' = 1 − 0.1·(2 − 4)·2 = 1.4, L' = (1.4·2 − 4)²/2 = 0.72."""


def _states_an_answer(title: str) -> bool:
    """Whether a title writes one of ANSWERS, exactly or rounded to its places (a sheet leaves
    such a title out; docs/export.md)."""
    for m in re.finditer(r"\d+(?:\.\d+)?", title):
        written = Fraction(m.group(0))
        places = len(m.group(0).split(".")[1]) if "." in m.group(0) else 0
        for v in ANSWERS:
            scaled = v * 10 ** places
            rounded = Fraction(int(scaled + Fraction(1, 2)), 10 ** places)
            if written == v or (places and written == rounded):
                return True
    return False


# --------------------------------------------------------------- export without statements

def test_export_of_a_file_never_loads_the_statements(monkeypatch, tmp_path):
    """An invalid statement file stops neither the derivations nor the sheet of an exercise
    file: a path, even a bare name written like an id, is decided without them."""
    from derive.statements import registry

    def broken(*args):
        raise AssertionError("the statements were loaded")

    monkeypatch.setattr(registry, "all_statements", broken)
    monkeypatch.setattr(registry, "select", broken)
    for name in [m for m in sys.modules if m.startswith("derive.proofs.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [NoProofs(), *sys.meta_path])
    for extra in ([], ["--questions"]):
        assert derive("export", "proofs/course/lesson03.toml", "--format", "md", *extra)
        assert derive("export", "proofs/course", "--format", "md", *extra)
    (tmp_path / "lesson").write_text((ROOT / "proofs/course/lesson03.toml").read_text())
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main(["export", "lesson", "--questions", "--format", "md"]) == 0, err.getvalue()
    assert out.getvalue().startswith("# Questions: lesson\n")


class NoProofs:
    """An import of any statement module fails."""

    def find_spec(self, name, path=None, target=None):
        if name.startswith("derive.proofs."):
            raise AssertionError(f"{name} was imported")


def test_an_id_that_is_also_a_file_is_refused(monkeypatch, tmp_path, capsys):
    (tmp_path / "A2").write_text((ROOT / "proofs/course/lesson03.toml").read_text())
    monkeypatch.chdir(tmp_path)
    assert main(["export", "A2", "--questions"]) == 2
    assert "'A2' is both a statement id and a file here; write ./A2 for the file" in \
        capsys.readouterr().err
    assert main(["export", "./A2", "--questions", "--format", "md"]) == 0
    assert capsys.readouterr().out.startswith("# Questions: A2\n")


def test_a_statement_has_no_sheet(capsys):
    assert main(["export", "A2", "--questions"]) == 2
    assert "is a statement, which has no question sheet" in capsys.readouterr().err


def test_the_statement_ids_are_read_without_importing():
    from derive.statements.registry import all_statements, statement_ids

    assert statement_ids() == [s.id for s in all_statements()]


# -------------------------------------------------------------------------- the formats

def test_format_choices_come_from_the_registry():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for command in formats.FORMATS:
        (fmt,) = [a for a in sub.choices[command]._actions if a.dest == "format"]
        assert tuple(fmt.choices) == formats.choices(command)
        assert fmt.default == formats.default(command)
