"""Held-out bank (heldout24): every right value and every planted mistaken value, computed
independently of derive: Fractions (exact) for rational values, torch float64 for irrational
ones (sigmoid, cos, sqrt). Writes exercises.toml (the bank), expected.json and intended.toml.

Run: python benchmarks/heldout24/reference.py
"""
# ruff: noqa: E501 (the exercises' TOML text is kept as an author writes it)
from __future__ import annotations

import json
import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
D = torch.float64


def q(x) -> F:
    return F(str(x))


def dec4(x, places=4) -> str:
    """x rounded half away from zero to `places` places, as a string (Fraction or float)."""
    if isinstance(x, torch.Tensor):
        x = x.item()
    if isinstance(x, float):
        d = Decimal(repr(x))
    else:
        d = Decimal(x.numerator) / Decimal(x.denominator)
    r = d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    s = f"{r:f}"
    return "0." + "0" * places if s.startswith("-") and r == 0 else s


def slip(s: str) -> str:
    """One digit typed wrong: the second-to-last digit one up (one down from 9)."""
    i = len(s) - 2
    while not s[i].isdigit():
        i -= 1
    d = int(s[i])
    return s[:i] + str(d + 1 if d < 9 else d - 1) + s[i + 1:]


def rnd(x: F, places: int) -> F:
    return F(Decimal(dec4(x, places)))


EX: list[dict] = []   # {id, title, text (given/define toml), claims: {q: (toml, holds, value)}}
WRONG: list[dict] = []


