"""derive/graph/sized.py (tensors of symbolic size, issue 36) against derive/graph/tensor.py
(the same operations on concrete shapes, checked against torch in tests/test_tensor_torch.py)
and, where the values are rational, against Fraction arithmetic written out here.

Each property draws concrete sizes 1–3 and small rational entries (p/q, |p| ≤ 3, q ≤ 3), builds
the operation once with symbolic sizes, writes it out with `sized.concrete`, and requires every
entry to equal tensor.py's exactly: rational entries by ==, transcendental ones (softmax,
LayerNorm) by a difference that SymPy reduces to 0 (never a float). Broadcasting follows torch's
rule with symbolic sizes; shapes that do not fit are a TensorShapeError naming both shapes.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from derive.graph import sized, tensor
from derive.graph.tensor import Tensor, TensorShapeError
from derive.kernel.exact import is_zero_exact
from tests.support import examples

B, m, n = sized.size("B"), sized.size("m"), sized.size("n")
SIZE = st.integers(1, 3)
NUMBER = st.builds(Fraction, st.integers(-3, 3), st.integers(1, 3))


def draw_nested(data, shape):
    if not shape:
        return data.draw(NUMBER)
    return [draw_nested(data, shape[1:]) for _ in range(shape[0])]


def exact(nested):
    if isinstance(nested, list):
        return [exact(v) for v in nested]
    return sp.Rational(nested.numerator, nested.denominator)


def same(a, b) -> bool:
    """Exactly equal: structurally, or the kernel's exact zero test says the difference is 0
    (a certified enclosure away from 0 says it is not; no float decides), else SymPy's
    simplify reduces it to 0."""
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(same(x, y) for x, y in zip(a, b)))
    a, b = sp.sympify(a), sp.sympify(b)
    if a == b:
        return True
    zero = is_zero_exact(a - b)
    if zero is not None:
        return zero
    return sp.simplify(sp.expand(a - b)) == 0


def nested_of(t: Tensor):
    return t.nested()


def fr(x):
    """A SymPy rational as a Fraction (the reference arithmetic)."""
    x = sp.Rational(x)
    return Fraction(int(x.p), int(x.q))


# ------------------------------------------------------------------ rational operations: Fractions
@examples(25)
@given(st.data())
def test_matmul_transpose_outer_against_fractions(data):
    sizes = {m: data.draw(SIZE), n: data.draw(SIZE)}
    W = draw_nested(data, (sizes[m], sizes[n]))
    x = draw_nested(data, (sizes[n],))
    b = draw_nested(data, (sizes[m],))
    d = draw_nested(data, (sizes[m],))
    values = {"W": exact(W), "x": exact(x), "b": exact(b), "d": exact(d)}
    Ws, xs, bs, ds = (sized.given("W", m, n), sized.given("x", n), sized.given("b", m),
                      sized.given("d", m))
    z = sized.concrete(Ws @ xs + bs, sizes, values)
    assert [fr(v) for v in z] == [sum(W[i][k] * x[k] for k in range(sizes[n])) + b[i]
                                  for i in range(sizes[m])]
    wt = sized.concrete(Ws.T @ ds, sizes, values)
    assert [fr(v) for v in wt] == [sum(W[i][k] * d[i] for i in range(sizes[m]))
                                   for k in range(sizes[n])]
    o = sized.concrete(sized.outer(ds, xs), sizes, values)
    assert [[fr(v) for v in row] for row in o] == [[di * xk for xk in x] for di in d]
    t = sized.concrete(Ws.T, sizes, values)
    assert [[fr(v) for v in row] for row in t] == [list(col) for col in zip(*W)]
    dot = sized.concrete(xs @ xs, sizes, values)
    assert fr(dot) == sum(v * v for v in x)
    square = draw_nested(data, (sizes[n], sizes[n]))
    sq = sized.concrete(sized.given("S", n, n).T @ xs, sizes, {"S": exact(square), "x": exact(x)})
    assert [fr(v) for v in sq] == [sum(square[k][i] * x[k] for k in range(sizes[n]))
                                   for i in range(sizes[n])]


@examples(25)
@given(st.data())
def test_sum_mean_mse_against_fractions(data):
    sizes = {B: data.draw(SIZE), n: data.draw(SIZE)}
    X = draw_nested(data, (sizes[B], sizes[n]))
    Y = draw_nested(data, (sizes[B], sizes[n]))
    values = {"X": exact(X), "Y": exact(Y)}
    Xs, Ys = sized.given("X", B, n), sized.given("Y", B, n)
    rows = sized.concrete(sized.reduce("sum", Xs, 1), sizes, values)
    assert [fr(v) for v in rows] == [sum(r) for r in X]
    cols = sized.concrete(sized.reduce("mean", Xs, 0, keepdim=True), sizes, values)
    assert [[fr(v) for v in row] for row in cols] == [[sum(c) / sizes[B] for c in zip(*X)]]
    everything = sized.concrete(sized.reduce("mean", Xs), sizes, values)
    assert fr(everything) == sum(sum(r) for r in X) / (sizes[B] * sizes[n])
    mse = sized.concrete(sized.mse_loss(Xs, Ys), sizes, values)
    assert fr(mse) == sum((a - b) ** 2 for ra, rb in zip(X, Y) for a, b in zip(ra, rb)) / (
        sizes[B] * sizes[n])


@examples(25)
@given(st.data())
def test_compare_and_relu_are_torch_at_the_tie(data):
    sizes = {n: data.draw(SIZE)}
    x = draw_nested(data, (sizes[n],))
    xs = sized.given("x", n)
    values = {"x": exact(x)}
    zero = sized.scalar(sp.S.Zero)
    assert [int(v) for v in sized.concrete(sized.compare(">", xs, zero), sizes, values)] == [
        int(v > 0) for v in x]
    assert [int(v) for v in sized.concrete(sized.compare(">=", xs, zero), sizes, values)] == [
        int(v >= 0) for v in x]
    assert [int(v) for v in sized.concrete(sized.compare("<", xs, zero), sizes, values)] == [
        int(v < 0) for v in x]
    assert [fr(v) for v in sized.concrete(sized.relu(xs), sizes, values)] == [
        max(v, 0) for v in x]


# ------------------------------------------------------------------ every operation: tensor.py
def both(data, shapes):
    """Draw sizes and entries; return (sizes, values, {name: (Sized, Tensor)})."""
    sizes = {s: data.draw(SIZE) for s in {s for shape in shapes.values() for s in shape}}
    values, pairs = {}, {}
    for name, shape in shapes.items():
        concrete_shape = tuple(sizes[s] for s in shape)
        v = exact(draw_nested(data, concrete_shape))
        values[name] = v
        pairs[name] = (sized.given(name, *shape), Tensor.of(v))
    return sizes, values, pairs


@examples(20)
@given(st.data())
def test_softmax_log_softmax_logsumexp_equal_tensor_py(data):
    sizes, values, p = both(data, {"Z": (B, n)})
    Zs, Zt = p["Z"]
    for dim in (0, 1, -1):
        assert same(sized.concrete(sized.softmax(Zs, dim), sizes, values),
                    nested_of(tensor.softmax(Zt, dim)))
        assert same(sized.concrete(sized.log_softmax(Zs, dim), sizes, values),
                    nested_of(tensor.log_softmax(Zt, dim)))
    assert same(sized.concrete(sized.logsumexp(Zs, -1), sizes, values),
                nested_of(tensor.logsumexp(Zt, -1)))
    assert same(sized.concrete(sized.logsumexp(Zs, 0, keepdim=True), sizes, values),
                nested_of(tensor.logsumexp(Zt, 0, keepdim=True)))
    assert same(sized.concrete(sized.exp(Zs), sizes, values),
                nested_of(tensor.elementwise("exp", Zt)))


@examples(20)
@given(st.data(), st.sampled_from([0, sp.Rational(1, 10), sp.Rational(1, 5)]))
def test_cross_entropy_with_probability_targets_equals_tensor_py(data, eps):
    sizes, values, p = both(data, {"Z": (B, n), "Q": (B, n)})
    (Zs, Zt), (Qs, Qt) = p["Z"], p["Q"]
    assert same(sized.concrete(sized.cross_entropy(Zs, Qs, label_smoothing=eps), sizes, values),
                tensor.cross_entropy(Zt, Qt, label_smoothing=eps).item)


@examples(15)
@given(st.data(), st.booleans())
def test_layer_norm_equals_tensor_py(data, affine):
    sizes, values, p = both(data, {"X": (B, n), "w": (n,), "c": (n,)})
    (Xs, Xt), (ws, wt), (cs, ct) = p["X"], p["w"], p["c"]
    eps = sp.Rational(1, 10)
    got = sized.concrete(sized.layer_norm(Xs, eps=eps, weight=ws if affine else None,
                                          bias=cs if affine else None), sizes, values)
    want = tensor.layer_norm(Xt, eps=eps, weight=wt if affine else None,
                             bias=ct if affine else None)
    assert same(got, nested_of(want))


@examples(15)
@given(st.data())
def test_grad_of_a_linear_layer_equals_tensor_py(data):
    """grad(mse_loss(W x + b, y), W) and (…, b): sized's entries differentiated after the
    write-out, tensor.py's written out from entry symbols, both at the same numbers."""
    sizes = {m: data.draw(SIZE), n: data.draw(SIZE)}
    shapes = {"W": (m, n), "x": (n,), "b": (m,), "y": (m,)}
    values = {k: exact(draw_nested(data, tuple(sizes[s] for s in shape)))
              for k, shape in shapes.items()}
    S = {k: sized.given(k, *shape) for k, shape in shapes.items()}
    T = {k: tensor.symbols(k, tuple(sizes[s] for s in shape)) for k, shape in shapes.items()}
    at = {sp.Symbol(tensor.entry_name(k, ix), real=True): values[k][ix[0]] if len(ix) == 1
          else values[k][ix[0]][ix[1]]
          for k, shape in shapes.items()
          for ix in itertools.product(*(range(sizes[s]) for s in shape))}
    loss_s = sized.mse_loss(S["W"] @ S["x"] + S["b"], S["y"])
    loss_t = tensor.mse_loss(tensor.binary("+", tensor.matmul(T["W"], T["x"]), T["b"]), T["y"])
    for wrt in ("W", "b"):
        got = sized.concrete(sized.grad(loss_s, S[wrt]), sizes, values)
        want = tensor.grad(loss_t, T[wrt]).map(lambda e: e.doit().xreplace(at))
        assert got == nested_of(want)


