"""Every example in README.md and docs/**/*.md, run against the current code.

Conventions (see docs/index.md, "Examples are tested"):

- A fenced block whose first line starts with `$ ` is a session. Each `$ derive …` or
  `$ python -m derive …` line is run, and its output (stdout and stderr, in order) must equal
  the lines after it, up to the next `$ ` line or the end of the block. `$ … > FILE` writes
  stdout to FILE instead. Exit codes are not compared.
- In the expected output, a line holding only `…` (indented or not) stands for any number of
  lines: at the end, the rest of the output is cut. The TIME column of `derive prove` and JSON
  `"seconds"` values vary and are not compared; trailing whitespace and trailing blank lines
  are ignored.
- A fenced block preceded by a line `<!-- file: NAME -->` is written to NAME. Each session
  runs in a fresh folder holding every such file of its page, with `proofs` and `tests`
  linked to the repository's, so commands name files as they would from the repository root.
- A ```python block preceded by a line `<!-- run -->` is executed the same way; what it
  prints must equal the next fenced block.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import re
import shlex
import traceback
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

from derive.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINKED = ("proofs", "tests")

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)")
FILE_MARK = re.compile(r"^<!--\s*file:\s*(\S+)\s*-->$")
RUN_MARK = re.compile(r"^<!--\s*run\s*-->$")
ELLIPSIS = "…"


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # 1-based line of the opening fence
    lang: str
    lines: tuple[str, ...]
    mark: str  # the last non-blank line before the fence

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a Markdown page, in order."""
    out, text = [], page.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(text):
        m = FENCE.match(text[i])
        if not m:
            i += 1
            continue
        fence, start = m.group(1), i
        mark = next((t.strip() for t in reversed(text[:i]) if t.strip()), "")
        i += 1
        body = []
        while i < len(text) and not (text[i].strip().startswith(fence)
                                     and text[i].strip().strip(fence[0]) == ""):
            body.append(text[i])
            i += 1
        out.append(Block(page, start + 1, m.group(2), tuple(body), mark))
        i += 1
    return out


def files(page: Path) -> dict[str, str]:
    """The files a page shows under `<!-- file: NAME -->`."""
    out = {}
    for b in blocks(page):
        m = FILE_MARK.match(b.mark)
        if m:
            assert m.group(1) not in out, f"{b.where}: a second file named {m.group(1)}"
            out[m.group(1)] = "\n".join(b.lines) + "\n"
    return out


def is_session(b: Block) -> bool:
    return bool(b.lines) and b.lines[0].startswith("$ ")


def examples() -> list:
    out = []
    for page in PAGES:
        bs = blocks(page)
        for n, b in enumerate(bs):
            if is_session(b):
                out.append(pytest.param(b, None, id=b.where))
            elif b.lang == "python" and RUN_MARK.match(b.mark):
                assert n + 1 < len(bs), f"{b.where}: `<!-- run -->` needs an output block after it"
                out.append(pytest.param(b, bs[n + 1], id=b.where))
    return out


def commands(b: Block) -> list[tuple[int, str, list[str]]]:
    """(line, command, expected output lines) of each `$ ` line of a session."""
    out = []
    for k, text in enumerate(b.lines):
        if text.startswith("$ "):
            out.append((b.line + 1 + k, text[2:], []))
        else:
            out[-1][2].append(text)
    return out


def run(command: str, where: str) -> str:
    """Run one `derive` command in-process in the current folder; its stdout and stderr."""
    argv = shlex.split(command)
    target = None
    if len(argv) > 2 and argv[-2] == ">":
        argv, target = argv[:-2], argv[-1]
    if argv[:1] == ["derive"]:
        args = argv[1:]
    elif argv[:3] == ["python", "-m", "derive"]:
        args = argv[3:]
    else:
        pytest.fail(f"{where}: `$ {command}`: only `derive …` and `python -m derive …` can run "
                    f"in a session", pytrace=False)
    both, out, crash = io.StringIO(), io.StringIO(), None
    with contextlib.redirect_stdout(out if target else both), contextlib.redirect_stderr(both):
        try:
            main(args)
        except SystemExit:  # argparse: --help, --version, misuse
            pass
        except Exception:
            crash = traceback.format_exc()
    if crash:
        pytest.fail(f"{where}: `$ {command}` raised\n{crash}", pytrace=False)
    if target:
        Path(target).write_text(out.getvalue(), encoding="utf-8")
    return both.getvalue()


