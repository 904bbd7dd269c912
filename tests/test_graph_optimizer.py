"""optimizer_steps on the derivation graph: every node's formula per optimizer configuration
and its first step's substituted line, written by hand in the course's notation; each mistake
diagnosed by name from its example; values against torch (float64) and against plain
Fraction arithmetic of torch's SGD, written here."""

from __future__ import annotations

import os
from decimal import Decimal
from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.optimizers import REGISTRY, Optimizer
from derive.recipes import RECIPES
from derive.recipes.base import Example
from derive.recipes.optimizer_steps.mistakes import STEP_MISTAKES
from derive.render.working import Working

R = sp.Rational
RECIPE = RECIPES["optimizer_steps"]


def _given(opt=None, b=None, loss=None, steps=2):
    return {"w": sp.Integer(1), "lr": R(1, 10), "b": b, "loss": loss, "steps": sp.Integer(steps),
            "records": [[sp.Integer(2), sp.Integer(4)], [sp.Integer(1), sp.Integer(3)]],
            "optimizer": opt}


PLAIN = _given()
SQUARED_B = _given(b=R(1, 2), loss="squared")
MOMENTUM = _given(Optimizer.make("sgd", momentum=R(9, 10)))
DAMPED = _given(Optimizer.make("sgd", momentum=R(9, 10), dampening=R(1, 10)))
NESTEROV = _given(Optimizer.make("sgd", momentum=R(1, 2), nesterov=True, weight_decay=R(1, 10)))
MAXIMIZE = _given(Optimizer.make("sgd", maximize=True))
ADAM = _given(Optimizer.make("adam"))
ADAM_L2_MAX = _given(Optimizer.make("adam", weight_decay=R(1, 10), maximize=True))
ADAMW = _given(Optimizer.make("adamw"))
ADAMW_NO_DECAY = _given(Optimizer.make("adamw", weight_decay=0))
AMSGRAD_B = _given(Optimizer.make("adam", amsgrad=True), b=R(1, 2))
ADAMAX_L2_MAX = _given(Optimizer.make("adamax", weight_decay=R(1, 10), maximize=True))

G = r"g_{t} = \frac{1}{N} \sum_{i=1}^{N} \left(w_{t - 1} \cdot x_{i} - y_{i}\right) \cdot x_{i}"
G1 = (r"g_{1} = \frac{1}{2} \left(\left(1 \cdot 2 - 4\right) \cdot 2 + "
      r"\left(1 \cdot 1 - 3\right) \cdot 1\right)")
L = r"L_{t} = \frac{1}{N} \sum_{i=1}^{N} \frac{1}{2} \left(w_{t} \cdot x_{i} - y_{i}\right)^{2}"
M = r"m_{t} = \beta_{1} \cdot m_{t - 1} + \left(1 - \beta_{1}\right) \cdot g_{t}"
M1 = r"m_{1} = 0.9 \cdot 0 + \left(1 - 0.9\right) \cdot \left(-3\right)"
V = r"v_{t} = \beta_{2} \cdot v_{t - 1} + \left(1 - \beta_{2}\right) \cdot g_{t}^{2}"
V1 = r"v_{1} = 0.999 \cdot 0 + \left(1 - 0.999\right) \cdot \left(-3\right)^{2}"
MHAT = r"\hat{m}_{t} = \frac{m_{t}}{1 - \beta_{1}^{t}}"
MHAT1 = r"\hat{m}_{1} = \frac{-0.3}{1 - 0.9^{1}}"
VHAT = r"\hat{v}_{t} = \frac{v_{t}}{1 - \beta_{2}^{t}}"
VHAT1 = r"\hat{v}_{1} = \frac{0.009}{1 - 0.999^{1}}"
ADAM_W = r"w_{t} = w_{t - 1} - \eta \cdot \frac{\hat{m}_{t}}{\sqrt{\hat{v}_{t}} + \varepsilon}"
ADAM_W1 = r"w_{1} = 1 - 0.1 \cdot \frac{-3}{\sqrt{9} + \frac{1}{100000000}}"

