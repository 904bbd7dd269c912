"""`optimizer_steps` with a vector w (issue 35 item 5): values by hand in Fractions, the file
form (w = [1, -2], records [[[x1, x2], y], …], a saved state's tensors as lists), the one-line
errors of a ragged x, a w of another length than x, a state tensor of the wrong length; and a
vector of one entry is the number it holds, for every optimizer (the torch comparison:
tests/test_torch_optimizers_vector.py)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.exercises.errors import ExerciseError
from derive.exercises.variation import target_w
from derive.optimizers import REGISTRY, Optimizer
from derive.recipes import RECIPES
from derive.recipes.base import Example
from derive.render.working import Working

OPT = RECIPES["optimizer_steps"]
R = sp.Rational


def _momentum_by_hand(w, b, records, lr, mu, steps):
    """SGD with momentum μ (torch: u_1 = g_1, then u_t = μ·u_{t−1} + g_t) on ŷ = w·x + b,
    ℓ = (ŷ − y)²/2, in Fractions: (gradients, w after each step, losses after each step)."""
    grads, ws, losses, u, ub = [], [], [], None, None
    n = len(records)
    for _ in range(steps):
        errs = [sum(wj * xj for wj, xj in zip(w, x)) + b - y for x, y in records]
        g = [sum(e * x[j] for e, (x, _) in zip(errs, records)) / n for j in range(len(w))]
        gb = sum(errs) / n
        u = g if u is None else [mu * a + c for a, c in zip(u, g)]
        ub = gb if ub is None else mu * ub + gb
        w = [wj - lr * uj for wj, uj in zip(w, u)]
        b = b - lr * ub
        grads.append(g)
        ws.append(w)
        losses.append(sum((sum(wj * xj for wj, xj in zip(w, x)) + b - y) ** 2 / 2
                          for x, y in records) / n)
    return grads, ws, losses


def test_sgd_momentum_on_two_entries_by_hand():
    """w = (1, −2), b = 0.5, records ((2, 1), 4), ((−1, 3), 1), SGD with momentum 0.9, two
    steps: g_1 = (0.25, −13) (errors −3.5 and −7.5: (−7 + 7.5)/2, (−3.5 − 22.5)/2)."""
    grads, ws, losses = _momentum_by_hand([F(1), F(-2)], F(1, 2),
                                          [((F(2), F(1)), F(4)), ((F(-1), F(3)), F(1))],
                                          F(1, 10), F(9, 10), 2)
    assert grads[0] == [F(1, 4), F(-13)]
    out = OPT.evaluate({"w": [R(1), R(-2)], "b": R(1, 2), "lr": R(1, 10), "steps": sp.Integer(2),
                        "records": [([R(2), R(1)], R(4)), ([R(-1), R(3)], R(1))],
                        "loss": "half", "optimizer": Optimizer.make("sgd", momentum=R(9, 10))})
    assert out["gradient_steps"] == [[R(g.numerator, g.denominator) for g in row]
                                     for row in grads]
    assert out["w_steps"] == [[R(v.numerator, v.denominator) for v in row] for row in ws]
    assert out["loss_steps"] == [R(v.numerator, v.denominator) for v in losses]
    assert out["w_steps"][0] == [R(39, 40), R(-7, 10)]


def _file(tmp_path, given_: str, claims: str = "loss_steps = [1]"):
    path = tmp_path / "vector.toml"
    path.write_text('[[exercise]]\nid = "v"\nrecipe = "optimizer_steps"\n[exercise.given]\n'
                    f"lr = 0.1\nb = 0.5\n{given_}\n[exercise.claims]\n{claims}\n",
                    encoding="utf-8")
    return path


def test_a_vector_exercise_from_a_file_is_judged_entry_by_entry(tmp_path):
    path = _file(tmp_path, 'w = [1, -2]\nrecords = [[[2, 1], 4], [[-1, 3], 1]]\nsteps = 2\n'
                 'optimizer = { name = "sgd", momentum = 0.9 }',
                 "gradient_steps = [[0.25, -13], [-0.1875, -5.3875]]\n"
                 "w_steps = [[0.975, -0.7], [0.97125, 1.00875]]\n"
                 "buffer_steps = [[0.25, -13], [0.0375, -17.0875]]\n"
                 "loss_steps = [3.01015625, 2.145217578125]")
    report = check_exercise(load_file(path)[0])
    assert [(c.name, c.status) for c in report.claims] == [
        ("gradient_steps", "exact"), ("buffer_steps", "exact"), ("w_steps", "exact"),
        ("loss_steps", "exact")]


def test_a_resumed_vector_run_reads_each_state_tensor_as_a_list(tmp_path):
    """Resumed with u_0 = (1, −1), u_{b,0} = 2: u_1 = 0.9·u_0 + g_1 = (1.15, −13.9)."""
    path = _file(tmp_path, 'w = [1, -2]\nrecords = [[[2, 1], 4], [[-1, 3], 1]]\n'
                 'optimizer = { name = "sgd", momentum = 0.9 }\n'
                 "state = { buffer = [1, -1], b_buffer = 2 }", "buffer_steps = [[1.15, -13.9]]")
    assert [c.status for c in check_exercise(load_file(path)[0]).claims] == ["exact"]


@pytest.mark.parametrize("given_, line", [
    ("w = [1, -2]\nrecords = [[[2, 1], 4], [[-1, 3, 5], 1]]",
     "key 'given.records[1][0]': is a list of 3, but records[0][0] is a list of 2; every "
     "record's x of one shape: all numbers, or all vectors of w's entries"),
    ("w = [1, -2]\nrecords = [[[2, 1, 0], 4]]",
     "key 'given.w': is a list of 2, but records[0][0] is a list of 3; one entry of w per "
     "entry of every record's x"),
    ("w = 3\nrecords = [[[2, 1], 4]]",
     "key 'given.records[0][0]': is a list of 2, but w is a number; write w as a vector of 2 "
     "entries, or x as a number"),
    ('w = [1, -2]\nrecords = [[[2, 1], 4]]\noptimizer = { name = "adam" }\n'
     "state = { step = 3, m = [0.1, 0.2, 0.3], v = [1, 2], b_m = 0, b_v = 0 }",
     "key 'given.state.m': is a list of 3; one value per entry of its parameter: w's 2 "
     "entries"),
    ('w = [1, -2]\nrecords = [[[2, 1], 4]]\noptimizer = { name = "adam" }\n'
     "state = { step = 3, m = [0.1, 0.2], v = [1, 2], b_m = [0], b_v = 0 }",
     "key 'given.state.b_m': is a list of 1; one value per entry of its parameter: a number "
     "(b is a number)"),
    ("w = [1, 2, 3, 4, 5, 6, 7, 8, 9]\nrecords = [[[2, 1], 4]]",
     "key 'given.w': has 9 entries; a vector w of at most 8 entries"),
])
def test_shape_errors_are_one_line(tmp_path, given_, line):
    with pytest.raises(ExerciseError) as info:
        check_exercise(load_file(_file(tmp_path, given_))[0])
    text = str(info.value)
    assert "\n" not in text and text.endswith(line), text


value = st.sampled_from([F(k, 4) for k in range(-8, 9)])


def _option(o):
    """Each option by its kind, away from the values that make a quantity undefined."""
    if o.kind == "bool":
        return st.booleans()
    if o.kind == "betas":
        return st.tuples(*[st.sampled_from([R(0), R(1, 2), R(9, 10)])] * 2)
    if o.name == "eps":
        return st.sampled_from([R(1, 10**8), R(1, 2)])
    if o.name == "alpha":
        return st.sampled_from([R(1, 2), R(9, 10)])
    return st.sampled_from([R(0), R(1, 10), R(1, 2)])


@st.composite
def optimizers(draw, name):
    spec = REGISTRY[name]
    opt = Optimizer.make(name, **{o.name: draw(_option(o)) for o in spec.options})
    if spec.check(opt):  # nesterov without momentum or with dampening: as torch refuses it
        opt = Optimizer.make(name, **{**opt.options(), "nesterov": False})
    return opt


@pytest.mark.parametrize("name", list(REGISTRY))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_vector_of_one_entry_is_the_number_it_holds(name, data):
    """w = [a] and x_i = [x_i] give the scalar run's values, each wrapped in a list."""
    opt = data.draw(optimizers(name))
    records = data.draw(st.lists(st.tuples(value, value), min_size=1, max_size=2))
    w0, b0 = data.draw(value), data.draw(value)
    base = {"b": R(b0), "lr": R(1, 10), "steps": sp.Integer(2), "loss": "half",
            "optimizer": opt}
    scalar = OPT.evaluate({**base, "w": R(w0),
                           "records": [(R(x), R(y)) for x, y in records]})
    vector = OPT.evaluate({**base, "w": [R(w0)],
                           "records": [([R(x)], R(y)) for x, y in records]})
    assert set(scalar) == set(vector)
    for q, values in scalar.items():
        got = vector[q]
        if q.startswith("b_") or q == "loss_steps":
            assert got == values, q
        else:
            assert got == [[v] for v in values], q


