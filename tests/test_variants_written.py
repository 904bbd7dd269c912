"""Variant files always read back: every author string (title, id, the input's file name) is
escaped for TOML, so a file parses with tomllib to the values written and holds exactly the
exercises written (a name with a line break injects nothing; DEL or C1 do not break it)."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.cli.main import main
from derive.exercises import load
from derive.exercises.variants import generate, render
from derive.exercises.writer import comment, string

SOURCE = ('[[exercise]]\nid = "a"\ntitle = "t"\nrecipe = "sgd_step"\n[exercise.given]\n'
          'w = 1\nlr = 0.1\nrecords = [[2, 4]]\n[exercise.vary]\nw = { choices = [1, 2] }\n')
ID_TEXT = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.",
                  min_size=1, max_size=20)
HOSTILE = ["\n[[exercise]]\nid = \"x\"", "\x7f", "\r", "\u2028", "\u2029", "\x85", "\x00",
           "\\", '"', "'''", "\t", "\x1b[31m"]


@pytest.fixture(scope="module")
def one(tmp_path_factory):
    path = tmp_path_factory.mktemp("src") / "a.toml"
    path.write_text(SOURCE, encoding="utf-8")
    ex = load([str(path)])[0]
    return ex, generate(ex, 1, 0).variants[0]


@settings(max_examples=80)
@given(title=st.text(max_size=40) | st.sampled_from(HOSTILE), name=st.text(max_size=40) |
       st.sampled_from(HOSTILE), ex_id=ID_TEXT)
def test_any_title_file_name_and_id_read_back(one, title, name, ex_id):
    ex, variant = one
    ex = dataclasses.replace(ex, title=title, path=name, id=ex_id)
    variant = dataclasses.replace(variant, id=f"{ex_id}-v001")
    text = render(ex, variant, 1)
    data = tomllib.loads(text)
    assert list(data) == ["exercise"] and len(data["exercise"]) == 1
    written = data["exercise"][0]
    assert written["id"] == f"{ex_id}-v001"
    assert written.get("title", "") == (title + " (variant 1)" if title else "")
    assert text.splitlines()[1] == ""  # the header comment is one line


@settings(max_examples=200)
@given(text=st.text())
def test_strings_and_comments(text):
    safe = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate: no file has one
    assert tomllib.loads(f"k = {string(safe)}")["k"] == safe
    assert tomllib.loads(f"# {comment(text)}\nk = 1") == {"k": 1}


def test_a_file_name_with_a_line_break_injects_no_exercise(tmp_path, capsys):
    src = tmp_path / 'x\n[[exercise]]\nid = "evil"\nrecipe = "sgd_step"\n.toml'
    src.write_text(SOURCE.replace('"t"', '"a\\u007Fb\\u009F"'), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["variants", str(src), "-n", "2", "-o", str(out)]) == 0
    capsys.readouterr()
    for f in out.iterdir():
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        assert [e["id"] for e in data["exercise"]] == [f.stem]
        assert data["exercise"][0]["title"].startswith("a\x7fb\x9f (variant ")
    assert main(["check", str(out)]) == 0
    assert "evil" not in capsys.readouterr().out
