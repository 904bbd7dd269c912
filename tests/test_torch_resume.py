"""Resumed training against PyTorch itself (CPU, float64): k steps, a checkpoint by
`state_dict()` (model and optimizer, round-tripped through `torch.save`), a fresh model and
optimizer that `load_state_dict` it, and the rest of the run, a batch of its own per step.
derive's resume exercise starts from the checkpoint's own numbers (float64 values are exact
binary fractions) and must give every claimable quantity of the resumed steps to 1e-12
relative. The wrong resumes are torch runs too: only the model's state loaded (a fresh
optimizer) is `saving_only_w` (SGD) and `state_lost_on_resume` (Adam); the loaded state with
the step count set to 0, to t_0 − 1, or the moments zeroed is `step_count_reset`,
`resumed_from_wrong_step`, `moments_reset`. DERIVE_SKIP_TORCH=1 skips (never in CI)."""

from __future__ import annotations

import io
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

from planted import planted
from support import examples

from derive.optimizers import Optimizer
from derive.recipes import RECIPES
from derive.recipes.base import Context
from tests import torch_harness as harness

torch.set_default_dtype(torch.float64)
REL = 1e-12
RECIPE = RECIPES["optimizer_steps"]
MISTAKES = {(m.name, q): m.at(q) for m in RECIPE.mistakes for q in (m.target, *m.also_targets)}

dyadic = st.integers(-24, 24).map(lambda k: Fraction(k, 8))
rates = st.sampled_from([Fraction(1, 10), Fraction(1, 4), Fraction(1, 2)])
batch = st.lists(st.tuples(dyadic, dyadic), min_size=1, max_size=3)


def R(f) -> sp.Rational:
    f = Fraction(f)
    return sp.Rational(f.numerator, f.denominator)


def agree(exact, got: float, what: str) -> None:
    value = float(sp.N(exact, 40))
    assert abs(value - got) <= REL * max(abs(value), 1.0), (
        f"{what}: exact {exact} ≈ {value!r}, torch {got!r}")


class Lab(torch.nn.Module):
    """The lab's model ŷ = w·x + b (or w·x)."""

    def __init__(self, w: float, b: float | None):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor([w]))
        if b is None:
            self.register_parameter("b", None)
        else:
            self.b = torch.nn.Parameter(torch.tensor([b]))

    def forward(self, x):
        return self.w * x + (self.b if self.b is not None else 0)

    def params(self) -> list:
        return [self.w] + ([self.b] if self.b is not None else [])


def _optimizer(params, lr: Fraction, opt: Optimizer):
    return harness.make(params, lr, opt)


def _loss(model, records, convention):
    x = torch.tensor([float(r[0]) for r in records])
    y = torch.tensor([float(r[1]) for r in records])
    err = (model(x) - y) ** 2
    return (err / 2 if convention == "half" else err).mean()


def _step(model, o, records, convention, out) -> None:
    """One training step as the course's loop does it, recording what derive claims."""
    o.zero_grad()
    _loss(model, records, convention).backward()
    out["gradient_steps"].append(model.w.grad.item())
    if model.b is not None:
        out["b_gradient_steps"].append(model.b.grad.item())
    o.step()
    names = [("", model.w)] + ([("b_", model.b)] if model.b is not None else [])
    for prefix, p in names:
        state = o.state[p]
        if state.get("momentum_buffer") is not None:
            out[prefix + "buffer_steps"].append(state["momentum_buffer"].item())
        if "exp_avg" in state:
            out[prefix + "m_steps"].append(state["exp_avg"].item())
            out[prefix + "v_steps"].append(state["exp_avg_sq"].item())
    out["w_steps"].append(model.w.item())
    if model.b is not None:
        out["b_steps"].append(model.b.item())
    with torch.no_grad():
        out["loss_steps"].append(_loss(model, records, convention).item())


def _round_trip(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf)


