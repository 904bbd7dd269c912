"""Exact values past the digits derive writes (MAX_TEXT_DIGITS): one rule for every format.
`key` and `export` (md, tex, html, JSON, question sheets) refuse them with one "not supported"
line naming the file, the exercise, the quantity and the bound (exit 2, nothing written);
`check`'s text report shows the certified decimal and the digit count, and still judges."""

from __future__ import annotations

from decimal import Decimal, getcontext

import pytest

from derive.cli.main import main

# b = 7^80000 has 67,608 digits, past the 50,000 derive writes (a = 7^10000 has 8,451)
HUGE = ('[[exercise]]\nid = "big"\nrecipe = "formulas"\n[exercise.given]\nx = 7\n'
        '[exercise.define]\na = "x^10000"\nb = "a^8"\n[exercise.claims]\nb = 3\n')


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    path = tmp_path_factory.mktemp("huge") / "big.toml"
    path.write_text(HUGE, encoding="utf-8")
    return path


@pytest.mark.parametrize("argv", [
    ["key", "--format", "md"], ["key", "--format", "tex"], ["key", "--format", "json"],
    ["export", "--format", "md"], ["export", "--format", "tex"],
    ["export", "--format", "md", "--questions"], ["export", "--format", "html"],
    ["check", "--format", "json"],
])
def test_every_format_refuses_with_one_line(huge, tmp_path, capsys, argv):
    out = tmp_path / "out"
    code = main([*argv, str(huge)] + (["-o", str(out)] if argv[0] != "check" else []))
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert len(err.strip().splitlines()) == 1 and len(err) < 300 + len(str(huge))
    assert "not supported" in err and "exercise 'big'" in err and "key 'define.b'" in err
    assert "67,608 digits" in err and "50,000 digits" in err
    assert "internal error" not in err and "Exceeds the limit" not in err


def test_check_text_shows_the_certified_decimal_and_judges(huge, capsys):
    code = main(["check", str(huge)])
    out = capsys.readouterr().out
    getcontext().prec = 40
    mantissa, exponent = f"{Decimal(7) ** 80000:.14e}".split("e+")
    assert code == 1 and "wrong" in out
    assert f"≈ {mantissa}e{exponent}" in out and "67,608 digits" in out
