"""Every LaTeX export the tests build, and what TeX says about lines that leave the text block
("Overfull \\hbox"): shared by tests/test_layout.py and benchmarks/overfull.py.

An export is a name, an engine (pdfLaTeX for English, XeLaTeX for Chinese) and a function that
returns its standalone LaTeX. `exports()` lists them one document each (the benchmark's view);
`combined()` puts the same content into a few documents (the test's view: one engine start per
language and kind instead of one per statement).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
ENGINE = {"en": "pdflatex", "zh": "xelatex"}
LANGS = ("en", "zh")


def exercise_files() -> list[str]:
    """Every exercise file of the course and of the tests' data, relative to the root."""
    files = sorted((ROOT / "proofs" / "course").glob("*.toml")) + \
        sorted((ROOT / "tests" / "data").glob("*.toml")) + \
        sorted((ROOT / "docs" / "examples").glob("*.toml"))
    return [str(f.relative_to(ROOT)) for f in files  # statements.toml is `derive prove`'s
            if "[[exercise]]" in f.read_text(encoding="utf-8")]


SURVEY = ("docs/**/*.toml", "proofs/**/*.toml", "tests/data/*.toml", "benchmarks/bank24/*.toml",
          "benchmarks/heldout24/*.toml")
"""The exercise files whose every export the layout survey builds (issue 25)."""


def survey_files() -> list[str]:
    """Every exercise file of docs/, proofs/, tests/data/ and the benchmarks' two banks."""
    files = sorted({f for pattern in SURVEY for f in ROOT.glob(pattern)})
    return [str(f.relative_to(ROOT)) for f in files
            if "[[exercise]]" in f.read_text(encoding="utf-8")]


def survey_args(path: str) -> list[tuple[str, list[str]]]:
    """(format, arguments) of every export of one file: the worked export and the question
    sheet in LaTeX (standalone) and Markdown, and the answer key in both, in both languages."""
    out = []
    for lang in LANGS:
        for fmt in ("tex", "md"):
            for questions in ([], ["--questions"]):
                out.append((fmt, ["export", path, "--format", fmt, "--lang", lang] + questions
                            + (["--standalone"] if fmt == "tex" else [])))
            out.append((fmt, ["key", path, "--format", fmt, "--lang", lang]))
    return out


APPROX = re.compile(r"(?:\\approx|≈)\s*-?\s*(\d+)(?:\.(\d+))?")
"""A decimal after ≈ (the mantissa, when in scientific notation)."""


def approx_places(text: str) -> list[tuple[int, str]]:
    """(places, the decimal) of every decimal printed after ≈."""
    return [(len(m.group(2) or ""), m.group(0)) for m in APPROX.finditer(text)]


def statement_ids() -> list[str]:
    from derive.statements.registry import all_statements

    return [s.id for s in all_statements()]


@dataclass(frozen=True)
class Export:
    name: str
    lang: str
    source: Callable[[], str]

    @property
    def engine(self) -> str:
        return ENGINE[self.lang]


def _cli(args: list[str]) -> Callable[[], str]:
    def run() -> str:
        from golden import render

        return render(args)
    return run


def _lang(lang: str) -> list[str]:
    return [] if lang == "en" else ["--lang", lang]


def _course(lang: str) -> Callable[[], str]:
    def run() -> str:
        from test_export import combined_tex

        return combined_tex(lang)
    return run


def exports() -> list[Export]:
    """One standalone document per export: the course as tests/test_export.py compiles it, every
    exercise file, the answer key, and every statement, in English and in Chinese."""
    out = []
    for lang in LANGS:
        out.append(Export(f"course (test_export.combined_tex) [{lang}]", lang, _course(lang)))
        for f in exercise_files():
            out.append(Export(f"export {f} [{lang}]", lang,
                              _cli(["export", f, "--standalone"] + _lang(lang))))
        out.append(Export(f"key proofs/course [{lang}]", lang,
                          _cli(["key", "proofs/course", "--format", "tex"] + _lang(lang))))
        for sid in statement_ids():
            out.append(Export(f"export {sid} [{lang}]", lang,
                              _cli(["export", sid, "--standalone"] + _lang(lang))))
    return out


