"""Tensors in exercise files (issue 35 items 1 and 3): tensor givens, tensor defines and claims
on whole tensors in `recipe = "formulas"`. Every expected value comes from torch's float64
autograd or from Fraction arithmetic written here, never from derive's output; every expected
message is written by hand."""

from __future__ import annotations

import dataclasses
import json
import os
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from derive.exercises.bank import load_file
from derive.exercises.check import answer_key, check_exercise
from derive.exercises.errors import ExerciseError
from derive.graph.mutate import mutations_of
from derive.graph.tensor_mistakes import BY_ID
from derive.recipes.base import Context
from derive.render.derivation import exercises_document
from derive.render.document import to_markdown
from derive.render.keys import check_json, check_text
from tests.support import examples

if os.environ.get("DERIVE_SKIP_TORCH") == "1":
    torch = pytest.importorskip("torch")
else:
    import torch

REL = 1e-12
f64 = torch.float64


def _file(tmp_path, text: str, name: str = "t.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _one(tmp_path, text: str):
    (ex,) = load_file(_file(tmp_path, text))
    return ex


def _floats(v):
    """An exact value (nested lists of SymPy numbers) as floats, each from 30 digits."""
    if isinstance(v, list):
        return [_floats(x) for x in v]
    return float(sp.N(v, 30))


def _close(got, want, path="") -> None:
    """Nested lists equal in shape, each entry within REL of torch's (absolute 1e-15 near 0)."""
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: {got} vs {want}"
        for m, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{m}]")
        return
    assert abs(got - want) <= REL * abs(want) + 1e-15, f"{path}: {got!r} vs torch {want!r}"


def _toml(v) -> str:
    """A nested list of floats or strings as TOML."""
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    return f'"{v}"' if isinstance(v, str) else repr(v)


def _rounded6(v):
    """torch's value rounded to 6 places, as a student copies it (a string claim)."""
    if isinstance(v, list):
        return [_rounded6(x) for x in v]
    return f"{v:.6f}"


# ------------------------------------------------------------------ a linear layer
LINEAR = """
[[exercise]]
id = "linear"
recipe = "formulas"

[exercise.given]
x = [2, 1, -0.5]
W = [[0.5, -1, 0.25], [1.5, 0, -2]]
b = [0.1, -0.3]
target = [1, 0.5]

[exercise.define]
z = "W @ x + b"
loss = "mse_loss(z, target)"
gW = "grad(loss, W)"
gb = "grad(loss, b)"
gx = "grad(loss, x)"
"""


def _linear_torch():
    x = torch.tensor([2, 1, -0.5], dtype=f64, requires_grad=True)
    W = torch.tensor([[0.5, -1, 0.25], [1.5, 0, -2]], dtype=f64, requires_grad=True)
    b = torch.tensor([0.1, -0.3], dtype=f64, requires_grad=True)
    z = W @ x + b
    loss = torch.nn.functional.mse_loss(z, torch.tensor([1, 0.5], dtype=f64))
    loss.backward()
    return {"z": z.tolist(), "loss": loss.item(), "gW": W.grad.tolist(), "gb": b.grad.tolist(),
            "gx": x.grad.tolist()}


def test_a_linear_layer_against_torch_and_fractions(tmp_path):
    values = answer_key(_one(tmp_path, LINEAR))
    want = _linear_torch()
    assert list(values) == ["z", "loss", "gW", "gb", "gx"]
    for name, v in want.items():
        _close(_floats(values[name]), v, name)
    # exact: z = W x + b by Fractions, entry by entry
    F = Fraction
    W = [[F(1, 2), F(-1), F(1, 4)], [F(3, 2), F(0), F(-2)]]
    x, b = [F(2), F(1), F(-1, 2)], [F(1, 10), F(-3, 10)]
    z = [sum(W[r][c] * x[c] for c in range(3)) + b[r] for r in range(2)]
    assert values["z"] == [sp.Rational(q.numerator, q.denominator) for q in z]
    # ∂L/∂W = 2(z − t)xᵀ/2 (mean over two entries), exact
    t = [F(1), F(1, 2)]
    gW = [[(z[r] - t[r]) * x[c] for c in range(3)] for r in range(2)]
    assert values["gW"] == [[sp.Rational(q.numerator, q.denominator) for q in row]
                            for row in gW]


