"""Tensors of symbolic size (issue 36): torch's operations over vectors and matrices whose
sizes are symbols (B, n, m, C, d), so that an identity is stated once for every size.

A `Sized` is a shape of SymPy sizes and a rule giving the entry at any 1-based index: a given
`W` of shape (m, n) has the entry `W[i, k]` (an `sp.Indexed`); `W @ x` has the entry
Σ_{k=1}^{n} W[i, k]·x[k] (an `sp.Sum` over a fresh bound index). A tensor identity A = B is
the scalar identity A[p, q] = B[p, q] for free indices 1 ≤ p ≤ m, 1 ≤ q ≤ n (`entrywise`),
which the kernel decides with its index rules (Σ, Kronecker deltas, every-entry facts).

Every operation is torch's, as derive/graph/tensor.py defines it on concrete shapes, and
`concrete` writes a Sized out at given sizes so tests compare the two entry by entry: the same
softmax, layer_norm (biased variance, eps inside the √) and cross_entropy (mean over the batch,
label smoothing (1 − ε)·q + ε/C) for every size, not a second convention.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

from derive.graph.tensor import LAYER_NORM_EPS, TensorShapeError
from derive.graph.tensor import shown as _shown
from derive.kernel import hypothesis
from derive.kernel.exact import to_expr
from derive.kernel.functions import DECLARED

Entry = Callable[..., sp.Expr]


def _shape_error(message: str) -> TensorShapeError:
    """tensor.py's error (one line naming the operation and both shapes); a statement is not
    read from a file, so there is no column."""
    return TensorShapeError(message, None)


def size(name: str) -> sp.Symbol:
    """A symbolic size: a positive integer (B, n, m, C, d, h, T)."""
    return sp.Symbol(name, integer=True, positive=True)


def index(name: str) -> sp.Symbol:
    """A free index of an entry-wise statement (p, q, j): an integer, its range a fact."""
    return sp.Symbol(name, integer=True)


def _bound(hint: str = "k") -> sp.Dummy:
    """A fresh bound index of a Σ: never captures a free index or another Σ's."""
    return sp.Dummy(hint, integer=True)


@dataclass(frozen=True)
class Sized:
    """A tensor of symbolic shape: `at(*index)` is the entry at a 1-based index."""

    shape: tuple[sp.Expr, ...]
    at: Entry

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def item(self) -> sp.Expr:
        if self.shape:
            raise _shape_error(f"a tensor of shape {_shown(self.shape)} is not a number")
        return self.at()

    def __getitem__(self, idx) -> sp.Expr:
        idx = idx if isinstance(idx, tuple) else (idx,)
        return self.at(*idx)

    def map(self, fn: Callable[[sp.Expr], sp.Expr]) -> Sized:
        at = self.at
        return Sized(self.shape, lambda *i: fn(at(*i)))

    # torch's spelling, so statements read as the lecturer's code
    def __add__(self, other): return binary("+", self, _lift(other))
    def __radd__(self, other): return binary("+", _lift(other), self)
    def __sub__(self, other): return binary("-", self, _lift(other))
    def __rsub__(self, other): return binary("-", _lift(other), self)
    def __mul__(self, other): return binary("*", self, _lift(other))
    def __rmul__(self, other): return binary("*", _lift(other), self)
    def __truediv__(self, other): return binary("/", self, _lift(other))
    def __neg__(self): return self.map(lambda e: -e)
    def __matmul__(self, other): return matmul(self, other)

    @property
    def T(self) -> Sized:  # noqa: N802 — torch's name
        return transpose(self)


def _lift(x) -> Sized:
    if isinstance(x, Sized):
        return x
    if isinstance(x, int):
        x = sp.Integer(x)
    if not isinstance(x, sp.Expr):
        raise TypeError(f"not a tensor or a number: {type(x).__name__}")
    return Sized((), lambda: x)


def scalar(e: sp.Expr) -> Sized:
    return Sized((), lambda: e)


def ones(*shape: sp.Expr) -> Sized:
    """torch.ones(shape): the rhs of "every row sums to 1"."""
    return Sized(tuple(shape), lambda *i: sp.S.One)


