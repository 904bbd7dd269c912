"""The working of a graph recipe as LaTeX lines: each node as formula → substitution → exact
result, per member for a family (each record, each microbatch), all from the node's one
expression. The values come from the computed working (`derive.exercises.working`)."""

from __future__ import annotations

import functools

import sympy as sp

from derive.exercises.working import Working as ComputedWorking
from derive.exercises.working import given_node, graph_for
from derive.graph.notation import in_scope
from derive.render.escape import escape_latex
from derive.render.formula_tex import Printer, formula, head, substituted
from derive.render.latex import Tex


def formula_tex(recipe, given, name: str) -> str | None:
    """`head = formula` of a quantity, e.g. `w' = w - \\eta \\cdot g`; None without a graph."""
    graph = graph_for(recipe, given)
    tensor = getattr(recipe, "tensors", {}).get(name)
    if graph is not None and tensor is not None:
        with in_scope(graph.notation):
            return tensor_formula_tex(name, tensor.formula)
    if graph is None or name not in graph.by_name:
        return None
    with in_scope(graph.notation):
        return _formula_tex(graph, graph.by_name[name])


def tensor_formula_tex(name: str, text: str) -> str:
    """A tensor quantity as its author wrote it, `Z_1 = \texttt{X @ W1.T + b1}`: its entries'
    formulas are the working of each entry (a gradient's is sympy.diff written out), which
    the whole-tensor form stands for (in the graph's notation: in scope)."""
    return head(sp.Symbol(name, real=True)).text + r" = \texttt{" + escape_latex(text) + "}"


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
