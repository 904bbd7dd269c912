"""derive against PyTorch itself (CPU, float64): optimizers, clipping, MSELoss, gradient
accumulation through autograd, and BatchNorm1d. Exact values must agree with torch to 1e-12
relative. `make test` installs torch (the `[torch]` extra); DERIVE_SKIP_TORCH=1 skips these
tests on a machine without it (never in CI)."""

from __future__ import annotations

import os
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

if os.environ.get("DERIVE_SKIP_TORCH") == "1":
    torch = pytest.importorskip("torch")
else:
    import torch

from derive.model import linear, schemes
from derive.model.batchnorm import gamma_gradient
from derive.model.clipping import clip_norm, clip_value
from derive.model.objective import weighted_sum, weights
from derive.optimizers import Optimizer
from derive.recipes import RECIPES
from tests import torch_harness as harness

torch.set_default_dtype(torch.float64)
REL = 1e-12

# dyadic rationals are exact in float64, so torch starts from the same numbers
dyadic = st.integers(-24, 24).map(lambda k: Fraction(k, 8))
rates = st.sampled_from([Fraction(1, 10), Fraction(1, 20), Fraction(1, 4), Fraction(1, 2)])


def R(f: Fraction) -> sp.Rational:
    return sp.Rational(f.numerator, f.denominator)


def agree(exact, got: float, what: str = "") -> None:
    value = float(sp.N(exact, 40))
    assert abs(value - got) <= REL * max(abs(value), 1.0) * (1 if value else 1), (
        f"{what}: exact {exact} ≈ {value!r}, torch {got!r}")


def torch_run(records, w0, b0, lr, opt: Optimizer, steps: int, convention="half"):
    """torch.optim on the lesson's model; returns per-step w, b, gradients and state."""
    w = torch.tensor([float(w0)], requires_grad=True)
    params = [w]
    b = None
    if b0 is not None:
        b = torch.tensor([float(b0)], requires_grad=True)
        params.append(b)
    x = torch.tensor([float(r[0]) for r in records])
    y = torch.tensor([float(r[1]) for r in records])
    o = harness.make(params, lr, opt)
    out = {"w": [], "grad": [], "buffer": [], "m": [], "v": [], "b": []}
    for _ in range(steps):
        o.zero_grad()
        pred = w * x + (b if b is not None else 0)
        err = (pred - y) ** 2
        loss = (err / 2 if convention == "half" else err).mean()
        loss.backward()
        out["grad"].append(w.grad.item())
        o.step()
        out["w"].append(w.item())
        if b is not None:
            out["b"].append(b.item())
        state = o.state[w]
        if "momentum_buffer" in state and state["momentum_buffer"] is not None:
            out["buffer"].append(state["momentum_buffer"].item())
        if "exp_avg" in state:
            out["m"].append(state["exp_avg"].item())
            out["v"].append(state["exp_avg_sq"].item())
    return out


def derive_run(records, w0, b0, lr, opt, steps, convention="half"):
    given = {"w": R(w0), "lr": R(lr), "records": [(R(x), R(y)) for x, y in records],
             "steps": sp.Integer(steps), "b": None if b0 is None else R(b0),
             "loss": convention, "optimizer": opt}
    return RECIPES["optimizer_steps"].evaluate(given)


def compare(records, w0, b0, lr, opt, steps, convention="half"):
    ours = derive_run(records, w0, b0, lr, opt, steps, convention)
    theirs = torch_run(records, w0, b0, lr, opt, steps, convention)
    for t in range(steps):
        agree(ours["gradient_steps"][t], theirs["grad"][t], f"gradient, step {t + 1}")
        agree(ours["w_steps"][t], theirs["w"][t], f"w, step {t + 1}")
        if b0 is not None:
            agree(ours["b_steps"][t], theirs["b"][t], f"b, step {t + 1}")
        if "buffer_steps" in ours:
            agree(ours["buffer_steps"][t], theirs["buffer"][t], f"buffer, step {t + 1}")
        if "m_steps" in ours:
            agree(ours["m_steps"][t], theirs["m"][t], f"m, step {t + 1}")
            agree(ours["v_steps"][t], theirs["v"][t], f"v, step {t + 1}")


