"""Next-lessons bank (lessons05): the course's next lessons (a two-layer network's backward
pass, softmax cross-entropy, LayerNorm, attention scores, AdamW) written entry by entry as
scalars, as a new author writes them today, with deliberately wrong claims: the mistakes the
lessons teach (one-hot not subtracted, a transposed gradient, the ReLU mask forgotten, the
pre-activation for the activation, the batch sum for the mean, LayerNorm's unbiased variance,
ε outside the square root, 1/d for 1/√d, AdamW's decay as L2, no bias correction) and slips.
Most of these mistakes have no name in derive for an author's own derivation: the right outcome
for them is that no OTHER mistake is named (a tie, an offer or silence), which is what the
issue's author found broken (17 of 55 explanations named a coincidence).

Every value is computed here independently of derive: torch float64 autograd for gradients and
irrational values, Fractions for rational ones. Writes exercises.toml, expected.json and
intended.toml. Run: python benchmarks/lessons05/reference.py
"""
# ruff: noqa: E501 (the exercises' TOML text is kept as an author writes it)
from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
D = torch.float64


def dec(x, places=4) -> str:
    """x rounded half away from zero to `places` places (a float from torch, or a Fraction)."""
    if isinstance(x, torch.Tensor):
        x = x.item()
    d = Decimal(repr(x)) if isinstance(x, float) else Decimal(x.numerator) / Decimal(x.denominator)
    s = f"{d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):f}"
    return "0." + "0" * places if s.startswith("-") and Decimal(s) == 0 else s


def slip(s: str) -> str:
    """One digit typed wrong: the second-to-last digit one up (one down from 9)."""
    i = len(s) - 2
    while not s[i].isdigit():
        i -= 1
    d = int(s[i])
    return s[:i] + str(d + 1 if d < 9 else d - 1) + s[i + 1:]


def t(*xs):
    return [torch.tensor(float(Decimal(str(x))), dtype=D, requires_grad=True) for x in xs]


EX: list[dict] = []
WRONG: list[dict] = []
UNNAMED = ["<no derive name>"]
"""accept for a mistake derive has no name for: any mistake named is a false name."""


def exercise(eid, title, body, claims, wrong):
    """claims: {quantity: (claimed string, right value)}; wrong: {quantity: (words, name, accept)}."""
    EX.append(dict(id=eid, title=title, body=body, claims=claims, wrong=wrong))
    for qn, (words, name, accept) in wrong.items():
        WRONG.append(dict(exercise=eid, quantity=qn, name=name, mistake=words, accept=accept))


# ------------------------------------------------------------ softmax cross-entropy, 3 classes
def softmax_ce(zs, label):
    z = t(*zs)
    s = sum(torch.exp(v) for v in z)
    p = [torch.exp(v) / s for v in z]
    loss = -torch.log(p[label])
    loss.backward()
    return [v.item() for v in p], loss.item(), [v.grad.item() for v in z]


SOFTMAX = """
[exercise.given]
z1 = {z1}
z2 = {z2}
z3 = {z3}
y1 = {y1}
y2 = {y2}
y3 = {y3}

[exercise.define]
s = "exp(z1) + exp(z2) + exp(z3)"
p1 = "exp(z1)/s"
p2 = "exp(z2)/s"
p3 = "exp(z3)/s"
loss = "-(y1*log(p1) + y2*log(p2) + y3*log(p3))"
g1 = "grad(loss, z1)"
g2 = "grad(loss, z2)"
g3 = "grad(loss, z3)"
"""

for eid, zs, label, wrong_q in (("ce-a", ("1.2035", "-0.4172", "0.3306"), 1, "g2"),
                                ("ce-b", ("0.5", "-1.25", "2.0"), 0, "g1"),
                                ("ce-c", ("-0.8841", "0.9518", "0.1187"), 2, "g3")):
    p, loss, g = softmax_ce(zs, label)
    ys = [1 if c == label else 0 for c in range(3)]
    body = SOFTMAX.format(z1=zs[0], z2=zs[1], z3=zs[2], y1=ys[0], y2=ys[1], y3=ys[2])
    claims = {"loss": (dec(loss), loss)}
    for c in range(3):
        claims[f"g{c + 1}"] = (dec(g[c]), g[c])
    k = int(wrong_q[1]) - 1
    claims[wrong_q] = (dec(p[k]), g[k])   # p, not p − y
    wrong = {wrong_q: ("one-hot not subtracted: p_k for p_k − y_k at the label", "p for p − y", UNNAMED)}
    if eid == "ce-b":   # the other classes' gradients computed as −p (a sign): a second mistake
        claims["g3"] = (dec(-p[2]), g[2])
        wrong["g3"] = ("the sign of p_3 flipped", "sign", UNNAMED)
    exercise(eid, f"softmax cross-entropy, label {label + 1}", body, claims, wrong)


