"""derive/graph/tensor.py against PyTorch in float64 (issue 35 item 2): every operation of the
tensor language on shapes hypothesis draws (up to 3 dims of up to 4) and data as torch prints
it (decimals of 4 places such as -1.3306, and small exact integers, where ties and kinks are).

derive's entries are exact SymPy expressions of exact data; each is evaluated by the scalar
engine (derive/graph/evaluate.py: exact, its steps decided by exact or certified signs, torch's
values at kinks) and turned into a float only to be compared, from a certified enclosure of
its exact value (derive/kernel/intervals.py) where it is not rational. torch computes the same operation in float64 from the floats nearest the data. They must agree to
1e-12 relative, or 1e-12 absolute below 1: where a value is a difference of inputs of order 1
(x − mean(x) in layer_norm, a sum of products of mixed signs), torch's float64 error is a few
ulps of the inputs, not of the result, and an exact 0 has no relative error.

Gradients: for L = Σ output · random weights (exact decimals), `tensor.grad(L, W)` written out
by sympy.diff is checked against torch autograd's W.grad: the same shape, the same layout, and
each entry within the same tolerance. Shapes: every pair torch refuses is refused too, with a
TensorShapeError that names both shapes.

Where tensor.py and torch differed, the difference became a test of its own (the tie of three
in max over a dimension: torch.amax splits it evenly, SymPy's Max gave each ½); none is open.
Where derive refuses what torch computes (softmax of a number, logits of three dims), a test
says that it refuses, naming the shape.

DERIVE_SLOW=1 (or HYPOTHESIS_PROFILE=thorough) runs more examples."""

from __future__ import annotations

import math
import os
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import assume, given, note
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

if os.environ.get("DERIVE_SKIP_TORCH") == "1":
    torch = pytest.importorskip("torch")
else:
    import torch

from support import examples

from derive.graph import evaluate
from derive.graph import tensor as T
from derive.graph.tensor import Tensor, TensorShapeError
from derive.kernel import intervals

F = torch.nn.functional
pytestmark = pytest.mark.filterwarnings("ignore:Using a target size:UserWarning")
"""torch's warning as mse_loss broadcasts unequal shapes, which the shape tests ask for."""
REL = 1e-12
"""The tolerance: relative, or absolute below 1 (see the module's docstring)."""

N = 25
SLOW = 200
"""Examples per property by default, and with DERIVE_SLOW=1."""

COLUMN = 7
"""The column passed to every operation: a shape error names it."""


# ---------------------------------------------------------------------------------------------
# exact values, floats only to compare

def exact_float(e, env: dict | None = None) -> float:
    """The float of an entry's exact value, as the scalar engine computes it
    (derive/graph/evaluate.py, which decides every step by an exact or certified sign and takes
    torch's value at a kink: relu′(0) = 0, sign′ = 0): correctly rounded from a rational, else
    the midpoint of a certified enclosure at least 2^−100 narrow (relative above 1), which an
    exact 0 that SymPy leaves written (softmax's Σ∂/∂z, a sum of exp terms) has too. `env`: the
    entry symbols' exact values, by name."""
    v = evaluate.compiled(sp.sympify(e) if isinstance(e, int) else e)(env or {}, {})
    if not isinstance(v, sp.Basic):
        return float(Fraction(int(v.numerator), int(v.denominator)))
    if v.is_Rational:
        return float(Fraction(int(v.p), int(v.q)))
    box = intervals.enclose(v, 256)
    assert box is not None, f"{v}: no enclosure"
    lo, hi = (Fraction(int(q.p), int(q.q)) for q in box)
    mid = (lo + hi) / 2
    assert hi - lo <= Fraction(1, 2 ** 100) * max(abs(mid), 1), f"{v}: enclosure too wide"
    return float(mid)


def close(exact: float, torch_value: float) -> bool:
    if math.isnan(torch_value) or math.isinf(torch_value):
        return False
    return abs(exact - torch_value) <= REL * max(abs(exact), 1.0)


def agree(derived: Tensor, reference: torch.Tensor, what: str, env: dict | None = None) -> None:
    """derive's Tensor has torch's shape, and each entry, row-major, torch's value."""
    assert tuple(derived.shape) == tuple(reference.shape), \
        f"{what}: shape {derived.shape}, torch {tuple(reference.shape)}"
    flat = reference.detach().reshape(-1).tolist()
    assert len(derived.entries) == len(flat)
    for k, (e, t) in enumerate(zip(derived.entries, flat, strict=True)):
        v = exact_float(e, env)
        assert close(v, t), f"{what}: entry {k} (row-major) is {v!r} = {e}, torch {t!r}"


