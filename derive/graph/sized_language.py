"""The tensor formula language (derive/graph/tensor_language.py) read over tensors of symbolic
size (derive/graph/sized.py, issue 36): `grad(cross_entropy(z, y), z)` with z and y of shape
(C,) for every C, as a lecturer writes it on the board, for `derive prove FILE.toml`.

The parser is the tensor language's, with its grammar, names, limits and messages; only the
operations differ (`SIZED_OPS`, one field per operation of the tensor language's `Ops`), each
sized.py's, so a formula means here what it means on concrete shapes. Shapes are checked before
an operation, with symbolic sizes: (m, n) @ (m, n) is one line naming both shapes and the
column. What only exists at a concrete size is "not supported at symbolic size", a message of
its own (FormulaNotSupported), never "invalid": an entry selection (W_{1,2}, W[0]), class-index
targets and onehot, the largest entry (max).

Nothing is evaluated: the entries are SymPy expressions built by sized.py from the names given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import sympy as sp

from derive.graph import sized
from derive.graph.formula_limits import FormulaError, FormulaNotSupported
from derive.graph.sized import Sized
from derive.graph.tensor import ELEMENTWISE, TensorShapeError
from derive.graph.tensor import shown as _shown
from derive.graph.tensor_language import Ops, _canonical, _Parser, parse_tensor
from derive.kernel import functions

MAX_SIZES = 8
"""Most size names of one statement."""
MAX_DIMS = 4
"""Most dimensions of one declared tensor."""
MAX_LITERAL_SIZE = 16
"""Largest size written as a number in a declared shape, such as (1, n)."""

SYMBOLIC = "is not supported at symbolic size"


def _fail(message: str, column: int | None) -> None:
    raise TensorShapeError(message, column)


def _unsupported(what: str, column: int | None, hint: str) -> None:
    raise FormulaNotSupported(f"{what} (column {column}) {SYMBOLIC}; {hint}")


def _broadcast(a: Sized, b: Sized, what: str, column: int | None) -> None:
    """torch's rule, aligned from the right, checked with the symbols: equal sizes or 1."""
    for k in range(1, min(a.ndim, b.ndim) + 1):
        x, y = a.shape[-k], b.shape[-k]
        if not (x == y or x == 1 or y == 1):
            _fail(f"{what}: shapes {_shown(a.shape)} and {_shown(b.shape)} do not broadcast "
                  f"(sizes {x} and {y} must be equal or 1)", column)


def _line(a: Sized, dim: int | None, what: str, column: int | None) -> int:
    if a.ndim == 0:
        _fail(f"{what} of a number (shape ())", column)
    d = -1 if dim is None else dim
    if not -a.ndim <= d < a.ndim:
        _fail(f"{what}: dim={dim} of a tensor of shape {_shown(a.shape)}", column)
    return d % a.ndim


def binary(op: str, a: Sized, b: Sized, column: int | None = None) -> Sized:
    _broadcast(a, b, repr(op) if op != "*" else "'*' (element-wise)", column)
    return sized.binary(op, a, b)


def compare(op: str, a: Sized, b: Sized, column: int | None = None) -> Sized:
    _broadcast(a, b, repr(op), column)
    return sized.compare(op, a, b)


def matmul(a: Sized, b: Sized, column: int | None = None) -> Sized:
    if a.ndim == 0 or b.ndim == 0:
        _fail(f"'@' of {_shown(a.shape)} and {_shown(b.shape)}: a number is multiplied with "
              "'*'", column)
    if a.ndim > 2 or b.ndim > 2:
        _unsupported(f"'@' with batch dimensions ({_shown(a.shape)} @ {_shown(b.shape)})",
                     column, "write it for one matrix of the batch")
    inner = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if a.shape[-1] != inner:
        _fail(f"'@': shapes {_shown(a.shape)} @ {_shown(b.shape)}: the inner sizes "
              f"{a.shape[-1]} and {inner} differ", column)
    return sized.matmul(a, b)


