"""The memory ledger: the course's figures, held-out ledgers, properties of the ZeRO stages,
and `derive ledger`."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from derive.cli.main import main
from derive.model import memory as m
from derive.recipes import RECIPES

R = sp.Rational


def ledger(params, **given_):
    given_ = {"params": sp.Integer(params), "bytes": None, "preset": None, "stage": None,
              "dp": None, "activation_gib": None, **given_}
    return RECIPES["memory"].evaluate(given_)


HELD_OUT = [
    # (params, inputs, quantity, exact value)
    (10**9, {}, "state_bytes", 16 * 10**9),
    (10**9, {"stage": 1, "dp": sp.Integer(4)}, "state_bytes", 7 * 10**9),
    (10**9, {"stage": 2, "dp": sp.Integer(4)}, "card_bytes_per_param", R(11, 2)),
    (10**9, {"stage": 2, "dp": sp.Integer(8)}, "state_gb", R(15, 4)),
    (10**9, {"stage": 3, "dp": sp.Integer(8), "activation_gib": sp.Integer(1)}, "total_gib",
     R(2 * 10**9, 2**30) + 1),
    (75 * 10**8, {"dp": sp.Integer(64)}, "state_gb", 120),
    (75 * 10**8, {"stage": 1, "dp": sp.Integer(64)}, "state_gb", R(3140625, 100000)),
    (75 * 10**8, {"stage": 2, "dp": sp.Integer(64)}, "state_gb", R(16640625, 10**6)),
    (75 * 10**8, {"stage": 3, "dp": sp.Integer(64)}, "state_gb", R(15, 8)),
    (10**9, {"preset": "mixed_adam_fp32_grads"}, "bytes_per_param", 18),
    (10**9, {"preset": "mixed_adam_fp32_grads"}, "state_gb", 18),
    (10**9, {"preset": "mixed_adam_fp32_grads", "stage": 2, "dp": sp.Integer(8)},
     "card_bytes_per_param", 4),
    (10**9, {"preset": "fp32_adam"}, "bytes_per_param", 16),
    (10**9, {"preset": "fp32_sgd_momentum", "stage": 1, "dp": sp.Integer(2)},
     "card_bytes_per_param", 10),
    (10**9, {"preset": "fp32_sgd"}, "state_gb", 8),
]


@pytest.mark.parametrize("params,inputs,name,value", HELD_OUT)
def test_held_out_ledgers(params, inputs, name, value):
    assert ledger(params, **inputs)[name] == value


def test_the_zero_papers_figure_1_rounds_as_printed():
    from derive.exercises.claims import judge, literal
    printed = {0: "120", 1: "31.4", 2: "16.6", 3: "1.9"}
    for stage, text in printed.items():
        v = ledger(75 * 10**8, stage=stage, dp=sp.Integer(64))["state_gb"]
        assert judge(literal(text), v) in ("exact", "rounded")


params = st.integers(1, 10**12)
dps = st.integers(1, 1024)
ledgers = st.dictionaries(st.sampled_from(m.COMPONENTS), st.integers(0, 16).map(sp.Integer),
                          min_size=1)


@given(params, dps, ledgers)
def test_stage_3_times_d_is_stage_0(p, d, led):
    assert m.state_bytes(p, led, 3, d) * d == m.state_bytes(p, led, 0, 1)


@given(params, dps, ledgers)
def test_shards_never_exceed_the_unsharded_ledger_and_shrink_with_the_stage(p, d, led):
    states = [m.state_bytes(p, led, s, d) for s in (0, 1, 2, 3)]
    assert all(a >= b for a, b in zip(states, states[1:]))
    assert all(s <= m.state_bytes(p, led, 0, 1) for s in states)


@given(params, dps, st.sampled_from([0, 1, 2, 3]), st.integers(0, 64))
def test_gib_times_2_30_is_bytes_and_activations_are_never_divided(p, d, stage, act):
    out = ledger(p, stage=stage, dp=sp.Integer(d), activation_gib=sp.Integer(act))
    assert out["state_gib"] * 2**30 == out["state_bytes"]
    assert out["state_gb"] * 10**9 == out["state_bytes"]
    assert out["total_gib"] - out["state_gib"] == act


def test_ledger_command_text(capsys):
    assert main(["ledger", "--params", "1e9", "--dp", "4", "--activation-gib", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[2].split()[-3:] == ["16", "14.901", "16.901"]
    assert out[5].split()[-1] == "5.725"


def test_ledger_command_chart_and_formats(tmp_path, capsys):
    chart = tmp_path / "ledger.png"
    assert main(["ledger", "--params", "2e9", "--activation-gib", "3", "--chart", str(chart),
                 "--format", "md"]) == 0
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = capsys.readouterr().out
    assert "| 0: nothing sharded |" in md and "32.802" in md
    svg = tmp_path / "ledger.svg"
    assert main(["ledger", "--params", "1e9", "--chart", str(svg), "--format", "tex"]) == 0
    assert svg.read_text().lstrip().startswith("<?xml") and "\\begin{tabular}" in \
        capsys.readouterr().out


@pytest.mark.parametrize("argv,words", [
    (["--params", "abc"], "not a number"),
    (["--params", "1.5"], "whole number"),
    (["--params", "1e9", "--dp", "0"], "whole number"),
    (["--params", "1e9", "--preset", "mixed_adm"], "did you mean 'mixed_adam'"),
    (["--params", "1e9", "--chart", "x.pdf"], ".svg or .png"),
])
def test_ledger_command_misuse(capsys, argv, words):
    assert main(["ledger", *argv]) == 2
    assert words in capsys.readouterr().err


# --------------------------------------------- DeepSpeed's own ZeRO-2 estimate (deepspeed_zero2)

def deepspeed_zero2_gpu_bytes(total_params: int, total_gpus: int) -> int:
    """DeepSpeed's estimate_zero2_model_states_mem_needs without offload
    (deepspeed/runtime/zero/stage_1_and_2.py since commit f4cb866, PR #5099):
    `2 * total_params + int(18 * total_params / total_gpus)`, its int() of a positive quotient
    written here in plain integers as floor division."""
    return 2 * total_params + (18 * total_params) // total_gpus


DEEPSPEED_CASES = [(10**9, 1), (10**9, 8), (7 * 10**9, 64), (1000000007, 3), (13, 7),
                   (1, 1024), (2851 * 10**6, 8), (10**15, 999)]


@pytest.mark.parametrize("p,d", DEEPSPEED_CASES)
def test_deepspeed_zero2_preset_is_deepspeeds_formula(p, d):
    exact = ledger(p, preset="deepspeed_zero2", stage=2, dp=sp.Integer(d))["state_bytes"]
    assert exact == 2 * p + R(18 * p, d)  # derive's figure: exact, no truncation
    assert sp.floor(exact) == deepspeed_zero2_gpu_bytes(p, d)  # DeepSpeed's: truncated
    assert 0 <= exact - deepspeed_zero2_gpu_bytes(p, d) < 1
    if (18 * p) % d:
        assert exact != deepspeed_zero2_gpu_bytes(p, d)


@pytest.mark.parametrize("p,d", [(10**9, 8), (1000000007, 3), (13, 7), (2851 * 10**6, 8)])
def test_deepspeed_zero2_matches_deepspeeds_own_float_expression(p, d):
    """DeepSpeed's literal expression (float division, then int) where the float is exact
    enough: 18·P < 2⁵³."""
    assert 18 * p < 2**53
    figure = 2 * p + int(18 * p / d)
    assert figure == sp.floor(ledger(p, preset="deepspeed_zero2", stage=2,
                                     dp=sp.Integer(d))["state_bytes"])


@given(params, dps)
def test_deepspeed_zero2_any_count(p, d):
    exact = m.state_bytes(p, m.PRESETS["deepspeed_zero2"].bytes, 2, d)
    assert sp.floor(exact) == deepspeed_zero2_gpu_bytes(p, d)


def test_deepspeed_zero2_preset_components_and_stages():
    led = m.PRESETS["deepspeed_zero2"].bytes
    assert m.bytes_per_param(led) == 20 == m.bytes_per_param(m.PRESETS["mixed_adam"].bytes) + 4
    assert led["grad_fp32_partition"] == 4
    # the fp32 gradient partition is sharded from stage 1 on; fp16 gradients from stage 2
    assert m.card_bytes_per_param(led, 1, 4) == 2 + 2 + R(16, 4)
    assert m.card_bytes_per_param(led, 2, 4) == 2 + R(18, 4)
    assert m.card_bytes_per_param(led, 3, 4) == R(20, 4)
    assert "stage_1_and_2.py" in m.PRESETS["deepspeed_zero2"].source
    assert "estimate_zero2_model_states_mem_needs" in m.PRESETS["deepspeed_zero2"].source


def test_ledger_command_rounds_the_bytes_per_parameter_to_3_places(capsys):
    """docs/cli.md: the table's figures are rounded to 3 places, B/param too."""
    assert main(["ledger", "--params", "1e9", "--dp", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[-4] for line in out[2:]] == ["16", "8", "6.667", "5.333"]
    assert main(["ledger", "--params", "1e9", "--dp", "7", "--preset", "deepspeed_zero2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("20 bytes per parameter")
    assert out[4].split()[-4] == "4.571"  # 2 + 18/7 = 4.571428…
