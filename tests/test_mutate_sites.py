"""Named patterns at several sites at once, and the patterns of issue 24's bank (derive/graph/
named_mutations.py): momentum forgotten in both buffers of w and b (torch in float64, SGD with
momentum 0 on both), Adam's bias correction forgotten in m̂ and v̂ (Fractions, √ by Decimal at
50 digits), a cosine schedule's t − 1 read as t and 1/K for the weights n_k/N of a
microbatch quantity (Fractions). Each claim is named; the same claim one unit off in its last
place is not, nor the single-site mistake where only one site is wrong."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction as F

import torch

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise

torch.set_default_dtype(torch.float64)

LAB = [("0.3127", "2.9381"), ("-1.0462", "-1.1386"), ("1.5", "6.5")]
LAB_DEFINE = '''loss = "mean_i((w_{t-1}*x_i + b_{t-1} - y_i)^2)"
gw = "grad(loss_t, w_{t-1})"
gb = "grad(loss_t, b_{t-1})"
uw = { formula = "mu*uw_{t-1} + gw_t", start = "0" }
ub = { formula = "mu*ub_{t-1} + gb_t", start = "0" }
w = { formula = "w_{t-1} - lr*uw_t", start = "w0" }
b = { formula = "b_{t-1} - lr*ub_t", start = "b0" }
loss_after = "mean_i((w_t*x_i + b_t - y_i)^2)"'''


def _exercise(tmp_path, given: str, define: str, name: str, claimed) -> object:
    text = ('[[exercise]]\nid = "s"\nrecipe = "formulas"\n[exercise.given]\n' + given +
            "\n[exercise.define]\n" + define + "\n[exercise.claims]\n" +
            (f"{name} = [{', '.join(chr(34) + c + chr(34) for c in claimed)}]"
             if isinstance(claimed, list) else f'{name} = "{claimed}"') + "\n")
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    claim = check_exercise(load_file(path)[0]).claims[0]
    assert claim.status == "wrong", claim
    return claim.diagnosis


def _names(d) -> set:
    return {d.mistake, *d.also} if d is not None and d.mistake else set()


def _off(text: str) -> str:
    d = Decimal(text)
    return str(d + Decimal(1).scaleb(d.as_tuple().exponent))


def _nudged(claimed):
    return claimed[:-1] + [_off(claimed[-1])] if isinstance(claimed, list) else _off(claimed)


def _six(v) -> str:
    """A Fraction or Decimal rounded half up to 6 places (never through a float)."""
    d = v if isinstance(v, Decimal) else Decimal(v.numerator) / Decimal(v.denominator)
    return str(d.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP))


# ----------------------------------------------------- momentum forgotten in both buffers

def _torch_lab(momentum_w: float, momentum_b: float) -> dict[str, list[str]]:
    """Three steps of the lab in torch float64: SGD(lr 0.05) with its momentum per parameter."""
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    x = torch.tensor([float(p) for p, _ in LAB])
    y = torch.tensor([float(q) for _, q in LAB])
    opt = torch.optim.SGD([{"params": [w], "momentum": momentum_w},
                           {"params": [b], "momentum": momentum_b}], lr=0.05)
    out: dict[str, list[str]] = {"w": [], "b": [], "loss_after": []}
    for _ in range(3):
        opt.zero_grad()
        ((w * x + b - y) ** 2).mean().backward()
        opt.step()
        out["w"].append(f"{w.item():.6f}")
        out["b"].append(f"{b.item():.6f}")
        with torch.no_grad():
            out["loss_after"].append(f"{((w * x + b - y) ** 2).mean().item():.6f}")
    return out


LAB_GIVEN = ("w0 = 0\nb0 = 0\nlr = 0.05\nmu = 0.9\nsteps = 3\nrecords = [" +
             ", ".join(f"[{p}, {q}]" for p, q in LAB) + "]")


def test_momentum_forgotten_in_both_buffers_against_torch(tmp_path):
    plain = _torch_lab(0.0, 0.0)
    for quantity in ("w", "b", "loss_after"):
        d = _exercise(tmp_path, LAB_GIVEN, LAB_DEFINE, quantity, plain[quantity])
        assert d.mistake == "momentum_forgotten", (quantity, d)
        assert "every buffer (uw, ub)" in d.explanation, d.explanation
        near = _exercise(tmp_path, LAB_GIVEN, LAB_DEFINE, quantity, _nudged(plain[quantity]))
        assert "momentum_forgotten" not in _names(near), (quantity, near)


def test_momentum_forgotten_in_one_buffer_is_the_single_site(tmp_path):
    """Only w's buffer without momentum: named at that site, not in every buffer."""
    one = _torch_lab(0.0, 0.9)
    d = _exercise(tmp_path, LAB_GIVEN, LAB_DEFINE, "w", one["w"])
    single = {"w_momentum_forgotten_gw", "uw_momentum_forgotten"}  # named, or a tie of both
    assert set(d.candidates) <= single and d.mistake in (*single, None), d
    assert "momentum_forgotten" not in _names(d), d