def given(name: str, *shape: sp.Expr) -> Sized:
    """A given of that shape: entries `name[i, k]` (a real symbol `name` for shape ())."""
    if not shape:
        s = sp.Symbol(name, real=True)
        return Sized((), lambda: s)
    base = sp.IndexedBase(name, real=True)
    return Sized(tuple(shape), lambda *i: base[i])


def base_of(t: Sized) -> sp.IndexedBase | sp.Symbol:
    """The IndexedBase (or Symbol) of a given, for `grad` and the facts about its entries."""
    probe = t.at(*(_bound() for _ in t.shape))
    if isinstance(probe, sp.Indexed):
        return probe.base
    if isinstance(probe, sp.Symbol):
        return probe
    raise _shape_error("grad(L, W) and facts about entries take W a given, by name")


# ------------------------------------------------------------------ broadcasting, element-wise
def broadcast(a: tuple, b: tuple, what: str) -> tuple:
    """torch's rule with symbolic sizes: aligned from the right, equal sizes or a literal 1."""
    out = []
    for k in range(1, max(len(a), len(b)) + 1):
        x = a[-k] if k <= len(a) else sp.S.One
        y = b[-k] if k <= len(b) else sp.S.One
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise _shape_error(f"{what}: shapes {_shown(a)} and {_shown(b)} do not "
                                   f"broadcast (sizes {x} and {y})")
    return tuple(reversed(out))


def _expand(t: Sized, shape: tuple) -> Entry:
    lead = len(shape) - t.ndim

    def at(*i):
        return t.at(*(sp.S.One if s == 1 else j for s, j in zip(t.shape, i[lead:])))
    return at


_BINARY = {"+": sp.Add, "-": lambda x, y: x - y, "*": sp.Mul, "/": lambda x, y: x / y,
           "^": sp.Pow}


def binary(op: str, a: Sized, b: Sized) -> Sized:
    shape = broadcast(a.shape, b.shape, f"'{op}'")
    fa, fb, fn = _expand(a, shape), _expand(b, shape), _BINARY[op]
    return Sized(shape, lambda *i: fn(fa(*i), fb(*i)))


def compare(op: str, a: Sized, b: Sized) -> Sized:
    """An indicator (a > b) as Heaviside(a − b, 0): 1 where it holds, 0 at the tie (relu′)."""
    shape = broadcast(a.shape, b.shape, f"'{op}'")
    fa, fb = _expand(a, shape), _expand(b, shape)
    if op in (">", ">="):
        return Sized(shape, lambda *i: sp.Heaviside(fa(*i) - fb(*i), 0 if op == ">" else 1))
    if op in ("<", "<="):
        return Sized(shape, lambda *i: sp.Heaviside(fb(*i) - fa(*i), 0 if op == "<" else 1))
    raise _shape_error(f"comparison {op!r} is not supported on tensors of symbolic size")


def elementwise(fname: str, a: Sized) -> Sized:
    fn = DECLARED[fname].func if fname in DECLARED else getattr(sp, fname)
    return a.map(fn)


def relu(a: Sized) -> Sized:
    return elementwise("relu", a)


def exp(a: Sized) -> Sized:
    return a.map(sp.exp)


# ------------------------------------------------------------------ products
def transpose(a: Sized) -> Sized:
    if a.ndim < 2:
        return a
    if a.ndim != 2:
        raise _shape_error(f".T of a tensor of shape {_shown(a.shape)}: 2 dimensions")
    return Sized((a.shape[1], a.shape[0]), lambda i, j: a.at(j, i))


def _inner(n, f: Callable[[sp.Expr], sp.Expr]) -> sp.Expr:
    k = _bound()
    return sp.Sum(f(k), (k, 1, n))


