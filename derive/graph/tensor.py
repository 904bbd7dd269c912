"""Tensors of the formula language (issue 35): a shape and its entries, each a SymPy scalar
expression, with every operation defined as torch defines it.

Nothing here is numeric. A tensor given `W1` is the Tensor of its entry symbols `W1[1,1]` …;
an operation builds the entry expressions of its result (z1[1] = W1[1,1]·x[1] + W1[1,2]·x[2] +
b1[1]), so the scalar engine decides every entry exactly as it decides a scalar quantity, and a
gradient is `sympy.diff` of the loss written out. Shapes are checked before any expression is
built: a mismatch is one `TensorShapeError` naming the operation, both shapes and the column.

torch's definitions, each checked against torch float64 in tests/test_tensor_torch.py:

- broadcasting: shapes aligned from the right, a size 1 (or a missing dimension) stretched;
- `a @ b`: vector·vector is the dot product (shape ()), matrix @ vector, vector @ matrix,
  matrix @ matrix, batched (leading dimensions broadcast) as torch.matmul;
- `A.T` reverses the dimensions (a vector is left as it is, as torch's `.T` on 1-d);
- softmax(z)_c = exp(z_c)/Σ_c' exp(z_c'); log_softmax = z − logsumexp; logsumexp = log Σ exp;
- layer_norm over the last dimension: (x − mean)/√(var + eps), var the biased (1/n) variance,
  then ·weight + bias (torch.nn.functional.layer_norm, normalized_shape = (n,));
- cross_entropy(Z, y): mean over the batch of −Σ_c q_c log_softmax(Z)_c, q the one-hot of a
  class index (0-based) or the given probabilities, smoothed to (1 − ε)·q + ε/C;
- max over a dimension: the values (torch.amax: a tie's gradient is split evenly);
- an indicator (z > 0) is Heaviside(z, 0): 1 where it holds, 0 at the tie, as relu′.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sympy as sp

from derive.graph.formula_limits import FormulaError
from derive.kernel.constants import AMax, Max, repeated
from derive.kernel.functions import DECLARED

MAX_DIMS = 4
"""Most dimensions of a tensor."""
LAYER_NORM_EPS = sp.Rational(1, 100_000)
"""torch.nn.functional.layer_norm's default eps, 1e-5, exactly."""
MAX_ENTRIES = 4_096
"""Most entries of one tensor (a result's too: an outer product of two long vectors)."""


class TensorShapeError(FormulaError):
    """Shapes an operation cannot combine: the message names the operation, both shapes and
    the column (one line)."""

    __module__ = "derive.graph.language"


def shown(shape: tuple[int, ...]) -> str:
    """A shape as torch prints it: (2, 3), (3,), () for a scalar."""
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(s) for s in shape) + ")"


@dataclass(frozen=True)
class Tensor:
    """A shape and its entries in row-major (C) order."""

    shape: tuple[int, ...]
    entries: tuple[sp.Expr, ...]

    def __post_init__(self):
        if math.prod(self.shape) != len(self.entries):
            raise ValueError(f"{len(self.entries)} entries for the shape {shown(self.shape)}")

    @classmethod
    def scalar(cls, e: sp.Expr) -> "Tensor":
        return cls((), (sp.Integer(e) if isinstance(e, int) else e,))

    @classmethod
    def of(cls, nested) -> "Tensor":
        """A Tensor from nested lists of expressions (a bare expression is a scalar)."""
        shape, flat = _read(nested)
        return cls(shape, tuple(flat))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return len(self.entries)

    @property
    def is_scalar(self) -> bool:
        return self.shape == ()

    @property
    def item(self) -> sp.Expr:
        if self.size != 1:
            raise ValueError(f"a tensor of shape {shown(self.shape)} is not one number")
        return self.entries[0]

    def __getitem__(self, index: tuple[int, ...]) -> sp.Expr:
        """The entry at a 0-based index."""
        return self.entries[_offset(self.shape, index)]

    def indices(self):
        """Every 0-based index, in row-major order."""
        return itertools.product(*(range(s) for s in self.shape))

    def map(self, fn: Callable[[sp.Expr], sp.Expr]) -> "Tensor":
        return Tensor(self.shape, tuple(fn(e) for e in self.entries))

    def nested(self):
        """The entries as nested lists (a scalar as itself)."""
        return _nest(self.shape, list(self.entries))


def _read(nested) -> tuple[tuple[int, ...], list]:
    if not isinstance(nested, (list, tuple)):
        return (), [nested]
    parts = [_read(x) for x in nested]
    shapes = {p[0] for p in parts}
    if len(shapes) > 1:
        raise ValueError("a ragged list")
    inner = shapes.pop() if shapes else ()
    return (len(parts), *inner), [e for p in parts for e in p[1]]


