"""Partial derivatives in training loops (derive/recipes/partials.py): `grad(loss_t, w_{t-1})`
with several recurrences holds the other recurrences' members of step t − 1 fixed, as autograd
does on one step; what would be wrong one step deep is refused, saying what to write instead.

Expected values come from a Fraction re-implementation of the loop written here from the
mathematics, and from torch's autograd in float64, never from derive's output.
"""

from __future__ import annotations

import os
import tomllib
from decimal import Decimal
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from derive.errors import InputError, NotSupportedError
from derive.exercises.check import answer_key
from derive.exercises.reader import _parse_float
from derive.exercises.schema import exercise

F = Fraction
HEAD = """
[[exercise]]
id = "t"
recipe = "formulas"
"""


def key_of(text: str) -> dict:
    """The answer key of the first exercise of a TOML text (every number read exact)."""
    table = tomllib.loads(text, parse_float=_parse_float)["exercise"][0]
    return answer_key(exercise(table, "t.toml", 0))


def frac(v) -> Fraction:
    v = sp.Rational(v)
    return F(int(v.p), int(v.q))

if os.environ.get("DERIVE_SKIP_TORCH") == "1":
    torch = pytest.importorskip("torch")
else:
    import torch

LAB = """
[exercise.define]
loss = "mean_i((w_{t-1}*x_i + b_{t-1} - y_i)^2)"
gw = "grad(loss_t, w_{t-1})"
gb = "d(loss_t)/d(b_{t-1})"
vw = { formula = "momentum*vw_{t-1} + gw_t", start = "vw0" }
vb = { formula = "momentum*vb_{t-1} + gb_t", start = "vb0" }
w = { formula = "w_{t-1} - lr*vw_t", start = "w0" }
b = { formula = "b_{t-1} - lr*vb_t", start = "b0" }
"""


def lab_text(records, w0, b0, lr, momentum, steps, vw0="0", vb0="0", define=LAB) -> str:
    rows = ", ".join(f"[{x}, {y}]" for x, y in records)
    return HEAD + f"""
[exercise.given]
w0 = {w0}
b0 = {b0}
vw0 = {vw0}
vb0 = {vb0}
lr = {lr}
momentum = {momentum}
steps = {steps}
records = [{rows}]
""" + define


def fraction_lab(records, w0, b0, lr, momentum, steps, vw0=0, vb0=0) -> dict:
    """SGD with momentum on w and b together (torch's rule, dampening 0), the loss the mean of
    (w·x + b − y)²: per step the loss and both gradients at the step's start, the buffers,
    w and b."""
    rec = [(F(x), F(y)) for x, y in records]
    n = len(rec)
    w, b, vw, vb = F(w0), F(b0), F(vw0), F(vb0)
    lr, mu = F(lr), F(momentum)
    out = {k: [] for k in ("loss", "gw", "gb", "vw", "vb", "w", "b")}
    for _ in range(steps):
        r = [w * x + b - y for x, y in rec]
        loss = sum(e * e for e in r) / n
        gw = sum(2 * e * x for e, (x, _) in zip(r, rec)) / n
        gb = sum(2 * e for e in r) / n
        vw, vb = mu * vw + gw, mu * vb + gb
        w, b = w - lr * vw, b - lr * vb
        for k, v in zip(out, (loss, gw, gb, vw, vb, w, b)):
            out[k].append(v)
    return out


def _listed(value) -> list:
    return [frac(v) for v in (value if isinstance(value, list) else [value])]


LAB_RECORDS = [("0.5", "3.5"), ("1.2", "5.6"), ("-0.8", "-0.4"), ("2.0", "8.0")]


def test_the_lab_is_the_fraction_loop():
    """The lab of docs/examples/formulas.toml (lab-momentum), every quantity."""
    args = (LAB_RECORDS, "0", "0", "0.05", "0.9", 4)
    key = key_of(lab_text(*args))
    expected = fraction_lab(*[a if not isinstance(a, str) else Decimal(a) for a in args])
    for name, values in expected.items():
        assert _listed(key[name]) == values, name


