"""One message rule (issue 26): every line derive prints for invalid input or misuse is under
300 characters for author strings of ordinary length, and derive's own words in a message are
at most 200 characters (the rest is the file, the exercise, the key and the author's strings,
each quoted short). tests/hostile_cases.py measures every line its cases produce too."""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import pytest

from derive.cli.main import main
from derive.errors import MAX_LINE, InputError, capped

MAX_MESSAGE = 300
MAX_WORDS = 200
DERIVE = Path(__file__).resolve().parent.parent / "derive"

OK = ('[[exercise]]\nid = "ok"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.1\n'
      'records = [[2, 4]]\n[exercise.claims]\nw_new = 1.4\n')
BAD = {
    "unknown-given.toml": OK.replace("lr = 0.1", "learning_rate = 0.1"),
    "bad-claim.toml": OK.replace("w_new = 1.4", 'w_new = "abc"'),
    "bad-recipe.toml": OK.replace("sgd_step", "sgd_stepp"),
    "bad-formula.toml": ('[[exercise]]\nid = "f"\nrecipe = "formulas"\n[exercise.given]\n'
                         'w = 2\n[exercise.define]\nf = "w +* 2"\n'),
    "no-claims-huge.toml": ('[[exercise]]\nid = "h"\nrecipe = "formulas"\n[exercise.given]\n'
                            'w = 3\n[exercise.define]\nf = "exp(w^100)"\n'),
    "not-toml.toml": "[[exercise]\nid = ",
}


def run(argv, cwd) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stderr(err), \
            contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's own usage errors
            code = exc.code
    return code, err.getvalue()


MISUSE = [
    ["check", "nothere.toml"], ["check", "ok.toml", "--time-limit", "0"],
    ["check", "ok.toml", "--total-time-limit", "-1"], ["key", "nothere"],
    ["key", "ok.toml", "-o", "ok.toml"], ["key", "ok.toml", "-o", "folder"],
    ["export", "nothere"], ["export", "ok.toml", "--variants", "3"],
    ["export", "ok.toml", "--variants", "3", "--format", "html"],
    ["export", "ok.toml", "--format", "html", "--variants", "0"],
    ["export", "A2", "--questions"], ["variants", "ok.toml", "-n", "3"],
    ["variants", "ok.toml", "-n", "0"], ["prove", "nosuchid"], ["build", "nothere", "-o", "s"],
    ["build", "ok.toml", "-o", "s"], ["ledger", "--params", "-5"],
    ["ledger", "--params", "1e9", "--chart", "c.gif"],
    *[[cmd, name] for name in BAD for cmd in ("check", "key", "export")],
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("misuse")
    (d / "ok.toml").write_text(OK, encoding="utf-8")
    (d / "folder").mkdir()
    for name, text in BAD.items():
        (d / name).write_text(text, encoding="utf-8")
    return d


@pytest.mark.parametrize("argv", MISUSE, ids=" ".join)
def test_every_misuse_line_is_short(argv, folder):
    code, err = run(argv, folder)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert lines, argv
    for ln in lines:
        assert len(ln) < MAX_MESSAGE and " … " not in ln, ln


def _words(node) -> int:
    """Characters of derive's own words in a message argument (author values not counted)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return len(node.value)
    if isinstance(node, ast.JoinedStr):
        return sum(_words(v) for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _words(node.left) + _words(node.right)
    return 0


MESSAGE_CALLS = ("Error", "Refused", "NotSupported", "fail", "unsupported", "Undefined",
                 "Unsupported", "TooLong")


def _message_calls():
    for path in sorted(DERIVE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func).endswith(MESSAGE_CALLS):
                words = sum(_words(a) for a in node.args) + sum(
                    _words(k.value) for k in node.keywords)
                yield f"{path.relative_to(DERIVE.parent)}:{node.lineno}", words


def test_derives_own_words_in_a_message_are_short():
    calls = list(_message_calls())
    assert len(calls) > 200  # the scan finds derive's messages
    long = [(where, n) for where, n in calls if n > MAX_WORDS]
    assert not long, long


def test_the_last_resort_cap_cuts_the_middle_once():
    assert MAX_LINE <= MAX_MESSAGE + 100  # room for a deep path (pytest's tmp_path)
    line = InputError(capped("x" * 5000)).line()
    assert len(line) <= MAX_LINE and " … " in line
