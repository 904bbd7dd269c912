"""`derive build`: the same bytes for any --jobs, the cache recomputing only what changed, the
site written all at once, invalid files and settings as one line, Ctrl-C leaving nothing."""

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid
from fractions import Fraction as F
from html import escape
from pathlib import Path

import pytest

from derive.cli import build
from derive.cli import cache as cache_module
from derive.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"

TWO = """\
[[exercise]]
id = "first"
title = "One record"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]
[exercise.claims]
prediction = 2
loss = 2

[[exercise]]
id = "second"
recipe = "sgd_step"
[exercise.given]
w = 2
lr = 0.5
records = [[1, 3]]
[exercise.claims]
loss = 0.5
"""


pytestmark = pytest.mark.usefixtures("own_cache")  # each test its own cache folder


def make_bank(tmp_path: Path) -> Path:
    bank = tmp_path / "bank"
    bank.mkdir()
    for name in ("sgd_step.toml", "memory.toml"):
        shutil.copy(EXAMPLES / name, bank / name)
    (bank / "two.toml").write_text(TWO, encoding="utf-8")
    return bank


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["build", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def computed(out: str) -> int:
    return int(re.search(r"(\d+) computed", out).group(1))


def files(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*"))
            if p.is_file()}


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".old"))]


def test_jobs_give_the_same_bytes(tmp_path, capsys):
    bank = make_bank(tmp_path)
    sites = []
    for jobs in (1, 2):
        site = tmp_path / f"site{jobs}"
        code, out, err = run(capsys, bank, "-o", site, "--jobs", jobs, "--no-cache",
                             "--only", "check,key,questions", "--lang", "en", "zh")
        # sgd-three-records claims the gradients' sum: (−3 + 3.5 + 0.5) / 3 is the mean
        assert F(-3) + F(7, 2) + F(1, 2) != 3 * F(1) and code == 1, (out, err)
        sites.append(files(site))
    assert sites[0] == sites[1]
    assert "index.html" in sites[0] and "index.zh.html" in sites[0]
    assert "two/second/key.zh.md" in sites[0] and "sgd_step/sgd-three-records/check.json" \
        in sites[0]
    assert not any(name.startswith("page.") for name in sites[0])


def test_artefacts_are_the_commands_outputs(tmp_path, capsys):
    """A one-exercise file: the build's key is `derive key`'s, its check is `derive check`'s."""
    bank = make_bank(tmp_path)
    site = tmp_path / "site"
    run(capsys, bank, "-o", site, "--only", "check,key", "--lang", "zh", "--jobs", 1)
    assert main(["key", str(bank / "memory.toml"), "--format", "md", "--lang", "zh"]) == 0
    key = capsys.readouterr().out
    assert (site / "memory" / "memory-zero2" / "key.zh.md").read_text(encoding="utf-8") == key
    assert main(["check", str(bank / "sgd_step.toml"), "--format", "json"]) == 1
    check = capsys.readouterr().out
    assert (site / "sgd_step" / "sgd-three-records" / "check.json").read_text(
        encoding="utf-8") == check


def test_statuses_in_the_index(tmp_path, capsys):
    bank = make_bank(tmp_path)
    site = tmp_path / "site"
    run(capsys, bank, "-o", site, "--only", "check", "--lang", "en")
    index = (site / "index.html").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(
        r'<td data-label="Exercise">([\w-]+)</td><td data-label="Title">[^<]*</td>'
        r'<td class="(\w+)" data-label="Status">', index)}
    # hand-checked: 1·2 = 2 and (2−4)²/2 = 2; (2−3)²/2 = 1/2; the gradient of sgd-three-
    # records is a mean of 1/3, not the claimed 1
    assert rows == {"sgd-three-records": "wrong", "memory-zero2": "ok", "first": "ok",
                    "second": "ok"}
    assert 'href="two/first/check.txt"' in index
    # the first wrong claim named in its row, with the value derive finds (hand-checked above)
    assert '<span class="hint">gradient: claimed 1, derive finds 1/3' in index


