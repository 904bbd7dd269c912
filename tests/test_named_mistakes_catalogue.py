"""Issue 24's wider catalogue, named by the diagnosis: each mistake's wrong claim computed
independently (torch in float64 with the mistaken setting: dampening = momentum, momentum 0,
a fresh optimizer mid-run, the loss read before the step, a summed loss; or Fractions where torch
has no such setting: RMSprop and Adagrad without the square root), claimed as torch prints it to
6 places on ordinary data, and named; the same claim one unit off in its last place is not."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise

torch.set_default_dtype(torch.float64)

W0, B0, LR = "0.3", "-0.1", "0.05"
RECORDS = [["0.5", "1.7"], ["1.3", "2.9"], ["-0.8", "0.4"]]
MU = "0.9"


def _six(v: float) -> str:
    return f"{v:.6f}"


def _off(text: str, units: int = 1) -> str:
    d = Decimal(text)
    return str(d + units * Decimal(1).scaleb(d.as_tuple().exponent))


def _toml(given: str, claims: dict[str, list[str]]) -> str:
    rows = ", ".join(f"[{x}, {y}]" for x, y in RECORDS)
    lines = ["[[exercise]]", 'id = "catalogue"', 'recipe = "optimizer_steps"', "[exercise.given]",
             f"w = {W0}", f"b = {B0}", f"lr = {LR}", f"records = [{rows}]", given,
             "[exercise.claims]"]
    lines += [f"{k} = [{', '.join(repr(v).replace(chr(39), chr(34)) for v in vs)}]"
              for k, vs in claims.items()]
    return "\n".join(lines) + "\n"


def _diagnosed(tmp_path, given: str, claims: dict, name: str):
    path = tmp_path / "ex.toml"
    path.write_text(_toml(given, claims), encoding="utf-8")
    report = check_exercise(load_file(path)[0])
    claim = next(c for c in report.claims if c.name == name)
    assert claim.status == "wrong", claim
    return claim.diagnosis


def _named(d) -> set:
    return {d.mistake, *d.also} if d is not None else set()


def _torch_run(steps: int, fresh_at: int | None = None, **sgd) -> dict[str, list[float]]:
    """SGD on ŷ = w·x + b with the mean of (ŷ − y)²/2 over RECORDS; a fresh optimizer (buffers
    lost) before step `fresh_at`; per step w, b, the buffer of w, the loss after the step."""
    w = torch.tensor(float(W0), requires_grad=True)
    b = torch.tensor(float(B0), requires_grad=True)
    x = torch.tensor([float(r[0]) for r in RECORDS])
    y = torch.tensor([float(r[1]) for r in RECORDS])
    opt = torch.optim.SGD([w, b], lr=float(LR), **sgd)
    out: dict[str, list[float]] = {"w_steps": [], "b_steps": [], "buffer_steps": [],
                                   "loss_steps": [], "loss_before": []}
    for t in range(1, steps + 1):
        if t == fresh_at:
            opt = torch.optim.SGD([w, b], lr=float(LR), **sgd)
        opt.zero_grad()
        loss = ((w * x + b - y) ** 2 / 2).mean()
        out["loss_before"].append(loss.item())
        loss.backward()
        opt.step()
        out["w_steps"].append(w.item())
        out["b_steps"].append(b.item())
        if opt.state[w].get("momentum_buffer") is not None:
            out["buffer_steps"].append(opt.state[w]["momentum_buffer"].item())
        with torch.no_grad():
            out["loss_steps"].append(((w * x + b - y) ** 2 / 2).mean().item())
    return out


MOMENTUM = f'optimizer = {{ name = "sgd", momentum = {MU} }}\nsteps = 3'

CASES = [
    # (name, the mistaken run, quantity claimed)
    ("buffer_as_average", lambda: _torch_run(3, momentum=0.9, dampening=0.9), "buffer_steps"),
    ("buffer_as_average", lambda: _torch_run(3, momentum=0.9, dampening=0.9), "w_steps"),
    ("momentum_forgotten", lambda: _torch_run(3), "w_steps"),
    ("momentum_forgotten", lambda: _torch_run(3), "b_steps"),
    ("buffer_reset_mid_run", lambda: _torch_run(3, fresh_at=3, momentum=0.9), "w_steps"),
    ("buffer_reset_mid_run", lambda: _torch_run(3, fresh_at=3, momentum=0.9), "buffer_steps"),
    ("buffer_reset_mid_run", lambda: _torch_run(3, fresh_at=2, momentum=0.9), "loss_steps"),
]


@pytest.mark.parametrize(("name", "run", "quantity"), CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_sgd_mistakes_against_torch(name, run, quantity, tmp_path):
    values = [_six(v) for v in run()[quantity]]
    d = _diagnosed(tmp_path, MOMENTUM, {quantity: values}, quantity)
    assert name in _named(d), d
    near = values[:-1] + [_off(values[-1])]
    assert name not in _named(_diagnosed(tmp_path, MOMENTUM, {quantity: near}, quantity))


def test_the_reset_step_is_named(tmp_path):
    values = [_six(v) for v in _torch_run(3, fresh_at=3, momentum=0.9)["w_steps"]]
    d = _diagnosed(tmp_path, MOMENTUM, {"w_steps": values}, "w_steps")
    assert d.mistake == "buffer_reset_mid_run" and "k = 3" in d.explanation, d


def test_the_loss_before_the_step_against_torch(tmp_path):
    run = _torch_run(2, momentum=0.9)
    values = [_six(v) for v in run["loss_before"]]
    given = f'optimizer = {{ name = "sgd", momentum = {MU} }}\nsteps = 2'
    assert values != [_six(v) for v in run["loss_steps"]]
    assert _diagnosed(tmp_path, given, {"loss_steps": values}, "loss_steps").mistake == \
        "loss_before_step"
    near = [_off(values[0], -1), values[1]]
    assert "loss_before_step" not in _named(
        _diagnosed(tmp_path, given, {"loss_steps": near}, "loss_steps"))


def test_the_bias_gradient_summed_against_torch(tmp_path):
    """torch's gradient of the records' summed loss with respect to b."""
    b = torch.tensor(float(B0), requires_grad=True)
    x = torch.tensor([float(r[0]) for r in RECORDS])
    y = torch.tensor([float(r[1]) for r in RECORDS])
    ((float(W0) * x + b - y) ** 2 / 2).sum().backward()
    value = _six(b.grad.item())
    for claimed, named in ((value, True), (_off(value), False), (_off(value, -2), False)):
        d = _diagnosed(tmp_path, "steps = 1", {"b_gradient_steps": [claimed]},
                       "b_gradient_steps")
        assert ("b_gradient_sum" in _named(d)) is named, (claimed, d)


def _adaptive(kind: str, steps: int) -> list[F]:
    """w_t of RMSprop (α = 0.9) or Adagrad with ε = 1/10⁸ and the square root forgotten:
    g̃/(s + ε) in place of g̃/(√s + ε), in Fractions (b along the same rule)."""
    w, b, lr, eps, alpha = F(W0), F(B0), F(LR), F(1, 10**8), F(9, 10)
    rec = [(F(x), F(y)) for x, y in RECORDS]
    s_w = s_b = F(0)
    out = []
    for _ in range(steps):
        r = [w * x + b - y for x, y in rec]
        gw = sum(e * x for e, (x, _) in zip(r, rec)) / len(rec)
        gb = sum(r) / len(rec)
        if kind == "rmsprop":
            s_w, s_b = alpha * s_w + (1 - alpha) * gw**2, alpha * s_b + (1 - alpha) * gb**2
        else:
            s_w, s_b = s_w + gw**2, s_b + gb**2
        w, b = w - lr * gw / (s_w + eps), b - lr * gb / (s_b + eps)
        out.append(w)
    return out


@pytest.mark.parametrize("kind", ["rmsprop", "adagrad"])
def test_the_square_root_forgotten_against_fractions(kind, tmp_path):
    given = (f'optimizer = {{ name = "{kind}", eps = 1e-8'
             + (", alpha = 0.9" if kind == "rmsprop" else "") + " }\nsteps = 2")
    values = [f"{float(v):.6f}" for v in _adaptive(kind, 2)]
    assert _diagnosed(tmp_path, given, {"w_steps": values}, "w_steps").mistake == \
        "sqrt_forgotten"
    near = [values[0], _off(values[1], 1)]
    assert "sqrt_forgotten" not in _named(_diagnosed(tmp_path, given, {"w_steps": near},
                                                     "w_steps"))


def test_the_bias_gradient_summed_in_sgd_step(tmp_path):
    """sgd_step: Σ_i (w·x_i + b − y_i) by Fractions, and b − η·Σ."""
    rec = [(F(x), F(y)) for x, y in RECORDS]
    total = sum(F(W0) * x + F(B0) - y for x, y in rec)
    rows = ", ".join(f"[{x}, {y}]" for x, y in RECORDS)
    for name, quantity, value in (("b_gradient_sum", "b_gradient", total),
                                  ("b_new_b_gradient_sum", "b_new", F(B0) - F(LR) * total)):
        for claimed, named in ((value, True), (value + F(1, 100), False)):
            path = tmp_path / "ex.toml"
            path.write_text("[[exercise]]\nid = \"s\"\nrecipe = \"sgd_step\"\n[exercise.given]\n"
                            f"w = {W0}\nb = {B0}\nlr = {LR}\nrecords = [{rows}]\n"
                            f'[exercise.claims]\n{quantity} = "{claimed}"\n', encoding="utf-8")
            claim = check_exercise(load_file(path)[0]).claims[0]
            assert claim.status == "wrong"
            assert (name in _named(claim.diagnosis)) is named, (claimed, claim.diagnosis)


# ------------------------------------------------------------- the formulas recipe's patterns

def _formulas(given: str, define: str, claim: str) -> str:
    return ("[[exercise]]\nid = \"f\"\nrecipe = \"formulas\"\n[exercise.given]\n" + given +
            "\n[exercise.define]\n" + define + "\n[exercise.claims]\n" + claim + "\n")


def _claim_text(name: str, v) -> str:
    if isinstance(v, list):
        return f"{name} = [{', '.join(chr(34) + str(x) + chr(34) for x in v)}]"
    return f'{name} = "{v}"'


def _formula_diagnosis(tmp_path, given, define, name, value):
    path = tmp_path / "f.toml"
    path.write_text(_formulas(given, define, _claim_text(name, value)), encoding="utf-8")
    claim = check_exercise(load_file(path)[0]).claims[0]
    assert claim.status == "wrong", claim
    return claim.diagnosis


REC2 = [(F("0.5"), F("1.7")), (F("1.3"), F("2.9"))]
ROWS2 = "records = [[0.5, 1.7], [1.3, 2.9]]"
LOOP = ('loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"\ng = "grad(loss_t, w_{t-1})"\n')


def _g(w) -> F:
    return sum((w * x - y) * x for x, y in REC2) / len(REC2)


def _warmup_from_t_minus_1() -> list[F]:
    w, out = F("0.3"), []
    for t in range(1, 4):
        w -= F("0.05") * min(F(1), F(t - 1, 3)) * _g(w)
        out.append(w)
    return out


def _rmsprop_no_root() -> list[F]:
    w, v, out = F("0.3"), F(0), []
    for _ in range(2):
        g = _g(w)
        v = F("0.9") * v + F("0.1") * g * g
        w -= F("0.05") * g / (v + F("0.001"))
        out.append(w)
    return out


def _plain_sgd() -> list[F]:
    w, out = F("0.3"), []
    for _ in range(2):
        w -= F("0.05") * _g(w)
        out.append(w)
    return out


def _momentum_dropped() -> list[F]:
    """u_t = g_t (μ·u_{t−1} dropped): the same as plain SGD's gradients."""
    w, out = F("0.3"), []
    for _ in range(2):
        out.append(_g(w))
        w -= F("0.05") * out[-1]
    return out


