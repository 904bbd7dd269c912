"""The file-system and message defects of issue 26's hostile campaign: symbolic-link loops as
input, in a folder and as `-o`; `-o` and `--chart` never written through a link, atomic, never
one over the other; and messages that say what is wrong, in one short line."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import stat
import threading
import time
from pathlib import Path

import pytest

from derive.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
GOOD = ROOT / "tests" / "hostile" / "good.toml"
VARY = ROOT / "proofs" / "course" / "variants.toml"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def refused(code: int, err: str, *words: str) -> None:
    """Exit 2, one line, no internal error, every word in it."""
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "internal error" not in err and "Traceback" not in err, err
    for w in words:
        assert w in lines[0], lines[0]


# ------------------------------------------------------------------------ symbolic-link loops

INPUT_COMMANDS = [["check"], ["key"], ["export"], ["variants", "-n", "2"], ["prove"]]


@pytest.mark.parametrize("command", INPUT_COMMANDS, ids=lambda c: c[0])
def test_an_input_that_is_a_link_loop_is_one_line(tmp_path, command, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("l.toml").symlink_to("l.toml")
    code, _, err = run(*command, "l.toml")
    refused(code, err, "l.toml", "is a symbolic-link loop")


@pytest.mark.parametrize("command", INPUT_COMMANDS, ids=lambda c: c[0])
def test_a_link_loop_inside_a_folder_is_named(tmp_path, command, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bank").mkdir()
    shutil.copy(GOOD, "bank/a.toml")
    Path("bank/x.toml").symlink_to("y.toml")
    Path("bank/y.toml").symlink_to("x.toml")
    code, _, err = run(*command, "bank/")
    refused(code, err, os.path.join("bank", "x.toml"), "is a symbolic-link loop")


@pytest.mark.parametrize("command", [["key", GOOD], ["export", GOOD], ["ledger", "--params", "1e9"],
                                     ["variants", "-n", "1", VARY]],
                         ids=lambda c: c[0])
def test_an_output_that_is_a_link_loop_is_refused(tmp_path, command, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("loop").symlink_to("loop")
    code, _, err = run(*command, "-o", "loop")
    refused(code, err, "-o loop", "symbolic link")
    code, _, err = run(*command, "-o", "loop/out")
    refused(code, err, "-o loop/out", "symbolic-link loop")
    assert sorted(os.listdir(tmp_path)) == ["loop"]


# ------------------------------------------------------------------------ -o through a link

@pytest.mark.parametrize("command", [["key", GOOD], ["export", GOOD], ["ledger", "--params", "1e9"]],
                         ids=lambda c: c[0])
def test_o_never_writes_through_a_link(tmp_path, command, monkeypatch):
    monkeypatch.chdir(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "victim.txt"
    victim.write_text("kept\n")
    Path("out.md").symlink_to(victim)
    code, _, err = run(*command, "-o", "out.md")
    refused(code, err, "-o out.md", "is a symbolic link")
    assert victim.read_text() == "kept\n"
    assert Path("out.md").is_symlink()


def test_variants_o_never_writes_into_a_linked_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("real").mkdir()
    Path("bank").symlink_to("real", target_is_directory=True)
    code, _, err = run("variants", "-n", "1", VARY, "-o", "bank")
    refused(code, err, "-o bank", "is a symbolic link")
    assert os.listdir("real") == []


# ------------------------------------------------------------------------ ledger --chart

def test_chart_through_a_link_is_refused(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim.svg"
    victim.write_text("kept\n")
    Path("chart.svg").symlink_to(victim)
    code, _, err = run("ledger", "--params", "1e9", "--chart", "chart.svg")
    refused(code, err, "--chart chart.svg", "is a symbolic link")
    assert victim.read_text() == "kept\n"


def test_chart_into_derive_itself_is_refused(tmp_path):
    target = ROOT / "derive" / "campaign26-chart.svg"
    try:
        code, _, err = run("ledger", "--params", "1e9", "--chart", target)
        refused(code, err, "--chart", "a file of derive itself")
        assert not target.exists()
    finally:
        target.unlink(missing_ok=True)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_chart_to_a_fifo_is_refused_without_opening_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkfifo("chart.svg")
    got: list[bytes] = []
    # a reader, so that a writer that opens the FIFO (the defect) does not block forever
    reader = threading.Thread(target=lambda: got.append(Path("chart.svg").read_bytes()),
                              daemon=True)
    reader.start()
    code, _, err = run("ledger", "--params", "1e9", "--chart", "chart.svg")
    for _ in range(600):  # let the reader end: open for writing once it waits, then close
        try:
            os.close(os.open("chart.svg", os.O_WRONLY | os.O_NONBLOCK))
            break
        except OSError:  # ENXIO: no reader yet (a writer came and went, or not started)
            if not reader.is_alive():
                break
            time.sleep(0.05)
    reader.join(60)
    refused(code, err, "--chart chart.svg", "not a regular file")
    assert got == [b""]
    assert stat.S_ISFIFO(os.lstat("chart.svg").st_mode)


@pytest.mark.parametrize("out", ["x.svg", "./x.svg", "sub/../x.svg"])
def test_chart_and_o_naming_one_file_are_refused(tmp_path, monkeypatch, out):
    monkeypatch.chdir(tmp_path)
    Path("sub").mkdir()
    code, _, err = run("ledger", "--params", "1e9", "--chart", "x.svg", "-o", out)
    refused(code, err, "--chart x.svg", "the same file")
    assert not Path("x.svg").exists()


def test_a_failed_chart_leaves_the_old_chart_whole(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import derive.render.ledger as rl

    monkeypatch.chdir(tmp_path)
    Path("chart.svg").write_text("<svg>old</svg>\n")

    def failing(params, ledger, dp, act, path):
        with open(path, "w") as fh:
            fh.write("<svg>half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rl, "draw_chart", failing)
    code, _, err = run("ledger", "--params", "1e9", "--chart", "chart.svg")
    refused(code, err, "--chart chart.svg", "No space left")
    assert Path("chart.svg").read_text() == "<svg>old</svg>\n"
    assert os.listdir(".") == ["chart.svg"]  # no temporary file left


def test_chart_is_written_and_replaced_atomically(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    Path("chart.svg").write_text("old\n")
    os.chmod("chart.svg", 0o640)
    code, _, err = run("ledger", "--params", "1e9", "--chart", "chart.svg", "-o", "t.txt")
    assert code == 0, err
    assert Path("chart.svg").read_text().lstrip().startswith("<?xml")
    assert os.stat("chart.svg").st_mode & 0o777 == 0o640
    assert sorted(os.listdir(".")) == ["chart.svg", "t.txt"]


# ------------------------------------------------------------------------ messages

VARY_ONE = '''[[exercise]]
id = "v"
title = "t"
recipe = "sgd_step"

[exercise.given]
w = 1
lr = 0.05
records = [[2, 4]]

[exercise.vary]
w = { from = -2, to = 2, step = 0.5 }

[exercise.require]
w_new = "REQUIRE"
'''

FORMULA = '''[[exercise]]
id = "f"
title = "t"
recipe = "formulas"

[exercise.given]
w = 2
records = { columns = ["x", "y"], rows = [[1, 1]] }

[exercise.define]
loss = "FORMULA"
'''


def test_an_exponent_in_scientific_notation_says_what_it_is(tmp_path):
    path = tmp_path / "f.toml"
    path.write_text(FORMULA.replace("FORMULA", "w^1e-30"), encoding="utf-8")
    code, _, err = run("check", path)
    refused(code, err, "exponent", "is 1/10^30,", "fraction", "1e-30")
    assert "huge number" not in err


@pytest.mark.parametrize("places", ["99999999999999999999", "31", "2.5", "-1"])
def test_a_condition_with_places_out_of_range_gives_the_range(tmp_path, places):
    path = tmp_path / "v.toml"
    path.write_text(VARY_ONE.replace("REQUIRE", f"places <= {places}"), encoding="utf-8")
    code, _, err = run("variants", "-n", "1", path)
    refused(code, err, "key 'require.w_new'", "from 0 to 30")
    assert "relates" not in err


def test_a_byte_order_mark_is_read_as_nothing(tmp_path):
    exercise = tmp_path / "bom.toml"
    exercise.write_bytes(b"\xef\xbb\xbf" + GOOD.read_bytes())
    code, out, err = run("check", exercise)
    assert code == 0, err
    assert "every claim holds" in out
    statements = tmp_path / "s.toml"
    statements.write_bytes(b"\xef\xbb\xbf" + (ROOT / "docs" / "examples" / "statements.toml")
                           .read_bytes())
    code, out, err = run("prove", statements)
    assert code == 0, err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root searches every folder: run as a user to test permissions")
@pytest.mark.parametrize("command", INPUT_COMMANDS, ids=lambda c: c[0])
def test_an_input_in_an_unsearchable_folder_cannot_be_read(tmp_path, command):
    locked = tmp_path / "locked"
    locked.mkdir()
    shutil.copy(GOOD, locked / "a.toml")
    locked.chmod(0o600)  # readable, not searchable
    try:
        code, _, err = run(*command, locked / "a.toml")
    finally:
        locked.chmod(0o700)
    refused(code, err, "a.toml", "cannot be read", "permission")
    assert "write the output" not in err


# ------------------------------------------------------------------------ one message rule

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

HOSTILE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
                  max_size=50).map(lambda s: s * (5000 // len(s) + 1))
"""Names of 5,000 characters and more, of any characters: controls, bidirectional marks,
quotes, new lines."""
RAW_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                         "\u2066-\u2069]")


def _toml_string(s: str) -> str:
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\U{ord(c):08x}"
                         for c in s) + '"'


def _one_short_line(err: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err[:500]
    assert len(lines[0]) < 300, lines[0]
    assert not RAW_CONTROL.search(lines[0]), lines[0]


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=HOSTILE, where=st.sampled_from(["id", "key", "given", "recipe", "places"]))
def test_error_lines_for_hostile_names_are_short_and_clean(tmp_path, monkeypatch, name, where):
    monkeypatch.chdir(tmp_path)  # the file's name is short: the line's length is the names'
    text = GOOD.read_text(encoding="utf-8")
    q = _toml_string(name)
    text = {"id": text.replace('id = "lesson03-ex1"', f"id = {q}"),
            "key": text.replace("[exercise.given]", f"[exercise.given]\n{q} = 1"),
            "given": text.replace("w = 1", f"w = {q}"),
            "recipe": text.replace('recipe = "sgd_step"', f"recipe = {q}"),
            "places": text + f"\n[exercise.vary]\nw = {{ choices = [1, 2] }}\n"
                             f"[exercise.require]\nw_new = {q}\n"}[where]
    path = Path("h.toml")
    path.write_text(text, encoding="utf-8")
    code, _, err = run("variants" if where == "places" else "check",
                       *(["-n", "1"] if where == "places" else []), path)
    if code == 2:
        _one_short_line(err)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",),
                                  exclude_characters="/\x00"), min_size=1, max_size=60))
def test_error_lines_for_hostile_file_names_are_short_and_clean(tmp_path, name):
    folder = tmp_path
    for _ in range(20):  # a path of 3,000 characters (PATH_MAX is 4,096 bytes)
        folder = folder / ("d" * 150)
    name = name.encode("utf-8")[:200].decode("utf-8", "ignore") or "x"
    if name in (".", ".."):
        name = "x"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("not = [valid", encoding="utf-8")
    code, _, err = run("check", path)
    assert code == 2
    _one_short_line(err)