# (configuration, node, its formula, its first step's substituted line) — by hand
TABLE = {
    "plain": (PLAIN, [
        ("gradient_steps", G, G1),
        ("w_steps", r"w_{t} = w_{t - 1} - \eta \cdot g_{t}", r"w_{1} = 1 - 0.1 \cdot \left(-3\right)"),
        ("loss_steps", L, r"L_{1} = \frac{1}{2} \left(\frac{1}{2} \left(1.3 \cdot 2 - 4\right)^{2} + "
                          r"\frac{1}{2} \left(1.3 \cdot 1 - 3\right)^{2}\right)"),
    ]),
    "squared-with-bias": (SQUARED_B, [
        ("gradient_steps",
         r"g_{t} = \frac{1}{N} \sum_{i=1}^{N} \left(2 \cdot \left(w_{t - 1} \cdot x_{i} + b_{t - 1}\right)"
         r" - 2 \cdot y_{i}\right) \cdot x_{i}",
         r"g_{1} = \frac{1}{2} \left(\left(2 \cdot \left(1 \cdot 2 + 0.5\right) - 2 \cdot 4\right) \cdot 2"
         r" + \left(2 \cdot \left(1 \cdot 1 + 0.5\right) - 2 \cdot 3\right) \cdot 1\right)"),
        ("b_gradient_steps",
         r"g_{b,t} = \frac{1}{N} \sum_{i=1}^{N} \left(2 \cdot \left(w_{t - 1} \cdot x_{i} + b_{t - 1}\right)"
         r" - 2 \cdot y_{i}\right)",
         r"g_{b,1} = \frac{1}{2} \left(2 \cdot \left(1 \cdot 2 + 0.5\right) - 2 \cdot 4 + "
         r"2 \cdot \left(1 \cdot 1 + 0.5\right) - 2 \cdot 3\right)"),
        ("w_steps", r"w_{t} = w_{t - 1} - \eta \cdot g_{t}", r"w_{1} = 1 - 0.1 \cdot \left(-4.5\right)"),
        ("b_steps", r"b_{t} = b_{t - 1} - \eta \cdot g_{b,t}", r"b_{1} = 0.5 - 0.1 \cdot \left(-3\right)"),
        ("loss_steps",
         r"L_{t} = \frac{1}{N} \sum_{i=1}^{N} \left(w_{t} \cdot x_{i} + b_{t} - y_{i}\right)^{2}",
         r"L_{1} = \frac{1}{2} \left(\left(1.45 \cdot 2 + 0.8 - 4\right)^{2} + "
         r"\left(1.45 \cdot 1 + 0.8 - 3\right)^{2}\right)"),
    ]),
    "momentum": (MOMENTUM, [
        ("gradient_steps", G, G1),
        ("buffer_steps", r"u_{t} = \mu \cdot u_{t - 1} + g_{t}", r"u_{1} = 0.9 \cdot 0 + \left(-3\right)"),
        ("w_steps", r"w_{t} = w_{t - 1} - \eta \cdot u_{t}", r"w_{1} = 1 - 0.1 \cdot \left(-3\right)"),
        ("loss_steps", L, None),
    ]),
    "dampening": (DAMPED, [
        ("gradient_steps", G, G1),
        ("buffer_steps",
         r"u_{t} = \begin{cases} g_{t} & t = 1 \\ \mu \cdot u_{t - 1} + \left(1 - \tau\right) \cdot g_{t}"
         r" & \text{otherwise} \end{cases}", r"u_{1} = -3"),
        ("w_steps", r"w_{t} = w_{t - 1} - \eta \cdot u_{t}", r"w_{1} = 1 - 0.1 \cdot \left(-3\right)"),
        ("loss_steps", L, None),
    ]),
    "nesterov-decay": (NESTEROV, [
        ("gradient_steps", G, G1),
        ("decayed_gradient", r"\tilde{g}_{t} = g_{t} + \lambda \cdot w_{t - 1}",
         r"\tilde{g}_{1} = -3 + 0.1 \cdot 1"),
        ("buffer_steps", r"u_{t} = \mu \cdot u_{t - 1} + \tilde{g}_{t}",
         r"u_{1} = 0.5 \cdot 0 + \left(-2.9\right)"),
        ("nesterov_direction", r"d_{t} = \tilde{g}_{t} + \mu \cdot u_{t}",
         r"d_{1} = -2.9 + 0.5 \cdot \left(-2.9\right)"),
        ("w_steps", r"w_{t} = w_{t - 1} - \eta \cdot d_{t}", r"w_{1} = 1 - 0.1 \cdot \left(-4.35\right)"),
        ("loss_steps", L, None),
    ]),
    "maximize": (MAXIMIZE, [
        ("gradient_steps", G, G1),
        ("decayed_gradient", r"\tilde{g}_{t} = -g_{t}", r"\tilde{g}_{1} = -\left(-3\right)"),
        ("w_steps", r"w_{t} = w_{t - 1} - \eta \cdot \tilde{g}_{t}", r"w_{1} = 1 - 0.1 \cdot 3"),
        ("loss_steps", L, None),
    ]),
    "adam": (ADAM, [
        ("gradient_steps", G, G1), ("m_steps", M, M1), ("v_steps", V, V1),
        ("m_hat", MHAT, MHAT1), ("v_hat", VHAT, VHAT1), ("w_steps", ADAM_W, ADAM_W1),
        ("loss_steps", L, None),
    ]),
    "adam-l2-maximize": (ADAM_L2_MAX, [
        ("gradient_steps", G, G1),
        ("decayed_gradient", r"\tilde{g}_{t} = \lambda \cdot w_{t - 1} - g_{t}",
         r"\tilde{g}_{1} = 0.1 \cdot 1 - \left(-3\right)"),
        ("m_steps", r"m_{t} = \beta_{1} \cdot m_{t - 1} + \left(1 - \beta_{1}\right) \cdot \tilde{g}_{t}",
         r"m_{1} = 0.9 \cdot 0 + \left(1 - 0.9\right) \cdot 3.1"),
        ("v_steps", r"v_{t} = \beta_{2} \cdot v_{t - 1} + \left(1 - \beta_{2}\right) \cdot \tilde{g}_{t}^{2}",
         r"v_{1} = 0.999 \cdot 0 + \left(1 - 0.999\right) \cdot 3.1^{2}"),
        ("m_hat", MHAT, r"\hat{m}_{1} = \frac{0.31}{1 - 0.9^{1}}"),
        ("v_hat", VHAT, r"\hat{v}_{1} = \frac{0.00961}{1 - 0.999^{1}}"),
        ("w_steps", ADAM_W, r"w_{1} = 1 - 0.1 \cdot \frac{3.1}{\sqrt{9.61} + \frac{1}{100000000}}"),
        ("loss_steps", L, None),
    ]),
    "adamax-l2-maximize": (ADAMAX_L2_MAX, [
        ("gradient_steps", G, G1),
        ("decayed_gradient", r"\tilde{g}_{t} = \lambda \cdot w_{t - 1} - g_{t}",
         r"\tilde{g}_{1} = 0.1 \cdot 1 - \left(-3\right)"),
        ("m_steps", r"m_{t} = \beta_{1} \cdot m_{t - 1} + \left(1 - \beta_{1}\right) \cdot \tilde{g}_{t}",
         r"m_{1} = 0.9 \cdot 0 + \left(1 - 0.9\right) \cdot 3.1"),
        # max is symmetric; SymPy orders its arguments (torch: max(β₂·u_{t−1}, |g̃_t| + ε))
        ("exp_inf_steps",
         r"u_{t} = \max\left(\left|\tilde{g}_{t}\right| + \varepsilon, \beta_{2} \cdot u_{t - 1}\right)",
         r"u_{1} = \max\left(\left|3.1\right| + \frac{1}{100000000}, 0.999 \cdot 0\right)"),
        ("w_steps", r"w_{t} = w_{t - 1} - \frac{\eta}{1 - \beta_{1}^{t}} \cdot \frac{m_{t}}{u_{t}}",
         r"w_{1} = 1 - \frac{0.1}{1 - 0.9^{1}} \cdot \frac{0.31}{\frac{310000001}{100000000}}"),
        ("loss_steps", L, None),
    ]),
    "adamw": (ADAMW, [
        ("gradient_steps", G, G1), ("m_steps", M, M1), ("v_steps", V, V1),
        ("m_hat", MHAT, MHAT1), ("v_hat", VHAT, VHAT1),
        ("w_steps", r"w_{t} = w_{t - 1} \cdot \left(1 - \eta \cdot \lambda\right) - "
                    r"\eta \cdot \frac{\hat{m}_{t}}{\sqrt{\hat{v}_{t}} + \varepsilon}",
         r"w_{1} = 1 \cdot \left(1 - 0.1 \cdot 0.01\right) - "
         r"0.1 \cdot \frac{-3}{\sqrt{9} + \frac{1}{100000000}}"),
        ("loss_steps", L, None),
    ]),
    "adamw-without-decay": (ADAMW_NO_DECAY, [
        ("gradient_steps", G, G1), ("m_steps", M, M1), ("v_steps", V, V1),
        ("m_hat", MHAT, MHAT1), ("v_hat", VHAT, VHAT1), ("w_steps", ADAM_W, ADAM_W1),
        ("loss_steps", L, None),
    ]),
    "amsgrad-with-bias": (AMSGRAD_B, [
        ("gradient_steps",
         r"g_{t} = \frac{1}{N} \sum_{i=1}^{N} \left(w_{t - 1} \cdot x_{i} + b_{t - 1} - y_{i}\right) \cdot x_{i}",
         None),
        ("b_gradient_steps",
         r"g_{b,t} = \frac{1}{N} \sum_{i=1}^{N} \left(w_{t - 1} \cdot x_{i} + b_{t - 1} - y_{i}\right)",
         r"g_{b,1} = \frac{1}{2} \left(1 \cdot 2 + 0.5 - 4 + 1 \cdot 1 + 0.5 - 3\right)"),
        ("m_steps", M, r"m_{1} = 0.9 \cdot 0 + \left(1 - 0.9\right) \cdot \left(-2.25\right)"),
        ("v_steps", V, None),
        ("v_max", r"v_{\max,t} = \max\left(v_{t}, v_{\max,t - 1}\right)",
         r"v_{\max,1} = \max\left(\frac{81}{16000}, 0\right)"),
        ("m_hat", MHAT, None),
        ("v_hat", r"\hat{v}_{t} = \frac{v_{\max,t}}{1 - \beta_{2}^{t}}", None),
        ("w_steps", ADAM_W, r"w_{1} = 1 - 0.1 \cdot \frac{-2.25}{\sqrt{5.0625} + \frac{1}{100000000}}"),
        ("b_m_steps", r"m_{b,t} = \beta_{1} \cdot m_{b,t - 1} + \left(1 - \beta_{1}\right) \cdot g_{b,t}",
         r"m_{b,1} = 0.9 \cdot 0 + \left(1 - 0.9\right) \cdot \left(-1.5\right)"),
        ("b_v_steps",
         r"v_{b,t} = \beta_{2} \cdot v_{b,t - 1} + \left(1 - \beta_{2}\right) \cdot g_{b,t}^{2}",
         r"v_{b,1} = 0.999 \cdot 0 + \left(1 - 0.999\right) \cdot \left(-1.5\right)^{2}"),
        ("b_v_max", r"v_{b,\max,t} = \max\left(v_{b,t}, v_{b,\max,t - 1}\right)",
         r"v_{b,\max,1} = \max\left(0.00225, 0\right)"),
        ("b_m_hat", r"\hat{m}_{b,t} = \frac{m_{b,t}}{1 - \beta_{1}^{t}}",
         r"\hat{m}_{b,1} = \frac{-0.15}{1 - 0.9^{1}}"),
        ("b_v_hat", r"\hat{v}_{b,t} = \frac{v_{b,\max,t}}{1 - \beta_{2}^{t}}",
         r"\hat{v}_{b,1} = \frac{0.00225}{1 - 0.999^{1}}"),
        ("b_steps",
         r"b_{t} = b_{t - 1} - \eta \cdot \frac{\hat{m}_{b,t}}{\sqrt{\hat{v}_{b,t}} + \varepsilon}",
         r"b_{1} = 0.5 - 0.1 \cdot \frac{-1.5}{\sqrt{2.25} + \frac{1}{100000000}}"),
        ("loss_steps",
         r"L_{t} = \frac{1}{N} \sum_{i=1}^{N} \frac{1}{2} \left(w_{t} \cdot x_{i} + b_{t} - y_{i}\right)^{2}",
         None),
    ]),
}