# ----------------------------------------- Adam's bias correction forgotten in m̂ and v̂

ADAM_ROWS = [(F("0.8415"), F("2.1")), (F("-1.5"), F("-2.9")), (F("1.9093"), F("4.0462"))]
ADAM_GIVEN = ("w0 = 1\nlr = 0.1\nbeta1 = 0.9\nbeta2 = 0.999\neps = 0.001\nsteps = 2\n"
              "records = [[0.8415, 2.1], [-1.5, -2.9], [1.9093, 4.0462]]")
ADAM_DEFINE = '''loss = "mean_i((w_{t-1}*x_i - y_i)^2)"
g = "grad(loss_t, w_{t-1})"
m = { formula = "beta1*m_{t-1} + (1 - beta1)*g_t", start = "0" }
v = { formula = "beta2*v_{t-1} + (1 - beta2)*g_t^2", start = "0" }
mhat = "m_t/(1 - beta1^t)"
vhat = "v_t/(1 - beta2^t)"
w = { formula = "w_{t-1} - lr*mhat_t/(sqrt(vhat_t) + eps)", start = "w0" }'''


def _adam(correct_m: bool, correct_v: bool) -> list[str]:
    """Two Adam steps, w as Decimal at 50 digits (the square root its only inexact step)."""
    with localcontext() as ctx:
        ctx.prec = 50
        w, m, v, out = Decimal(1), Decimal(0), Decimal(0), []
        rows = [(Decimal(x.numerator) / x.denominator, Decimal(y.numerator) / y.denominator)
                for x, y in ADAM_ROWS]
        b1, b2 = Decimal("0.9"), Decimal("0.999")
        for t in range(1, 3):
            g = sum(2 * (w * x - y) * x for x, y in rows) / 3
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            mh = m / (1 - b1 ** t) if correct_m else m
            vh = v / (1 - b2 ** t) if correct_v else v
            w = w - Decimal("0.1") * mh / (vh.sqrt() + Decimal("0.001"))
            out.append(_six(w))
    return out


def test_bias_correction_forgotten_in_both_estimates(tmp_path):
    claimed = _adam(False, False)
    d = _exercise(tmp_path, ADAM_GIVEN, ADAM_DEFINE, "w", claimed)
    assert d.mistake == "bias_correction_forgotten", d
    assert "every estimate (m̂, v̂)" in d.explanation, d.explanation  # mhat is m̂, as yhat ŷ
    near = _exercise(tmp_path, ADAM_GIVEN, ADAM_DEFINE, "w", _nudged(claimed))
    assert "bias_correction_forgotten" not in _names(near), near
    one = _exercise(tmp_path, ADAM_GIVEN, ADAM_DEFINE, "w", _adam(False, True))
    assert one.mistake == "mhat_bias_correction_forgotten", one


ADAM_INLINE = '''loss = "mean_i((w_{t-1}*x_i - y_i)^2)"
g = "grad(loss_t, w_{t-1})"
m = { formula = "beta1*m_{t-1} + (1 - beta1)*g_t", start = "0" }
v = { formula = "beta2*v_{t-1} + (1 - beta2)*g_t^2", start = "0" }
w = { formula = "w_{t-1} - lr*(m_t/(1 - beta1^t))/(sqrt(v_t/(1 - beta2^t)) + eps)", start = "w0" }'''


def test_bias_correction_forgotten_at_both_sites_of_one_formula(tmp_path):
    """Both corrections written inside w's own formula (the held-out bank's Adam): the two
    sites are one product and the √ inside it, made one after the other."""
    claimed = _adam(False, False)
    d = _exercise(tmp_path, ADAM_GIVEN, ADAM_INLINE, "w", claimed)
    assert d.mistake == "bias_correction_forgotten", d
    assert "1/(1 − β_1^t)" in d.explanation and "1/(1 − β_2^t)" in d.explanation, d
    one = _exercise(tmp_path, ADAM_GIVEN, ADAM_INLINE, "w", _adam(False, True))
    assert one.mistake == "w_bias_correction_forgotten", one
    near = _exercise(tmp_path, ADAM_GIVEN, ADAM_INLINE, "w", _nudged(claimed))
    assert "bias_correction_forgotten" not in _names(near), near


