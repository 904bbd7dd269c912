"""The whole-tensor mistakes the course teaches (issue 35, item 3), each declared once: its id,
its words in English and Chinese (with math spans, derive.graph.words), its kind, and the
operation the student got wrong.

A mistake is the same exercise read with one operation of the tensor language replaced
(derive.graph.tensor_language.Ops; `dataclasses.replace(OPS, layer_norm=…)`), so it applies
wherever the author used that operation and nowhere else, and its value is computed exactly
as the right one is: the variant's nodes are the exercise's own nodes rebuilt under the
mistaken operations (their derivatives taken again by `sympy.diff`), in place of the right
ones (derive.graph.node.Variant). Only `transposed` is a change of the quantity's value, not
of an operation: entry (i, j) computed as entry (j, i).

Kinds:

- `forward`: the operation is wrong wherever it is used, so every quantity after it is wrong
  (the sum for the mean in the loss, and so the gradients, B times too large);
- `backward`: the operation is right in the forward pass and wrong only in the derivatives
  taken through it (relu′(0) taken as 1, the ReLU mask forgotten, p for p − y): only the
  quantities whose formula takes a derivative (`grad`) are rebuilt under it;
- `value`: the quantity's own value rearranged (`transposed`).

A mistake may change one of several operations (`wrong_axis`: softmax, log-softmax,
log-sum-exp, a sum or a mean over the other axis of a matrix); each is one `Site`, with its
own words, tried one at a time, as a student takes one softmax over the wrong axis: the
diagnosis names the mistake when one site gives the claimed value (the first that does,
derive.recipes.base.Mistake's candidates).

`variants(quantities, build, ops)` is the hook the formulas recipe calls: it rebuilds the
exercise under each mistaken Ops and gives, for every quantity each mistake changes, the node
definitions to replace. derive/recipes/tensor_variants.py turns them into the recipe's
mistakes.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import sympy as sp

from derive.graph.formula_limits import FormulaError
from derive.graph.mutation_parts import plain_text, text
from derive.graph.node import Node, leaves
from derive.graph.notation import Notations, in_scope
from derive.graph.tensor import Tensor
from derive.graph.words import Formula, Words, cat, filled, said
from derive.kernel.functions import BY_CLASS, relu

FORWARD, BACKWARD, VALUE = "forward", "backward", "value"
KINDS = (FORWARD, BACKWARD, VALUE)


class _Changed(list):
    """What a mistaken operation records each time it computes something other than the right
    operation would (a softmax over the other axis of a matrix; never of a vector, where the
    other axis does not exist): a rebuild in which nothing was recorded is the right graph.
    `fill` holds what the site's words name (the temperature's symbol, the scale d), from the
    first change."""

    fill: tuple = ()


Make = Callable[[object, _Changed], object]
"""(the right Ops, the record of changes) → the mistaken operation for one Ops field."""


@dataclass(frozen=True)
class Site:
    """One operation a mistake replaces: the Ops `field`, how the mistaken operation is made
    from the right Ops (`make`), the words where the site has its own (else the mistake's),
    and `uses`, a pattern of the formula text that calls the operation (a quick test that
    spares rebuilding an exercise that never calls it)."""

    field: str
    make: Make
    uses: str
    en: Words | None = None
    zh: Words | None = None


@dataclass(frozen=True)
class TensorMistake:
    """A whole-tensor mistake, declared once: `id` (the name the diagnosis gives), its words,
    its kind (`forward`, `backward` or `value`), the operations it replaces (`sites`), or for
    a `value` mistake the rearrangement of a quantity's entries (`value`: the shape → for each
    entry, row-major, the entry whose definition it takes, or None where it does not apply)."""

    id: str
    kind: str
    en: Words
    zh: Words
    sites: tuple[Site, ...] = ()
    value: Callable[[tuple[int, ...]], tuple[int, ...] | None] | None = None


# ------------------------------------------------------------------ helpers on tensors

def _entries(t) -> tuple:
    return tuple(t.entries)


def _like(t: Tensor, entries) -> Tensor:
    """A tensor of `t`'s shape with other entries."""
    return Tensor(tuple(t.shape), tuple(entries))