def _nest(shape: tuple[int, ...], flat: list):
    if not shape:
        return flat[0]
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(shape[1:], flat[i * step:(i + 1) * step]) for i in range(shape[0])]


def _offset(shape: tuple[int, ...], index: tuple[int, ...]) -> int:
    off = 0
    for size, i in zip(shape, index, strict=True):
        if not 0 <= i < size:
            raise IndexError(f"index {i} outside a dimension of size {size}")
        off = off * size + i
    return off


def _make(shape: tuple[int, ...], entries, what: str, column: int | None) -> Tensor:
    if len(shape) > MAX_DIMS:
        raise TensorShapeError(f"{what} gives {len(shape)} dimensions; at most {MAX_DIMS}",
                               column)
    entries = tuple(entries)
    if len(entries) > MAX_ENTRIES:
        raise TensorShapeError(f"{what} gives {len(entries):,} entries; at most "
                               f"{MAX_ENTRIES:,}", column)
    return Tensor(shape, entries)


def entry_name(name: str, index: tuple[int, ...]) -> str:
    """The canonical name of one entry: `W1[1,2]`, 1-based as lecturers write W1_{1,2}."""
    return f"{name}[{','.join(str(i + 1) for i in index)}]"


def symbols(name: str, shape: tuple[int, ...]) -> Tensor:
    """The tensor of a given's (or a quantity's) entry symbols; a shape () is the Symbol
    `name` itself."""
    if not shape:
        return Tensor.scalar(sp.Symbol(name, real=True))
    return Tensor(shape, tuple(sp.Symbol(entry_name(name, ix), real=True)
                               for ix in itertools.product(*(range(s) for s in shape))))


# ------------------------------------------------------------------ broadcasting, element-wise
def broadcast_shape(a: tuple[int, ...], b: tuple[int, ...], what: str,
                    column: int | None) -> tuple[int, ...]:
    """torch's broadcasting: sizes compared from the right, equal or one of them 1."""
    out = []
    for x, y in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if x != y and 1 not in (x, y):
            raise TensorShapeError(f"{what}: the shapes {shown(a)} and {shown(b)} do not "
                                   f"broadcast (sizes {x} and {y} in one dimension; each must "
                                   "be equal or 1)", column)
        out.append(max(x, y) if 0 not in (x, y) else 0)
    return tuple(reversed(out))


def _expand(t: Tensor, shape: tuple[int, ...]) -> list[sp.Expr]:
    """t's entries broadcast to `shape` (which broadcasting allows), row-major."""
    pad = (1,) * (len(shape) - t.ndim) + t.shape
    out = []
    for ix in itertools.product(*(range(s) for s in shape)):
        out.append(t.entries[_offset(pad, tuple(0 if p == 1 else i for p, i in zip(pad, ix)))]
                   if t.size else sp.S.Zero)
    return out


_BINARY: dict[str, Callable[[sp.Expr, sp.Expr], sp.Expr]] = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": lambda x, y: x / y,
    "^": lambda x, y: x ** y,
}


def zip_with(fn: Callable[[sp.Expr, sp.Expr], sp.Expr], a: Tensor, b: Tensor, what: str,
             column: int | None = None) -> Tensor:
    """fn entry by entry over a and b broadcast together."""
    shape = broadcast_shape(a.shape, b.shape, what, column)
    return _make(shape, map(fn, _expand(a, shape), _expand(b, shape)), what, column)


def binary(op: str, a: Tensor, b: Tensor, column: int | None = None) -> Tensor:
    """a op b entry by entry, op one of + - * / ^, with torch's broadcasting."""
    return zip_with(_BINARY[op], a, b, f"{op!r}" if op != "*" else "'*' (element-wise)", column)


def negate(a: Tensor) -> Tensor:
    return a.map(lambda e: -e)


_COMPARE = {
    ">": lambda x, y: sp.Heaviside(x - y, 0),
    ">=": lambda x, y: sp.Heaviside(x - y, 1),
    "<": lambda x, y: sp.Heaviside(y - x, 0),
    "<=": lambda x, y: sp.Heaviside(y - x, 1),
}


def compare(op: str, a: Tensor, b: Tensor, column: int | None = None) -> Tensor:
    """The indicator of a op b entry by entry: 1 where it holds, else 0 (torch's
    `(a > b).double()`), written as a Heaviside step so that it is relu's derivative."""
    return zip_with(_COMPARE[op], a, b, f"{op!r}", column)


