"""Every registered optimizer on a vector w against torch.optim (CPU, float64): w a
torch.nn.Parameter of shape (d,), b a scalar Parameter, the loss ((X @ w + b − y)²/2).mean();
hypothesis draws each option as tests/test_torch_optimizers.py draws it, d, the records and
the steps; fresh runs, and runs resumed from torch's own `optimizer.state_dict()` after k
steps (its per-parameter tensors read back as the exercise's `state`, a list of d per tensor
of w). derive's exact values agree entry by entry within 1e-9 relative (plus torch's own error
where a step divides by ε alone, as the scalar tests allow)."""

from __future__ import annotations

import copy
import math
import os
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.kernel.exact import certified_decimal
from derive.optimizers import REGISTRY, Optimizer
from derive.recipes import RECIPES
from derive.recipes.base import QuantityUndefined

torch = pytest.importorskip("torch")
from tests import torch_harness as harness  # noqa: E402
from tests.test_torch_optimizers import optimizers, value  # noqa: E402

EXAMPLES = 40 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 6
REL = 1e-9


def _torch(batches, w0, b0, lr, opt, k):
    """torch: k steps, then its state_dict() (and the parameters) as an exercise's state, and
    the remaining steps' values by derive's quantity names; step s on batches[s]."""
    w = torch.nn.Parameter(torch.tensor([float(v) for v in w0]))
    b = torch.nn.Parameter(torch.tensor(float(b0)))
    o = harness.make([w, b], lr, opt)

    def loss():
        X = torch.tensor([[float(v) for v in x] for x, _ in batches[s]])
        y = torch.tensor([float(v) for _, v in batches[s]])
        return (((X @ w + b - y) ** 2) / 2).mean()
    out: dict = {}
    saved = None
    for s in range(len(batches)):
        if s == k:
            saved = ([Fraction(v) for v in w.tolist()], Fraction(b.item()),
                     _from_state_dict(o.state_dict(), opt))
            out = {}
        o.zero_grad()
        loss().backward()
        out.setdefault("gradient_steps", []).append(w.grad.tolist())
        out.setdefault("b_gradient_steps", []).append(b.grad.item())
        o.step()
        for p, prefix in ((w, ""), (b, "b_")):
            for slot in opt.spec.used_slots(opt):
                tensor = o.state[p].get(slot.torch_key)
                if tensor is not None:
                    out.setdefault(prefix + slot.node, []).append(tensor.tolist())
        out.setdefault("w_steps", []).append(w.tolist())
        out.setdefault("b_steps", []).append(b.item())
        with torch.no_grad():
            out.setdefault("loss_steps", []).append(loss().item())
    return saved, out


def _from_state_dict(sd, opt) -> dict:
    """torch's optimizer.state_dict() (parameter 0 is w, 1 is b) as the exercise's `state`:
    w's tensors as lists of exact Fractions of their float64 entries, b's as numbers, the
    step count an int."""
    out = {}
    for index, prefix in ((0, ""), (1, "b_")):
        state = sd["state"].get(index, {})
        if opt.spec.keeps_step and "step" in state:
            out["step"] = int(state["step"].item())
        for slot in opt.spec.used_slots(opt):
            tensor = state.get(slot.torch_key)
            if tensor is None:
                continue
            entries = [Fraction(v) for v in tensor.reshape(-1).tolist()]
            out[prefix + slot.key] = entries if tensor.dim() == 1 else entries[0]
    return out


def _slack(opt, records, w0, b0, lr, steps) -> float:
    """torch's float64 error divided by ε alone (tests/test_torch_optimizers.py `_slack`),
    G the size of the terms w·x + b − y that a gradient sums."""
    eps = dict(opt.options()).get("eps")
    if eps is None:
        return 0.0
    size = max(1.0, *(sum(abs(float(v)) for v in x) * 8 + abs(float(y_)) + 8
                      for x, y_ in records), *(abs(float(v)) for v in w0), abs(float(b0)))
    return steps * float(lr) * 2.0 ** -50 * size / float(eps)