# ---------------------------------------------------------------------------------------------
# data as torch prints it

DECIMALS = st.integers(-30_000, 30_000).map(lambda n: Fraction(n, 10_000))
INTEGERS = st.integers(-3, 3).map(Fraction)
NUMBERS = st.one_of(DECIMALS, INTEGERS)
"""An entry: a decimal of 4 places in [−3, 3] (as torch prints -1.3306), or an integer."""
POSITIVE = st.one_of(st.integers(1, 30_000).map(lambda n: Fraction(n, 10_000)),
                     st.integers(1, 3).map(Fraction))
NONZERO = NUMBERS.filter(bool)

SIDE = st.integers(1, 4)


def shapes(min_dims: int = 0, max_dims: int = 3):
    return st.lists(SIDE, min_size=min_dims, max_size=max_dims).map(tuple)


def size(shape) -> int:
    return math.prod(shape)


HEAVY = None if os.environ.get("DERIVE_SLOW") == "1" else 24
"""Most entries of an operand of softmax, log_softmax, logsumexp and layer_norm by default
(every shape up to 4 × 4 × 4 with DERIVE_SLOW=1): sympy.diff of layer_norm over 4 × 4 × 4
takes 4.7 s, most of the file's default budget."""


def heavy_shapes(min_dims: int = 1, max_dims: int = 3):
    return shapes(min_dims, max_dims).filter(lambda s: HEAVY is None or size(s) <= HEAVY)


@st.composite
def broadcast_pair(draw, min_dims: int = 0):
    """Two shapes torch broadcasts: the result's shape, each operand some of its trailing dims
    with some of them 1 (every compatible pair up to 3 dims of up to 4)."""
    out = draw(shapes(min_dims))

    def operand():
        kept = out[len(out) - draw(st.integers(0, len(out))):]
        return tuple(1 if draw(st.booleans()) else n for n in kept)
    return operand(), operand()


def names_both(error: TensorShapeError, a, b) -> None:
    """The message names both shapes as torch prints them, and the column."""
    text = str(error)
    assert str(tuple(a)) in text and str(tuple(b)) in text and f"at column {COLUMN}" in text, \
        text


def refused_by_torch(fn) -> bool:
    try:
        fn()
    except (RuntimeError, IndexError, ValueError):
        return True
    return False


@st.composite
def incompatible_pair(draw):
    """Two shapes torch does not broadcast: in one dimension (from the right) present in both,
    sizes that differ and neither 1 (every such pair up to 3 dims of up to 4)."""
    a, b = list(draw(shapes(1))), list(draw(shapes(1)))
    k = draw(st.integers(1, min(len(a), len(b))))
    a[-k] = draw(st.integers(2, 4))
    b[-k] = draw(st.integers(2, 4).filter(lambda n: n != a[-k]))
    return tuple(a), tuple(b)


def ones(shape) -> Tensor:
    return Tensor(tuple(shape), (sp.S.One,) * size(shape))


class Arg:
    """One operand: its shape and exact data, as derive's Tensor (of Rationals, or of Symbols
    for a gradient) and as torch's float64 tensor."""

    def __init__(self, name: str, shape, data):
        self.name, self.shape, self.data = name, tuple(shape), list(data)
        assert len(self.data) == size(self.shape)

    def exact(self) -> Tensor:
        return Tensor(self.shape, tuple(sp.Rational(f.numerator, f.denominator)
                                        for f in self.data))

    def symbols(self) -> Tensor:
        return T.symbols(self.name, self.shape)

    def values(self) -> dict:
        """Each entry symbol's exact value (a Fraction), as the evaluator reads it."""
        return dict(zip(self.symbols().entries, self.data, strict=True))

    def torch(self, grad: bool = False) -> torch.Tensor:
        t = torch.tensor([float(f) for f in self.data], dtype=torch.float64).reshape(self.shape)
        return t.requires_grad_(grad)


def data(draw, shape, elements=NUMBERS):
    n = size(shape)
    return draw(st.lists(elements, min_size=n, max_size=n))


def arg(draw, name, shape, elements=NUMBERS) -> Arg:
    return Arg(name, shape, data(draw, shape, elements))


