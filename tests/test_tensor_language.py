"""The tensor formula language (derive/graph/tensor_language.py, issue 35): what each formula
means, the expected values written by hand (Fractions, SymPy's own constructors, nested lists);
every invalid formula refused with its column and a one-line message; random well-formed formulas
over random shapes give the shape the rules of torch give (computed here, independently) or a
FormulaError, never another exception."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from derive.graph.language import (
    MAX_DEPTH,
    MAX_LENGTH,
    FormulaError,
    FormulaNotSupported,
    evaluated,
    parse_formula,
)
from derive.graph.tensor import Tensor, TensorShapeError
from derive.graph.tensor_language import OPS, SIGNATURES, parse_tensor, reads_tensor
from derive.kernel import functions

R = sp.Rational


def _const(nested) -> Tensor:
    """A Tensor of exact numbers, from nested lists of ints and Fractions."""
    def exact(v):
        if isinstance(v, list):
            return [exact(x) for x in v]
        if isinstance(v, Fraction):
            return R(v.numerator, v.denominator)
        return v if isinstance(v, sp.Basic) else sp.Integer(v)
    return Tensor.of(exact(nested))


def _sym(name: str, *shape: int) -> Tensor:  # a vector or a matrix
    """A Tensor of real symbols named as written here (x1, x2 …), independent of tensor.py."""
    if len(shape) == 1:
        return Tensor.of([sp.Symbol(f"{name}{i + 1}", real=True) for i in range(shape[0])])
    return Tensor.of([[sp.Symbol(f"{name}{i + 1}{j + 1}", real=True) for j in range(shape[1])]
                      for i in range(shape[0])])


def _value(t: Tensor):
    """A Tensor's entries as nested lists, each in SymPy's canonical form (max(1, 2) as written
    is 2, as the graph evaluates it)."""
    return t.map(evaluated).nested()


a1, a2, b1, b2, z1, z2, z3, eps = sp.symbols("a1 a2 b1 b2 z1 z2 z3 eps", real=True)

NAMES = {
    "a": _const([1, 2]),
    "B": _const([[1, 2], [3, 4]]),
    "c": _const([5, 6]),
    "A": _const([[1, 2, 3], [4, 5, 6]]),
    "x": _const([1, 2]),
    "y": _const([3, 4]),
    "ones": _const([1, 1]),
    "W1": _const([[1, -1], [2, Fraction(1, 2)]]),
    "b1": _const([0, 1]),
    "z": _const([-1, 0, 2]),
    "zs": _sym("z", 3),
    "u": _sym("a", 2),
    "v": _sym("b", 2),
    "eps": Tensor.scalar(eps),
    "eta": _const(Fraction(1, 10)),
    "gamma": _const([2, 3]),
    "beta": _const([1, 1]),
    "delta": _const([3, 4]),
    "delta1": _const([1, -1]),
    "xhat": _const([5, 7]),
    "yhat": _const([1, 1]),
    "x3": _const([1, 3]),
    "P": Tensor.of([[sp.S.Zero, sp.log(2)], [sp.log(3), sp.S.Zero]]),
    "p": Tensor.of([sp.S.Zero, sp.log(2)]),
    "labels": _const([2, 0]),
    "k": _const([1]),
}


def value(text: str, **extra):
    return _value(parse_tensor(text, {**NAMES, **extra}))


# ------------------------------------------------------------------------------ meanings
MEANING = [  # (formula, its value by hand)
    # precedence: @ binds like *, left to right; + below; unary minus above neither .T
    ("a + B @ c", [18, 41]),                       # B@c = [17, 39]; (a+B)@c would be [34, 61]
    ("x * B @ ones", [5, 11]),                      # (x*B)@1; x*(B@1) would be [3, 14]
    ("x ⊙ B @ ones", [5, 11]),
    ("B @ B @ B", [[37, 54], [81, 118]]),
    ("-B.T", [[-1, -3], [-2, -4]]),
    ("-Bᵀ", [[-1, -3], [-2, -4]]),
    ("x^2 @ y", 19),                               # 1·3 + 4·4
    ("x**2 @ y", 19),
    ("x @ y", 11),                                  # vectors: the dot product, shape ()
    ("x − y − c", [-7, -8]),                        # left to right
    ("2^3^2", 512),                                 # right-associative, as the scalar language
    ("B / 2 · x", [[Fraction(1, 2), 2], [Fraction(3, 2), 4]]),
    ("W1 @ x + b1", [-1, 4]),                       # the two-layer network's first line
    ("relu(W^{(1)} @ x + b1)", [0, 4]),
    ("B.T @ x", [7, 10]),
    ("transpose(B) @ x", [7, 10]),
    ("x.T", [1, 2]),                                # a vector is left as it is, as torch's .T
    # entries: 1-based with _{…}, 0-based with […], rows with fewer indices
    ("B_{1,2}", 2),
    ("B[0,1]", 2),
    ("B_{2,1} + B[1,0]", 6),
    ("B_{2}", [3, 4]),
    ("B[1]", [3, 4]),
    ("B_2", [3, 4]),
    ("x_1", 1),
    ("B[-1,-1]", 4),
    ("B.T[0,1]", 3),
    ("(B @ x)_{2}", 11),
    ("W^{(1)}_{2,2}", Fraction(1, 2)),
    # indicators: 1 where the comparison holds
    ("(z > 0)", [0, 0, 1]),
    ("(z >= 0)", [0, 1, 1]),
    ("(z ≥ 0)", [0, 1, 1]),
    ("(z < 0)", [1, 0, 0]),
    ("(z <= 0)", [1, 1, 0]),
    ("(z ≤ 0) * z", [-1, 0, 0]),
    ("z > 0", [0, 0, 1]),
    ("(z > 0) > 0", [0, 0, 1]),                     # an indicator compared: one comparison
    # names as lecturers write them
    ("δ ⊙ x̂", [15, 28]),
    ("delta * xhat", [15, 28]),
    ("ŷ - x", [0, -1]),
    ("x - η * y", [Fraction(7, 10), Fraction(16, 10)]),
    ("x - lr*y", [Fraction(7, 10), Fraction(16, 10)]),
    ("W^{(1)} @ x", [-1, 3]),
    ("x^{(3)}", [1, 3]),
    ("W₁ @ x", [-1, 3]),
    ("δ1 + δ₁ + delta1", [3, -3]),
    # element-wise functions
    ("relu(z)", [0, 0, 2]),
    ("abs(z)", [1, 0, 2]),
    ("|z - 1|", [2, 1, 1]),
    ("sign(z)", [-1, 0, 1]),
    ("exp(0 * z)", [1, 1, 1]),
    ("sqrt(B * B)", [[1, 2], [3, 4]]),
    ("√(x * x)", [1, 2]),
    ("log(exp(x))", [1, 2]),
    ("tanh(0 * x)", [0, 0]),
    ("sigmoid(0 * x)", [Fraction(1, 2), Fraction(1, 2)]),
    # reductions, with their keywords
    ("sum(A)", 21),
    ("sum(A, dim=0)", [5, 7, 9]),
    ("sum(A, dim=1)", [6, 15]),
    ("sum(A, dim=-1)", [6, 15]),
    ("sum(A, dim=1, keepdim=1)", [[6], [15]]),
    ("sum(A, dim=1, keepdim=True)", [[6], [15]]),
    ("sum(A, dim=0, keepdim=False)", [5, 7, 9]),
    ("mean(A)", Fraction(7, 2)),
    ("mean(A, dim=0)", [Fraction(5, 2), Fraction(7, 2), Fraction(9, 2)]),
    ("mean(A, dim=-1, keepdim=1)", [[2], [5]]),
    ("max(A)", 6),
    ("max(A, dim=0)", [4, 5, 6]),
    ("max(A, dim=1)", [3, 6]),
    ("max(2, 3)", 3),                               # of scalars, the scalar language's
    ("min(2, 3) * x", [2, 4]),
    # softmax over the given dim: exp(log q) is q, so these are exact rationals
    ("softmax(p)", [Fraction(1, 3), Fraction(2, 3)]),
    ("softmax(P)", [[Fraction(1, 3), Fraction(2, 3)], [Fraction(3, 4), Fraction(1, 4)]]),
    ("softmax(P, dim=-1)", [[Fraction(1, 3), Fraction(2, 3)], [Fraction(3, 4), Fraction(1, 4)]]),
    ("softmax(P, dim=0)", [[Fraction(1, 4), Fraction(2, 3)], [Fraction(3, 4), Fraction(1, 3)]]),
    ("exp(log_softmax(P, dim=1))", [[Fraction(1, 3), Fraction(2, 3)],
                                    [Fraction(3, 4), Fraction(1, 4)]]),
    ("exp(logsumexp(P))", [3, 4]),
    ("exp(logsumexp(P, dim=0))", [4, 3]),
    # one-hot, outer products, MSE
    ("onehot(labels, 3)", [[0, 0, 1], [1, 0, 0]]),
    ("outer(x, c)", [[5, 6], [10, 12]]),
    ("outer(c, x)", [[5, 10], [6, 12]]),
    ("mse_loss(x, c)", Fraction(16 + 16, 2)),
    ("mse_loss(B, B + 1)", 1),
]


def _exact(v):
    if isinstance(v, list):
        return [_exact(x) for x in v]
    if isinstance(v, Fraction):
        return R(v.numerator, v.denominator)
    return sp.Integer(v)


@pytest.mark.parametrize(("text", "expected"), MEANING, ids=[m[0] for m in MEANING])
def test_meaning(text, expected):
    assert value(text) == _exact(expected)


def _same(got, expected) -> bool:
    """Equal as numbers: the difference simplifies to 0 (small expressions only)."""
    if isinstance(expected, list):
        return isinstance(got, list) and len(got) == len(expected) and all(
            _same(g, e) for g, e in zip(got, expected))
    return sp.simplify(sp.expand_log(got - expected, force=True)) == 0


SYMBOLIC = [
    ("u @ v", a1 * b1 + a2 * b2),
    ("exp(u)", [sp.exp(a1), sp.exp(a2)]),
    ("log(u)", [sp.log(a1), sp.log(a2)]),
    ("tanh(u)", [sp.tanh(a1), sp.tanh(a2)]),
    ("sigmoid(u)", [functions.sigmoid(a1), functions.sigmoid(a2)]),
    ("relu(u)", [functions.relu(a1), functions.relu(a2)]),
    ("(zs > 0)", [sp.Heaviside(z1, 0), sp.Heaviside(z2, 0), sp.Heaviside(z3, 0)]),
    ("(zs >= 0)", [sp.Heaviside(z1, 1), sp.Heaviside(z2, 1), sp.Heaviside(z3, 1)]),
    ("softmax(u)", [sp.exp(a1) / (sp.exp(a1) + sp.exp(a2)),
                    sp.exp(a2) / (sp.exp(a1) + sp.exp(a2))]),
    ("log_softmax(u)", [a1 - sp.log(sp.exp(a1) + sp.exp(a2)),
                        a2 - sp.log(sp.exp(a1) + sp.exp(a2))]),
    ("logsumexp(u)", sp.log(sp.exp(a1) + sp.exp(a2))),
    # layer_norm: over the last dim, biased variance, eps inside the square root
    ("layer_norm(x, eps=ε)", [-1 / sp.sqrt(1 / R(4) + eps) / 2, 1 / sp.sqrt(1 / R(4) + eps) / 2]),
    ("layer_norm(x, eps=eps)", [-1 / sp.sqrt(1 / R(4) + eps) / 2,
                                1 / sp.sqrt(1 / R(4) + eps) / 2]),
    ("layer_norm(x3, eps=0)", [-1, 1]),
    ("layer_norm(x3)", [-1 / sp.sqrt(1 + R(1, 100000)), 1 / sp.sqrt(1 + R(1, 100000))]),
    ("layer_norm(x3, eps=ε, weight=γ, bias=β)", [1 - 2 / sp.sqrt(1 + eps),
                                                 1 + 3 / sp.sqrt(1 + eps)]),
    ("layer_norm(x3, weight=gamma, eps=0)", [-2, 3]),
    # cross-entropy, mean reduction: Z = (0, log 2), p = (1/3, 2/3)
    ("cross_entropy(p, k[0])", sp.log(R(3, 2))),
]


@pytest.mark.parametrize(("text", "expected"), SYMBOLIC, ids=[s[0] for s in SYMBOLIC])
def test_symbolic_meaning(text, expected):
    got = value(text)
    assert _same(got, expected), got


CROSS_ENTROPY = [  # (Z, y, keywords, loss by hand)
    ([[0, sp.log(2)]], [1], "", sp.log(R(3, 2))),
    ([[0, sp.log(2)], [0, sp.log(2)]], [1, 0], "", (sp.log(R(3, 2)) + sp.log(3)) / 2),
    ([[0, sp.log(2)]], [1], ", label_smoothing=1/2",            # target (1/4, 3/4)
     -(sp.log(R(1, 3)) / 4 + 3 * sp.log(R(2, 3)) / 4)),
    ([[0, sp.log(2)]], [[R(1, 2), R(1, 2)]], "",                  # class probabilities
     -(sp.log(R(1, 3)) + sp.log(R(2, 3))) / 2),
]


@pytest.mark.parametrize(("Z", "y", "keywords", "loss"), CROSS_ENTROPY)
def test_cross_entropy(Z, y, keywords, loss):
    names = {"Z": Tensor.of(Z), "y": Tensor.of([sp.sympify(v) for v in y]
                                               if not isinstance(y[0], list) else y)}
    assert _same(value(f"cross_entropy(Z, y{keywords})", **names), loss)


def test_a_name_T_is_a_power():
    """W^T is refused as the transpose a lecturer means, unless T is a name: then a power."""
    assert value("x^T", T=_const(3)) == [1, 8]


def test_grad_is_the_derivative_per_entry():
    got = parse_tensor("grad(sum(u * u) + u @ v, u)", NAMES)
    assert got.shape == (2,)
    assert [e.doit() for e in got.entries] == [2 * a1 + b1, 2 * a2 + b2]
    assert all(isinstance(e, sp.Derivative) for e in got.entries)


def test_a_two_layer_network_backward_is_its_gradient():
    """The lesson's backward pass written by hand in matrix form (δ₂ = (p − onehot(y))/B,
    ∂L/∂W₁ = δ₁ᵀX with δ₁ = (δ₂W₂) ⊙ [z₁ > 0]) is grad(loss, W1), entry by entry, at
    W1 = [[1, -1], [2, 1/2]] (no tie at z₁ = 0): the two differ by exactly 0."""
    W1 = _sym("w", 2, 2)
    at = dict(zip(W1.entries, (1, -1, 2, R(1, 2))))
    names = {"X": _const([[1, 2], [0, -1], [2, 1]]), "W1": W1, "b1": _const([0, 1]),
             "W2": _const([[1, 2], [-1, 1], [0, 1]]), "b2": _const([0, 0, 0]),
             "y": _const([0, 2, 1])}
    for name, text in [("z1", "X @ W^{(1)}ᵀ + b^{(1)}"), ("h1", "relu(z1)"),
                       ("z2", "h1 @ W2.T + b2"), ("loss", "cross_entropy(z2, y)"),
                       ("delta2", "(softmax(z2) - onehot(y, 3)) / 3"),
                       ("delta1", "(δ₂ @ W2) ⊙ (z1 > 0)"), ("gW1", "δ1ᵀ @ X"),
                       ("check", "grad(loss, W1)")]:
        names[name] = parse_tensor(text, names)
    assert names["gW1"].shape == names["check"].shape == (2, 2)
    for mine, autograd in zip(names["gW1"].entries, names["check"].entries):
        assert sp.simplify(mine.subs(at) - autograd.doit().subs(at)) == 0


def test_every_function_is_read():
    """Each function of SIGNATURES appears in a meaning above (a new one needs its test)."""
    texts = " ".join(t for t, _ in [*MEANING, *SYMBOLIC]) + " grad( cross_entropy("
    assert [f for f in SIGNATURES if f + "(" not in texts] == []


def test_ops_replaced_is_the_mistake():
    """A whole-tensor mistake is the formula parsed with one operation replaced: mean taken as
    the sum (1/B forgotten) changes mean(A) from 7/2 to 21 and nothing else."""
    def summed(kind, a, dim=None, keepdim=False, *, column):
        return OPS.reduce("sum" if kind == "mean" else kind, a, dim=dim, keepdim=keepdim,
                          column=column)
    wrong = dataclasses.replace(OPS, reduce=summed)
    assert _value(parse_tensor("mean(A)", NAMES, ops=wrong)) == 21
    assert _value(parse_tensor("max(A)", NAMES, ops=wrong)) == 6
    one = dataclasses.replace(OPS, relu=lambda e: sp.Heaviside(e, 1) * e)
    assert _value(parse_tensor("relu(z)", NAMES, ops=one)) == [0, 0, 2]


# -------------------------------------------------------------------------------- errors
ERRORS = [  # (formula, error, its message by hand)
    ("W1 @", FormulaError, "expected an operand, not the end at column 5"),
    ("", FormulaError, "expected a formula at column 1"),
    ("V + x", FormulaError, "unknown name 'V' (names here: A, B, P, W1, a, b1, beta, c, "
                             "delta, delta1, eps, eta, …) at column 1"),
    ("W_1", FormulaError, "unknown name 'W': W_1 is an entry of W; the name W1 is written W1 "
                          "or W^{(1)} at column 1"),
    ("sum(A, axis=0)", FormulaError, "sum has no keyword 'axis'; its keywords: dim, keepdim "
                                     "at column 8"),
    ("layer_norm(x, epsilon=1)", FormulaError, "layer_norm has no keyword 'epsilon'; its "
                                               "keywords: eps, weight, bias at column 15"),
    ("outer(x, y, dim=0)", FormulaError, "outer has no keyword 'dim'; it takes no keywords "
                                         "at column 13"),
    ("sum(A, dim=0, dim=1)", FormulaError, "the keyword dim is given twice at column 15"),
    ("sum(A, dim=0, 1)", FormulaError, "a positional argument after a keyword: write the "
                                       "keywords last at column 15"),
    ("sum(A, dim=1/2)", FormulaError, "dim is a whole number, as in dim=0 or dim=-1 at "
                                      "column 12"),
    ("sum(A, dim=x)", FormulaError, "dim is a number or a scalar name, not a tensor of shape "
                                    "(2,) at column 12"),
    ("sum(A, dim=0, keepdim=2)", FormulaError, "keepdim is 0, 1, True or False at column 23"),
    ("layer_norm(x, 1)", FormulaError, "layer_norm takes one argument: layer_norm(x, eps=…, "
                                       "weight=…, bias=…) at column 1"),
    ("onehot(labels)", FormulaError, "onehot takes two arguments: onehot(y, C) at column 1"),
    ("onehot(labels, 5/2)", FormulaError, "onehot's number of classes is a whole number, as in "
                                          "onehot(y, 3) at column 16"),
    ("grad(sum(u), 2*u)", FormulaError, "grad takes a formula and a name: grad(L, W1) at "
                                        "column 14"),
    ("grad(sum(u), V)", FormulaError, "unknown name 'V' in grad(…, V) at column 14"),
    ("B_{3,1}", FormulaError, "index 3 is outside B's shape (2, 2): this index runs 1…2 at "
                              "column 4"),
    ("B[0,2]", FormulaError, "index 2 is outside B's shape (2, 2): this index runs 0…1 (or "
                             "-2…-1) at column 5"),
    ("x[0,0]", FormulaError, "2 indices on x, which is of shape (2,): 1 index at column 2"),
    ("eta_{1}", FormulaError, "1 index on eta, which is a scalar: it has no entries at "
                              "column 4"),
    ("B_{1.5}", FormulaError, "expected a whole number as an index, as in W_{1,2} at column 4"),
    ("B[1", FormulaError, "expected ']' after the indices, not the end at column 4"),
    ("B . x", FormulaError, "expected T after '.': A.T transposes A at column 5"),
    ("B^{2}", FormulaError, "a superscript in braces names a layer, as in W^{(1)}; a power is "
                            "written without braces: x^2 at column 3"),
    ("W^{(a)}", FormulaError, "a layer's superscript is a number in brackets, as in W^{(1)} at "
                              "column 5"),
    ("W1^{(1)}", FormulaError, "'W1' already ends in a number: write W^{(1)} or W1, not both "
                               "at column 3"),
    ("B^T @ x", FormulaError, "a transpose is written W.T or Wᵀ (T is not a name here) at "
                              "column 3"),
    ("B^top", FormulaError, "a transpose is written W.T or Wᵀ (top is not a name here) at "
                            "column 3"),
    ("x ⊙ 1[z > 0]", FormulaError, "an indicator is written in round brackets, as in (z > 0): "
                                   "1 where it holds, else 0 at column 6"),
    ("x ⊙ [z > 0]", FormulaError, "an indicator is written in round brackets, as in (z > 0): "
                                  "1 where it holds, else 0 at column 5"),
    ("exp x", FormulaError, "exp needs its arguments in brackets, as in exp(…) at column 5"),
    ("x̂̂", FormulaError, "unexpected character '\u0302' (combining circumflex accent) at "
                        "column 3"),
    ("âb", FormulaError, "'âb' is not a name: a hat goes on one letter, as in x̂ at column 1"),
    ("x $ y", FormulaError, "unexpected character '$' (dollar sign) at column 3"),
    ("x ¹", FormulaError, "digits must be ASCII 0-9 at column 3"),
    ("z > 0 > 1", FormulaError, "unexpected '>': a comparison is not compared again; write "
                                "(a < b) * (b < c) at column 7"),
    ("x / (x - x)", FormulaError, "division by zero at column 5"),
    ("log(x - 1)", FormulaError, "the formula is undefined (a division by zero, or log 0) at "
                                 "column 1"),
    ("x_i", FormulaNotSupported, "an index letter (column 3) is not supported in a tensor "
                                 "formula: write an entry's numbers, as in W_{1,2}, or the "
                                 "whole tensor"),
    ("B_{i,1}", FormulaNotSupported, "an index letter (column 4) is not supported in a tensor "
                                     "formula: write an entry's numbers, as in W_{1,2}"),
    ("cos(x)", FormulaNotSupported, "cos of a tensor (shape (2,), column 5) is not supported: "
                                    "entry by entry the language has exp, log, sqrt, abs, "
                                    "tanh, sigmoid, relu, sign"),
    ("max(x, 0)", FormulaNotSupported, "max of a tensor (shape (2,), column 5) is not "
                                       "supported: entry by entry the language has exp, log, "
                                       "sqrt, abs, tanh, sigmoid, relu, sign; relu(z) is "
                                       "max(z, 0) entry by entry, and max(A, dim=…) the "
                                       "largest entries"),
    ("blah(x)", FormulaNotSupported, "the function 'blah' (column 1) is not supported "
                                     "(docs/formulas.md#vectors-and-matrices lists the "
                                     "functions of a tensor formula)"),
    ("d(x)/d(x)", FormulaNotSupported, "d(…)/d(…) (column 1) is not supported in a tensor "
                                       "formula: write grad(L, W)"),
    ("x!", FormulaNotSupported, "factorials (column 2) are not supported"),
    ("2^100000 * x", FormulaNotSupported, "the exponent 100,000 (before column 10) is beyond "
                                          "10,000: not supported"),
    ("1" * 101 + " * x", FormulaNotSupported, "a number of more than 100 digits (column 1) is "
                                              "not supported"),
    ("1e31 * x", FormulaNotSupported, "the exponent in 1e31 (column 1) is beyond ±30: not "
                                      "supported"),
    ("x " * (MAX_LENGTH // 2 + 1), FormulaNotSupported, f"a formula of {MAX_LENGTH + 2:,} "
                                                         f"characters is beyond "
                                                         f"{MAX_LENGTH:,}: not supported"),
    ("(" * (MAX_DEPTH + 5) + "x" + ")" * (MAX_DEPTH + 5), FormulaNotSupported,
     f"a formula nested more than {MAX_DEPTH} levels deep (column 21) is not supported"),
    ("onehot(labels, 10^9)", FormulaNotSupported, "onehot of 1000000000 classes (column 16) is "
                                                  "beyond 4,096: not supported"),
    ("__import__('os')", FormulaError, "unexpected character \"'\" (apostrophe) at column 12"),
]


@pytest.mark.parametrize(("text", "error", "message"), ERRORS, ids=[e[0][:30] for e in ERRORS])
def test_errors(text, error, message):
    with pytest.raises(error) as caught:
        parse_tensor(text, NAMES)
    assert type(caught.value) is error
    assert str(caught.value) == message
    assert "\n" not in str(caught.value)


SHAPE_ERRORS = [  # (formula, the operator's column, the shapes the message names)
    ("A @ x", 3, ["(2, 3)", "(2,)"]),
    ("x + 1 + A", 7, ["(2,)", "(2, 3)"]),
    ("relu(B @ x) * z", 13, ["(2,)", "(3,)"]),
    ("(z > x)", 4, ["(3,)", "(2,)"]),
]


@pytest.mark.parametrize(("text", "column", "shapes"), SHAPE_ERRORS)
def test_shape_errors_name_the_column(text, column, shapes):
    with pytest.raises(TensorShapeError) as caught:
        parse_tensor(text, NAMES)
    message = str(caught.value)
    assert f"column {column}" in message and "\n" not in message
    assert all(s in message for s in shapes), message


# ----------------------------------------------------------------------------- reads_tensor
READS = [  # (formula, tensor names, whether it is a tensor formula)
    ("W1 @ x", set(), True),
    ("W^{(1)} * 2", {"W1"}, True),
    ("W1 * 2", {"W1"}, True),
    ("w_new - lr*g", {"W1"}, False),
    ("x.T", set(), True),
    ("xᵀ", set(), True),
    ("x[0]", set(), True),
    ("(z > 0) * g", set(), True),
    ("z ⊙ g", set(), True),
    ("softmax(z)", set(), True),
    ("log_softmax(z)", set(), True),
    ("cross_entropy(z, y)", set(), True),
    ("sum(z)", set(), True),
    ("mean(z)", set(), True),
    ("sum_i(x_i)/N", set(), False),
    ("mean_i(ell_i)", set(), False),
    ("0.5*x + .5", set(), False),
    ("relu(z)*g", set(), False),
    ("relu(z)*g", {"z"}, True),
    ("η*g", {"eta"}, True),
    ("lr_decay*g", {"eta"}, False),
    ("δ * 2", {"delta"}, True),
    ("x̂ + 1", {"xhat"}, True),
    ("W @ x $", set(), True),   # read up to what it cannot read
    ("", set(), False),
]


@pytest.mark.parametrize(("text", "tensors", "expected"), READS)
def test_reads_tensor(text, tensors, expected):
    assert reads_tensor(text, tensors) is expected


@given(st.text(alphabet="wxyg_i()+-*/^.,|√ 0123456789ηε", max_size=16))
def test_no_scalar_formula_reads_as_a_tensor(text):
    """Every formula the scalar language reads stays a scalar formula when it names no tensor,
    so no scalar define changes its parser."""
    try:
        parse_formula(text)
    except (FormulaError, FormulaNotSupported):
        return
    assert not reads_tensor(text, set())


# ------------------------------------------------------------------------------ property
DIMS = st.integers(1, 4)
SHAPES = st.one_of(st.just(()), st.tuples(DIMS), st.tuples(DIMS, DIMS))


def _broadcast(s: tuple, t: tuple) -> tuple | None:
    n = max(len(s), len(t))
    s, t = (1,) * (n - len(s)) + s, (1,) * (n - len(t)) + t
    if any(x != y and 1 not in (x, y) for x, y in zip(s, t)):
        return None
    return tuple(max(x, y) for x, y in zip(s, t))


def _matmul(s: tuple, t: tuple) -> tuple | None:
    """torch.matmul's shape for 1-d and 2-d operands."""
    if not s or not t:
        return None
    inner_s, inner_t = s[-1], (t[0] if len(t) == 1 else t[-2])
    if inner_s != inner_t:
        return None
    return (s[:-1] if len(s) == 2 else ()) + (t[-1:] if len(t) == 2 else ())