def matmul(a: Sized, b: Sized) -> Sized:
    """torch.matmul for 1-d and 2-d operands: the inner sizes must be the same symbol."""
    if a.ndim == 0 or b.ndim == 0 or a.ndim > 2 or b.ndim > 2:
        raise _shape_error(f"'@': shapes {_shown(a.shape)} @ {_shown(b.shape)}: 1 or 2 "
                               "dimensions each")
    n = a.shape[-1]
    if (b.shape[0] if b.ndim == 1 else b.shape[-2]) != n:
        raise _shape_error(f"'@': {_shown(a.shape)} @ {_shown(b.shape)}: the inner sizes "
                               "differ")
    if a.ndim == 1 and b.ndim == 1:
        return Sized((), lambda: _inner(n, lambda k: a.at(k) * b.at(k)))
    if a.ndim == 2 and b.ndim == 1:
        return Sized((a.shape[0],), lambda i: _inner(n, lambda k: a.at(i, k) * b.at(k)))
    if a.ndim == 1:
        return Sized((b.shape[1],), lambda j: _inner(n, lambda k: a.at(k) * b.at(k, j)))
    return Sized((a.shape[0], b.shape[1]),
                 lambda i, j: _inner(n, lambda k: a.at(i, k) * b.at(k, j)))


def outer(a: Sized, b: Sized) -> Sized:
    if a.ndim != 1 or b.ndim != 1:
        raise _shape_error("outer(a, b) takes two vectors")
    return Sized((a.shape[0], b.shape[0]), lambda i, j: a.at(i) * b.at(j))


# ------------------------------------------------------------------ reductions along a dimension
def _dim(a: Sized, dim: int | None) -> int:
    d = -1 if dim is None else dim
    if not -a.ndim <= d < a.ndim:
        raise _shape_error(f"dim={dim} of a tensor of shape {_shown(a.shape)}")
    return d % a.ndim


def _along(a: Sized, dim: int, fn: Callable[[Callable[[sp.Expr], sp.Expr], sp.Expr], sp.Expr],
           keepdim: bool = False) -> Sized:
    """A reduction of each line along `dim`: fn(line, size), line(k) the k-th entry."""
    n = a.shape[dim]
    shape = a.shape[:dim] + ((sp.S.One,) if keepdim else ()) + a.shape[dim + 1:]

    def at(*i):
        rest = i[:dim], (i[dim + 1:] if keepdim else i[dim:])
        return fn(lambda k: a.at(*rest[0], k, *rest[1]), n)
    return Sized(shape, at)


def _per_line(a: Sized, dim: int,
              fn: Callable[[Callable[[sp.Expr], sp.Expr], sp.Expr, sp.Expr], sp.Expr]) -> Sized:
    """A map of each line along `dim` to a line: fn(line, size, position) is the entry at
    `position` of the result's line."""
    n = a.shape[dim]

    def at(*i):
        return fn(lambda k: a.at(*i[:dim], k, *i[dim + 1:]), n, i[dim])
    return Sized(a.shape, at)


def total(line, n) -> sp.Expr:
    return _inner(n, line)


def reduce(kind: str, a: Sized, dim: int | None = None, keepdim: bool = False) -> Sized:
    """sum / mean over one dimension (dim=None: every entry)."""
    if dim is None:
        if kind not in ("sum", "mean"):
            raise _shape_error(f"{kind} of every entry is not supported at symbolic size")
        out = a
        for _ in range(a.ndim):
            out = reduce(kind, out, 0)
        return out
    d = _dim(a, dim)
    if kind == "sum":
        return _along(a, d, total, keepdim)
    if kind == "mean":
        return _along(a, d, lambda line, n: total(line, n) / n, keepdim)
    raise _shape_error(f"{kind} along a dimension is not supported at symbolic size")


def logsumexp(a: Sized, dim: int = -1, keepdim: bool = False) -> Sized:
    return _along(a, _dim(a, dim), lambda line, n: sp.log(total(lambda k: sp.exp(line(k)), n)),
                  keepdim)


def softmax(a: Sized, dim: int = -1) -> Sized:
    return _per_line(a, _dim(a, dim),
                     lambda line, n, c: sp.exp(line(c)) / total(lambda k: sp.exp(line(k)), n))


