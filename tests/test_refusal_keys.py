"""A refusal on the page path (KaTeX's bound on a formula, the digits derive writes) names the
file, the exercise and the key that is its cause: `define.f` for an author's quantity,
`given.records` for a given, never `claims.f` for an exercise without claims."""

from __future__ import annotations

import contextlib
import io

import pytest

import derive.render.numbers as numbers
from derive.cli.main import main

pytest.importorskip("quickjs")

import derive.render.katex as katex  # noqa: E402

NO_CLAIMS = ('[[exercise]]\nid = "nc"\nrecipe = "formulas"\n[exercise.given]\nw = 3\n'
             '[exercise.define]\nf = "w^2 + w^3 + w^4 + w^5 + w^6"\n')
SGD = ('[[exercise]]\nid = "ex-1"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.1\n'
       'records = [[2, 4], [1, 3], [3, 5], [7, 9], [11, 13], [17, 19]]\n')


def run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(argv))
    return code, err.getvalue()


@pytest.fixture(autouse=True)
def fresh_katex():
    katex.render.cache_clear()
    yield
    katex.render.cache_clear()


def test_a_working_past_katex_bound_names_its_define_key(tmp_path, monkeypatch):
    path = tmp_path / "nc.toml"
    path.write_text(NO_CLAIMS, encoding="utf-8")
    monkeypatch.setattr(katex, "MAX_FORMULA_CHARS", 60)
    code, err = run("export", str(path), "--format", "html", "-o", str(tmp_path / "p.html"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{path}: exercise 'nc': key 'define.f': not supported: a formula of " in err
    assert "claims" not in err and not (tmp_path / "p.html").exists()


def test_a_given_past_katex_bound_names_the_given(tmp_path, monkeypatch):
    path = tmp_path / "sgd.toml"
    path.write_text(SGD, encoding="utf-8")
    monkeypatch.setattr(katex, "MAX_FORMULA_CHARS", 100)  # the records' line is longer
    code, err = run("export", str(path), "--format", "html", "-o", str(tmp_path / "p.html"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{path}: exercise 'ex-1': key 'given.records': not supported: a formula of " in err


def test_a_value_past_the_digits_bound_names_its_define_key(tmp_path, monkeypatch):
    path = tmp_path / "nc.toml"
    path.write_text(NO_CLAIMS.replace("w = 3", "w = 123456789"), encoding="utf-8")
    monkeypatch.setattr(numbers, "MAX_TEXT_DIGITS", 20)  # w^6 has 49 digits
    for fmt in ("html", "md"):
        code, err = run("export", str(path), "--format", fmt)
        assert code == 2, err
        assert f"{path}: exercise 'nc': key 'define.f': not supported: its exact value" in err
