"""The working of a graph recipe as LaTeX lines: each node as formula → substitution → exact
result, per member for a family (each record, each microbatch), all from the node's one
expression. The values come from the computed working (`derive.exercises.working`)."""

from __future__ import annotations

import functools

import sympy as sp

from derive.exercises.working import Working as ComputedWorking
from derive.exercises.working import given_node, graph_for
from derive.graph.formula_limits import FormulaError
from derive.graph.language import ALIASES
from derive.graph.notation import in_scope
from derive.graph.tensor_latex import tensor_latex
from derive.kernel.exact import to_expr
from derive.render.escape import escape_latex
from derive.render.formula_tex import Printer, formula, head, substituted
from derive.render.latex import Tex
from derive.render.numbers import exact_latex, matrix_latex


def formula_tex(recipe, given, name: str) -> str | None:
    """`head = formula` of a quantity, e.g. `w' = w - \\eta \\cdot g`; None without a graph."""
    graph = graph_for(recipe, given)
    tensor = getattr(recipe, "tensors", {}).get(name)
    if graph is not None and tensor is not None:
        with in_scope(graph.notation):
            return tensor_formula_tex(name, tensor.formula, _scalars(recipe, given))
    if graph is None or name not in graph.by_name:
        return None
    with in_scope(graph.notation):
        return _formula_tex(graph, graph.by_name[name])


def tensor_formula_tex(name: str, text: str, scalars: frozenset[str] = frozenset()) -> str:
    """A tensor quantity as its author wrote it, in the lecture's notation: `X @ W1.T + b1` is
    Z_{1} = X {W_{1}}^{\\top} + b_{1} (derive/graph/tensor_latex.py); its entries' formulas
    are the working of each entry (a gradient's is sympy.diff written out), which the
    whole-tensor form stands for (in the graph's notation: in scope)."""
    try:
        shown = tensor_latex(text, _name_tex, scalars=scalars)
    except FormulaError:  # the printer reads what the parser read; if ever not, as written
        shown = r"\texttt{" + escape_latex(text) + "}"
    return f"{_name_tex(name)} = {shown}"


def tensor_line(recipe, given, name: str, values: dict[str, object]) -> str:
    """A tensor quantity's derivation line without its result: its formula, then the same
    formula with the matrices of its givens and earlier quantities substituted (`values`, by
    canonical name), each where it is short (at most MAX_SUBSTITUTED rows and columns) and
    exact (an irrational matrix stays its symbol: its decimals are not its value):
    Z_1 = X W_1^⊤ + b_1 = [X][W_1]^⊤ + [b_1]."""
    graph = graph_for(recipe, given)
    text = recipe.tensors[name].formula
    scalars = _scalars(recipe, given)
    with in_scope(graph.notation):
        line = tensor_formula_tex(name, text, scalars)

        def shown(word: str) -> str:
            v = values.get(word)
            return (None if v is None else _substituted(v)) or _name_tex(word)
        try:
            sub = tensor_latex(text, shown, scalars=scalars, symbol=_name_tex)
        except FormulaError:
            return line
    return line if sub == line.split(" = ", 1)[1] else f"{line} = {sub}"


MAX_SUBSTITUTED = 4
"""A matrix of more rows or columns than this stays its symbol in a substituted line."""


def _substituted(v) -> str | None:
    """A value as it stands in a substituted tensor formula: a short exact matrix, an exact
    number (negative in brackets); None (the symbol) for anything else."""
    if isinstance(v, (list, tuple)):
        shape, level = [], v
        while isinstance(level, (list, tuple)):
            shape.append(len(level))
            level = level[0] if level else None
        leaves = _leaves(v)
        if len(shape) > 2 or max(shape) > MAX_SUBSTITUTED or not all(
                _rational(x) for x in leaves):
            return None
        return matrix_latex(_exact_nested(v))
    if not _rational(v):
        return None
    e = to_expr(v)
    text = exact_latex(e)
    return rf"\left({text}\right)" if e < 0 else text


def _leaves(v) -> list:
    return [x for y in v for x in _leaves(y)] if isinstance(v, (list, tuple)) else [v]


def _rational(x) -> bool:
    """Whether a value is an exact rational (a SymPy Rational, an int or a Fraction; anything
    else, text included, is not, and is never parsed)."""
    try:
        return to_expr(x).is_Rational
    except TypeError:
        return False


def _exact_nested(v):
    return [_exact_nested(x) for x in v] if isinstance(v, (list, tuple)) else exact_latex(v)


def _name_tex(word: str) -> str:
    """A canonical name as the graph's notation writes it (W1 is W_{1}, delta is \\delta);
    a name the notation does not know is its text, escaped."""
    try:
        return head(sp.Symbol(word, real=True)).text
    except KeyError:
        return rf"\text{{{escape_latex(word, math=True)}}}"


def tensor_symbols(recipe, given) -> dict[str, str]:
    """Each tensor given as the tensor formulas write it (W1 is W_{1}; in scope)."""
    return {i.name: _name_tex(ALIASES.get(i.name, i.name))
            for i in getattr(recipe, "inputs", ()) if i.kind == "tensor" and i.name in given}