def _as_vector(example):
    """An exercise of a number w as the same exercise of a vector w of one entry: w = [w],
    each x = [x], each saved tensor of w [v], each claim on w's quantities a row per step."""
    given_, claims = example
    out = dict(given_)
    out["w"] = [given_["w"]]
    if "records" in given_:
        out["records"] = [[[x], y] for x, y in given_["records"]]
    if "batches" in given_:
        out["batches"] = [[[[x], y] for x, y in batch] for batch in given_["batches"]]
    if "state" in given_:
        out["state"] = {k: v if k == "step" or k.startswith("b_") else [v]
                        for k, v in given_["state"].items()}
    rows = {q: v if q.startswith("b_") or q == "loss_steps" else [[x] for x in v]
            for q, v in claims.items()}
    return out, rows


def _toml(recipe: str, example) -> str:
    """An example exercise as a file (its given and claims as the declarations write them:
    strings, lists, inline tables; tests/test_graph.py writes the number's examples so)."""
    def value(v):
        if isinstance(v, dict):
            return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if v in ("true", "false"):
            return v
        return v if v.lstrip("-").replace(".", "").isdigit() else f'"{v}"'
    lines = ["[[exercise]]", 'id = "example"', f'recipe = "{recipe}"', "[exercise.given]"]
    lines += [f"{k} = {value(v)}" for k, v in example.given.items()]
    lines.append("[exercise.claims]")
    lines += [f"{k} = {value(v)}" for k, v in example.claims.items()]
    return "\n".join(lines) + "\n"


