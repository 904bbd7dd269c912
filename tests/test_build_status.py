"""`derive build`: an exercise's status is its check's verdict, and an artefact that cannot be
written is said apart — its own count in the summary, each reason once on stderr with the files
it left out, beside the row in the index — with the exit code of docs/cli.md.

Issue 37: without quickjs every page failed, and the build said "17 refused" with no reason on
the terminal (exit 2); a bank whose claims were all wrong said "0 wrong … 6 refused"."""

import re
import sys
from html import escape
from pathlib import Path

import pytest

from derive.cli import build
from derive.cli.main import main
from derive.render import katex

pytestmark = pytest.mark.usefixtures("own_cache")  # each test its own cache folder

# Hand-checked values: w = 1, x = 2, y = 4 gives the prediction 1·2 = 2 and the loss
# (2 − 4)²/2 = 2; w = 2, x = 1, y = 3 gives 2 and (2 − 3)²/2 = 1/2.
RIGHT = """\
[[exercise]]
id = "right"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]
[exercise.claims]
prediction = 2
loss = 2
"""

WRONG = """\
[[exercise]]
id = "wrong-{n}"
recipe = "sgd_step"
[exercise.given]
w = 2
lr = 0.5
records = [[1, 3]]
[exercise.claims]
prediction = 3
loss = 0.25
"""


def bank(tmp_path: Path, right: bool = True, wrong: int = 1) -> Path:
    folder = tmp_path / "bank"
    folder.mkdir()
    if right:
        (folder / "right.toml").write_text(RIGHT, encoding="utf-8")
    for n in range(1, wrong + 1):
        (folder / f"wrong{n}.toml").write_text(WRONG.format(n=n), encoding="utf-8")
    return folder