@st.composite
def formulas(draw, depth=0):
    """(text, the shape torch gives it or None for a shape error, the names it reads)."""
    if depth >= 3 or draw(st.booleans()) and depth:
        if draw(st.integers(0, 4)) == 0:
            return str(draw(st.integers(1, 3))), (), {}
        shape = draw(SHAPES)
        name = f"T{draw(st.integers(0, 99))}"
        return name, shape, {name: shape}
    kind = draw(st.sampled_from(["+", "-", "*", "⊙", "/", "@", ">", "<=", "outer", "T", "ᵀ",
                                 "relu", "exp", "neg", "index", "index0", "sum", "mean", "max",
                                 "logsumexp", "softmax", "log_softmax"]))
    text, shape, names = draw(formulas(depth + 1))
    if kind in ("+", "-", "*", "⊙", "/", "@", ">", "<=", "outer"):
        right, rshape, rnames = draw(formulas(depth + 1))
        if names.keys() & rnames.keys() and any(names[k] != rnames[k] for k in
                                                 names.keys() & rnames.keys()):
            right, rshape, rnames = text, shape, names
        both = {**names, **rnames}
        written = f"outer({text}, {right})" if kind == "outer" else f"({text} {kind} {right})"
        if shape is None or rshape is None:
            return written, None, both
        if kind == "outer":  # torch.outer: two vectors
            out = shape + rshape if len(shape) == len(rshape) == 1 else None
        else:
            out = _matmul(shape, rshape) if kind == "@" else _broadcast(shape, rshape)
        return written, out, both
    if shape is None:
        return f"relu({text})", None, names
    if kind in ("T", "ᵀ"):
        return f"({text}){'.T' if kind == 'T' else 'ᵀ'}", shape[::-1], names
    if kind == "neg":
        return f"-({text})", shape, names
    if kind in ("relu", "exp"):
        return f"{kind}({text})", shape, names
    if kind in ("index", "index0"):
        if not shape:
            return f"({text})[0]", None, names
        i = draw(st.integers(0, shape[0] - 1))
        return (f"({text})_{{{i + 1}}}" if kind == "index" else f"({text})[{i}]"), shape[1:], \
            names
    if not shape:
        return f"relu({text})", shape, names
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    keep = kind in ("sum", "mean", "max", "logsumexp") and draw(st.booleans())
    d = dim % len(shape)
    if kind in ("softmax", "log_softmax"):
        out = shape
    else:
        out = shape[:d] + ((1,) if keep else ()) + shape[d + 1:]
    return f"{kind}({text}, dim={dim}{', keepdim=True' if keep else ''})", out, names