ELEMENTWISE: dict[str, Callable[[sp.Expr], sp.Expr]] = {
    "exp": lambda x: sp.exp(x),
    "log": lambda x: sp.log(x),
    "sqrt": lambda x: sp.sqrt(x),
    "abs": lambda x: sp.Abs(x),
    **{name: (lambda f: lambda x: f(x))(DECLARED[name].func)
       for name in ("tanh", "sigmoid", "relu", "sign", "softplus") if name in DECLARED},
}
"""The scalar functions applied entry by entry: the scalar language's own (derive/kernel/
functions.py), so their exact values, intervals and torch derivatives are the scalar ones."""


def elementwise(fname: str, a: Tensor, column: int | None = None) -> Tensor:
    return a.map(ELEMENTWISE[fname])


# ------------------------------------------------------------------ matmul, transpose, outer
def transpose(a: Tensor, column: int | None = None) -> Tensor:
    """A.T: the dimensions reversed (a vector or a scalar as it is)."""
    if a.ndim < 2:
        return a
    shape = tuple(reversed(a.shape))
    return Tensor(shape, tuple(a[tuple(reversed(ix))]
                               for ix in itertools.product(*(range(s) for s in shape))))


def _dot(xs: Sequence[sp.Expr], ys: Sequence[sp.Expr]) -> sp.Expr:
    return sp.Add(*[x * y for x, y in zip(xs, ys)])


def matmul(a: Tensor, b: Tensor, column: int | None = None) -> Tensor:
    """a @ b as torch.matmul."""
    if a.is_scalar or b.is_scalar:
        raise TensorShapeError(f"'@' needs a vector or a matrix on each side, not "
                               f"{shown(a.shape)} @ {shown(b.shape)} (a number scales with "
                               "'*')", column)

    def inner(n: int, m: int):
        if n != m:
            raise TensorShapeError(f"'@': {shown(a.shape)} @ {shown(b.shape)}: the inner "
                                   f"sizes {n} and {m} differ", column)
    if a.ndim == 1 and b.ndim == 1:
        inner(a.shape[0], b.shape[0])
        return Tensor((), (_dot(a.entries, b.entries),))
    # a vector on the left is a row (1, n), on the right a column (n, 1), removed after
    A = a if a.ndim > 1 else Tensor((1, a.shape[0]), a.entries)
    B = b if b.ndim > 1 else Tensor((b.shape[0], 1), b.entries)
    inner(A.shape[-1], B.shape[-2])
    batch = broadcast_shape(A.shape[:-2], B.shape[:-2],
                            f"'@' {shown(a.shape)} @ {shown(b.shape)}, batch dimensions", column)
    n, k, m = A.shape[-2], A.shape[-1], B.shape[-1]
    shape = (*batch, n, m)
    out = []
    for bix in itertools.product(*(range(s) for s in batch)):
        ai = _batch_index(A.shape[:-2], bix)
        bi = _batch_index(B.shape[:-2], bix)
        for i in range(n):
            for j in range(m):
                out.append(_dot([A[(*ai, i, t)] for t in range(k)],
                                [B[(*bi, t, j)] for t in range(k)]))
    result = _make(shape, out, "'@'", column)
    final = list(shape)
    if b.ndim == 1:
        final.pop(-1)
    if a.ndim == 1:
        final.pop(-2 if b.ndim > 1 else -1)
    return Tensor(tuple(final), result.entries)


def _batch_index(shape: tuple[int, ...], bix: tuple[int, ...]) -> tuple[int, ...]:
    pad = len(bix) - len(shape)
    return tuple(0 if s == 1 else bix[pad + d] for d, s in enumerate(shape))


def outer(a: Tensor, b: Tensor, column: int | None = None) -> Tensor:
    """torch.outer: two vectors, (n,) and (m,), give n × m."""
    if a.ndim != 1 or b.ndim != 1:
        raise TensorShapeError(f"outer takes two vectors, not {shown(a.shape)} and "
                               f"{shown(b.shape)}", column)
    return _make((a.shape[0], b.shape[0]), (x * y for x in a.entries for y in b.entries),
                 "outer", column)


# ------------------------------------------------------------------ reductions
def _dim(a: Tensor, dim: int | None, what: str, column: int | None) -> int:
    if a.is_scalar:
        if dim in (None, 0, -1):
            return -1
    if dim is None:
        return a.ndim - 1
    if not -a.ndim <= dim < a.ndim:
        raise TensorShapeError(f"{what}: dim={dim} is outside a tensor of shape "
                               f"{shown(a.shape)} (dims 0 to {a.ndim - 1}, or -{a.ndim} to -1)",
                               column)
    return dim % a.ndim