records = st.lists(st.tuples(dyadic, dyadic), min_size=1, max_size=3)


@settings(max_examples=60)
@given(records=records, w0=dyadic, b0=st.one_of(st.none(), dyadic), lr=rates,
       momentum=st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(9, 10)]),
       dampening=st.sampled_from([Fraction(0), Fraction(1, 10)]),
       weight_decay=st.sampled_from([Fraction(0), Fraction(1, 100)]),
       nesterov=st.booleans(), maximize=st.booleans(), steps=st.integers(1, 4),
       convention=st.sampled_from(["half", "squared"]))
def test_sgd_matches_torch(records, w0, b0, lr, momentum, dampening, weight_decay, nesterov,
                           maximize, steps, convention):
    if nesterov and (momentum == 0 or dampening != 0):
        nesterov = False  # torch refuses this combination
    opt = Optimizer.make("sgd", momentum=R(momentum), dampening=R(dampening),
                         weight_decay=R(weight_decay), nesterov=nesterov, maximize=maximize)
    compare(records, w0, b0, lr, opt, steps, convention)


@settings(max_examples=30)
@given(records=records, w0=dyadic, lr=rates, name=st.sampled_from(["adam", "adamw"]),
       weight_decay=st.sampled_from([None, Fraction(0), Fraction(1, 10)]),
       betas=st.sampled_from([(Fraction(9, 10), Fraction(999, 1000)),
                              (Fraction(1, 2), Fraction(3, 4))]),
       amsgrad=st.booleans(), maximize=st.booleans(), steps=st.integers(1, 3))
def test_adam_and_adamw_match_torch(records, w0, lr, name, weight_decay, betas, amsgrad,
                                    maximize, steps):
    options = {"betas": (R(betas[0]), R(betas[1])), "amsgrad": amsgrad, "maximize": maximize}
    if weight_decay is not None:
        options["weight_decay"] = R(weight_decay)
    compare(records, w0, None, lr, Optimizer.make(name, **options), steps)


def test_pytorch_defaults_are_the_models():
    adam, adamw = torch.optim.Adam([torch.zeros(1)]), torch.optim.AdamW([torch.zeros(1)])
    sgd = torch.optim.SGD([torch.zeros(1)], lr=0.1)
    for o, name in ((adam, "adam"), (adamw, "adamw"), (sgd, "sgd")):
        ours = Optimizer.make(name)
        group = o.param_groups[0]
        assert float(ours.weight_decay) == group["weight_decay"]
        if name != "sgd":
            assert tuple(float(b) for b in ours.betas) == group["betas"]
            assert float(ours.eps) == group["eps"]
        else:
            assert float(ours.momentum) == group["momentum"]
            assert float(ours.dampening) == group["dampening"]


# --------------------------------------------------------------------------------- clipping

tensors = st.lists(st.lists(dyadic, min_size=1, max_size=3), min_size=1, max_size=3)


@settings(max_examples=80)
@given(grads=tensors, max_norm=st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3)]))
def test_clip_grad_norm_matches_torch(grads, max_norm):
    params = []
    for g in grads:
        p = torch.zeros(len(g), requires_grad=True)
        p.grad = torch.tensor([float(v) for v in g])
        params.append(p)
    total = torch.nn.utils.clip_grad_norm_(params, float(max_norm))
    ours = clip_norm([[R(v) for v in g] for g in grads], R(max_norm), sp.Rational(1, 10**6))
    exact_total = sp.sqrt(sum(R(v) ** 2 for g in grads for v in g))
    agree(exact_total, total.item(), "total norm")
    for p, g in zip(params, ours):
        for got, want in zip(p.grad.tolist(), g):
            agree(want, got, "clipped entry")