@given(formulas())
def test_random_formulas_have_torchs_shape_or_a_formula_error(drawn):
    text, shape, shapes = drawn
    names = {}
    for name, s in shapes.items():
        entries = [sp.Symbol(f"{name}_{k}", real=True) for k in range(int(sp.prod(s)))]
        names[name] = Tensor(tuple(s), tuple(entries))
    try:
        got = parse_tensor(text, names)
    except FormulaError as refused:  # shapes, or a divisor that is 0 as written (T1 - T1)
        assert shape is None or "division by zero" in str(refused), (text, str(refused))
        return
    assert shape is not None and tuple(got.shape) == shape, text
    assert len(got.entries) == sp.prod(shape)


@given(st.lists(DIMS, min_size=1, max_size=2), st.data())
def test_entries_one_based_and_zero_based_agree(shape, data):
    """W_{i+1,j+1} and W[i,j] are the entry in row-major place i·cols + j, as written here."""
    count = int(sp.prod(shape))
    W = Tensor(tuple(shape), tuple(sp.Integer(10 * k + 7) for k in range(count)))
    index = [data.draw(st.integers(0, n - 1)) for n in shape]
    place = index[0] if len(shape) == 1 else index[0] * shape[1] + index[1]
    one = "W_{" + ",".join(str(i + 1) for i in index) + "}"
    zero = "W[" + ",".join(str(i) for i in index) + "]"
    assert _value(parse_tensor(one, {"W": W})) == 10 * place + 7
    assert _value(parse_tensor(zero, {"W": W})) == 10 * place + 7