def _scalar(x) -> sp.Expr:
    """A keyword's value as one expression: a number, or a shape-() tensor of a name."""
    if isinstance(x, Tensor):
        return x.item
    return sp.Integer(x) if isinstance(x, int) else x


def _axis(dim, ndim: int) -> int:
    d = -1 if dim is None else int(_scalar(dim))
    return d + ndim if d < 0 else d


def _per_line(t: Tensor, axis: int, f: Callable[[list], list]) -> Tensor:
    """`t` with each line along `axis` replaced by f(its entries)."""
    out = list(t.entries)
    rest = [range(s) for k, s in enumerate(t.shape) if k != axis]
    for ix in itertools.product(*rest):
        where = [_offset(t.shape, (*ix[:axis], m, *ix[axis:])) for m in range(t.shape[axis])]
        for pos, e in zip(where, f([out[p] for p in where])):
            out[pos] = e
    return _like(t, out)


def _offset(shape: tuple[int, ...], index: tuple[int, ...]) -> int:
    """The row-major position of a 0-based index."""
    off = 0
    for size, i in zip(shape, index, strict=True):
        off = off * size + i
    return off


def _dim_of(args, kwargs, default=-1):
    """The `dim` an operation was called with (its first argument after the tensor, or the
    keyword), and a function that calls again with another dim."""
    if "dim" in kwargs:
        return kwargs["dim"], lambda d: (args, {**kwargs, "dim": d})
    if args:
        return args[0], lambda d: ((d, *args[1:]), kwargs)
    return default, lambda d: (args, {**kwargs, "dim": d})


# ------------------------------------------------------------------ the mistaken operations

def _other_axis(field: str) -> Make:
    """softmax, log_softmax or logsumexp of a matrix over the other axis."""
    def make(ops, changed):
        right = getattr(ops, field)

        def op(a, *args, **kwargs):
            dim, again = _dim_of(args, kwargs)
            if len(a.shape) != 2:
                return right(a, *args, **kwargs)
            changed.append(field)
            args2, kwargs2 = again(1 - _axis(dim, 2))
            return right(a, *args2, **kwargs2)
        return op
    return make


def _reduce_other_axis(kind: str) -> Make:
    """sum or mean of a matrix over a dim, taken over the other dim."""
    def make(ops, changed):
        right = ops.reduce

        def op(k, a, *args, **kwargs):
            if k != kind or len(a.shape) != 2:
                return right(k, a, *args, **kwargs)
            dim, again = _dim_of(args, kwargs, default=None)
            if dim is None:
                return right(k, a, *args, **kwargs)
            changed.append(kind)
            args2, kwargs2 = again(1 - _axis(dim, 2))
            return right(k, a, *args2, **kwargs2)
        return op
    return make


def _batch_mean_summed(ops, changed):
    """A mean over the batch taken as the sum: mean(v) of a vector, mean(A, dim=0) of a
    matrix (never a mean over a row's features)."""
    right = ops.reduce

    def op(k, a, *args, **kwargs):
        if k != "mean":
            return right(k, a, *args, **kwargs)
        dim, _ = _dim_of(args, kwargs, default=None)
        ndim = len(a.shape)
        over_batch = (ndim == 1 and (dim is None or _axis(dim, 1) == 0)) or (
            ndim >= 2 and dim is not None and _axis(dim, ndim) == 0)
        if not over_batch:
            return right(k, a, *args, **kwargs)
        changed.append("mean")
        return right("sum", a, *args, **kwargs)
    return op


def _summed(field: str, count: Callable) -> Make:
    """A loss with mean reduction (cross_entropy over the batch, mse_loss over every entry)
    with sum reduction: the mean times its count."""
    def make(ops, changed):
        right = getattr(ops, field)

        def op(a, *args, **kwargs):
            out = right(a, *args, **kwargs)
            n = count(a)
            if n == 1:
                return out
            changed.append(field)
            return _like(out, [e * n for e in _entries(out)])
        return op
    return make


