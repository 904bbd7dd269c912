"""The acceptance examples of `recipe = "formulas"` (docs/examples/formulas.toml) against
PyTorch in float64: every quantity each exercise defines, computed by torch's own autograd and
torch.optim, must agree with derive's exact value to 1e-12 relative. The references below are
written from the examples' mathematics, never from derive's output."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import sympy as sp

if os.environ.get("DERIVE_SKIP_TORCH") == "1":
    torch = pytest.importorskip("torch")
else:
    import torch

from derive.exercises.bank import load_file
from derive.exercises.check import answer_key, check_exercise

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples" / "formulas.toml"
REL = 1e-12
f64 = torch.float64


def t(values):
    return torch.tensor(values, dtype=f64)


def param(v):
    return torch.tensor(float(v), dtype=f64, requires_grad=True)


def logistic_bce():
    w, b = param(0.5), param(0.0)
    x, y = t([1.0, 2.0, -1.0]), t([1.0, 0.0, 0.0])
    z = w * x + b
    p = torch.sigmoid(z)
    ell = torch.nn.functional.binary_cross_entropy(p, y, reduction="none")
    loss = ell.mean()
    loss.backward()
    opt = torch.optim.SGD([w, b], lr=0.1)
    gw, gb = w.grad.item(), b.grad.item()
    opt.step()
    return {"z": z.tolist(), "p": p.tolist(), "ell": ell.tolist(), "loss": loss.item(),
            "gradient": gw, "b_gradient": gb, "w_new": w.item(), "b_new": b.item()}


def two_features():
    w1, w2, b = param(0.5), param(-1.0), param(0.25)
    x1, x2, y = t([1.0, 3.0, 0.0]), t([2.0, -1.0, 1.0]), t([1.0, 2.0, -1.0])
    yhat = w1 * x1 + w2 * x2 + b
    loss = torch.nn.functional.mse_loss(yhat, y)
    loss.backward()
    grads = (w1.grad.item(), w2.grad.item(), b.grad.item())
    torch.optim.SGD([w1, w2, b], lr=0.05).step()
    return {"yhat": yhat.tolist(), "loss": loss.item(), "g1": grads[0], "g2": grads[1],
            "gb": grads[2], "w1_new": w1.item(), "w2_new": w2.item(), "b_new": b.item()}


def absolute_error():
    w = param(1.0)
    x, y = t([1.0, 3.0, 2.0]), t([2.0, 2.0, 5.0])
    ell = (w * x - y).abs()
    loss = torch.nn.functional.l1_loss(w * x, y)
    loss.backward()
    g = w.grad.item()
    torch.optim.SGD([w], lr=0.1).step()
    return {"ell": ell.tolist(), "loss": loss.item(), "gradient": g, "w_new": w.item()}


def _steps(make_opt, steps, schedule=None):
    """w on the records (1, 2), (3, 6) under an optimizer; per-step losses, gradients, w."""
    w = param(1.0)
    x, y = t([1.0, 3.0]), t([2.0, 6.0])
    opt = make_opt([w])
    sched = (torch.optim.lr_scheduler.LambdaLR(opt, schedule) if schedule is not None
             else None)
    out = {"loss": [], "g": [], "w": [], "rate": []}
    for _ in range(steps):
        opt.zero_grad()
        out["rate"].append(opt.param_groups[0]["lr"])
        loss = ((w * x - y) ** 2).mean() / (2 if schedule is not None else 1)
        loss.backward()
        out["loss"].append(loss.item())
        out["g"].append(w.grad.item())
        opt.step()
        if sched is not None:
            sched.step()
        out["w"].append(w.item())
    return out, opt, w


def sgd_warmup():
    # LambdaLR multiplies the base rate by f(epoch) with epoch from 0: step t uses f(t − 1)
    out, _, _ = _steps(lambda p: torch.optim.SGD(p, lr=0.1), 3,
                       schedule=lambda e: min(1.0, (e + 1) / 2))
    return out


def rmsprop():
    got, _, _ = _steps(lambda p: torch.optim.RMSprop(p, lr=0.01), 2)
    # RMSprop keeps square_avg, the v_t of the exercise; record it per step by replaying
    v, w2 = [], param(1.0)
    o2 = torch.optim.RMSprop([w2], lr=0.01)
    x, y = t([1.0, 3.0]), t([2.0, 6.0])
    for _ in range(2):
        o2.zero_grad()
        ((w2 * x - y) ** 2).mean().backward()
        o2.step()
        v.append(o2.state[w2]["square_avg"].item())
    del got["rate"]
    return {**got, "v": v}


def adagrad():
    got, _, _ = _steps(lambda p: torch.optim.Adagrad(p, lr=0.01), 2)
    s, w2 = [], param(1.0)
    o2 = torch.optim.Adagrad([w2], lr=0.01)
    x, y = t([1.0, 3.0]), t([2.0, 6.0])
    for _ in range(2):
        o2.zero_grad()
        ((w2 * x - y) ** 2).mean().backward()
        o2.step()
        s.append(o2.state[w2]["sum"].item())
    del got["rate"]
    return {**got, "s": s}


def decay_accumulation():
    w = param(1.0)
    mbs = [(t([1.0, 3.0]), t([2.0, 6.0])), (t([2.0]), t([5.0]))]
    total = sum(len(x) for x, _ in mbs)
    opt = torch.optim.SGD([w], lr=0.1, weight_decay=0.01)
    mb_loss, ell = [], []
    for x, y in mbs:
        per = (w * x - y) ** 2 / 2
        ell += per.tolist()
        loss = per.mean()
        mb_loss.append(loss.item())
        (loss * len(x) / total).backward()  # accumulation weighted by n_k/N (A2)
    accumulated = w.grad.item()
    opt.step()  # SGD adds weight_decay·w to the gradient before the step
    return {"ell": ell, "mb_loss": mb_loss, "accumulated": accumulated,
            "gradient": accumulated + 0.01 * 1.0, "w_new": w.item()}


LAB_X, LAB_Y = [0.5, 1.2, -0.8, 2.0], [3.5, 5.6, -0.4, 8.0]
"""The lab's records, of y = 3x + 2, as the examples write them."""