START_LINES = {"w_steps": "w_{0} = w = 1", "b_steps": "b_{0} = b = 0.5", "m_steps": "m_{0} = 0",
               "v_steps": "v_{0} = 0", "buffer_steps": "u_{0} = 0", "exp_inf_steps": "u_{0} = 0",
               "v_max": r"v_{\max,0} = 0", "b_m_steps": "m_{b,0} = 0", "b_v_steps": "v_{b,0} = 0",
               "b_v_max": r"v_{b,\max,0} = 0"}
"""Each recurrence's start, as the working writes it before the steps."""


@pytest.mark.parametrize("config", TABLE)
def test_every_node_formula_and_first_step(config):
    """The graph has exactly the table's nodes (no zero terms, nothing missing), each written
    as by hand, with its first step's numbers."""
    given_, rows = TABLE[config]
    work = Working(RECIPE, given_)
    assert [n.name for n in work.graph.nodes] == [name for name, _, _ in rows]
    for name, formula, first in rows:
        lines = work.lines(name)
        assert lines[0][0] == formula, name
        if work.graph.by_name[name].start is not None:  # member 0 has a line of its own
            assert lines[1][0] == START_LINES[name], name
            lines = lines[:1] + lines[2:]
        assert len(lines) == 2, name  # one substituted line: the first step's
        if first is not None:
            assert lines[1][0] == first, name


