"""The witness search reads a rational candidate's properties off its sign and denominator
(witness._rational_facts) instead of asking SymPy's assumptions: they must agree with SymPy."""

import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from derive.kernel.witness import _rational_facts, satisfies


@given(st.integers(-10**6, 10**6), st.integers(1, 10**6))
def test_rational_facts_agree_with_sympy(p, q):
    value = sp.Rational(p, q)
    for key, fact in _rational_facts(value).items():
        assert getattr(value, f"is_{key}") == fact, (value, key)


def test_a_size_symbol_keeps_its_domain():
    size = sp.Symbol("C", integer=True, positive=True)
    assert satisfies(size.assumptions0, sp.Integer(1))
    assert not satisfies(size.assumptions0, sp.Integer(0))
    assert not satisfies(size.assumptions0, sp.Rational(1, 2))
    entry = sp.IndexedBase("W", real=True)[1, 2]
    assert satisfies(entry.assumptions0, sp.Rational(-1, 2))
