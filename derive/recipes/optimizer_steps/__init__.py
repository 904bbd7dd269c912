"""`optimizer_steps`: several updates, exactly as torch.optim computes them (SGD with momentum,
dampening, weight decay, Nesterov, maximize; Adam; AdamW; amsgrad), on the same batch or on a
batch of its own at each step (`batches`), from a fresh optimizer or resumed from a saved state
(`state`: a checkpoint's momentum buffers, or Adam's m, v, v_max and step count).

The steps t = 1…T are a recurrent family of the derivation graph: g_t is the batch-mean
gradient at (w_{t−1}, b_{t−1}) by backward (`sympy.diff` through the prediction, as in
`sgd_step`); the optimizer's state (the momentum buffer u_t, Adam's m_t and v_t) carries over
from step to step, starting from w_0 = w, b_0 = b and zero state. Each optimizer configuration
is its own graph, so each formula shows only the terms that apply; the order of operations is
torch's (`derive/model/optimizers.py`, `_single_tensor_sgd` and `_single_tensor_adam`).
"""

from __future__ import annotations

from derive.recipes import sgd_step as sgd
from derive.recipes.base import Input, Quantity, QuantityUndefined, Recipe
from derive.recipes.optimizer_steps.graph import GRAPHED, config, graph, graph_of
from derive.recipes.optimizer_steps.inputs import MAX_SAVED_STEP, MAX_STEPS, check, state_keys
from derive.recipes.optimizer_steps.mistakes import MISTAKES, variants

__all__ = ["RECIPE", "config", "graph", "graph_of", "variants", "check", "state_keys",
           "MAX_STEPS", "MAX_SAVED_STEP"]


def _momentum(given) -> bool:
    opt = given.get("optimizer")
    return opt is not None and opt.name == "sgd" and opt.momentum != 0


def _adam(given) -> bool:
    opt = given.get("optimizer")
    return opt is not None and opt.name in ("adam", "adamw")


def _with_b(given) -> bool:
    return given.get("b") is not None


DOCS = {
    "gradient_steps": "∂L/∂w at each step's starting point (w_{t−1}, b_{t−1})",
    "b_gradient_steps": "∂L/∂b at each step's starting point",
    "buffer_steps": "SGD's momentum buffer u_t of w after each step (first: the gradient, or "
                    "μ·u_0 + (1 − τ)·g̃_1 resumed from a saved u_0)",
    "b_buffer_steps": "SGD's momentum buffer of b after each step",
    "m_steps": "Adam's first moment of w after each step",
    "v_steps": "Adam's second moment of w after each step",
    "w_steps": "w after each step",
    "b_steps": "b after each step",
    "loss_steps": "the loss of each step's batch after the step, at (w_t, b_t)",
}

WORDS = {
    "gradient_steps": ("Gradient at each step's start, by backward", "各步梯度(反向传播)"),
    "b_gradient_steps": ("Gradient with respect to b at each step's start", "各步偏置梯度"),
    "decayed_gradient": ("The gradient torch uses: sign (maximize) and weight decay",
                         "torch 实际使用的梯度:符号(maximize)与权重衰减"),
    "buffer_steps": ("Momentum buffer", "动量缓冲"),
    "nesterov_direction": ("Nesterov's direction", "Nesterov 方向"),
    "m_steps": ("First moment", "一阶矩"),
    "v_steps": ("Second moment", "二阶矩"),
    "v_max": ("Running maximum of the second moment (amsgrad)", "二阶矩的历史最大值(amsgrad)"),
    "m_hat": ("Bias-corrected first moment", "偏差修正后的一阶矩"),
    "v_hat": ("Bias-corrected second moment", "偏差修正后的二阶矩"),
    "w_steps": ("The weight after each step", "各步权重"),
    "b_decayed_gradient": ("The gradient of b torch uses", "torch 对 b 使用的梯度"),
    "b_buffer_steps": ("Momentum buffer of b", "b 的动量缓冲"),
    "b_nesterov_direction": ("Nesterov's direction for b", "b 的 Nesterov 方向"),
    "b_m_steps": ("First moment of b", "b 的一阶矩"),
    "b_v_steps": ("Second moment of b", "b 的二阶矩"),
    "b_v_max": ("Running maximum of b's second moment", "b 的二阶矩历史最大值"),
    "b_m_hat": ("Bias-corrected first moment of b", "b 的偏差修正一阶矩"),
    "b_v_hat": ("Bias-corrected second moment of b", "b 的偏差修正二阶矩"),
    "b_steps": ("The bias after each step", "各步偏置"),
    "loss_steps": ("Batch loss after each step", "各步之后的批损失"),
}
"""Every node in the course's words, English and Chinese (headings of the working)."""