def test_every_step_is_a_row_of_the_table():
    from derive.render.document import Table
    work = Working(RECIPE, {**AMSGRAD_B, "steps": sp.Integer(3)})
    from derive.render.steps import steps_table
    columns = RECIPE.steps_columns
    blocks = steps_table(work, "en", tuple(columns), columns)
    table = next(b for b in blocks if isinstance(b, Table))
    assert table.header == ("t", "g_t", "∂L/∂b", "m_t", "v_t", "w_t", "b_t", "L_t")
    assert [row[0] for row in table.rows] == ["1", "2", "3"]
    assert table.rows[0][1] == ("math", "-2.25")


# ------------------------------------------------------------------------------- mistakes

def _toml(example) -> str:
    def value(v):
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if v in ("true", "false"):
            return v
        return v if v.lstrip("-").replace(".", "").isdigit() else f'"{v}"'
    lines = ["[[exercise]]", 'id = "example"', 'recipe = "optimizer_steps"', "[exercise.given]"]
    lines += [f"{k} = {value(v)}" for k, v in example.given.items()]
    lines += ["[exercise.claims]"] + [f"{k} = {value(v)}" for k, v in example.claims.items()]
    return "\n".join(lines) + "\n"



def test_the_mistakes_are_catalogued_with_both_languages():
    """The recipe's mistakes are its optimizers' (the docs' catalogue is written from them and
    tests/test_declarations.py keeps it current); each with words in both languages."""
    declared = {m.name for spec in REGISTRY.values() for m in spec.mistakes}
    own = {m.name for m in STEP_MISTAKES}
    assert {m.name for m in RECIPE.mistakes} == declared | own
    assert {"bias_correction_forgotten", "saving_only_w", "eps_inside_sqrt",
            "initial_accumulator_ignored", "centered_as_uncentered", "momentum_forgotten",
            "buffer_as_average", "buffer_reset_mid_run", "sqrt_forgotten"} <= declared
    assert own == {"loss_before_step", "gradient_sum", "b_gradient_sum"}
    for m in RECIPE.mistakes:
        assert m.doc and m.zh and m.example is not None, m.name


