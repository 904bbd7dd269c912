"""Tensor bank lessons07 (issue 35, "Measured in your closing note"): lessons 05–07 written as the
lessons write them, with matrices and vectors: linear layers (W @ x + b, X @ W.T + b over a
batch), two-layer ReLU networks with mse_loss and cross_entropy (mean over the batch), softmax,
log_softmax, logsumexp, cross_entropy with class indices, one-hot labels and label smoothing,
LayerNorm with and without weight and bias, attention scores softmax(Q @ K.T / sqrt(d)), two SGD
steps on a matrix, and the gradient of every parameter. About a third of the exercises carry a
planted wrong claim, one of the issue's whole-tensor mistakes computed in torch (ids as
derive/graph/tensor_mistakes.py names them: transposed, batch_sum, wrong_axis,
onehot_not_subtracted, mask_forgotten, preactivation, relu_prime_one, exp_forgotten, lse_max,
temperature_multiplied, inv_d, eps_outside_sqrt, unbiased_variance, previous_gradient).

Every value is computed here, never by derive: torch float64 (autograd for every gradient, the
mistakes as the student's own torch code), and, for the exercises whose values are rational
(linear layers, ReLU networks with mse_loss, SGD steps), Fraction arithmetic with the backward
pass written out by hand, which must agree with torch to 1e-12 and then decides exactness and
rounding exactly. Data are decimals as torch prints them (4 places, torch.randn with seed 35)
or friendly numbers; a value within 1e-9 of a rounding tie at 4 places is refused (the data are
changed until none is), as is an irrational value within 1e-9 of a 4-place decimal.

Writes, beside this file:
- exercises.toml: the bank in the tensor syntax (/work/notes/tensor-spec.md);
- expected.json: per exercise and claim the intended status (exact, rounded or wrong) and, for a
  planted mistake, its id;
- scalar.toml: the same exercises written entry by entry as the scalar formulas recipe requires
  today (one given per entry, one define per entry, one claim per entry; same values), so the
  TOML lines per exercise can be compared and the scalar form checked with today's derive.
Run: python benchmarks/lessons07/reference.py
"""
# ruff: noqa: E501 (the exercises' TOML text is kept as an author writes it)
from __future__ import annotations

import json
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
D = torch.float64
GEN = torch.Generator().manual_seed(35)
TIE = 1e-9


# ------------------------------------------------------------ numbers
def draw(*shape, scale=1.0) -> np.ndarray:
    """Decimals as torch prints them: randn (seed 35) to 4 places, as text; never -0.0000."""
    v = torch.randn(*shape, generator=GEN, dtype=D) * scale
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        s = f"{v[idx].item():.4f}"
        out[idx] = "0.0000" if Decimal(s) == 0 else s
    return out


def friendly(rows) -> np.ndarray:
    """A friendly given as written: nested lists of numbers (as text)."""
    a = np.empty(np.shape(rows), dtype=object)
    for idx in np.ndindex(*a.shape):
        a[idx] = str(np.array(rows, dtype=object)[idx])
    return a


def tt(a: np.ndarray, grad=False) -> torch.Tensor:
    return torch.tensor(np.vectorize(lambda s: float(Decimal(s)), otypes=[float])(a), dtype=D,
                        requires_grad=grad)


def fr(a: np.ndarray) -> np.ndarray:
    return np.vectorize(lambda s: F(Decimal(s)), otypes=[object])(a)


def dec(x, places=4) -> str:
    """x rounded half away from zero to `places` places (a float or a Fraction)."""
    d = Decimal(repr(x)) if isinstance(x, float) else Decimal(x.numerator) / Decimal(x.denominator)
    s = f"{d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP):f}"
    return "0." + "0" * places if s.startswith("-") and Decimal(s) == 0 else s


class Refused(ValueError):
    """A value too close to a rounding tie (or an irrational value too close to a 4-place
    decimal) for float64 to be the reference: the data must change."""


def entry(v, exact, wrong=False) -> tuple[str, bool]:
    """(claimed text, whether the claim is the exact value) of one entry. `exact` is the
    Fraction when the value is rational and computed exactly, else None (irrational: only an
    exact 0 of a masked gradient is exact, which float64 gives as 0.0)."""
    if exact is not None:
        assert abs(float(exact) - v) <= 1e-12 * max(1.0, abs(v)), (exact, v)
        frac = (abs(exact) * 10 ** 4) % 1
        if abs(frac - F(1, 2)) < F(TIE):
            raise Refused(f"{v!r} at a rounding tie")
        s = dec(exact)
        return s, F(Decimal(s)) == exact
    if v == 0.0:
        return "0.0000", True
    frac = (abs(v) * 10 ** 4) % 1
    if abs(frac - 0.5) < TIE or (not wrong and min(frac, 1 - frac) < TIE):
        raise Refused(f"{v!r} within {TIE} of a tie or of a 4-place decimal")
    return dec(v), False


def claim_of(value, exact: np.ndarray | None = None, wrong=False):
    """(nested claim, every entry exact) of a torch value (and its Fractions when rational); a
    value given as Fractions alone (a mistake computed exactly) is its own reference. A wrong
    value is refused only at a tie (a mistake may well give a short decimal)."""
    if isinstance(value, np.ndarray):
        value, exact = torch.tensor(value.astype(float), dtype=D), value
    v = value.detach()
    if v.ndim == 0:
        s, ex = entry(v.item(), None if exact is None else exact[()] if isinstance(exact, np.ndarray) else exact, wrong)
        return s, ex
    texts = np.empty(tuple(v.shape), dtype=object)
    all_exact = True
    for idx in np.ndindex(*v.shape):
        s, ex = entry(v[idx].item(), None if exact is None else exact[idx], wrong)
        texts[idx] = s
        all_exact &= ex
    return texts.tolist(), all_exact


# ------------------------------------------------------------ the scalar (entry-by-entry) form
def par(s: str) -> str:
    return s if s.replace(".", "").replace("_", "").isalnum() else f"({s})"


