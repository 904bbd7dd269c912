"""`sgd_step`: one plain-SGD update of ŷ = w·x (+ b) on one batch of records.

The per-record loss is ℓ_i = (ŷ_i − y_i)²/2 (`loss = "squared"` drops the ½); the batch loss
and the gradients are means over the records. Every quantity is one node of the derivation
graph below; the gradients are `sympy.diff` of the per-record loss through the prediction
(∂ℓ/∂ŷ · ∂ŷ/∂w, the backward pass).
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derive.graph import Family, Node, family, symbol
from derive.graph.graph import Graph, members
from derive.graph.lesson import N, b, eta, g, i, w, x, y, yhat
from derive.graph.lesson import w_new as w1
from derive.graph.words import said
from derive.model import linear
from derive.recipes.base import Example, Input, Quantity, Recipe
from derive.recipes.graphed import Graphed, NamedMistake

RECORDS = Family("records", i, N)
ell = family("ell", "ell")
g_w, g_b = family("g_w", "ell", wrt="w"), family("g_b", "ell", wrt="b")
L, gb = symbol("L", "L"), symbol("g_b_mean", "g", sub="b")
b1 = symbol("b_new", "b", prime=True)
yhat1 = family("yhat_new", "y", accent="hat", prime=True)
ell1 = family("ell_new", "ell", prime=True)
L1 = symbol("L_new", "L", prime=True)


def _step(param: sp.Symbol, gradient: sp.Symbol) -> sp.Expr:
    """param − η·gradient, as written."""
    return sp.Add(param, sp.Mul(-1, eta, gradient, evaluate=False), evaluate=False)


def _mean(member: sp.Indexed) -> sp.Expr:
    """(1/N) Σ_{i=1}^{N} member."""
    return sp.Sum(member, (i, 1, N)) / N


def _loss(prediction: sp.Expr, convention: str) -> sp.Expr:
    return linear.squared_error(prediction, y[i], convention)


def _backward(convention: str, param: sp.Symbol, prediction_def: sp.Expr) -> sp.Expr:
    """∂ℓ_i/∂param = ∂ℓ_i/∂ŷ_i · ∂ŷ_i/∂param, each factor by `sympy.diff`."""
    out_grad = sp.diff(_loss(linear.yhat, convention), linear.yhat).xreplace({linear.yhat: yhat[i]})
    local = sp.diff(prediction_def, param)
    return out_grad if local == 1 else sp.Mul(out_grad, local, evaluate=False)


def _predict(weight: sp.Symbol, bias: sp.Symbol | None) -> sp.Expr:
    """w·x_i + b, in that order (or w·x_i)."""
    product = sp.Mul(weight, x[i], evaluate=False)
    return product if bias is None else sp.Add(product, bias, evaluate=False)


@lru_cache(maxsize=None)
def graph(has_b: bool, convention: str) -> Graph:
    """The graph of one exercise's configuration: with or without a bias, ½ or not."""
    bias, bias1 = (b, b1) if has_b else (None, None)
    predict = _predict(w, bias)
    nodes = [
        Node("prediction", yhat, predict, RECORDS),
        Node("record_loss", ell, _loss(yhat[i], convention), RECORDS),
        Node("loss", L, _mean(ell[i])),
        Node("record_gradient", g_w, _backward(convention, w, predict), RECORDS),
        Node("gradient", g, _mean(g_w[i])),
    ]
    if has_b:
        nodes += [Node("record_b_gradient", g_b, _backward(convention, b, predict), RECORDS),
                  Node("b_gradient", gb, _mean(g_b[i]))]
    nodes.append(Node("w_new", w1, _step(w, g)))
    if has_b:
        nodes.append(Node("b_new", b1, _step(b, gb)))
    nodes += [Node("prediction_new", yhat1, _predict(w1, bias1), RECORDS),
              Node("record_loss_new", ell1, _loss(yhat1[i], convention), RECORDS),
              Node("loss_new", L1, _mean(ell1[i]))]
    records = lambda c: c["records"]  # noqa: E731
    return Graph(tuple(nodes), {
        "w": lambda c: c["w"], "b": lambda c: c["b"], "eta": lambda c: c["lr"],
        "N": lambda c: sp.Integer(len(records(c))),
        "x": lambda c: members([r[0] for r in records(c)]),
        "y": lambda c: members([r[1] for r in records(c)]),
    })