@examples(20)
@given(st.data())
def test_broadcasting_row_and_column_equal_tensor_py(data):
    sizes, values, p = both(data, {"X": (B, n), "r": (n,)})
    (Xs, Xt), (rs, rt) = p["X"], p["r"]
    col_values = [[v] for v in exact(draw_nested(data, (sizes[B],)))]
    values["c"] = col_values
    cs, ct = sized.given("c", B, 1), Tensor.of(col_values)
    for op in ("+", "-", "*"):
        assert sized.concrete(sized.binary(op, Xs, rs), sizes, values) == nested_of(
            tensor.binary(op, Xt, rt))
        assert sized.concrete(sized.binary(op, rs, Xs), sizes, values) == nested_of(
            tensor.binary(op, rt, Xt))
        assert sized.concrete(sized.binary(op, Xs, cs), sizes, values) == nested_of(
            tensor.binary(op, Xt, ct))
    assert sized.concrete(Xs * 2 - 1, sizes, values) == nested_of(
        tensor.binary("-", tensor.binary("*", Xt, Tensor.scalar(2)), Tensor.scalar(1)))


# ------------------------------------------------------------------ shapes
def test_broadcasting_with_symbolic_sizes():
    assert sized.broadcast((B, n), (n,), "+") == (B, n)
    assert sized.broadcast((B, 1), (1, n), "+") == (B, n)
    assert sized.broadcast((), (m, n), "*") == (m, n)


