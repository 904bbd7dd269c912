"""The author's own names (issue 35 item 6): a family's names (T, t for steps; n, c, K, k, B
for microbatches; N, i for records) are reserved only in an exercise that has that family, so
a lecturer may name a temperature T, a count n, a class c or a width d where they clash with
nothing. Expected values are computed here with Fractions."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from derive.cli.main import main
from derive.recipes.formula_table import BY_TABLE, RESERVED, WORDS, reserved

BASE = """
[[exercise]]
id = "e"
recipe = "formulas"
[exercise.given]
{given}
[exercise.define]
{define}
[exercise.claims]
{claims}
"""


def run(tmp_path, capsys, given, define, claims=""):
    f = tmp_path / "e.toml"
    f.write_text(BASE.format(given=given, define=define, claims=claims), encoding="utf-8")
    capsys.readouterr()
    code = main(["check", str(f), "--format", "json"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["T", "n", "c", "d", "K", "N", "B", "k", "t", "i"])
def test_a_family_name_is_the_authors_where_the_family_is_not_given(tmp_path, capsys, name):
    """q = 3·name + 1 with name = 5/2 is 17/2 (Fraction arithmetic)."""
    code, out, err = run(tmp_path, capsys, f"{name} = 2.5", f'q = "3*{name} + 1"',
                         f'q = "{Fraction(3) * Fraction(5, 2) + 1}"')
    assert code == 0, err
    claim = json.loads(out)["exercises"][0]["claims"][0]
    assert claim["status"] == "exact"


@pytest.mark.parametrize("table, given, name", [
    ("steps", "steps = 2\nw = 1", "T"),
    ("steps", "steps = 2\nw = 1", "t"),
    ("microbatches", "microbatches = [[[1, 2]], [[3, 4]]]", "n"),
    ("microbatches", "microbatches = [[[1, 2]], [[3, 4]]]", "c"),
    ("records", "records = [[1, 2], [3, 4]]", "N"),
])
def test_a_family_name_is_refused_where_the_family_is_given(tmp_path, capsys, table, given,
                                                            name):
    code, _, err = run(tmp_path, capsys, f"{given}\n{name} = 2", 'q = "2"')
    assert code == 2
    line = err.strip()
    assert "\n" not in line
    assert f"given.{name}" in line and "reserved" in line and table in line
    assert f"such as {name}0" in line


@pytest.mark.parametrize("name", sorted(WORDS - {"records", "microbatches", "steps"}))
def test_the_language_words_stay_reserved_everywhere(tmp_path, capsys, name):
    code, _, err = run(tmp_path, capsys, f"{name} = 2", 'q = "2"')
    assert code == 2 and "reserved" in err and "formula language" in err


def test_the_tables_reserve_exactly_their_names():
    assert reserved(()) == WORDS
    assert reserved(("steps",)) == WORDS | {"t", "T"}
    assert RESERVED == WORDS | BY_TABLE["records"] | BY_TABLE["microbatches"] | \
        BY_TABLE["steps"]
    assert {"d", "T", "c", "n"} & WORDS == set()


def test_a_temperature_named_T_reads_in_a_tensor_formula(tmp_path, capsys):
    """softmax(z / T) with T = 2 given (no steps): torch float64 gives (0.2918, 0.4810,
    0.2272); the formulas recipe's tensor names had dropped T."""
    code, out, err = run(tmp_path, capsys, "z = [1, 2, 0.5]\nT = 2", 'p = "softmax(z / T)"',
                         'p = ["0.2918", "0.4810", "0.2272"]')
    assert code == 0, err
    assert json.loads(out)["exercises"][0]["claims"][0]["status"] == "rounded"