CLAIMABLE = ("gradient_steps", "b_gradient_steps", "buffer_steps", "b_buffer_steps",
             "m_steps", "v_steps", "w_steps", "b_steps", "loss_steps")

_SGD_MOMENTUM = "an SGD optimizer with momentum > 0"
_ADAM = 'optimizer = { name = "adam" } or "adamw"'


def _value(name: str):
    """A quantity's value; with Adam's eps = 0 (which torch accepts) the update
    m̂_t/(√v̂_t + ε) divides by 0 at a step whose v̂_t is 0, where torch computes nan (m̂_t = 0)
    or ±inf: then the exercise has no exact values to check."""
    compute = GRAPHED.value(name)

    def value(ctx):
        try:
            return compute(ctx)
        except ZeroDivisionError:
            raise QuantityUndefined(
                name, "is 0, and at some step v̂_t = 0 (every gradient so far 0, or a saved "
                "v of 0): the update m̂_t/(√v̂_t + ε) divides by 0, where torch gives nan "
                "(m̂_t = 0) or ±inf", expected="give eps > 0 (torch's default is 1e-8)",
                key="given.optimizer.eps") from None
    return value


QUANTITIES = (
    Quantity("gradient_steps", DOCS["gradient_steps"], _value("gradient_steps"),
             zh="各步梯度"),
    Quantity("b_gradient_steps", DOCS["b_gradient_steps"], _value("b_gradient_steps"),
             needs=("b",), zh="各步偏置梯度"),
    Quantity("buffer_steps", DOCS["buffer_steps"], _value("buffer_steps"), when=_momentum,
             when_text=_SGD_MOMENTUM, zh="动量缓冲"),
    Quantity("b_buffer_steps", DOCS["b_buffer_steps"], _value("b_buffer_steps"),
             needs=("b",), when=_momentum, when_text=_SGD_MOMENTUM, zh="b 的动量缓冲"),
    Quantity("m_steps", DOCS["m_steps"], _value("m_steps"), when=_adam,
             when_text=_ADAM, zh="一阶矩"),
    Quantity("v_steps", DOCS["v_steps"], _value("v_steps"), when=_adam,
             when_text=_ADAM, zh="二阶矩"),
    Quantity("w_steps", DOCS["w_steps"], _value("w_steps"), zh="各步权重"),
    Quantity("b_steps", DOCS["b_steps"], _value("b_steps"), needs=("b",),
             zh="各步偏置"),
    Quantity("loss_steps", DOCS["loss_steps"], _value("loss_steps"), zh="各步之后的批损失"),
)
"""In derivation order, which the diagnosis follows: the gradients, then the optimizer state
(the buffers, or m and v), then the parameters that state moves, then the loss after them."""


HEADERS = {"gradient_steps": "g_t", "b_gradient_steps": "∂L/∂b", "buffer_steps": "u_t",
           "m_steps": "m_t", "v_steps": "v_t", "w_steps": "w_t", "b_steps": "b_t",
           "loss_steps": "L_t"}
"""The steps table's columns (t, g_t, the state, w_t, b_t, L_t), in order, with their
headings in the course's notation."""


RECIPE = Recipe(
    name="optimizer_steps",
    title="Several torch.optim updates, fresh or resumed",
    doc=__doc__,
    inputs=(
        *(Input(i.name, i.kind, "the batch of every step: a list of [x, y] pairs (or give "
                "batches)", required=False) if i.name == "records" else i
          for i in sgd.MODEL_INPUTS),
        Input("steps", "count", "how many steps (default 1; with batches, one per batch)",
              required=False),
        Input("batches", "batches", "a batch of its own for each step, in place of records: "
              "a list of lists of [x, y] pairs, steps = how many", required=False),
        Input("optimizer", "optimizer", '{ name = "sgd" | "adam" | "adamw", momentum, '
              "dampening, weight_decay, nesterov, maximize, betas = [β1, β2], eps, amsgrad }; "
              "what is left out takes PyTorch's default", required=False),
        Input("state", "optimizer_state", "the saved optimizer state the run resumes from "
              "(torch's optimizer.state_dict()): { buffer, b_buffer } for SGD with momentum; "
              "{ step, m, v, v_max (amsgrad), b_m, b_v, b_v_max } for Adam and AdamW; left out, "
              "a fresh optimizer", required=False),
    ),
    quantities=QUANTITIES,
    mistakes=MISTAKES,
    check=check,
    graph=graph_of,
    node_words=WORDS,
    steps_columns=HEADERS,
    members_shown=1,
)
