"""Every export of every bank compiles, whatever a message holds (issue 34, item 5).

Two tiers (tests/support.py `tier`): with DERIVE_SLOW=1 every exercise file of every bank —
proofs/course, docs/examples, benchmarks/bank24, benchmarks/heldout24, benchmarks/lessons05 — is
exported as standalone LaTeX and compiled, pdfLaTeX for English and XeLaTeX for Chinese, and as
Markdown whose every math span KaTeX renders; by default a fixed sample, so that `make test`
stays fast.

Then the same files made hostile: every author string a file allows — the exercise's id (within
its alphabet) and title, each defined quantity's words (title, title_zh), a declared mistake's
words (en, zh), the file's own name — replaced by text that would break an unescaped output
(`}{\\end{document}`, `\\input{/etc/passwd}`, `$x$ $$`, `<script>`, unbalanced braces, a
600-character word, Chinese, combining characters, bidirectional marks, control characters),
and the claims planted wrong so that every kind of diagnosis appears: a mistake named (the
declared one, whose words are shown), a tie, a mistake offered, an error carried forward, and
no known mistake. The exports must compile and render, show the author's text as text (the
escaped forms below are written by hand), and gain no control sequence, math span or HTML.
"""

from __future__ import annotations

import contextlib
import decimal
import importlib.util
import io
import json
import re
import tomllib
from pathlib import Path

import pytest
from golden import ROOT
from support import tier
from test_escaping import DANGEROUS, control_words, toml_string
from test_export import compile_tex, katex_failures, math_spans

_spec = importlib.util.spec_from_file_location("confusion", ROOT / "benchmarks" / "confusion.py")
confusion = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(confusion)

BANKS = ("proofs/course", "docs/examples", "benchmarks/bank24", "benchmarks/heldout24",
         "benchmarks/lessons05")
NOT_EXERCISES = ("intended.toml", "derive.toml")
"""A bank's intended mistakes (benchmarks) and settings: not exercise files."""


def _exercise_files() -> list[str]:
    """Every file of every bank that holds [[exercise]] tables (docs/examples/statements.toml
    holds statements), as a path from the repository's root."""
    out = []
    for bank in BANKS:
        for path in sorted((ROOT / bank).glob("*.toml")):
            if path.name in NOT_EXERCISES:
                continue
            if "exercise" in tomllib.loads(path.read_text(encoding="utf-8")):
                out.append(str(path.relative_to(ROOT)))
    return out


FILES = _exercise_files()
SAMPLE = ["benchmarks/bank24/logistic.toml", "benchmarks/bank24/resume.toml",
          "benchmarks/bank24/lab.toml", "benchmarks/bank24/decay_accumulation.toml",
          "benchmarks/heldout24/exercises.toml"]
"""Always on: the five files tests/test_course_notation.py compiled before this test."""