def test_warm_rebuild_and_what_invalidates(tmp_path, capsys):
    bank = make_bank(tmp_path)
    site = tmp_path / "site"
    opts = ("--only", "check,key", "--lang", "en", "--jobs", 2)
    code, out, _ = run(capsys, bank, "-o", site, *opts)
    assert computed(out) == 4
    before = files(site)
    code, out, _ = run(capsys, bank, "-o", site, *opts)
    assert computed(out) == 0 and files(site) == before
    # one exercise edited: only it is computed again
    (bank / "two.toml").write_text(TWO.replace("loss = 0.5", "loss = 0.25"), encoding="utf-8")
    code, out, _ = run(capsys, bank, "-o", site, *opts)
    assert computed(out) == 1 and code == 1
    assert files(site)["two/first/key.en.md"] == before["two/first/key.en.md"]
    # an artefact not built before: every exercise again
    code, out, _ = run(capsys, bank, "-o", site, "--only", "check,key", "--lang", "zh")
    assert computed(out) == 4
    code, out, _ = run(capsys, bank, "-o", site, *opts, "--no-cache")
    assert computed(out) == 4


def test_a_new_derive_invalidates(tmp_path, capsys, monkeypatch):
    bank = make_bank(tmp_path)
    site = tmp_path / "site"
    opts = ("--only", "check", "--lang", "en", "--jobs", 1)
    run(capsys, bank, "-o", site, *opts)
    monkeypatch.setattr(cache_module, "_SOURCE", "another derive")
    code, out, _ = run(capsys, bank, "-o", site, *opts)
    assert computed(out) == 4


def test_a_failure_leaves_the_old_site(tmp_path, capsys, monkeypatch):
    bank = make_bank(tmp_path)
    site = tmp_path / "site"
    run(capsys, bank, "-o", site, "--only", "check", "--lang", "en")
    before = files(site)

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(build, "_finish", full_disk)
    code, out, err = run(capsys, bank, "-o", site, "--only", "check,key", "--lang", "en")
    assert code == 2 and "No space left on device" in err and err.count("\n") == 1
    assert files(site) == before and leftovers(tmp_path) == []


def test_refuses_a_folder_derive_did_not_build(tmp_path, capsys):
    bank = make_bank(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep", encoding="utf-8")
    code, _, err = run(capsys, bank, "-o", mine, "--only", "check")
    assert code == 2 and "not a site derive built" in err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"] and leftovers(tmp_path) == []
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    code, _, err = run(capsys, bank, "-o", link, "--only", "check")
    assert code == 2 and "symbolic link" in err and not (tmp_path / "elsewhere").exists()


def test_an_invalid_file_is_one_line_of_the_index(tmp_path, capsys):
    bank = make_bank(tmp_path)
    (bank / "broken.toml").write_text('[[exercise]]\nid = "x"\nrecipe = "sgd_stp"\n',
                                      encoding="utf-8")
    site = tmp_path / "site"
    code, out, err = run(capsys, bank, "-o", site, "--only", "check", "--lang", "en")
    assert code == 2  # as `derive check` of the folder
    assert main(["check", str(bank)]) == 2
    line = capsys.readouterr().err.split(": ", 1)[1].strip()
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "sgd_stp" in line and escape(line) in index
    assert (site / "two" / "first" / "check.txt").is_file()


def test_titles_are_escaped(tmp_path, capsys):
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "x.toml").write_text(TWO.replace('"One record"', '"</td><script>alert(1)</script>"'),
                                 encoding="utf-8")
    site = tmp_path / "site"
    run(capsys, bank, "-o", site, "--only", "check", "--lang", "en")
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "<script" not in index and "&lt;script&gt;alert(1)&lt;/script&gt;" in index


@pytest.mark.parametrize("settings, says", [
    ("[build]\njobs = 0\n", "key 'build.jobs': is 0; give a whole number of workers"),
    ("[build]\nlang = ['en', 'fr']\n", "key 'build.lang': names 'fr'"),
    ("[build]\ncolour = true\n", "key 'build.colour': is not a key of [build]"),
    ("[build]\ntime-limit = -1\n", "key 'build.time-limit': is -1"),
    ("build = 3\n", "key 'build': is not a table"),
])
def test_settings_errors(tmp_path, capsys, settings, says):
    bank = make_bank(tmp_path)
    (bank / "derive.toml").write_text(settings, encoding="utf-8")
    code, out, err = run(capsys, bank, "-o", tmp_path / "site")
    assert code == 2 and err.count("\n") == 1 and says in err
    assert str(bank / "derive.toml") in err
    assert not (tmp_path / "site").exists() and leftovers(tmp_path) == []