def _batch(z) -> int:
    return z.shape[0] if len(z.shape) == 2 else 1


def _numel(a) -> int:
    return len(a.entries)


def _target_not_subtracted(ops, changed):
    """Cross-entropy whose derivative with respect to the logits is p·Σ_c q_c/B (p the
    softmax, q the target distribution: the one-hot row, smoothed): the loss with its target
    term −Σ_c q_c·z_c taken out, CE + (1/B)·Σ_{b,c} q_{b,c}·z_{b,c}. With one-hot or
    smoothed labels Σ_c q_c = 1, so the gradient is p/B where torch's is (p − q)/B: the
    one-hot not subtracted. (A `backward` mistake: the loss's own value stays right.)"""
    right = ops.cross_entropy

    def op(z, y, *args, **kwargs):
        out = right(z, y, *args, **kwargs)
        smoothing = kwargs.get("label_smoothing", args[0] if args else 0)
        smoothing = sp.Rational(0) if smoothing is None else _scalar(smoothing)
        shape = tuple(z.shape)
        classes = shape[-1]
        rows = [list(_entries(z))[r * classes:(r + 1) * classes]
                for r in range(len(z.entries) // classes)]
        if tuple(y.shape) == shape:  # class probabilities
            q = y
        else:  # class indices, as the exercise's own onehot reads them (a label is a value)
            try:
                q = ops.onehot(y, classes, column=kwargs.get("column"))
            except FormulaError:
                return out
        qs = list(_entries(q))
        targets = [qs[r * classes:(r + 1) * classes] for r in range(len(rows))]
        term = sp.Add(*[((1 - smoothing) * t + smoothing / classes) * zc
                        for row, trow in zip(rows, targets) for zc, t in zip(row, trow)])
        changed.append("cross_entropy")
        return _like(out, [out.entries[0] + term / len(rows)])
    return op


class _MistakenRelu(relu):
    """The language's relu in the forward pass (the evaluator, the intervals and the kernel
    read it as relu, by its class), printed as relu, with another derivative."""

    def _latex(self, printer, exp=None):
        out = (BY_CLASS[relu].tex + r"\left("
               + ", ".join(printer._print(a) for a in self.args) + r"\right)")
        return out if exp is None else rf"{out}^{{{exp}}}"


class relu_mask_forgotten(_MistakenRelu):  # noqa: N801 — SymPy's class names are its own
    """relu in the forward pass, the identity in the backward: the derivative 1 everywhere
    (the ReLU mask forgotten)."""

    def fdiff(self, argindex=1):
        return sp.Integer(1)


class relu_prime_one(_MistakenRelu):  # noqa: N801
    """relu whose derivative at 0 is 1: [x ≥ 0] (torch takes 0: [x > 0])."""

    def fdiff(self, argindex=1):
        return sp.Heaviside(self.args[0], 1)


class relu_prime_half(_MistakenRelu):  # noqa: N801
    """relu whose derivative at 0 is ½ (torch takes 0)."""

    def fdiff(self, argindex=1):
        return sp.Heaviside(self.args[0], sp.S.Half)


def _relu(cls) -> Make:
    def make(ops, changed):
        def op(x):
            changed.append("relu")
            return cls(x)
        return op
    return make


def _no_relu(ops, changed):
    """relu(z) read as z: the pre-activation for the activation."""
    def op(x):
        changed.append("relu")
        return x
    return op


def _exp_forgotten(ops, changed):
    """softmax(z) as z/Σz along the same dim."""
    right = ops.softmax

    def op(a, *args, **kwargs):
        dim, _ = _dim_of(args, kwargs)
        right(a, *args, **kwargs)  # the right operation's checks (its dim in range)
        changed.append("softmax")
        return _per_line(a, _axis(dim, len(a.shape)), lambda xs: [x / sp.Add(*xs) for x in xs])
    return op


def _lse_max(ops, changed):
    """logsumexp(z) as max(z) along the same dim (and keepdim)."""
    def op(a, *args, **kwargs):
        ops.logsumexp(a, *args, **kwargs)  # the right operation's checks
        dim, _ = _dim_of(args, kwargs)
        keep = {k: v for k, v in kwargs.items() if k in ("keepdim", "column")}
        changed.append("logsumexp")
        return ops.reduce("max", a, dim=dim, **keep)
    return op


def _lse_max_in_log_softmax(ops, changed):
    """log_softmax(z) = z − logsumexp(z) with the log-sum-exp taken as the max: z − max(z)
    along the same dim."""
    def op(a, *args, **kwargs):
        ops.log_softmax(a, *args, **kwargs)  # the right operation's checks
        dim, _ = _dim_of(args, kwargs)
        column = kwargs.get("column")
        changed.append("log_softmax")
        top = ops.reduce("max", a, dim=dim, keepdim=True, column=column)
        return ops.binary("-", a, top, column)
    return op


def _temperature_multiplied(field: str) -> Make:
    """softmax (or log_softmax) of z/T, each entry a product with the factor T^(−1) of a
    scalar name T, computed as softmax(z·T): the factor T^(−1) replaced by T in every entry.
    Only a name divides here: softmax(z/2) is softmax(z·0.5) as written, and nothing in it
    says a temperature was meant."""
    def make(ops, changed):
        right = getattr(ops, field)

        def op(a, *args, **kwargs):
            common = None
            for e in _entries(a):
                factors = {f.base for f in sp.Mul.make_args(e)
                           if isinstance(f, sp.Pow) and f.exp == -1
                           and isinstance(f.base, sp.Symbol)}
                common = factors if common is None else common & factors
            if not common:
                return right(a, *args, **kwargs)
            t = sorted(common, key=lambda s: s.name)[0]
            changed.append(field)
            changed.fill = changed.fill or (text(t),)
            return right(_like(a, [e.xreplace({t ** -1: t}) for e in _entries(a)]),
                         *args, **kwargs)
        return op
    return make


def _inv_d(ops, changed):
    """a/√d (and a·d^(−½) written a/d^0.5) of a scalar d computed as a/d: the square root of
    a scalar divisor forgotten. Only where it divides: a √ elsewhere is left as written."""
    right = ops.binary

    def op(kind, a, b, *args, **kwargs):
        if kind == "/" and len(b.entries) == 1 and not b.shape:
            e = b.entries[0]
            if isinstance(e, sp.Pow) and e.exp == sp.S.Half:
                changed.append("/")
                changed.fill = changed.fill or (text(e.base), _root_text(e))
                return right(kind, a, _like(b, [e.base]), *args, **kwargs)
        return right(kind, a, b, *args, **kwargs)
    return op


def _root_text(e: sp.Pow) -> Words:
    """√d as a math span: typeset by the derivation's printer, √d (√(a + b)) in plain text."""
    inner = plain_text(e.base)
    return cat(Formula.of(e, "√" + (inner if inner.isalnum() else f"({inner})")))


def _layer_norm(variance: Callable, root: Callable) -> Make:
    """LayerNorm over the last dim as torch computes it, but with `variance(deviations, n)`
    and `root(variance, eps)` the student's."""
    def make(ops, changed):
        def op(x, *args, **kwargs):
            ops.layer_norm(x, *args, **kwargs)  # the right operation's checks (shapes)
            names = ("eps", "weight", "bias")
            given = dict(zip(names, args))
            given.update({k: v for k, v in kwargs.items() if k in names})
            eps = _scalar(given.get("eps", sp.Rational(1, 10 ** 5)))
            n = x.shape[-1]
            weight, bias = given.get("weight"), given.get("bias")
            ws = _entries(weight) if weight is not None else (1,) * n
            bs = _entries(bias) if bias is not None else (0,) * n

            def row(xs):
                mean = sp.Add(*xs) / n
                dev = [v - mean for v in xs]
                denom = root(variance(dev, n), eps)
                return [d / denom * w + b for d, w, b in zip(dev, ws, bs)]
            changed.append("layer_norm")
            return _per_line(x, len(x.shape) - 1, row)
        return op
    return make


def _biased(dev, n):
    return sp.Add(*[d ** 2 for d in dev]) / n


def _unbiased(dev, n):
    if n < 2:
        raise FormulaError("the unbiased variance of one entry divides by 0")
    return sp.Add(*[d ** 2 for d in dev]) / (n - 1)


def _inside(var, eps):
    return sp.sqrt(var + eps)


def _outside(var, eps):
    return sp.sqrt(var) + eps


# ------------------------------------------------------------------ the declarations

def _call(*names: str) -> str:
    return r"\b(?:" + "|".join(names) + r")\s*\("


MISTAKES: tuple[TensorMistake, ...] = (
    TensorMistake(
        "transposed", VALUE,
        said(r"the transpose of the right matrix (entry $(i, j)$ written at $(j, i)$)"),
        said(r"写成了正确矩阵的转置(第 $(i, j)$ 个元素写在了 $(j, i)$ 处)"),
        value=lambda shape: (tuple(j * shape[0] + i for i in range(shape[0])
                                   for j in range(shape[1]))
                             if len(shape) == 2 and shape[0] == shape[1] > 1 else None)),
    TensorMistake(
        "batch_sum", FORWARD,
        said(r"summed over the batch, not averaged (the $1/B$ forgotten)"),
        said(r"对批次求和而没有取平均(漏掉了 $1/B$)"),
        sites=(
            Site("cross_entropy", _summed("cross_entropy", _batch), _call("cross_entropy"),
                 said(r"the cross-entropy summed over the batch, not averaged (the $1/B$ "
                      r"forgotten)"),
                 said(r"交叉熵对批次求和而没有取平均(漏掉了 $1/B$)")),
            Site("mse_loss", _summed("mse_loss", _numel), _call("mse_loss"),
                 said(r"the squared errors summed, not averaged (the $1/n$ of the mean "
                      r"forgotten)"),
                 said(r"平方误差求和而没有取平均(漏掉了均值的 $1/n$)")),
            Site("reduce", _batch_mean_summed, _call("mean"),
                 said(r"a sum over the batch in place of the mean (the $1/B$ forgotten)"),
                 said(r"对批次求和代替了求平均(漏掉了 $1/B$)")),
        )),
    TensorMistake(
        "wrong_axis", FORWARD,
        said("taken over the other axis of the matrix (dim 0 for dim 1, or dim 1 for dim 0)"),
        said("沿矩阵的另一个维度计算(dim 0 与 dim 1 弄反了)"),
        sites=(
            Site("softmax", _other_axis("softmax"), _call("softmax"),
                 said("softmax taken over the other axis of the matrix (dim 0 for dim 1, or "
                      "dim 1 for dim 0)"),
                 said("softmax 沿矩阵的另一个维度归一化(dim 0 与 dim 1 弄反了)")),
            Site("log_softmax", _other_axis("log_softmax"), _call("log_softmax"),
                 said("log-softmax taken over the other axis of the matrix (dim 0 for dim 1, "
                      "or dim 1 for dim 0)"),
                 said("log-softmax 沿矩阵的另一个维度计算(dim 0 与 dim 1 弄反了)")),
            Site("logsumexp", _other_axis("logsumexp"), _call("logsumexp"),
                 said("log-sum-exp taken over the other axis of the matrix (dim 0 for dim 1, "
                      "or dim 1 for dim 0)"),
                 said("log-sum-exp 沿矩阵的另一个维度计算(dim 0 与 dim 1 弄反了)")),
            Site("reduce", _reduce_other_axis("sum"), _call("sum"),
                 said("the sum taken over the other axis of the matrix (dim 0 for dim 1, or "
                      "dim 1 for dim 0)"),
                 said("求和沿矩阵的另一个维度进行(dim 0 与 dim 1 弄反了)")),
            Site("reduce", _reduce_other_axis("mean"), _call("mean"),
                 said("the mean taken over the other axis of the matrix (dim 0 for dim 1, or "
                      "dim 1 for dim 0)"),
                 said("平均沿矩阵的另一个维度计算(dim 0 与 dim 1 弄反了)")),
        )),
    TensorMistake(
        "onehot_not_subtracted", BACKWARD,
        said(r"the gradient of the cross-entropy with respect to the logits taken as $p/B$, "
             r"the one-hot label not subtracted (it is $(p - y)/B$)"),
        said(r"交叉熵对 logits 的梯度算成了 $p/B$,没有减去 one-hot 标签(应为 $(p - y)/B$)"),
        sites=(Site("cross_entropy", _target_not_subtracted, _call("cross_entropy")),)),
    TensorMistake(
        "mask_forgotten", BACKWARD,
        said(r"the ReLU mask forgotten in the backward pass (the gradient passed back where "
             r"$z \leq 0$ as well)"),
        said(r"反向传播时忘了 ReLU 的掩码($z \leq 0$ 处的梯度也传了回去)"),
        sites=(Site("relu", _relu(relu_mask_forgotten), _call("relu")),)),
    TensorMistake(
        "relu_prime_one", BACKWARD,
        said(r"$\operatorname{relu}'(0)$ taken as 1 (the mask $[z \geq 0]$; torch takes 0: "
             r"$[z > 0]$)"),
        said(r"把 $\operatorname{relu}'(0)$ 取成了 1(掩码成了 $[z \geq 0]$;torch 取 0,即 "
             r"$[z > 0]$)"),
        sites=(Site("relu", _relu(relu_prime_one), _call("relu")),)),
    TensorMistake(
        "relu_prime_half", BACKWARD,
        said(r"$\operatorname{relu}'(0)$ taken as $1/2$ (torch takes 0)"),
        said(r"把 $\operatorname{relu}'(0)$ 取成了 $1/2$(torch 取 0)"),
        sites=(Site("relu", _relu(relu_prime_half), _call("relu")),)),
    TensorMistake(
        "preactivation", FORWARD,
        said(r"the pre-activation $z$ used in place of the activation "
             r"$\operatorname{relu}(z)$"),
        said(r"用预激活 $z$ 代替了激活 $\operatorname{relu}(z)$"),
        sites=(Site("relu", _no_relu, _call("relu")),)),
    TensorMistake(
        "exp_forgotten", FORWARD,
        said(r"softmax without the exponential: $z_i / \sum_j z_j$ in place of "
             r"$e^{z_i} / \sum_j e^{z_j}$"),
        said(r"softmax 忘了取指数:算成了 $z_i / \sum_j z_j$,应为 $e^{z_i} / \sum_j e^{z_j}$"),
        sites=(Site("softmax", _exp_forgotten, _call("softmax")),)),
    TensorMistake(
        "lse_max", FORWARD,
        said(r"log-sum-exp replaced by the maximum: $\max_j z_j$ in place of "
             r"$\log \sum_j e^{z_j}$"),
        said(r"用最大值 $\max_j z_j$ 代替了 log-sum-exp $\log \sum_j e^{z_j}$"),
        sites=(Site("logsumexp", _lse_max, _call("logsumexp")),
               Site("log_softmax", _lse_max_in_log_softmax, _call("log_softmax"),
                    said(r"log-sum-exp replaced by the maximum inside log-softmax: "
                         r"$z - \max_j z_j$ in place of $z - \log \sum_j e^{z_j}$"),
                    said(r"log-softmax 里用最大值代替了 log-sum-exp:算成了 "
                         r"$z - \max_j z_j$,应为 $z - \log \sum_j e^{z_j}$")))),
    TensorMistake(
        "temperature_multiplied", FORWARD,
        said(r"the temperature multiplied, not divided: softmax of $z \cdot T$ in place of "
             r"softmax of $z/T$"),
        said(r"温度乘了上去而不是除:算成了 $z \cdot T$ 的 softmax,应为 $z/T$ 的 softmax"),
        sites=(Site("softmax", _temperature_multiplied("softmax"), _call("softmax"),
                    said("the temperature {} multiplied, not divided: the softmax of the logits "
                         "times it, in place of the logits divided by it"),
                    said("温度 {} 乘了上去而不是除:算的是 logits 乘以它的 softmax,应为 logits "
                         "除以它")),
               Site("log_softmax", _temperature_multiplied("log_softmax"),
                    _call("log_softmax"),
                    said("the temperature {} multiplied, not divided: the log-softmax of the "
                         "logits times it, in place of the logits divided by it"),
                    said("温度 {} 乘了上去而不是除:算的是 logits 乘以它的 log-softmax,应为 "
                         "logits 除以它")))),
    TensorMistake(
        "inv_d", FORWARD,
        said(r"divided by $d$ in place of $\sqrt{d}$ (the square root of the scale "
             r"forgotten: $1/d$ for $1/\sqrt{d}$)"),
        said(r"除以了 $d$ 而不是 $\sqrt{d}$(缩放因子忘了开平方:用 $1/d$ 代替了 "
             r"$1/\sqrt{d}$)"),
        sites=(Site("binary", _inv_d, r"sqrt|√|\^|\*\*",
                    said("divided by {} in place of {} (the square root of the scale "
                         "forgotten)"),
                    said("除以了 {} 而不是 {}(缩放因子忘了开平方)")),)),
    TensorMistake(
        "eps_outside_sqrt", FORWARD,
        said(r"LayerNorm's $\epsilon$ added outside the square root: "
             r"$\sqrt{\sigma^2} + \epsilon$ in place of $\sqrt{\sigma^2 + \epsilon}$"),
        said(r"LayerNorm 的 $\epsilon$ 加在了平方根外:$\sqrt{\sigma^2} + \epsilon$,应为 "
             r"$\sqrt{\sigma^2 + \epsilon}$"),
        sites=(Site("layer_norm", _layer_norm(_biased, _outside), _call("layer_norm")),)),
    TensorMistake(
        "unbiased_variance", FORWARD,
        said(r"LayerNorm with the unbiased variance (divided by $n - 1$; torch divides by "
             r"$n$)"),
        said(r"LayerNorm 用了无偏方差(除以 $n - 1$;torch 除以 $n$)"),
        sites=(Site("layer_norm", _layer_norm(_unbiased, _inside), _call("layer_norm")),)),
)
"""Every whole-tensor mistake, in the order the diagnosis lists them."""

BY_ID = {m.id: m for m in MISTAKES}


def mistaken(site: Site, ops) -> tuple[object, _Changed]:
    """`ops` with `site`'s operation replaced by the mistaken one, and the record of what it
    changed (empty until the formulas are read with it)."""
    changed = _Changed()
    return dataclasses.replace(ops, **{site.field: site.make(ops, changed)}), changed


# ------------------------------------------------------------------ the hook

@dataclass(frozen=True)
class Quantity:
    """What the hook needs of one quantity an exercise defines: its name, shape (() for a
    number), its nodes (row-major; one for a number), its formula's text, and whether it
    takes a derivative (`grad`: a `backward` mistake rebuilds only such quantities)."""

    name: str
    shape: tuple[int, ...]
    nodes: tuple[str, ...]
    text: str
    derivative: bool = False


@dataclass(frozen=True)
class Alternative:
    """One way a mistake gives a quantity's value: the node definitions it replaces, and its
    words."""

    replace: Mapping[str, sp.Expr]
    en: Words
    zh: Words


@dataclass(frozen=True)
class TensorVariant:
    """A whole-tensor mistake for one quantity (`target`): its alternatives, tried in order
    (a site each; the diagnosis takes the first that gives the claimed value)."""

    name: str
    target: str
    kind: str
    alternatives: tuple[Alternative, ...]


Build = Callable[[object], Sequence[Node]]
"""The exercise's nodes, in derivation order, read under the given Ops (its derivatives taken
again); raises FormulaError where the formulas do not read under them (a shape that no longer
fits)."""


def variants(quantities: Sequence[Quantity], build: Build, ops,
             right: Sequence[Node] | None = None,
             notation: Notations | None = None) -> tuple[TensorVariant, ...]:
    """Every whole-tensor mistake that changes a quantity of the exercise, for each quantity
    it changes, in the order of `MISTAKES` and of the quantities. `build(ops)` rebuilds the
    exercise under mistaken operations; `right` is its nodes under `ops` (built when not
    given). A site whose operation the formulas never call, or that changes nothing (a
    softmax over the other axis of a vector), gives no variant; nor one under which the
    formulas no longer read (a sum over the other axis that no longer fits), nor one whose
    target reads nothing it replaces. A symbol the words name (the temperature) is written in
    `notation`, the exercise's (the notation in force when None)."""
    if notation is not None:
        with in_scope(notation):
            return variants(quantities, build, ops, right)
    right = tuple(build(ops) if right is None else right)
    defs = {n.name: n.expr for n in right}
    key_of = {n.key: n.name for n in right}
    texts = " ".join(q.text for q in quantities)
    derivative = {n for q in quantities if q.derivative for n in q.nodes}
    out: list[TensorVariant] = []
    for m in MISTAKES:
        per_target: dict[str, list[Alternative]] = {}
        if m.kind == VALUE:
            for q in quantities:
                order = m.value(tuple(q.shape)) if m.value else None
                if order is None:
                    continue
                replace = {q.nodes[k]: defs[q.nodes[src]] for k, src in enumerate(order)
                           if src != k and defs[q.nodes[src]] != defs[q.nodes[k]]}
                if replace:
                    per_target.setdefault(q.name, []).append(Alternative(replace, m.en, m.zh))
        for site in m.sites:
            if not re.search(site.uses, texts):
                continue
            ops2, changed = mistaken(site, ops)
            try:
                nodes = tuple(build(ops2))
            except (FormulaError, ZeroDivisionError, ValueError, TypeError):
                continue  # the formulas do not read under it: no student wrote that value
            if not changed:
                continue
            wrong = {n.name: n.expr for n in nodes}
            if set(wrong) != set(defs):
                continue  # another shape: the claim's shape tells, not a value
            replace = {name: e for name, e in wrong.items() if e != defs[name]
                       and (m.kind != BACKWARD or name in derivative)}
            if not replace:
                continue
            reads = _reads({**defs, **replace}, key_of)
            en, zh = site.en or m.en, site.zh or m.zh
            if changed.fill:
                en, zh = filled(en, *changed.fill), filled(zh, *changed.fill)
            for q in quantities:
                if _reaches(q.nodes, replace, reads):
                    per_target.setdefault(q.name, []).append(Alternative(replace, en, zh))
        for q in quantities:
            alts = per_target.get(q.name)
            if alts:
                out.append(TensorVariant(m.id, q.name, m.kind, tuple(alts)))
    return tuple(out)


def _reads(defs: Mapping[str, sp.Expr], key_of: Mapping[str, str]) -> dict[str, set[str]]:
    """For each node, the nodes its definition reads directly."""
    return {name: {key_of[k] for k in leaves(e) if k in key_of} for name, e in defs.items()}


def _reaches(targets: Sequence[str], replace: Mapping[str, sp.Expr],
             reads: Mapping[str, set[str]]) -> bool:
    """Whether a target node is replaced or reads a replaced node, directly or not."""
    seen: set[str] = set()
    todo = list(targets)
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        if n in replace:
            return True
        seen.add(n)
        todo.extend(reads.get(n, ()))
    return False