# ------------------------------------------------------------ two-layer network with ReLU
def two_layer(x, W1, b1, v, y):
    """Rational values (ReLU of rationals is rational): Fractions by the chain rule written
    out, confirmed by torch float64 autograd to 1e-12."""
    q = lambda a: F(Decimal(a))  # noqa: E731
    xs, w, b, vv, yy = [q(a) for a in x], [q(a) for a in W1], [q(a) for a in b1], [q(a) for a in v], q(y)
    z = [w[0] * xs[0] + w[1] * xs[1] + b[0], w[2] * xs[0] + w[3] * xs[1] + b[1]]
    h = [max(zz, F(0)) for zz in z]
    out = vv[0] * h[0] + vv[1] * h[1]
    delta = out - yy
    mask = [F(1) if zz > 0 else F(0) for zz in z]
    res = dict(loss=delta ** 2 / 2, z=z,
               gw=[delta * vv[j] * mask[j] * xs[i] for j in (0, 1) for i in (0, 1)],
               gv=[delta * hh for hh in h],
               nomask_gw=[delta * vv[j] * xs[i] for j in (0, 1) for i in (0, 1)],
               pre_gv=[delta * zz for zz in z])
    tw, tb, tv = t(*W1), t(*b1), t(*v)
    tx = [float(a) for a in xs]
    tz = [tw[0] * tx[0] + tw[1] * tx[1] + tb[0], tw[2] * tx[0] + tw[3] * tx[1] + tb[1]]
    tl = (tv[0] * torch.relu(tz[0]) + tv[1] * torch.relu(tz[1]) - float(yy)) ** 2 / 2
    tl.backward()
    for a, b_ in zip([a.grad.item() for a in tw] + [a.grad.item() for a in tv], res["gw"] + res["gv"]):
        assert abs(a - float(b_)) < 1e-12, (a, b_)
    return res


TWO = """
[exercise.given]
x1 = {x1}
x2 = {x2}
w11 = {w11}
w12 = {w12}
w21 = {w21}
w22 = {w22}
b1 = {b1}
b2 = {b2}
v1 = {v1}
v2 = {v2}
y = {y}

[exercise.define]
z1 = "w11*x1 + w12*x2 + b1"
z2 = "w21*x1 + w22*x2 + b2"
h1 = "relu(z1)"
h2 = "relu(z2)"
out = "v1*h1 + v2*h2"
loss = "(out - y)^2/2"
gw11 = "grad(loss, w11)"
gw12 = "grad(loss, w12)"
gw21 = "grad(loss, w21)"
gw22 = "grad(loss, w22)"
gv1 = "grad(loss, v1)"
gv2 = "grad(loss, v2)"
"""