@pytest.mark.parametrize("build, words", [
    (lambda: sized.given("X", B, n) + sized.given("y", m), ["(B, n)", "(m,)"]),
    (lambda: sized.given("W", m, n) @ sized.given("v", m), ["(m, n)", "(m,)", "inner"]),
    (lambda: sized.given("W", m, n) @ sized.scalar(sp.S.One), ["(m, n)", "()"]),
    (lambda: sized.mse_loss(sized.given("a", n), sized.given("b", m)), ["(n,)", "(m,)"]),
    (lambda: sized.layer_norm(sized.given("x", n), weight=sized.given("g", m)), ["(m,)"]),
    (lambda: sized.cross_entropy(sized.given("z", B, n), sized.given("q", B, m)),
     ["(B, n)", "(B, m)"]),
    (lambda: sized.entrywise(sized.given("a", n), sized.given("b", m)), ["(n,)", "(m,)"]),
    (lambda: sized.backward(sized.given("d", n), sized.given("W", m, n) @ sized.given("x", n),
                            sized.given("x", n)), ["(n,)", "(m,)"]),
    (lambda: sized.grad(sized.given("z", n), sized.given("x", n)), ["(n,)", "not a number"]),
    (lambda: sized.softmax(sized.given("z", n), dim=1), ["dim=1"]),
])
def test_shapes_that_do_not_fit_are_refused_naming_them(build, words):
    with pytest.raises(TensorShapeError) as err:
        build()
    for w in words:
        assert w in str(err.value)


def test_different_symbols_are_different_sizes_even_where_tensor_py_would_agree():
    """(n,) + (m,) is refused at symbolic size, although at n = m tensor.py (and torch) add
    them: an identity stated for every n and m cannot assume n = m."""
    with pytest.raises(TensorShapeError):
        sized.given("a", n) + sized.given("b", m)
    assert tensor.binary("+", Tensor.of([1, 2]), Tensor.of([3, 4])).nested() == [4, 6]


def test_entrywise_gives_free_indices_with_their_range_facts():
    lhs, rhs, idx, facts = sized.entrywise(sized.given("W", m, n), sized.given("V", m, n))
    p, q = idx
    assert lhs == sp.IndexedBase("W", real=True)[p, q]
    assert [f.describe() for f in facts] == ["p - 1 ≥ 0", "m - p ≥ 0", "q - 1 ≥ 0",
                                            "n - q ≥ 0"]


def test_backward_is_the_chain_rule_the_board_writes():
    """Σ_i δ_i ∂z_i/∂W[p, q] at m = 2, n = 3 and numbers: δ_p·x_q, by hand."""
    W, x, b, d = (sized.given("W", m, n), sized.given("x", n), sized.given("b", m),
                  sized.given("d", m))
    got = sized.concrete(sized.backward(d, W @ x + b, W), {m: 2, n: 3},
                         {"W": [[1, 2, 3], [4, 5, 6]], "x": [7, 8, 9], "b": [0, 1],
                          "d": [sp.Rational(1, 2), -2]})
    assert got == [[sp.Rational(7, 2), 4, sp.Rational(9, 2)], [-14, -16, -18]]