@pytest.mark.parametrize("mistake", RECIPE.mistakes, ids=[m.name for m in RECIPE.mistakes])
def test_each_mistake_is_diagnosed_by_name_from_its_example(mistake, tmp_path):
    path = tmp_path / "example.toml"
    path.write_text(_toml(mistake.example), encoding="utf-8")
    report = check_exercise(load_file(path)[0])
    claim = next(c for c in report.claims if c.name == mistake.target)
    assert claim.status == "wrong"
    assert mistake.name in {claim.diagnosis.mistake, *claim.diagnosis.also}, claim.diagnosis


def test_a_mistake_that_does_not_apply_is_never_named(tmp_path):
    """Plain SGD has no decay, no buffer, no Adam: a wrong w_steps gets no mistake's name."""
    path = tmp_path / "plain.toml"
    path.write_text(_toml(type("E", (), {"given": {"w": "1", "lr": "0.1", "records": [["2", "4"]]},
                                         "claims": {"w_steps": ["7"]}})), encoding="utf-8")
    claim = check_exercise(load_file(path)[0]).claims[0]
    assert claim.diagnosis.mistake is None


def test_claimed_gradients_carry_forward():
    """The optimizer re-run on the author's gradients (momentum, two steps)."""
    given_ = {**MOMENTUM, "records": [[sp.Integer(2), sp.Integer(4)]]}
    got = RECIPE.evaluate(given_, {"gradient_steps": [sp.Integer(-4), sp.Integer(2)]})
    # u_1 = −4, w_1 = 1.4; u_2 = 0.9·(−4) + 2 = −1.6, w_2 = 1.4 + 0.16 = 1.56
    assert got["buffer_steps"] == [-4, R(-8, 5)]
    assert got["w_steps"] == [R(7, 5), R(39, 25)]


# ------------------------------------------------------------------- values: Fractions, torch

small = st.integers(-12, 12).map(lambda k: F(k, 4))


@settings(max_examples=60, deadline=None)
@given(w=small, b=st.one_of(st.none(), small), records=st.lists(st.tuples(small, small),
                                                                 min_size=1, max_size=3),
       momentum=st.sampled_from([F(0), F(1, 2), F(9, 10)]),
       dampening=st.sampled_from([F(0), F(1, 10)]), decay=st.sampled_from([F(0), F(1, 100)]),
       nesterov=st.booleans(), maximize=st.booleans(), steps=st.integers(1, 4))
def test_sgd_against_fractions(w, b, records, momentum, dampening, decay, nesterov, maximize,
                               steps):
    """torch's `_single_tensor_sgd`, written here in Fractions, against the graph."""
    if nesterov and (momentum == 0 or dampening != 0):
        nesterov = False
    lr = F(1, 10)
    opt = Optimizer.make("sgd", momentum=R(momentum.numerator, momentum.denominator),
                         dampening=R(dampening.numerator, dampening.denominator),
                         weight_decay=R(decay.numerator, decay.denominator),
                         nesterov=nesterov, maximize=maximize)
    sym = lambda f: R(f.numerator, f.denominator)  # noqa: E731
    got = RECIPE.evaluate({"w": sym(w), "lr": sym(lr), "b": None if b is None else sym(b),
                           "records": [[sym(x), sym(y)] for x, y in records], "loss": None,
                           "steps": sp.Integer(steps), "optimizer": opt})
    params = {"w": w, "b": b if b is not None else F(0)}
    bufs: dict = {}
    want = {"w": [], "b": [], "g": []}
    for _ in range(steps):
        errs = [params["w"] * x + params["b"] - y for x, y in records]
        grads = {"w": sum(e * x for e, (x, _) in zip(errs, records)) / len(records),
                 "b": sum(errs) / len(records)}
        want["g"].append(grads["w"])
        for p in (("w", "b") if b is not None else ("w",)):
            d = -grads[p] if maximize else grads[p]
            d = d + decay * params[p]
            if momentum:
                bufs[p] = d if p not in bufs else momentum * bufs[p] + (1 - dampening) * d
                d = d + momentum * bufs[p] if nesterov else bufs[p]
            params[p] = params[p] - lr * d
            want[p].append(params[p])
    assert got["gradient_steps"] == [sym(v) for v in want["g"]]
    assert got["w_steps"] == [sym(v) for v in want["w"]]
    if b is not None:
        assert got["b_steps"] == [sym(v) for v in want["b"]]


