"""`make demo`, the README's first command: derive's main job on the bundled course (prove,
check, build the site), each command with its summary line, and the next step to try at the
end; a command that does not succeed prints all it said and stops the demo with its code.

Issue 37: the demo printed 358 lines (setuptools warnings among them) and ended on the last
exercise of `derive check`, with no next step; after it `derive build` refused every page.

The Makefile runs here with a virtual environment of the test's own whose `derive` runs this
tree (the stamp newer than pyproject.toml: nothing is installed), in a folder of its own
where `proofs` and `pyproject.toml` are links to the repository's."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def demo(tmp_path: Path, derive: str) -> subprocess.CompletedProcess:
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    script = venv / "bin" / "derive"
    script.write_text(f"#!/bin/sh\n{derive}\n", encoding="utf-8")
    script.chmod(0o755)
    for name in ("proofs", "pyproject.toml"):
        (tmp_path / name).symlink_to(ROOT / name)
    (venv / ".demo-stamp").touch()
    # as a user types it: not a sub-make of `make test` (whose MAKELEVEL and MAKEFLAGS would
    # make it print "Entering directory …" around the demo's own lines)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    env.update(PYTHONPATH=str(ROOT), DERIVE_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run([make, "-f", str(ROOT / "Makefile"), "demo", "VENV=venv"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)


def test_make_demo_runs_the_main_job_and_ends_with_the_next_step(tmp_path):
    done = demo(tmp_path, f'exec {sys.executable} -m derive "$@"')
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert len(lines) == 9, lines
    assert lines[0] == "$ derive prove"
    assert re.fullmatch(r"\d+ statements: \d+ proved, \d+ refuted; .*; all as expected", lines[1])
    assert lines[2] == "$ derive check proofs/course"
    assert re.fullmatch(r"\d+ exercises, \d+ claims: .*; every claim holds", lines[3])
    assert lines[4] == "$ derive build proofs/course -o site"
    built = re.fullmatch(r"built site: (\d+) exercise\(s\) \((\d+) ok\), 0 invalid file\(s\); "
                         r"(\d+) computed, 0 from the cache", lines[5])
    assert built and built.group(1) == built.group(2) == built.group(3), lines[5]
    assert lines[6].startswith("next: open site/index.html")
    assert "derive serve proofs/course" in lines[7]
    assert "derive check my-exercise.toml" in lines[8]
    site = tmp_path / "site"
    exercises = int(built.group(1))
    for lang in ("en", "zh"):  # the pages too: KaTeX's engine comes with derive
        assert len(list(site.glob(f"*/*/page.{lang}.html"))) == exercises
        assert len(list(site.glob(f"students/*/*/page.{lang}.html"))) == exercises


def test_a_command_that_fails_stops_the_demo_with_all_it_said(tmp_path):
    done = demo(tmp_path, 'echo "line 1 of $1"; echo "line 2 of $1" >&2; '
                          '[ "$1" = check ] && exit 1; exit 0')
    assert done.returncode != 0
    assert done.stdout.splitlines() == ["$ derive prove", "line 2 of prove",
                                        "$ derive check proofs/course", "line 1 of check",
                                        "line 2 of check"]
    assert not (tmp_path / "site").exists()