@settings(max_examples=60)
@given(grads=tensors, clip=st.sampled_from([Fraction(1, 4), Fraction(1), Fraction(2)]))
def test_clip_grad_value_matches_torch(grads, clip):
    params = []
    for g in grads:
        p = torch.zeros(len(g), requires_grad=True)
        p.grad = torch.tensor([float(v) for v in g])
        params.append(p)
    torch.nn.utils.clip_grad_value_(params, float(clip))
    for p, g in zip(params, grads):
        for got, want in zip(p.grad.tolist(), clip_value([R(v) for v in g], R(clip))):
            agree(want, got, "clipped value")


def test_the_courses_one_stays_one_becomes_0_999999():
    """The reading's 'average then clip stays 1' is 0.999999000001 under torch's 1e-6."""
    p = torch.zeros(1, requires_grad=True)
    p.grad = torch.tensor([1.0])
    torch.nn.utils.clip_grad_norm_([p], 1.0)
    exact = clip_norm(sp.Integer(1), sp.Integer(1), sp.Rational(1, 10**6))
    assert exact == sp.Rational(1000000, 1000001)
    agree(exact, p.grad.item())


# ------------------------------------------------------------------- losses and accumulation

@settings(max_examples=60)
@given(recs=records, w0=dyadic)
def test_mse_loss_gradient_is_the_squared_convention(recs, w0):
    w = torch.tensor([float(w0)], requires_grad=True)
    x = torch.tensor([float(r[0]) for r in recs])
    y = torch.tensor([float(r[1]) for r in recs])
    torch.nn.MSELoss()(w * x, y).backward()
    exact = schemes.batch_gradient([[(R(a), R(b)) for a, b in recs]], R(w0), linear.SQUARED)
    agree(exact, w.grad.item(), "MSELoss gradient")
    agree(2 * schemes.batch_gradient([[(R(a), R(b)) for a, b in recs]], R(w0)), w.grad.item())


def autograd_accumulate(mbs, w0, lr, scale):
    """Each microbatch's mean loss times scale(k), .grad accumulated, one SGD step."""
    w = torch.tensor([float(w0)], requires_grad=True)
    opt = torch.optim.SGD([w], lr=float(lr))
    opt.zero_grad()
    for k, mb in enumerate(mbs):
        x = torch.tensor([float(a) for a, _ in mb])
        y = torch.tensor([float(b) for _, b in mb])
        (((w * x - y) ** 2 / 2).mean() * scale(k)).backward()
    grad = w.grad.item()
    opt.step()
    return grad, w.item()


THREE = [[(1, 0), (2, 0)], [(3, 0)]]


def test_accumulation_through_autograd_reproduces_the_reading():
    sizes = [len(mb) for mb in THREE]
    n = sum(sizes)
    grad, w_new = autograd_accumulate(THREE, 1, 0.1, lambda k: sizes[k] / n)
    agree(sp.Rational(14, 3), grad, "A2 through autograd")
    agree(sp.Rational(8, 15), w_new, "A3 through autograd")
    grad, w_new = autograd_accumulate(THREE, 1, 0.1, lambda k: 1 / len(THREE))
    agree(sp.Rational(23, 4), grad, "the 1/K scaling gives 5.75")
    agree(sp.Rational(17, 40), w_new, "and 0.425")


@settings(max_examples=60)
@given(sizes=st.lists(st.integers(1, 4), min_size=1, max_size=4), w0=dyadic, data=st.data())
def test_accumulation_through_autograd_is_A2(sizes, w0, data):
    mbs = [[(data.draw(dyadic), data.draw(dyadic)) for _ in range(n)] for n in sizes]
    exact_mbs = [[(R(a), R(b)) for a, b in mb] for mb in mbs]
    n = sum(sizes)
    grad, w_new = autograd_accumulate(mbs, w0, Fraction(1, 10), lambda k: sizes[k] / n)
    exact = schemes.accumulated_gradient(sizes, schemes.mean_gradients(exact_mbs, R(w0)))
    agree(exact, grad)
    agree(R(w0) - sp.Rational(1, 10) * exact, w_new)