def _torch():
    if os.environ.get("DERIVE_SKIP_TORCH") == "1":
        return pytest.importorskip("torch")
    import torch
    return torch


@pytest.mark.parametrize("opt", [
    Optimizer.make("sgd", momentum=R(9, 10), dampening=R(1, 10), weight_decay=R(1, 100),
                   maximize=True),
    Optimizer.make("sgd", momentum=R(1, 2), nesterov=True),
    Optimizer.make("adam", weight_decay=R(1, 10), amsgrad=True),
    Optimizer.make("adamw", maximize=True),
], ids=str)
def test_against_torch_float64(opt):
    torch = _torch()
    torch.set_default_dtype(torch.float64)
    records = [(2.0, 4.0), (-1.0, 1.5)]
    w = torch.tensor([1.0], requires_grad=True)
    b = torch.tensor([0.5], requires_grad=True)
    from tests import torch_harness as harness

    o = harness.make([w, b], sp.Rational(1, 10), opt)
    x = torch.tensor([r[0] for r in records])
    y = torch.tensor([r[1] for r in records])
    theirs = []
    for _ in range(3):
        o.zero_grad()
        ((w * x + b - y) ** 2 / 2).mean().backward()
        o.step()
        theirs.append((w.item(), b.item()))
    ours = RECIPE.evaluate({"w": sp.Integer(1), "b": R(1, 2), "lr": R(1, 10), "loss": None,
                            "records": [[R(2), R(4)], [R(-1), R(3, 2)]],
                            "steps": sp.Integer(3), "optimizer": opt})
    for t, (tw, tb) in enumerate(theirs):
        for exact, got in ((ours["w_steps"][t], tw), (ours["b_steps"][t], tb)):
            value = float(sp.N(exact, 40))
            assert abs(value - got) <= 1e-12 * max(abs(value), 1.0), (t, exact, got)


# ------------------------------------------------------------------------- resumed runs

@settings(max_examples=60, deadline=None)
@given(w=small, b=st.one_of(st.none(), small),
       batches=st.lists(st.lists(st.tuples(small, small), min_size=1, max_size=3), min_size=1,
                        max_size=3),
       saved=st.one_of(st.none(), st.tuples(small, small)),
       momentum=st.sampled_from([F(1, 2), F(9, 10)]), dampening=st.sampled_from([F(0), F(1, 10)]),
       decay=st.sampled_from([F(0), F(1, 100)]), nesterov=st.booleans(), maximize=st.booleans(),
       convention=st.sampled_from(["half", "squared"]))
def test_sgd_resume_against_fractions(w, b, batches, saved, momentum, dampening, decay, nesterov,
                                      maximize, convention):
    """torch's SGD written here in Fractions, resumed from saved buffers (or fresh), a batch of
    its own per step: every claimable quantity, and `saving_only_w` as the fresh-buffer run."""
    from derive.recipes.base import Context
    if dampening != 0:
        nesterov = False
    lr = F(1, 10)
    sym = lambda f: R(f.numerator, f.denominator)  # noqa: E731
    opt = Optimizer.make("sgd", momentum=sym(momentum), dampening=sym(dampening),
                         weight_decay=sym(decay), nesterov=nesterov, maximize=maximize)
    state = None
    if saved is not None:
        state = {"buffer": sym(saved[0])} | ({"b_buffer": sym(saved[1])} if b is not None else {})
    given_ = {"w": sym(w), "lr": sym(lr), "b": None if b is None else sym(b),
              "batches": [[(sym(x), sym(y)) for x, y in batch] for batch in batches],
              "records": None, "loss": convention, "steps": None, "optimizer": opt,
              "state": state}

    def run(bufs):
        params = {"w": w, "b": b if b is not None else F(0)}
        out = {k: [] for k in ("gradient_steps", "b_gradient_steps", "buffer_steps",
                               "b_buffer_steps", "w_steps", "b_steps", "loss_steps")}
        scale = 1 if convention == "half" else 2
        for batch in batches:
            errs = [params["w"] * x + params["b"] - y for x, y in batch]
            grads = {"w": scale * sum(e * x for e, (x, _) in zip(errs, batch)) / len(batch),
                     "b": scale * sum(errs) / len(batch)}
            for p, prefix in (("w", ""), ("b", "b_"))[: 2 if b is not None else 1]:
                out[prefix + "gradient_steps"].append(grads[p])
                d = -grads[p] if maximize else grads[p]
                d = d + decay * params[p]
                bufs[p] = d if bufs.get(p) is None else momentum * bufs[p] + (1 - dampening) * d
                out[prefix + "buffer_steps"].append(bufs[p])
                d = d + momentum * bufs[p] if nesterov else bufs[p]
                params[p] = params[p] - lr * d
                out[("w" if p == "w" else "b") + "_steps"].append(params[p])
            losses = [(params["w"] * x + params["b"] - y) ** 2 for x, y in batch]
            out["loss_steps"].append(sum(losses) / len(batch) / (2 if scale == 1 else 1))
        return {k: [sym(v) for v in vs] for k, vs in out.items() if vs}

    want = run({"w": saved[0], "b": saved[1]} if saved is not None else {})
    assert RECIPE.evaluate(given_) == want
    if saved is not None:
        lost = run({})
        for q, values in lost.items():
            mistake = next(m for m in RECIPE.mistakes if m.name == "saving_only_w")
            assert mistake.at(q)(Context(RECIPE, given_)) == values, q