def _agree(exact, got, what, slack):
    if isinstance(got, list):
        assert isinstance(exact, list) and len(exact) == len(got), f"{what}: {exact} {got}"
        for e, (x, y_) in enumerate(zip(exact, got), 1):
            _agree(x, y_, f"{what}[{e}]", slack)
        return
    v = float(certified_decimal(exact, 20))  # certified intervals: sp.N(exact, 30) on an
    # Adam run's nested square roots once took over 10 minutes of evalf's precision retries
    assert abs(v - got) <= REL * max(abs(v), 1.0) + slack, f"{what}: exact {v!r}, torch {got!r}"


def _exact(records):
    return [([sp.Rational(v) for v in x], sp.Rational(y_)) for x, y_ in records]


def check(name, opt, records, w0, b0, lr, steps, k, batches=None):
    """The run on `records` at every step, or on a batch of its own per step (`batches`,
    given to derive as its `batches` from step k + 1 on)."""
    per_step = batches if batches is not None else [records] * steps
    saved, theirs = _torch(per_step, w0, b0, lr, opt, k)
    given_ = {"w": [sp.Rational(v) for v in w0], "b": sp.Rational(b0), "lr": sp.Rational(lr),
              "loss": "half", "optimizer": opt}
    if batches is not None:
        given_["batches"] = [_exact(batch) for batch in batches[k:]]
        records = [r for batch in batches for r in batch]
    else:
        given_.update(records=_exact(records), steps=sp.Integer(steps - k))
    if k:
        w_k, b_k, state = saved
        given_.update(w=[sp.Rational(v) for v in w_k], b=sp.Rational(b_k), state={
            key: v if key == "step" else [sp.Rational(x) for x in v] if isinstance(v, list)
            else sp.Rational(v) for key, v in state.items()})
    assert not RECIPES["optimizer_steps"].check(given_)
    try:
        ours = RECIPES["optimizer_steps"].evaluate(given_)
    except QuantityUndefined:  # torch must have no finite value either
        assert not all(math.isfinite(v) for row in theirs["w_steps"] for v in row), theirs
        return
    slack = _slack(opt, records, w0, b0, lr, steps)
    compared = 0
    for q, values in theirs.items():
        if q in ours:
            for t, got in enumerate(values):
                _agree(ours[q][t], got, f"{name} {opt} {q}[{t + 1}]", slack)
            compared += 1
    assert compared >= 5  # the gradients, w, b, the loss and at least … what torch keeps


def _records(d):
    return st.lists(st.tuples(st.lists(value, min_size=d, max_size=d), value),
                    min_size=1, max_size=2)


@pytest.mark.parametrize("name", list(REGISTRY))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_optimizer_on_a_vector_agrees_with_torch(name, data):
    opt = data.draw(optimizers(name))
    d = data.draw(st.integers(1, 3))
    records = data.draw(_records(d))
    w0 = data.draw(st.lists(value, min_size=d, max_size=d))
    lr = data.draw(st.sampled_from([Fraction(1, 10), Fraction(1, 2)]))
    check(name, opt, records, w0, data.draw(value), lr, data.draw(st.integers(1, 2)), 0)


@pytest.mark.parametrize("name", list(REGISTRY))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_optimizer_on_a_vector_resumes_from_torchs_state_dict(name, data):
    """k steps in torch, its optimizer.state_dict() as the exercise's state (each tensor of w
    a list of d), the next steps compared."""
    opt = data.draw(optimizers(name))
    d = data.draw(st.integers(1, 3))
    records = data.draw(_records(d))
    w0 = data.draw(st.lists(value, min_size=d, max_size=d))
    steps = data.draw(st.integers(2, 3))
    k = data.draw(st.integers(1, steps - 1))
    check(name, opt, records, w0, data.draw(value), Fraction(1, 10), steps, k)