def _adam_w1_no_correction() -> F:
    """One Adam step without m̂'s correction: w − η·(1 − β₁)·g/(|g| + ε), v̂ = g² exactly."""
    g = _g(F("0.3"))
    return F("0.3") - F("0.05") * F("0.1") * g / (abs(g) + F("0.001"))


MB = "microbatches = [[[0.5, 1.7], [1.3, 2.9]], [[-0.8, 0.4]]]"


def _mean_of_means() -> F:
    w = F("0.3")
    blocks = [[(F("0.5"), F("1.7")), (F("1.3"), F("2.9"))], [(F("-0.8"), F("0.4"))]]
    return sum(sum((w * x - y) * x for x, y in b) / len(b) for b in blocks) / len(blocks)


TWO = ('w1 = 0.5\nw2 = -1\nb = 0.25\nlr = 0.05\n'
       'records = { columns = ["x1", "x2", "y"], rows = [[1.5, 2, 1], [3, -1.2, 2], '
       '[0.4, 1, -1]] }')
TWO_DEFINE = ('yhat = "w1*x1_i + w2*x2_i + b"\nloss = "mean_i((yhat_i - y_i)^2)"\n'
              'g2 = "grad(loss, w2)"\ngb = "grad(loss, b)"')
TWO_ROWS = [(F("1.5"), F(2), F(1)), (F(3), F("-1.2"), F(2)), (F("0.4"), F(1), F(-1))]