def derive(*args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `derive ARGS`, in-process."""
    from derive.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def exported(path: Path | str, *args: str) -> str:
    code, out, err = derive(*args[:1], str(path), *args[1:])
    assert code == 0, f"derive {args[0]} {path} exited {code}: {err}"
    return out


def katex_ok(markdown: dict[str, str]) -> int:
    """Every math span of the documents rendered by KaTeX (strict); how many there were."""
    spans = [s for where, md in markdown.items() for s in math_spans(md, where)]
    failures = katex_failures(spans)
    assert not failures, "\n".join(f"{f['where']}: {f['error']}\n  {f['tex']}"
                                   for f in failures[:5])
    return len(spans)


# ------------------------------------------------------------------ every bank file, as written

ENGINE = {"en": "pdflatex", "zh": "xelatex"}


@pytest.mark.parametrize("path,lang", tier(
    [(f, lang) for f in FILES for lang in ("en", "zh")],
    always=[(f, "en") for f in SAMPLE] + [("benchmarks/heldout24/exercises.toml", "zh")]))
def test_every_bank_file_exports(tmp_path, path, lang):
    """`derive export FILE --standalone` compiles; `derive export FILE --format md` (and, in
    English, `derive key FILE --format md`) renders with KaTeX."""
    compile_tex(exported(ROOT / path, "export", "--standalone", "--lang", lang), ENGINE[lang],
                tmp_path)
    docs = {f"{path}.{lang}": exported(ROOT / path, "export", "--format", "md", "--lang", lang)}
    if lang == "en":
        docs[f"key {path}"] = exported(ROOT / path, "key", "--format", "md")
    assert katex_ok(docs) > 0


def test_the_banks_are_all_found():
    """The five banks hold 24 exercise files (a bank's new file is exported too)."""
    assert len(FILES) == 24
    assert {f.split("/")[-2] for f in FILES} == {"course", "examples", "bank24", "heldout24",
                                                 "lessons05"}


# ------------------------------------------------------------------------ hostile author text

WORD = "w" * 600
"""A word of 600 characters: no break point for TeX (an overfull line, never an error)."""
PIECES = [r"}{\end{document}", "$x$ $$", r"\input{/etc/passwd}", "% # &", "_^~",
          "<script>alert(1)</script>", "**bold**", "a|b", "{{{ }"]
"""Hostile text, each piece shown in every output; escaped by hand below."""
TEX = [r"\}\{\textbackslash{}end\{document\}", r"\$x\$ \$\$",
       r"\textbackslash{}input\{/etc/passwd\}", r"\% \# \&",
       r"\_\textasciicircum{}\textasciitilde{}",
       r"\textless{}script\textgreater{}alert(1)\textless{}/script\textgreater{}",
       "**bold**", r"a\textbar{}b", r"\{\{\{ \}"]
MD = [r"}{\\end{document}", r"\$x\$ \$\$", r"\\input{/etc/passwd}", r"% \# &amp;",
      r"\_\^\~", "&lt;script&gt;alert(1)&lt;/script&gt;", r"\*\*bold\*\*", r"a\|b", "{{{ }"]
assert len(PIECES) == len(TEX) == len(MD)
LATIN = " ".join(PIECES)
CHINESE = "学习率的梯度"
MARKS = "e\u0301x\u0302 \u202eevil\u202c\u200f \x01\x1b[31m\x7f"
"""Combining characters (é, x̂), bidirectional marks and control characters: the marks and
controls are dropped, é is one character, x̂ is set as math in LaTeX."""
MARKS_TEX = r"é$\hat{x}$ evil [31m"
MARKS_MD = r"éx̂ evil \[31m"
TITLE = f"T {LATIN} {MARKS} {WORD}"
"""An exercise's title: an English LaTeX heading leaves out a title with Chinese, so Chinese
goes into the quantities' Chinese words and the mistakes' words instead."""
TITLE_ZH = f"Z {LATIN} {CHINESE}"
WORDS_EN = f"E {LATIN} {'v' * 60} e\u0301"
WORDS_ZH = f"{CHINESE} {LATIN}"
"""A declared mistake's words: one line, at most 300 characters, no control character."""
MISTAKE = "hostile_declared"
NAME = "bank }{%#&_^~$x$ .toml"
"""The hostile file's name (the export's title)."""


def toml_value(v) -> str:
    """A value read with exact decimals (tomllib, parse_float=Decimal) written back as TOML."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return toml_string(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, decimal.Decimal):
        return str(v).replace("E", "e")
    if isinstance(v, list):
        return "[" + ", ".join(map(toml_value, v)) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_string(k)} = {toml_value(x)}" for k, x in v.items()) \
            + " }"
    raise TypeError(type(v))


def toml_file(data: dict) -> str:
    out = [f"[{toml_string(k)}]\n" + "".join(f"{toml_string(n)} = {toml_value(x)}\n"
                                               for n, x in v.items())
           for k, v in data.items() if k != "exercise"]
    for ex in data["exercise"]:
        out.append("[[exercise]]\n" + "".join(f"{toml_string(k)} = {toml_value(v)}\n"
                                                for k, v in ex.items()))
    return "\n".join(out)


CHANGED = ("lr", "eta", "w", "w0", "b", "b0", "threshold", "max_norm")
"""The givens a declared mistake replaces, the first one an exercise has as a number."""


def _declared(given: dict) -> dict | None:
    """A declared mistake with the hostile words: one given replaced by twice its value (or 1
    for 0)."""
    for name in CHANGED:
        v = given.get(name)
        if isinstance(v, (int, decimal.Decimal)) and not isinstance(v, bool) \
                or isinstance(v, str) and re.fullmatch(r"-?[0-9./]+", v):
            value = decimal.Decimal(str(v)) if not isinstance(v, str) or "/" not in v else None
            new = "1" if value == 0 else (f"2*({v})" if value is None else str(2 * value))
            if value is None:
                continue
            return {"name": MISTAKE, "en": WORDS_EN, "zh": WORDS_ZH, "given": {name: new}}
    return None


def hostile_text(path: Path) -> str:
    """The file with hostile author text everywhere it is allowed (claims as written)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"), parse_float=decimal.Decimal)
    assert set(data) <= {"exercise", "notation"}, sorted(data)
    for ex in data["exercise"]:
        ex["id"] = f"{ex['id'][:70]}_-._" + "_-" * 8
        ex["title"] = TITLE
        for q, v in (ex.get("define") or {}).items():
            table = v if isinstance(v, dict) else {"formula": v}
            ex["define"][q] = {**table, "title": f"{q} {LATIN}"[:200],
                               "title_zh": f"{q} {TITLE_ZH}"[:200]}
        mistake = _declared(ex.get("given") or {})
        if mistake is not None:
            ex.setdefault("mistakes", []).append(mistake)
    return toml_file(data)


HOSTILE_SAMPLE = ["benchmarks/bank24/resume.toml", "proofs/course/lesson03.toml"]
"""Always on: built-in recipes and derivations of the author's own (resume.toml); a mistake
offered (lesson03.toml: mean_of_means 6 for 5)."""
UNKNOWN = "98765.4321"
"""A claim no mistake gives: no known mistake."""


def plant(path: Path) -> str:
    """The hostile file with its claims planted wrong. Exercises in turn: every claim at the
    declared mistake's value (named, then carried forward), every claim at a known mistake's
    value (named, tied or offered; for a derivation of the author's own, the first claim only:
    its mutations are many), the first claim at a value no mistake gives (no known mistake)."""
    from derive.exercises.bank import load_file

    text = hostile_text(path)
    data = tomllib.loads(text, parse_float=decimal.Decimal)
    mistaken = tomllib.loads(text, parse_float=decimal.Decimal)
    for ex in mistaken["exercise"]:  # the declared change made: its values are the mistake's
        for m in ex.pop("mistakes", []):
            if m["name"] == MISTAKE:
                ex["given"].update(m["given"])
        ex.pop("claims", None)
    loaded, wrong = {}, {}
    for name, table in (("unplanted.toml", data), ("mistaken.toml", mistaken)):
        tmp = path.with_name(name)
        tmp.write_text(toml_file(table), encoding="utf-8")
        (loaded if name == "unplanted.toml" else wrong).update(
            (ex.id, ex) for ex in load_file(tmp))
        tmp.unlink()
    for k, ex in enumerate(data["exercise"]):
        here = loaded[ex["id"]]
        names = confusion.claimed(here)
        for scenario in (SCENARIOS * 2)[k % 3:k % 3 + 3]:  # the next one if it plants nothing
            chosen = {name: raw for j, name in enumerate(names)
                      if (raw := scenario(here, wrong[ex["id"]], name, j)) is not None}
            if chosen:
                ex["claims"].update(chosen)
                break
    return toml_file(data)


def _at_declared(here, there, name: str, j: int):
    """The claim at the declared mistake's value (the exercise `there` has its change), if
    the exercise declares it and the value is wrong."""
    from derive.recipes import Context

    if MISTAKE not in here.declared:
        return None
    right = Context(here.recipe, here.given)[name]
    raw = confusion._text(Context(there.recipe, there.given)[name],
                          confusion._places(here.claims[name]))
    return None if raw is None or confusion._holds(confusion._claim(raw), right) else raw


def _at_known(here, there, name: str, j: int):
    """The claim at a known mistake's value (the j-th of the quantity's, in turn); of a
    derivation of the author's own, the first claim only (its mutations are many)."""
    if j and here.recipe.name == "formulas":
        return None
    mine = [raw for raw, _ in confusion.plantings(here, [name]).values()]
    return mine[j % len(mine)] if mine else None


def _unknown(here, there, name: str, j: int):
    """The first claim at a value no mistake gives."""
    if j:
        return None

    def like(claim):  # the claim's shape, nested lists too
        return [like(c) for c in claim.value] if claim.is_list else UNKNOWN
    return like(here.claims[name])


SCENARIOS = (_at_declared, _at_known, _unknown)


def kinds(report: dict) -> set[str]:
    """The kinds of diagnosis in a `derive check --format json` report."""
    out = set()
    for ex in report["exercises"]:
        for claim in ex.get("claims", []):
            d = claim.get("diagnosis")
            if claim["status"] != "wrong" or not d:
                continue
            if d.get("carried_from"):
                out.add("carried")
            elif d.get("certainty"):
                out.add(d["certainty"])
            elif d["explanation"].startswith("no known mistake"):
                out.add("no known mistake")
            else:
                out.add("other")
    return out


def names_declared(report: dict) -> bool:
    """Whether a diagnosis of the report names the declared mistake or lists it."""
    return any(MISTAKE in [d.get("mistake"), *d.get("candidates", [])]
               for ex in report["exercises"] for c in ex.get("claims", [])
               if (d := c.get("diagnosis")))


def shows(doc: str, pieces: list[str], where: str) -> None:
    missing = [p for p in pieces if p not in doc]
    assert not missing, f"{where}: not shown as text: {missing}"


def no_author_markup_tex(tex: str) -> None:
    """One document, and no dangerous control sequence in its body (but derive's own
    \\renewcommand{\\arraystretch} of a table)."""
    assert tex.count(r"\begin{document}") == tex.count(r"\end{document}") == 1
    body = control_words(tex.split(r"\begin{document}")[1].replace(
        r"\renewcommand{\arraystretch}", ""))
    assert not body & set(DANGEROUS), sorted(body & set(DANGEROUS))


def no_author_markup_md(md: str, where: str) -> None:
    """No raw HTML; no math span holds author text."""
    assert "<script" not in md and not re.search(r"<[A-Za-z!/?]", md), where
    for span in math_spans(md, where):
        assert not re.search(r"passwd|script|bold|www|\{\{\{", span["tex"]), span


@pytest.mark.parametrize("path", tier(FILES, always=HOSTILE_SAMPLE))
def test_a_hostile_bank_file_exports(tmp_path, path):
    """Every author string of the file hostile, its claims planted wrong: the LaTeX compiles
    (pdfLaTeX, XeLaTeX), KaTeX renders the Markdown, and the text is shown escaped."""
    source = ROOT / path
    work = tmp_path / "bank"
    work.mkdir()
    planted = work / NAME
    planted.write_text(plant(_copy(source, work)), encoding="utf-8")
    code, out, err = derive("check", str(planted), "--format", "json")
    assert code == 1, err
    report = json.loads(out)
    assert kinds(report)
    declared = names_declared(report)
    chinese = declared or "title_zh" in planted.read_text(encoding="utf-8")
    for lang in ("en", "zh"):
        tex = exported(planted, "export", "--standalone", "--lang", lang)
        no_author_markup_tex(tex)
        shows(tex, TEX, f"{path} tex {lang}")
        if lang == "en":
            shows(tex, [MARKS_TEX, r"bank \}\{\%\#\&\_\textasciicircum{}\textasciitilde{}"
                        r"\$x\$ .toml"], f"{path} tex en")
        if declared:
            shows(tex, [f"E {TEX[0]}" if lang == "en" else f"{CHINESE} {TEX[0]}"],
                  f"{path} tex {lang}, the mistake's words")
        folder = tmp_path / lang
        folder.mkdir()
        compile_tex(tex, ENGINE[lang], folder)
        md = exported(planted, "export", "--format", "md", "--lang", lang)
        no_author_markup_md(md, f"{path}.{lang}.md")
        shows(md, MD + ([MARKS_MD] if lang == "en" else [CHINESE] if chinese else []),
              f"{path} md {lang}")
        if declared:
            shows(md, [f"E {MD[0]}" if lang == "en" else f"{CHINESE} {MD[0]}"],
                  f"{path} md {lang}, the mistake's words")
        katex_ok({f"{path}.{lang}.md": md})


def _copy(source: Path, work: Path) -> Path:
    target = work / source.name
    target.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return target



def test_the_plantings_show_every_kind_of_diagnosis(tmp_path):
    """The hostile files of the default tier show each kind of diagnosis: the declared
    mistake named (in its hostile words), a tie, a mistake offered, an error carried forward,
    no known mistake."""
    found = set()
    for path in HOSTILE_SAMPLE:
        work = tmp_path / Path(path).stem
        work.mkdir()
        planted = work / NAME
        planted.write_text(plant(_copy(ROOT / path, work)), encoding="utf-8")
        code, out, err = derive("check", str(planted), "--format", "json")
        assert code == 1, err
        found |= kinds(json.loads(out))
    assert found == {"named", "tied", "offered", "carried", "no known mistake"}