# ------------------------------------------------- a cosine schedule's t − 1 read as t

COS_GIVEN = ("w0 = 1\nlr = 0.2\neta_min = 0.01\ntmax = 3\nsteps = 3\n"
             "records = [[0.3127, 0.9381], [1.5, 4.5], [-1.0462, -3.1386]]")
COS_DEFINE = '''rate = "eta_min + (lr - eta_min)*(1 + cos(pi*(t - 1)/tmax))/2"
loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{t-1})"
w = { formula = "w_{t-1} - rate_t*g_t", start = "w0" }'''
COS = {0: F(1), 1: F(1, 2), 2: F(-1, 2), 3: F(-1), 4: F(-1, 2)}
"""cos(π·s/3) for s = 0…4, exact."""


def _cosine(shift: int) -> tuple[list[F], list[F]]:
    """Rates and w of three steps with cos(π·(t − 1 + shift)/3)."""
    rows = [(F("0.3127"), F("0.9381")), (F("1.5"), F("4.5")), (F("-1.0462"), F("-3.1386"))]
    w, rates, ws = F(1), [], []
    for t in range(1, 4):
        rate = F("0.01") + (F("0.2") - F("0.01")) * (1 + COS[t - 1 + shift]) / 2
        w -= rate * sum((w * x - y) * x for x, y in rows) / 3
        rates.append(rate)
        ws.append(w)
    return rates, ws


def test_cosine_one_step_late_is_counted_from_t(tmp_path):
    rates, ws = _cosine(1)
    for quantity, values in (("rate", rates), ("w", ws)):
        claimed = [_six(v) for v in values]
        d = _exercise(tmp_path, COS_GIVEN, COS_DEFINE, quantity, claimed)
        assert d.mistake == "rate_counted_from_t", (quantity, d)
        assert "one step late" in d.explanation
        near = _exercise(tmp_path, COS_GIVEN, COS_DEFINE, quantity, _nudged(claimed))
        assert "rate_counted_from_t" not in _names(near), near


def test_cosine_one_step_early_is_counted_from_t_minus_1(tmp_path):
    """cos(π·(t − 2)/3): a warmup's mistake, not this one."""
    rows = [F("0.01") + F("0.19") * (1 + c) / 2 for c in (F(1, 2), F(1), F(1, 2))]
    d = _exercise(tmp_path, COS_GIVEN, COS_DEFINE, "rate", [_six(v) for v in rows])
    assert d.mistake == "rate_counted_from_t_minus_1", d
    assert "rate_counted_from_t" not in _names(d), d


# -------------------------------------- 1/K for the weights n_k/N of a microbatch quantity

MB_GIVEN = ("w = 0.8\nlr = 0.1\nlambda_wd = 0.01\n"
            "microbatches = [[[0.3127, 1.1], [1.5, 2.9]], [[-1.0462, -2.4]]]")
MB_DEFINE = '''ell = "(w*x_i - y_i)^2/2"
mb_loss = "mean_{i in B_k}(ell_i)"
mb_grad = "grad(mb_loss_k, w)"
accumulated = "sum_k(n_k/N*mb_grad_k)"
gradient = "accumulated + lambda_wd*w"
w_new = "w - lr*gradient"'''


def test_one_over_k_for_a_microbatch_quantity(tmp_path):
    w = F("0.8")
    blocks = [[(F("0.3127"), F("1.1")), (F("1.5"), F("2.9"))], [(F("-1.0462"), F("-2.4"))]]
    means = sum(sum((w * x - y) * x for x, y in b) / len(b) for b in blocks) / 2
    claimed = _six(means + F("0.01") * w)
    d = _exercise(tmp_path, MB_GIVEN, MB_DEFINE, "gradient", claimed)
    assert d.mistake == "accumulated_weights_one_over_k", d
    near = _exercise(tmp_path, MB_GIVEN, MB_DEFINE, "gradient", _nudged(claimed))
    assert "accumulated_weights_one_over_k" not in _names(near), near