_OPT_MISTAKES = [m for m in OPT.mistakes if m.example is not None]


@pytest.mark.parametrize("mistake", _OPT_MISTAKES,
                         ids=[f"{m.name}-{m.target}" for m in _OPT_MISTAKES])
def test_every_mistake_is_named_on_a_vector_of_one_entry(mistake, tmp_path):
    """Each optimizer mistake's own example, w and x made vectors of one entry, is named as
    on the number (its claims from the mistake's declaration, not from derive's output)."""
    path = tmp_path / "example.toml"
    path.write_text(_toml("optimizer_steps", Example(*_as_vector(
        (mistake.example.given, mistake.example.claims)))), encoding="utf-8")
    report = check_exercise(load_file(path)[0])
    claim = next(c for c in report.claims if c.name == mistake.target)
    assert claim.status == "wrong"
    assert claim.diagnosis is not None
    assert mistake.name in {claim.diagnosis.mistake, *claim.diagnosis.also}, (
        claim.diagnosis.mistake, claim.diagnosis.explanation)


def test_the_batch_gradients_summed_on_two_entries_is_named(tmp_path):
    """Σ_i instead of the mean on w = (1, −2): errors −3.5, −7.5, so the sum is
    (−7 + 7.5, −3.5 − 22.5) = (0.5, −26)."""
    path = _file(tmp_path, "w = [1, -2]\nrecords = [[[2, 1], 4], [[-1, 3], 1]]",
                 "gradient_steps = [[0.5, -26]]")
    claim = check_exercise(load_file(path)[0]).claims[0]
    assert claim.status == "wrong" and claim.diagnosis.mistake == "gradient_sum"