for eid, vals, wrongs in (
        ("mlp-a", dict(x1="1.5", x2="-0.5", w11="0.4172", w12="-1.3306", w21="-0.9518", w22="0.2514",
                       b1="0.1", b2="-0.2", v1="0.8", v2="-1.1", y="0.5"),
         ("transposed", "mask")),
        ("mlp-b", dict(x1="0.7", x2="2.0", w11="-0.25", w12="0.5", w21="1.0", w22="-0.75",
                       b1="0.0", b2="0.3", v1="1.2", v2="0.6", y="-1.0"),
         ("pre", "slip")),
        ("mlp-c", dict(x1="2.0", x2="1.0", w11="1.0", w12="-1.0", w21="0.5", w22="0.5",
                       b1="0.0", b2="0.0", v1="1.0", v2="2.0", y="1.0"),
         ("transposed", "pre"))):
    r = two_layer((vals["x1"], vals["x2"]), (vals["w11"], vals["w12"], vals["w21"], vals["w22"]),
                  (vals["b1"], vals["b2"]), (vals["v1"], vals["v2"]), vals["y"])
    names = ["gw11", "gw12", "gw21", "gw22"]
    claims = {"loss": (dec(r["loss"]), r["loss"])}
    claims.update({n: (dec(g), g) for n, g in zip(names, r["gw"])})
    claims.update({f"gv{k + 1}": (dec(g), g) for k, g in enumerate(r["gv"])})
    wrong = {}
    for kind in wrongs:
        if kind == "transposed":   # ∂L/∂W written as x δᵀ: entry (1,2) takes entry (2,1)'s value
            if dec(r["gw"][2]) == dec(r["gw"][1]):
                continue
            claims["gw12"] = (dec(r["gw"][2]), r["gw"][1])
            wrong["gw12"] = ("the gradient transposed: ∂L/∂w12 written with entry (2,1)", "transposed", UNNAMED)
        elif kind == "mask":       # the dead unit's gradient without the ReLU mask
            dead = 0 if r["z"][0] <= 0 else 1
            n = names[2 * dead]
            claims[n] = (dec(r["nomask_gw"][2 * dead]), r["gw"][2 * dead])
            wrong[n] = ("the ReLU mask forgotten for a unit with z ≤ 0", "mask forgotten", ["*relu*", "*kink*", "*heaviside*", "*mask*"])
        elif kind == "pre":        # ∂L/∂v with the pre-activation z for h
            k = 0 if r["z"][0] < 0 else 1
            if r["z"][k] >= 0:
                continue
            claims[f"gv{k + 1}"] = (dec(r["pre_gv"][k]), r["gv"][k])
            wrong[f"gv{k + 1}"] = ("the pre-activation z used for the activation h", "z for h", ["*relu*", "*mask*"])
        elif kind == "slip":
            claims["gw22"] = (slip(dec(r["gw"][3])), r["gw"][3])
            wrong["gw22"] = ("slip: one digit typed wrong", "slip", [])
    exercise(eid, "a two-layer network with ReLU, one record", TWO.format(**vals), claims, wrong)


# ------------------------------------------------------------ LayerNorm over 3 entries
def layer_norm(xs, gs, eps, *, unbiased=False, eps_out=False):
    x = t(*xs)
    mu = sum(x) / 3
    var = sum((v - mu) ** 2 for v in x) / (2 if unbiased else 3)
    den = torch.sqrt(var) + eps if eps_out else torch.sqrt(var + eps)
    xh = [(v - mu) / den for v in x]
    loss = sum(float(Decimal(g)) * h for g, h in zip(gs, xh))
    loss.backward()
    return [h.item() for h in xh], [v.grad.item() for v in x], loss.item()


LN = """
[exercise.given]
x1 = {x1}
x2 = {x2}
x3 = {x3}
g1 = {g1}
g2 = {g2}
g3 = {g3}
eps = {eps}

[exercise.define]
mu = "(x1 + x2 + x3)/3"
var = "((x1 - mu)^2 + (x2 - mu)^2 + (x3 - mu)^2)/3"
xh1 = "(x1 - mu)/sqrt(var + eps)"
xh2 = "(x2 - mu)/sqrt(var + eps)"
xh3 = "(x3 - mu)/sqrt(var + eps)"
loss = "g1*xh1 + g2*xh2 + g3*xh3"
dx1 = "grad(loss, x1)"
dx2 = "grad(loss, x2)"
dx3 = "grad(loss, x3)"
"""