def _resume_claims(tmp_path, given_: str, claims: str):
    path = tmp_path / "resume.toml"
    path.write_text('[[exercise]]\nid = "r"\nrecipe = "optimizer_steps"\n[exercise.given]\n'
                    + given_ + "[exercise.claims]\n" + claims, encoding="utf-8")
    return {c.name: c for c in check_exercise(load_file(path)[0]).claims}


ADAM_RESUMED = ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\nsteps = 2\noptimizer = { name = "adam" }\n'
                'state = { step = 2, m = -1, v = 4 }\n')


def test_a_lost_state_is_named_at_the_first_quantity_it_changes(tmp_path):
    """Two resumed steps: the lost buffer changes u_1 first, then w_1, and through w_1 the
    second gradient: each claim is named saving_only_w, the first wrong one is the earliest in
    derivation order, buffers before the parameters they move."""
    given_ = ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\nsteps = 2\n'
              'optimizer = { name = "sgd", momentum = 0.5 }\nstate = { buffer = -2 }\n')
    # lost: u_1 = −4, w_1 = 1.4, g_2 = −2.4, u_2 = −4.4, w_2 = 1.84
    claims = _resume_claims(tmp_path, given_, 'gradient_steps = [-4, -2.4]\n'
                            'buffer_steps = [-4, -4.4]\nw_steps = [1.4, 1.84]\n')
    for name in ("gradient_steps", "buffer_steps", "w_steps"):
        d = claims[name].diagnosis
        assert d.first_wrong == "gradient_steps", (name, d)  # named, or first of a tie
        assert d.candidates[0] == "saving_only_w" and d.mistake in ("saving_only_w", None)
    claims = _resume_claims(tmp_path, given_, 'w_steps = [1.4, 1.84]\n'
                            'buffer_steps = [-4, -4.4]\n')
    assert claims["w_steps"].diagnosis.first_wrong == "buffer_steps"


@pytest.mark.parametrize("mistake", ["state_lost_on_resume", "moments_reset", "step_count_reset",
                                     "resumed_from_wrong_step"])
def test_adam_resume_mistakes_are_named_at_w_over_two_steps(tmp_path, mistake):
    """Each Adam resume mistake's two steps of w, claimed to 9 places, are named by it."""
    from derive.recipes.base import Context
    given_ = load_file(_write(tmp_path, ADAM_RESUMED))[0].given
    m = next(m for m in RECIPE.mistakes if m.name == mistake)
    value = m.at("w_steps")(Context(RECIPE, given_))
    text = "w_steps = [" + ", ".join(f"{float(sp.N(v, 20)):.9f}" for v in value) + "]\n"
    d = _resume_claims(tmp_path, ADAM_RESUMED, text)["w_steps"].diagnosis
    assert mistake in {d.mistake, *d.also}, d


def _write(tmp_path, given_: str):
    path = tmp_path / "given.toml"
    path.write_text('[[exercise]]\nid = "r"\nrecipe = "optimizer_steps"\n[exercise.given]\n'
                    + given_, encoding="utf-8")
    return path


def test_a_resumed_adam_counts_its_steps_from_the_saved_one():
    """m̂ at the resumed step 1 of a run saved at step 2 divides by 1 − β₁³."""
    from derive.recipes.base import Context
    opt = Optimizer.make("adam")
    given_ = {"w": R(1), "lr": R(1, 10), "records": [[R(2), R(4)]], "b": None, "loss": None,
              "steps": None, "batches": None, "optimizer": opt,
              "state": {"step": 2, "m": R(-1), "v": R(4)}}
    got = RECIPE.evaluate(given_)
    m1 = R(9, 10) * -1 + R(1, 10) * -4
    v1 = R(999, 1000) * 4 + R(1, 1000) * 16
    w1 = 1 - R(1, 10) * (m1 / (1 - R(9, 10) ** 3)) / (
        sp.sqrt(v1 / (1 - R(999, 1000) ** 3)) + R(1, 10**8))
    assert got["m_steps"] == [m1] and got["v_steps"] == [v1]
    assert abs(sp.N(got["w_steps"][0] - w1, 50)) < 1e-40
    assert Context(RECIPE, given_)["w_steps"] == got["w_steps"]