def torch_resume(batches, k, w0, b0, lr, opt, convention="half", how="full"):
    """k steps, a checkpoint, a fresh model and optimizer loading it (`how`: "full", the model
    and the optimizer; "model", the model only; "step0", "step-1", "moments0": the optimizer's
    state edited so), and the remaining steps. Returns (the checkpoint's exact values, the
    resumed steps' values)."""
    model = Lab(float(w0), None if b0 is None else float(b0))
    o = _optimizer(model.params(), lr, opt)
    from collections import defaultdict
    for records in batches[:k]:
        _step(model, o, records, convention, defaultdict(list))
    saved = _round_trip({"model": model.state_dict(), "optimizer": o.state_dict()})
    model = Lab(0.0, None if b0 is None else 0.0)  # fresh: every value comes from the checkpoint
    model.load_state_dict(saved["model"])
    o = _optimizer(model.params(), lr, opt)
    state = saved["optimizer"]
    if how != "model":
        for s in state["state"].values():
            if how == "step0":
                s["step"] = torch.zeros_like(s["step"])
            elif how == "step-1":
                s["step"] = s["step"] - 1
            elif how == "moments0":
                for key in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
                    if key in s:
                        s[key] = torch.zeros_like(s[key])
        o.load_state_dict(state)
    checkpoint = {"w": Fraction(saved["model"]["w"].item())}
    if b0 is not None:
        checkpoint["b"] = Fraction(saved["model"]["b"].item())
    keys = {"momentum_buffer": "buffer", "exp_avg": "m", "exp_avg_sq": "v",
            "max_exp_avg_sq": "v_max"}
    for p, s in saved["optimizer"]["state"].items():
        prefix = "" if p == 0 else "b_"
        for key, name in keys.items():
            if s.get(key) is not None:
                checkpoint[prefix + name] = Fraction(s[key].item())
        if "step" in s:
            checkpoint["step"] = int(s["step"].item())
    out = defaultdict(list)
    for records in batches[k:]:
        _step(model, o, records, convention, out)
    return checkpoint, dict(out)


def derive_given(batches, k, checkpoint, lr, opt, convention="half"):
    """The resume exercise: the checkpoint's parameters and optimizer state, the rest of the
    batches."""
    state = {key: (v if key == "step" else R(v)) for key, v in checkpoint.items()
             if key not in ("w", "b")}
    return {"w": R(checkpoint["w"]), "b": R(checkpoint["b"]) if "b" in checkpoint else None,
            "lr": R(lr), "loss": convention, "records": None, "steps": None,
            "batches": [[(R(x), R(y)) for x, y in b] for b in batches[k:]], "optimizer": opt,
            "state": state or None}


def compare(ours: dict, theirs: dict, what: str) -> int:
    """Every quantity torch recorded against derive's; the number of values compared."""
    n = 0
    for name, values in theirs.items():
        if name not in ours:
            assert name in ("b_m_steps", "b_v_steps"), name  # not claimable
            continue
        assert len(ours[name]) == len(values), name
        for t, (exact, got) in enumerate(zip(ours[name], values), 1):
            agree(exact, got, f"{what}: {name}, resumed step {t}")
            n += 1
    return n


def mistake_values(given_: dict, name: str, theirs: dict) -> dict:
    out = {}
    for q in theirs:
        compute = MISTAKES.get((name, q))
        if compute is not None and RECIPE.quantity(q) in RECIPE.available(given_):
            out[q] = compute(Context(RECIPE, given_))
    return out


def run_case(batches, k, w0, b0, lr, opt, convention="half", wrong=()):
    checkpoint, theirs = torch_resume(batches, k, w0, b0, lr, opt, convention)
    given_ = derive_given(batches, k, checkpoint, lr, opt, convention)
    ours = RECIPE.evaluate(given_)
    assert set(ours) >= set(theirs) - {"b_m_steps", "b_v_steps"}
    compare(ours, theirs, "resumed")
    for how, mistake in wrong:
        _, lost = torch_resume(batches, k, w0, b0, lr, opt, convention, how)
        values = mistake_values(given_, mistake, lost)
        assert set(values) == set(lost) - {"b_m_steps", "b_v_steps"}, (mistake, set(values))
        compare(values, lost, f"{mistake} ({how})")
    return given_, ours