def test_settings_and_the_command_line(tmp_path, capsys):
    bank = make_bank(tmp_path)
    (bank / "derive.toml").write_text('[build]\nlang = "zh"\nonly = ["check"]\njobs = 1\n',
                                      encoding="utf-8")
    site = tmp_path / "site"
    run(capsys, bank, "-o", site)
    names = set(files(site))
    assert "two/first/check.txt" in names and not any(".en." in n or "key" in n for n in names)
    run(capsys, bank, "-o", site, "--only", "key", "--lang", "en")
    names = set(files(site))
    assert "two/first/key.en.md" in names and "two/first/check.txt" not in names


# ------------------------------------------------------------------------------- Ctrl-C

def _marked(mark: str) -> list[int]:
    """The processes whose environment holds `mark` (the build and its workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def _working(progress: Path, build_pid: int, point: str = "working") -> set[str]:
    """The workers (not the build itself) that have said they reached `point`."""
    try:
        lines = progress.read_text(encoding="ascii").splitlines()
    except FileNotFoundError:
        return set()
    return {ln.split()[1] for ln in lines if ln.startswith(point + " ")} - {str(build_pid)}


def _interrupt(tmp_path: Path, workers: int, signum: int, only: str = "key,page",
               point: str = "working") -> Path:
    """`derive build` sent `signum` once `workers` of its workers have reached `point` (one
    derive reports, never a guessed time): exit 128 + n, one line, no site, nothing left
    beside it, no process left. The folder TMPDIR was."""
    bank = make_bank(tmp_path)
    shutil.copy(EXAMPLES / "formulas.toml", bank)  # slow pages: workers busy when interrupted
    site = tmp_path / "site"
    mark = f"DERIVE_BUILD_TEST={uuid.uuid4()}"
    progress = tmp_path / "progress"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, mark.split("=")[0]: mark.split("=")[1],
           "DERIVE_TEST_PROGRESS": str(progress), "TMPDIR": str(tmp)}
    err_file = tmp_path / "stderr"
    with open(err_file, "wb") as err_out:  # a file: a pipe would wait for every holder
        proc = subprocess.Popen([sys.executable, "-m", "derive", "build", str(bank), "-o",
                                 str(site), "--no-cache", "--jobs", "2", "--only", only],
                                stdout=subprocess.DEVNULL, stderr=err_out, env=env)
    end = time.monotonic() + 300  # a bound far past any run: only a hang fails on it
    while len(_working(progress, proc.pid, point)) < workers and proc.poll() is None \
            and time.monotonic() < end:
        time.sleep(0.005)  # polling the progress file; the signal waits for the point
    assert proc.poll() is None, "the build ended before its workers began"
    proc.send_signal(signum)
    proc.wait(timeout=300)
    # TeX dies with its worker (SIGKILL from the kernel on the worker's exit), which a busy
    # machine may deliver a moment after the build has exited: polled, only a hang fails
    end = time.monotonic() + 60
    while (left := _marked(mark)) and time.monotonic() < end:
        time.sleep(0.01)
    err = err_file.read_text(encoding="utf-8")
    said = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
    assert proc.returncode == 128 + signum, err
    assert err == f"derive build: interrupted ({said}); no file was written\n"
    assert not site.exists() and leftovers(tmp_path) == []
    assert left == []
    return tmp


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["INT", "TERM", "HUP"])
def test_ctrl_c_while_working(tmp_path, workers, signum):
    _interrupt(tmp_path, workers, signum)


@pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("xelatex")),
                    reason="no TeX here")
def test_an_interrupted_pdf_build_leaves_no_folder_in_tmpdir(tmp_path):
    """(found) `build --only key,pdf` interrupted left derive-pdf-* folders in TMPDIR: its
    workers, killed while TeX ran, could not remove theirs."""
    tmp = _interrupt(tmp_path, 1, signal.SIGINT, only="key,pdf", point="making-pdf")
    assert list(tmp.iterdir()) == []


def test_what_a_killed_build_left_is_removed_by_the_next(tmp_path, capsys, monkeypatch):
    """(found) SIGKILL left .site.*.tmp beside SITE (and derive-pdf-* in TMPDIR) that no later
    build removed. Only derive's own, of a process now gone: a user's folder of such a name,
    and one of a live process, stay."""
    bank = make_bank(tmp_path)
    site = tmp_path / "site"
    progress = tmp_path / "progress"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "DERIVE_TEST_PROGRESS": str(progress), "TMPDIR": str(tmp)}
    proc = subprocess.Popen([sys.executable, "-m", "derive", "build", str(bank), "-o",
                             str(site), "--no-cache", "--jobs", "2", "--only", "key,pdf"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    end = time.monotonic() + 300
    while not _working(progress, proc.pid, "making-pdf") and proc.poll() is None \
            and time.monotonic() < end:
        time.sleep(0.005)  # polling the progress file; the signal waits for the point
    proc.kill()
    proc.wait()
    killed = leftovers(tmp_path)
    assert len(killed) == 1 and str(proc.pid) in killed[0]
    end = time.monotonic() + 60  # its workers die with it (SIGKILL from the kernel)
    while (shutil.which("pdflatex") and not list(tmp.iterdir())) and time.monotonic() < end:
        time.sleep(0.005)
    pdf_left = list(tmp.iterdir())
    user = tmp_path / f".site.{proc.pid}-0123456789abcdef.tmp"  # a name like derive's ...
    user.mkdir()
    (user / "notes.txt").write_text("mine\n", encoding="utf-8")  # ... but not derive's
    live = tmp_path / f".site.{os.getpid()}-fedcba9876543210.tmp"  # a live process's
    live.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr("tempfile.tempdir", None)
    code, out, err = run(capsys, bank, "-o", site, "--no-cache", "--only", "check")
    assert code == 1, err
    assert sorted(leftovers(tmp_path)) == sorted([user.name, live.name])
    assert (user / "notes.txt").is_file()
    if shutil.which("pdflatex"):
        assert pdf_left and list(tmp.iterdir()) == pdf_left  # only a build with pdf looks
        code, out, err = run(capsys, bank, "-o", site, "--no-cache", "--only", "pdf")
        assert list(tmp.iterdir()) == []


@pytest.mark.parametrize("point", ["handler-installed", "running"])
def test_ctrl_c_during_start_up(tmp_path, point):
    """From the instant derive's handler is in place (while SymPy and the layers still load):
    exit 130, one line, no site and nothing else in the folder."""
    from interrupt_runs import interrupt_at

    bank = make_bank(tmp_path)
    out = interrupt_at(["build", str(bank), "-o", "site", "--no-cache", "--jobs", "2",
                        "--only", "key"], tmp_path / "work", point=point)
    assert out.sent and out.problems("build") == []


@pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("xelatex")),
                    reason="no TeX here")
def test_pdf_keys_are_the_same_bytes(tmp_path, capsys):
    bank = tmp_path / "bank"
    bank.mkdir()
    shutil.copy(EXAMPLES / "memory.toml", bank)
    sites = []
    for jobs in (1, 2):
        site = tmp_path / f"site{jobs}"
        code, out, err = run(capsys, bank, "-o", site, "--only", "pdf", "--no-cache",
                             "--jobs", jobs)
        assert code == 0, err
        sites.append(files(site))
    assert sites[0] == sites[1]
    for lang in ("en", "zh"):
        assert sites[0][f"memory/memory-zero2/key.{lang}.pdf"].startswith(b"%PDF-")


def test_the_course_builds_as_check_judges_it(tmp_path, capsys):
    """proofs/course, as README.md shows it: every exercise in the index with the outcome
    `derive check --format json` gives it, and each check.txt the check of that exercise."""
    import json

    site = tmp_path / "site"
    code, out, err = run(capsys, ROOT / "proofs" / "course", "-o", site, "--only", "check",
                         "--lang", "en", "--no-cache")
    assert main(["check", str(ROOT / "proofs" / "course"), "--format", "json"]) == code, err
    judged = json.loads(capsys.readouterr().out)
    outcomes = {e["id"]: e["outcome"] for e in judged["exercises"]}
    assert len(outcomes) >= 17
    index = (site / "index.html").read_text(encoding="utf-8")
    for ex_id, outcome in outcomes.items():
        (row,) = [r for r in index.split("<tr") if f">{escape(ex_id)}<" in r]
        assert f">{outcome}</td>" in row
    built = files(site)
    assert sum(name.endswith("/check.txt") for name in built) == len(outcomes)


def test_the_chinese_index_says_each_status_in_chinese():
    from derive.render.site import Row, index_html

    rows = [Row("a.toml", e, "", s) for e, s in (("x", "ok"), ("y", "wrong"),
                                                   ("z", "undecided"), ("v", "invalid"))]
    page = index_html([*rows, Row("b.toml", line="bad")], "zh")
    for word in ("正确", "有误", "未定", "无效"):
        assert f">{word}<" in page or f">{word}<br>" in page
    assert ">wrong<" not in page and ">ok<" not in page