def test_micro_steps_through_torch():
    w = torch.tensor([1.0], requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    seen = []
    for mb in THREE:
        opt.zero_grad()
        x = torch.tensor([float(a) for a, _ in mb])
        y = torch.tensor([float(b) for _, b in mb])
        ((w * x - y) ** 2 / 2).mean().backward()
        opt.step()
        seen.append(w.item())
    for want, got in zip(schemes.micro_steps(
            [[(sp.Integer(a), sp.Integer(b)) for a, b in mb] for mb in THREE], 1,
            sp.Rational(1, 10)), seen):
        agree(want, got, "per-microbatch steps 0.75, 0.075")


# ------------------------------------------------------------------------------- BatchNorm

def torch_bn_gamma_grad(batches, ts, gamma, beta, eps, scales):
    bn = torch.nn.BatchNorm1d(1, eps=float(eps))
    bn.train()
    with torch.no_grad():
        bn.weight.fill_(float(gamma))
        bn.bias.fill_(float(beta))
    for xs, tt, s in zip(batches, ts, scales):
        out = bn(torch.tensor([[float(x)] for x in xs])).squeeze(1)
        ((out - torch.tensor([float(t) for t in tt])) ** 2 / 2).mean().mul(s).backward()
    return bn.weight.grad.item()


@settings(max_examples=40)
@given(sizes=st.lists(st.integers(2, 3), min_size=1, max_size=3), gamma=dyadic, beta=dyadic,
       data=st.data())
def test_batchnorm_gamma_gradient_matches_torch(sizes, gamma, beta, data):
    xs = [[data.draw(dyadic) for _ in range(n)] for n in sizes]
    ts = [[data.draw(dyadic) for _ in range(n)] for n in sizes]
    eps = Fraction(1, 4)
    n = sum(sizes)
    ours = weighted_sum(weights(sizes), [
        gamma_gradient([R(v) for v in x], [R(v) for v in t], R(gamma), R(beta), R(eps))
        for x, t in zip(xs, ts)])
    agree(ours, torch_bn_gamma_grad(xs, ts, gamma, beta, eps, [k / n for k in sizes]),
          "per-microbatch statistics")
    flat_x, flat_t = [v for x in xs for v in x], [v for t in ts for v in t]
    full = gamma_gradient([R(v) for v in flat_x], [R(v) for v in flat_t], R(gamma), R(beta),
                          R(eps))
    agree(full, torch_bn_gamma_grad([flat_x], [flat_t], gamma, beta, eps, [1]),
          "full-batch statistics")


def test_batchnorm_witness_in_torch():
    """The kernel's witness: x = (0, 0 | 0, 1), t = 0, γ = 1, β = 0, ε = 1 gives 1/10 with
    statistics per microbatch and 3/19 with the whole batch's, in torch too."""
    agree(sp.Rational(1, 10), torch_bn_gamma_grad([[0, 0], [0, 1]], [[0, 0], [0, 0]], 1, 0, 1,
                                                  [0.5, 0.5]))
    agree(sp.Rational(3, 19), torch_bn_gamma_grad([[0, 0, 0, 1]], [[0, 0, 0, 0]], 1, 0, 1, [1]))


def test_batchnorm_refuses_a_batch_of_one():
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        torch_bn_gamma_grad([[0]], [[0]], 1, 0, 1, [1])


def test_held_out_torch_cases_check_and_are_torchs_own():
    """tests/data/torch_cases.toml: claims computed by torch; derive accepts each within
    1e-12, and regenerating the file with this torch gives the same text."""
    import contextlib
    import io
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "tests"))
    import make_torch_cases

    assert make_torch_cases.render() == (root / "tests" / "data" /
                                                "torch_cases.toml").read_text(encoding="utf-8")
    from derive.cli.main import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["check", str(root / "tests" / "data" / "torch_cases.toml")])
    assert code == 0, out.getvalue()
    assert "0 wrong" in out.getvalue()