def loss_convention(ctx):
    return ctx.given["loss"] if ctx.has("loss") else linear.HALF


def _other(convention: str) -> str:
    return linear.SQUARED if convention == linear.HALF else linear.HALF


def graph_of(ctx, other: bool = False) -> Graph:
    conv = loss_convention(ctx)
    return graph(ctx.has("b"), _other(conv) if other else conv)


GRAPHED = Graphed(graph_of, lambda: (q.name for q in QUANTITIES))


def _quantity(name: str, doc: str, words: tuple[str, str], **kw) -> Quantity:
    return Quantity(name, doc, GRAPHED.value(name), words=words, **kw)


QUANTITIES = (
    _quantity("prediction", "ŷ = w·x + b for each record (a number for one record)",
              ("Prediction of each record", "每条记录的预测")),
    _quantity("loss", "batch loss: the mean of the records' losses ℓ_i = (ŷ_i − y_i)²/2",
              ("Batch loss", "批损失")),
    _quantity("gradient", "∂L/∂w: the mean of the records' ∂ℓ_i/∂w, each by backward "
              "(sympy.diff)", ("Gradient with respect to w", "对 w 的梯度")),
    _quantity("b_gradient", "∂L/∂b: the mean of the records' ∂ℓ_i/∂b",
              ("Gradient with respect to b", "对 b 的梯度"), needs=("b",)),
    _quantity("w_new", "w after one SGD step", ("The weight after the step", "更新后的权重")),
    _quantity("b_new", "b after one SGD step", ("The bias after the step", "更新后的偏置"),
              needs=("b",)),
    _quantity("prediction_new", "ŷ at the new parameters",
              ("Prediction at the new parameters", "新参数下的预测")),
    _quantity("loss_new", "the batch loss at the new parameters",
              ("Batch loss at the new parameters", "新参数下的批损失")),
)
"""The claimable quantities, in derivation order."""

NODE_WORDS = {
    "record_loss": ("Loss of each record", "每条记录的损失"),
    "record_gradient": ("Gradient of each record by backward", "每条记录的梯度(反向传播)"),
    "record_b_gradient": ("Gradient of each record with respect to b",
                          "每条记录对 b 的梯度"),
    "record_loss_new": ("Loss of each record at the new parameters", "新参数下每条记录的损失"),
}
"""The words of the graph's other nodes, English and Chinese (headings of the working)."""

CLAIMABLE = tuple(q.name for q in QUANTITIES)


def _other_graph(ctx) -> Graph:
    return graph_of(ctx, other=True)


ONE = {"w": "1", "lr": "0.1", "records": [["2", "4"]]}
"""One record (2, 4) at w = 1: the lesson's example."""

WRONG_SIGN = (said(r"the update with the wrong sign: $w + \eta \cdot g$"),
              said(r"更新方向反了: $w + \eta \cdot g$"))
"""The update's sign flipped (sgd_step and accumulation)."""