def transpose(a: Sized, column: int | None = None) -> Sized:
    if a.ndim > 2:
        _fail(f".T of a tensor of shape {_shown(a.shape)}: 2 dimensions at most", column)
    return sized.transpose(a)


def elementwise(fname: str, a: Sized, column: int | None = None) -> Sized:
    return a.map(ELEMENTWISE[fname])  # the concrete language's functions, entry by entry


def reduce(kind: str, a: Sized, dim: int | None = None, keepdim: bool = False,
           column: int | None = None) -> Sized:
    if kind not in ("sum", "mean"):
        _unsupported(f"{kind}(…)", column, "sum and mean are")
    if a.ndim == 0:
        _fail(f"{kind} of a number (shape ())", column)
    if dim is None:
        return sized.reduce(kind, a)
    return sized.reduce(kind, a, _line(a, dim, kind, column), keepdim)


def softmax(a: Sized, dim: int | None = -1, column: int | None = None) -> Sized:
    return sized.softmax(a, _line(a, dim, "softmax", column))


def log_softmax(a: Sized, dim: int | None = -1, column: int | None = None) -> Sized:
    return sized.log_softmax(a, _line(a, dim, "log_softmax", column))


def logsumexp(a: Sized, dim: int | None = -1, keepdim: bool = False,
              column: int | None = None) -> Sized:
    return sized.logsumexp(a, _line(a, dim, "logsumexp", column), keepdim)


def onehot(y: Sized, classes: int, column: int | None = None) -> Sized:
    _unsupported("onehot of class indices", column,
                 "write the targets as probabilities y of the logits' shape, with the fact "
                 "sum(y) = 1")


def outer(a: Sized, b: Sized, column: int | None = None) -> Sized:
    if a.ndim != 1 or b.ndim != 1:
        _fail(f"outer(a, b) takes two vectors, not {_shown(a.shape)} and {_shown(b.shape)}",
              column)
    return sized.outer(a, b)


def layer_norm(x: Sized, eps: sp.Expr = sized.LAYER_NORM_EPS, weight: Sized | None = None,
               bias: Sized | None = None, column: int | None = None) -> Sized:
    if x.ndim == 0:
        _fail("layer_norm of a number (shape ())", column)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.shape != (x.shape[-1],):
            _fail(f"layer_norm: {name} of shape {_shown(t.shape)} for x of shape "
                  f"{_shown(x.shape)} (it must be {_shown((x.shape[-1],))})", column)
    return sized.layer_norm(x, eps, weight=weight, bias=bias)


def cross_entropy(z: Sized, y: Sized, label_smoothing: sp.Expr = sp.S.Zero,
                  column: int | None = None) -> Sized:
    if z.ndim not in (1, 2):
        _fail(f"cross_entropy takes logits of shape (B, C) or (C,), not {_shown(z.shape)}",
              column)
    if y.shape == z.shape[:-1]:
        _unsupported(f"cross_entropy with class-index targets of shape {_shown(y.shape)}",
                     column, f"write the targets as probabilities of shape {_shown(z.shape)} "
                     "with the fact sum(y) = 1 (a one-hot target is one)")
    if y.shape != z.shape:
        _fail(f"cross_entropy: logits {_shown(z.shape)} and targets {_shown(y.shape)} (the "
              f"targets are probabilities of the logits' shape {_shown(z.shape)})", column)
    return sized.cross_entropy(z, y, label_smoothing)


def mse_loss(a: Sized, b: Sized, column: int | None = None) -> Sized:
    if a.shape != b.shape:
        _fail(f"mse_loss: the shapes {_shown(a.shape)} and {_shown(b.shape)} differ", column)
    return sized.mse_loss(a, b)


def grad(loss: Sized, wrt: Sized, column: int | None = None) -> Sized:
    if loss.ndim:
        _fail(f"grad(L, W) takes L a number, not a tensor of shape {_shown(loss.shape)}",
              column)
    return sized.grad(loss, wrt)


def _entries(t: Sized) -> tuple[sp.Expr, ...]:
    """One entry at free indices: what every entry of t is, for the parser's checks."""
    return (t.at(*(sp.Dummy("i", integer=True) for _ in t.shape)),)