class Scalar:
    """The exercise written entry by entry: a given or define per entry, named as lessons05
    names them (w11, b2, z13: the tensor's name, then its 1-based indices)."""

    def __init__(self):
        self.given: list[str] = []
        self.define: list[str] = []
        self.names: set[str] = set()
        self.entries: dict[str, np.ndarray] = {}

    def _name(self, base, idx) -> str:
        n = base + "".join(str(i + 1) for i in idx)
        assert n not in self.names and n not in ("d", "c", "n", "i", "j", "k", "t", "B", "K", "N", "T"), n
        self.names.add(n)
        return n

    def scalar(self, name, text):
        self.names.add(name)
        self.given.append(f"{name} = {text}")
        return name

    def tensor(self, name, a: np.ndarray) -> np.ndarray:
        out = np.empty(a.shape, dtype=object)
        for idx in np.ndindex(*a.shape):
            out[idx] = self._name(name, idx)
            self.given.append(f"{out[idx]} = {a[idx]}")
        self.entries[name] = out
        return out

    def let(self, name, a) -> np.ndarray | str:
        if isinstance(a, str):
            self.names.add(name)
            self.define.append(f'{name} = "{a}"')
            self.entries[name] = np.array(name, dtype=object)
            return name
        out = np.empty(a.shape, dtype=object)
        for idx in np.ndindex(*a.shape):
            out[idx] = self._name(name, idx)
            self.define.append(f'{out[idx]} = "{a[idx]}"')
        self.entries[name] = out
        return out


def s_mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if b.ndim == 1:
        return np.array([" + ".join(f"{par(a[i, k])}*{par(b[k])}" for k in range(a.shape[1]))
                         for i in range(a.shape[0])], dtype=object)
    out = np.empty((a.shape[0], b.shape[1]), dtype=object)
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            out[i, j] = " + ".join(f"{par(a[i, k])}*{par(b[k, j])}" for k in range(a.shape[1]))
    return out


def s_map(f, *arrays) -> np.ndarray:
    arrays = np.broadcast_arrays(*arrays)
    out = np.empty(arrays[0].shape, dtype=object)
    for idx in np.ndindex(*out.shape):
        out[idx] = f(*(a[idx] for a in arrays))
    return out


def s_add(a, b):
    return s_map(lambda x, y: f"{x} + {y}", a, b)


def s_mse(a, b) -> str:
    terms = [f"({x} - {y})^2" for x, y in zip(a.ravel(), b.ravel())]
    return f"({' + '.join(terms)})/{len(terms)}"


def s_grad(sc: Scalar, loss: str, w: np.ndarray) -> np.ndarray:
    return s_map(lambda x: f"grad({loss}, {x})", w)


def s_rowsum_exp(sc: Scalar, name: str, z: np.ndarray, scale: str = "") -> np.ndarray:
    """The softmax denominators, one per row (s1 = exp(z11) + exp(z12) + …)."""
    rows = z.reshape(-1, z.shape[-1])
    return sc.let(name, np.array([" + ".join(f"exp({x}{scale})" for x in r) for r in rows],
                                 dtype=object))


def s_softmax(sc: Scalar, sname: str, z: np.ndarray, scale: str = "") -> np.ndarray:
    s = s_rowsum_exp(sc, sname, z, scale)
    z2 = z.reshape(-1, z.shape[-1])
    out = np.empty(z2.shape, dtype=object)
    for r in range(z2.shape[0]):
        for c in range(z2.shape[1]):
            out[r, c] = f"exp({z2[r, c]}{scale})/{s[r]}"
    return out.reshape(z.shape)


# ------------------------------------------------------------ the bank
EX: list[dict] = []


def add(eid, title, given, define, claims, scalar, wrong=None):
    """given: {name: np array of decimal text | text}; define: [(name, tensor formula)];
    claims: {name: (torch value, Fractions or None)}; wrong: {name: (mistake id, torch value)}.
    scalar: the Scalar form and its claims' entry names {name: np array of names | name}."""
    sc, entries = scalar
    wrong = wrong or {}
    out_claims = {}
    for q, (value, exact) in claims.items():
        right, is_exact = claim_of(value, exact)
        if q in wrong:
            mistake, bad = wrong[q]
            text, _ = claim_of(bad, wrong=True)
            assert text != right, (eid, q, mistake, "the mistake gives the right claim")
            out_claims[q] = dict(claimed=text, status="wrong", mistake=mistake, right=right)
        else:
            out_claims[q] = dict(claimed=right, status="exact" if is_exact else "rounded",
                                 mistake=None)
    EX.append(dict(id=eid, title=title, given=given, define=define, claims=out_claims,
                   scalar=sc, entries=entries))


def toml_value(a) -> str:
    if isinstance(a, np.ndarray):
        if a.ndim == 0:
            return str(a[()])
        return "[" + ", ".join(toml_value(x) if isinstance(x, np.ndarray) else str(x) for x in a) + "]"
    return str(a)


def nested_claim(c) -> str:
    return json.dumps(c, ensure_ascii=False)


# ---- lesson 05: a linear layer on one vector, mse_loss
def linear_vec(eid, W, x, b, y, wrong_kind=None):
    Wt, bt, xt, yt = tt(W, True), tt(b, True), tt(x), tt(y)
    z = Wt @ xt + bt
    loss = torch.nn.functional.mse_loss(z, yt)
    loss.backward()
    Wf, xf, bf, yf = fr(W), fr(x), fr(b), fr(y)
    zf = Wf.dot(xf) + bf
    lf = sum((zf - yf) ** 2) / len(zf)
    dz = 2 * (zf - yf) / len(zf)
    gWf, gbf = np.outer(dz, xf), dz
    claims = dict(z=(z, zf), loss=(loss, lf), gW=(Wt.grad, gWf), gb=(bt.grad, gbf))
    wrong = {}
    if wrong_kind == "transposed":
        wrong["gW"] = ("transposed", Wt.grad.T)
    sc = Scalar()
    sW, sx, sb, sy = sc.tensor("w", W), sc.tensor("x", x), sc.tensor("b", b), sc.tensor("y", y)
    sz = sc.let("z", s_add(s_mm(sW, sx), sb))
    sl = sc.let("loss", s_mse(sz, sy))
    ents = dict(z=sz, loss=sl, gW=sc.let("gw", s_grad(sc, sl, sW)), gb=sc.let("gb", s_grad(sc, sl, sb)))
    add(eid, f"a linear layer z = W x + b, {W.shape[0]}×{W.shape[1]}, mse_loss",
        dict(W=W, x=x, b=b, y=y),
        [("z", "W @ x + b"), ("loss", "mse_loss(z, y)"), ("gW", "grad(loss, W)"), ("gb", "grad(loss, b)")],
        claims, (sc, ents), wrong)


