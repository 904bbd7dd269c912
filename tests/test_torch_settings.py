"""Optimizer settings torch 2.13 accepts at their edges, against torch itself in float64:
`lr = 0`, Adam/AdamW `eps = 0`, Adam's `decoupled_weight_decay`, SGD's unchecked `dampening`
(negative, or above 1); and the settings torch refuses, refused by derive with torch's reason.

Expected values are torch's own (float64, compared to 1e-12 relative); refusals are checked on
both sides: torch raises, derive says one line naming the key.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
import sympy as sp

torch = pytest.importorskip("torch")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from derive.exercises import check_exercise  # noqa: E402
from derive.exercises.errors import ExerciseError  # noqa: E402
from derive.exercises.schema import exercise  # noqa: E402
from derive.optimizers import REGISTRY  # noqa: E402
from derive.recipes import RECIPES  # noqa: E402

torch.set_default_dtype(torch.float64)
REL = 1e-12

dyadic = st.integers(-24, 24).map(lambda k: Fraction(k, 8))
records = st.lists(st.tuples(dyadic, dyadic), min_size=1, max_size=3)
rates = st.sampled_from([Fraction(0), Fraction(1, 10), Fraction(1, 4)])


def R(f) -> sp.Rational:
    f = Fraction(f)
    return sp.Rational(f.numerator, f.denominator)


def agree(exact, got: float, what: str) -> None:
    value = float(sp.N(exact, 40))
    assert abs(value - got) <= REL * max(abs(value), 1.0), f"{what}: exact {exact}, torch {got!r}"


def torch_optimizer(params, name: str, lr, options: dict):
    """torch.optim's class for `name` (the registry's), built from plain floats and bools, so
    that settings derive refuses reach torch as written."""
    kw = {k: (tuple(float(b) for b in v) if k == "betas" else
              v if isinstance(v, bool) else float(v)) for k, v in options.items()}
    cls = getattr(torch.optim, REGISTRY[name].torch_class)
    return cls(params, lr=float(lr), **kw)


def torch_run(recs, w0, b0, lr, name, options, steps):
    """w, b after each step, and w's gradient and state, from torch in float64."""
    w = torch.tensor([float(w0)], requires_grad=True)
    b = torch.tensor([float(b0)], requires_grad=True)
    o = torch_optimizer([w, b], name, lr, options)
    x = torch.tensor([float(r[0]) for r in recs])
    y = torch.tensor([float(r[1]) for r in recs])
    out = {"w": [], "b": [], "grad": [], "m": [], "v": [], "buffer": []}
    for _ in range(steps):
        o.zero_grad()
        (((w * x + b - y) ** 2) / 2).mean().backward()
        out["grad"].append(w.grad.item())
        o.step()
        out["w"].append(w.item())
        out["b"].append(b.item())
        state = o.state[w]
        if state.get("momentum_buffer") is not None:
            out["buffer"].append(state["momentum_buffer"].item())
        if "exp_avg" in state:
            out["m"].append(state["exp_avg"].item())
            out["v"].append(state["exp_avg_sq"].item())
    return out


def text(f) -> str:
    """A finite decimal as an exercise file writes it (every number here is one)."""
    d = Decimal(Fraction(f).numerator) / Decimal(Fraction(f).denominator)
    assert Fraction(d) == Fraction(f)
    return str(d)


def derive_run(recs, w0, b0, lr, name, options, steps):
    """derive's values for the same run, read through the exercise schema as a file is."""
    opts = {k: ([text(b) for b in v] if k == "betas" else
                v if isinstance(v, bool) else text(v)) for k, v in options.items()}
    ex = exercise({"id": "run", "recipe": "optimizer_steps",
                   "given": {"w": text(w0), "b": text(b0), "lr": text(lr), "steps": steps,
                             "records": [[text(x), text(y)] for x, y in recs],
                             "optimizer": {"name": name, **opts}},
                   "claims": {"w_steps": ["0"] * steps}}, "run.toml", 0)
    return RECIPES["optimizer_steps"].evaluate(ex.given)


