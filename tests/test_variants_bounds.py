"""`derive variants` says what cut a run short: the time bound (while searching or while
writing a variant's key, which is under the bound too) is never reported as a verdict of
[exercise.require], and a candidate that cannot be computed is not one that fails require."""

from __future__ import annotations

import pytest

import derive.exercises.variants as variants
from derive.cli.main import main
from derive.exercises.errors import ExerciseNotSupported
from derive.kernel.timebound import DecisionTimeout

NO_REQUIRE = ('[[exercise]]\nid = "a"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.1\n'
              'records = [[2, 4]]\n[exercise.vary]\nw = { choices = [1, 2, 3, 4, 5] }\n')
REQUIRE = NO_REQUIRE + '[exercise.require]\ngradient = "nonzero"\n'


def _after(calls: int, real, exc):
    """`real`, raising `exc` from its call number `calls` + 1 on (a bound passing there)."""
    count = [0]

    def fn(*args, **kwargs):
        count[0] += 1
        if count[0] > calls:
            raise exc
        return real(*args, **kwargs)
    return fn


@pytest.fixture
def bank(tmp_path):
    def make(text):
        path = tmp_path / "in.toml"
        path.write_text(text, encoding="utf-8")
        return path
    return make


@pytest.mark.parametrize("where", ["render", "answer_key"])
def test_a_time_bound_after_some_variants_says_so(bank, tmp_path, capsys, monkeypatch, where):
    """Passing the bound while writing (render) or searching (answer_key) after 2 variants:
    those 2 are written and the line names the time bound, not [exercise.require]."""
    monkeypatch.setattr(variants, where, _after(2, getattr(variants, where),
                                                 DecisionTimeout("bound")))
    out = tmp_path / "out"
    code = main(["variants", str(bank(NO_REQUIRE)), "-n", "4", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and len(list(out.iterdir())) == 2
    assert "time bound" in err and "after 2 variants" in err and "require" not in err


def test_candidates_that_cannot_be_computed_are_not_a_require_verdict(bank, capsys,
                                                                      monkeypatch):
    def refuse(ex):
        raise ExerciseNotSupported(ex.path, ex.id, "define.f", "takes more than 10 s", "")
    monkeypatch.setattr(variants, "answer_key", refuse)
    code = main(["variants", str(bank(REQUIRE)), "-n", "2"])
    err = capsys.readouterr().err
    assert code == 2 and "could be computed" in err and "takes more than 10 s" in err
    assert "no variant that meets" not in err and "none of its candidates" in err


def test_without_require_a_shortfall_names_no_require(bank, capsys):
    code = main(["variants", str(bank(NO_REQUIRE)), "-n", "7"])
    err = capsys.readouterr().err
    assert code == 1 and "only 5 of 7 variants are distinct" in err and "require" not in err