# ---- lesson 05: a linear layer on a batch, X @ W.T + b
def linear_batch(eid, X, W, b, Y, wrong_kind=None):
    Xt, Wt, bt, Yt = tt(X), tt(W, True), tt(b, True), tt(Y)
    Z = Xt @ Wt.T + bt
    loss = torch.nn.functional.mse_loss(Z, Yt)
    loss.backward()
    Xf, Wf, bf, Yf = fr(X), fr(W), fr(b), fr(Y)
    Zf = Xf.dot(Wf.T) + bf
    lf = ((Zf - Yf) ** 2).sum() / Zf.size
    dZ = 2 * (Zf - Yf) / Zf.size
    claims = dict(Z=(Z, Zf), loss=(loss, lf), gW=(Wt.grad, dZ.T.dot(Xf)), gb=(bt.grad, dZ.sum(axis=0)))
    wrong = {}
    if wrong_kind == "transposed":
        wrong["gW"] = ("transposed", Wt.grad.T)
    elif wrong_kind == "batch_sum":   # the loss summed over the batch: every gradient B times
        W2, b2 = tt(W, True), tt(b, True)
        torch.nn.functional.mse_loss(Xt @ W2.T + b2, Yt, reduction="sum").backward()
        wrong["gW"] = ("batch_sum", W2.grad)
    sc = Scalar()
    sX, sW, sb, sY = sc.tensor("x", X), sc.tensor("w", W), sc.tensor("b", b), sc.tensor("y", Y)
    sZ = sc.let("z", s_add(s_mm(sX, sW.T), sb))
    sl = sc.let("loss", s_mse(sZ, sY))
    ents = dict(Z=sZ, loss=sl, gW=sc.let("gw", s_grad(sc, sl, sW)), gb=sc.let("gb", s_grad(sc, sl, sb)))
    add(eid, f"a linear layer on a batch of {X.shape[0]}: Z = X Wᵀ + b, mse_loss",
        dict(X=X, W=W, b=b, Y=Y),
        [("Z", "X @ W.T + b"), ("loss", "mse_loss(Z, Y)"), ("gW", "grad(loss, W)"), ("gb", "grad(loss, b)")],
        claims, (sc, ents), wrong)


# ---- lesson 05: a two-layer ReLU network, mse_loss over a batch (one output)
def relu_mask(Zf, at_zero=0):
    return np.vectorize(lambda z: F(1) if z > 0 else F(at_zero) if z == 0 else F(0), otypes=[object])(Zf)


def mlp_mse(eid, X, W1, b1, W2, b2, Y, wrong_kinds=()):
    Xt, Yt = tt(X), tt(Y)
    P = [tt(a, True) for a in (W1, b1, W2, b2)]
    Z1 = Xt @ P[0].T + P[1]
    H = torch.relu(Z1)
    Yh = H @ P[2].T + P[3]
    loss = torch.nn.functional.mse_loss(Yh, Yt)
    loss.backward()
    Xf, W1f, b1f, W2f, b2f, Yf = (fr(a) for a in (X, W1, b1, W2, b2, Y))
    Z1f = Xf.dot(W1f.T) + b1f
    Hf = np.vectorize(lambda z: max(z, F(0)), otypes=[object])(Z1f)
    Yhf = Hf.dot(W2f.T) + b2f
    lf = ((Yhf - Yf) ** 2).sum() / Yhf.size
    dYh = 2 * (Yhf - Yf) / Yhf.size

    def backward(mask, act):
        dZ1 = dYh.dot(W2f) * mask
        return dict(gW1=dZ1.T.dot(Xf), gb1=dZ1.sum(axis=0), gW2=dYh.T.dot(act), gb2=dYh.sum(axis=0))

    g = backward(relu_mask(Z1f), Hf)
    claims = dict(H=(H, Hf), loss=(loss, lf), gW1=(P[0].grad, g["gW1"]), gb1=(P[1].grad, g["gb1"]),
                  gW2=(P[2].grad, g["gW2"]), gb2=(P[3].grad, g["gb2"]))
    ones = np.vectorize(lambda z: F(1), otypes=[object])(Z1f)
    wrong = {}
    for kind in wrong_kinds:
        if kind == "mask_forgotten":
            bad = backward(ones, Hf)
            wrong["gW1"] = (kind, bad["gW1"])
        elif kind == "relu_prime_one":
            assert (Z1f == 0).any(), "relu'(0) needs a pre-activation exactly 0"
            bad = backward(relu_mask(Z1f, at_zero=1), Hf)
            wrong["gW1"] = (kind, bad["gW1"])
        elif kind == "preactivation":   # the lesson's: ∂L/∂W2 = δ₂ᵀ Z1, with Z1 for H
            bad = backward(relu_mask(Z1f), Z1f)
            wrong["gW2"] = (kind, bad["gW2"])
        elif kind == "preactivation_h":   # the activation itself claimed as its pre-activation
            wrong["H"] = ("preactivation", Z1f)
        elif kind == "transposed":
            assert torch.allclose(P[0].grad.T, torch.tensor(g["gW1"].T.astype(float), dtype=D), rtol=0, atol=1e-12)
            wrong["gW1"] = (kind, g["gW1"].T)
        elif kind == "batch_sum":   # torch's reduction="sum", confirmed against Yhat.size × the mean's
            Q = [tt(a, True) for a in (W1, b1, W2, b2)]
            torch.nn.functional.mse_loss(torch.relu(Xt @ Q[0].T + Q[1]) @ Q[2].T + Q[3], Yt,
                                         reduction="sum").backward()
            assert torch.allclose(Q[1].grad, torch.tensor((g["gb1"] * Yhf.size).astype(float), dtype=D), rtol=0, atol=1e-12)
            wrong["gb1"] = (kind, g["gb1"] * Yhf.size)
    sc = Scalar()
    sX = sc.tensor("x", X)
    sW1, sb1, sW2, sb2 = sc.tensor("u", W1), sc.tensor("a", b1), sc.tensor("v", W2), sc.tensor("e", b2)
    sY = sc.tensor("y", Y)
    sZ1 = sc.let("z", s_add(s_mm(sX, sW1.T), sb1))
    sH = sc.let("h", s_map(lambda z: f"relu({z})", sZ1))
    sYh = sc.let("o", s_add(s_mm(sH, sW2.T), sb2))
    sl = sc.let("loss", s_mse(sYh, sY))
    ents = dict(H=sH, loss=sl, gW1=sc.let("gu", s_grad(sc, sl, sW1)), gb1=sc.let("ga", s_grad(sc, sl, sb1)),
                gW2=sc.let("gv", s_grad(sc, sl, sW2)), gb2=sc.let("ge", s_grad(sc, sl, sb2)))
    add(eid, f"a two-layer ReLU network, batch of {X.shape[0]}, mse_loss",
        dict(X=X, W1=W1, b1=b1, W2=W2, b2=b2, Y=Y),
        [("Z1", "X @ W1.T + b1"), ("H", "relu(Z1)"), ("Yhat", "H @ W2.T + b2"), ("loss", "mse_loss(Yhat, Y)"),
         ("gW1", "grad(loss, W1)"), ("gb1", "grad(loss, b1)"), ("gW2", "grad(loss, W2)"), ("gb2", "grad(loss, b2)")],
        claims, (sc, ents), wrong)