def test_a_wrong_vector_gradient_is_carried_forward(tmp_path):
    """w = (1, 0), the record ((2, 1), 4): g_1 = (−4, −2); claimed (−5, −2), the buffer
    (−5, −2) and w_1 = (1 + 0.5, 0 + 0.2) follow from it."""
    path = _file(tmp_path, 'w = [1, 0]\nrecords = [[[2, 1], 4]]\nb = 0\n'
                 'optimizer = { name = "sgd", momentum = 0.9 }',
                 "gradient_steps = [[-5, -2]]\nbuffer_steps = [[-5, -2]]\n"
                 "w_steps = [[1.5, 0.2]]")
    path.write_text(path.read_text(encoding="utf-8").replace("b = 0.5\n", ""),
                    encoding="utf-8")
    claims = check_exercise(load_file(path)[0]).claims
    assert [c.status for c in claims] == ["wrong"] * 3
    assert [c.diagnosis.carried_from for c in claims[1:]] == ["gradient_steps"] * 2


def test_a_vector_w_has_no_one_target_w():
    """`[exercise.require]`'s w* (the least-squares w of the records) is a number's: for a
    vector x there is none, not a crash on x² of a list."""
    assert target_w("optimizer_steps", {"w": [R(1), R(-2)],
                                        "records": [([R(2), R(1)], R(4))]}) is None
    assert target_w("optimizer_steps", {"w": R(1), "records": [(R(2), R(4))]}) == 2


def test_the_working_writes_a_vector_w_as_the_course_does():
    """The formulas as vectors (w_t = w_{t−1} − η·u_t; ŷ written out entry by entry, x_i
    whole), each recurrence's start as a column (w_0 = w = (1, −2)ᵀ, the saved u_0), the
    first step's numbers as columns: strings written by hand."""
    given_ = {"w": [R(1), R(-2)], "b": R(1, 2), "lr": R(1, 10), "loss": "half",
              "records": [([R(2), R(1)], R(4)), ([R(-1), R(3)], R(1))],
              "optimizer": Optimizer.make("sgd", momentum=R(9, 10)),
              "state": {"buffer": [R(1), R(-1)], "b_buffer": R(2)}}
    work = Working(OPT, given_)
    col = r"\begin{pmatrix} %s \\ %s \end{pmatrix}"
    assert [t for t, _ in work.lines("w_steps")] == [
        r"w_{t} = w_{t - 1} - \eta \cdot u_{t}", "w_{0} = w = " + col % (1, -2),
        "w_{1} = " + col % (1, -2) + r" - 0.1 \cdot " + col % (1.15, -13.9)]
    assert [t for t, _ in work.lines("buffer_steps")][:2] == [
        r"u_{t} = \mu \cdot u_{t - 1} + g_{t}", "u_{0} = " + col % (1, -1)]
    assert work.lines("gradient_steps")[0][0] == (
        r"g_{t} = \frac{1}{N} \sum_{i=1}^{N} \left(w_{t - 1,1} \cdot x_{i,1} + w_{t - 1,2} "
        r"\cdot x_{i,2} + b_{t - 1} - y_{i}\right) \cdot x_{i}")
    assert work.lines("buffer_steps")[2][1] == [R(23, 20), R(-139, 10)]  # 0.9·(1, −1) + g_1