@settings(max_examples=100, deadline=None)
@given(batches=st.lists(batch, min_size=2, max_size=5), data=st.data(), w0=dyadic,
       b0=st.one_of(st.none(), dyadic), lr=rates,
       momentum=st.sampled_from([Fraction(1, 2), Fraction(9, 10)]),
       dampening=st.sampled_from([Fraction(0), Fraction(1, 10)]),
       weight_decay=st.sampled_from([Fraction(0), Fraction(1, 100)]),
       nesterov=st.booleans(), maximize=st.booleans(),
       convention=st.sampled_from(["half", "squared"]))
def test_sgd_momentum_resume_matches_torch(batches, data, w0, b0, lr, momentum, dampening,
                                           weight_decay, nesterov, maximize, convention):
    """SGD with momentum (dampening, weight decay, Nesterov, maximize) resumed after k steps;
    with only the model loaded, torch restarts the buffers: saving_only_w."""
    if dampening != 0:
        nesterov = False  # torch refuses Nesterov with dampening
    k = data.draw(st.integers(1, len(batches) - 1))
    opt = Optimizer.make("sgd", momentum=R(momentum), dampening=R(dampening),
                         weight_decay=R(weight_decay), nesterov=nesterov, maximize=maximize)
    run_case(batches, k, w0, b0, lr, opt, convention, wrong=[("model", "saving_only_w")])


# 3 runs by default (each certifies nested surds: 3–12 s apiece), 10 with DERIVE_SLOW=1, ten
# times as many with HYPOTHESIS_PROFILE=thorough
@examples(3, slow=10)
@given(batches=st.lists(batch, min_size=2, max_size=4), data=st.data(), w0=dyadic,
       b0=st.one_of(st.none(), dyadic), lr=rates, name=st.sampled_from(["adam", "adamw"]),
       weight_decay=st.sampled_from([None, Fraction(0), Fraction(1, 10)]),
       betas=st.sampled_from([(Fraction(9, 10), Fraction(999, 1000)),
                              (Fraction(1, 2), Fraction(3, 4))]),
       amsgrad=st.booleans(), maximize=st.booleans(), decoupled=st.booleans())
def test_adam_resume_matches_torch(batches, data, w0, b0, lr, name, weight_decay, betas, amsgrad,
                                   maximize, decoupled):
    """Adam and AdamW (amsgrad, maximize, decay, Adam's decoupled_weight_decay) resumed after
    k steps from step, m, v, v_max; the wrong resumes: a fresh optimizer, the step count 0 or
    t_0 − 1, the moments zeroed. At most two resumed steps (each nests a surd more)."""
    k = data.draw(st.integers(max(1, len(batches) - 2), len(batches) - 1))
    options = {"betas": (R(betas[0]), R(betas[1])), "amsgrad": amsgrad, "maximize": maximize}
    if weight_decay is not None:
        options["weight_decay"] = R(weight_decay)
    if name == "adam" and decoupled:
        options["decoupled_weight_decay"] = True
    wrong = [("model", "state_lost_on_resume"), ("step0", "step_count_reset"),
             ("moments0", "moments_reset")]
    if k > 1:  # at t_0 = 1 the wrong step count is 0: bias correction 1 − β⁰ divides by 0
        wrong.append(("step-1", "resumed_from_wrong_step"))
    run_case(batches, k, w0, b0, lr, Optimizer.make(name, **options), "half", wrong)