# ------------------------------------------------------------------ a two-layer ReLU network
TWO_LAYER_GIVEN = {
    "X": [[1.0, 2.0, -1.0], [0.5, -1.0, 2.0], [-1.5, 0.0, 1.0]],
    "y": [2, 0, 1],
    "W1": [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]],
    "b1": [0.1, -0.1],
    "W2": [[0.2, -0.3], [-0.1, 0.4], [0.5, 0.6]],
    "b2": [0.0, 0.1, -0.2],
}
TWO_LAYER_DEFINE = """
[exercise.define]
Z1 = "X @ W1.T + b1"
H = "relu(Z1)"
Z2 = "H @ W2.T + b2"
loss = "cross_entropy(Z2, y)"
gW1 = "grad(loss, W1)"
gb1 = "grad(loss, b1)"
gW2 = "grad(loss, W2)"
gb2 = "grad(loss, b2)"
"""


def _two_layer_text(claims: dict | None = None) -> str:
    given = "\n".join(f"{k} = {_toml(v)}" for k, v in TWO_LAYER_GIVEN.items())
    text = ('[[exercise]]\nid = "two-layer"\ntitle = "A two-layer ReLU network, batch of 3"\n'
            f'recipe = "formulas"\n\n[exercise.given]\n{given}\n{TWO_LAYER_DEFINE}')
    if claims:
        text += "\n[exercise.claims]\n" + "\n".join(f"{k} = {_toml(v)}"
                                                    for k, v in claims.items())
    return text + "\n"


def _two_layer_torch():
    g = {k: torch.tensor(v, dtype=f64, requires_grad=k in ("W1", "b1", "W2", "b2"))
         for k, v in TWO_LAYER_GIVEN.items() if k != "y"}
    y = torch.tensor(TWO_LAYER_GIVEN["y"])
    Z1 = g["X"] @ g["W1"].T + g["b1"]
    H = torch.relu(Z1)
    Z2 = H @ g["W2"].T + g["b2"]
    loss = torch.nn.functional.cross_entropy(Z2, y)
    loss.backward()
    return {"Z1": Z1.tolist(), "H": H.tolist(), "Z2": Z2.tolist(), "loss": loss.item(),
            "gW1": g["W1"].grad.tolist(), "gb1": g["b1"].grad.tolist(),
            "gW2": g["W2"].grad.tolist(), "gb2": g["b2"].grad.tolist()}


def test_a_two_layer_relu_network_gives_torch_values_and_gradients(tmp_path):
    values = answer_key(_one(tmp_path, _two_layer_text()))
    want = _two_layer_torch()
    assert list(values) == list(want)
    for name, v in want.items():
        _close(_floats(values[name]), v, name)
    # Z1 = X W1ᵀ + b1 exactly, by Fractions
    F = lambda v: Fraction(str(v))  # noqa: E731 (the TOML decimal as written)
    X = [[F(v) for v in r] for r in TWO_LAYER_GIVEN["X"]]
    W1 = [[F(v) for v in r] for r in TWO_LAYER_GIVEN["W1"]]
    b1 = [F(v) for v in TWO_LAYER_GIVEN["b1"]]
    Z1 = [[sum(X[n][c] * W1[h][c] for c in range(3)) + b1[h] for h in range(2)]
          for n in range(3)]
    assert values["Z1"] == [[sp.Rational(q.numerator, q.denominator) for q in r] for r in Z1]