def _scalars(recipe, given) -> frozenset[str]:
    """The canonical names of shape () an exercise's tensor formulas may read: every given
    and quantity that is not a tensor (for them `*` is a product, not ⊙)."""
    tensors = set(getattr(recipe, "tensors", {}))
    tensors |= {i.name for i in getattr(recipe, "inputs", ()) if i.kind == "tensor"}
    names = set(given) | {q.name for q in getattr(recipe, "quantities", ())}
    return frozenset(ALIASES.get(n, n) for n in names - tensors)


def _formula_tex(graph, node) -> str:
    if node.element is not None:  # a vector as a whole: clip(g_k) = s_k · g_k
        return f"{_whole_head(node).text} = {_whole(node).text}"
    shown = head(node.symbol, index=node.over.index if node.over else None).text
    return shown if given_node(graph, node) else f"{shown} = {formula(node.expr).text}"


def _scoped(draw):
    """A drawing of a computed working in its graph's notation (an exercise's own names, a
    course's overrides)."""
    @functools.wraps(draw)
    def run(work, *args, **kwargs):
        with in_scope(work.graph.notation):
            return draw(work, *args, **kwargs)
    return run


def _whole_head(node, member: int | None = None) -> Tex:
    index = node.over.index if node.over is not None and member is None else None
    return head(node.symbol, member, index, whole=True)


def _whole(node) -> Tex:
    return formula(node.expr, frozenset({node.element.index.name}))


@_scoped
def lines(work: ComputedWorking, name: str) -> list[tuple[str, object]]:
    """(LaTeX line, exact value) of a node: one line for a scalar (formula = numbers =
    result is completed by the caller), the general formula and then one line per
    member for a family."""
    node = work.graph.by_name[name]
    if node.element is not None:
        return _vector_lines(work, node)
    if given_node(work.graph, node):
        values = work.node_value(name)
        if node.over is None:
            return [(head(node.symbol).text, values)]
        return [(head(node.symbol, m).text, values[m - 1])
                for m in range(1, min(len(values), work.shown) + 1)]
    if node.over is None:
        text = f"{head(node.symbol).text} = {formula(node.expr).text}"
        sub = substituted(node.expr, work.value).text
        return [(f"{text} = {sub}", work.node_value(name))]
    values = work.node_value(name)
    index = node.over.index
    out = [(f"{head(node.symbol, index=index).text} = {formula(node.expr).text}", None)]
    if node.start is not None:
        out.append(_start_line(work, node))
    shown = range(1, min(len(values), work.shown) + 1)
    for m in shown:
        sub = substituted(node.expr, work.value, {index.name: m}).text
        out.append((f"{head(node.symbol, m).text} = {sub}", values[m - 1]))
    return out


def _start_line(work: ComputedWorking, node) -> tuple[str, object]:
    """A recurrence's start, member 0, as its own line: u_0 = u0 = −29.2 (the formula and its
    numbers only where they say more than the symbol: v_0 = 0, w_0 = 2·w0 = 2·1.5)."""
    line = head(node.symbol, 0).text
    for shown in (formula(node.start).text, substituted(node.start, work.value).text):
        if shown != line.rsplit(" = ", 1)[-1] and shown != head(node.symbol, 0).text:
            line += f" = {shown}"
    return line, work.expr_value(node.start)


@_scoped
def _column(work: ComputedWorking, node, bound: dict[str, int]) -> Tex:
    """The node's expression with its vectors as columns of numbers: 0.2 · (3, 4)ᵀ."""
    d = work.size(node)
    return Printer(work.value, bound, frozenset({node.element.index.name}), d).tex(node.expr)


def _vector_lines(work: ComputedWorking, node) -> list[tuple[str, object]]:
    """A vector node: its formula as vectors (ḡ = Σ_k w_k·g_k), then its substitution as
    a column vector, once or per member (clip(g_2) = …)."""
    values = work.node_value(node.name)
    general = f"{_whole_head(node).text} = {_whole(node).text}"
    if node.over is None:
        return [(f"{general} = {_column(work, node, {}).text}", values)]
    k = node.over.index.name
    out = [(general, None)]
    if node.start is not None:
        out.append(_vector_start_line(work, node))
    for m in range(1, min(len(values), work.shown) + 1):
        out.append((f"{_whole_head(node, m).text} = {_column(work, node, {k: m}).text}",
                    values[m - 1]))
    return out


def _vector_start_line(work: ComputedWorking, node) -> tuple[str, object]:
    """A vector recurrence's start, member 0, as its own line: w_0 = w = (1, −2)ᵀ, u_0 = 0
    (the formula and its column only where they say more than the symbol; no result after
    it, the column is the value)."""
    line = _whole_head(node, 0).text
    for shown in (formula(node.start, frozenset({node.element.index.name})).text,
                  _column_of(work, node, node.start).text):
        if shown != line.rsplit(" = ", 1)[-1] and shown != _whole_head(node, 0).text:
            line += f" = {shown}"
    return line, None


@_scoped
def _column_of(work: ComputedWorking, node, expr) -> Tex:
    return Printer(work.value, {}, frozenset({node.element.index.name}),
                   work.size(node)).tex(expr)


class Working(ComputedWorking):
    """A computed working that also prints its lines (`Working(recipe, given).lines(name)`,
    the interface of the tests and of callers before the computed working moved to
    derive.exercises.working)."""

    def lines(self, name: str) -> list[tuple[str, object]]:
        return lines(self, name)