def claim_str(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(claim_str(x) for x in v) + "]"
    if isinstance(v, dict) and "places" in v:
        return "{ value = " + json.dumps(v["value"]) + f", places = {v['places']} }}"
    if isinstance(v, dict):
        return "{ formula = " + json.dumps(v["formula"]) + " }"
    return json.dumps(v)


def exercise(eid, title, body, claims, wrong):
    """claims: {quantity: (claimed value, right value)}; wrong: {quantity: (words, name, accept)}."""
    EX.append(dict(id=eid, title=title, body=body, claims=claims, wrong=wrong))
    for qn, (words, name, accept) in wrong.items():
        WRONG.append(dict(exercise=eid, quantity=qn, name=name, mistake=words, accept=accept))


def L(xs, f=dec4):
    return [f(x) for x in xs]


# ---------------------------------------------------------------- linear model, SGD momentum
R = [(q("0.4172"), q("1.2035")), (q("-1.3306"), q("-0.8841")), (q("0.9518"), q("2.0473"))]


def lin_grads(w, b, recs, factor=2, bsum=False):
    n = len(recs)
    gw = sum(factor * (w * x + b - y) * x for x, y in recs) / n
    gb = sum(factor * (w * x + b - y) for x, y in recs)
    gb = gb if bsum else gb / n
    return gw, gb


def lin_loss(w, b, recs, half=False):
    s = sum((w * x + b - y) ** 2 for x, y in recs) / len(recs)
    return s / 2 if half else s


def sgd_momentum(w, b, recs, lr, mu, steps, vw=None, vb=None, *, forget=(), bsum=False,
                 damp=F(0), reset_at=None, batches=None):
    """torch SGD(momentum=mu, dampening=damp) on mean (y^ - y)^2. vw/vb: saved buffers or None.
    forget: buffers without momentum ('w', 'b'). reset_at: the step k whose buffer restarts."""
    out = dict(gw=[], gb=[], vw=[], vb=[], w=[], b=[], loss_after=[], loss_before=[])
    for t in range(1, steps + 1):
        recs_t = batches[t - 1] if batches else recs
        out["loss_before"].append(lin_loss(w, b, recs_t))
        gw, gb = lin_grads(w, b, recs_t, bsum=bsum)
        if vw is None or t == reset_at:
            nvw, nvb = gw, gb
        else:
            nvw = mu * vw + (1 - damp) * gw
            nvb = mu * vb + (1 - damp) * gb
        if "w" in forget:
            nvw = gw
        if "b" in forget:
            nvb = gb
        vw, vb = nvw, nvb
        w, b = w - lr * vw, b - lr * vb
        for k, v in (("gw", gw), ("gb", gb), ("vw", vw), ("vb", vb), ("w", w), ("b", b)):
            out[k].append(v)
        out["loss_after"].append(lin_loss(w, b, recs_t))
    return out


w0, b0, lr, mu = q("0.2514"), q("-0.1187"), q("0.05"), q("0.9")
right = sgd_momentum(w0, b0, R, lr, mu, 3)
gbsum = sgd_momentum(w0, b0, R, lr, mu, 3, bsum=True)
nomom = sgd_momentum(w0, b0, R, lr, mu, 3, forget=("w", "b"))
RECS = "records = [[0.4172, 1.2035], [-1.3306, -0.8841], [0.9518, 2.0473]]"

exercise("mom-formulas", "w and b by SGD with momentum 0.9, three steps, written as formulas", f"""
[exercise.given]
w0 = 0.2514
b0 = -0.1187
lr = 0.05
momentum = 0.9
steps = 3
{RECS}

[exercise.define]
loss = "mean_i((w_{{t-1}}*x_i + b_{{t-1}} - y_i)^2)"
gw = "grad(loss_t, w_{{t-1}})"
gb = "grad(loss_t, b_{{t-1}})"
vw = {{ formula = "momentum*vw_{{t-1}} + gw_t", start = "0" }}
vb = {{ formula = "momentum*vb_{{t-1}} + gb_t", start = "0" }}
w = {{ formula = "w_{{t-1}} - lr*vw_t", start = "w0" }}
b = {{ formula = "b_{{t-1}} - lr*vb_t", start = "b0" }}
""", {
    "gw": (L(right["gw"]), right["gw"]),
    "gb": (L(gbsum["gb"]), right["gb"]),
    "w": (L(nomom["w"]), right["w"]),
    "b": (L(right["b"]), right["b"]),
}, {
    "gb": ("the bias gradient summed over the 3 records, not averaged (whole run)",
           "bias gradient summed", ["*sum_for_mean*"]),
    "w": ("momentum forgotten in both buffers: plain SGD", "momentum forgotten",
          ["*momentum_forgotten*"]),
})

# The same run with the built-in recipe (loss "squared" = mean (y^ - y)^2).
avg = sgd_momentum(w0, b0, R, lr, mu, 3, damp=mu)
exercise("mom-builtin", "the same run with optimizer_steps; dampening written as momentum", f"""
[exercise.given]
w = 0.2514
b = -0.1187
lr = 0.05
loss = "squared"
steps = 3
{RECS}
optimizer = {{ name = "sgd", momentum = 0.9 }}
""", {
    "gradient_steps": (L(right["gw"]), right["gw"]),
    "buffer_steps": (L(avg["vw"]), right["vw"]),
    "w_steps": (L(avg["w"]), right["w"]),
    "b_steps": (L(right["b"]), right["b"]),
    "loss_steps": ([*L(right["loss_after"][:2]), slip(dec4(right["loss_after"][2]))],
                   right["loss_after"]),
}, {
    "buffer_steps": ("the buffer as an average: dampening = momentum (u_1 = g_1)",
                     "dampening = momentum", ["buffer_as_average*"]),
    "w_steps": ("carried from the wrong (averaged) buffer", "carried (dampening)",
                ["carried", "buffer_as_average*"]),
    "loss_steps": ("slip: one digit of the third loss typed wrong", "slip", []),
})

reset = sgd_momentum(w0, b0, R, lr, mu, 3, reset_at=3)
exercise("mom-reset", "the same run written as one trajectory with the buffer lost at step 3", f"""
[exercise.given]
w = 0.2514
b = -0.1187
lr = 0.05
loss = "squared"
steps = 3
{RECS}
optimizer = {{ name = "sgd", momentum = 0.9 }}
""", {
    "gradient_steps": (L(right["gw"]), right["gw"]),
    "w_steps": (L(reset["w"]), right["w"]),
}, {
    "w_steps": ("momentum buffer reset mid-run (restarted at step 3: u_3 = g_3)",
                "buffer reset mid-run", ["buffer_reset_mid_run"]),
})

# Resumed runs: a checkpoint (4-place values) and two more steps on a new batch.
RB = [[(q("1.1092"), q("2.5310")), (q("-0.6034"), q("0.2761"))],
      [(q("0.2250"), q("1.0418")), (q("1.7345"), q("3.3170"))]]
BATCHES = ("batches = [[[1.1092, 2.5310], [-0.6034, 0.2761]], "
           "[[0.2250, 1.0418], [1.7345, 3.3170]]]")
wc, bc, uc, ubc = q("0.8635"), q("0.4172"), q("-1.3306"), q("-0.7458")
res = sgd_momentum(wc, bc, None, lr, mu, 2, uc, ubc, batches=RB)
res_lost = sgd_momentum(wc, bc, None, lr, mu, 2, batches=RB)
exercise("resume-builtin", "resumed from a checkpoint with its momentum buffers", f"""
[exercise.given]
w = 0.8635
b = 0.4172
lr = 0.05
loss = "squared"
{BATCHES}
optimizer = {{ name = "sgd", momentum = 0.9 }}
state = {{ buffer = -1.3306, b_buffer = -0.7458 }}
""", {
    "gradient_steps": (L(res["gw"]), res["gw"]),
    "buffer_steps": (L(res_lost["vw"]), res["vw"]),
    "loss_steps": (L(res["loss_after"]), res["loss_after"]),
}, {
    "buffer_steps": ("the saved buffers ignored: only w and b restored, u_1 = g_1",
                     "state lost on resume", ["saving_only_w"]),
})

# Resumed as formulas, with the saved buffers; the mistake: w's buffer without momentum.
# The formulas exercises read all four records at every step (formulas take no per-step
# batches): their reference runs on R4. (Fixed after the first run: the first version ran
# them on the builtin's per-step batches RB, which the exercises as written do not state.)
R4 = RB[0] + RB[1]
res4 = sgd_momentum(wc, bc, R4, lr, mu, 2, uc, ubc)
res_fw = sgd_momentum(wc, bc, R4, lr, mu, 2, uc, ubc, forget=("w",))
RESUME_DEFINE = """
[exercise.define]
loss = "mean_i((w_{t-1}*x_i + b_{t-1} - y_i)^2)"
gw = "grad(loss_t, w_{t-1})"
gb = "grad(loss_t, b_{t-1})"
"""
exercise("resume-formulas", "the resume written as formulas, with the saved buffers", """
[exercise.given]
w2 = 0.8635
b2 = 0.4172
vw2 = -1.3306
vb2 = -0.7458
lr = 0.05
momentum = 0.9
steps = 2
records = [[1.1092, 2.5310], [-0.6034, 0.2761], [0.2250, 1.0418], [1.7345, 3.3170]]
""" + "@@RESUME@@" + """
vw = { formula = "momentum*vw_{t-1} + gw_t", start = "vw2" }
vb = { formula = "momentum*vb_{t-1} + gb_t", start = "vb2" }
w = { formula = "w_{t-1} - lr*vw_t", start = "w2" }
b = { formula = "b_{t-1} - lr*vb_t", start = "b2" }
""", {
    "loss": (L(res4["loss_before"]), res4["loss_before"]),
    "vw": (L(res_fw["vw"]), res4["vw"]),
    "w": (L(res_fw["w"]), res4["w"]),
}, {
    "vw": ("momentum forgotten in w's buffer after the resume: vw_t = gw_t",
           "momentum forgotten (w buffer)", ["*momentum_forgotten*"]),
    "w": ("carried from the wrong vw", "carried (momentum forgotten)",
          ["carried", "*momentum_forgotten*"]),
})

res0 = sgd_momentum(wc, bc, R4, lr, mu, 2, F(0), F(0))
exercise("resume-fresh", "the resume as formulas without the saved buffers (they start at 0)", """
[exercise.given]
w2 = 0.8635
b2 = 0.4172
lr = 0.05
momentum = 0.9
steps = 2
records = [[1.1092, 2.5310], [-0.6034, 0.2761], [0.2250, 1.0418], [1.7345, 3.3170]]
""" + "@@RESUME@@" + """
vw = { formula = "momentum*vw_{t-1} + gw_t", start = "0" }
vb = { formula = "momentum*vb_{t-1} + gb_t", start = "0" }
w = { formula = "w_{t-1} - lr*vw_t", start = "w2" }
b = { formula = "b_{t-1} - lr*vb_t", start = "b2" }
""", {
    "w": (L(res0["w"]), res0["w"]),
    "b": ([dec4(res0["b"][0]), slip(dec4(res0["b"][1]))], res0["b"]),
}, {
    "b": ("slip: one digit of b_2 typed wrong", "slip", []),
})

# ---------------------------------------------------------------- two features, one SGD step
R2 = [(q("0.5821"), q("-1.0347"), q("0.8812")), (q("-0.2739"), q("0.6604"), q("-0.4150")),
      (q("1.4418"), q("0.1925"), q("1.9036"))]
w1, w2, bb, lr2 = q("0.3170"), q("-0.6248"), q("0.1054"), q("0.1")
res2 = [w1 * a + w2 * c + bb - y for a, c, y in R2]
loss2 = sum(r * r for r in res2) / 3
g1 = sum(2 * r * a for r, (a, c, y) in zip(res2, R2)) / 3
g2 = sum(2 * r * c for r, (a, c, y) in zip(res2, R2)) / 3
gb2 = sum(2 * r for r in res2) / 3
exercise("two-features", "two features and a bias, one SGD step on the mean squared error", """
[exercise.given]
w1 = 0.3170
w2 = -0.6248
b = 0.1054
lr = 0.1
records = { columns = ["x1", "x2", "y"], rows = [[0.5821, -1.0347, 0.8812], [-0.2739, 0.6604, -0.4150], [1.4418, 0.1925, 1.9036]] }

[exercise.define]
yhat = "w1*x1_i + w2*x2_i + b"
loss = "mean_i((yhat_i - y_i)^2)"
g1 = "grad(loss, w1)"
g2 = "grad(loss, w2)"
gb = "grad(loss, b)"
w1_new = "w1 - lr*g1"
w2_new = "w2 - lr*g2"
b_new = "b - lr*gb"
""", {
    "loss": (dec4(loss2), loss2),
    "g1": (dec4(g1 / 2), g1),
    "g2": (dec4(g2), g2),
    "w1_new": (dec4(w1 - lr2 * g1 / 2), w1 - lr2 * g1),
    "w2_new": (slip(dec4(w2 - lr2 * g2)), w2 - lr2 * g2),
    "b_new": (dec4(bb + lr2 * gb2), bb - lr2 * gb2),
}, {
    "g1": ("the factor 2 of the square's derivative lost (½ of the gradient)", "factor 2 lost",
           ["*constant_dropped*", "*halved*"]),
    "w1_new": ("carried from the halved g1", "carried (factor 2)", ["carried"]),
    "w2_new": ("slip: one digit typed wrong", "slip", []),
    "b_new": ("sign flipped: b + lr*gb", "sign flipped", ["*sign*"]),
})

# ---------------------------------------------------------------- L1 with a zero residual
RL = [(q("0.5"), q("0.4172")), (q("1.2500"), q("-0.3306")), (q("-0.8"), q("0.9518"))]
wl, lrl = q("0.8344"), q("0.1")   # first residual 0.8344*0.5 - 0.4172 = 0
rl = [wl * x - y for x, y in RL]
assert rl[0] == 0
def sgn(v):
    return (v > 0) - (v < 0)
loss_l1 = sum(abs(r) for r in rl) / 3
g_l1 = F(sum(sgn(r) * x for r, (x, y) in zip(rl, RL))) / 3
g_l1_p1 = F(sum((1 if r == 0 else sgn(r)) * x for r, (x, y) in zip(rl, RL))) / 3
exercise("l1-zero", "L1 loss, one SGD step, the first residual exactly 0", """
[exercise.given]
w = 0.8344
lr = 0.1
records = [[0.5, 0.4172], [1.2500, -0.3306], [-0.8, 0.9518]]

[exercise.define]
ell = "|w*x_i - y_i|"
loss = "mean_i(ell_i)"
gradient = "grad(loss, w)"
w_new = "w - lr*gradient"
""", {
    "loss": (dec4(loss_l1), loss_l1),
    "gradient": (dec4(g_l1_p1), g_l1),
    "w_new": (dec4(wl - lrl * g_l1), wl - lrl * g_l1),
}, {
    "gradient": ("sign(0) taken as +1 at the zero residual", "sign(0) as +1",
                 ["*sign_at_zero_as_one*"]),
})

# ---------------------------------------------------------------- Huber (delta = 1)
RH = [(q("0.7310"), q("0.2044")), (q("-1.5526"), q("1.9381")), (q("2.1147"), q("-0.6630"))]
wh, lrh, dl = q("0.6215"), q("0.05"), F(1)
rh = [wh * x - y for x, y in RH]
def hub(r):
    return r * r / 2 if abs(r) <= dl else dl * (abs(r) - dl / 2)


def dhub(r):
    return r if abs(r) <= dl else dl * sgn(r)
loss_h = sum(hub(r) for r in rh) / 3
g_h = sum(dhub(r) * x for r, (x, y) in zip(rh, RH)) / 3
g_h_sum = g_h * 3
exercise("huber", "Huber loss (delta = 1), one SGD step", """
[exercise.given]
w = 0.6215
lr = 0.05
delta = 1
records = [[0.7310, 0.2044], [-1.5526, 1.9381], [2.1147, -0.6630]]

[exercise.define]
r = "w*x_i - y_i"
ell = "min(|r_i|, delta)*(|r_i| - min(|r_i|, delta)/2)"
loss = "mean_i(ell_i)"
gradient = "grad(loss, w)"
w_new = "w - lr*gradient"
""", {
    "loss": (dec4(loss_h), loss_h),
    "gradient": (dec4(g_h_sum), g_h),
    "w_new": (dec4(wh - lrh * g_h_sum), wh - lrh * g_h),
}, {
    "gradient": ("the sum for the mean (no /N)", "sum for mean", ["*sum_for_mean*"]),
    "w_new": ("carried from the summed gradient", "carried (sum)", ["carried"]),
})

# ---------------------------------------------------------------- ReLU unit
RR = [(q("0.9143"), q("0.5120")), (q("-0.3361"), q("0.2078")), (q("1.6027"), q("0.7493"))]
wr, br, lrr = q("0.4172"), q("0.1305"), q("0.1")
zr = [wr * x + br for x, y in RR]
yr = [max(z, F(0)) for z in zr]
er = [a - y for a, (x, y) in zip(yr, RR)]
act = [1 if z > 0 else 0 for z in zr]
loss_r = sum(e * e / 2 for e in er) / 3
gw_r = sum(e * a * x for e, a, (x, y) in zip(er, act, RR)) / 3
gb_r = sum(e * a for e, a in zip(er, act)) / 3
assert 0 in act and 1 in act
exercise("relu", "a ReLU unit, one SGD step (one record inactive)", """
[exercise.given]
w = 0.4172
b = 0.1305
lr = 0.1
records = [[0.9143, 0.5120], [-0.3361, 0.2078], [1.6027, 0.7493]]

[exercise.define]
z = "w*x_i + b"
yhat = "relu(z_i)"
loss = "mean_i((yhat_i - y_i)^2/2)"
gw = "grad(loss, w)"
gb = "grad(loss, b)"
w_new = "w - lr*gw"
b_new = "b - lr*gb"
""", {
    "loss": (dec4(loss_r), loss_r),
    "gw": (dec4(gw_r), gw_r),
    "gb": (dec4(-gb_r), gb_r),
    "w_new": (dec4(wr - lrr * gw_r), wr - lrr * gw_r),
}, {
    "gb": ("sign flipped: y - yhat for yhat - y", "sign flipped", ["*sign*"]),
})

# ---------------------------------------------------------------- logistic regression
xs = torch.tensor([0.8120, -1.3306, 0.4172, 1.9054], dtype=D)
ys = torch.tensor([1.0, 0.0, 1.0, 0.0], dtype=D)
wg, bg, lrg = 0.2514, -0.1187, 0.5
p = torch.sigmoid(wg * xs + bg)
loss_g = -(ys * torch.log(p) + (1 - ys) * torch.log(1 - p)).mean()
g_g = ((p - ys) * xs).mean()
gb_g = (p - ys).mean()
g_round = float(rnd(F(g_g.item()), 2))
exercise("logistic", "logistic regression with a sigmoid, one SGD step", """
[exercise.given]
w = 0.2514
b = -0.1187
lr = 0.5
records = [[0.8120, 1], [-1.3306, 0], [0.4172, 1], [1.9054, 0]]

[exercise.define]
z = "w*x_i + b"
p = "sigmoid(z_i)"
ell = "-(y_i*log(p_i) + (1 - y_i)*log(1 - p_i))"
loss = "mean_i(ell_i)"
gradient = "grad(loss, w)"
b_gradient = "grad(loss, b)"
w_new = "w - lr*gradient"
""", {
    "loss": (dec4(loss_g), loss_g.item()),
    "gradient": ({"formula": "sum_i((sigmoid(w*x_i + b) - y_i)*x_i)"}, g_g.item()),
    "b_gradient": (dec4(gb_g), gb_g.item()),
    "w_new": (dec4(wg - lrg * g_round), wg - lrg * g_g.item()),
}, {
    "gradient": ("a formula answer missing its /N (the sum for the mean)", "missing /N",
                 ["*sum_for_mean*"]),
    "w_new": ("the gradient rounded to 2 places before the update", "rounded early",
              ["rounded_early"]),
})

# ---------------------------------------------------------------- warmup schedule
RW = [(q("0.6150"), q("1.1283")), (q("-0.4172"), q("-0.9014"))]
wwu, lrw, W = q("0.3306"), q("0.2"), 3


def sched_run(rates, w, recs):
    out = []
    for r in rates:
        g = sum((w * x - y) * x for x, y in recs) / len(recs)
        w = w - r * g
        out.append(w)
    return out


rate_w = [lrw * min(F(1), F(t, W)) for t in range(1, 5)]
rate_w1 = [lrw * min(F(1), F(t - 1, W)) for t in range(1, 5)]
exercise("warmup", "four SGD steps under a linear warmup over 3 steps", """
[exercise.given]
w0 = 0.3306
lr = 0.2
warmup = 3
steps = 4
records = [[0.6150, 1.1283], [-0.4172, -0.9014]]

[exercise.define]
rate = "lr*min(1, t/warmup)"
loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{t-1})"
w = { formula = "w_{t-1} - rate_t*g_t", start = "w0" }
""", {
    "rate": (L(rate_w1), rate_w),
    "w": (L(sched_run(rate_w, wwu, RW)), sched_run(rate_w, wwu, RW)),
}, {
    "rate": ("warmup counted from t - 1: lr*min(1, (t - 1)/W)", "warmup from t-1",
             ["*counted_from_t_minus_1*"]),
})

# ---------------------------------------------------------------- cosine schedule
T = 4
rate_c = [0.1 * (1 + math.cos(math.pi * (t - 1) / T)) / 2 for t in range(1, 5)]
rate_c_t = [0.1 * (1 + torch.cos(torch.tensor(math.pi * (t - 1) / T, dtype=D)).item()) / 2
            for t in range(1, 5)]


def sched_run_f(rates, w, recs):
    w = torch.tensor(float(w), dtype=D)
    xs_ = torch.tensor([float(x) for x, y in recs], dtype=D)
    ys_ = torch.tensor([float(y) for x, y in recs], dtype=D)
    out = []
    for r in rates:
        g = ((w * xs_ - ys_) * xs_).mean()
        w = w - r * g
        out.append(w.item())
    return out


w_cos = sched_run_f(rate_c_t, wwu, RW)
rate_c_2 = [rnd(F(r), 2) for r in rate_c_t]   # 0.1, 0.09, 0.05, 0.01 (none a tie)
w_cos_early = [float(v) for v in sched_run(rate_c_2, wwu, RW)]
exercise("cosine", "four SGD steps under a cosine schedule (T_max = 4, eta_min = 0)", """
[exercise.given]
w0 = 0.3306
lr = 0.1
T_max = 4
steps = 4
records = [[0.6150, 1.1283], [-0.4172, -0.9014]]

[exercise.define]
rate = "lr*(1 + cos(pi*(t - 1)/T_max))/2"
loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{t-1})"
w = { formula = "w_{t-1} - rate_t*g_t", start = "w0" }
""", {
    "rate": (L(rate_c_t), rate_c_t),
    "w": (L(w_cos_early), w_cos),
}, {
    "w": ("each step's rate rounded to 2 places before the update", "rounded early",
          ["rounded_early"]),
})

# ---------------------------------------------------------------- RMSprop / Adam as formulas
RA = [(0.5821, 1.3306), (-0.9518, -0.4172), (1.2035, 2.0473)]
xa = torch.tensor([x for x, y in RA], dtype=D)
ya = torch.tensor([y for x, y in RA], dtype=D)


def grad_a(w):
    return (2 * (w * xa - ya) * xa).mean()


def rmsprop(w, lr_, alpha, eps, steps, sqrt=True):
    v, ws, vs = 0.0, [], []
    w = torch.tensor(w, dtype=D)
    for _ in range(steps):
        g = grad_a(w)
        v = alpha * v + (1 - alpha) * g * g
        w = w - lr_ * g / ((torch.sqrt(v) if sqrt else v) + eps)
        ws.append(w.item())
        vs.append(float(v))
    return vs, ws


v_r, w_r = rmsprop(0.4172, 0.01, 0.99, 1e-8, 3)
_, w_r_nosqrt = rmsprop(0.4172, 0.01, 0.99, 1e-8, 3, sqrt=False)
exercise("rmsprop", "three RMSprop steps (alpha = 0.99, eps = 1e-8) as formulas", """
[exercise.given]
w0 = 0.4172
lr = 0.01
alpha = 0.99
eps = 1e-8
steps = 3
records = [[0.5821, 1.3306], [-0.9518, -0.4172], [1.2035, 2.0473]]

[exercise.define]
loss = "mean_i((w_{t-1}*x_i - y_i)^2)"
g = "grad(loss_t, w_{t-1})"
v = { formula = "alpha*v_{t-1} + (1 - alpha)*g_t^2", start = "0" }
w = { formula = "w_{t-1} - lr*g_t/(sqrt(v_t) + eps)", start = "w0" }
""", {
    "v": (L(v_r), v_r),
    "w": (L(w_r_nosqrt), w_r),
}, {
    "w": ("the square root of v forgotten: g/(v + eps)", "sqrt forgotten",
          ["*sqrt_forgotten*"]),
})


def adam(w, lr_, b1, b2, eps, steps, correct=True):
    m = v = 0.0
    w = torch.tensor(w, dtype=D)
    ms, vs, ws = [], [], []
    for t in range(1, steps + 1):
        g = grad_a(w)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        if correct:
            w = w - lr_ * (m / (1 - b1 ** t)) / (torch.sqrt(v / (1 - b2 ** t)) + eps)
        else:
            w = w - lr_ * m / (torch.sqrt(v) + eps)
        ms.append(float(m))
        vs.append(float(v))
        ws.append(w.item())
    return ms, vs, ws


m_a, v_a, w_a = adam(0.4172, 0.05, 0.9, 0.999, 1e-8, 3)
_, _, w_a_nc = adam(0.4172, 0.05, 0.9, 0.999, 1e-8, 3, correct=False)
exercise("adam", "three Adam steps (betas 0.9, 0.999, eps = 1e-8) as formulas", """
[exercise.given]
w0 = 0.4172
lr = 0.05
beta1 = 0.9
beta2 = 0.999
eps = 1e-8
steps = 3
records = [[0.5821, 1.3306], [-0.9518, -0.4172], [1.2035, 2.0473]]

[exercise.define]
loss = "mean_i((w_{t-1}*x_i - y_i)^2)"
g = "grad(loss_t, w_{t-1})"
m = { formula = "beta1*m_{t-1} + (1 - beta1)*g_t", start = "0" }
v = { formula = "beta2*v_{t-1} + (1 - beta2)*g_t^2", start = "0" }
w = { formula = "w_{t-1} - lr*(m_t/(1 - beta1^t))/(sqrt(v_t/(1 - beta2^t)) + eps)", start = "w0" }
""", {
    "m": (L(m_a), m_a),
    "v": ([{"value": dec4(x, 6), "places": 6} for x in v_a], v_a),
    "w": (L(w_a_nc), w_a),
}, {
    "w": ("bias correction forgotten (m and v uncorrected)", "bias correction forgotten",
          ["*bias_correction_forgotten*"]),
})

# ---------------------------------------------------------------- accumulation, uneven
MB = [[(q("0.6150"), q("1.1283")), (q("-0.4172"), q("-0.9014"))], [(q("1.3306"), q("2.2519"))]]
wa, lra = q("0.5127"), q("0.1")
sums = [sum((wa * x - y) * x for x, y in mb) for mb in MB]
means = [s / len(mb) for s, mb in zip(sums, MB)]
N = sum(len(mb) for mb in MB)
weights = [F(len(mb), N) for mb in MB]
grad_acc = sum(a * m for a, m in zip(weights, means))
mom = sum(means) / 2
exercise("accumulation", "gradient accumulation over microbatches of 2 and 1 records", """
recipe_override = "accumulation"
[exercise.given]
w = 0.5127
lr = 0.1
microbatches = [[[0.6150, 1.1283], [-0.4172, -0.9014]], [[1.3306, 2.2519]]]
""", {
    "microbatch_mean_gradients": (L(means), means),
    "weights": (["0.5", "0.5"], weights),
    "gradient": (dec4(mom), grad_acc),
    "w_new": (slip(dec4(wa - lra * grad_acc)), wa - lra * grad_acc),
}, {
    "weights": ("1/K for every microbatch (not n_k/N)", "1/K averaging", ["weights_one_over_k"]),
    "gradient": ("carried from the 1/K weights (the mean of means)", "carried (1/K)",
                 ["carried", "mean_of_means"]),
    "w_new": ("slip: one digit typed wrong", "slip", []),
})

# ---------------------------------------------------------------- clipping (vectors, norm)
G = torch.tensor([[1.2035, -0.8841], [0.4172, 1.9054]], dtype=D)
wts = torch.tensor([0.5, 0.5], dtype=D)
c, eps_c = 0.5, 1e-6


def clip(g):
    return g * min(1.0, c / (torch.linalg.norm(g).item() + eps_c))


mean_g = (wts[:, None] * G).sum(0)
mtc = clip(mean_g)
ctm = (wts[:, None] * torch.stack([clip(g) for g in G])).sum(0)
assert torch.linalg.norm(mean_g) > c
exercise("clipping", "norm clipping at 0.5 of two microbatch gradients", """
recipe_override = "clipping"
[exercise.given]
gradients = [[1.2035, -0.8841], [0.4172, 1.9054]]
weights = [0.5, 0.5]
max_norm = 0.5
eps = 1e-6
""", {
    "mean_gradient": (L(mean_g.tolist()), mean_g.tolist()),
    "mean_then_clip": (L(ctm.tolist()), mtc.tolist()),
    "clip_then_mean": (L(ctm.tolist()), ctm.tolist()),
}, {
    "mean_then_clip": ("clipped each microbatch, then averaged", "clip then mean",
                       ["clip_then_mean"]),
})

# ---------------------------------------------------------------- memory ledger
P, Dp, A = 7 * 10**9, 8, F(6)
card = 2 + F(2 + 4 + 4 + 4, Dp)          # stage 2: param whole, the rest / D
state_gib = P * card / 2**30
exercise("memory", "the ledger: 7e9 parameters, ZeRO stage 2 over 8 cards, 6 GiB activations", """
recipe_override = "memory"
[exercise.given]
params = 7e9
stage = 2
dp = 8
activation_gib = 6
""", {
    "card_bytes_per_param": (dec4(card), card),
    "state_gib": (slip(dec4(state_gib)), state_gib),
    "total_gib": (dec4(state_gib + A / Dp), state_gib + A),
}, {
    "state_gib": ("slip: one digit typed wrong", "slip", []),
    "total_gib": ("the activations divided by D too", "activations / D",
                  ["activations_divided_by_dp"]),
})


# ---------------------------------------------------------------- write
def holds_check(claimed, value) -> bool:
    """Whether a claim (4-place strings, as written) holds: used to assert each planted claim
    is wrong and each right claim right, independently of derive."""
    if isinstance(claimed, dict) and "formula" in claimed:
        return False
    if isinstance(claimed, list):
        return len(claimed) == len(value) and all(holds_check(a, b) for a, b in zip(claimed, value))
    if isinstance(claimed, dict):
        return (dec4(F(Decimal(claimed["value"])), claimed["places"])
                == dec4(value, claimed["places"]))
    places = len(claimed.split(".")[1]) if "." in claimed else 0
    exact = F(Decimal(claimed))
    if not isinstance(value, float) and exact == value:
        return True
    return dec4(value, places) == claimed


def main():
    parts, expected = [], {}
    wrong_keys = {(w["exercise"], w["quantity"]) for w in WRONG}
    for e in EX:
        body = e["body"].replace("@@RESUME@@", RESUME_DEFINE.rstrip("\n"))
        recipe = "formulas"
        if "recipe_override" in body:
            first, body = body.split("\n", 2)[1], body.split("\n", 2)[2]
            recipe = first.split('"')[1]
        if "optimizer = " in body and "[exercise.define]" not in body:
            recipe = "optimizer_steps"
        lines = ["[[exercise]]", f'id = "{e["id"]}"', f'title = "{e["title"]}"',
                 f'recipe = "{recipe}"', body.rstrip(), "", "[exercise.claims]"]
        claims = {}
        for qn, (claimed, value) in e["claims"].items():
            lines.append(f"{qn} = {claim_str(claimed)}")
            h = holds_check(claimed, value)
            assert h == ((e["id"], qn) not in wrong_keys), (e["id"], qn, claimed, value)
            claims[qn] = {"holds": h}
        parts.append("\n".join(lines) + "\n")
        expected[e["id"]] = {"claims": claims}
    head = ("# Held-out bank heldout24: written by reference.py, which computes every value.\n"
            "# Do not edit by hand.\n\n")
    (HERE / "exercises.toml").write_text(head + "\n".join(parts))
    (HERE / "expected.json").write_text(json.dumps({"exercises": expected}, indent=2) + "\n")
    out = ["# The mistake each wrong claim of heldout24 was written with, fixed before derive ran.",
           "# accept: fnmatch patterns of derive mistake names that explain it as intended;",
           "# \"carried\" = a carried-forward explanation; [] = a slip (right outcome: no name).", ""]
    for w in WRONG:
        out += ["[[wrong]]", f'exercise = "{w["exercise"]}"', f'quantity = "{w["quantity"]}"',
                f'name = "{w["name"]}"', f"mistake = {json.dumps(w['mistake'])}",
                "accept = [" + ", ".join(json.dumps(a) for a in w["accept"]) + "]", ""]
    (HERE / "intended.toml").write_text("\n".join(out))
    n_claims = sum(len(e["claims"]) for e in EX)
    print(f"{len(EX)} exercises, {n_claims} claims, {len(WRONG)} wrong "
          f"({sum(1 for w in WRONG if not w['accept'])} slips)")


if __name__ == "__main__":
    main()