def test_resuming_with_and_without_the_saved_buffer():
    """Resumed after step 2 with the saved buffers, the run is the original's steps 3 to 5;
    with buffers restarted at zero it is another run (and the Fraction loop's)."""
    whole = fraction_lab([(Decimal(x), Decimal(y)) for x, y in LAB_RECORDS], 0, 0,
                         Decimal("0.05"), Decimal("0.9"), 5)
    saved = {k: whole[k][1] for k in ("w", "b", "vw", "vb")}
    assert saved == {"w": F("1.6689308125"), "b": F("1.124068125"),
                     "vw": F("-20.98361625"), "vb": F("-14.1313625")}
    resumed = key_of(lab_text(LAB_RECORDS, "1.6689308125", "1.124068125", "0.05", "0.9", 3,
                              vw0="-20.98361625", vb0="-14.1313625"))
    for name in ("loss", "w", "b", "vw", "vb"):
        assert _listed(resumed[name]) == whole[name][2:], name
    fresh = key_of(lab_text(LAB_RECORDS, "1.6689308125", "1.124068125", "0.05", "0.9", 3))
    expected = fraction_lab([(Decimal(x), Decimal(y)) for x, y in LAB_RECORDS],
                            saved["w"], saved["b"], Decimal("0.05"), Decimal("0.9"), 3)
    for name in ("loss", "w", "b", "vw", "vb"):
        assert _listed(fresh[name]) == expected[name], name
    assert _listed(fresh["w"])[-1] != whole["w"][-1]


decimal = st.decimals(min_value=-3, max_value=3, places=2, allow_nan=False,
                      allow_infinity=False)


@given(records=st.lists(st.tuples(decimal, decimal), min_size=1, max_size=4),
       w0=decimal, b0=decimal,
       lr=st.decimals(min_value="0.01", max_value="0.5", places=2),
       momentum=st.decimals(min_value=0, max_value="0.99", places=2),
       vw0=decimal, steps=st.integers(1, 3))
def test_random_loops_are_the_fraction_loop(records, w0, b0, lr, momentum, vw0, steps):
    key = key_of(lab_text(records, w0, b0, lr, momentum, steps, vw0=vw0))
    expected = fraction_lab(records, w0, b0, lr, momentum, steps, vw0=vw0)
    for name, values in expected.items():
        assert _listed(key[name]) == values, name


ONE_STEP = """
[exercise.define]
loss = "mean_i((w_{t-1}*x_i + b_{t-1} - y_i)^2)"
gw = "grad(loss_t, w_{t-1})"
gb = "grad(loss_t, b_{t-1})"
vw = { formula = "momentum*vw_{t-1} + gw_t", start = "vw0" }
vb = { formula = "momentum*vb_{t-1} + gb_t", start = "vb0" }
w = { formula = "w_{t-1} - lr*vw_t", start = "w0" }
b = { formula = "b_{t-1} - lr*vb_t", start = "b0" }
jww = "grad(w_t, w_{t-1})"
jwb = "grad(w_t, b_{t-1})"
jwv = "grad(w_t, vw_{t-1})"
hwb = "d(d(loss_t)/d(w_{t-1}))/d(b_{t-1})"
"""


def _one_step_jacobian(w, b, vw, vb, records, lr, mu):
    """torch's autograd on one step: the step's state are leaves; ∂w_t/∂(w, b, vw) and
    ∂²loss/∂w∂b."""
    f64 = torch.float64
    x = torch.tensor([float(r[0]) for r in records], dtype=f64)
    y = torch.tensor([float(r[1]) for r in records], dtype=f64)
    leaves = [torch.tensor(float(v), dtype=f64, requires_grad=True) for v in (w, b, vw, vb)]
    tw, tb, tvw, _ = leaves
    loss = ((tw * x + tb - y) ** 2).mean()
    gw, gb = torch.autograd.grad(loss, (tw, tb), create_graph=True)
    w_new = tw - float(lr) * (float(mu) * tvw + gw)
    jww, jwb, jwv = torch.autograd.grad(w_new, (tw, tb, tvw), retain_graph=True)
    (hwb,) = torch.autograd.grad(gw, (tb,))
    return {"jww": jww.item(), "jwb": jwb.item(), "jwv": jwv.item(), "hwb": hwb.item()}