def test_claims_on_whole_tensors_are_judged_entry_by_entry(tmp_path):
    want = _two_layer_torch()
    z1 = [[str(Fraction(str(v)).limit_denominator(1000)) for v in row] for row in want["Z1"]]
    wrong = _rounded6(want["gW1"])
    wrong[0][1] = "0.5"  # two entries a student got wrong
    wrong[1][0] = "-0.5"
    claims = {"Z1": z1, "gW2": _rounded6(want["gW2"]), "gb2": _rounded6(want["gb2"]),
              "gW1": wrong}
    (ex,) = load_file(_file(tmp_path, _two_layer_text(claims)))
    report = check_exercise(ex)
    statuses = {c.name: c.status for c in report.claims}
    assert statuses == {"Z1": "exact", "gW1": "wrong", "gW2": "rounded", "gb2": "rounded"}
    text = check_text([report])
    assert "wrong at (1,2), (2,1) of 2×3" in text
    data = json.loads(json.dumps(check_json(report)))
    gW1 = next(c for c in data["claims"] if c["name"] == "gW1")
    assert gW1["shape"] == [2, 3]
    assert gW1["entries"] == [["rounded", "wrong", "rounded"], ["wrong", "rounded", "rounded"]]
    z = next(c for c in data["claims"] if c["name"] == "Z1")
    assert z["shape"] == [3, 2] and z["entries"] == [["exact"] * 2] * 3
    gb2 = next(c for c in data["claims"] if c["name"] == "gb2")
    assert gb2["shape"] == [3] and gb2["entries"] == ["rounded"] * 3


def test_a_claim_of_the_wrong_shape_names_both_shapes(tmp_path):
    want = _two_layer_torch()
    transposed = [list(r) for r in zip(*_rounded6(want["gW1"]))]  # 3×2 for a 2×3
    (ex,) = load_file(_file(tmp_path, _two_layer_text({"gW1": transposed})))
    (c,) = check_exercise(ex).claims
    assert c.status == "wrong" and c.entries is None
    assert c.diagnosis.explanation == ("the claim is of shape 3×2, but the quantity is of "
                                       "shape 2×3")


# ------------------------------------------------------------------ softmax cross-entropy
SOFTMAX = """
[[exercise]]
id = "softmax-ce"
recipe = "formulas"

[exercise.given]
Z = [[2, 1, 0.1], [0.5, 2.5, -1], [0, 0, 0]]
y = [0, 1, 2]

[exercise.define]
P = "softmax(Z)"
loss = "cross_entropy(Z, y)"
gZ = "grad(loss, Z)"
"""


def test_softmax_cross_entropy_with_class_indices(tmp_path):
    values = answer_key(_one(tmp_path, SOFTMAX))
    Z = torch.tensor([[2, 1, 0.1], [0.5, 2.5, -1], [0, 0, 0]], dtype=f64, requires_grad=True)
    y = torch.tensor([0, 1, 2])
    loss = torch.nn.functional.cross_entropy(Z, y)
    loss.backward()
    _close(_floats(values["P"]), torch.softmax(Z, -1).tolist(), "P")
    _close(_floats(values["loss"]), loss.item(), "loss")
    _close(_floats(values["gZ"]), Z.grad.tolist(), "gZ")
    # the third row is uniform: softmax gives exactly 1/3, its gradient (1/3 − 1)/3 at y = 2
    assert values["P"][2] == [sp.Rational(1, 3)] * 3
    assert values["gZ"][2] == [sp.Rational(1, 9), sp.Rational(1, 9), sp.Rational(-2, 9)]


# ------------------------------------------------------------------ LayerNorm
LAYER_NORM = """
[[exercise]]
id = "layer-norm"
recipe = "formulas"

[exercise.given]
x = [[1, 2, 4], [-1, 0.5, 3]]
gamma = [1, 0.5, 2]
beta = [0, 0.1, -0.1]
R = [[1, -1, 0.5], [2, 0, -1]]

[exercise.define]
y = "layer_norm(x, weight=gamma, bias=beta)"
loss = "sum(y*R)"
gx = "grad(loss, x)"
ggamma = "grad(loss, gamma)"
"""


def test_layer_norm_against_torch(tmp_path):
    values = answer_key(_one(tmp_path, LAYER_NORM))
    x = torch.tensor([[1, 2, 4], [-1, 0.5, 3]], dtype=f64, requires_grad=True)
    gamma = torch.tensor([1, 0.5, 2], dtype=f64, requires_grad=True)
    beta = torch.tensor([0, 0.1, -0.1], dtype=f64)
    R = torch.tensor([[1, -1, 0.5], [2, 0, -1]], dtype=f64)
    y = torch.nn.functional.layer_norm(x, (3,), gamma, beta)  # eps 1e-5, biased variance
    loss = (y * R).sum()
    loss.backward()
    _close(_floats(values["y"]), y.tolist(), "y")
    _close(_floats(values["loss"]), loss.item(), "loss")
    _close(_floats(values["gx"]), x.grad.tolist(), "gx")
    _close(_floats(values["ggamma"]), gamma.grad.tolist(), "ggamma")