def _two_parameter_run(make_opt, steps, w0=0.0, b0=0.0, buffers=None):
    """w and b trained together on the lab's records by a torch.optim optimizer, the loss
    F.mse_loss (the mean of squares); per step: the loss, both gradients, the optimizer's
    state, w and b. `buffers` (vw, vb) loads a saved SGD momentum buffer, as
    optimizer.load_state_dict does on resuming."""
    w, b = param(w0), param(b0)
    x, y = t(LAB_X), t(LAB_Y)
    opt = make_opt([w, b])
    if buffers is not None:
        state = opt.state_dict()
        state["state"] = {0: {"momentum_buffer": t(buffers[0])},
                          1: {"momentum_buffer": t(buffers[1])}}
        opt.load_state_dict(state)
    out = {k: [] for k in ("loss", "gw", "gb", "vw", "vb", "mw", "mb", "w", "b")}
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(w * x + b, y)
        loss.backward()
        out["loss"].append(loss.item())
        out["gw"].append(w.grad.item())
        out["gb"].append(b.grad.item())
        opt.step()
        for p, suffix in ((w, "w"), (b, "b")):
            state = opt.state[p]
            if "momentum_buffer" in state:
                out["v" + suffix].append(state["momentum_buffer"].item())
            if "exp_avg" in state:
                out["m" + suffix].append(state["exp_avg"].item())
                out["v" + suffix].append(state["exp_avg_sq"].item())
        out["w"].append(w.item())
        out["b"].append(b.item())
    return {k: v for k, v in out.items() if v}


def lab_momentum():
    return _two_parameter_run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9), 4)


SAVED = {"w": 1.6689308125, "b": 1.124068125, "vw": -20.98361625, "vb": -14.1313625}
"""The lab's state after step 2 as the resumed examples give it (w_2, b_2 and the buffers,
terminating decimals: torch float64 holds them to 1e-16)."""


def lab_resume():
    return _two_parameter_run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9), 3,
                              SAVED["w"], SAVED["b"], buffers=(SAVED["vw"], SAVED["vb"]))


def lab_resume_fresh_buffer():
    # a new optimizer: torch's first step sets the buffer to the gradient (0·μ + g)
    return _two_parameter_run(lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9), 3,
                              SAVED["w"], SAVED["b"])


def lab_adam():
    return _two_parameter_run(lambda p: torch.optim.Adam(p, lr=0.1), 3)


REFERENCES = {
    "logistic-bce": logistic_bce, "two-features": two_features,
    "absolute-error": absolute_error, "sgd-warmup": sgd_warmup, "rmsprop": rmsprop,
    "adagrad": adagrad, "decay-accumulation": decay_accumulation,
    "lab-momentum": lab_momentum, "lab-resume": lab_resume,
    "lab-resume-fresh-buffer": lab_resume_fresh_buffer, "lab-adam": lab_adam,
}


def _close(exact, got, what):
    if isinstance(got, list):
        assert isinstance(exact, list) and len(exact) == len(got), what
        for m, (e, g) in enumerate(zip(exact, got)):
            _close(e, g, f"{what}[{m}]")
        return
    value = float(sp.N(exact, 40))
    assert abs(value - got) <= REL * max(abs(value), 1.0), f"{what}: derive {value!r}, torch {got!r}"


EXERCISES = {ex.id: ex for ex in load_file(EXAMPLES)}


def test_every_example_has_a_reference():
    assert set(EXERCISES) == set(REFERENCES)


@pytest.mark.parametrize("ex_id", sorted(REFERENCES))
def test_formulas_agree_with_torch(ex_id):
    ex = EXERCISES[ex_id]
    key = answer_key(ex)
    reference = REFERENCES[ex_id]()
    compared = 0
    for name, got in reference.items():
        if name in key:
            _close(key[name], got, f"{ex_id}.{name}")
            compared += 1
    assert compared >= 3, f"{ex_id}: only {compared} quantities compared"


@pytest.mark.parametrize("ex_id", sorted(REFERENCES))
def test_examples_claims_hold(ex_id):
    report = check_exercise(EXERCISES[ex_id])
    assert report.ok, [(c.name, c.status, c.claimed) for c in report.claims]