def log_softmax(a: Sized, dim: int = -1) -> Sized:
    return _per_line(a, _dim(a, dim),
                     lambda line, n, c: line(c) - sp.log(total(lambda k: sp.exp(line(k)), n)))


# ------------------------------------------------------------------ losses and norms
def smoothed(q: Sized, eps: sp.Expr) -> Sized:
    """The label-smoothed target (1 − ε)·q + ε/C (torch's cross_entropy)."""
    classes = q.shape[-1]
    return q.map(lambda t: (1 - eps) * t + eps / classes)


def cross_entropy(z: Sized, q: Sized, label_smoothing: sp.Expr = sp.S.Zero) -> Sized:
    """torch.nn.functional.cross_entropy with probability targets q (z's shape), mean over the
    batch: (1/B)·Σ_b −Σ_c q[b, c]·log_softmax(z)[b, c]."""
    if z.ndim not in (1, 2) or q.shape != z.shape:
        raise _shape_error(f"cross_entropy at symbolic size takes logits of shape (B, C) or "
                               f"(C,) and probability targets of the same shape, not "
                               f"{_shown(z.shape)} and {_shown(q.shape)}")
    if label_smoothing != 0:
        q = smoothed(q, label_smoothing)
    per = -(q * log_softmax(z))
    if z.ndim == 1:
        return reduce("sum", per, 0)
    return reduce("mean", reduce("sum", per, 1), 0)


def mse_loss(a: Sized, b: Sized) -> Sized:
    if a.shape != b.shape:
        raise _shape_error(f"mse_loss: the shapes {_shown(a.shape)} and {_shown(b.shape)} "
                               "differ")
    return reduce("mean", binary("^", a - b, scalar(sp.Integer(2))))


def layer_norm(x: Sized, eps: sp.Expr = LAYER_NORM_EPS, weight: Sized | None = None,
               bias: Sized | None = None, unbiased: bool = False) -> Sized:
    """torch.nn.functional.layer_norm over the last dimension: (x − mean)/√(var + eps), var
    the biased (1/n) variance; `unbiased=True` is the mistake (1/(n − 1)), for refutations."""
    d = x.ndim - 1
    if d < 0:
        raise _shape_error("layer_norm of a number (shape ())")
    n = x.shape[-1]

    def entry(line, n, c):
        mean = total(line, n) / n
        var = total(lambda k: (line(k) - mean) ** 2, n) / (n - 1 if unbiased else n)
        return (line(c) - mean) / sp.sqrt(var + eps)
    out = _per_line(x, d, entry)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.shape != (n,):
            raise _shape_error(f"layer_norm: {name} of shape {_shown(t.shape)} (it must be "
                                   f"({n},))")
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def grad(loss: Sized, wrt: Sized) -> Sized:
    """∂L/∂W, W's shape: entry (p, q) the derivative with respect to W[p, q], left unevaluated
    (the kernel takes it by sympy.diff)."""
    L = loss.item
    base_of(wrt)
    return Sized(wrt.shape, lambda *i: sp.Derivative(L, wrt.at(*i)))


def backward(upstream: Sized, out: Sized, wrt: Sized) -> Sized:
    """The chain rule as the board writes it: entry (p, …) is Σ over out's entries of
    upstream[i, …]·∂out[i, …]/∂wrt[p, …], the derivatives left unevaluated (for the kernel's
    sympy.diff). With upstream = ∂L/∂out this is ∂L/∂wrt for any L that depends on wrt only
    through out; the statements take upstream as a given (δ), so L itself is never written."""
    if upstream.shape != out.shape:
        raise _shape_error(f"backward: the upstream gradient has shape "
                               f"{_shown(upstream.shape)}, the output {_shown(out.shape)}")
    base_of(wrt)

    def at(*p):
        bound = tuple(_bound("i") for _ in out.shape)
        term = upstream.at(*bound) * sp.Derivative(out.at(*bound), wrt.at(*p))
        for b, n in reversed(tuple(zip(bound, out.shape))):
            term = sp.Sum(term, (b, 1, n))
        return term
    return Sized(wrt.shape, at)


