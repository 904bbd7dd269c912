"""KaTeX in QuickJS is bounded by its input and by the command's time bound: a formula past
MAX_FORMULA_CHARS is one "not supported" line before KaTeX runs; each formula gets at most
what is left of the command's bound, and the bound passing (between formulas, or QuickJS
interrupted) is the command's time-bound line; never KaTeX's JavaScript stack."""

from __future__ import annotations

import pytest

pytest.importorskip("quickjs")

import derive.render.katex as katex  # noqa: E402
from derive.cli.main import main  # noqa: E402
from derive.kernel.timebound import DecisionTimeout  # noqa: E402

SGD = ('[[exercise]]\nid = "ex-1"\ntitle = "t"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\n'
       'lr = 0.1\nrecords = [[2, 4], [1, 3], [3, 5]]\n')


@pytest.fixture
def bank(tmp_path):
    path = tmp_path / "a.toml"
    path.write_text(SGD, encoding="utf-8")
    katex.render.cache_clear()
    yield path
    katex.render.cache_clear()


def test_a_formula_past_the_bound_is_refused_before_katex(bank, tmp_path, capsys,
                                                          monkeypatch):
    monkeypatch.setattr(katex, "MAX_FORMULA_CHARS", 40)
    out = tmp_path / "page.html"
    code = main(["export", str(bank), "--format", "html", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists() and len(err.strip().splitlines()) == 1
    assert "not supported" in err and "characters, past the page's bound of 40" in err
    assert "internal error" not in err


def test_the_commands_bound_passing_between_formulas_is_its_time_bound(bank, tmp_path,
                                                                        capsys, monkeypatch):
    monkeypatch.setattr(katex, "_left", lambda: 0.0, raising=False)
    out = tmp_path / "page.html"
    code = main(["export", str(bank), "--format", "html", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists() and len(err.strip().splitlines()) == 1
    assert "time bound" in err and "internal error" not in err


def test_quickjs_interrupted_by_the_commands_bound_is_a_time_bound(monkeypatch):
    monkeypatch.setattr(katex, "_left", lambda: 0.05, raising=False)
    monkeypatch.setattr(katex, "MIN_SECONDS", 0.01, raising=False)
    with pytest.raises(DecisionTimeout):  # 19,000 digits take KaTeX seconds of CPU
        katex.render.__wrapped__("7" * 19_000)


def test_a_formula_katex_refuses_is_one_line():
    with pytest.raises(katex.KatexError) as exc:
        katex.render.__wrapped__(r"\frac{")
    assert "\n" not in str(exc.value)
