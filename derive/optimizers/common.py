"""Declarations several optimizers share: the momentum buffer (SGD and RMSprop keep torch's
`momentum_buffer`), weight decay forgotten, ε inside the square root, the square root forgotten."""

from __future__ import annotations

from derive.graph.words import said
from derive.optimizers.spec import StateSlot

BUFFER = StateSlot(
    "buffer", "momentum_buffer", "buffer_steps", "u", "u",
    used=lambda opt: opt.momentum != 0, used_text="with momentum > 0",
    words=("Momentum buffer", "动量缓冲"), b_words=("Momentum buffer of b", "b 的动量缓冲"),
    doc="the momentum buffer u_t of w after each step (SGD: first the gradient, or "
        "μ·u_0 + (1 − τ)·g̃_1 resumed from a saved u_0; RMSprop: μ·u_{t−1} + g̃_t/(√v_t + ε))",
    b_doc="the momentum buffer of b after each step", header="u_t", claimable=("w", "b"))

WEIGHT_DECAY_FORGOTTEN = (said(r"the weight decay $\lambda$ left out"),
                          said(r"漏掉了权重衰减 $\lambda$"))

EPS_INSIDE_SQRT = (
    said(r"$\varepsilon$ inside the square root, $\tilde{g}_t/\sqrt{s + \varepsilon}$ as Keras "
         r"and TensorFlow write it, instead of torch's $\tilde{g}_t/(\sqrt{s} + \varepsilon)$"),
    said(r"把 $\varepsilon$ 放进了平方根: $\tilde{g}_t/\sqrt{s + \varepsilon}$(Keras、TensorFlow "
         r"的写法),而不是 torch 的 $\tilde{g}_t/(\sqrt{s} + \varepsilon)$"))

SQRT_FORGOTTEN = (
    said(r"the square root forgotten: $\tilde{g}_t/(s + \varepsilon)$ instead of "
         r"$\tilde{g}_t/(\sqrt{s} + \varepsilon)$ ($s$ the average or sum of the squared "
         r"gradients)"),
    said(r"忘了开平方: $\tilde{g}_t/(s + \varepsilon)$,而不是 "
         r"$\tilde{g}_t/(\sqrt{s} + \varepsilon)$($s$ 为梯度平方的平均或累加和)"))

ONE = {"w": "1", "lr": "0.1", "records": [["2", "4"]]}
"""The lesson's one record (2, 4) from w = 1, η = 0.1: the examples' exercise."""