def attention_scores(q: Sized, k: Sized, scale: sp.Expr) -> Sized:
    """softmax(Q Kᵀ·scale) along the keys: Q of shape (T, d), K of shape (S, d); the lecture's
    scale is 1/√d."""
    return softmax((q @ k.T) * scale, dim=-1)


# ------------------------------------------------------------------ statements and instances
def entrywise(lhs: Sized, rhs: Sized, names: str = "pqrs"):
    """The identity lhs = rhs as one entry with free indices, and their range facts: (lhs
    entry, rhs entry, indices, facts)."""
    if lhs.shape != rhs.shape:
        raise _shape_error(f"the two sides have shapes {_shown(lhs.shape)} and "
                               f"{_shown(rhs.shape)}")
    idx = tuple(index(names[k]) for k in range(lhs.ndim))
    facts = []
    for i, n in zip(idx, lhs.shape):
        facts += [hypothesis(i - 1, f"{i} ≥ 1"), hypothesis(n - i, f"{i} ≤ {n}")]
    return lhs.at(*idx), rhs.at(*idx), idx, tuple(facts)


def _written_out(e: sp.Basic, sub: dict) -> sp.Basic:
    """e at the sizes `sub`, every Σ with integer limits replaced by the sum of its terms,
    rebuilt from the leaves up: a Σ is written out before the power or product holding it is
    rebuilt, so SymPy never asks a symbolic Σ whether it is zero (its closed-form search made
    a LayerNorm row 5× slower). The same value as xreplace(sub).doit() on the Σ."""
    if e in sub:
        return sub[e]
    if isinstance(e, sp.Sum) and len(e.limits) == 1:
        k, lo, hi = e.limits[0]
        lo, hi = _written_out(lo, sub), _written_out(hi, sub)
        if lo.is_Integer and hi.is_Integer:
            term = _written_out(e.function, sub)
            return sp.Add(*(term.xreplace({k: sp.Integer(v)})
                            for v in range(int(lo), int(hi) + 1)))
    if not e.args or isinstance(e, (sp.Indexed, sp.Dummy)):
        return e.xreplace(sub) if e.free_symbols & set(sub) else e
    args = [_written_out(a, sub) for a in e.args]
    return e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e


def concrete(t: Sized, sizes: dict, values: dict | None = None) -> list | sp.Expr:
    """t written out at concrete sizes ({n: 2}) as nested lists (0-based, as torch), Σ done;
    `values` maps a given's name to its nested list (or number), entries substituted."""
    sub = {s: sp.Integer(v) for s, v in sizes.items()}
    shape = [int(sp.Integer(s) if isinstance(s, int) else s.xreplace(sub)) for s in t.shape]

    written: dict = {}

    def derivative(d: sp.Derivative) -> sp.Expr:
        """grad's entries share one loss: it is written out (its Σ done) once, then
        differentiated by each entry's variable."""
        if d.expr not in written:
            written[d.expr] = _written_out(d.expr, sub)
        return sp.diff(written[d.expr], *(_written_out(v, sub) for v in d.variables))

    def value(e: sp.Expr) -> sp.Expr:
        e = _written_out(e, sub)
        e = e.replace(lambda a: isinstance(a, sp.Derivative), derivative).doit()
        if values:
            repl = {}
            for x in e.atoms(sp.Indexed):
                v = values.get(str(x.base))
                if v is not None:
                    for j in x.indices:
                        v = v[int(j) - 1]
                    repl[x] = to_expr(v)
            for x in e.atoms(sp.Symbol):
                if str(x) in values and not isinstance(values[str(x)], list):
                    v = values[str(x)]
                    repl[x] = to_expr(v)
            e = e.xreplace(repl).doit()
        return e

    if not shape:
        return value(t.at())
    flat = {i: value(t.at(*(sp.Integer(k + 1) for k in i)))
            for i in itertools.product(*(range(s) for s in shape))}

    def nest(prefix):
        if len(prefix) == len(shape):
            return flat[tuple(prefix)]
        return [nest([*prefix, k]) for k in range(shape[len(prefix)])]
    return nest([])