def _note(text: str) -> None:
    """hypothesis's note, in a property (a fixed example has nothing to note into)."""
    try:
        note(text)
    except InvalidArgument:
        pass


def check(draw, derive_op, torch_op, args: list[Arg], grad_of: tuple[int, ...] = ()) -> None:
    """derive_op on exact Tensors against torch_op on float64 tensors; then, for each operand
    in `grad_of`, tensor.grad(Σ output·weights, operand) against torch's .grad."""
    _note(f"shapes {[a.shape for a in args]}")
    out = derive_op(*[a.exact() for a in args])
    ref = torch_op(*[a.torch() for a in args])
    agree(out, ref, "value")
    if not grad_of:
        return
    weights = data(draw, out.shape, NUMBERS)
    _note(f"weights {weights}")
    inputs = [a.symbols() if k in grad_of else a.exact() for k, a in enumerate(args)]
    env = {s.name: v for k in grad_of for s, v in args[k].values().items()}
    sym_out = derive_op(*inputs)
    loss = Tensor((), (sp.Add(*[e * sp.Rational(w.numerator, w.denominator)
                                for e, w in zip(sym_out.entries, weights, strict=True)]),))
    leaves = [a.torch(grad=k in grad_of) for k, a in enumerate(args)]
    t_out = torch_op(*leaves)
    w = torch.tensor([float(f) for f in weights], dtype=torch.float64).reshape(t_out.shape)
    (t_out * w).sum().backward()
    for k in grad_of:
        g = T.grad(loss, inputs[k], column=COLUMN)
        written = g.map(lambda e: e.doit())
        expected = leaves[k].grad
        if expected is None:  # torch: no path from the output to this operand
            expected = torch.zeros_like(leaves[k])
        agree(written, expected, f"∂L/∂{args[k].name}", env)


# ---------------------------------------------------------------------------------------------
# + − * / ^ with broadcasting

BINARY = {"+": torch.add, "-": torch.sub, "*": torch.mul, "/": torch.div, "^": torch.pow}


@pytest.mark.parametrize("op", list(BINARY))
@examples(N, slow=SLOW)
@given(st.data())
def test_binary_broadcasts_as_torch(op, d):
    sa, sb = d.draw(broadcast_pair())
    grads = (0, 1)
    if op == "/":
        a, b = arg(d.draw, "a", sa), arg(d.draw, "b", sb, NONZERO)
    elif op == "^":  # a positive base to any power, or any base to a small integer
        if d.draw(st.booleans()):
            a, b = arg(d.draw, "a", sa, POSITIVE), arg(d.draw, "b", sb)
        else:  # (−1.3306)^2: the derivative in the exponent, log of a negative, has no value
            a = arg(d.draw, "a", sa, NONZERO)
            b = arg(d.draw, "b", sb, st.integers(0, 3).map(Fraction))
            grads = (0,)
    else:
        a, b = arg(d.draw, "a", sa), arg(d.draw, "b", sb)
    check(d.draw, lambda x, y: T.binary(op, x, y, column=COLUMN), BINARY[op], [a, b], grad_of=grads)


@pytest.mark.parametrize("op", list(BINARY))
@examples(N, slow=SLOW)
@given(incompatible_pair())
def test_binary_refuses_what_torch_refuses(op, pair):
    a, b = pair
    assert refused_by_torch(lambda: BINARY[op](torch.ones(a), torch.ones(b)))
    with pytest.raises(TensorShapeError) as e:
        T.binary(op, ones(a), ones(b), column=COLUMN)
    names_both(e.value, a, b)


# ---------------------------------------------------------------------------------------------
# comparisons: 0/1 tensors

COMPARE = {">": torch.gt, ">=": torch.ge, "<": torch.lt, "<=": torch.le}


@pytest.mark.parametrize("op", list(COMPARE))
@examples(N, slow=SLOW)
@given(st.data())
def test_compare_as_torch(op, d):
    sa, sb = d.draw(broadcast_pair())
    small = st.integers(-2, 2).map(Fraction)  # ties as often as not
    a, b = arg(d.draw, "a", sa, st.one_of(small, NUMBERS)), arg(d.draw, "b", sb, small)
    check(d.draw, lambda x, y: T.compare(op, x, y, column=COLUMN),
          lambda x, y: COMPARE[op](x, y).to(torch.float64), [a, b])