def _along(a: Tensor, dim: int, fn: Callable[[list[sp.Expr]], sp.Expr],
           keepdim: bool) -> Tensor:
    """fn of each line of entries along `dim` (the dimension removed, or kept as 1)."""
    rest = a.shape[:dim] + a.shape[dim + 1:]
    out = []
    for ix in itertools.product(*(range(s) for s in rest)):
        line = [a[(*ix[:dim], t, *ix[dim:])] for t in range(a.shape[dim])]
        out.append(fn(line))
    shape = a.shape[:dim] + (1,) + a.shape[dim + 1:] if keepdim else rest
    return Tensor(shape, tuple(out))


def _per_line(a: Tensor, dim: int, fn: Callable[[list[sp.Expr]], list[sp.Expr]]) -> Tensor:
    """fn of each line along `dim`, giving a line back: the shape kept (softmax)."""
    out = list(a.entries)
    rest = a.shape[:dim] + a.shape[dim + 1:]
    for ix in itertools.product(*(range(s) for s in rest)):
        where = [_offset(a.shape, (*ix[:dim], t, *ix[dim:])) for t in range(a.shape[dim])]
        for w, v in zip(where, fn([a.entries[w] for w in where])):
            out[w] = v
    return Tensor(a.shape, tuple(out))


REDUCTIONS: dict[str, Callable[[list[sp.Expr]], sp.Expr]] = {
    "sum": lambda xs: sp.Add(*xs),
    "mean": lambda xs: sp.Add(*xs) / len(xs),
    "max": lambda xs: xs[0] if len(xs) == 1 else _amax(xs),
}


def _amax(xs: list[sp.Expr]) -> sp.Expr:
    """torch.amax of a line: a tie's gradient split evenly (derive.kernel.constants.AMax); an
    argument written twice is RepeatedMax, through which no derivative is taken."""
    cls = repeated(Max, xs)
    return (AMax if cls is Max else cls)(*xs, evaluate=False)


def reduce(kind: str, a: Tensor, dim: int | None = None, keepdim: bool = False,
           column: int | None = None) -> Tensor:
    """sum, mean or max of every entry (dim None) or along one dimension (torch's `dim`,
    `keepdim`); max gives the values, as torch.amax."""
    fn = REDUCTIONS[kind]
    if a.size == 0:
        raise TensorShapeError(f"{kind} of an empty tensor", column)
    if dim is None:
        value = fn(list(a.entries))
        return Tensor((1,) * a.ndim if keepdim else (), (value,))
    if a.is_scalar:
        _dim(a, dim, kind, column)
        return a
    d = _dim(a, dim, kind, column)
    return _along(a, d, fn, keepdim)


def _logsumexp(xs: list[sp.Expr]) -> sp.Expr:
    return sp.log(sp.Add(*[sp.exp(x) for x in xs]))


def _softmax(xs: list[sp.Expr]) -> list[sp.Expr]:
    total = sp.Add(*[sp.exp(x) for x in xs])
    return [sp.exp(x) / total for x in xs]


def _log_softmax(xs: list[sp.Expr]) -> list[sp.Expr]:
    lse = _logsumexp(xs)
    return [x - lse for x in xs]


def _line_dim(a: Tensor, dim: int | None, what: str, column: int | None) -> int:
    if a.is_scalar:
        raise TensorShapeError(f"{what} of a number (shape ()): give it a vector or a matrix",
                               column)
    return _dim(a, -1 if dim is None else dim, what, column)


def softmax(a: Tensor, dim: int | None = -1, column: int | None = None) -> Tensor:
    return _per_line(a, _line_dim(a, dim, "softmax", column), _softmax)


def log_softmax(a: Tensor, dim: int | None = -1, column: int | None = None) -> Tensor:
    return _per_line(a, _line_dim(a, dim, "log_softmax", column), _log_softmax)


def logsumexp(a: Tensor, dim: int | None = -1, keepdim: bool = False,
              column: int | None = None) -> Tensor:
    return _along(a, _line_dim(a, dim, "logsumexp", column), _logsumexp, keepdim)


# ------------------------------------------------------------------ labels, losses, norms
def _class_index(e: sp.Expr, classes: int, what: str, column: int | None) -> int:
    if not (isinstance(e, sp.Integer) and 0 <= int(e) < classes):
        raise TensorShapeError(f"{what}: a class index must be a whole number from 0 to "
                               f"{classes - 1} (0-based, as torch), not {e}", column)
    return int(e)