def test_never_eval():
    """Nothing reaches eval: a formula that would run code in Python is refused as text."""
    with pytest.raises(FormulaNotSupported):
        parse_tensor("exec(x)", NAMES)
    with pytest.raises(TypeError):
        parse_tensor("x", {"x": [1, 2]})


def test_entries_past_the_node_bound_are_refused_at_once():
    """softmax or layer_norm nested grows every entry; past MAX_ENTRY_NODES it is refused
    before anything walks the tree (layer_norm thrice over 4 × 4 took 6.3 s of CPU before the
    bound, most of it re-evaluating the entries)."""
    names = {"S": _sym("s", 4, 4)}
    for text in ("layer_norm(layer_norm(layer_norm(S)))", "S" + " @ S" * 400):
        with pytest.raises(FormulaNotSupported, match=r"^an entry of [\d,]+ nodes .* beyond "
                                                      r"20,000: not supported; write the steps"):
            parse_tensor(text, names)


TOKENS = ["x", "B", "A", "zs", "eta", "δ", "x̂", "W1", "W", "1", "0", "2.5", "1e3", "+", "-", "*",
          "/", "@", "⊙", "^", ".T", "ᵀ", "(", ")", "[", "]", "_", "{", "}", ",", "=", ">", ">=",
          "<", "|", "√", "dim", "keepdim", "sum", "mean", "max", "softmax", "onehot", "grad",
          "layer_norm", "cross_entropy", "relu", "exp", "log", "outer", "^{(1)}", " "]