@pytest.mark.parametrize("op", list(COMPARE))
@examples(N, slow=SLOW)
@given(incompatible_pair())
def test_compare_refuses_what_torch_refuses(op, pair):
    a, b = pair
    assert refused_by_torch(lambda: COMPARE[op](torch.ones(a), torch.ones(b)))
    with pytest.raises(TensorShapeError) as e:
        T.compare(op, ones(a), ones(b), column=COLUMN)
    names_both(e.value, a, b)


# ---------------------------------------------------------------------------------------------
# matmul and transpose

@st.composite
def matmul_shapes(draw):
    """Vector, matrix and batched operands of torch.matmul whose inner sizes agree, batch
    dims broadcasting."""
    n, m, p = draw(SIDE), draw(SIDE), draw(SIDE)
    batch = draw(shapes(0, 1))
    ka, kb = draw(st.sampled_from(["vector", "matrix", "batch"])), \
        draw(st.sampled_from(["vector", "matrix", "batch"]))

    def batched():
        return tuple(1 if draw(st.booleans()) else s for s in batch)
    a = {"vector": (m,), "matrix": (n, m), "batch": batched() + (n, m)}[ka]
    b = {"vector": (m,), "matrix": (m, p), "batch": batched() + (m, p)}[kb]
    return a, b


@examples(N, slow=SLOW)
@given(st.data())
def test_matmul_as_torch(d):
    sa, sb = d.draw(matmul_shapes())
    check(d.draw, lambda x, y: T.matmul(x, y, column=COLUMN), torch.matmul,
          [arg(d.draw, "a", sa), arg(d.draw, "b", sb)], grad_of=(0, 1))


@examples(N, slow=SLOW)
@given(shapes(0, 3), shapes(0, 3))
def test_matmul_refuses_what_torch_refuses(a, b):
    assume(refused_by_torch(lambda: torch.matmul(torch.ones(a), torch.ones(b))))
    with pytest.raises(TensorShapeError) as e:
        T.matmul(ones(a), ones(b), column=COLUMN)
    names_both(e.value, a, b)


@examples(N, slow=SLOW)
@given(st.data())
def test_transpose_as_torch_T(d):
    shape = d.draw(shapes(0, 3))  # torch's .T on 3 dims reverses them (and warns)
    check(d.draw, lambda x: T.transpose(x, column=COLUMN),
          lambda x: x.permute(tuple(reversed(range(x.ndim)))), [arg(d.draw, "a", shape)],
          grad_of=(0,))


# ---------------------------------------------------------------------------------------------
# element-wise functions

ELEMENTWISE = {"exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt, "abs": torch.abs,
               "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": torch.relu,
               "sign": torch.sign, "softplus": F.softplus}
"""tensor.py's element-wise functions (softplus beyond the spec's list; torch's threshold 20 is
beyond the data's ±3)."""


@pytest.mark.parametrize("fname", list(ELEMENTWISE))
@examples(N, slow=SLOW)
@given(st.data())
def test_elementwise_as_torch(fname, d):
    shape = d.draw(shapes())
    elements = POSITIVE if fname in ("log", "sqrt") else NUMBERS
    check(d.draw, lambda x: T.elementwise(fname, x, column=COLUMN), ELEMENTWISE[fname],
          [arg(d.draw, "a", shape, elements)], grad_of=(0,))


@pytest.mark.parametrize("fname", ["relu", "abs", "sign"])
def test_relu_abs_and_sign_at_zero_take_torch_derivative(fname):
    """relu′(0) = 0, |x|′(0) = 0 and sign′(0) = 0 (SymPy's 2·δ(0), which the evaluator takes
    as torch does), as torch's backward: a fixed example beside the drawn ones."""
    x = Arg("x", (3,), [Fraction(0), Fraction(-1), Fraction(2)])
    check(lambda s: [Fraction(1)] * 3, lambda t: T.elementwise(fname, t, column=COLUMN),
          ELEMENTWISE[fname], [x], grad_of=(0,))


# ---------------------------------------------------------------------------------------------
# reductions

@st.composite
def reduction(draw, min_dims: int = 0):
    """A shape, and a dim (None for all, else −ndim … ndim−1) with keepdim."""
    shape = draw(shapes(min_dims))
    dim = None if not shape or draw(st.booleans()) else \
        draw(st.integers(-len(shape), len(shape) - 1))
    return shape, dim, draw(st.booleans())


