"""The examples of docs/examples/functions.toml against PyTorch in float64: every quantity they
define, computed by torch's own functions, autograd, losses and schedulers, agrees with
derive's exact value to 1e-12 relative — at ReLU's kink, on Huber's corner, at a zero L1
residual and on clamp's bound too. The references are written from the examples' mathematics,
never from derive's output."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

if os.environ.get("DERIVE_SKIP_TORCH") == "1":
    torch = pytest.importorskip("torch")
else:
    import torch

from derive.exercises.bank import load_file
from derive.exercises.check import answer_key, check_exercise
from derive.kernel import intervals

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples" / "functions.toml"
REL = 1e-12
F = torch.nn.functional


def t(values):
    return torch.tensor(values, dtype=torch.float64)


def param(v):
    return torch.tensor(float(v), dtype=torch.float64, requires_grad=True)


def _sgd(params, lr):
    grads = [p.grad.item() for p in params]
    torch.optim.SGD(params, lr=lr).step()
    return grads, [p.item() for p in params]


def relu_kink():
    w, b = param(0.8), param(-0.4)
    x, y = t([0.5, 1.5, -2.0, 2.5]), t([0.3, 1.1, -0.2, 1.4])
    z = w * x + b
    yhat = torch.relu(z)
    loss = ((yhat - y) ** 2 / 2).mean()
    loss.backward()
    (gw, gb), (w_new, b_new) = _sgd([w, b], 0.1)
    return {"z": z.tolist(), "yhat": yhat.tolist(), "loss": loss.item(), "gw": gw, "gb": gb,
            "w_new": w_new, "b_new": b_new}


def huber_step():
    w = param(0.5)
    x, y = t([1.0, 2.0, 4.0, -1.0]), t([2.5, 1.5, 1.0, 0.5])
    r = (w * x - y).tolist()
    ell = F.huber_loss(w * x, y, delta=1.0, reduction="none")
    loss = F.huber_loss(w * x, y, delta=1.0)
    loss.backward()
    (g,), (w_new,) = _sgd([w], 0.1)
    return {"r": r, "ell": ell.tolist(), "loss": loss.item(),
            "gradient": g, "w_new": w_new}


def l1_zero_residual():
    w = param(1.5)
    x, y = t([2.0, 1.0, -1.0]), t([3.0, 2.0, -3.0])
    ell = (w * x - y).abs()
    loss = F.l1_loss(w * x, y)
    loss.backward()
    (g,), (w_new,) = _sgd([w], 0.1)
    return {"ell": ell.tolist(), "loss": loss.item(), "gradient": g, "w_new": w_new}


def clamp_bound():
    w = param(0.5)
    x, y = t([2.0, 4.0, -1.0]), t([0.8, 1.2, -0.1])
    yhat = torch.clamp(w * x, -1.0, 1.0)
    loss = ((yhat - y) ** 2 / 2).mean()
    loss.backward()
    (g,), (w_new,) = _sgd([w], 0.3)
    return {"yhat": yhat.tolist(), "loss": loss.item(), "gradient": g, "w_new": w_new}


def cosine_schedule():
    w = param(0.0)
    x, y = t([1.0, 2.0]), t([2.0, 3.0])
    opt = torch.optim.SGD([w], lr=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)
    out = {"rate": [], "loss": [], "g": [], "w": []}
    for _ in range(4):
        opt.zero_grad()
        out["rate"].append(opt.param_groups[0]["lr"])
        loss = ((w * x - y) ** 2 / 2).mean()
        loss.backward()
        out["loss"].append(loss.item())
        out["g"].append(w.grad.item())
        opt.step()
        sched.step()
        out["w"].append(w.item())
    return out


def logistic_softplus():
    w, b = param(0.5), param(-0.25)
    x, y = t([1.0, -2.0, 0.5]), t([1.0, -1.0, -1.0])
    z = w * x + b
    ell = F.softplus(-y * z)
    loss = ell.mean()
    loss.backward()
    (gw, gb), (w_new, b_new) = _sgd([w, b], 0.5)
    return {"z": z.tolist(), "p": torch.sigmoid(z).tolist(), "ell": ell.tolist(),
            "loss": loss.item(), "gw": gw, "gb": gb, "w_new": w_new, "b_new": b_new}


def tanh_unit():
    w, b = param(0.3), param(0.1)
    x, y = t([1.0, -1.0, 2.0]), t([0.5, -0.2, 0.7])
    yhat = torch.tanh(w * x + b)
    loss = ((yhat - y) ** 2 / 2).mean()
    loss.backward()
    (gw, gb), (w_new, b_new) = _sgd([w, b], 0.2)
    return {"yhat": yhat.tolist(), "loss": loss.item(), "gw": gw, "gb": gb, "w_new": w_new,
            "b_new": b_new}


REFERENCES = {
    "relu-kink": relu_kink, "huber-step": huber_step, "l1-zero-residual": l1_zero_residual,
    "clamp-bound": clamp_bound, "cosine-schedule": cosine_schedule,
    "logistic-softplus": logistic_softplus, "tanh-unit": tanh_unit,
}


def _float(v) -> float:
    e = sp.sympify(v) if isinstance(v, int) else v
    return float(e if e.is_Rational else intervals.round_sig(e, 25))


def _close(exact, got, what):
    if isinstance(got, list):
        assert isinstance(exact, list) and len(exact) == len(got), what
        for m, (e, g) in enumerate(zip(exact, got)):
            _close(e, g, f"{what}[{m}]")
        return
    value = _float(exact)
    assert abs(value - got) <= REL * max(abs(value), 1.0), f"{what}: derive {value!r}, torch {got!r}"


EXERCISES = {ex.id: ex for ex in load_file(EXAMPLES)}


def test_every_example_has_a_reference():
    assert set(EXERCISES) == set(REFERENCES)


@pytest.mark.parametrize("ex_id", sorted(REFERENCES))
def test_functions_agree_with_torch(ex_id):
    key = answer_key(EXERCISES[ex_id])
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


# ------------------------------------------------------------------ the self-check page

def _page_data(tmp_path):
    from derive.cli.main import main
    out = tmp_path / "page.html"
    assert main(["export", str(EXAMPLES), "--format", "html", "-o", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    start = html.index('id="derive-data">') + len('id="derive-data">')
    return json.loads(html[start:html.index("</script>", start)])


def _rational_tree(form) -> bool:
    if isinstance(form, list) and form and isinstance(form[0], list):  # a list's elements
        return all(_rational_tree(f) for f in form)
    op = form[0]
    if op in ("n", "a"):
        return True
    return op in ("+", "*", "^", "s") and all(_rational_tree(a) for a in form[1:]
                                              if isinstance(a, list))


def _inside(value: dict, got: float) -> bool:
    if "q" in value:
        exact = Fraction(value["q"])
        return abs(float(exact) - got) <= REL * max(abs(got), 1.0)
    lo, hi = Fraction(value["lo"]), Fraction(value["hi"])
    slack = REL * max(abs(got), 1.0)
    return float(lo) - slack <= got <= float(hi) + slack


def test_the_page_holds_torch_s_values_and_only_exact_forms(tmp_path):
    """Every value the page judges with is exact or a certified enclosure holding torch's
    value; every carried-forward form is a tree of sums, products, powers and square roots the
    script evaluates (a form through sin, sigmoid or a kink's side is left out)."""
    data = _page_data(tmp_path)
    questions = {}
    for variant in data["variants"]:
        questions.update(variant["questions"])
    by_exercise = {ex_id: REFERENCES[ex_id]() for ex_id in REFERENCES}
    order = [e.id for e in load_file(EXAMPLES)]
    checked = 0
    for key, q in questions.items():
        ex_id = order[int(key.split("-")[1][1:])]
        carried = q["carried"]
        for form in [*carried["single"].values(), carried["all"]]:
            if form not in (None, "static"):
                assert _rational_tree(form), (key, form)
        got = by_exercise[ex_id].get(q["name"])
        if got is None:
            continue
        values = q["value"] if isinstance(q["value"], list) else [q["value"]]
        gots = got if isinstance(got, list) else [got]
        assert all(_inside(v, g) for v, g in zip(values, gots)), (ex_id, q["name"])
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("ex_id,name,answer,status", [
    ("logistic-softplus", "w_new", "0.605537", "right"),
    ("logistic-softplus", "w_new", "0.605637", "wrong"),
    ("tanh-unit", "gw", "-0.075549", "right"),
    ("relu-kink", "gw", "0.0125", "right"),
    ("relu-kink", "gw", "-0.025", "wrong"),  # relu′(0) taken as 1
])
def test_the_page_script_judges_answers(tmp_path, ex_id, name, answer, status):
    from test_page_js import WORDS, js
    data = _page_data(tmp_path)
    order = [e.id for e in load_file(EXAMPLES)]
    prefix = f"v0-e{order.index(ex_id)}-"
    q = next(q for k, q in data["variants"][0]["questions"].items()
             if k.startswith(prefix) and q["name"] == name)
    got = json.loads(js("T_classify", answer, json.dumps(q), json.dumps({}),
                        json.dumps(WORDS)))
    assert got[0] == status