def test_sgd_without_momentum_resumes_from_the_parameters_alone():
    """Plain SGD keeps no state: the resumed run is the exercise from the checkpoint's w, b."""
    batches = [[(Fraction(1), Fraction(5))], [(Fraction(2), Fraction(8))],
               [(Fraction(-1), Fraction(-1)), (Fraction(3), Fraction(11))]]
    given_, _ = run_case(batches, 1, Fraction(1), Fraction(1, 2), Fraction(1, 10),
                         Optimizer.make("sgd"))
    assert given_["state"] is None


LAB_BATCHES = [[(1, 5), (2, 8)], [(0, 2), (3, 11)], [(-1, -1), (4, 14)]]


def test_the_lab_resume_matches_torch():
    """The course's resume exercises (proofs/course/lesson03-resume.toml): y = 3x + 2, SGD with
    momentum 0.9, lr 0.02, MSELoss; a checkpoint after step 2, step 3 resumed with and without
    the buffer. The exercise's checkpoint is torch's, and every claim is torch's number."""
    from derive.exercises.bank import load_file
    from derive.exercises.check import check_exercise
    batches = [[(Fraction(x), Fraction(y)) for x, y in b] for b in LAB_BATCHES]
    opt, lr = Optimizer.make("sgd", momentum=sp.Rational(9, 10)), Fraction(1, 50)
    checkpoint, theirs = torch_resume(batches, 2, 0, 0, lr, opt, "squared")
    _, lost = torch_resume(batches, 2, 0, 0, lr, opt, "squared", how="model")
    exercises = {e.id: e for e in load_file("proofs/course/lesson03-resume.toml")}
    resumed = exercises["lesson03-resume-with-buffer"].given
    saved = {"w": resumed["w"], "b": resumed["b"], **resumed["state"]}
    assert set(saved) == set(checkpoint)
    for key, value in checkpoint.items():
        agree(saved[key], float(value), f"the checkpoint's {key}")
    whole = RECIPE.evaluate(exercises["lesson03-resume-uninterrupted"].given)
    for ex_id, run in (("lesson03-resume-with-buffer", theirs),
                       ("lesson03-resume-without-buffer", lost)):
        report = check_exercise(exercises[ex_id])
        assert len(report.claims) == 7 and all(c.status == "exact" for c in report.claims)
        ours = RECIPE.evaluate(exercises[ex_id].given)
        assert compare(ours, run, ex_id) == 7
        claimed = {c.name: c for c in report.claims}
        assert set(claimed) == set(ours)
    same = RECIPE.evaluate(exercises["lesson03-resume-with-buffer"].given)
    assert all(same[q] == [whole[q][2]] for q in same)  # resumed: the same position


def test_the_lab_resumed_without_the_buffer_is_diagnosed_as_saving_only_w(tmp_path):
    """The resume exercise claimed with the numbers of the run that lost its buffers: every
    claim is named saving_only_w, the first wrong quantity is the buffer (before w)."""
    text = open("proofs/course/lesson03-resume.toml", encoding="utf-8").read()
    with_buffer, without = text.split("[[exercise]]")[2:4]
    claims = without.split("[exercise.claims]")[1]
    path = tmp_path / "lost.toml"
    path.write_text("[[exercise]]" + with_buffer.split("[exercise.claims]")[0]
                    + "[exercise.claims]" + claims, encoding="utf-8")
    from derive.exercises.bank import load_file
    from derive.exercises.check import check_exercise
    report = check_exercise(load_file(path)[0])
    wrong = {c.name: c.diagnosis for c in report.claims if c.status == "wrong"}
    assert list(wrong) == ["buffer_steps", "b_buffer_steps", "w_steps", "b_steps", "loss_steps"]
    # one resumed step with the buffer lost moves w as plain SGD does: saving_only_w and
    # momentum_forgotten give the same values, a tie listed under the rule of evidence
    for d in wrong.values():
        assert d.first_wrong == "buffer_steps", d
        planted(d, "saving_only_w")  # named, or listed in the tie
        assert set(d.candidates) <= {"saving_only_w", "momentum_forgotten"}, d