@given(st.lists(st.sampled_from(TOKENS), max_size=14))
def test_token_soups_parse_or_are_refused(tokens):
    """Any sequence of the language's tokens is parsed or refused with one line: a FormulaError
    or a FormulaNotSupported, never another exception."""
    text = "".join(tokens)
    try:
        got = parse_tensor(text, NAMES)
    except (FormulaError, FormulaNotSupported) as refused:
        assert "\n" not in str(refused)
        return
    assert isinstance(got, Tensor)


SCALAR_FORMULAS = st.recursive(
    st.sampled_from(["w", "x", "g", "2", "0.5", "3", "η", "lr"]),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "−", "*", "·", "×", "/", "^", "**"]),
                  inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(st.sampled_from(["-", "+", "(", "|", "√(", "exp(", "relu(", "tanh(",
                                   "sigmoid(", "abs("]), inner).map(
            lambda t: t[0] + t[1] + {"(": ")", "|": "|", "-": "", "+": ""}.get(t[0], ")"))),
    max_leaves=6)
"""Formulas of the scalar language, most of them readable (a power may still be refused)."""


@given(st.one_of(SCALAR_FORMULAS, st.text(alphabet="wxg()+-*/^|√ 0123.", max_size=14)))
def test_a_scalar_formula_means_the_same_in_both_languages(text):
    """The tensor language is a superset of the scalar one: a formula of scalars both read is
    one SymPy value in both (the tensor one a Tensor of shape ())."""
    w, x, g, eta = (sp.Symbol(n, real=True) for n in ("w", "x", "g", "eta"))
    try:
        scalar = evaluated(parse_formula(text))
    except (FormulaError, FormulaNotSupported):
        return
    try:
        got = parse_tensor(text, {"w": Tensor.scalar(w), "x": Tensor.scalar(x),
                                  "g": Tensor.scalar(g), "eta": Tensor.scalar(eta)})
    except FormulaError as refused:  # the scalar language reads any name (wx, g0)
        assert str(refused).startswith("unknown name"), (text, str(refused))
        return
    assert got.shape == ()
    assert evaluated(got.entries[0]) == scalar, text  # the same tree, not only the value


@given(st.one_of(SCALAR_FORMULAS, st.text(alphabet="wxδx̂g_{}()+-*/^|√,ij 0123.", max_size=16)))
def test_no_scalar_formula_of_the_grammar_reads_as_a_tensor(text):
    """As above, with formulas of the scalar grammar and its names (δ, x̂, x_i, w_{t-1})."""
    try:
        parse_formula(text)
    except (FormulaError, FormulaNotSupported):
        return
    assert not reads_tensor(text, {"W1", "X"})