# ---- lesson 06: a two-layer ReLU classifier, cross_entropy over a batch (class indices)
def mlp_ce(eid, X, W1, b1, W2, b2, y, wrong_kinds=()):
    Xt = tt(X)
    yt = torch.tensor([int(v) for v in y])
    B = X.shape[0]

    def forward(P, reduction="mean"):
        Z1 = Xt @ P[0].T + P[1]
        H = torch.relu(Z1)
        Z2 = H @ P[2].T + P[3]
        Z2.retain_grad()
        loss = torch.nn.functional.cross_entropy(Z2, yt, reduction=reduction)
        loss.backward()
        return Z1, H, Z2, loss

    P = [tt(a, True) for a in (W1, b1, W2, b2)]
    Z1, H, Z2, loss = forward(P)
    claims = dict(loss=(loss, None), gZ2=(Z2.grad, None), gW2=(P[2].grad, None), gb2=(P[3].grad, None),
                  gW1=(P[0].grad, None), gb1=(P[1].grad, None))
    wrong = {}
    with torch.no_grad():
        dZ2 = Z2.grad
        for kind in wrong_kinds:
            if kind == "onehot_not_subtracted":
                wrong["gZ2"] = (kind, torch.softmax(Z2, dim=-1) / B)
            elif kind == "mask_forgotten":
                wrong["gW1"] = (kind, (dZ2 @ P[2]).T @ Xt)
            elif kind == "preactivation":
                wrong["gW2"] = (kind, dZ2.T @ Z1)
            elif kind == "transposed":
                wrong["gW2"] = (kind, P[2].grad.T)
    for kind in wrong_kinds:
        if kind == "batch_sum":
            Q = [tt(a, True) for a in (W1, b1, W2, b2)]
            forward(Q, "sum")
            wrong["gW1"] = (kind, Q[0].grad)
    sc = Scalar()
    sX = sc.tensor("x", X)
    sW1, sb1, sW2, sb2 = sc.tensor("u", W1), sc.tensor("a", b1), sc.tensor("v", W2), sc.tensor("e", b2)
    sZ1 = sc.let("z", s_add(s_mm(sX, sW1.T), sb1))
    sH = sc.let("h", s_map(lambda z: f"relu({z})", sZ1))
    sZ2 = sc.let("o", s_add(s_mm(sH, sW2.T), sb2))
    sp_ = sc.let("p", s_softmax(sc, "s", sZ2))
    sl = sc.let("loss", "-(" + " + ".join(f"log({sp_[r, int(y[r])]})" for r in range(B)) + f")/{B}")
    ents = dict(loss=sl, gZ2=sc.let("go", s_grad(sc, sl, sZ2)), gW2=sc.let("gv", s_grad(sc, sl, sW2)),
                gb2=sc.let("ge", s_grad(sc, sl, sb2)), gW1=sc.let("gu", s_grad(sc, sl, sW1)),
                gb1=sc.let("ga", s_grad(sc, sl, sb1)))
    add(eid, f"a two-layer ReLU classifier, batch of {B}, {W2.shape[0]} classes, cross_entropy",
        dict(X=X, W1=W1, b1=b1, W2=W2, b2=b2, y=y),
        [("Z1", "X @ W1.T + b1"), ("H", "relu(Z1)"), ("Z2", "H @ W2.T + b2"), ("loss", "cross_entropy(Z2, y)"),
         ("gZ2", "grad(loss, Z2)"), ("gW2", "grad(loss, W2)"), ("gb2", "grad(loss, b2)"),
         ("gW1", "grad(loss, W1)"), ("gb1", "grad(loss, b1)")],
        claims, (sc, ents), wrong)


# ---- lesson 06: softmax, log_softmax, logsumexp of a batch of logits (optionally a temperature)
def softmax_rows(eid, Z, temp=None, wrong_kinds=()):
    Zt = tt(Z)
    Zs = Zt / float(Decimal(temp)) if temp else Zt
    P, L, S = torch.softmax(Zs, -1), torch.log_softmax(Zs, -1), torch.logsumexp(Zs, -1)
    claims = dict(P=(P, None), L=(L, None), S=(S, None))
    wrong = {}
    for kind in wrong_kinds:
        if kind == "wrong_axis":
            wrong["P"] = (kind, torch.softmax(Zs, 0))
        elif kind == "exp_forgotten":
            wrong["P"] = (kind, Zs / Zs.sum(-1, keepdim=True))
        elif kind == "lse_max":   # the max for log-sum-exp: in logsumexp itself and in log_softmax
            wrong["S"] = (kind, Zs.max(-1).values)
            wrong["L"] = (kind, Zs - Zs.max(-1, keepdim=True).values)
        elif kind == "temperature_multiplied":
            wrong["P"] = (kind, torch.softmax(Zt * float(Decimal(temp)), -1))
    sc = Scalar()
    sZ = sc.tensor("z", Z)
    scale = ""
    if temp:
        sc.scalar("temp", temp)
        scale = "/temp"
    sP = sc.let("p", s_softmax(sc, "s", sZ, scale))
    sL = sc.let("l", s_map(lambda z, s: f"{z}{scale} - log({s})", sZ, sc.entries["s"][:, None]))
    sS = sc.let("lse", s_map(lambda s: f"log({s})", sc.entries["s"]))
    arg = "Z / temp" if temp else "Z"
    given = dict(Z=Z, **({"temp": temp} if temp else {}))
    add(eid, f"softmax, log_softmax and logsumexp of {Z.shape[0]}×{Z.shape[1]} logits" + (f" at temperature {temp}" if temp else ""),
        given, [("P", f"softmax({arg}, dim=-1)"), ("L", f"log_softmax({arg}, dim=-1)"), ("S", f"logsumexp({arg}, dim=-1)")],
        claims, (sc, dict(P=sP, L=sL, S=sS)), wrong)