def compare(recs, w0, b0, lr, name, options, steps):
    theirs = torch_run(recs, w0, b0, lr, name, options, steps)
    ours = derive_run(recs, w0, b0, lr, name, options, steps)
    for t in range(steps):
        agree(ours["gradient_steps"][t], theirs["grad"][t], f"gradient, step {t + 1}")
        agree(ours["w_steps"][t], theirs["w"][t], f"w, step {t + 1}")
        agree(ours["b_steps"][t], theirs["b"][t], f"b, step {t + 1}")
        if "buffer_steps" in ours:
            agree(ours["buffer_steps"][t], theirs["buffer"][t], f"buffer, step {t + 1}")
        if "m_steps" in ours:
            agree(ours["m_steps"][t], theirs["m"][t], f"m, step {t + 1}")
            agree(ours["v_steps"][t], theirs["v"][t], f"v, step {t + 1}")
    return ours


nonzero = dyadic.filter(lambda v: v != 0)


@settings(max_examples=25, deadline=None)
@given(recs=records, w0=dyadic, b0=dyadic, name=st.sampled_from(["sgd", "adam", "adamw"]),
       steps=st.integers(1, 3))
def test_lr_zero_moves_nothing_but_the_state(recs, w0, b0, name, steps):
    options = {"momentum": Fraction(9, 10)} if name == "sgd" else {}
    ours = compare(recs, w0, b0, 0, name, options, steps)
    if name == "adamw":  # with lr = 0 even the decoupled decay θ·(1 − η·λ) keeps θ
        assert ours["w_steps"] == [R(w0)] * steps


@settings(max_examples=25, deadline=None)
@given(x=nonzero, y=dyadic, w0=dyadic, b0=dyadic, lr=rates,
       name=st.sampled_from(["adam", "adamw"]), amsgrad=st.booleans(), steps=st.integers(1, 3))
def test_adam_eps_zero_matches_torch(x, y, w0, b0, lr, name, amsgrad, steps):
    # one record and a nonzero gradient at step 1 keep v_t > 0 at every step
    if (w0 * x + b0 - y) == 0:
        w0 += 1
    compare([(x, y)], w0, b0, lr, name, {"eps": 0, "amsgrad": amsgrad}, steps)


@settings(max_examples=25, deadline=None)
@given(recs=records, w0=dyadic, b0=dyadic, lr=rates,
       weight_decay=st.sampled_from([Fraction(0), Fraction(1, 10), Fraction(1, 2)]),
       amsgrad=st.booleans(), maximize=st.booleans(), steps=st.integers(1, 3))
def test_adam_decoupled_weight_decay_matches_torch_and_adamw(recs, w0, b0, lr, weight_decay,
                                                             amsgrad, maximize, steps):
    options = {"weight_decay": weight_decay, "amsgrad": amsgrad, "maximize": maximize}
    ours = compare(recs, w0, b0, lr, "adam", {**options, "decoupled_weight_decay": True}, steps)
    adamw = derive_run(recs, w0, b0, lr, "adamw", options, steps)
    assert ours["w_steps"] == adamw["w_steps"] and ours["b_steps"] == adamw["b_steps"]


@settings(max_examples=25, deadline=None)
@given(recs=records, w0=dyadic, b0=dyadic, lr=rates,
       dampening=st.sampled_from([Fraction(-1, 2), Fraction(1), Fraction(3, 2)]),
       steps=st.integers(1, 4))
def test_sgd_dampening_torch_does_not_check(recs, w0, b0, lr, dampening, steps):
    compare(recs, w0, b0, lr, "sgd", {"momentum": Fraction(9, 10), "dampening": dampening},
            steps)


def _file_exercise(optimizer: dict, lr="0.1", w="3", records=(("2", "4"),)):
    return exercise({"id": "edge", "recipe": "optimizer_steps",
                     "given": {"w": w, "lr": lr, "steps": 2, "records": [list(r) for r in
                                                                          records],
                               "optimizer": optimizer},
                     "claims": {"w_steps": ["0", "0"]}}, "edge.toml", 0)