MISTAKES = GRAPHED.mistakes((
    NamedMistake(
        "loss_other_convention", "loss",
        (said(r"the loss with the other convention: $(\hat{y} - y)^2$ instead of "
              r"$(\hat{y} - y)^2/2$, or back"),
         said(r"用了另一种损失约定: $(\hat{y} - y)^2$ 与 $(\hat{y} - y)^2/2$ 混用")),
        Example(ONE, {"loss": "4"}), graph=_other_graph),
    NamedMistake(
        "gradient_other_convention", "gradient",
        ("the gradient of the other loss convention: factor 2 (MSELoss has no ½)",
         "用了另一种损失约定的梯度:差一个因子 2 (MSELoss 没有 ½ )"),
        Example(ONE, {"gradient": "-8"}), graph=_other_graph),
    NamedMistake(
        "gradient_sum", "gradient",
        ("the sum of the record gradients, not their mean", "把各记录的梯度相加而没有取平均"),
        Example({"w": "1", "lr": "0.1", "records": [["2", "4"], ["1", "3"]]},
                {"gradient": "-6"}),
        replace={"gradient": sp.Sum(g_w[i], (i, 1, N))}),
    NamedMistake(
        "b_gradient_sum", "b_gradient",
        (said(r"the bias's gradient summed over the records, not averaged "
              r"($\sum_i \partial\ell_i/\partial b$ not divided by $N$)"),
         said(r"把偏置的各记录梯度相加而没有取平均($\sum_i \partial\ell_i/\partial b$ "
              r"没有除以 $N$)")),
        Example({"w": "1", "b": "0", "lr": "0.1", "records": [["2", "4"], ["1", "3"]]},
                {"b_gradient": "-4"}),
        replace={"b_gradient": sp.Sum(g_b[i], (i, 1, N))}, needs=("b",)),
    NamedMistake(
        "b_new_b_gradient_sum", "b_new",
        (said(r"$b$ after a step on the bias's gradient summed, not averaged"),
         "用相加(而非平均)的偏置梯度做的更新"),
        Example({"w": "1", "b": "0", "lr": "0.1", "records": [["2", "4"], ["1", "3"]]},
                {"b_new": "0.4"}),
        replace={"b_new": _step(b, sp.Sum(g_b[i], (i, 1, N)))},
        needs=("b",)),
    NamedMistake(
        "gradient_sign", "gradient",
        (said(r"the gradient with its sign flipped: $x \cdot (y - \hat{y})$"),
         said(r"梯度符号取反: $x \cdot (y - \hat{y})$")),
        Example(ONE, {"gradient": "4"}), replace={"gradient": -_mean(g_w[i])}),
    NamedMistake(
        "w_new_sign", "w_new", WRONG_SIGN,
        Example(ONE, {"w_new": "0.6"}),
        replace={"w_new": sp.Add(w, sp.Mul(eta, g, evaluate=False), evaluate=False)}),
    NamedMistake(
        "w_new_other_convention", "w_new",
        ("the update with the other loss convention", "用另一种损失约定做的更新"),
        Example(ONE, {"w_new": "1.8"}), graph=_other_graph),
    NamedMistake(
        "loss_new_at_old_w", "loss_new", ("the loss at the old parameters", "新损失用了旧参数"),
        Example(ONE, {"loss_new": "2"}), replace={"loss_new": L}),
    NamedMistake(
        "prediction_new_at_old_w", "prediction_new",
        ("the prediction at the old parameters", "新预测用了旧参数"),
        Example(ONE, {"prediction_new": "2"}), replace={"prediction_new": yhat[i]}),
))
"""The known mistakes, in the order the diagnosis tries them for each target."""

MODEL_INPUTS = (
    Input("w", "number", "the weight before the update"),
    Input("lr", "nonnegative", "the learning rate η"),
    Input("records", "records", "the batch: a list of [x, y] pairs"),
    Input("b", "number", "the bias (omit for ŷ = w·x)", required=False),
    Input("loss", "loss", '"half" for (ŷ − y)²/2 (default) or "squared" for (ŷ − y)²',
          required=False, default=linear.HALF),
)
"""The lesson's model as inputs, shared by every recipe that trains it."""

RECIPE = Recipe(
    name="sgd_step",
    title="One plain-SGD update of ŷ = w·x (+ b)",
    doc=__doc__,
    inputs=MODEL_INPUTS,
    quantities=QUANTITIES,
    mistakes=MISTAKES,
    graph=lambda ctx: graph_of(ctx),
    node_words=NODE_WORDS,
)