# ---- lesson 06: cross_entropy of logits: class indices, one-hot rows, label smoothing
def ce_logits(eid, Z, y, form="index", smoothing=None, wrong_kinds=()):
    Zt = tt(Z, True)
    yt = torch.tensor([int(v) for v in y])
    B, C = Z.shape
    if form == "onehot":
        Yt = torch.nn.functional.one_hot(yt, C).to(D)
        loss = torch.nn.functional.cross_entropy(Zt, Yt)
    else:
        loss = torch.nn.functional.cross_entropy(Zt, yt, label_smoothing=float(Decimal(smoothing)) if smoothing else 0.0)
    loss.backward()
    claims = dict(loss=(loss, None), gZ=(Zt.grad, None))
    if form == "onehot":
        claims = dict(Y=(Yt, np.vectorize(F, otypes=[object])(Yt.numpy().astype(int))), **claims)
    wrong = {}
    for kind in wrong_kinds:
        if kind == "onehot_not_subtracted":
            wrong["gZ"] = (kind, torch.softmax(Zt.detach(), -1) / B)
    sc = Scalar()
    sZ = sc.tensor("z", Z)
    sP = sc.let("p", s_softmax(sc, "s", sZ))
    ents = {}
    if form == "onehot":
        sY = sc.tensor("y", friendly(torch.nn.functional.one_hot(yt, C).tolist()))
        ents["Y"] = None   # entry by entry the one-hot rows are givens: nothing to claim
        sl = sc.let("loss", "-(" + " + ".join(f"{sY[r, c]}*log({sP[r, c]})" for r in range(B) for c in range(C)) + f")/{B}")
    elif smoothing:
        eps = smoothing
        terms = []
        for r in range(B):
            for c in range(C):
                q = f"(1 - {eps} + {eps}/{C})" if c == int(y[r]) else f"{eps}/{C}"
                terms.append(f"{q}*log({sP[r, c]})")
        sl = sc.let("loss", "-(" + " + ".join(terms) + f")/{B}")
    else:
        sl = sc.let("loss", "-(" + " + ".join(f"log({sP[r, int(y[r])]})" for r in range(B)) + f")/{B}")
    ents.update(loss=sl, gZ=sc.let("gz", s_grad(sc, sl, sZ)))
    if form == "onehot":
        define = [("Y", f"onehot(y, {C})"), ("loss", "cross_entropy(Z, Y)"), ("gZ", "grad(loss, Z)")]
        title = f"cross_entropy of {B}×{C} logits against one-hot rows"
    elif smoothing:
        define = [("loss", f"cross_entropy(Z, y, label_smoothing={smoothing})"), ("gZ", "grad(loss, Z)")]
        title = f"cross_entropy of {B}×{C} logits, label smoothing {smoothing}"
    else:
        define = [("loss", "cross_entropy(Z, y)"), ("gZ", "grad(loss, Z)")]
        title = f"cross_entropy of {B}×{C} logits, class indices"
    add(eid, title, dict(Z=Z, y=y), define, claims, (sc, ents), wrong)


# ---- lesson 07: LayerNorm over the last dim, with and without weight and bias
def layernorm(eid, X, G, eps=None, weight=None, bias=None, wrong_kinds=()):
    n = X.shape[-1]
    e = float(Decimal(eps)) if eps else 1e-5

    def ln(x, w, b, unbiased=False, eps_out=False):
        mu = x.mean(-1, keepdim=True)
        var = x.var(-1, unbiased=unbiased, keepdim=True)
        den = torch.sqrt(var) + e if eps_out else torch.sqrt(var + e)
        y = (x - mu) / den
        if w is not None:
            y = y * w
        if b is not None:
            y = y + b
        return y

    def run(**kw):
        Xt = tt(X, True)
        wt = tt(weight, True) if weight is not None else None
        bt = tt(bias, True) if bias is not None else None
        Yv = ln(Xt, wt, bt, **kw)
        loss = (Yv * tt(G)).sum()
        loss.backward()
        return Yv, loss, Xt.grad, wt.grad if wt is not None else None, bt.grad if bt is not None else None

    Yv, loss, gX, gw, gb = run()
    ref = torch.nn.functional.layer_norm(tt(X), (n,), tt(weight) if weight is not None else None,
                                         tt(bias) if bias is not None else None, eps=e)
    assert torch.allclose(Yv, ref, rtol=0, atol=1e-13)
    claims = dict(Y=(Yv, None), loss=(loss, None), gX=(gX, None))
    if weight is not None:
        claims["gw"] = (gw, None)
    if bias is not None:   # the sum of G's rows: rational, so exact
        claims["gb"] = (gb, fr(G).sum(axis=0))
    wrong = {}
    for kind in wrong_kinds:
        bad = run(**{"unbiased_variance": dict(unbiased=True), "eps_outside_sqrt": dict(eps_out=True)}[kind])
        wrong["Y" if "Y" not in wrong else "gX"] = (kind, bad[0] if "Y" not in wrong else bad[2])
    sc = Scalar()
    sX, sG = sc.tensor("x", X), sc.tensor("g", G)
    epsn = sc.scalar("eps", eps) if eps else "0.00001"
    sw = sc.tensor("gam", weight) if weight is not None else None
    sb = sc.tensor("bet", bias) if bias is not None else None
    smu = sc.let("mu", np.array([f"({' + '.join(r)})/{n}" for r in sX], dtype=object))
    svar = sc.let("var", np.array([f"({' + '.join(f'({x} - {m})^2' for x in r)})/{n}" for r, m in zip(sX, smu)], dtype=object))
    xh = s_map(lambda x, m, v: f"({x} - {m})/sqrt({v} + {epsn})", sX, smu[:, None], svar[:, None])
    if sw is not None:
        xh = s_map(lambda h, w: f"{par(h)}*{w}", xh, sw)
    if sb is not None:
        xh = s_add(xh, sb)
    sY = sc.let("yy", xh)
    sl = sc.let("loss", " + ".join(f"{y}*{g}" for y, g in zip(sY.ravel(), sG.ravel())))
    ents = dict(Y=sY, loss=sl, gX=sc.let("gx", s_grad(sc, sl, sX)))
    if sw is not None:
        ents["gw"] = sc.let("ggam", s_grad(sc, sl, sw))
    if sb is not None:
        ents["gb"] = sc.let("gbet", s_grad(sc, sl, sb))
    kw = (", eps=eps" if eps else "") + (", weight=gamma" if weight is not None else "") + (", bias=beta" if bias is not None else "")
    given = dict(X=X, G=G, **({"eps": eps} if eps else {}), **({"gamma": weight} if weight is not None else {}),
                 **({"beta": bias} if bias is not None else {}))
    define = [("Y", f"layer_norm(X{kw})"), ("loss", "sum(Y * G)"), ("gX", "grad(loss, X)")]
    if weight is not None:
        define.append(("gw", "grad(loss, gamma)"))
    if bias is not None:
        define.append(("gb", "grad(loss, beta)"))
    what = "with weight and bias" if weight is not None and bias is not None else "with weight" if weight is not None else "no affine"
    add(eid, f"LayerNorm of a {X.shape[0]}×{n} batch, {what}, eps {eps or '1e-5'}; upstream gradient G",
        given, define, claims, (sc, ents), wrong)