def test_adam_eps_zero_at_a_zero_gradient_is_torchs_nan_and_derive_says_why():
    # w = 2 fits (2, 4) exactly: g_1 = 0, so m̂_1/√v̂_1 is 0/0
    w = torch.tensor([2.0], requires_grad=True)
    o = torch.optim.Adam([w], lr=0.1, eps=0.0)
    ((w * 2 - 4) ** 2 / 2).mean().backward()
    o.step()
    assert torch.isnan(w).all()
    with pytest.raises(ExerciseError) as info:
        check_exercise(_file_exercise({"name": "adam", "eps": 0}, w="2"))
    text = str(info.value)
    assert "given.optimizer.eps" in text and "nan" in text and "eps > 0" in text


REFUSED = [
    # (derive's optimizer table, lr, what torch does, the key derive names)
    ({"name": "sgd"}, "-0.1", lambda p: torch.optim.SGD(p, lr=-0.1), "given.lr"),
    ({"name": "adam", "eps": "-1e-8"}, "0.1",
     lambda p: torch.optim.Adam(p, lr=0.1, eps=-1e-8), "given.optimizer.eps"),
    ({"name": "adam", "betas": ["1", "0.999"]}, "0.1",
     lambda p: torch.optim.Adam(p, lr=0.1, betas=(1.0, 0.999)), "given.optimizer.betas"),
    ({"name": "sgd", "momentum": "-0.5"}, "0.1",
     lambda p: torch.optim.SGD(p, lr=0.1, momentum=-0.5), "given.optimizer.momentum"),
    ({"name": "sgd", "weight_decay": "-0.5"}, "0.1",
     lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=-0.5), "given.optimizer.weight_decay"),
    ({"name": "sgd", "nesterov": True}, "0.1",
     lambda p: torch.optim.SGD(p, lr=0.1, nesterov=True), "given.optimizer.nesterov"),
    ({"name": "adamw", "decoupled_weight_decay": True}, "0.1",
     lambda p: torch.optim.AdamW(p, lr=0.1, decoupled_weight_decay=True),
     "given.optimizer.decoupled_weight_decay"),
]


@pytest.mark.parametrize("optimizer,lr,make,key", REFUSED, ids=[k for *_, k in REFUSED])
def test_what_torch_refuses_derive_refuses(optimizer, lr, make, key):
    with pytest.raises((ValueError, TypeError)):
        make([torch.zeros(1, requires_grad=True)])
    with pytest.raises(ExerciseError) as info:
        _file_exercise(optimizer, lr=lr)
    assert f"'{key}'" in str(info.value)


def test_adam_eps_zero_with_a_saved_nonzero_m_is_torchs_inf_and_derive_says_why():
    # resumed at step 5 with m = 0.3, v = 0 on a fitted record: g_1 = 0, so v̂_1 = 0 but
    # m̂_1 ≠ 0, and torch divides 0.27/(1 − 0.9⁶) by 0
    w = torch.tensor([2.0], requires_grad=True)
    o = torch.optim.Adam([w], lr=0.1, eps=0.0)
    ((w * 2 - 4) ** 2 / 2).mean().backward()
    o.state[w] = {"step": torch.tensor(5.0), "exp_avg": torch.tensor([0.3]),
                  "exp_avg_sq": torch.tensor([0.0])}
    o.step()
    assert torch.isinf(w).all()
    ex = exercise({"id": "edge", "recipe": "optimizer_steps",
                   "given": {"w": "2", "lr": "0.1", "steps": 2, "records": [["2", "4"]],
                             "optimizer": {"name": "adam", "eps": 0},
                             "state": {"step": 5, "m": "0.3", "v": "0"}},
                   "claims": {"w_steps": ["0", "0"]}}, "edge.toml", 0)
    with pytest.raises(ExerciseError) as info:
        check_exercise(ex)
    text = str(info.value)
    assert "'given.optimizer.eps': is 0" in text and "±inf" in text