def _residuals() -> list[F]:
    return [F("0.5") * a + F(-1) * c + F("0.25") - y for a, c, y in TWO_ROWS]


L1_ROWS = "records = [[0.5, 1.7], [2, 0.6], [1.3, 2.9]]"


def _l1_sign_zero_as_one() -> F:
    """|w·x − y| at w = 0.3: the second record's residual is 0; sign(0) taken as +1."""
    rows = [(F("0.5"), F("1.7")), (F(2), F("0.6")), (F("1.3"), F("2.9"))]
    signs = [1 if F("0.3") * x - y >= 0 else -1 for x, y in rows]
    return sum(s * x for s, (x, _) in zip(signs, rows)) / 3


FORMULA_CASES = [
    ("rate_counted_from_t_minus_1", "w0 = 0.3\nlr = 0.05\nwarmup = 3\nsteps = 3\n" + ROWS2,
     'rate = "lr*min(1, t/warmup)"\n' + LOOP + 'w = { formula = "w_{t-1} - rate_t*g_t", '
     'start = "w0" }', "w", lambda: [_dec(v) for v in _warmup_from_t_minus_1()]),
    ("w_sqrt_forgotten", "w0 = 0.3\nlr = 0.05\nalpha = 0.9\neps = 0.001\nsteps = 2\n" + ROWS2,
     LOOP + 'v = { formula = "alpha*v_{t-1} + (1 - alpha)*g_t^2", start = "0" }\n'
     'w = { formula = "w_{t-1} - lr*g_t/(sqrt(v_t) + eps)", start = "w0" }', "w",
     lambda: [_dec(v) for v in _rmsprop_no_root()]),
    ("w_momentum_forgotten_g", "w0 = 0.3\nlr = 0.05\nmu = 0.9\nsteps = 2\n" + ROWS2,
     LOOP + 'u = { formula = "mu*u_{t-1} + g_t", start = "0" }\n'
     'w = { formula = "w_{t-1} - lr*u_t", start = "w0" }', "w",
     lambda: [_dec(v) for v in _plain_sgd()]),
    ("u_momentum_forgotten", "w0 = 0.3\nlr = 0.05\nmu = 0.9\nsteps = 2\n" + ROWS2,
     LOOP + 'u = { formula = "mu*u_{t-1} + g_t", start = "0" }\n'
     'w = { formula = "w_{t-1} - lr*u_t", start = "w0" }', "u",
     lambda: [_dec(v) for v in _momentum_dropped()]),
    ("mhat_bias_correction_forgotten",
     "w0 = 0.3\nlr = 0.05\nbeta1 = 0.9\nbeta2 = 0.999\neps = 0.001\nsteps = 1\n" + ROWS2,
     LOOP + 'm = { formula = "beta1*m_{t-1} + (1 - beta1)*g_t", start = "0" }\n'
     'v = { formula = "beta2*v_{t-1} + (1 - beta2)*g_t^2", start = "0" }\n'
     'mhat = "m_t/(1 - beta1^t)"\nvhat = "v_t/(1 - beta2^t)"\n'
     'w = { formula = "w_{t-1} - lr*mhat_t/(sqrt(vhat_t) + eps)", start = "w0" }', "w",
     lambda: [_dec(_adam_w1_no_correction())]),
    ("accumulated_weights_one_over_k", "w = 0.3\nlr = 0.05\n" + MB,
     'ell = "(w*x_i - y_i)^2/2"\nmb_loss = "mean_{i in B_k}(ell_i)"\n'
     'accumulated = "sum_k(n_k/N * grad(mb_loss_k, w))"', "accumulated",
     lambda: str(_mean_of_means())),
    ("g2_column_swapped_x2_x1", TWO, TWO_DEFINE, "g2",
     lambda: str(sum(2 * r * a for r, (a, _, _) in zip(_residuals(), TWO_ROWS)) / 3)),
    ("gb_sum_for_mean", TWO, TWO_DEFINE, "gb", lambda: str(sum(2 * r for r in _residuals()))),
    ("gradient_sign_at_zero_as_one", "w = 0.3\nlr = 0.1\n" + L1_ROWS,
     'ell = "|w*x_i - y_i|"\nloss = "mean_i(ell_i)"\ngradient = "grad(loss, w)"', "gradient",
     lambda: str(_l1_sign_zero_as_one())),
]