# ---- lesson 07: attention scores softmax(Q Kᵀ/√d) and the weighted values
def attention(eid, Qm, Km, V, G, dk, wrong_kinds=()):
    Qt, Kt, Vt = tt(Qm, True), tt(Km, True), tt(V)
    dd = float(dk)
    A = torch.softmax(Qt @ Kt.T / dd ** 0.5, -1)
    Out = A @ Vt
    loss = (Out * tt(G)).sum()
    loss.backward()
    claims = dict(A=(A, None), O=(Out, None), gQ=(Qt.grad, None), gK=(Kt.grad, None))
    wrong = {}
    with torch.no_grad():
        for kind in wrong_kinds:
            if kind == "inv_d":
                wrong["A"] = (kind, torch.softmax(Qt @ Kt.T / dd, -1))
            elif kind == "wrong_axis":
                wrong["A"] = (kind, torch.softmax(Qt @ Kt.T / dd ** 0.5, 0))
    sc = Scalar()
    sQ, sK, sV, sG = sc.tensor("q", Qm), sc.tensor("kk", Km), sc.tensor("v", V), sc.tensor("g", G)
    sc.scalar("dk", dk)
    sS = sc.let("sc", s_map(lambda s: f"({s})/sqrt(dk)", s_mm(sQ, sK.T)))
    sA = sc.let("a", s_softmax(sc, "s", sS))
    sO = sc.let("o", s_mm(sA, sV))
    sl = sc.let("loss", " + ".join(f"{o}*{g}" for o, g in zip(sO.ravel(), sG.ravel())))
    ents = dict(A=sA, O=sO, gQ=sc.let("gq", s_grad(sc, sl, sQ)), gK=sc.let("gk", s_grad(sc, sl, sK)))
    add(eid, f"attention: {Qm.shape[0]} queries, {Km.shape[0]} keys, d = {dk}; upstream gradient G",
        dict(Q=Qm, Km=Km, V=V, G=G, dk=dk),
        [("S", "Q @ Km.T / sqrt(dk)"), ("A", "softmax(S, dim=-1)"), ("O", "A @ V"), ("loss", "sum(O * G)"),
         ("gQ", "grad(loss, Q)"), ("gK", "grad(loss, Km)")],
        claims, (sc, ents), wrong)


# ---- lesson 05: two SGD steps on a matrix, written out (the second step's gradient is new)
def sgd_two(eid, X, W0, Y, lr, wrong_kinds=()):
    Xt, Yt, lrf = tt(X), tt(Y), float(Decimal(lr))
    W0t = tt(W0, True)
    loss0 = torch.nn.functional.mse_loss(Xt @ W0t.T, Yt)
    loss0.backward()
    W1t = (W0t - lrf * W0t.grad).detach().requires_grad_(True)
    loss1 = torch.nn.functional.mse_loss(Xt @ W1t.T, Yt)
    loss1.backward()
    W2t = W1t.detach() - lrf * W1t.grad
    Xf, W0f, Yf, lrF = fr(X), fr(W0), fr(Y), F(Decimal(lr))

    def g(Wf):
        R = Xf.dot(Wf.T) - Yf
        return (2 * R / R.size).T.dot(Xf)

    g0 = g(W0f)
    W1f = W0f - lrF * g0
    g1 = g(W1f)
    W2f = W1f - lrF * g1
    claims = dict(g0=(W0t.grad, g0), W1=(W1t, W1f), g1=(W1t.grad, g1), W2=(W2t, W2f))
    wrong = {}
    for kind in wrong_kinds:
        if kind == "previous_gradient":
            wrong["W2"] = (kind, W1t.detach() - lrf * W0t.grad)
    sc = Scalar()
    sX, sW0, sY = sc.tensor("x", X), sc.tensor("w", W0), sc.tensor("y", Y)
    sc.scalar("lr", lr)
    sl0 = sc.let("lossa", s_mse(s_mm(sX, sW0.T), sY))
    sg0 = sc.let("ga", s_grad(sc, sl0, sW0))
    sW1 = sc.let("wa", s_map(lambda w, gg: f"{w} - lr*{gg}", sW0, sg0))
    sl1 = sc.let("lossb", s_mse(s_mm(sX, sW1.T), sY))
    sg1 = sc.let("gb", s_grad(sc, sl1, sW1))
    sW2 = sc.let("wb", s_map(lambda w, gg: f"{w} - lr*{gg}", sW1, sg1))
    add(eid, f"two SGD steps on a {W0.shape[0]}×{W0.shape[1]} matrix, batch of {X.shape[0]}, mse_loss",
        dict(X=X, W0=W0, Y=Y, lr=lr),
        [("loss0", "mse_loss(X @ W0.T, Y)"), ("g0", "grad(loss0, W0)"), ("W1", "W0 - lr*g0"),
         ("loss1", "mse_loss(X @ W1.T, Y)"), ("g1", "grad(loss1, W1)"), ("W2", "W1 - lr*g1")],
        claims, (sc, dict(g0=sg0, W1=sW1, g1=sg1, W2=sW2)), wrong)