MAX_OF_ALL = 16 if HEAVY is None else 8
"""Most entries of max over all entries: sympy.diff of the max of n entries, for every entry,
took 0.3 s for n = 8, 4.3 s for 16, 14.5 s for 24 and 304 s for 64 (measured on this 2-core
machine at a load of 7-8)."""

REDUCE = {"sum": torch.sum, "mean": torch.mean, "max": torch.amax}
"""max is torch.amax: its values, and at a tie its gradient split evenly."""


def torch_reduce(kind, dim, keepdim):
    def run(x):
        if dim is None:
            return REDUCE[kind](x, dim=tuple(range(x.ndim)), keepdim=keepdim) if keepdim \
                else REDUCE[kind](x)
        return REDUCE[kind](x, dim=dim, keepdim=keepdim)
    return run


@pytest.mark.parametrize("kind", list(REDUCE))
@examples(N, slow=SLOW)
@given(st.data())
def test_reduce_as_torch(kind, d):
    shape, dim, keepdim = d.draw(reduction())
    small = st.integers(-1, 1).map(Fraction)  # ties: the gradient split as amax splits it
    a = arg(d.draw, "a", shape, st.one_of(small, NUMBERS))
    if kind == "max":
        assume(dim is not None or size(shape) <= MAX_OF_ALL)
    note(f"dim={dim} keepdim={keepdim}")
    check(d.draw, lambda x: T.reduce(kind, x, dim=dim, keepdim=keepdim, column=COLUMN),
          torch_reduce(kind, dim, keepdim), [a], grad_of=(0,))


@pytest.mark.parametrize("data", [(0, 0, 0), (0, 0, 0, 0), (1, -2, 1)])
def test_max_of_three_at_a_tie(data):
    """max(0, 0, 0): torch.amax's gradient is (⅓, ⅓, ⅓); max(1, −2, 1): (½, 0, ½). derive gave
    each ½ (SymPy's Heaviside(0) in ∂Max: 3/2 in all), which the evaluator refused, until AMax."""
    x = Arg("x", (len(data),), [Fraction(v) for v in data])
    check(lambda s: [Fraction(1)], lambda t: T.reduce("max", t, dim=0, column=COLUMN),
          lambda t: torch.amax(t, dim=0), [x], grad_of=(0,))


def test_max_of_two_at_a_tie():
    """max(1, 1): torch.amax's gradient is (½, ½), and derive's (H(0) = ½)."""
    x = Arg("x", (2,), [Fraction(1), Fraction(1)])
    check(lambda s: [Fraction(1)], lambda t: T.reduce("max", t, dim=0, column=COLUMN),
          lambda t: torch.amax(t, dim=0), [x], grad_of=(0,))


@pytest.mark.parametrize("kind", list(REDUCE))
@pytest.mark.parametrize("dim", [2, -3])
def test_reduce_refuses_a_dim_torch_refuses(kind, dim):
    assert refused_by_torch(lambda: torch_reduce(kind, dim, False)(torch.ones(2, 3)))
    with pytest.raises(TensorShapeError) as e:
        T.reduce(kind, ones((2, 3)), dim=dim, keepdim=False, column=COLUMN)
    assert "(2, 3)" in str(e.value) and f"at column {COLUMN}" in str(e.value), str(e.value)


# ---------------------------------------------------------------------------------------------
# softmax, log_softmax, logsumexp

SOFT = {"softmax": (T.softmax, torch.softmax), "log_softmax": (T.log_softmax, torch.log_softmax)}


@pytest.mark.parametrize("name", [*SOFT, "logsumexp"])
@examples(N, slow=SLOW)
@given(st.data())
def test_softmax_family_as_torch(name, d):
    shape = d.draw(heavy_shapes())
    dim = d.draw(st.integers(-len(shape), len(shape) - 1))
    keepdim = name == "logsumexp" and d.draw(st.booleans())
    note(f"dim={dim} keepdim={keepdim}")
    if name == "logsumexp":
        def ours(x):
            return T.logsumexp(x, dim, keepdim=keepdim, column=COLUMN)

        def theirs(x):
            return torch.logsumexp(x, dim=dim, keepdim=keepdim)
    else:
        def ours(x):
            return SOFT[name][0](x, dim, column=COLUMN)

        def theirs(x):
            return SOFT[name][1](x, dim=dim)
    check(d.draw, ours, theirs, [arg(d.draw, "a", shape)], grad_of=(0,))


# ---------------------------------------------------------------------------------------------
# onehot, outer