@pytest.mark.parametrize("name", list(REGISTRY))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_optimizer_on_a_vector_with_a_batch_per_step(name, data):
    """A DataLoader's batches, one per step (`batches`), fresh or resumed after step 1."""
    opt = data.draw(optimizers(name))
    d = data.draw(st.integers(1, 3))
    batches = data.draw(st.lists(_records(d), min_size=2, max_size=3))
    w0 = data.draw(st.lists(value, min_size=d, max_size=d))
    k = data.draw(st.integers(0, 1))
    check(name, opt, None, w0, data.draw(value), Fraction(1, 10), len(batches), k, batches)


def test_adam_on_two_entries_resumed_after_two_steps():
    """One example written out: Adam with amsgrad on w = (1, −2), b = 0.5, two records of two
    entries, resumed from torch's state_dict after 2 steps for 2 more."""
    opt = Optimizer.make("adam", amsgrad=True)
    records = [((Fraction(2), Fraction(1)), Fraction(4)),
               ((Fraction(-1), Fraction(3)), Fraction(1))]
    check("adam", opt, records, (Fraction(1), Fraction(-2)), Fraction(1, 2), Fraction(1, 10),
          4, 2)


def test_a_file_resumes_from_torchs_state_dict_written_as_toml(tmp_path):
    """The teacher's path: torch runs Adam on a vector w for 2 steps, its state_dict() is
    written into an exercise file as TOML lists (floats as Python prints them), and the next
    2 steps torch takes are claimed to 6 places: every claim holds."""
    records = [((Fraction(2), Fraction(1)), Fraction(4)),
               ((Fraction(-1), Fraction(3)), Fraction(1))]
    opt = Optimizer.make("adam")
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    b = torch.nn.Parameter(torch.tensor(0.5))
    o = harness.make([w, b], Fraction(1, 10), opt)
    X = torch.tensor([[2.0, 1.0], [-1.0, 3.0]])
    y = torch.tensor([4.0, 1.0])
    later = []
    for s in range(4):
        if s == 2:
            sd = copy.deepcopy(o.state_dict())["state"]  # its tensors are the live ones
            saved_w, saved_b = w.tolist(), b.item()
        o.zero_grad()
        (((X @ w + b - y) ** 2) / 2).mean().backward()
        o.step()
        if s >= 2:
            later.append(w.tolist())

    def toml(v):
        return "[" + ", ".join(repr(x) for x in v) + "]" if isinstance(v, list) else repr(v)
    state = {"step": int(sd[0]["step"].item()), "m": sd[0]["exp_avg"].tolist(),
             "v": sd[0]["exp_avg_sq"].tolist(), "b_m": sd[1]["exp_avg"].item(),
             "b_v": sd[1]["exp_avg_sq"].item()}
    claims = "[" + ", ".join("[" + ", ".join(f"{{ value = {x!r}, places = 6 }}" for x in row)
                             + "]" for row in later) + "]"
    path = tmp_path / "resume.toml"
    path.write_text(
        '[[exercise]]\nid = "r"\nrecipe = "optimizer_steps"\n[exercise.given]\n'
        f"w = {toml(saved_w)}\nb = {saved_b!r}\nlr = 0.1\nsteps = 2\n"
        f"records = {[[list(map(int, x)), int(y_)] for x, y_ in records]}\n"
        'optimizer = { name = "adam" }\n'
        "state = { " + ", ".join(f"{k} = {toml(v)}" for k, v in state.items()) + " }\n"
        f"[exercise.claims]\nw_steps = {claims}\n", encoding="utf-8")
    report = check_exercise(load_file(path)[0])
    assert [c.status for c in report.claims] == ["within"], path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", list(REGISTRY))
def test_eight_entries_the_most_w_may_have(name):
    """d = 8 (schema.MAX_ENTRIES), three records, each optimizer with PyTorch's defaults:
    three steps, the last resumed from torch's state_dict after step 2."""
    w0 = [Fraction((-1) ** e * (e + 1), 4) for e in range(8)]
    records = [(tuple(Fraction((r + e) % 5 - 2, 2) for e in range(8)), Fraction(r + 1))
               for r in range(3)]
    check(name, Optimizer.make(name), records, w0, Fraction(1, 2), Fraction(1, 10), 3, 2)
