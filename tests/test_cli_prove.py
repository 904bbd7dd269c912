"""`derive prove`: its JSON fields, its text, its exit codes (0 all as expected, 1 something is
not, 2 misuse), in-process and once as `python -m derive`."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import derive.statements.registry as registry
from derive.cli.main import main
from derive.kernel import Verdict
from derive.kernel.exact import exact
from derive.statements.registry import all_statements

ROOT = Path(__file__).resolve().parents[1]
CONTRACT_FIELDS = {"id", "title", "expect", "verdict", "witness", "seconds"}
IDS = [s.id for s in all_statements()]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, "prove", "--format", "json", *argv)
    return code, json.loads(out), err


def check_record(rec: dict) -> None:
    assert CONTRACT_FIELDS <= set(rec)
    assert isinstance(rec["id"], str) and isinstance(rec["title"], str) and rec["title"]
    assert rec["expect"] in ("proved", "refuted")
    assert rec["verdict"] in ("proved", "refuted", "unknown")
    assert isinstance(rec["seconds"], (int, float)) and not isinstance(rec["seconds"], bool)
    assert rec["seconds"] >= 0
    if rec["verdict"] == "refuted":
        w = rec["witness"]
        assert set(w) >= {"shape", "assignment", "lhs", "rhs"}
        # exact strings such as "-1/4"; a side with a square root (Adam, BatchNorm) is the
        # closed form SymPy prints, and the kernel decided the difference is not zero
        if "sqrt" not in w["lhs"] + w["rhs"]:
            assert exact(w["lhs"]) != exact(w["rhs"])
        else:
            assert w["lhs"] != w["rhs"]
        for value in w["assignment"].values():
            assert exact(value).is_Rational
    else:
        assert rec["witness"] is None


@pytest.fixture(scope="module")
def everything():
    """`derive prove --format json` once for the module (it decides every statement)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["prove", "--format", "json"])
    return code, json.loads(out.getvalue()), err.getvalue()


def test_json_lists_every_statement_as_expected(everything):
    code, data, err = everything
    assert code == 0
    assert err == ""
    assert set(data) == {"statements"}
    records = data["statements"]
    assert [r["id"] for r in records] == IDS
    for rec in records:
        check_record(rec)
        assert rec["verdict"] == rec["expect"]
        assert rec["verdict"] != "unknown"
    by_id = {r["id"]: r for r in records}
    for sid in ("A1", "A2", "A3"):
        assert by_id[sid]["verdict"] == "proved" and by_id[sid]["witness"] is None
    assert sum(r["verdict"] == "refuted" for r in records) >= 6


def test_json_witness_of_mean_of_means(everything):
    _, data, _ = everything
    rec = next(r for r in data["statements"] if r["id"] == "mean-of-means")
    assert rec["witness"]["lhs"] == "-1/4" and rec["witness"]["rhs"] == "-1/3"
    assert rec["witness"]["shape"] == "n = (1, 2)"


def test_prove_one_id_prints_only_that_statement(capsys):
    code, data, err = run_json(capsys, "A2")
    assert code == 0 and err == ""
    assert [r["id"] for r in data["statements"]] == ["A2"]
    check_record(data["statements"][0])
    assert data["statements"][0]["verdict"] == "proved"

    code, out, err = run(capsys, "prove", "A2")
    assert code == 0 and err == ""
    ids_shown = {line.split()[0] for line in out.splitlines()
                 if line.strip() and line.split()[0] in IDS}
    assert ids_shown == {"A2"}
    for other in IDS:
        if other != "A2":
            assert other not in out.split()
    assert out.splitlines()[-1].startswith("1 statement")


def test_prove_keeps_the_order_asked(capsys):
    code, data, _ = run_json(capsys, "mean-of-means", "A1")
    assert code == 0
    assert [r["id"] for r in data["statements"]] == ["mean-of-means", "A1"]
    assert data["statements"][0]["verdict"] == "refuted"


def test_text_output_shows_verdicts_and_witnesses(capsys):
    code, out, err = run(capsys, "prove", "A1", "undivided-sum")
    assert code == 0 and err == ""
    lines = out.splitlines()
    a1 = next(line for line in lines if line.startswith("A1 "))
    assert "proved" in a1.split()
    assert any("witness" in line and "lhs=-1" in line and "rhs=-1/2" in line for line in lines)
    assert "all as expected" in lines[-1]


@pytest.mark.parametrize(("typo", "suggestion"), [
    ("A 2", "A2"),
    ("A22", "A2"),
    ("mean-of-mean", "mean-of-means"),
    ("undivided_sum", "undivided-sum"),
])
def test_an_unknown_id_exits_2_with_a_suggestion(capsys, typo, suggestion):
    code, out, err = run(capsys, "prove", typo)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert repr(typo) in lines[0] or typo in lines[0]
    assert f"did you mean '{suggestion}'" in lines[0]
    assert "Traceback" not in err