for eid, xs, gs, eps, kind in (("ln-a", ("1.0", "2.0", "4.0"), ("0.5", "-1.0", "0.25"), "0.00001", "unbiased"),
                               ("ln-b", ("0.4172", "-1.3306", "0.9518"), ("1.0", "0.0", "-1.0"), "0.1", "eps_out"),
                               ("ln-c", ("-0.5", "0.25", "1.5"), ("0.2", "0.3", "-0.6"), "0.01", "unbiased")):
    xh, dx, loss = layer_norm(xs, gs, float(eps))
    bad_xh, bad_dx, _ = layer_norm(xs, gs, float(eps), **{kind: True})
    body = LN.format(x1=xs[0], x2=xs[1], x3=xs[2], g1=gs[0], g2=gs[1], g3=gs[2], eps=eps)
    claims = {f"xh{k + 1}": (dec(v), v) for k, v in enumerate(xh)}
    claims.update({f"dx{k + 1}": (dec(v), v) for k, v in enumerate(dx)})
    words = {"unbiased": "unbiased variance (÷ (n − 1)) in LayerNorm", "eps_out": "ε added outside the square root"}[kind]
    claims["xh1"] = (dec(bad_xh[0]), xh[0])
    claims["dx2"] = (dec(bad_dx[1]), dx[1])
    wrong = {"xh1": (words, kind, UNNAMED), "dx2": (words + " (in the backward pass too)", kind, UNNAMED + ["carried"])}
    exercise(eid, "LayerNorm over three entries, no affine", body, claims, wrong)


# ------------------------------------------------------------ attention scores, d = 2
def attention(qv, ks, d, *, scale="sqrt"):
    q = [float(Decimal(a)) for a in qv]
    s = [torch.tensor(sum(a * float(Decimal(b)) for a, b in zip(q, k)), dtype=D) for k in ks]
    c = (d ** 0.5) if scale == "sqrt" else d
    s = [v / c for v in s]
    tot = sum(torch.exp(v) for v in s)
    return [(torch.exp(v) / tot).item() for v in s]


ATT = """
[exercise.given]
q1 = {q1}
q2 = {q2}
k11 = {k11}
k12 = {k12}
k21 = {k21}
k22 = {k22}
dk = 2

[exercise.define]
s1 = "(q1*k11 + q2*k12)/sqrt(dk)"
s2 = "(q1*k21 + q2*k22)/sqrt(dk)"
a1 = "exp(s1)/(exp(s1) + exp(s2))"
a2 = "exp(s2)/(exp(s1) + exp(s2))"
"""
for eid, qv, ks in (("att-a", ("1.0", "0.5"), (("0.4172", "1.2035"), ("-1.3306", "0.9518"))),
                    ("att-b", ("2.0", "-1.0"), (("1.0", "1.0"), ("0.5", "-0.5")))):
    a = attention(qv, ks, 2)
    bad = attention(qv, ks, 2, scale="d")
    body = ATT.format(q1=qv[0], q2=qv[1], k11=ks[0][0], k12=ks[0][1], k21=ks[1][0], k22=ks[1][1])
    claims = {"a1": (dec(bad[0]), a[0]), "a2": (dec(a[1]), a[1])}
    exercise(eid, "attention weights of one query over two keys", body, claims,
             {"a1": ("scaled by 1/d, not 1/√d", "1/d", ["sqrt_forgotten"])})


# ------------------------------------------------------------ batch mean: logistic regression
def logistic(w, b, recs, *, total=False):
    wt, bt = t(w, b)
    losses = []
    for x, y in recs:
        p = torch.sigmoid(wt * float(Decimal(x)) + bt)
        yy = float(Decimal(y))
        losses.append(-(yy * torch.log(p) + (1 - yy) * torch.log(1 - p)))
    loss = sum(losses) if total else sum(losses) / len(recs)
    loss.backward()
    return loss.item(), wt.grad.item(), bt.grad.item()


LOG = """
[exercise.given]
w = {w}
b = {b}
records = {recs}

[exercise.define]
p = "sigmoid(w*x_i + b)"
loss = "mean_i(-(y_i*log(p_i) + (1 - y_i)*log(1 - p_i)))"
gw = "grad(loss, w)"
gb = "grad(loss, b)"
"""
for eid, w, b, recs in (("logit-a", "0.2514", "-0.1187", (("0.4172", "1"), ("-1.3306", "0"), ("0.9518", "1"))),
                        ("logit-b", "-0.5", "0.25", (("1.5", "0"), ("2.0", "1")))):
    loss, gw, gb = logistic(w, b, recs)
    _, sgw, sgb = logistic(w, b, recs, total=True)
    body = LOG.format(w=w, b=b, recs="[" + ", ".join(f"[{x}, {y}]" for x, y in recs) + "]")
    claims = {"loss": (dec(loss), loss), "gw": (dec(sgw), gw), "gb": (dec(gb), gb)}
    exercise(eid, "logistic regression, batch mean", body, claims,
             {"gw": ("1/B forgotten: the batch sum for the mean", "sum for mean", ["*sum*"])})