def ints(*v) -> np.ndarray:
    return friendly(list(v))


# ------------------------------------------------------------ the exercises
def build():
    # lesson 05: linear layers
    linear_vec("lin-a", draw(2, 3), draw(3), draw(2), draw(2))
    linear_vec("lin-b", draw(3, 2), draw(2), draw(3), draw(3))
    linear_vec("lin-c", draw(2, 2), draw(2), draw(2), draw(2), "transposed")
    linear_vec("lin-d", friendly([[1, -1], [2, 0.5]]), friendly([2, 1]), friendly([0.5, -1]), friendly([1, 0]))
    linear_batch("linb-a", draw(2, 3), draw(2, 3), draw(2), draw(2, 2))
    linear_batch("linb-b", draw(3, 2), draw(2, 2), draw(2), draw(3, 2))
    linear_batch("linb-c", draw(4, 3), draw(1, 3), draw(1), draw(4, 1), "batch_sum")
    linear_batch("linb-d", draw(4, 2), draw(3, 2), draw(3), draw(4, 3))
    linear_batch("linb-e", friendly([[1, 2], [-1, 0.5], [0, 1]]), friendly([[0.5, -1], [1, 0.25]]), friendly([0, 1]),
                 friendly([[1, 0], [0, 1], [1, 1]]))
    # lesson 05: two-layer ReLU networks, mse_loss
    mlp_mse("mlp-a", draw(3, 2), draw(3, 2), draw(3), draw(1, 3), draw(1), draw(3, 1))
    mlp_mse("mlp-b", draw(2, 3), draw(2, 3), draw(2), draw(1, 2), draw(1), draw(2, 1), ("mask_forgotten",))
    mlp_mse("mlp-c", draw(4, 2), draw(2, 2), draw(2), draw(1, 2), draw(1), draw(4, 1), ("transposed", "preactivation"))
    mlp_mse("mlp-d", draw(3, 2), draw(3, 2), draw(3), draw(1, 3), draw(1), draw(3, 1), ("preactivation_h",))
    mlp_mse("mlp-e", friendly([[1.5, 0.25], [-0.5, 1], [2, -1]]), friendly([[0.5, -1], [1, 1], [-0.25, 0.5]]),
            friendly([-0.5, 0, 0.25]), friendly([[1, -0.5, 2]]), friendly([0.5]), friendly([[1], [-1], [0.5]]),
            ("relu_prime_one",))
    mlp_mse("mlp-f", draw(4, 3), draw(2, 3), draw(2), draw(1, 2), draw(1), draw(4, 1), ("batch_sum",))
    mlp_mse("mlp-g", friendly([[2, 1], [1, -1]]), friendly([[1, -1], [0.5, 0.5]]), friendly([0, 0.5]),
            friendly([[1, 2]]), friendly([0]), friendly([[1], [0]]))
    # lesson 06: two-layer ReLU classifiers, cross_entropy
    mlp_ce("cls-a", draw(3, 2), draw(3, 2), draw(3), draw(3, 3), draw(3), ints(0, 2, 1))
    mlp_ce("cls-b", draw(2, 3), draw(2, 3), draw(2), draw(3, 2), draw(3), ints(1, 1), ("onehot_not_subtracted",))
    mlp_ce("cls-c", draw(3, 2), draw(2, 2), draw(2), draw(2, 2), draw(2), ints(0, 1, 1), ("transposed", "mask_forgotten"))
    mlp_ce("cls-d", draw(4, 2), draw(3, 2), draw(3), draw(3, 3), draw(3), ints(2, 0, 1, 2))
    mlp_ce("cls-e", draw(3, 3), draw(2, 3), draw(2), draw(4, 2), draw(4), ints(3, 0, 1), ("batch_sum", "preactivation"))
    mlp_ce("cls-f", draw(3, 2), draw(3, 2), draw(3), draw(3, 3), draw(3), ints(1, 0, 2))
    mlp_ce("cls-g", friendly([[1, 2], [-1, 0.5], [0.5, -1]]), friendly([[1, -1], [0.5, 1]]), friendly([0, -0.5]),
           friendly([[1, -1], [-0.5, 2], [0.25, 0]]), friendly([0, 0, 0]), ints(0, 1, 2))
    # lesson 06: softmax, log_softmax, logsumexp
    softmax_rows("sm-a", draw(2, 3))
    softmax_rows("sm-b", draw(3, 3), wrong_kinds=("wrong_axis",))
    softmax_rows("sm-c", draw(2, 4), wrong_kinds=("lse_max", "exp_forgotten"))
    softmax_rows("sm-d", friendly([[1, 2, 3], [0.5, -0.5, 2]]))
    softmax_rows("sm-e", draw(3, 2), temp="2", wrong_kinds=("temperature_multiplied",))
    softmax_rows("sm-f", draw(2, 3), temp="0.5")
    # lesson 06: cross_entropy of logits
    ce_logits("ce-a", draw(3, 3), ints(0, 2, 1))
    ce_logits("ce-b", draw(2, 4), ints(3, 1), wrong_kinds=("onehot_not_subtracted",))
    ce_logits("ce-c", draw(3, 3), ints(1, 1, 0), form="onehot")
    ce_logits("ce-d", draw(4, 3), ints(2, 0, 1, 1), smoothing="0.1")
    ce_logits("ce-e", friendly([[2, 1, 0.5], [0, 1, -1]]), ints(0, 2), smoothing="0.2")
    ce_logits("ce-f", friendly([[1, -1, 0.5], [0.25, 2, -0.5], [0, 0.5, 1]]), ints(2, 1, 0), form="onehot")
    # lesson 07: LayerNorm
    layernorm("ln-a", draw(2, 3), draw(2, 3))
    layernorm("ln-b", draw(2, 4), draw(2, 4), eps="0.01", wrong_kinds=("eps_outside_sqrt",))
    layernorm("ln-c", draw(3, 3), draw(3, 3), weight=draw(3), bias=draw(3))
    layernorm("ln-d", friendly([[1, 2, 4], [-0.5, 0.25, 1.5]]), friendly([[0.5, -1, 0.25], [0.2, 0.3, -0.6]]),
              wrong_kinds=("unbiased_variance",))
    layernorm("ln-e", draw(2, 3), draw(2, 3), eps="0.1", weight=draw(3))
    layernorm("ln-f", draw(2, 4), draw(2, 4), weight=draw(4), bias=draw(4))
    # lesson 07: attention scores
    attention("att-a", draw(2, 2), draw(3, 2), draw(3, 2), draw(2, 2), "2")
    attention("att-b", draw(2, 4), draw(2, 4), draw(2, 2), draw(2, 2), "4", ("inv_d",))
    attention("att-c", draw(3, 2), draw(3, 2), draw(3, 2), draw(3, 2), "2", ("wrong_axis",))
    attention("att-d", friendly([[1, 0.5], [2, -1]]), friendly([[1, 1], [0.5, -0.5]]), friendly([[1, 0], [0, 1]]),
              friendly([[1, -1], [0.5, 0.5]]), "2")
    # lesson 05: two SGD steps
    sgd_two("sgd-a", draw(3, 2), draw(2, 2), draw(3, 2), "0.1", ("previous_gradient",))
    sgd_two("sgd-b", friendly([[1, 2], [0.5, -1], [2, 1]]), friendly([[0.5, 0], [-1, 1]]), friendly([[1, 0], [0, 1], [1, 1]]), "0.2")
    # the timing target: a two-layer network with 2×3 matrices and a batch of 3
    mlp_mse("mlp-h", draw(3, 3), draw(2, 3), draw(2), draw(1, 2), draw(1), draw(3, 1))
    mlp_ce("cls-h", draw(3, 3), draw(2, 3), draw(2), draw(3, 2), draw(3), ints(2, 0, 1))