def normalise(lines: list[str], command: str) -> list[str]:
    lines = [t.rstrip() for t in lines]
    if re.match(r"(python -m )?derive prove\b", command):
        lines = [re.sub(r" +\d+\.\d\ds(?=  )", " TIME", t) for t in lines]
    lines = [re.sub(r'("seconds": )[-+0-9.eE]+', r"\1SECONDS", t) for t in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(expected: list[str], actual: list[str]) -> bool:
    """Line by line; a line holding only `…` in `expected` stands for any number of lines."""
    @lru_cache(maxsize=None)
    def at(i: int, j: int) -> bool:
        if i == len(expected):
            return j == len(actual)
        if expected[i].strip() == ELLIPSIS:
            return any(at(i + 1, k) for k in range(j, len(actual) + 1))
        return j < len(actual) and expected[i] == actual[j] and at(i + 1, j + 1)
    return at(0, 0)


def compare(where: str, command: str, expected: list[str], output: str) -> None:
    want, got = normalise(expected, command), normalise(output.splitlines(), command)
    if not matches(want, got):
        diff = "\n".join(difflib.unified_diff(want, got, "documented", "actual", lineterm=""))
        pytest.fail(f"{where}: output of `{command}` differs from the docs\n{diff}",
                    pytrace=False)


@pytest.fixture
def page_folder(tmp_path, monkeypatch):
    """A fresh working folder for one example: the page's files, `proofs` and `tests`."""
    def make(page: Path) -> Path:
        for name in LINKED:
            (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
        for name, text in files(page).items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("COLUMNS", "80")  # argparse wraps usage lines at the terminal width
        return tmp_path
    return make


@pytest.mark.parametrize("block, output", examples())
def test_example(block: Block, output: Block | None, page_folder):
    page_folder(block.page)
    if output is None:
        for line, command, expected in commands(block):
            compare(f"{block.page.relative_to(ROOT)}:{line}", command, expected,
                    run(command, f"{block.page.relative_to(ROOT)}:{line}"))
        return
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile("\n".join(block.lines) + "\n", block.where, "exec"), {"__name__": "__doc__"})
    compare(block.where, "python", list(output.lines), printed.getvalue())


def test_conventions_are_used():
    """The parser finds the examples (a changed fence style would silently test nothing)."""
    found = examples()
    assert len(found) >= 10
    for page in PAGES:
        for name in files(page):
            assert not Path(name).is_absolute() and ".." not in Path(name).parts, (page, name)


def test_the_memory_recipe_docs_name_every_component_and_stage_rule():
    """docs/recipes.md's `memory` section lists the ledger's components and which of them each
    ZeRO stage divides by D exactly as derive/model/memory.py has them (grad_fp32_partition
    included, sharded from stage 1)."""
    from derive.model.memory import COMPONENTS, SHARDED

    text = (ROOT / "docs" / "recipes.md").read_text(encoding="utf-8")
    section = text.split("\n## `memory`\n", 1)[1].split("\n## ", 1)[0]
    row = next(line for line in section.splitlines() if line.startswith("| `bytes` |"))
    listed = re.search(r"any of ((?:`[a-z0-9_]+`(?:, )?)+)", row).group(1)
    assert re.findall(r"`([a-z0-9_]+)`", listed) == list(COMPONENTS)
    rule = " ".join(section.split("A stage divides these components by D:", 1)[1]
                    .split("\n\n", 1)[0].split())
    stages, sharded = {}, set()
    for number, names in re.findall(r"stage (\d) (?:also )?((?:`[a-z0-9_]+`(?:, )?)+)", rule):
        sharded |= set(re.findall(r"`([a-z0-9_]+)`", names))
        stages[int(number)] = frozenset(sharded)
    assert stages == {s: SHARDED[s] for s in (1, 2, 3)}