SIZED_OPS = Ops(binary=binary, matmul=matmul, transpose=transpose, compare=compare,
                elementwise=elementwise, relu=functions.relu, reduce=reduce, softmax=softmax,
                log_softmax=log_softmax, logsumexp=logsumexp, onehot=onehot, outer=outer,
                layer_norm=layer_norm, cross_entropy=cross_entropy, mse_loss=mse_loss,
                grad=grad, scalar=sized.scalar, negate=lambda t: t.map(lambda e: -e),
                entries=_entries, kind=Sized)
"""torch's operations over tensors of symbolic size."""


class _SizedParser(_Parser):
    """The tensor language's parser; an entry or a row is not selected at symbolic size."""

    def entry(self, t, start, *, zero_based: bool):
        what = f"{start.text}_{{…}}" if not zero_based else f"{start.text}[…]"
        _unsupported(f"an entry or a row {what}", self.tok.column,
                     "a statement is about every entry: write the whole tensor")


def parse_sized(text: str, names: Mapping[str, Sized]) -> Sized:
    """The Sized a tensor formula writes over `names` (canonical name → Sized). Raises
    FormulaError (invalid, with its column; TensorShapeError for shapes that do not fit) or
    FormulaNotSupported (valid, not at symbolic size or beyond the language's limits)."""
    return parse_tensor(text, names, ops=SIZED_OPS, parser=_SizedParser)


# ------------------------------------------------------------------ declarations
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]{0,30}")


def canonical(name: str) -> str:
    """The name a formula reads for a declared name: δ is delta, W₁ is W1, ε is eps."""
    return _canonical(name)


class ShapeError(ValueError):
    """A declared shape that is not one as torch prints it: what is wrong (`problem`) and what
    would be right (`expected`)."""

    def __init__(self, problem: str, expected: str):
        super().__init__(f"{problem}; {expected}")
        self.problem, self.expected = problem, expected


def read_shape(text: str, sizes: Mapping[str, sp.Symbol]) -> tuple[sp.Expr, ...]:
    """A shape as torch prints it, sizes by name: "(C,)", "(m, n)", "()" for a number; a size
    may be a small whole number, as in (1, n)."""
    s = text.strip()
    if not (s.startswith("(") and s.endswith(")")):
        raise ShapeError(f"'{text}' is not a shape", "write it as torch prints one, such as "
                         "\"(m, n)\", \"(C,)\" or \"()\"")
    inner = s[1:-1].strip()
    if not inner:
        return ()
    parts = [p.strip() for p in inner.split(",")]
    if parts[-1] == "":
        parts = parts[:-1]
    elif len(parts) == 1 and (parts[0] in sizes or parts[0].isdigit()):
        raise ShapeError(f"'{text}' is not a shape", f"a vector's shape is written "
                         f"\"({parts[0]},)\", as torch prints it")
    if len(parts) > MAX_DIMS:
        raise ShapeError(f"'{text}' has {len(parts)} dimensions", f"at most {MAX_DIMS}")
    out = []
    for p in parts:
        if p.isascii() and p.isdigit():
            if not 1 <= int(p) <= MAX_LITERAL_SIZE:
                raise ShapeError(f"'{text}': the size {p} is not a whole number from 1 to "
                                 f"{MAX_LITERAL_SIZE}", "name the size in sizes")
            out.append(sp.Integer(int(p)))
        elif p in sizes:
            out.append(sizes[p])
        elif _NAME.fullmatch(p):
            known = ", ".join(sizes) or "none"
            raise ShapeError(f"'{text}': the size {p} is not declared (sizes: {known})",
                             f"add {p} to sizes, or write a declared size")
        else:
            raise ShapeError(f"'{text}': '{p}' is not a size", "write the sizes by name, "
                             "separated by commas, such as \"(m, n)\"")
    return tuple(out)


__all__ = ["MAX_DIMS", "MAX_SIZES", "SIZED_OPS", "SYMBOLIC", "FormulaError",
           "FormulaNotSupported", "ShapeError", "canonical", "parse_sized", "read_shape"]