@pytest.mark.parametrize("name", ["nope", "a2", "Z9", "--"])
def test_an_unknown_id_exits_2_naming_it(capsys, name):
    argv = ["prove", name] if name != "--" else ["prove", "--", "x-y-z"]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert (name if name != "--" else "x-y-z") in lines[0]


def test_an_unknown_id_among_known_ones_runs_nothing(capsys):
    code, out, err = run(capsys, "prove", "A1", "no-such-id", "A2")
    assert code == 2 and out == ""
    assert "no-such-id" in err


@pytest.mark.parametrize("argv", [
    ["prove", "--format", "xml"],
    ["prove", "--no-such-option"],
    [],
    ["no-such-command"],
])
def test_misuse_exits_2(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err


def test_an_invalid_proofs_folder_exits_2_with_one_line(capsys, monkeypatch):
    def broken():
        raise registry.InvalidProofs("proofs/a9.py: defines no STATEMENT = Statement(...)")

    monkeypatch.setattr(registry, "all_statements", broken)
    code, out, err = run(capsys, "prove")
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "proofs/a9.py" in err and "Traceback" not in err


# --------------------------------------------------------------------------- wrong statements

def wrong_a2():
    """A2 with the course's ∇L = 14/3 edited to 5."""
    s = next(s for s in all_statements() if s.id == "A2")
    inst = s.instances[0]
    changed = replace(inst, expected={**inst.expected, "∇L": "5"})
    return replace(s, instances=(changed, *s.instances[1:]))


def test_an_edited_expected_value_exits_1_via_select(capsys, monkeypatch):
    monkeypatch.setattr(registry, "select", lambda ids: [wrong_a2()])
    code, data, err = run_json(capsys)
    assert code == 1
    (rec,) = data["statements"]
    check_record(rec)
    assert rec["id"] == "A2" and rec["verdict"] == "proved"   # the proof stands; the number not
    assert rec["ok"] is False

    code, out, _ = run(capsys, "prove")
    assert code == 1
    assert "NOT as expected: A2" in out
    assert "∇L should be 5, computed 14/3" in out


def test_an_edited_expected_value_exits_1_via_the_registry(capsys, monkeypatch):
    original = registry.all_statements

    def edited():
        return [wrong_a2() if s.id == "A2" else s for s in original()]

    monkeypatch.setattr(registry, "all_statements", edited)
    code, out, err = run(capsys, "prove")
    assert code == 1
    assert "NOT as expected: A2" in out
    code, data, _ = run_json(capsys, "A1", "A2")
    assert code == 1
    assert [r["id"] for r in data["statements"]] == ["A1", "A2"]
    code, data, _ = run_json(capsys, "A1", "A3")      # A2 not asked: all as expected
    assert code == 0


def test_a_flipped_expectation_exits_1(capsys, monkeypatch):
    s = next(s for s in all_statements() if s.id == "undivided-sum")
    flipped = replace(s, expect=Verdict.PROVED)
    monkeypatch.setattr(registry, "select", lambda ids: [flipped])
    code, data, _ = run_json(capsys)
    assert code == 1
    (rec,) = data["statements"]
    assert rec["expect"] == "proved" and rec["verdict"] == "refuted"


# --------------------------------------------------------------------------- python -m derive

def test_python_m_derive_prove_json():
    proc = subprocess.run(
        [sys.executable, "-m", "derive", "prove", "--format", "json"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    records = data["statements"]
    assert [r["id"] for r in records] == IDS
    for rec in records:
        check_record(rec)
        assert rec["verdict"] == rec["expect"] != "unknown"
    assert {r["id"]: r["verdict"] for r in records if r["id"] in ("A1", "A2", "A3")} == {
        "A1": "proved", "A2": "proved", "A3": "proved"}


def test_the_run_time_bound_leaves_statements_unknown(capsys, monkeypatch):
    """Past --total-time-limit no statement is begun: each left is `unknown`, exit 1 (a file
    of many slow statements cannot run for its length times the kernel's bound)."""
    import derive.statements.parallel as parallel

    clock = iter([0.0] + [10.0] * 100)
    monkeypatch.setattr(parallel.time, "monotonic", lambda: next(clock))
    assert main(["prove", "A1", "A2", "--jobs", "1", "--total-time-limit", "5",
                 "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)["statements"]
    assert [s["verdict"] for s in out] == ["unknown", "unknown"]


def test_the_run_time_bound_must_be_positive(capsys):
    assert main(["prove", "A1", "--total-time-limit", "0"]) == 2
    assert "--total-time-limit: is 0, not > 0" in capsys.readouterr().err