def _dec(v: F) -> str:
    """An exact Fraction as an author writes it: its exact decimal when it ends within 12
    places, else rounded half up to 6 places (never through a float)."""
    d = Decimal(v.numerator) / Decimal(v.denominator)
    exact = d.quantize(Decimal(1).scaleb(-12))
    if F(exact) == v:
        return str(exact.normalize()) if exact != exact.to_integral() else str(int(exact))
    return str(d.quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP))


def _nudge(value):
    if isinstance(value, list):
        return value[:-1] + [_nudge(value[-1])]
    if "/" in value:
        return str(F(value) + F(1, 100))
    return _off(value)


@pytest.mark.parametrize(("name", "given", "define", "quantity", "value"), FORMULA_CASES,
                         ids=[c[0] for c in FORMULA_CASES])
def test_a_formulas_pattern_is_named(name, given, define, quantity, value, tmp_path):
    claimed = value()
    d = _formula_diagnosis(tmp_path, given, define, quantity, claimed)
    # named, first of a tie, or (a generic edit alone) offered; never another named alone
    assert name in d.candidates and d.mistake in (name, None), d
    assert d.candidates[0] == name or d.certainty == "tied", d
    near = _formula_diagnosis(tmp_path, given, define, quantity, _nudge(claimed))
    assert name not in _named(near), near