def _torch_params(grads):
    params = []
    for g in grads:
        p = torch.zeros(len(g), requires_grad=True)
        p.grad = torch.tensor([float(v) for v in g])
        params.append(p)
    return params


def _clipping(grads, **kw):
    clip = RECIPES["clipping"]
    given = {i.name: None for i in clip.inputs}
    given.update(gradients=[[[R(v) for v in g] for g in grads]], **kw)
    assert clip.check(given) == []
    return clip.evaluate(given)["mean_then_clip"]


@settings(max_examples=60)
@given(grads=tensors, max_norm=st.sampled_from([Fraction(0), Fraction(-1, 2), Fraction(-1),
                                                Fraction(-3)]))
def test_clip_grad_norm_zero_and_negative_max_norm_match_torch(grads, max_norm):
    """max_norm = 0 zeroes every gradient; a negative one flips their sign (torch's factor
    c/(‖g‖ + 1e-6) is negative and the clamp at 1 leaves it), through the recipe itself."""
    params = _torch_params(grads)
    torch.nn.utils.clip_grad_norm_(params, float(max_norm))
    ours = _clipping(grads, max_norm=R(max_norm), eps=sp.Rational(1, 10**6))
    for p, g, before in zip(params, ours, grads):
        for got, want, v in zip(p.grad.tolist(), g, before):
            agree(want, got, "clipped entry")
            assert sp.sign(want) == (-sp.sign(R(v)) if max_norm < 0 else 0)


@settings(max_examples=40)
@given(grads=tensors)
def test_clip_grad_value_zero_matches_torch(grads):
    """clip_grad_value_(0): every gradient becomes 0."""
    params = _torch_params(grads)
    torch.nn.utils.clip_grad_value_(params, 0.0)
    ours = _clipping(grads, clip_value=sp.Integer(0))
    for p, g in zip(params, ours):
        for got, want in zip(p.grad.tolist(), g):
            assert want == 0
            agree(want, got, "clipped value")


@settings(max_examples=40, deadline=None)
@given(grads=tensors, norm_type=st.sampled_from([Fraction(1), Fraction(3), Fraction(3, 2),
                                                  Fraction(1, 2)]),
       max_norm=st.sampled_from([Fraction(1, 2), Fraction(2), Fraction(-1)]))
def test_clip_grad_norm_p_norms_match_torch(grads, norm_type, max_norm):
    """norm_type p: one norm (Σ|g|^p)^(1/p) over all tensors, then torch's factor."""
    params = _torch_params(grads)
    torch.nn.utils.clip_grad_norm_(params, float(max_norm), norm_type=float(norm_type))
    ours = _clipping(grads, max_norm=R(max_norm), eps=sp.Rational(1, 10**6),
                     norm_type=R(norm_type))
    for p, g in zip(params, ours):
        for got, want in zip(p.grad.tolist(), g):
            agree(want, got, "clipped entry")


@settings(max_examples=40, deadline=None)
@given(grads=tensors, max_norm=st.sampled_from([Fraction(1, 2), Fraction(2), Fraction(0),
                                                Fraction(-1)]))
def test_clip_grad_norm_inf_matches_torch(grads, max_norm):
    """norm_type inf: the norm is max |g| over all entries of all tensors."""
    params = _torch_params(grads)
    total = torch.nn.utils.clip_grad_norm_(params, float(max_norm), norm_type=float("inf"))
    agree(max(abs(R(v)) for g in grads for v in g), total.item(), "total norm")
    ours = _clipping(grads, max_norm=R(max_norm), eps=sp.Rational(1, 10**6), norm_type=sp.oo)
    for p, g in zip(params, ours):
        for got, want in zip(p.grad.tolist(), g):
            agree(want, got, "clipped entry")