def test_derivatives_of_one_step_are_torchs():
    """∂w_t/∂w_{t−1}, ∂w_t/∂b_{t−1}, ∂w_t/∂vw_{t−1} (w_t written out once: its buffer and
    gradient read w_{t−1}) and the mixed ∂²loss/∂w∂b agree with torch at every step."""
    records, lr, mu = LAB_RECORDS, "0.05", "0.9"
    key = key_of(lab_text(records, "0.25", "-0.5", lr, mu, 3, define=ONE_STEP))
    run = fraction_lab([(Decimal(x), Decimal(y)) for x, y in records], Decimal("0.25"),
                       Decimal("-0.5"), Decimal(lr), Decimal(mu), 3)
    starts = {k: [F(v0)] + run[k][:-1] for k, v0 in
              (("w", "0.25"), ("b", "-0.5"), ("vw", 0), ("vb", 0))}
    for t in range(3):
        ref = _one_step_jacobian(starts["w"][t], starts["b"][t], starts["vw"][t],
                                 starts["vb"][t], records, lr, mu)
        for name, got in ref.items():
            exact = float(_listed(key[name])[t])
            assert abs(exact - got) <= 1e-12 * max(1.0, abs(got)), (name, t, exact, got)
    # and by hand: 1 − lr·mean(2x²), −lr·mean(2x), −lr·μ, mean(2x)
    xs = [F(Decimal(x)) for x, _ in records]
    mean2x2, mean2x = sum(2 * x * x for x in xs) / 4, sum(2 * x for x in xs) / 4
    assert _listed(key["jww"]) == [1 - F(1, 20) * mean2x2] * 3
    assert _listed(key["jwb"]) == [-F(1, 20) * mean2x] * 3
    assert _listed(key["jwv"]) == [-F(1, 20) * F(9, 10)] * 3
    assert _listed(key["hwb"]) == [mean2x] * 3


def test_plain_sgd_step_derivative_reads_the_gradient():
    """∂w_t/∂w_{t−1} of w_t = w_{t−1} − lr·g_t is 1 − lr·∂g_t/∂w_{t−1}: g_t is written out
    (it was held fixed, giving 1)."""
    key = key_of(HEAD + """
[exercise.given]
w0 = 0.5
lr = 0.05
steps = 2
records = [[1.0, 5.0], [2.0, 8.0]]
[exercise.define]
loss = "mean_i((w_{t-1}*x_i - y_i)^2)"
g = "grad(loss_t, w_{t-1})"
w = { formula = "w_{t-1} - lr*g_t", start = "w0" }
J = "grad(w_t, w_{t-1})"
""")
    assert _listed(key["J"]) == [F(3, 4), F(3, 4)]  # 1 − 0.05·(2·1 + 2·4)/2


def test_a_buffer_the_loss_reads_is_held_fixed():
    """A look-ahead loss (Nesterov-like) reads the buffer of step t − 1: ∂/∂w_{t−1} holds it
    fixed, as autograd does with the optimizer's state."""
    key = key_of(lab_text(LAB_RECORDS, "0", "0", "0.05", "0.9", 2, define="""
[exercise.define]
loss = "mean_i(((w_{t-1} - lr*momentum*vw_{t-1})*x_i + b_{t-1} - y_i)^2)"
gw = "grad(loss_t, w_{t-1})"
gb = "grad(loss_t, b_{t-1})"
vw = { formula = "momentum*vw_{t-1} + gw_t", start = "vw0" }
vb = { formula = "momentum*vb_{t-1} + gb_t", start = "vb0" }
w = { formula = "w_{t-1} - lr*vw_t", start = "w0" }
b = { formula = "b_{t-1} - lr*vb_t", start = "b0" }
"""))
    rec = [(F(Decimal(x)), F(Decimal(y))) for x, y in LAB_RECORDS]
    w = b = vw = vb = F(0)
    lr, mu = F(1, 20), F(9, 10)
    gws = []
    for _ in range(2):
        r = [(w - lr * mu * vw) * x + b - y for x, y in rec]
        gw = sum(2 * e * x for e, (x, _) in zip(r, rec)) / 4
        gb = sum(2 * e for e in r) / 4
        gws.append(gw)
        vw, vb = mu * vw + gw, mu * vb + gb
        w, b = w - lr * vw, b - lr * vb
    assert _listed(key["gw"]) == gws