SGDM = 'w = 1\nlr = 0.1\noptimizer = { name = "sgd", momentum = 0.9 }\n'
INVALID = [
    (SGDM + 'records = [[2, 4]]\nstate = { step = 2 }\n', "given.state.step", "keeps no step"),
    (SGDM + 'records = [[2, 4]]\nb = 0\nstate = { buffer = 1 }\n', "given.state.b_buffer",
     "missing"),
    (SGDM + 'records = [[2, 4]]\nstate = { b_buffer = 1 }\n', "given.state.b_buffer",
     "b is not given"),
    (SGDM + 'records = [[2, 4]]\nstate = { bufer = 1 }\n', "given.state.bufer", "buffer"),
    (SGDM + 'records = [[2, 4]]\nstate = { buffer = 0.1e400 }\n', "given.state.buffer", ""),
    (SGDM + 'records = [[2, 4]]\nstate = { buffer = "1+1" }\n', "given.state.buffer", "number"),
    (SGDM + 'records = [[2, 4]]\nstate = [1]\n', "given.state", "table"),
    ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\nstate = { buffer = 1 }\n', "given.state.buffer",
     "keeps no state"),
    ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\noptimizer = { name = "adam" }\n'
     'state = { step = 2, m = 1 }\n', "given.state.v", "missing"),
    ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\noptimizer = { name = "adam" }\n'
     'state = { step = 2, m = 1, v = -1 }\n', "given.state.v", "negative"),
    ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\noptimizer = { name = "adam" }\n'
     'state = { step = 2.5, m = 1, v = 1 }\n', "given.state.step", "whole number"),
    ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\noptimizer = { name = "adam" }\n'
     'state = { step = 20000, m = 1, v = 1 }\n', "given.state.step", "at most 1,000"),
    ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\noptimizer = { name = "adam", amsgrad = true }\n'
     'state = { step = 2, m = 1, v = 1 }\n', "given.state.v_max", "missing"),
    ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\noptimizer = { name = "adam" }\n'
     'state = { step = 2, m = 1, v = 1, buffer = 1 }\n', "given.state.buffer", "keeps no"),
    ('w = 1\nlr = 0.1\nrecords = [[2, 4]]\nbatches = [[[2, 4]]]\n', "given.batches", "not both"),
    ('w = 1\nlr = 0.1\nbatches = [[[2, 4]], [[1, 3]]]\nsteps = 3\n', "given.steps",
     "one step per batch"),
    ('w = 1\nlr = 0.1\nbatches = [[[2, 4]], []]\n', "given.batches[1]", "empty"),
    ('w = 1\nlr = 0.1\nsteps = 2\n', "given.records", "batches"),
]


@pytest.mark.parametrize("text,key,words", INVALID, ids=range(len(INVALID)))
def test_an_invalid_resume_is_one_line_naming_the_key(tmp_path, capsys, text, key, words):
    from derive.cli.main import main
    path = _write(tmp_path, text)
    code = main(["check", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and f"key '{key}'" in lines[0] and words in lines[0], err


def _nudged(text: str, units: int) -> str:
    """A claimed decimal moved by `units` in its last written place (1.08 → 1.09)."""
    d = Decimal(text)
    return str(d + units * Decimal(1).scaleb(d.as_tuple().exponent))


@pytest.mark.parametrize("mistake", RECIPE.mistakes, ids=[m.name for m in RECIPE.mistakes])
@pytest.mark.parametrize("units", [-3, 2])
def test_a_near_miss_of_a_mistake_is_not_named(mistake, units, tmp_path):
    """The example's wrong claim moved by a few units in its last place: still wrong, and not
    this mistake (a mistake is named only when it gives the claim)."""
    claims = {k: [_nudged(v[0], units)] + v[1:] for k, v in mistake.example.claims.items()}
    path = tmp_path / "near.toml"
    path.write_text(_toml(Example(mistake.example.given, claims)), encoding="utf-8")
    report = check_exercise(load_file(path)[0])
    claim = next(c for c in report.claims if c.name == mistake.target)
    if claim.status == "exact":  # the nudge landed on the right value (nesterov's 1.6)
        return
    assert claim.status == "wrong", claim
    assert mistake.name not in {claim.diagnosis.mistake, *claim.diagnosis.also}, claim.diagnosis