# ------------------------------------------------------------------ input errors, one line each
BASE = """
[[exercise]]
id = "e"
recipe = "formulas"

[exercise.given]
{given}

[exercise.define]
{define}
"""


@pytest.mark.parametrize("given, define, line", [
    ("W1 = [[1, -1], [2, 0.5, 3]]", 'z = "W1 @ W1"',
     "key 'given.W1[1]': has 3 entries where given.W1[0] has 2; every row of a matrix has "
     "the same length"),
    ("W1 = []", 'z = "W1"', "key 'given.W1': is an empty list; a tensor has at least one "
     "entry per dimension: x = [2, 1]"),
    ("W1 = [[1, {a = 1}]]", 'z = "W1"', "key 'given.W1[0][1]': is a table inside a tensor; "
     "write a tensor as nested lists of numbers: [[1, -1], [2, 0.5]]"),
    ("W1 = [1, true]", 'z = "W1"', "key 'given.W1[1]': is a boolean; write a number such as "
     '0.5 or "1/3"'),
    ("W1 = [1, [2]]", 'z = "W1"', "key 'given.W1[1]': is a list of 1 where given.W1[0] is a "
     "number; a row holds numbers only or lists only"),
    ('W1 = [["1/3", "abc"]]', 'z = "W1"', "key 'given.W1[0][1]': 'abc' is not a number"),
])
def test_a_bad_tensor_given_is_one_line(tmp_path, given, define, line):
    path = _file(tmp_path, BASE.format(given=given, define=define))
    with pytest.raises(ExerciseError) as err:
        load_file(path)
    assert line in str(err.value)
    assert "\n" not in str(err.value)


def test_a_shape_mismatch_in_matmul_names_both_shapes_and_the_column(tmp_path):
    path = _file(tmp_path, BASE.format(given="W = [[1, 2, 3], [4, 5, 6]]\nx = [1, 2]",
                                       define='z = "W @ x"'))
    with pytest.raises(ExerciseError) as err:
        load_file(path)
    msg = str(err.value)
    assert "key 'define.z'" in msg and "(2, 3)" in msg and "(2,)" in msg
    assert "column 3" in msg and "\n" not in msg


def test_tensor_entries_are_read_exactly_as_scalar_givens(tmp_path):
    """0.1 is 1/10 in a tensor as in a scalar given; "1/3" a third; 1e-5 one in 10⁵."""
    ex = _one(tmp_path, BASE.format(given='s = 0.1\nv = [0.1, "1/3", 1e-5]',
                                    define='z = "v*s"'))
    assert ex.given["v"] == [sp.Rational(1, 10), sp.Rational(1, 3), sp.Rational(1, 100_000)]
    assert answer_key(ex)["z"] == [sp.Rational(1, 100), sp.Rational(1, 30),
                                   sp.Rational(1, 1_000_000)]


def test_entry_nodes_are_neither_claimable_nor_mutated(tmp_path):
    """One quantity per tensor (not one per entry), and no generic scalar mutation of an
    entry of a tensor quantity: the loss's mistakes edit the loss's own formula only."""
    ex = _one(tmp_path, _two_layer_text())
    assert [q.name for q in ex.recipe.quantities] == ["Z1", "H", "Z2", "loss", "gW1", "gb1",
                                                        "gW2", "gb2"]
    entries = {e for t in ex.recipe.tensors.values() for e in t.entries}
    assert "Z1[1,2]" in entries and len(entries) == 6 + 6 + 9 + 6 + 2 + 6 + 3
    graph = ex.recipe.graph(Context(ex.recipe, ex.given))
    offered = mutations_of(graph, ["loss"], skip=frozenset(entries))["loss"]
    assert offered, "the scalar loss keeps its generic mutations"
    assert not any(set(v.replace) & entries for v in offered)
    tensor_wide = set(BY_ID)  # the whole-tensor mistakes come first (tensor_mistakes.py)
    assert [m.name for m in ex.recipe.mistakes if m.name not in tensor_wide] == [
        v.name for v in offered]
    unskipped = mutations_of(graph, ["loss"])["loss"]
    assert any(set(v.replace) & entries for v in unskipped)  # what the skip keeps out