# ------------------------------------------------------------ AdamW, one step, two weights
def adamw(ws, gs, lr, wd, *, l2=False, correct=True, b1=0.9, b2=0.999, eps=1e-8):
    out = []
    for w, g in zip(ws, gs):
        w, g = F(w), F(g)
        if l2:
            g = g + F(wd) * w
        else:
            w = w * (1 - F(lr) * F(wd))
        m = (1 - F(str(b1))) * g
        v = (1 - F(str(b2))) * g * g
        mh = m / (1 - F(str(b1))) if correct else m
        vh = v / (1 - F(str(b2))) if correct else v
        out.append(float(w) - float(F(lr) * mh) / (float(vh) ** 0.5 + eps))
    return out


ADAMW = """
[exercise.given]
w1 = {w1}
w2 = {w2}
g1 = {g1}
g2 = {g2}
lr = 0.01
wd = 0.1
beta1 = 0.9
beta2 = 0.999
eps = 0.00000001

[exercise.define]
m1 = "(1 - beta1)*g1"
m2 = "(1 - beta1)*g2"
v1 = "(1 - beta2)*g1^2"
v2 = "(1 - beta2)*g2^2"
new1 = "w1*(1 - lr*wd) - lr*(m1/(1 - beta1))/(sqrt(v1/(1 - beta2)) + eps)"
new2 = "w2*(1 - lr*wd) - lr*(m2/(1 - beta1))/(sqrt(v2/(1 - beta2)) + eps)"
"""
for eid, ws, gs, kind in (("adamw-a", ("0.8635", "-0.4172"), ("-1.2035", "0.0841"), "l2"),
                          ("adamw-b", ("1.5", "-2.0"), ("0.25", "-0.75"), "nocorrect")):
    right = adamw(ws, gs, "0.01", "0.1")
    bad = adamw(ws, gs, "0.01", "0.1", l2=kind == "l2", correct=kind != "nocorrect")
    body = ADAMW.format(w1=ws[0], w2=ws[1], g1=gs[0], g2=gs[1])
    claims = {"new1": (dec(bad[0], 6), right[0]), "new2": (dec(right[1], 6), right[1])}
    words = {"l2": "AdamW's decay applied as L2 (added to the gradient)",
             "nocorrect": "no bias correction"}[kind]
    exercise(eid, "AdamW, one step, two weights", body, claims, {"new1": (words, kind, UNNAMED)})


# ------------------------------------------------------------ write
def holds_check(claimed: str, value) -> bool:
    places = len(claimed.split(".")[1]) if "." in claimed else 0
    return dec(value, places) == claimed


def main():
    parts, expected = [], {}
    wrong_keys = {(w["exercise"], w["quantity"]) for w in WRONG}
    for e in EX:
        lines = ["[[exercise]]", f'id = "{e["id"]}"', f'title = "{e["title"]}"',
                 'recipe = "formulas"', e["body"].rstrip(), "", "[exercise.claims]"]
        claims = {}
        for qn, (claimed, value) in e["claims"].items():
            lines.append(f"{qn} = {json.dumps(claimed)}")
            h = holds_check(claimed, value)
            assert h == ((e["id"], qn) not in wrong_keys), (e["id"], qn, claimed, value)
            claims[qn] = {"holds": h}
        parts.append("\n".join(lines) + "\n")
        expected[e["id"]] = {"claims": claims}
    head = ("# Next-lessons bank lessons05: written by reference.py, which computes every value.\n"
            "# Do not edit by hand.\n\n")
    (HERE / "exercises.toml").write_text(head + "\n".join(parts))
    (HERE / "expected.json").write_text(json.dumps({"exercises": expected}, indent=2) + "\n")
    out = ["# The mistake each wrong claim of lessons05 was written with, fixed before derive ran.",
           "# accept: fnmatch patterns of derive mistake names that explain it as intended;",
           "# \"carried\" = a carried-forward explanation; [] = a slip (right outcome: no name);",
           "# \"<no derive name>\": derive has no name for it (right outcome: no other name).", ""]
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