@examples(N, slow=SLOW)
@given(st.data())
def test_onehot_as_torch(d):
    classes = d.draw(SIDE)
    shape = d.draw(shapes(0, 2))  # a vector of labels as the spec; a scalar or a matrix too
    y = data(d.draw, shape, st.integers(0, classes - 1))
    out = T.onehot(Tensor(shape, tuple(sp.Integer(c) for c in y)), classes, column=COLUMN)
    reference = F.one_hot(torch.tensor(y, dtype=torch.long).reshape(shape), classes)
    agree(out, reference.to(torch.float64), "onehot")


@examples(N, slow=SLOW)
@given(st.data())
def test_outer_as_torch(d):
    n, m = d.draw(SIDE), d.draw(SIDE)
    check(d.draw, lambda a, b: T.outer(a, b, column=COLUMN), torch.outer,
          [arg(d.draw, "a", (n,)), arg(d.draw, "b", (m,))], grad_of=(0, 1))


# ---------------------------------------------------------------------------------------------
# layer_norm

EPS = st.sampled_from([Fraction(1, 100_000), Fraction(1, 1000), Fraction(1, 10), Fraction(1)])


@examples(N, slow=SLOW)
@given(st.data())
def test_layer_norm_as_torch(d):
    shape = d.draw(heavy_shapes())
    eps = d.draw(EPS)
    affine = d.draw(st.sampled_from(["none", "weight", "bias", "both"]))
    args = [arg(d.draw, "x", shape)]
    if affine in ("weight", "both"):
        args.append(arg(d.draw, "g", shape[-1:]))
    if affine in ("bias", "both"):
        args.append(arg(d.draw, "b", shape[-1:]))
    note(f"eps={eps} affine={affine}")
    e = sp.Rational(eps.numerator, eps.denominator)

    def split(rest):
        weight = rest[0] if affine in ("weight", "both") else None
        bias = rest[-1] if affine in ("bias", "both") else None
        return weight, bias

    def ours(x, *rest):
        weight, bias = split(rest)
        return T.layer_norm(x, e, weight=weight, bias=bias, column=COLUMN)

    def theirs(x, *rest):
        weight, bias = split(rest)
        return F.layer_norm(x, shape[-1:], weight=weight, bias=bias, eps=float(eps))
    check(d.draw, ours, theirs, args, grad_of=tuple(range(len(args))))


# ---------------------------------------------------------------------------------------------
# cross_entropy and mse_loss

SMOOTHING = st.one_of(st.sampled_from([Fraction(0), Fraction(1, 10), Fraction(1)]),
                      st.integers(0, 10_000).map(lambda n: Fraction(n, 10_000)))


def _ls(s: Fraction) -> sp.Rational:
    return sp.Rational(s.numerator, s.denominator)


@examples(N, slow=SLOW)
@given(st.data())
def test_cross_entropy_with_class_indices_as_torch(d):
    classes = d.draw(SIDE)
    batch = d.draw(st.one_of(st.none(), SIDE))
    zshape = (classes,) if batch is None else (batch, classes)
    y = d.draw(st.lists(st.integers(0, classes - 1), min_size=1 if batch is None else batch,
                        max_size=1 if batch is None else batch))
    ls = d.draw(SMOOTHING)
    note(f"y={y} label_smoothing={ls}")
    ys = Tensor((), (sp.Integer(y[0]),)) if batch is None else \
        Tensor((batch,), tuple(sp.Integer(c) for c in y))
    yt = torch.tensor(y[0] if batch is None else y)
    check(d.draw, lambda z: T.cross_entropy(z, ys, label_smoothing=_ls(ls), column=COLUMN),
          lambda z: F.cross_entropy(z, yt, label_smoothing=float(ls)),
          [arg(d.draw, "z", zshape)], grad_of=(0,))


@examples(N, slow=SLOW)
@given(st.data())
def test_cross_entropy_with_probabilities_as_torch(d):
    classes = d.draw(SIDE)
    batch = d.draw(st.one_of(st.none(), SIDE))
    zshape = (classes,) if batch is None else (batch, classes)
    ls = d.draw(SMOOTHING)
    note(f"label_smoothing={ls}")
    rows = size(zshape) // classes
    probabilities = []
    for _ in range(rows):  # a distribution of exact decimals: weights over their sum
        w = d.draw(st.lists(st.integers(0, 10), min_size=classes, max_size=classes)
                   .filter(any))
        probabilities += [Fraction(v, sum(w)) for v in w]
    p = Arg("p", zshape, probabilities)
    check(d.draw,
          lambda z, q: T.cross_entropy(z, q, label_smoothing=_ls(ls), column=COLUMN),
          lambda z, q: F.cross_entropy(z, q, label_smoothing=float(ls)),
          [arg(d.draw, "z", zshape), p], grad_of=(0, 1))


