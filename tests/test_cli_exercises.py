"""`derive check`, `derive key` and `derive recipes` against the contract: JSON fields, exit
codes, atomic output that never overwrites an input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from derive.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "proofs" / "course" / "lesson03.toml"
READING = ROOT / "proofs" / "course" / "reading.toml"
MISTAKES = ROOT / "tests" / "data" / "mistakes.toml"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_key_json_contract(capsys):
    code, out, _ = run(capsys, "key", READING, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    ex = {e["id"]: e for e in doc["exercises"]}
    three = ex["reading-three-records"]
    assert three["recipe"] == "accumulation"
    g = three["quantities"]["gradient"]
    assert set(g) == {"exact", "decimal", "latex", "formula"}  # formula: an extension
    assert g["exact"] == "14/3" and g["decimal"].startswith("4.666666666666")
    assert g["latex"] == r"\frac{14}{3}"
    assert three["quantities"]["weights"]["exact"] == ["2/3", "1/3"]
    assert three["quantities"]["w_micro_steps"]["exact"] == ["3/4", "3/40"]
    assert three["quantities"]["w_new"]["exact"] == "8/15"
    assert three["quantities"]["w_new_mean_of_means"]["exact"] == "17/40"


def test_check_json_contract(capsys):
    code, out, _ = run(capsys, "check", MISTAKES, "--format", "json")
    assert code == 1
    doc = json.loads(out)
    first = doc["exercises"][0]
    assert {"id", "recipe", "quantities", "claims"} <= set(first)
    claim = first["claims"][0]
    assert set(claim) >= {"name", "claimed", "status", "expected", "diagnosis"}
    assert claim == {**claim, "name": "gradient", "claimed": "5.75", "status": "wrong",
                     "expected": "14/3"}
    assert claim["diagnosis"]["mistake"] == "mean_of_means"


def test_check_course_exit_0_and_mistakes_exit_1(capsys):
    assert run(capsys, "check", ROOT / "proofs" / "course")[0] == 0
    assert run(capsys, "check", LESSON, MISTAKES)[0] == 1


def test_key_markdown_english_and_chinese(capsys):
    code, out, _ = run(capsys, "key", LESSON)
    assert code == 0
    assert out.startswith("# Answer key")
    assert "| `w_new` | $w' = w - \\eta \\cdot g$ | $1.2$ | 1.2 |" in out
    code, out, _ = run(capsys, "key", LESSON, "--lang", "zh")
    assert out.startswith("# 参考答案") and "梯度 (`gradient`)" in out


def test_key_output_file_is_written_atomically(tmp_path, capsys):
    out_file = tmp_path / "key.md"
    code, out, _ = run(capsys, "key", LESSON, "-o", out_file)
    assert code == 0 and out == ""
    text = out_file.read_text(encoding="utf-8")
    assert text.startswith("# Answer key") and text.endswith("\n")
    assert [p.name for p in tmp_path.iterdir()] == ["key.md"]  # no temporary file left


def test_key_refuses_to_overwrite_an_input(tmp_path, capsys):
    src = tmp_path / "ex.toml"
    src.write_bytes(LESSON.read_bytes())
    before = src.read_bytes()
    code, _, err = run(capsys, "key", src, "-o", src)
    assert code == 2 and "input" in err
    assert src.read_bytes() == before


def test_invalid_input_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[exercise]]\nid="a"\nrecipe="nope"\n')
    out_file = tmp_path / "key.md"
    code, _, err = run(capsys, "key", LESSON, bad, "-o", out_file)
    assert code == 2 and "recipe" in err
    assert not out_file.exists()


def test_output_into_missing_folder_is_refused(tmp_path, capsys):
    code, _, err = run(capsys, "key", LESSON, "-o", tmp_path / "no" / "key.md")
    assert code == 2 and "does not exist" in err


@pytest.mark.parametrize("name", ["sgd_step", "accumulation", "clipping"])
def test_recipes_lists_every_quantity(capsys, name):
    from derive.recipes import RECIPES
    code, out, _ = run(capsys, "recipes", name)
    assert code == 0
    for q in RECIPES[name].quantities:
        assert f"  {q.name} " in out


def test_recipes_unknown_name(capsys):
    code, _, err = run(capsys, "recipes", "acumulation")
    assert code == 2 and "did you mean 'accumulation'" in err


def test_python_dash_m_is_the_same_program(tmp_path):
    done = subprocess.run([sys.executable, "-m", "derive", "check", str(LESSON), "--format",
                           "json"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["exercises"][0]["id"] == "lesson03-example"


def test_sig_claim_on_a_large_value(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text('[[exercise]]\nid="s"\nrecipe="accumulation"\n[exercise.given]\n'
                    'microbatch_sizes=[1]\nmicrobatch_mean_gradients=[999.6]\n'
                    '[exercise.claims]\ngradient = { value = 1000, sig = 3 }\n')
    code, out, _ = run(capsys, "check", path)
    assert code == 0 and " within " in out
