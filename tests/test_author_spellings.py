"""The lecturer's spellings (issue 35 item 6): δ is delta and x̂ (x and a combining hat) is
xhat in the scalar language as in the tensor one, and a letter with `hat` prints with a hat
(xhat as x̂, like yhat as ŷ). Expected LaTeX written by hand."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from derive.graph.language import FormulaError, parse_formula
from derive.graph.notation import written_as

R = {"real": True}


@pytest.mark.parametrize("text, expected", [
    ("δ*x", sp.Symbol("delta", **R) * sp.Symbol("x", **R)),
    ("x\u0302 + 1", sp.Symbol("xhat", **R) + 1),
    ("δ - delta", sp.S.Zero),
    ("2*z\u0302", 2 * sp.Symbol("zhat", **R)),
])
def test_delta_and_a_hatted_letter_read_as_names(text, expected):
    assert sp.simplify(parse_formula(text) - expected) == 0


@pytest.mark.parametrize("name, latex", [
    ("xhat", r"\hat{x}"), ("yhat", r"\hat{y}"), ("zhat", r"\hat{z}"),
    ("thetahat", r"\hat{\theta}"), ("delta", r"\delta"), ("W1", "W"), ("hat", r"\mathrm{hat}"),
])
def test_a_letter_and_hat_prints_with_a_hat(name, latex):
    assert written_as(name).latex_letter() == latex


@given(st.sampled_from("abcdefghklmnopqrsuvwxyz"))
def test_every_hatted_ascii_letter_reads_as_its_hat_name(letter):
    assert parse_formula(letter + "\u0302") == sp.Symbol(letter + "hat", **R)


def test_a_hat_on_nothing_is_refused_with_its_column():
    with pytest.raises(FormulaError, match="column 3"):
        parse_formula("1 \u0302")