# ------------------------------------------------------------------ properties
decimals = st.decimals(min_value=-50, max_value=50, places=3, allow_nan=False,
                       allow_infinity=False)


@examples(15, slow=100)
@given(rows=st.integers(1, 3), cols=st.integers(1, 3), data=st.data())
def test_matrix_times_vector_is_exact(tmp_path_factory, rows, cols, data):
    """W @ x + b for any small shape and decimals as written: exactly the Fraction result."""
    W = [[data.draw(decimals) for _ in range(cols)] for _ in range(rows)]
    x = [data.draw(decimals) for _ in range(cols)]
    b = [data.draw(decimals) for _ in range(rows)]
    text = BASE.format(given="\n".join([f"W = {_toml([[str(v) for v in r] for r in W])}",
                                        f"x = {_toml([str(v) for v in x])}",
                                        f"b = {_toml([str(v) for v in b])}"]),
                       define='z = "W @ x + b"')
    ex = _one(tmp_path_factory.mktemp("mv"), text)
    F = lambda d: Fraction(str(d))  # noqa: E731
    want = [sum(F(W[r][c]) * F(x[c]) for c in range(cols)) + F(b[r]) for r in range(rows)]
    assert answer_key(ex)["z"] == [sp.Rational(q.numerator, q.denominator) for q in want]


@examples(20, slow=200)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3), data=st.data())
def test_the_wrong_entries_of_a_claim_are_the_ones_changed(tmp_path_factory, shape, data):
    """A claim of a tensor given's own value (z = W) with some entries changed is wrong at
    exactly those entries, 1-based, and exact everywhere else."""
    import itertools
    cells = list(itertools.product(*(range(s) for s in shape)))
    values = {c: data.draw(st.integers(-9, 9)) for c in cells}
    changed = set(data.draw(st.lists(st.sampled_from(cells), unique=True, max_size=3)))

    def nest(prefix, f):
        if len(prefix) == len(shape):
            return f(tuple(prefix))
        return [nest([*prefix, i], f) for i in range(shape[len(prefix)])]
    given_ = nest([], lambda c: values[c])
    claim = nest([], lambda c: str(values[c] + (1 if c in changed else 0)))
    text = BASE.format(given=f"W = {_toml(given_)}", define='z = "W*1"')
    text += f"\n[exercise.claims]\nz = {_toml(claim)}\n"
    (c,) = check_exercise(_one(tmp_path_factory.mktemp("cl"), text)).claims
    assert c.shape == tuple(shape)
    assert c.wrong_at == sorted(tuple(i + 1 for i in cell) for cell in changed)
    assert c.status == ("wrong" if changed else "exact")


def test_the_exports_say_which_entries_are_wrong_in_english_and_chinese(tmp_path):
    want = _two_layer_torch()
    claim = _rounded6(want["gb2"])
    claim[2] = "0.5"
    (ex,) = load_file(_file(tmp_path, _two_layer_text({"gb2": claim})))
    report = check_exercise(ex)
    en = to_markdown(exercises_document([report], "en"))
    zh = to_markdown(exercises_document([report], "zh"))
    assert "— wrong at (3) of 3;" in en
    assert "— 错误 错在 (3)，共 3;" in zh
    assert "wrong at (3) of 3" in check_text([report])


def test_a_formula_answer_of_a_tensor_is_refused_in_one_line(tmp_path):
    text = _two_layer_text() + '\n[exercise.claims]\nZ1 = { formula = "X @ W1.T + b1" }\n'
    with pytest.raises(ExerciseError) as err:
        load_file(_file(tmp_path, text))
    assert str(err.value).endswith(
        "key 'claims.Z1.formula': not supported: formula answers for Z1, a tensor of shape "
        "3×2; claim its value as a nested list, one number per entry")