def build_site(capsys, *argv) -> tuple[int, str, str]:
    code = main(["build", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def statuses(index: str) -> dict[str, str]:
    return dict(re.findall(r"<td[^>]*>([\w-]+)</td><td[^>]*>[^<]*</td><td class=\"(\w+)\"",
                           index))


@pytest.fixture
def no_quickjs(monkeypatch):
    """quickjs as if not installed: its import fails in this process and in the forked
    workers (the engine is made once per process, so its cached one is dropped)."""
    monkeypatch.setitem(sys.modules, "quickjs", None)
    katex._engine.cache_clear()
    yield
    katex._engine.cache_clear()


def test_a_missing_engine_is_said_once_and_leaves_the_verdicts(tmp_path, capsys, no_quickjs):
    site = tmp_path / "site"
    code, out, err = build_site(capsys, bank(tmp_path, wrong=2), "-o", site, "--lang", "en",
                                "--jobs", 2, "--no-cache")
    assert code == 1  # a claim is wrong; the pages' engine was not asked for by name
    assert out.splitlines() == [f"built {site}: 3 exercise(s) (1 ok, 2 wrong), 0 invalid "
                                f"file(s), 12 artefact(s) not written; 3 computed, 0 from the "
                                f"cache"]
    (line,) = err.splitlines()  # one reason, one line: not one per page
    # what KaTeX draws: the self-check page, the key and the question sheet as pages, the QTI
    # item's MathML
    assert line.startswith("derive build: 12 artefact(s) not written (key.en.html, page.en.html, "
                           "qti.en.xml, sheet.en.html of 3 exercise(s): right, wrong-1 and 1 "
                           "more): not supported: ")
    assert "quickjs" in line and "reinstall derive" in line
    index = (site / "index.html").read_text(encoding="utf-8")
    assert statuses(index) == {"right": "ok", "wrong-1": "wrong", "wrong-2": "wrong"}
    assert "refused" not in index
    assert ("<p>3 exercise(s): 1 ok, 2 wrong, 0 undecided, 0 invalid; 0 invalid file(s); "
            "12 artefact(s) not written</p>") in index
    reason = escape(line.split("and 1 more): ", 1)[1])
    rows = [r for r in index.split("<tr") if "</td>" in r]
    assert len(rows) == 3
    for row in rows:  # beside each row: which file, and why
        assert (f'<span class="failed">not written: key.en.html, sheet.en.html, page.en.html, '
                f'qti.en.xml ({reason})</span>') in row
        assert "page.en.html" not in row.split('class="failed"')[0] and "key.en.md</a>" in row
    assert not list(site.rglob("page.*.html"))
    assert len(list(site.rglob("key.en.md"))) == 3


def test_an_artefact_asked_for_by_name_and_not_written_is_exit_2(tmp_path, capsys, no_quickjs):
    site = tmp_path / "site"
    code, out, err = build_site(capsys, bank(tmp_path, wrong=0), "-o", site, "--only",
                                "check,page", "--lang", "zh", "--quiet")
    assert code == 2
    assert out == ""  # --quiet: no summary; the failure is an error, said all the same
    (line,) = err.splitlines()
    assert line.startswith("derive build: 1 artefact(s) not written (page.zh.html of 1 "
                           "exercise(s): right): not supported: ")
    index = (site / "index.html").read_text(encoding="utf-8")
    assert statuses(index) == {"right": "ok"}
    assert "<p>1 道练习：1 道正确，0 道有误，0 道未定，0 道无效；0 个无效文件；1 个文件未能写出</p>" in index
    assert '<span class="failed">未能写出：page.zh.html (' in index


@pytest.mark.parametrize("engine", ["installed", "missing"])
def test_a_bank_of_wrong_claims_says_n_wrong(tmp_path, capsys, request, engine):
    if engine == "missing":
        request.getfixturevalue("no_quickjs")
    site = tmp_path / "site"
    code, out, err = build_site(capsys, bank(tmp_path, right=False, wrong=6), "-o", site,
                                "--lang", "en", "zh")
    assert code == 1
    said = "" if engine == "installed" else ", 48 artefact(s) not written"
    assert out.startswith(f"built {site}: 6 exercise(s) (6 wrong), 0 invalid file(s){said}; ")
    assert len(err.splitlines()) == (engine == "missing")
    for name in ("index.html", "index.zh.html"):
        index = (site / name).read_text(encoding="utf-8")
        assert set(statuses(index).values()) == {"wrong"} and len(statuses(index)) == 6
    assert "6 exercise(s): 0 ok, 6 wrong, 0 undecided, 0 invalid;" in (
        site / "index.html").read_text(encoding="utf-8")


def test_each_distinct_reason_is_one_line_and_any_other_failure_is_exit_2(
        tmp_path, capsys, monkeypatch):
    """A renderer's bug on one artefact and a time bound on another: two lines, each with the
    files it left out; the verdicts stay; exit 2, as `derive key` or `export` would exit."""
    from derive.kernel.timebound import DecisionTimeout

    render = build._render

    def failing(name, report, ex_name):
        if name == "key.en.tex":
            raise RuntimeError("boom")
        if name == "export.en.md" and ex_name == "right":
            raise DecisionTimeout()
        return render(name, report, ex_name)

    monkeypatch.setattr(build, "_render", failing)
    site = tmp_path / "site"
    code, out, err = build_site(capsys, bank(tmp_path, wrong=1), "-o", site, "--lang", "en",
                                "--only", "check,key,export", "--jobs", 2)
    assert code == 2
    assert "(1 ok, 1 wrong), 0 invalid file(s), 3 artefact(s) not written;" in out
    assert err.splitlines() == [
        "derive build: 2 artefact(s) not written (key.en.tex of 2 exercise(s): right, "
        "wrong-1): internal error (a bug in derive, please report it with the input): "
        "RuntimeError: boom",
        "derive build: 1 artefact(s) not written (export.en.md of 1 exercise(s): right): "
        "passed its time bound of 30 s of CPU time (--time-limit) while writing"]
    index = (site / "index.html").read_text(encoding="utf-8")
    assert statuses(index) == {"right": "ok", "wrong-1": "wrong"}


def test_an_exercise_with_an_artefact_not_written_is_computed_again(tmp_path, capsys,
                                                                    monkeypatch):
    """Nothing of it is cached: once quickjs is back, the next build writes its pages."""
    folder, site = bank(tmp_path, wrong=1), tmp_path / "site"
    monkeypatch.setitem(sys.modules, "quickjs", None)
    katex._engine.cache_clear()
    assert build_site(capsys, folder, "-o", site, "--lang", "en")[0] == 1
    monkeypatch.delitem(sys.modules, "quickjs")
    katex._engine.cache_clear()
    code, out, err = build_site(capsys, folder, "-o", site, "--lang", "en")
    assert (code, err) == (1, "")
    assert "(1 ok, 1 wrong), 0 invalid file(s); 2 computed, 0 from the cache" in out
    assert len([p for p in site.rglob("page.en.html") if "students" not in p.parts]) == 2


def test_exit_codes_as_documented():
    """docs/cli.md's table: invalid beats everything; an artefact not written is 2 unless
    only its engine is missing and it was not asked for by name; then the verdicts decide."""
    def item(status, failed=None):
        return build.Item("a.toml", "a/x", id="x", status=status, failed=failed or {})

    missing = {"page.en.html": ("no engine", True)}
    broken = {"key.en.md": ("a bug", False)}
    assert build.exit_code([item("ok")], 0, ()) == 0
    assert build.exit_code([item("ok"), item("wrong")], 0, ()) == 1
    assert build.exit_code([item("undecided")], 0, ()) == 1
    assert build.exit_code([item("wrong")], 1, ()) == 2
    assert build.exit_code([item("invalid"), item("ok")], 0, ()) == 2
    assert build.exit_code([item("ok", missing)], 0, ()) == 0
    assert build.exit_code([item("wrong", missing)], 0, ()) == 1
    assert build.exit_code([item("ok", missing)], 0, ("check", "page")) == 2
    assert build.exit_code([item("ok", broken)], 0, ()) == 2