def test_a_column_is_printed_in_the_course_notation(tmp_path):
    """x_{2,i}, not x_2_i (issue 24)."""
    value = str(sum(2 * r * a for r, (a, _, _) in zip(_residuals(), TWO_ROWS)) / 3)
    d = _formula_diagnosis(tmp_path, TWO, TWO_DEFINE, "g2", value)
    assert "x_{1,i} in place of x_{2,i}" in d.explanation and "x_2_i" not in d.explanation


# ---------------------------------------------------------------- property: any data, torch

def _ten(v: float) -> str | None:
    """v to 10 places, or None where float64 cannot tell the rounding (next to a tie)."""
    scaled = abs(v) * 1e10
    if abs(scaled - int(scaled) - 0.5) < 1e-3:
        return None
    return f"{v:.10f}"


tenth = st.integers(-30, 30).map(lambda n: F(n, 10))


@settings(deadline=None)
@given(w=tenth, b=tenth, mu=st.integers(1, 99).map(lambda n: F(n, 100)),
       records=st.lists(st.tuples(tenth, tenth), min_size=1, max_size=3),
       steps=st.integers(2, 3), mistake=st.sampled_from(["buffer_as_average",
                                                           "momentum_forgotten"]))
def test_sgd_mistakes_against_torch_on_any_data(w, b, mu, records, steps, mistake,
                                                tmp_path_factory):
    """torch with dampening = μ (or momentum 0): its w_t named, on any data."""
    wt = torch.tensor(float(w), requires_grad=True)
    bt = torch.tensor(float(b), requires_grad=True)
    x = torch.tensor([float(r[0]) for r in records])
    y = torch.tensor([float(r[1]) for r in records])
    kw = {"momentum": float(mu), "dampening": float(mu)} if mistake == "buffer_as_average" else {}
    opt = torch.optim.SGD([wt, bt], lr=0.05, **kw)
    claimed = []
    for _ in range(steps):
        opt.zero_grad()
        ((wt * x + bt - y) ** 2 / 2).mean().backward()
        opt.step()
        claimed.append(_ten(wt.item()))
    assume(None not in claimed)
    rows = ", ".join(f'["{p}", "{q}"]' for p, q in records)
    text = ("[[exercise]]\nid = \"p\"\nrecipe = \"optimizer_steps\"\n[exercise.given]\n"
            f'w = "{w}"\nb = "{b}"\nlr = 0.05\nrecords = [{rows}]\nsteps = {steps}\n'
            f'optimizer = {{ name = "sgd", momentum = "{mu}" }}\n[exercise.claims]\n'
            f"w_steps = [{', '.join(chr(34) + c + chr(34) for c in claimed)}]\n")
    path = tmp_path_factory.mktemp("p") / "p.toml"
    path.write_text(text, encoding="utf-8")
    claim = check_exercise(load_file(path)[0]).claims[0]
    assume(claim.status == "wrong")  # a gradient of 0 at every step: the mistake changes nothing
    assert mistake in _named(claim.diagnosis), (text, claim.diagnosis)