CARRY = """
[[exercise]]
id = "carry"
recipe = "formulas"

[exercise.given]
X = [[1, 2, -1], [0.5, -1, 2], [-1.5, 0, 1]]
W1 = [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]
b1 = [0.1, -0.1]

[exercise.define]
Z1 = "X @ W1.T + b1"
H = "relu(Z1)"
s = "sum(H)"

[exercise.claims]
Z1 = [[-0.5, 1.9], [0.95, 1.6], [0.25, -1.3]]
H = [[0, 1.9], [0.95, 1.6], [0.25, 0]]
s = 4.7
"""


def test_an_error_in_a_tensor_is_carried_forward_entry_by_entry(tmp_path):
    """Z1's entry (2,2) claimed 1.6 for −1.6: relu of the claimed Z1 keeps 1.6 (H wrong at
    (2,2) only) and the sum is 0.95 + 1.6 + 1.9 + 0.25 = 4.7; both follow from the claim."""
    report = check_exercise(_one(tmp_path, CARRY))
    got = {c.name: (c.wrong_at, c.diagnosis.carried_from) for c in report.claims}
    assert got == {"Z1": ([(2, 2)], None), "H": ([(2, 2)], "Z1"), "s": ([], "H")}
    h = next(c for c in report.claims if c.name == "H")
    assert h.diagnosis.explanation == ("follows correctly from your wrong Z1: the error is "
                                       "carried forward")


torch_decimals = st.integers(-2000, 2000).map(lambda n: f"{n / 1000:.3f}")
"""Decimals as torch prints them, 3 places, from −2 to 2."""


@examples(4, slow=40)
@given(batch=st.integers(1, 3), d=st.integers(1, 3), h=st.integers(1, 3),
       classes=st.integers(2, 3), data=st.data())
def test_any_small_two_layer_network_gives_torch_gradients(tmp_path_factory, batch, d, h,
                                                           classes, data):
    """X (B × d) → relu(X W1ᵀ + b1) → W2 (C × h) → cross-entropy with class indices: the loss
    and every gradient within 1e-12 of torch float64 autograd, for any shapes up to 3."""
    def matrix(rows, cols):
        return [[data.draw(torch_decimals) for _ in range(cols)] for _ in range(rows)]
    given_ = {"X": matrix(batch, d), "W1": matrix(h, d), "b1": matrix(1, h)[0],
              "W2": matrix(classes, h), "b2": matrix(1, classes)[0]}
    y = [data.draw(st.integers(0, classes - 1)) for _ in range(batch)]
    text = BASE.format(
        given="\n".join(f"{k} = {_toml(v)}" for k, v in given_.items()) + f"\ny = {y}",
        define="\n".join(['Z1 = "X @ W1.T + b1"', 'Z2 = "relu(Z1) @ W2.T + b2"',
                          'loss = "cross_entropy(Z2, y)"', 'gW1 = "grad(loss, W1)"',
                          'gb1 = "grad(loss, b1)"', 'gW2 = "grad(loss, W2)"',
                          'gb2 = "grad(loss, b2)"']))
    values = answer_key(_one(tmp_path_factory.mktemp("net"), text))
    g = {k: torch.tensor([[float(x) for x in r] for r in v] if isinstance(v[0], list)
                         else [float(x) for x in v], dtype=f64, requires_grad=k != "X")
         for k, v in given_.items()}
    Z1 = g["X"] @ g["W1"].T + g["b1"]
    loss = torch.nn.functional.cross_entropy(torch.relu(Z1) @ g["W2"].T + g["b2"],
                                             torch.tensor(y))
    loss.backward()
    _close(_floats(values["loss"]), loss.item(), "loss")
    for name in ("W1", "b1", "W2", "b2"):
        _close(_floats(values["g" + name]), g[name].grad.tolist(), "g" + name)


def test_a_ragged_claim_says_its_rows(tmp_path):
    claim = [["0", "1.9"], ["0.95", "0"], ["0.25", "0", "1"]]
    (ex,) = load_file(_file(tmp_path, _two_layer_text({"H": claim})))
    (c,) = check_exercise(ex).claims
    assert c.status == "wrong" and c.entries is None
    assert c.diagnosis.explanation == ("the claim is a ragged list (rows of 2, 2 and 3 "
                                       "entries), but the quantity is of shape 3×2")


