"""Messages that count right (issue 22): a size (K, N, T) is called a size, not an index, and a
constant's digits are estimated from above without computing it, refusing only what has more
than 4,200 digits. Digit counts here are Python's own (len(str(…)) of the integer)."""

from __future__ import annotations

import contextlib
import io

import pytest

from derive.cli.main import main
from derive.graph.language import (
    MAX_CONSTANT_DIGITS,
    FormulaNotSupported,
    _digits,
    parse_formula,
)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def statement(tmp_path, lhs: str, rhs: str, expect: str = "proved", extra: str = "") -> str:
    path = tmp_path / "s.toml"
    path.write_text(f'[[statement]]\nid = "s"\ntitle = "t"\nexpect = "{expect}"\n'
                    f'lhs = "{lhs}"\nrhs = "{rhs}"\n{extra}', encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("text, value", [
    ("2^7000", 2**7000),
    ("10^4199", 10**4199),
    ("2^7000 + 2^7000", 2**7001),
    ("1/2^7000", 2**7000),  # the denominator's digits
    ("(10^100)^41*10^99", 10**4199),
    ("3^8802", 3**8802),
], ids=lambda v: v if isinstance(v, str) else "")
def test_constants_within_4200_digits_are_accepted(text, value):
    digits = len(str(value))
    assert digits <= MAX_CONSTANT_DIGITS == 4_200
    e = parse_formula(text)
    assert digits <= _digits(e) <= digits + 1  # an upper bound, and a close one


@pytest.mark.parametrize("text, digits", [
    ("10^4200", 4201),
    ("2^7000*2^7000", len(str(2**14000))),
    ("3^8803", len(str(3**8803))),
    ("(10^100)^41*10^199", 4300),
    ("9*10^4199 + 10^4199", len(str(10**4200))),  # each term 4,200 digits, the sum 4,201
], ids=lambda v: v if isinstance(v, str) else "")
def test_constants_past_4200_digits_are_refused_saying_so(text, digits):
    assert digits > 4_200
    with pytest.raises(FormulaNotSupported, match="a constant of more than 4,200 digits"):
        parse_formula(text)


def test_a_statement_with_2_to_the_7000_is_decided(tmp_path):
    """2^7000 has 2,108 digits: the statement is read and proved, not refused."""
    assert len(str(2**7000)) == 2108
    code, out, err = run("prove", statement(tmp_path, "2^7000", "4^3500"))
    assert (code, err) == (0, "") and " proved " in out


def test_a_sum_over_a_size_says_it_is_a_size(tmp_path):
    code, _, err = run("prove", statement(tmp_path, "sum_N(x_i)", "x"))
    assert code == 2 and "'N' is a size, not an index" in err and "sum_i(…)" in err


def test_a_sum_over_the_windows_size_says_it_is_a_size(tmp_path):
    code, _, err = run("prove", statement(
        tmp_path, "sum_N(n_k)", "N", extra='\n[statement.given]\nwindow = "microbatches"\n'))
    assert code == 2 and "'N' is a size, not an index" in err and "sum_i(…)" in err


def test_an_assumption_about_a_size_alone_is_a_fact(tmp_path):
    """K ≥ 2 is one value of the claim's size, not "every value of an index" (it was refused
    as one): a fact the statement may state."""
    code, _, err = run("prove", statement(tmp_path, "x", "x",
                                          extra='assumptions = ["K >= 2"]\n'))
    assert code == 0 and "index" not in err, err
