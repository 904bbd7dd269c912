"""Reading a [[statement]] file stays within bounds: assumptions are kept as written (never
expanded while the file is read: `(a+b+c)^1000 >= 0` would be 501,501 terms), and reading one
statement is under a time bound whose passing is one "not supported" line."""

from __future__ import annotations

import sympy as sp

import derive.exercises.statements as statements
from derive.cli.main import main
from derive.kernel.timebound import DecisionTimeout


def _file(tmp_path, assumption: str):
    path = tmp_path / "s.toml"
    path.write_text(f'[[statement]]\nid = "s1"\ntitle = "t"\nexpect = "proved"\nlhs = "a + b"\n'
                    f'rhs = "b + a"\nassumptions = ["{assumption}"]\n', encoding="utf-8")
    return path


def _fact(tmp_path, assumption: str) -> sp.Expr:
    (s,) = statements.load_statements(_file(tmp_path, assumption))
    (fact,) = [f for f in s.facts if f.reason == assumption]
    return fact.expr


def test_an_assumption_is_kept_as_written(tmp_path):
    expr = _fact(tmp_path, "(a+b+c)^3 >= 0")
    a, b, c = sorted(expr.free_symbols, key=lambda x: x.name)
    assert isinstance(expr, sp.Pow) and expr.exp == 3 and expr.base == a + b + c


def test_a_power_of_a_thousand_is_read_without_expanding(tmp_path):
    expr = _fact(tmp_path, "(a+b+c)^1000 >= 0")
    assert isinstance(expr, sp.Pow) and expr.exp == 1000


def test_reading_past_its_time_bound_is_one_line(tmp_path, capsys, monkeypatch):
    def slow(*args):  # the bound passing while a statement is read
        raise DecisionTimeout("bound")
    monkeypatch.setattr(statements, "statement", slow)
    code = main(["prove", str(_file(tmp_path, "a >= 0"))])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "statement 's1'" in err and "not supported" in err and "takes more than" in err


def _statement(tmp_path, lhs: str, rhs: str, expect: str, assumption: str):
    path = tmp_path / "p.toml"
    path.write_text(f'[[statement]]\nid = "p1"\ntitle = "t"\nexpect = "{expect}"\n'
                    f'lhs = "{lhs}"\nrhs = "{rhs}"\nassumptions = ["{assumption}"]\n',
                    encoding="utf-8")
    return path


def test_a_large_power_as_an_assumption_is_decided_without_expanding(tmp_path, capsys):
    """(a+b+c)^1000 ≥ 0 beside a claim: the equalities and integer bounds the facts force are
    read only from facts whose expansion is small (kernel/algebra.expanded_small), so the
    claim is decided at once instead of running into its 20 s bound while the kernel expands
    501,501 terms (it was `unknown` after 22 s)."""
    for lhs, rhs, expect in (("a + b", "b + a", "proved"),
                             ("sqrt((a+b+c)^1000)", "(a+b+c)^500", "proved"),
                             ("sqrt((a+b+c)^1000)", "(a+b+c)^500 + 1", "refuted")):
        path = _statement(tmp_path, lhs, rhs, expect, "(a+b+c)^1000 >= 0")
        assert main(["prove", str(path)]) == 0, capsys.readouterr()


def test_facts_are_not_expanded_when_large():
    from derive.kernel.facts import Fact  # noqa: PLC0415 — only these tests need facts
    from derive.kernel.integers import integer_bounds, substituted  # noqa: PLC0415

    i, j, k = sp.symbols("i j k", integer=True)
    big = Fact((i + j + k) ** 1000, "big")
    assert integer_bounds([big]) == (big,)
    x, y = sp.symbols("x y", real=True)
    facts = [Fact(x - y, "x >= y"), Fact(y - x, "y >= x"), Fact((x + y + i) ** 1000, "big")]
    lhs, rhs, kept, reasons = substituted(x, y, facts)
    assert lhs == rhs and set(reasons) == {"x >= y", "y >= x"}
    assert any(isinstance(f.expr, sp.Pow) and f.expr.exp == 1000 for f in kept)