@examples(N, slow=SLOW)
@given(st.data())
def test_mse_loss_as_torch(d):
    shape = d.draw(shapes())
    check(d.draw, lambda a, b: T.mse_loss(a, b, column=COLUMN), F.mse_loss,
          [arg(d.draw, "a", shape), arg(d.draw, "b", shape)], grad_of=(0, 1))


# ---------------------------------------------------------------------------------------------
# shape errors of the other operations

@examples(N, slow=SLOW)
@given(shapes(0, 3), shapes(0, 3))
def test_outer_refuses_what_torch_refuses(a, b):
    assume(refused_by_torch(lambda: torch.outer(torch.ones(a), torch.ones(b))))
    with pytest.raises(TensorShapeError) as e:
        T.outer(ones(a), ones(b), column=COLUMN)
    names_both(e.value, a, b)


@examples(N, slow=SLOW)
@given(incompatible_pair())
def test_mse_loss_refuses_what_torch_refuses(pair):
    a, b = pair
    assert refused_by_torch(lambda: F.mse_loss(torch.ones(a), torch.ones(b)))
    with pytest.raises(TensorShapeError) as e:
        T.mse_loss(ones(a), ones(b), column=COLUMN)
    names_both(e.value, a, b)


@examples(N, slow=SLOW)
@given(shapes(1, 3), shapes(0, 2), shapes(0, 2))
def test_layer_norm_refuses_an_affine_torch_refuses(x, g, b):
    assume(refused_by_torch(lambda: F.layer_norm(torch.ones(x), x[-1:], weight=torch.ones(g),
                                                 bias=torch.ones(b))))
    with pytest.raises(TensorShapeError) as e:
        T.layer_norm(ones(x), sp.Rational(1, 100_000), weight=ones(g), bias=ones(b),
                     column=COLUMN)
    assert f"at column {COLUMN}" in str(e.value), str(e.value)


@examples(N, slow=SLOW)
@given(shapes(1, 2), shapes(0, 2))
def test_cross_entropy_refuses_what_torch_refuses(z, y):
    assume(refused_by_torch(lambda: F.cross_entropy(torch.ones(z), torch.zeros(y).long())))
    assume(refused_by_torch(lambda: F.cross_entropy(torch.ones(z), torch.zeros(y))))
    with pytest.raises(TensorShapeError) as e:
        T.cross_entropy(ones(z), Tensor(y, (sp.S.Zero,) * size(y)), column=COLUMN)
    assert str(z) in str(e.value) and str(y) in str(e.value), str(e.value)


@examples(N, slow=SLOW)
@given(broadcast_pair())
def test_mse_loss_refuses_shapes_torch_would_broadcast(pair):
    """torch broadcasts unequal shapes with a warning; derive refuses them (tensor.py's
    choice, not torch's)."""
    a, b = pair
    assume(a != b)
    with pytest.raises(TensorShapeError) as e:
        T.mse_loss(ones(a), ones(b), column=COLUMN)
    names_both(e.value, a, b)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "logsumexp"])
def test_softmax_family_refuses_a_number(name):
    """torch takes softmax of a 0-d tensor (1.0); derive refuses it, one line naming the shape
    (tensor.py's choice: a number is not a line of logits)."""
    with pytest.raises(TensorShapeError) as e:
        getattr(T, name)(ones(()), -1, column=COLUMN)
    assert "()" in str(e.value) and f"at column {COLUMN}" in str(e.value), str(e.value)


def test_cross_entropy_refuses_logits_of_three_dims():
    """torch takes logits (B, C, d) with targets (B, d); derive takes (B, C) or (C,) and says
    so, naming the shape."""
    F.cross_entropy(torch.ones(1, 2, 2), torch.zeros(1, 2).long())  # torch accepts it
    with pytest.raises(TensorShapeError) as e:
        T.cross_entropy(ones((1, 2, 2)), Tensor((1, 2), (sp.S.Zero,) * 2), column=COLUMN)
    assert "(1, 2, 2)" in str(e.value), str(e.value)
