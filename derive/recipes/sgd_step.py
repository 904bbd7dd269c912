"""`sgd_step`: one plain-SGD update of ŷ = w·x (+ b) on one batch of records.

The per-record loss is (ŷ − y)²/2 (`loss = "squared"` drops the ½); the batch loss and the
gradients are means over the records.
"""

from __future__ import annotations

import sympy as sp

from derive.model import linear
from derive.model.objective import mean, sgd_update
from derive.recipes.base import Input, Mistake, Quantity, Recipe


def _b(ctx):
    return ctx["b"] if ctx.has("b") else 0


def loss_convention(ctx):
    return ctx.given["loss"] if ctx.has("loss") else linear.HALF


def _one_or_list(ctx, values):
    return values[0] if len(ctx["records"]) == 1 else values


def predictions(ctx, w, b):
    return [linear.prediction(w, x, b) for x, _ in ctx["records"]]


def _each(ctx, name):
    """A per-record quantity as a list (a one-record batch holds a number)."""
    value = ctx[name]
    return list(value) if isinstance(value, (list, tuple)) else [value]


def batch_loss(ctx, prediction="prediction", convention=None):
    """The mean loss over the records, from the records' predictions."""
    conv = convention or loss_convention(ctx)
    return mean([linear.squared_error(p, y, conv)
                 for p, (_, y) in zip(_each(ctx, prediction), ctx["records"])])


def batch_gradient(ctx, param, convention=None, reduce=mean):
    """The gradient from the predictions by backward: ∂ℓ/∂ŷ · ∂ŷ/∂param per record."""
    conv = convention or loss_convention(ctx)
    return reduce([linear.backward(p, x, y, param, conv)
                   for p, (x, y) in zip(_each(ctx, "prediction"), ctx["records"])])


def _other_convention(ctx):
    return linear.SQUARED if loss_convention(ctx) == linear.HALF else linear.HALF


def _total(values):
    return sp.Add(*values)


QUANTITIES = (
    Quantity("prediction", "ŷ = w·x + b for each record (a number for one record)",
             "ŷ = w·x + b", lambda c: _one_or_list(c, predictions(c, c["w"], _b(c))), zh="预测"),
    Quantity("loss", "batch loss: the mean of (ŷ − y)²/2 over the records",
             "L = (1/N) Σ ℓ_i", batch_loss, zh="损失"),
    Quantity("gradient", "∂L/∂w by backward (∂ℓ/∂ŷ·∂ŷ/∂w, sympy.diff), averaged over the records",
             "g = (1/N) Σ ∂ℓ_i/∂w", lambda c: batch_gradient(c, "w"), zh="梯度"),
    Quantity("b_gradient", "∂L/∂b, averaged over the records",
             "g_b = (1/N) Σ ∂ℓ_i/∂b", lambda c: batch_gradient(c, "b"), needs=("b",),
             zh="偏置梯度"),
    Quantity("w_new", "w after one SGD step", "w_new = w − η·g",
             lambda c: sgd_update(c["w"], c["lr"], c["gradient"]), zh="新权重"),
    Quantity("b_new", "b after one SGD step", "b_new = b − η·g_b",
             lambda c: sgd_update(c["b"], c["lr"], c["b_gradient"]), needs=("b",),
             zh="新偏置"),
    Quantity("prediction_new", "ŷ at the new parameters", "ŷ_new = w_new·x + b_new",
             lambda c: _one_or_list(c, predictions(
                 c, c["w_new"], c["b_new"] if c.has("b") else 0)), zh="新预测"),
    Quantity("loss_new", "the batch loss at the new parameters", "L_new = (1/N) Σ ℓ_i(w_new)",
             lambda c: batch_loss(c, "prediction_new"), zh="新损失"),
)

MISTAKES = (
    Mistake("loss_other_convention", "loss",
            "the loss with the other convention: (ŷ − y)² instead of (ŷ − y)²/2, or back",
            lambda c: batch_loss(c, convention=_other_convention(c))),
    Mistake("gradient_other_convention", "gradient",
            "the gradient of the other loss convention: factor 2 (MSELoss has no ½)",
            lambda c: batch_gradient(c, "w", _other_convention(c))),
    Mistake("gradient_sum", "gradient", "the sum of the record gradients, not their mean",
            lambda c: batch_gradient(c, "w", reduce=_total)),
    Mistake("gradient_sign", "gradient", "the gradient with its sign flipped: x·(y − ŷ)",
            lambda c: -c["gradient"]),
    Mistake("w_new_sign", "w_new", "the update with the wrong sign: w + η·g",
            lambda c: c["w"] + c["lr"] * c["gradient"]),
    Mistake("w_new_other_convention", "w_new", "the update with the other loss convention",
            lambda c: sgd_update(c["w"], c["lr"], batch_gradient(c, "w", _other_convention(c)))),
    Mistake("loss_new_at_old_w", "loss_new", "the loss at the old parameters",
            lambda c: c["loss"]),
    Mistake("prediction_new_at_old_w", "prediction_new", "the prediction at the old parameters",
            lambda c: c["prediction"]),
)

MODEL_INPUTS = (
    Input("w", "number", "the weight before the update"),
    Input("lr", "positive", "the learning rate η"),
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
)