# ------------------------------------------------------------ write
def toml_given(name, a) -> str:
    return f"{name} = {toml_value(a) if isinstance(a, np.ndarray) else a}"


def tensor_text(e) -> str:
    lines = ["[[exercise]]", f'id = "{e["id"]}"', f'title = "{e["title"]}"', 'recipe = "formulas"', "",
             "[exercise.given]"]
    lines += [toml_given(n, a) for n, a in e["given"].items()]
    lines += ["", "[exercise.define]"] + [f'{n} = "{f}"' for n, f in e["define"]]
    lines += ["", "[exercise.claims]"] + [f"{q} = {nested_claim(c['claimed'])}" for q, c in e["claims"].items()]
    return "\n".join(lines) + "\n"


def scalar_text(e) -> tuple[str, dict]:
    sc: Scalar = e["scalar"]
    claims, names = [], {}
    for q, c in e["claims"].items():
        if e["entries"][q] is None:
            names[q] = []
            continue
        ent = np.asarray(e["entries"][q], dtype=object)
        vals = np.asarray(c["claimed"], dtype=object)
        names[q] = ent.ravel().tolist()
        for n, v in zip(ent.ravel(), vals.ravel() if vals.ndim else [vals[()]]):
            claims.append(f'{n} = "{v}"')
    lines = ["[[exercise]]", f'id = "{e["id"]}"', f'title = "{e["title"]} (entry by entry)"', 'recipe = "formulas"', "",
             "[exercise.given]"] + sc.given + ["", "[exercise.define]"] + sc.define + ["", "[exercise.claims]"] + claims
    return "\n".join(lines) + "\n", names


def render() -> tuple[dict[str, str], dict]:
    """The three files' texts (name -> text) and the expected table, built from the seed: the
    same on every run (the bank's test compares them with the files)."""
    global GEN
    GEN = torch.Generator().manual_seed(35)
    EX.clear()
    build()
    head = ("# Tensor bank lessons07 (issue 35): written by reference.py, which computes every value\n"
            "# (torch float64 autograd and Fractions). Do not edit by hand.\n\n")
    parts = [tensor_text(e) for e in EX]
    sparts, smap = [], {}
    for e in EX:
        text, names = scalar_text(e)
        sparts.append(text)
        smap[e["id"]] = names

    def want(e, q, c):
        out = {"status": c["status"], "mistake": c["mistake"], "scalar_entries": smap[e["id"]][q]}
        if c["mistake"]:
            out["right"] = c["right"]
        return out

    expected = {e["id"]: {"title": e["title"], "lines": len(tensor_text(e).splitlines()),
                          "scalar_lines": len(scalar_text(e)[0].splitlines()),
                          "claims": {q: want(e, q, c) for q, c in e["claims"].items()}} for e in EX}
    files = {"exercises.toml": head + "\n".join(parts),
             "scalar.toml": head.replace("lessons07 (issue 35)", "lessons07 entry by entry (issue 35)") + "\n".join(sparts),
             "expected.json": json.dumps({"exercises": expected}, indent=1, ensure_ascii=False) + "\n"}
    return files, expected


def main():
    files, expected = render()
    for name, text in files.items():
        (HERE / name).write_text(text)
    n_claims = sum(len(v["claims"]) for v in expected.values())
    wrong = [(eid, q, c["mistake"]) for eid, v in expected.items() for q, c in v["claims"].items() if c["mistake"]]
    lines = [v["lines"] for v in expected.values()]
    slines = [v["scalar_lines"] for v in expected.values()]
    print(f"{len(expected)} exercises, {n_claims} claims, {len(wrong)} planted wrong in "
          f"{len({w[0] for w in wrong})} exercises; mistakes: "
          + ", ".join(f"{m} {sum(1 for w in wrong if w[2] == m)}" for m in sorted({w[2] for w in wrong})))
    print(f"TOML lines per exercise: tensor form {sum(lines) / len(lines):.1f} (min {min(lines)}, max {max(lines)}), "
          f"entry by entry {sum(slines) / len(slines):.1f} (min {min(slines)}, max {max(slines)}); "
          f"ratio {sum(slines) / sum(lines):.2f}")


if __name__ == "__main__":
    main()
