"""`derive variants`: deterministic, distinct, every condition met, every variant checks;
malformed [exercise.vary] and [exercise.require] tables refused with one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.cli.main import main
from derive.exercises import check_exercise, load

ROOT = Path(__file__).resolve().parents[1]
BANK = ROOT / "proofs" / "course" / "variants.toml"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_variants_check_and_are_byte_identical_for_a_seed(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert run(capsys, "variants", BANK, "-n", "12", "--seed", "5", "-o", a)[0] == 0
    assert run(capsys, "variants", BANK, "-n", "12", "--seed", "5", "-o", b)[0] == 0
    files = sorted(p.name for p in a.iterdir())
    assert len(files) == 36 and files == sorted(p.name for p in b.iterdir())
    assert all((a / f).read_bytes() == (b / f).read_bytes() for f in files)
    code, out, _ = run(capsys, "check", a)
    assert code == 0 and "0 wrong" in out
    code, _, _ = run(capsys, "variants", BANK, "-n", "12", "--seed", "6", "-o", tmp_path / "c")
    assert any((a / f).read_bytes() != (tmp_path / "c" / f).read_bytes() for f in files)


def test_every_variant_is_distinct_and_meets_its_conditions(tmp_path, capsys):
    out_dir = tmp_path / "v"
    assert run(capsys, "variants", BANK, "-n", "12", "--seed", "1", "-o", out_dir)[0] == 0
    reports = [check_exercise(ex) for ex in load([str(out_dir)])]
    by_base = {}
    for r in reports:
        base = r.exercise.id.rsplit("-v", 1)[0]
        by_base.setdefault(base, []).append(r)
    assert {k: len(v) for k, v in by_base.items()} == {
        "lesson03-ex1-vary": 12, "lesson03-ex2-vary": 12, "reading-three-records-vary": 12}
    for r in by_base["lesson03-ex2-vary"]:
        assert r.values["gradient"].is_Integer
        assert r.values["mean_of_means"] != r.values["gradient"]
    for r in by_base["lesson03-ex1-vary"]:
        g = r.values["gradient"]
        assert g.is_Integer and g != 0
        assert (r.values["w_new"] * 100).is_Integer
    for base, rs in by_base.items():
        givens = [repr(sorted((k, str(v)) for k, v in r.exercise.given.items())) for r in rs]
        assert len(set(givens)) == len(givens), base


def test_too_many_variants_gives_what_exists_and_exits_1(tmp_path, capsys):
    """Fewer than N for every exercise: each writes what it found, one line each, exit 1."""
    code, _, err = run(capsys, "variants", BANK, "-n", "5000", "-o", tmp_path / "all")
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 3 and all("only" in x and "of 5000 variants" in x and "acceptance" in x
                                   for x in lines)
    assert "reading-three-records-vary: only 14 of 5000" in err
    assert len(list((tmp_path / "all").iterdir())) == 560 + 74 + 14


def test_acceptance_rate_is_reported(tmp_path, capsys):
    code, _, err = run(capsys, "variants", BANK, "-n", "3", "-o", tmp_path / "r")
    assert code == 0 and err.count("acceptance") == 3


def test_stdout_without_o_is_a_valid_bank(tmp_path, capsys):
    code, out, _ = run(capsys, "variants", BANK, "-n", "2")
    assert code == 0
    bank = tmp_path / "bank.toml"
    bank.write_text(out)
    assert run(capsys, "check", bank)[0] == 0


SGD = ('[[exercise]]\nid = "a"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.1\n'
       'records = [[2, 4]]\n')

BAD = [
    ('[exercise.vary]\nwx = { choices = [1] }\n', "vary.wx", "did you mean 'w'"),
    ('[exercise.vary]\nw = { from = 2, to = 1 }\n', "vary.w.to", "from ≤ to"),
    ('[exercise.vary]\nw = { from = 1, to = 2, step = 0 }\n', "vary.w.step", "positive"),
    ('[exercise.vary]\nw = { from = 0, to = 1e6, step = 1 }\n', "vary.w", "at most"),
    ('[exercise.vary]\nw = { choices = [] }\n', "vary.w", "nonempty"),
    ('[exercise.vary]\nw = 3\n', "vary.w", "choices"),
    ('[exercise.vary]\n"records[5][0]" = { choices = [1] }\n', "vary.records[5][0]",
     "does not have"),
    ('[exercise.vary]\npartition = { choices = [[1]] }\n', "vary.partition", "accumulation"),
    ('[exercise.require]\ngradient = "even"\n', "require.gradient", "places <= d"),
    ('[exercise.require]\ngradiant = "integer"\n', "require.gradiant", "did you mean"),
    ('[exercise.require]\nw_new = "differs from nothing"\n', "require.w_new", "not a quantity"),
    ('[exercise.require]\nw_new = 3\n', "require.w_new", "as text"),
]


@pytest.mark.parametrize("extra,key,words", BAD)
def test_malformed_variation_tables(tmp_path, capsys, extra, key, words):
    path = tmp_path / "ex.toml"
    path.write_text(SGD + extra)
    code, _, err = run(capsys, "variants", path, "-n", "1")
    assert code == 2 and f"key '{key}'" in err and words in err, err
    assert len(err.strip().splitlines()) == 1


def test_no_vary_table(tmp_path, capsys):
    path = tmp_path / "ex.toml"
    path.write_text(SGD)
    code, _, err = run(capsys, "variants", path, "-n", "1")
    assert code == 2 and "no exercise has an [exercise.vary] table" in err


@settings(max_examples=25)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 8))
def test_any_seed_gives_variants_that_check(tmp_path_factory, seed, n):
    from derive.exercises.variants import generate, render

    out_dir = tmp_path_factory.mktemp("v")
    for ex in load([str(BANK)]):
        gen = generate(ex, n, seed)
        assert len(gen.variants) == n
        for k, v in enumerate(gen.variants, 1):
            (out_dir / f"{v.id}.toml").write_text(render(ex, v, k))
    assert all(check_exercise(ex).ok for ex in load([str(out_dir)]))


@settings(max_examples=60, deadline=None)
@given(p=st.integers(-10**90, 10**90), q=st.integers(1, 10**90))
def test_written_claims_read_back_and_hold(p, q):
    """Every value a variant writes is read back by the reader (at most MAX_DIGITS digits per
    number) and holds for the value it was written from: exact when it fits, else its
    12-place decimal with the test stated."""
    import sympy as sp

    from derive.exercises.claims import Claim, holds, literal
    from derive.exercises.writer import exact
    from derive.kernel.exact import TooLongToWrite, parse_exact

    v = sp.Rational(p, q)
    try:
        text = exact(v)
    except TooLongToWrite:  # beyond the exponents a claim may have: refused, never mis-written
        assert abs(v) >= sp.Integer(10) ** 30 or abs(v) < sp.Rational(1, 10**30)
        return
    if text.startswith("{"):
        value = text.split('"')[1]
        test = text.split(", ")[1].rstrip(" }").replace(" ", "")
        kind, digits = test.split("=")
        claim = Claim(parse_exact(value), value, None, test=kind,
                      tolerance=sp.Integer(int(digits)))
    else:
        claim = literal(text.strip('"'))
        assert claim.exact_value() == v
    assert holds(claim, v)


def test_a_long_trajectory_writes_variants_that_check(tmp_path, capsys):
    # 40 SGD steps with lr = 1/3 build fractions of about 200 digits: each is written as its
    # 12-place decimal, not as a "p/q" the reader would refuse
    src = tmp_path / "long.toml"
    src.write_text('[[exercise]]\nid = "long"\nrecipe = "optimizer_steps"\n[exercise.given]\n'
                   'w = 1\nlr = "1/3"\nrecords = [[2, 4], [1, 3], [3, 7]]\nsteps = 40\n'
                   'optimizer = { name = "sgd", momentum = 0.7 }\n[exercise.vary]\n'
                   '"optimizer.momentum" = { choices = [0.5, 0.8] }\n', encoding="utf-8")
    out = tmp_path / "out"
    assert main(["variants", str(src), "-n", "2", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["check", str(out)]) == 0


def test_an_element_of_records_given_as_columns_varies(tmp_path, capsys):
    """`records[1][0]` of records written as columns is the second row's x (it was refused as
    an element the input does not have). By hand, w = 0.5 and rows (1, 1), (3, 0): residuals
    −0.5 and 1.5, loss (0.25 + 2.25)/4 = 0.625, gradient (−0.5 + 4.5)/2 = 2, w_new 0.3."""
    path = tmp_path / "cols.toml"
    path.write_text('[[exercise]]\nid = "cols"\nrecipe = "formulas"\n[exercise.given]\n'
                    'w = 0.5\nlr = 0.1\nrecords = { columns = ["x", "y"], rows = [[1, 1], '
                    '[2, 0]] }\n[exercise.define]\nloss = "mean_i((w*x_i - y_i)^2/2)"\n'
                    'w_new = "w - lr*grad(loss, w)"\n[exercise.vary]\n'
                    '"records[1][0]" = { choices = [3] }\n', encoding="utf-8")
    assert main(["variants", str(path), "-n", "1"]) == 0
    out = capsys.readouterr().out
    assert "rows = [[1, 1], [3, 0]]" in out
    assert "loss = 0.625" in out and "w_new = 0.3" in out