REFUSED = [
    # (the formulas added to the lab, what is wrong, what to write instead)
    ('g2 = "grad(loss_t, lr)"', "with respect to lr a formula that reads b_{t-1}",
     "derivatives through time are not supported"),
    ('g2 = "grad(loss_t, w0)"', "a member of a recurrence, which depends on w0",
     "derivatives through time are not supported"),
    ('g2 = "grad(loss_t, w_{t-2})"', "reads w_{t-2}: a formula reads a recurrence at its own "
     "step or the step before", "read the step before, w_{t-1}"),
    ('g2 = "grad(loss_t, vw_{t-1})"', "reads it only through w_{t-1}, held fixed (so 0) "
     "though computed from vw_{t-1}", "differentiate with respect to w_{t-1}"),
    ('g2 = "grad(w_t, vw_t)"', "holding w_t fixed, but w_t is computed from vw_t in the "
     "same step", "write w_t's formula into this one"),
    ('g2 = "grad(w_3, vw_2)"', "holding w_2 fixed, but w_2 is computed from vw_2 in the "
     "same step", "write w_2's formula into this one"),
    ('after = "mean_i((w_t*x_i + b_{t-1} - y_i)^2)"\ng2 = "grad(after_t, w_t)"',
     "a formula that reads b_{t-1}, of a step before w_t's, which cannot be held fixed",
     "differentiate with respect to w_{t-1}, as in grad(loss_t, w_{t-1})"),
    ('g2 = "grad(w_2, w_{t-1})"', "reads w_2, which is neither of w_{t-1}'s step nor the "
     "step after it", "the step before the formula's"),
    ('g2 = "grad(loss_t, gw_t)"', "with respect to gw_t a formula that reads b_{t-1}",
     "differentiate with respect to the step before"),
]


@pytest.mark.parametrize("extra,problem,instead", REFUSED)
def test_what_is_not_a_partial_is_refused_in_one_line(extra, problem, instead):
    with pytest.raises(NotSupportedError) as err:
        key_of(lab_text(LAB_RECORDS, "0", "0", "0.05", "0.9", 3, define=LAB + extra + "\n"))
    line = err.value.line()
    assert "\n" not in line and "key 'define." in line and "not supported" in line, line
    assert problem in line and instead in line and len(line) < 300, line


def test_a_later_step_of_the_start_is_a_valid_partial():
    """grad(loss_2, w_0): step 1 written out once, the start values (w_0, b_0, buffers) held
    fixed: the chain rule through one step, checked against torch."""
    key = key_of(lab_text(LAB_RECORDS, "0.25", "-0.5", "0.05", "0.9", 2,
                          define=LAB + 'g2 = "grad(loss_2, w_0)"\n'))
    f64 = torch.float64
    x = torch.tensor([float(r[0]) for r in LAB_RECORDS], dtype=f64)
    y = torch.tensor([float(r[1]) for r in LAB_RECORDS], dtype=f64)
    w0 = torch.tensor(0.25, dtype=f64, requires_grad=True)
    b0 = torch.tensor(-0.5, dtype=f64, requires_grad=True)
    loss1 = ((w0 * x + b0 - y) ** 2).mean()
    gw, gb = torch.autograd.grad(loss1, (w0, b0), create_graph=True)
    w1, b1 = w0 - 0.05 * gw, b0 - 0.05 * gb
    (d,) = torch.autograd.grad(((w1 * x + b1 - y) ** 2).mean(), (w0,))
    assert abs(float(frac(key["g2"])) - d.item()) <= 1e-12 * max(1.0, abs(d.item()))


def test_refusals_are_not_invalid_input():
    """A partial derive does not take is 'not supported', never 'invalid'."""
    with pytest.raises(InputError) as err:
        key_of(lab_text(LAB_RECORDS, "0", "0", "0.05", "0.9", 3,
                        define=LAB + 'g2 = "grad(loss_t, lr)"\n'))
    assert isinstance(err.value, NotSupportedError)
