"""Reference values of the bank24 exercises, computed without derive: Fractions for every
rational value, torch in float64 (torch.optim itself where it computes the same thing) where
roots, sigmoid or cos make a value irrational.

Run: `python benchmarks/bank24/reference.py` writes benchmarks/bank24/expected.json (every
claim of the bank's *.toml with its right value and whether it holds by the claim rules of
docs/exercises.md) and checks that each wrong claim listed in intended.toml is what its
intended mistake gives. `--print ID` prints an exercise's right and mistaken values.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tomllib
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
torch.set_default_dtype(torch.float64)


def F(x) -> Fraction:
    return Fraction(str(x))


def mean(xs):
    xs = list(xs)
    return sum(xs, Fraction(0)) / len(xs)


# ---------------------------------------------------------------------------------------------
# The lab: ŷ = w·x + b on y = 3x + 2, SGD with momentum, MSELoss (no ½), means over records.

LAB_X = [F("0.3127"), F("-1.0462"), F("1.5")]
LAB = [(x, 3 * x + 2) for x in LAB_X]
LAB_LR, LAB_MU = F("0.05"), F("0.9")


def lab_grads(w, b, recs, half=False, bias_sum=False):
    c = 1 if half else 2
    gw = c * mean((w * x + b - y) * x for x, y in recs)
    gb = c * mean((w * x + b - y) for x, y in recs)
    if bias_sum:
        gb = gb * len(recs)
    return gw, gb


def lab_loss(w, b, recs, half=False):
    c = Fraction(1, 2) if half else 1
    return c * mean((w * x + b - y) ** 2 for x, y in recs)


def sgd_run(w, b, batches, lr, mu, *, damp=0, u0=None, v0=None, mistake=None, reset_at=None,
            half=False, wd=0):
    """torch.optim.SGD's momentum rule exactly; `mistake` makes the author's wrong run."""
    out = {k: [] for k in ("gw", "gb", "uw", "ub", "w", "b", "loss_after", "loss_before")}
    uw, ub = u0, v0
    for t, recs in enumerate(batches, start=1):
        out["loss_before"].append(lab_loss(w, b, recs, half))
        gw, gb = lab_grads(w, b, recs, half, bias_sum=(mistake == "bias_sum"))
        gw = gw + wd * w
        out["gw"].append(gw)
        out["gb"].append(gb)
        if reset_at == t:
            uw = ub = None
        if mistake == "no_momentum":
            uw, ub = gw, gb
        elif mistake == "buffer_average":
            uw = gw if uw is None else mu * uw + (1 - mu) * gw
            ub = gb if ub is None else mu * ub + (1 - mu) * gb
        else:
            uw = gw if uw is None else mu * uw + (1 - damp) * gw
            ub = gb if ub is None else mu * ub + (1 - damp) * gb
        out["uw"].append(uw)
        out["ub"].append(ub)
        w, b = w - lr * uw, b - lr * ub
        out["w"].append(w)
        out["b"].append(b)
        out["loss_after"].append(lab_loss(w, b, recs, half))
    return out


def torch_sgd(w, b, batches, lr, mu, *, u0=None, v0=None):
    """The same run with torch.optim.SGD and nn.MSELoss in float64 (a cross-check)."""
    wt = torch.tensor(float(w), requires_grad=True)
    bt = torch.tensor(float(b), requires_grad=True)
    opt = torch.optim.SGD([wt, bt], lr=float(lr), momentum=float(mu))
    if u0 is not None:
        opt.state[wt]["momentum_buffer"] = torch.tensor(float(u0))
        opt.state[bt]["momentum_buffer"] = torch.tensor(float(v0))
    ws = []
    for recs in batches:
        x = torch.tensor([float(r[0]) for r in recs])
        y = torch.tensor([float(r[1]) for r in recs])
        opt.zero_grad()
        torch.nn.functional.mse_loss(wt * x + bt, y).backward()
        opt.step()
        ws.append(wt.item())
    return ws


V = {}  # exercise id -> {quantity: right value}
M = {}  # exercise id -> {mistake: {quantity: the value that mistake gives}}


def lab():
    batches = [LAB] * 3
    right = sgd_run(F(0), F(0), batches, LAB_LR, LAB_MU)
    assert all(math.isclose(float(a), c, rel_tol=1e-12)
               for a, c in zip(right["w"], torch_sgd(0, 0, batches, LAB_LR, LAB_MU)))
    named = dict(gw=right["gw"], gb=right["gb"], uw=right["uw"], ub=right["ub"], w=right["w"],
                 b=right["b"], loss_after=right["loss_after"])
    builtin = dict(gradient_steps=right["gw"], b_gradient_steps=right["gb"],
                   buffer_steps=right["uw"], b_buffer_steps=right["ub"], w_steps=right["w"],
                   b_steps=right["b"], loss_steps=right["loss_after"])

    def wrong(m, names):
        r = sgd_run(F(0), F(0), batches, LAB_LR, LAB_MU, mistake=m)
        if names == "named":
            return dict(gw=r["gw"], gb=r["gb"], uw=r["uw"], w=r["w"], b=r["b"],
                        loss_after=r["loss_after"])
        return dict(gradient_steps=r["gw"], b_gradient_steps=r["gb"], buffer_steps=r["uw"],
                    w_steps=r["w"], b_steps=r["b"], loss_steps=r["loss_after"])

    for i in ("lab-formulas", "lab-formulas-bias-summed", "lab-formulas-momentum-forgotten"):
        V[i] = named
    M["lab-formulas-bias-summed"] = {"bias_summed": wrong("bias_sum", "named")}
    M["lab-formulas-momentum-forgotten"] = {"momentum_forgotten": wrong("no_momentum", "named")}
    for i in ("lab-builtin", "lab-builtin-loss-before", "lab-builtin-buffer-average",
              "lab-builtin-momentum-forgotten"):
        V[i] = builtin
    M["lab-builtin-loss-before"] = {"loss_before": {"loss_steps": right["loss_before"]}}
    M["lab-builtin-buffer-average"] = {"buffer_average": wrong("buffer_average", "builtin")}
    M["lab-builtin-momentum-forgotten"] = {"momentum_forgotten": wrong("no_momentum", "builtin")}

    # One sgd_step with a bias: ordinary records, MSELoss (loss = "squared").
    recs = [(F("0.8415"), F("2.1")), (F("-0.4546"), F("-0.3127")), (F("1.9093"), F("4.0462"))]
    w, b, lr = F("0.5"), F("-0.25"), F("0.1")
    gw, gb = lab_grads(w, b, recs)
    V["lab-sgd-step-bias"] = dict(prediction=[w * x + b for x, _ in recs],
                                  gradient=gw, b_gradient=gb, w_new=w - lr * gw,
                                  b_new=b - lr * gb)
    M["lab-sgd-step-bias"] = {"bias_summed": dict(b_gradient=3 * gb, b_new=b - lr * 3 * gb)}


# ---------------------------------------------------------------------------------------------
# Resuming the lab from a checkpoint after step 2, printed as torch prints (4 places).

def rounded(x: Fraction, places: int = 4) -> Fraction:
    q = Decimal(x.numerator) / Decimal(x.denominator)
    return F(q.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def resume():
    full = sgd_run(F(0), F(0), [LAB] * 2, LAB_LR, LAB_MU)
    ck = {k: rounded(full[k][-1]) for k in ("w", "b", "uw", "ub")}
    V["_checkpoint"] = ck  # the given values the resume exercises print
    two = [LAB] * 2
    r = sgd_run(ck["w"], ck["b"], two, LAB_LR, LAB_MU, u0=ck["uw"], v0=ck["ub"])
    assert all(math.isclose(float(a), c, rel_tol=1e-12) for a, c in zip(
        r["w"], torch_sgd(ck["w"], ck["b"], two, LAB_LR, LAB_MU, u0=ck["uw"], v0=ck["ub"])))
    V["resume-with-state"] = dict(gradient_steps=r["gw"], buffer_steps=r["uw"],
                                  w_steps=r["w"], b_steps=r["b"], loss_steps=r["loss_after"])
    one = sgd_run(ck["w"], ck["b"], [LAB], LAB_LR, LAB_MU, u0=ck["uw"], v0=ck["ub"])
    fresh = sgd_run(ck["w"], ck["b"], [LAB], LAB_LR, LAB_MU)
    V["resume-saving-only-w"] = dict(gradient_steps=one["gw"], buffer_steps=one["uw"],
                                     w_steps=one["w"], loss_steps=one["loss_after"])
    M["resume-saving-only-w"] = {"saving_only_w": dict(
        buffer_steps=fresh["uw"], w_steps=fresh["w"], loss_steps=fresh["loss_after"])}
    four = [LAB] * 4
    r4 = sgd_run(F(0), F(0), four, LAB_LR, LAB_MU)
    reset = sgd_run(F(0), F(0), four, LAB_LR, LAB_MU, reset_at=3)
    V["resume-one-trajectory"] = dict(buffer_steps=r4["uw"], w_steps=r4["w"], b_steps=r4["b"])
    M["resume-one-trajectory"] = {"buffer_reset": dict(
        buffer_steps=reset["uw"], w_steps=reset["w"], b_steps=reset["b"])}
    V["resume-formulas"] = dict(gw=r["gw"], gb=r["gb"], uw=r["uw"], w=r["w"], b=r["b"])
    V["resume-formulas-buffer-lost"] = dict(gw=one["gw"], uw=one["uw"], w=one["w"], b=one["b"])
    M["resume-formulas-buffer-lost"] = {"buffer_lost": dict(uw=fresh["uw"], w=fresh["w"],
                                                            b=fresh["b"])}


# ---------------------------------------------------------------------------------------------
# Logistic regression (torch float64: sigmoid and log are irrational).

LOG_X = [0.8415, -1.2203, 0.3127]
LOG_Y = [1.0, 0.0, 1.0]


def logistic():
    x, y = torch.tensor(LOG_X), torch.tensor(LOG_Y)
    w = torch.tensor(0.25, requires_grad=True)
    b = torch.tensor(-0.1, requires_grad=True)
    lr = 0.5
    p = torch.sigmoid(w * x + b)
    loss = torch.nn.functional.binary_cross_entropy(p, y)
    loss.backward()
    gw, gb = w.grad.item(), b.grad.item()
    vals = dict(p=p.tolist(), loss=loss.item(), gw=gw, gb=gb, w_new=0.25 - lr * gw,
                b_new=-0.1 - lr * gb)
    for i in ("logistic-sigmoid", "logistic-exp-sign", "logistic-bias-summed"):
        V[i] = vals
    M["logistic-exp-sign"] = {"gradient_sign": dict(gw=-gw, w_new=0.25 + lr * gw)}
    M["logistic-bias-summed"] = {"bias_summed": dict(gb=3 * gb, b_new=-0.1 - lr * 3 * gb)}


# ---------------------------------------------------------------------------------------------
# Two features and a bias, mean squared error without ½.

TWO = [(F("0.3127"), F("-1.0462"), F("1.2")), (F("1.5"), F("0.25"), F("2.9")),
       (F("-0.75"), F("2.1"), F("-2.4"))]


def two_features():
    w1, w2, b, lr = F("0.5"), F("-0.2"), F("0.1"), F("0.05")
    yhat = [w1 * a + w2 * c + b for a, c, _ in TWO]
    r = [h - y for h, (_, _, y) in zip(yhat, TWO)]
    g1 = 2 * mean(ri * a for ri, (a, _, _) in zip(r, TWO))
    g2 = 2 * mean(ri * c for ri, (_, c, _) in zip(r, TWO))
    gb = 2 * mean(r)
    vals = dict(yhat=yhat, loss=mean(ri ** 2 for ri in r), g1=g1, g2=g2, gb=gb,
                w1_new=w1 - lr * g1, w2_new=w2 - lr * g2, b_new=b - lr * gb)
    for i in ("two-features", "two-features-chain-x1", "two-features-formulas",
              "two-features-early-rounding"):
        V[i] = vals
    g2x1 = 2 * mean(ri * a for ri, (a, _, _) in zip(r, TWO))
    M["two-features-chain-x1"] = {"x1_for_x2": dict(g2=g2x1, w2_new=w2 - lr * g2x1)}
    M["two-features-early-rounding"] = {"rounded_early": dict(w1_new=w1 - lr * rounded(g1, 2))}


# ---------------------------------------------------------------------------------------------
# L1, Huber and a ReLU: derivatives at points (torch's conventions at a kink).

def sign(u):
    return (u > 0) - (u < 0)


L1_RECS = [(F("0.3127"), F("1.2")), (F("-1.0462"), F("-0.8")), (F("2.5"), F("0.4"))]
L1_KINK = [(F("0.3127"), F("1.2")), (F("2"), F("0.75")), (F("-1.0462"), F("-0.8"))]


def robust():
    w, b, lr = F("0.5"), F("-0.25"), F("0.1")
    for key, recs in (("l1", L1_RECS), ("l1-kink", L1_KINK)):
        r = [w * x + b - y for x, y in recs]
        gw = mean(sign(ri) * x for ri, (x, _) in zip(r, recs))
        gb = mean(sign(ri) for ri in r)
        V[key] = dict(loss=mean(abs(ri) for ri in r), gw=gw, gb=gb, w_new=w - lr * gw,
                      b_new=b - lr * gb)
    assert [w * x + b - y for x, y in L1_KINK][1] == 0
    r = [w * x + b - y for x, y in L1_KINK]
    gw1 = mean((1 if ri >= 0 else -1) * x for ri, (x, _) in zip(r, L1_KINK))
    gb1 = mean((1 if ri >= 0 else -1) for ri in r)
    M["l1-kink"] = {"sign0_as_plus1": dict(gw=gw1, gb=gb1, w_new=w - lr * gw1)}

    # Huber with δ = 1 (torch.nn.HuberLoss, mean): residuals −1.9…, 0.3…, 1.6…, none at ±δ.
    recs = [(F("0.3127"), F("2.5")), (F("-1.0462"), F("-0.4")), (F("2.5"), F("0.1"))]
    w, lr, delta = F("0.8"), F("0.1"), F(1)
    r = [w * x - y for x, y in recs]
    hub = [ri ** 2 / 2 if abs(ri) <= delta else delta * (abs(ri) - delta / 2) for ri in r]
    dh = [ri if abs(ri) <= delta else delta * sign(ri) for ri in r]
    gw = mean(d * x for d, (x, _) in zip(dh, recs))
    xt = torch.tensor([float(x) for x, _ in recs])
    yt = torch.tensor([float(y) for _, y in recs])
    wt = torch.tensor(0.8, requires_grad=True)
    torch.nn.functional.huber_loss(wt * xt, yt, delta=1.0).backward()
    assert math.isclose(wt.grad.item(), float(gw), rel_tol=1e-12)
    vals = dict(loss=mean(hub), gw=gw, w_new=w - lr * gw)
    V["huber"] = V["huber-as-squared"] = vals
    gsq = mean(ri * x for ri, (x, _) in zip(r, recs))
    M["huber-as-squared"] = {"huber_as_squared": dict(gw=gsq, w_new=w - lr * gsq)}

    # ŷ = relu(w·x + b), squared error with ½; one record's pre-activation is negative.
    recs = [(F("0.8415"), F("1.1")), (F("-1.5"), F("0.3")), (F("1.9093"), F("2.5"))]
    w, b, lr = F("0.6"), F("0.1"), F("0.2")
    z = [w * x + b for x, _ in recs]
    h = [max(zi, 0) for zi in z]
    act = [1 if zi > 0 else 0 for zi in z]
    r = [hi - y for hi, (_, y) in zip(h, recs)]
    gw = mean(ri * a * x for ri, a, (x, _) in zip(r, act, recs))
    gb = mean(ri * a for ri, a in zip(r, act))
    vals = dict(h=h, loss=mean(ri ** 2 / 2 for ri in r), gw=gw, gb=gb, w_new=w - lr * gw,
                b_new=b - lr * gb)
    V["relu"] = V["relu-as-identity"] = vals
    gwi = mean(ri * x for ri, (x, _) in zip(r, recs))
    gbi = mean(r)
    M["relu-as-identity"] = {"relu_slope_one": dict(gw=gwi, gb=gbi, w_new=w - lr * gwi)}


# ---------------------------------------------------------------------------------------------
# Schedules: linear warmup, cosine annealing, inverse-time decay.

SCH = [(F("0.3127"), F("0.9381")), (F("1.5"), F("4.5")), (F("-1.0462"), F("-3.1386"))]


def sched_run(rates, w0=Fraction(1)):
    w, ws = w0, []
    for rate in rates:
        g = mean((w * x - y) * x for x, y in SCH)
        w = w - rate * g
        ws.append(w)
    return ws


def schedules():
    lr, warm, T = F("0.2"), 3, 4
    rate = [lr * min(1, Fraction(t, warm)) for t in range(1, T + 1)]
    V["warmup"] = V["warmup-from-t-1"] = dict(rate=rate, w=sched_run(rate))
    late = [lr * min(1, Fraction(t - 1, warm)) for t in range(1, T + 1)]
    M["warmup-from-t-1"] = {"warmup_from_t_minus_1": dict(rate=late, w=sched_run(late))}

    # CosineAnnealingLR(T_max = 4, eta_min = 0.01) at steps t = 1…4: η_{t−1}.
    eta0, etamin, tmax = 0.2, 0.01, 4
    cos_rate = [etamin + (eta0 - etamin) * (1 + math.cos(math.pi * (t - 1) / tmax)) / 2
                for t in range(1, 5)]
    wt = torch.tensor(1.0, requires_grad=True)
    opt = torch.optim.SGD([wt], lr=eta0)
    sch = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=tmax, eta_min=etamin)
    seen, ws = [], []
    x = torch.tensor([float(a) for a, _ in SCH])
    y = torch.tensor([float(c) for _, c in SCH])
    for _ in range(4):
        seen.append(opt.param_groups[0]["lr"])
        opt.zero_grad()
        (((wt * x - y) ** 2) / 2).mean().backward()
        opt.step()
        sch.step()
        ws.append(wt.item())
    assert all(math.isclose(a, c, rel_tol=1e-12) for a, c in zip(seen, cos_rate))
    V["cosine"] = V["cosine-off-by-one"] = dict(rate=seen, w=ws)
    early = [etamin + (eta0 - etamin) * (1 + math.cos(math.pi * t / tmax)) / 2
             for t in range(1, 5)]

    def float_run(rates):
        w, out = 1.0, []
        for rate in rates:
            g = sum((w * float(a) - float(c)) * float(a) for a, c in SCH) / 3
            w -= rate * g
            out.append(w)
        return out

    M["cosine-off-by-one"] = {"cosine_from_t": dict(rate=early, w=float_run(early))}

    # Inverse-time decay η_t = η/(1 + δ·(t − 1)) (Adagrad's lr_decay), δ written lr_decay.
    decay = F("0.5")
    inv = [lr / (1 + decay * (t - 1)) for t in range(1, 4)]
    V["inverse-decay"] = V["inverse-decay-rounded"] = dict(rate=inv, w=sched_run(inv))
    rr = [rounded(q, 2) for q in inv]
    M["inverse-decay-rounded"] = {"rounded_early": dict(w=sched_run(rr))}


# ---------------------------------------------------------------------------------------------
# RMSprop, Adagrad, Adam on ŷ = w·x, MSELoss (no ½), with torch.optim as the reference.

AD = [(0.8415, 2.1), (-1.5, -2.9), (1.9093, 4.0462)]


def torch_opt(make, steps=2, w0=1.0):
    x = torch.tensor([a for a, _ in AD])
    y = torch.tensor([c for _, c in AD])
    w = torch.tensor(w0, requires_grad=True)
    opt = make([w])
    out = {"g": [], "w": [], "state": []}
    for _ in range(steps):
        opt.zero_grad()
        torch.nn.functional.mse_loss(w * x, y).backward()
        out["g"].append(w.grad.item())
        opt.step()
        out["w"].append(w.item())
        out["state"].append({k: (v.item() if torch.is_tensor(v) else v)
                             for k, v in opt.state[w].items()})
    return out


def adaptive_by_hand(kind, steps=2, w0=1.0, lr=0.01, alpha=0.99, eps=1e-8, betas=(0.9, 0.999),
                     mistake=None):
    """The same rules written out in float64, to make the mistaken runs."""
    w, s, m, out = w0, 0.0, 0.0, {"w": [], "s": [], "m": [], "v": []}
    for t in range(1, steps + 1):
        g = 2 * sum((w * a - c) * a for a, c in AD) / len(AD)
        if kind == "rmsprop":
            s = alpha * s + (1 - alpha) * g * g
            den = s + eps if mistake == "sqrt_forgotten" else math.sqrt(s) + eps
        elif kind == "adagrad":
            s = s + g * g
            den = math.sqrt(s + eps) if mistake == "eps_inside_sqrt" else math.sqrt(s) + eps
        if kind in ("rmsprop", "adagrad"):
            w = w - lr * g / den
        else:
            m = betas[0] * m + (1 - betas[0]) * g
            s = betas[1] * s + (1 - betas[1]) * g * g
            if mistake == "bias_correction_forgotten":
                w = w - lr * m / (math.sqrt(s) + eps)
            else:
                mh, vh = m / (1 - betas[0] ** t), s / (1 - betas[1] ** t)
                w = w - lr * mh / (math.sqrt(vh) + eps)
        out["w"].append(w)
        out["s"].append(s)
        out["m"].append(m)
        out["v"].append(s)
    return out


def adaptive():
    rms = torch_opt(lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.99, eps=1e-8))
    hand = adaptive_by_hand("rmsprop")
    assert all(math.isclose(a, c, rel_tol=1e-12) for a, c in zip(rms["w"], hand["w"]))
    v = [st["square_avg"] for st in rms["state"]]
    V["rmsprop"] = V["rmsprop-sqrt-forgotten"] = dict(g=rms["g"], v=v, w=rms["w"])
    M["rmsprop-sqrt-forgotten"] = {"sqrt_forgotten": dict(
        w=adaptive_by_hand("rmsprop", mistake="sqrt_forgotten")["w"])}

    ada = torch_opt(lambda p: torch.optim.Adagrad(p, lr=0.1, eps=1e-10))
    V["adagrad"] = dict(g=ada["g"], s=[st["sum"] for st in ada["state"]], w=ada["w"])
    ada2 = torch_opt(lambda p: torch.optim.Adagrad(p, lr=0.1, eps=0.25))
    hand = adaptive_by_hand("adagrad", lr=0.1, eps=0.25)
    assert all(math.isclose(a, c, rel_tol=1e-12) for a, c in zip(ada2["w"], hand["w"]))
    V["adagrad-builtin-eps-inside"] = dict(sum_steps=[st["sum"] for st in ada2["state"]],
                                           w_steps=ada2["w"])
    M["adagrad-builtin-eps-inside"] = {"eps_inside_sqrt": dict(
        w_steps=adaptive_by_hand("adagrad", lr=0.1, eps=0.25, mistake="eps_inside_sqrt")["w"])}

    adam = torch_opt(lambda p: torch.optim.Adam(p, lr=0.1))
    hand = adaptive_by_hand("adam", lr=0.1)
    assert all(math.isclose(a, c, rel_tol=1e-12) for a, c in zip(adam["w"], hand["w"]))
    m = [st["exp_avg"] for st in adam["state"]]
    vv = [st["exp_avg_sq"] for st in adam["state"]]
    mh = [mi / (1 - 0.9 ** t) for t, mi in enumerate(m, start=1)]
    vh = [vi / (1 - 0.999 ** t) for t, vi in enumerate(vv, start=1)]
    V["adam"] = V["adam-no-bias-correction"] = dict(m=m, v=vv, mhat=mh, vhat=vh, w=adam["w"])
    nobc = adaptive_by_hand("adam", lr=0.1, mistake="bias_correction_forgotten")["w"]
    M["adam-no-bias-correction"] = {"bias_correction_forgotten": dict(w=nobc)}
    V["adam-builtin"] = dict(m_steps=m, v_steps=vv, w_steps=adam["w"])
    M["adam-builtin"] = {"bias_correction_forgotten": dict(w_steps=nobc)}
    # The exact moments are rational: check torch's against Fractions.
    g1 = F(adam["g"][0])  # not exact: only a sanity check of the rule, to 1e-12
    assert math.isclose(float(F("0.1") * g1), m[0], rel_tol=1e-12)


# ---------------------------------------------------------------------------------------------
# L2 weight decay with accumulation over unequal microbatches (ℓ = (w·x − y)²/2).

MB = [[(F("0.3127"), F("1.1")), (F("1.5"), F("2.9"))], [(F("-1.0462"), F("-2.4"))]]


def decay_accumulation():
    w, lr, lam = F("0.8"), F("0.1"), F("0.01")
    g = [mean((w * x - y) * x for x, y in mb) for mb in MB]
    n = [len(mb) for mb in MB]
    N = sum(n)
    acc = sum((Fraction(nk, N) * gk for nk, gk in zip(n, g)), Fraction(0))
    grad = acc + lam * w
    vals = dict(mb_grad=g, accumulated=acc, gradient=grad, w_new=w - lr * grad)
    for i in ("l2-accumulation", "l2-accumulation-one-over-k", "l2-decay-forgotten"):
        V[i] = vals
    acck = mean(g)
    M["l2-accumulation-one-over-k"] = {"one_over_k": dict(
        accumulated=acck, gradient=acck + lam * w, w_new=w - lr * (acck + lam * w))}
    M["l2-decay-forgotten"] = {"decay_forgotten": dict(gradient=acc, w_new=w - lr * acc)}
    V["accumulation-builtin"] = dict(weights=[Fraction(nk, N) for nk in n], gradient=acc,
                                     w_new=w - lr * acc)
    M["accumulation-builtin"] = {"mean_of_means": dict(gradient=acck, w_new=w - lr * acck)}


# ---------------------------------------------------------------------------------------------
# Clipping with AMP (norm clipping, ε = 0), and memory.

def clip(vec, c):
    n = math.sqrt(sum(v * v for v in vec))
    return [v * min(1.0, c / n) for v in vec]


def clipping():
    gs = [[0.3127, -1.0462], [2.5, 0.75]]
    S, c = 1024.0, 1.0
    mean_g = [(a + b) / 2 for a, b in zip(*gs)]
    t = torch.tensor(mean_g)
    t.grad = t.clone()
    torch.nn.utils.clip_grad_norm_([t], c)  # torch adds 1e-6 to the norm: agree to 1e-5
    assert all(math.isclose(a, b, rel_tol=1e-5) for a, b in zip(t.grad.tolist(),
                                                                   clip(mean_g, c)))
    right = clip(mean_g, c)
    scaled_then = [v / S for v in clip([S * v for v in mean_g], c)]
    cm = [sum(col) / 2 for col in zip(*[clip(g, c) for g in gs])]
    vals = dict(mean_gradient=mean_g, scaled_mean_gradient=[S * v for v in mean_g],
                mean_then_clip=right, clipped_gradients=[clip(g, c) for g in gs])
    V["clip-amp"] = V["clip-amp-wrong-order"] = V["clip-then-mean"] = vals
    M["clip-amp-wrong-order"] = {"clip_scaled_then_unscale": dict(mean_then_clip=scaled_then)}
    M["clip-then-mean"] = {"clip_then_mean": dict(mean_then_clip=cm)}


def memory():
    P, D, A = 7 * 10 ** 9, 8, F("3.5")
    # ZeRO stage 2 over D = 8: param (2) whole; grad (2), master, m, v (4 each) divided by D.
    card = 2 + Fraction(2 + 4 + 4 + 4, D)
    state = card * P
    vals = dict(card_bytes_per_param=card, state_bytes=state, state_gb=state / 10 ** 9,
                state_gib=state / 2 ** 30, total_gib=state / 2 ** 30 + A)
    V["memory-zero2"] = V["memory-gb-as-gib"] = vals
    M["memory-gb-as-gib"] = {"state_gb_as_gib": dict(state_gib=state / 10 ** 9,
                                                     total_gib=state / 10 ** 9 + A)}


ALL = [lab, resume, logistic, two_features, robust, schedules, adaptive, decay_accumulation,
       clipping, memory]


# ---------------------------------------------------------------------------------------------
# The claim rules of docs/exercises.md, written again here.

def read_number(v) -> tuple[Fraction, int | None]:
    """The exact value of a written number and its decimal places (None: an integer/fraction)."""
    if isinstance(v, bool):
        raise ValueError(v)
    if isinstance(v, int):
        return Fraction(v), None
    s = str(v)  # TOML floats are read with parse_float=str: the decimal as spelt
    if "/" in s:
        return Fraction(s.replace(" ", "")), None
    d = Decimal(s)
    exp = d.as_tuple().exponent
    places = max(0, -exp)
    if "." not in s and "e" not in s.lower():
        return Fraction(s), None
    return Fraction(d), places


def round_half_away(x, places: int):
    if isinstance(x, float):
        q = Decimal(repr(x))
    else:
        q = Decimal(x.numerator) / Decimal(x.denominator)
    return q.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


TIES = []


def near_tie(x: float, places: int) -> bool:
    scaled = abs(x) * 10 ** places
    return abs(scaled - math.floor(scaled) - 0.5) < 1e-6


def holds_number(claim, x) -> bool:
    if isinstance(claim, dict):
        value, _ = read_number(claim["value"])
        if "places" in claim:
            d = claim["places"]
            if isinstance(x, float) and near_tie(x, d):
                TIES.append((claim, x))
            return (round_half_away(value, d) == round_half_away(x, d))
        if "abs" in claim:
            return abs(value - (F(x) if isinstance(x, float) else x)) <= read_number(
                claim["abs"])[0]
        raise ValueError(f"unsupported claim table {claim}")
    value, places = read_number(claim)
    if not isinstance(x, float) and value == x:
        return True
    if places is None:
        return False
    if isinstance(x, float) and near_tie(x, places):
        TIES.append((claim, x))
    return Decimal(value.numerator) / Decimal(value.denominator) == round_half_away(x, places)


def holds(claim, x) -> bool:
    if isinstance(x, list):
        return (isinstance(claim, list) and len(claim) == len(x)
                and all(holds(c, e) for c, e in zip(claim, x)))
    if isinstance(claim, list):
        return False
    return holds_number(claim, x)


def show(x):
    if isinstance(x, list):
        return [show(e) for e in x]
    if isinstance(x, float):
        return repr(x)
    return str(x) if x.denominator != 1 else str(x.numerator)


def decimal(x, places=12):
    if isinstance(x, list):
        return [decimal(e, places) for e in x]
    return str(round_half_away(x, places))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print", dest="show", metavar="ID")
    a = parser.parse_args()
    for f in ALL:
        f()
    if a.show:
        for key in [k for k in V if a.show in k]:
            print(key)
            for q, x in V[key].items():
                print(f"  {q:22} {decimal(x)}")
            for name, qs in M.get(key, {}).items():
                for q, x in qs.items():
                    print(f"  [{name}] {q:22} {decimal(x)}")
        return
    intended = tomllib.loads((HERE / "intended.toml").read_text())["wrong"]
    by_claim = {(w["exercise"], w["quantity"]): w for w in intended}
    out, problems, seen = {}, [], set()
    for path in sorted(HERE.glob("*.toml")):
        if path.name in ("intended.toml", "derive.toml"):
            continue
        for ex in tomllib.loads(path.read_text(), parse_float=str).get("exercise", []):
            eid = ex["id"]
            if eid not in V:
                problems.append(f"{eid}: no reference values")
                continue
            claims = {}
            for q, claim in ex.get("claims", {}).items():
                if isinstance(claim, dict) and "formula" in claim:
                    verdict = FORMULA_VERDICTS.get((eid, q))
                    if verdict is None:
                        problems.append(f"{eid}.{q}: formula claim without a verdict")
                    claims[q] = {"claimed": claim["formula"], "formula": True,
                                 "holds": verdict == "equivalent"}
                else:
                    x = V[eid][q]
                    claims[q] = {"claimed": claim, "holds": holds(claim, x),
                                 "expected": show(x), "decimal": decimal(x)}
                info = by_claim.get((eid, q))
                seen.add((eid, q))
                if claims[q]["holds"] and info:
                    problems.append(f"{eid}.{q}: listed in intended.toml but holds")
                if not claims[q]["holds"]:
                    if not info:
                        problems.append(f"{eid}.{q}: wrong but not in intended.toml")
                        continue
                    claims[q]["intended"] = info["mistake"]
                    made = M.get(eid, {}).get(info.get("reference", ""), {}).get(q)
                    if made is not None and not holds(claim, made):
                        problems.append(f"{eid}.{q}: the claim is not what "
                                        f"{info['reference']} gives ({decimal(made)})")
            out[eid] = {"file": path.name, "claims": claims}
    for key in by_claim:
        if key not in seen:
            problems.append(f"{key}: in intended.toml but not claimed")
    n = sum(len(e["claims"]) for e in out.values())
    wrong = sum(not c["holds"] for e in out.values() for c in e["claims"].values())
    (HERE / "expected.json").write_text(json.dumps(
        {"exercises": out, "claims": n, "wrong": wrong}, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(out)} exercises, {n} claims, {wrong} wrong -> expected.json")
    for claim, x in TIES:
        print(f"near a rounding tie: {claim} vs {x!r}")
    for p in problems:
        print("PROBLEM:", p)
    sys.exit(1 if problems or TIES else 0)


FORMULA_VERDICTS = {
    ("two-features-formulas", "g1"): "wrong",
    ("two-features-formulas", "g2"): "wrong",
    ("two-features-formulas", "gb"): "equivalent",
    ("two-features-formulas", "loss"): "wrong",
    ("two-features-formulas", "yhat"): "equivalent",
    ("lab-formulas", "w"): "equivalent",
    ("lab-formulas-momentum-forgotten", "uw"): "wrong",
    ("logistic-sigmoid", "gw"): "equivalent",
    ("logistic-bias-summed", "loss"): "wrong",
    ("l2-accumulation", "gradient"): "equivalent",
    ("l2-accumulation-one-over-k", "accumulated"): "wrong",
    ("adam-no-bias-correction", "mhat"): "wrong",
}

if __name__ == "__main__":
    main()