def test_the_graph_rebuilt_under_a_mistaken_operation_gives_the_students_torch_code(tmp_path):
    """Recipe.rebuild(ops): the hook for whole-tensor mistakes. LayerNorm with the unbiased
    (n − 1) variance, written here from its definition, gives what a student's torch code with
    x.var(unbiased=True) gives, the gradients taken again from it."""
    from derive.graph.tensor import LAYER_NORM_EPS, Tensor
    from derive.graph.tensor_language import OPS
    from derive.recipes.graphed import Graphed

    def unbiased(x, eps=LAYER_NORM_EPS, weight=None, bias=None, column=None):
        n, rows = x.shape[-1], x.size // x.shape[-1]
        out = []
        for r in range(rows):
            xs = list(x.entries[r * n:(r + 1) * n])
            mean = sp.Add(*xs) / n
            var = sp.Add(*[(v - mean) ** 2 for v in xs]) / (n - 1)
            out += [(v - mean) / sp.sqrt(var + eps) * w + b
                    for v, w, b in zip(xs, weight.entries, bias.entries)]
        return Tensor(x.shape, tuple(out))

    ex = _one(tmp_path, LAYER_NORM)
    mistaken = ex.recipe.rebuild(dataclasses.replace(OPS, layer_norm=unbiased))
    graphed = Graphed(lambda ctx: mistaken, [])
    ctx = Context(ex.recipe, ex.given)
    got = {name: [[graphed.value(e)(ctx) for e in t.entries[r * 3:(r + 1) * 3]]
                  for r in range(2)] for name, t in ex.recipe.tensors.items()
           if name in ("y", "gx")}
    x = torch.tensor([[1, 2, 4], [-1, 0.5, 3]], dtype=f64, requires_grad=True)
    gamma = torch.tensor([1, 0.5, 2], dtype=f64)
    beta = torch.tensor([0, 0.1, -0.1], dtype=f64)
    mean = x.mean(-1, keepdim=True)
    y = (x - mean) / torch.sqrt(x.var(-1, unbiased=True, keepdim=True) + 1e-5) * gamma + beta
    (y * torch.tensor([[1, -1, 0.5], [2, 0, -1]], dtype=f64)).sum().backward()
    _close(_floats(got["y"]), y.tolist(), "y")
    _close(_floats(got["gx"]), x.grad.tolist(), "gx")
    right = answer_key(ex)
    assert _floats(right["y"])[0][0] != pytest.approx(y.tolist()[0][0])  # a different value


def test_an_exact_zero_of_exponentials_is_a_value_with_its_decimal(tmp_path, capsys):
    """Attention's ∂L/∂Q where the upstream gradient's row is constant, (0.5, 0.5): the row of
    ∂L/∂Q is exactly 0 (Σ_k A_k·(c − Σ_j A_j c) = 0), a sum of e^(√2/2)·… terms that no
    enclosure can give a sign. It was refused as "no certified decimal"; the exact zero test
    now proves it 0 as a rational function of the exponentials, so the claim 0.0000 holds
    (and the first row, by torch float64: 0.146294…, 0.438883…)."""
    from derive.cli.main import main
    f = tmp_path / "att.toml"
    f.write_text("""
[[exercise]]
id = "att-d"
recipe = "formulas"
[exercise.given]
Q = [[1, 0.5], [2, -1]]
Km = [[1, 1], [0.5, -0.5]]
V = [[1, 0], [0, 1]]
G = [[1, -1], [0.5, 0.5]]
dk = 2
[exercise.define]
S = "Q @ Km.T / sqrt(dk)"
A = "softmax(S, dim=-1)"
O = "A @ V"
loss = "sum(O * G)"
gQ = "grad(loss, Q)"
[exercise.claims]
gQ = [["0.1463", "0.4389"], ["0.0000", "0.0000"]]
""", encoding="utf-8")
    q = torch.tensor([[1, 0.5], [2, -1]], dtype=torch.float64, requires_grad=True)
    k = torch.tensor([[1, 1], [0.5, -0.5]], dtype=torch.float64)
    g = torch.tensor([[1, -1], [0.5, 0.5]], dtype=torch.float64)
    (torch.softmax(q @ k.T / 2 ** 0.5, dim=-1) * g).sum().backward()
    assert [round(v, 4) for v in q.grad[0].tolist()] == [0.1463, 0.4389]
    assert abs(q.grad[1]).max() < 1e-15
    capsys.readouterr()
    assert main(["check", str(f)]) == 0, capsys.readouterr()


