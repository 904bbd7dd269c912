"""The `memory` recipe on the derivation graph: every node's formula and substituted line in
LaTeX, written by hand in the course's notation; the working's table (one row per component);
every mistake diagnosed by name from its own example; the values against plain int/Fraction
arithmetic written here."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.recipes import RECIPES
from derive.render.working import Working, formula_tex

R = sp.Rational
MEMORY = RECIPES["memory"]
I = sp.Integer


def _given(**kw):
    base = {"params": I(10**9), "bytes": None, "preset": None, "stage": None, "dp": None,
            "activation_gib": None}
    base.update(kw)
    return base


COURSE = _given(activation_gib=I(2))
STAGE = {s: _given(stage=s, dp=I(4), activation_gib=I(2)) for s in (0, 1, 2, 3)}
MOMENTUM = _given(preset="fp32_sgd_momentum", stage=1, dp=I(2))
ONE = _given(bytes={"grad": R(1, 2)}, stage=2, dp=I(8))
ODD_ORDER = _given(bytes={"adam_v": I(4), "param": I(2), "master": I(4)}, stage=1, dp=I(4))

B_SUM = r"b_{\mathrm{param}} + b_{\mathrm{grad}} + b_{\mathrm{master}} + b_{m} + b_{v}"

# (given, node, formula line) — written by hand in the course's notation
FORMULAS = [
    (COURSE, "bytes_per_param", "B = " + B_SUM),
    (MOMENTUM, "bytes_per_param", r"B = b_{\mathrm{param}} + b_{\mathrm{grad}} + b_{\mathrm{momentum}}"),
    (ONE, "bytes_per_param", r"B = b_{\mathrm{grad}}"),
    (ODD_ORDER, "bytes_per_param", r"B = b_{\mathrm{param}} + b_{\mathrm{master}} + b_{v}"),
    (STAGE[0], "card_bytes_per_param", r"B_{\mathrm{card}} = " + B_SUM),
    (STAGE[1], "card_bytes_per_param",
     r"B_{\mathrm{card}} = b_{\mathrm{param}} + b_{\mathrm{grad}} + \frac{b_{\mathrm{master}}}{D}"
     r" + \frac{b_{m}}{D} + \frac{b_{v}}{D}"),
    (STAGE[2], "card_bytes_per_param",
     r"B_{\mathrm{card}} = b_{\mathrm{param}} + \frac{b_{\mathrm{grad}}}{D}"
     r" + \frac{b_{\mathrm{master}}}{D} + \frac{b_{m}}{D} + \frac{b_{v}}{D}"),
    (STAGE[3], "card_bytes_per_param",
     r"B_{\mathrm{card}} = \frac{b_{\mathrm{param}}}{D} + \frac{b_{\mathrm{grad}}}{D}"
     r" + \frac{b_{\mathrm{master}}}{D} + \frac{b_{m}}{D} + \frac{b_{v}}{D}"),
    (MOMENTUM, "card_bytes_per_param",
     r"B_{\mathrm{card}} = b_{\mathrm{param}} + b_{\mathrm{grad}} + \frac{b_{\mathrm{momentum}}}{D}"),
    (ONE, "card_bytes_per_param", r"B_{\mathrm{card}} = \frac{b_{\mathrm{grad}}}{D}"),
    (COURSE, "state_bytes", r"M = P \cdot B_{\mathrm{card}}"),
    (COURSE, "state_gb", r"M_{\mathrm{GB}} = \frac{M}{10^{9}}"),
    (COURSE, "state_gib", r"M_{\mathrm{GiB}} = \frac{M}{2^{30}}"),
    (COURSE, "total_gib", r"T_{\mathrm{GiB}} = M_{\mathrm{GiB}} + A"),
]

# (given, node, the whole working line: formula = numbers) — by hand; the result follows
WORKING = [
    (COURSE, "bytes_per_param", "B = " + B_SUM + " = 2 + 2 + 4 + 4 + 4"),
    (STAGE[1], "card_bytes_per_param",
     r"B_{\mathrm{card}} = b_{\mathrm{param}} + b_{\mathrm{grad}} + \frac{b_{\mathrm{master}}}{D}"
     r" + \frac{b_{m}}{D} + \frac{b_{v}}{D} = 2 + 2 + \frac{4}{4} + \frac{4}{4} + \frac{4}{4}"),
    (MOMENTUM, "card_bytes_per_param",
     r"B_{\mathrm{card}} = b_{\mathrm{param}} + b_{\mathrm{grad}} + \frac{b_{\mathrm{momentum}}}{D}"
     r" = 4 + 4 + \frac{4}{2}"),
    (ONE, "card_bytes_per_param", r"B_{\mathrm{card}} = \frac{b_{\mathrm{grad}}}{D} = \frac{0.5}{8}"),
    (STAGE[3], "state_bytes", r"M = P \cdot B_{\mathrm{card}} = 1000000000 \cdot 4"),
    (COURSE, "state_gb", r"M_{\mathrm{GB}} = \frac{M}{10^{9}} = \frac{16000000000}{10^{9}}"),
    (COURSE, "state_gib", r"M_{\mathrm{GiB}} = \frac{M}{2^{30}} = \frac{16000000000}{2^{30}}"),
    (COURSE, "total_gib",
     r"T_{\mathrm{GiB}} = M_{\mathrm{GiB}} + A = \frac{1953125}{131072} + 2"),
    (STAGE[2], "total_gib",
     r"T_{\mathrm{GiB}} = M_{\mathrm{GiB}} + A = \frac{21484375}{4194304} + 2"),
]


@pytest.mark.parametrize("given_,name,want", FORMULAS,
                         ids=[f"{n}-{i}" for i, (_, n, _) in enumerate(FORMULAS)])
def test_formula(given_, name, want):
    assert formula_tex(MEMORY, given_, name) == want


@pytest.mark.parametrize("given_,name,want", WORKING,
                         ids=[f"{n}-{i}" for i, (_, n, _) in enumerate(WORKING)])
def test_substituted(given_, name, want):
    (line, _), = Working(MEMORY, given_).lines(name)
    assert line == want


def test_every_node_has_a_formula_and_a_substituted_line():
    names = {n for _, n, _ in FORMULAS}
    assert names == {n for _, n, _ in WORKING} == {n.name for n in
                                                   Working(MEMORY, COURSE).graph.nodes}


def test_the_working_table_has_one_row_per_component():
    work = Working(MEMORY, STAGE[1])
    from derive.render.ledger import component_rows
    assert MEMORY.node_tables == {"card_bytes_per_param": "components"}
    header, rows = component_rows(work, "en")
    assert header == ("component", "symbol", "bytes per parameter", "divided by", "on one card")
    assert rows == (
        ("`param`", ("math", r"b_{\mathrm{param}}"), ("math", "2"), ("math", "1"), ("math", "2")),
        ("`grad`", ("math", r"b_{\mathrm{grad}}"), ("math", "2"), ("math", "1"), ("math", "2")),
        ("`master`", ("math", r"b_{\mathrm{master}}"), ("math", "4"), ("math", "D = 4"),
         ("math", "1")),
        ("`adam_m`", ("math", "b_{m}"), ("math", "4"), ("math", "D = 4"), ("math", "1")),
        ("`adam_v`", ("math", "b_{v}"), ("math", "4"), ("math", "D = 4"), ("math", "1")),
    )
    _, rows = component_rows(Working(MEMORY, ONE), "zh")
    assert rows == (("`grad`", ("math", r"b_{\mathrm{grad}}"), ("math", "0.5"),
                     ("math", "D = 8"), ("math", "0.0625")),)


def test_export_shows_the_table_and_the_formula_once(tmp_path):
    import contextlib
    import io

    from derive.cli.main import main

    path = tmp_path / "m.toml"
    path.write_text('[[exercise]]\nid = "m"\nrecipe = "memory"\n[exercise.given]\n'
                    "params = 1e9\nstage = 2\ndp = 4\n", encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["export", str(path), "--format", "md"]) == 0
    md = out.getvalue()
    assert md.count("| `grad` |") == 1 and md.count("| `param` |") == 1
    assert md.count(r"\frac{b_{\mathrm{grad}}}{D}") == 1
    assert "if" not in md.split("Given")[1].replace("gib", "")  # no "(D if sharded)"


# --------------------------------------------------------------------------------- mistakes

def _toml(example) -> str:
    def value(v):
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        return v if v.lstrip("-").replace(".", "").isdigit() else f'"{v}"'
    lines = ["[[exercise]]", 'id = "example"', 'recipe = "memory"', "[exercise.given]"]
    lines += [f"{k} = {value(v)}" for k, v in example.given.items()]
    lines += ["[exercise.claims]"] + [f"{k} = {value(v)}" for k, v in example.claims.items()]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("mistake", MEMORY.mistakes, ids=[m.name for m in MEMORY.mistakes])
def test_every_mistake_is_diagnosed_by_name_from_its_example(mistake, tmp_path):
    assert mistake.example is not None and mistake.doc and mistake.zh
    path = tmp_path / "example.toml"
    path.write_text(_toml(mistake.example), encoding="utf-8")
    report = check_exercise(load_file(path)[0])
    claim = next(c for c in report.claims if c.name == mistake.target)
    assert claim.status == "wrong"
    # named, or first of a tie (another stage's rule is the same value: wrong_stage_rule)
    assert claim.diagnosis.candidates[0] == mistake.name, (claim.diagnosis.mistake,
                                                           claim.diagnosis.explanation)
    assert claim.diagnosis.mistake in (mistake.name, None)


# (mistake, given, its value) — by hand
MISTAKE_VALUES = [
    ("state_gb_as_gib", COURSE, 16),
    ("state_gib_as_gb", COURSE, R(10**9 * 16, 2**30)),
    ("activations_divided_by_dp", STAGE[3], R(4 * 10**9, 2**30) + R(2, 4)),
    ("total_gib_unsharded", STAGE[3], R(16 * 10**9, 2**30) + 2),
    ("total_in_gb", COURSE, 16 + 2),
    ("card_bytes_next_stage", STAGE[1], 2 + R(12 + 2, 4)),
    ("card_bytes_next_stage", STAGE[3], 4),  # no stage after 3: the right value
    ("total_gib_next_stage", STAGE[0], R(10**9 * (4 + R(12, 4)), 2**30) + 2),
    ("bytes_per_param_without_master", MOMENTUM, 12),  # no master copy: the right value
    ("bytes_per_param_without_master", COURSE, 12),
    ("card_bytes_without_master", _given(bytes={"param": I(2), "grad": I(2), "master": I(4),
                                                "momentum": I(4)}, stage=1, dp=I(4)), 5),
    ("total_gib_without_master", STAGE[1], R(10**9 * (4 + R(8, 4)), 2**30) + 2),
    ("bytes_per_param_one_adam_state", _given(preset="fp32_adam"), 12),
    ("bytes_per_param_one_adam_state", _given(bytes={"adam_v": I(4)}), 4),  # one state only
    ("card_bytes_one_adam_state", _given(preset="fp32_adam", stage=1, dp=I(4)), 9),
    ("total_gib_one_adam_state", STAGE[2], R(10**9 * (2 + R(10, 4)), 2**30) + 2),
]


@pytest.mark.parametrize("name,given_,want", MISTAKE_VALUES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(MISTAKE_VALUES)])
def test_mistake_values(name, given_, want):
    from derive.recipes.base import Context
    mistake = next(m for m in MEMORY.mistakes if m.name == name)
    assert mistake.compute(Context(MEMORY, given_)) == want


def test_every_memory_mistake_carries_its_chinese():
    assert all(m.zh for m in MEMORY.mistakes)


# ------------------------------------------------------------------------------- the ledger

def test_derive_ledger_reads_the_graph():
    from derive.model.memory import DEFAULT
    from derive.render.ledger import formula_lines, rows
    lines = formula_lines(I(10**9), DEFAULT, I(4), I(2))
    assert lines[0] == "& B = " + B_SUM + " = 2 + 2 + 4 + 4 + 4 = 16"
    assert lines[2] == (r"\text{stage 1:} \quad & " + formula_tex(MEMORY, STAGE[1],
                        "card_bytes_per_param") + r" = 2 + 2 + \frac{4}{4} + \frac{4}{4}"
                        r" + \frac{4}{4} = 7")
    got = rows(I(10**9), DEFAULT, I(4), I(2))
    for stage, row in enumerate(got):
        want = MEMORY.evaluate(STAGE[stage])
        assert {k: row[k] for k in want} == want


# ------------------------------------------------------------------------ against Fractions

COMPONENTS = ("param", "grad", "grad_fp32_partition", "master", "adam_m", "adam_v", "momentum")
SHARDS = {0: set(), 1: {"grad_fp32_partition", "master", "adam_m", "adam_v", "momentum"},
          2: {"grad_fp32_partition", "master", "adam_m", "adam_v", "momentum", "grad"},
          3: set(COMPONENTS)}
"""DeepSpeed's fp32 gradient partition is its own partition from stage 1 on (stage_1_and_2.py
allocates it with partition_size elements in stages 1 and 2 alike)."""


@settings(max_examples=80, deadline=None)
@given(params=st.integers(1, 10**15), dp=st.integers(1, 4096), stage=st.sampled_from([0, 1, 2, 3]),
       ledger=st.dictionaries(st.sampled_from(COMPONENTS),
                              st.fractions(0, 32, max_denominator=8), min_size=1),
       act=st.fractions(0, 100, max_denominator=16))
def test_memory_against_fractions(params, dp, stage, ledger, act):
    """Every quantity against plain int/Fraction arithmetic of the ledger, written here."""
    got = MEMORY.evaluate(_given(params=I(params), dp=I(dp), stage=stage,
                                 bytes={c: R(b.numerator, b.denominator) for c, b in ledger.items()},
                                 activation_gib=R(act.numerator, act.denominator)))
    whole = sum(ledger.values(), F(0))
    card = sum((b / dp if c in SHARDS[stage] else b for c, b in ledger.items()), F(0))
    state = params * card
    want = {"bytes_per_param": whole, "card_bytes_per_param": card, "state_bytes": state,
            "state_gb": state / 10**9, "state_gib": state / 2**30,
            "total_gib": state / 2**30 + act}
    assert got == {k: R(v.numerator, v.denominator) for k, v in want.items()}