def onehot(y: Tensor, classes: int, column: int | None = None) -> Tensor:
    """torch.nn.functional.one_hot(y, classes): y's class indices (0-based) as rows of 0s
    and one 1; the indices must be numbers (a given's values), read when the formula is."""
    if y.ndim > MAX_DIMS - 1:
        raise TensorShapeError(f"onehot of a tensor of shape {shown(y.shape)}", column)
    rows = [_class_index(e, classes, "onehot", column) for e in y.entries]
    out = [sp.S.One if c == r else sp.S.Zero for r in rows for c in range(classes)]
    return _make((*y.shape, classes), out, "onehot", column)


def cross_entropy(z: Tensor, y: Tensor, label_smoothing: sp.Expr = sp.S.Zero,
                  column: int | None = None) -> Tensor:
    """torch.nn.functional.cross_entropy(z, y, label_smoothing=ε) with mean reduction: z of
    shape (B, C) or (C,); y class indices (shape (B,) or ()) or probabilities (z's shape)."""
    if z.ndim not in (1, 2):
        raise TensorShapeError(f"cross_entropy takes logits of shape (B, C) or (C,), not "
                               f"{shown(z.shape)}", column)
    classes = z.shape[-1]
    rows = z.shape[0] if z.ndim == 2 else 1
    if y.shape == z.shape:
        q = y
    elif y.shape == z.shape[:-1]:
        q = onehot(y, classes, column)
    else:
        raise TensorShapeError(f"cross_entropy: logits {shown(z.shape)} and targets "
                               f"{shown(y.shape)} (targets are class indices of shape "
                               f"{shown(z.shape[:-1])} or probabilities of shape "
                               f"{shown(z.shape)})", column)
    eps = label_smoothing
    if eps != 0:
        q = q.map(lambda t: (1 - eps) * t + eps / classes)
    logp = log_softmax(z, -1, column)
    total = sp.Add(*[-t * lp for t, lp in zip(q.entries, logp.entries) if t != 0])
    return Tensor((), (total / rows,))


def mse_loss(a: Tensor, b: Tensor, column: int | None = None) -> Tensor:
    """torch.nn.functional.mse_loss (mean reduction; torch warns and broadcasts when the
    shapes differ: derive refuses)."""
    if a.shape != b.shape:
        raise TensorShapeError(f"mse_loss: the shapes {shown(a.shape)} and {shown(b.shape)} "
                               "differ (torch would broadcast them with a warning: give "
                               "equal shapes)", column)
    return Tensor((), (sp.Add(*[(x - y) ** 2 for x, y in zip(a.entries, b.entries)])
                       / max(a.size, 1),))


def layer_norm(x: Tensor, eps: sp.Expr = LAYER_NORM_EPS, weight: Tensor | None = None,
               bias: Tensor | None = None, column: int | None = None) -> Tensor:
    """torch.nn.functional.layer_norm over the last dimension: (x − mean)/√(var + eps) with the
    biased variance, then ·weight + bias (each of shape (n,))."""
    if x.is_scalar:
        raise TensorShapeError("layer_norm of a number (shape ()): give it a vector or a "
                               "matrix", column)
    n = x.shape[-1]
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.shape != (n,):
            raise TensorShapeError(f"layer_norm: {name} of shape {shown(t.shape)} for an "
                                   f"input of shape {shown(x.shape)} (it must be ({n},))",
                                   column)

    def line(xs: list[sp.Expr]) -> list[sp.Expr]:
        mean = sp.Add(*xs) / n
        var = sp.Add(*[(v - mean) ** 2 for v in xs]) / n
        out = [(v - mean) / sp.sqrt(var + eps) for v in xs]
        if weight is not None:
            out = [o * w for o, w in zip(out, weight.entries)]
        if bias is not None:
            out = [o + b for o, b in zip(out, bias.entries)]
        return out
    return _per_line(x, x.ndim - 1, line)


def grad(loss: Tensor, wrt: Tensor, column: int | None = None) -> Tensor:
    """∂L/∂W for a scalar L: W's shape, entry (i, j) the derivative with respect to W[i,j] (what
    torch's W.grad holds). Left as Derivatives: the formulas recipe takes each by `sympy.diff`
    of L written out down to the givens."""
    if not loss.is_scalar:
        raise TensorShapeError(f"grad(L, W) needs a scalar L, not a tensor of shape "
                               f"{shown(loss.shape)} (reduce it first: sum(…) or mean(…))",
                               column)
    for e in wrt.entries:
        if not isinstance(e, (sp.Symbol, sp.Indexed)):
            raise TensorShapeError("grad(L, W) takes W a given or a quantity, by name",
                                   column)
    return wrt.map(lambda w: sp.Derivative(loss.item, w))