def test_a_wrong_tensor_claim_is_named_as_what_feeds_a_later_wrong_claim(tmp_path, capsys):
    """loss = mse_loss(W @ x, y) reads z's entries: with z claimed wrong and loss wrong in a way
    no mistake explains (7; the right 5/2, from z's claim 5), the loss's line names z as the
    first wrong quantity it depends on (it said z 'is not used in computing it': the tensor
    quantity's entries were not traced); q = sum(x) does not read z."""
    from derive.cli.main import main
    f = tmp_path / "f.toml"
    f.write_text("""
[[exercise]]
id = "f"
recipe = "formulas"
[exercise.given]
W = [[1, 2], [3, 4]]
x = [1, -1]
y = [0, 1]
[exercise.define]
z = "W @ x"
loss = "mse_loss(z, y)"
[exercise.claims]
z = ["-1", "-2"]
loss = "7"
""", encoding="utf-8")
    capsys.readouterr()
    main(["check", str(f), "--format", "json"])
    claims = {c["name"]: c for c in json.loads(capsys.readouterr().out)["exercises"][0]["claims"]}
    assert claims["loss"]["status"] == "wrong"
    assert "the first wrong quantity is z" in claims["loss"]["diagnosis"]["explanation"]


def test_log_sum_exp_replaced_by_the_max_inside_log_softmax_is_named(tmp_path, capsys):
    """log_softmax(z) written z − max(z) (the student's torch: z - z.amax(-1, keepdim=True)):
    lse_max is named at log_softmax too, not only at logsumexp; one entry off is not."""
    from derive.cli.main import main
    z = torch.tensor([[0.4172, -1.3306, 0.9518], [2.0, 0.5, -0.25]], dtype=f64)
    wrong = (z - z.amax(-1, keepdim=True)).tolist()
    for rows, named in ((wrong, True), ([wrong[0], [round(v, 6) + 0.01 for v in wrong[1]]],
                                        False)):
        f = tmp_path / "l.toml"
        claim = "[" + ", ".join("[" + ", ".join(f'"{v:.6f}"' for v in r) + "]" for r in rows) + "]"
        f.write_text(f"""
[[exercise]]
id = "l"
recipe = "formulas"
[exercise.given]
z = [[0.4172, -1.3306, 0.9518], [2.0, 0.5, -0.25]]
[exercise.define]
L = "log_softmax(z, dim=-1)"
[exercise.claims]
L = {claim}
""", encoding="utf-8")
        capsys.readouterr()
        main(["check", str(f), "--format", "json"])
        c = json.loads(capsys.readouterr().out)["exercises"][0]["claims"][0]
        assert c["status"] == "wrong"
        assert (c["diagnosis"]["mistake"] == "lse_max") is named, c["diagnosis"]


def test_layer_norm_without_eps_on_a_constant_row_has_no_value(tmp_path, capsys):
    """(x − mean)/√(var + 0) on (2, 2, 2) is 0/0: torch gives nan, and derive has no value
    (exit 2, one line). The evaluator had taken 0·(1/√0) as 0 and called the claim (0, 0, 0)
    exact."""
    from derive.cli.main import main
    x = torch.tensor([2.0, 2.0, 2.0], dtype=f64)
    assert torch.isnan(torch.nn.functional.layer_norm(x, (3,), eps=0.0)).all()
    f = tmp_path / "ln.toml"
    f.write_text("""
[[exercise]]
id = "ln0"
recipe = "formulas"
[exercise.given]
x = [2, 2, 2]
eps = 0
[exercise.define]
y = "layer_norm(x, eps=eps)"
[exercise.claims]
y = ["0", "0", "0"]
""", encoding="utf-8")
    capsys.readouterr()
    assert main(["check", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "define.y" in err and "division by zero" in err