def _joined(sources: list[str]) -> str:
    """Standalone documents of one language as one: the first one's preamble, every body."""
    bodies = []
    for s in sources:
        start = s.index("\\begin{document}") + len("\\begin{document}")
        bodies.append(s[start:s.rindex("\\end{document}")])
    head = sources[0][:sources[0].index("\\begin{document}")]
    return head + "\\begin{document}\n" + "\n\\clearpage\n".join(bodies) + "\\end{document}\n"


def _kind(e: Export) -> str:
    words = e.name.split()
    if words[0] in ("course", "key"):
        return words[0]
    return "files" if words[1].endswith(".toml") else "ids"


def combined() -> list[Export]:
    """The exports of `exports()` in four documents per language: the course (statements,
    exercises, key, ledger), every exercise file, the answer key, and every statement via the
    command line. Every export's preamble is the same per language, so bodies can share one."""
    by: dict[tuple[str, str], list[Export]] = {}
    for e in exports():
        by.setdefault((e.lang, _kind(e)), []).append(e)
    out = []
    for (lang, kind), group in by.items():
        names = ", ".join(e.name for e in group)
        out.append(Export(f"{kind} [{lang}]: {names}" if len(group) < 4
                          else f"{kind} [{lang}]: {len(group)} documents", lang,
                          (lambda g=group: _joined([e.source() for e in g]))))
    return out


# ------------------------------------------------------------------------------- compiling

OVERFULL = re.compile(r"^Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\) (.*)$", re.M)


@dataclass(frozen=True)
class Overfull:
    pt: float
    where: str  # "in paragraph at lines 12--13", "detected at line 40", …
    line: str   # the source line of the document it points at, when there is one
    shown: str  # what TeX prints of the box (the next line of the log)


@dataclass(frozen=True)
class Compiled:
    name: str
    ok: bool
    overfull: tuple[Overfull, ...]
    error: str = ""

    @property
    def worst(self) -> float:
        return max((o.pt for o in self.overfull), default=0.0)


def overfull(log: str, source: str) -> list[Overfull]:
    """Every "Overfull \\hbox" warning of a TeX log, with the source line it names."""
    lines = source.splitlines()
    found = []
    for m in OVERFULL.finditer(log):
        where = m.group(2)
        at = re.search(r"lines? (\d+)", where)
        n = int(at.group(1)) if at else 0
        text = lines[n - 1].strip() if 0 < n <= len(lines) else ""
        if text.startswith("\\end{"):  # a display: TeX names its end; show its longest row
            begin = text.replace("\\end{", "\\begin{", 1)
            k = n - 1
            while k > 0 and not lines[k - 1].strip().startswith(begin):
                k -= 1
            text = max(lines[k:n - 1], key=len, default=text).strip()
        rest = log[m.end():].lstrip("\n").split("\n", 1)[0]
        found.append(Overfull(float(m.group(1)), where, text, rest.strip()))
    return found


def compile_export(e: Export, source: str | None = None, workdir: Path | None = None) -> Compiled:
    """Compile an export once (one pass is enough for box widths) and read its log."""
    source = e.source() if source is None else source
    exe = shutil.which(e.engine)
    if exe is None:
        raise FileNotFoundError(e.engine)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        tmp = Path(tmp)
        (tmp / "doc.tex").write_text(source, encoding="utf-8")
        done = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                              cwd=tmp, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "max_print_line": "100000"})
        log_path = tmp / "doc.log"
        log = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
    errors = [line for line in log.splitlines() if line.startswith("!")]
    return Compiled(e.name, done.returncode == 0 and not errors, tuple(overfull(log, source)),
                    "; ".join(errors[:3]))
