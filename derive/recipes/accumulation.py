"""`accumulation`: one update from K microbatches at a fixed w (A2, A3), and the wrong schemes
the course warns about. The target is the mean over all records, or over valid tokens when
`tokens` is given (then microbatch k's mean gradient is its mean over its t_k tokens and its
weight is t_k/T).
"""

from __future__ import annotations

import sympy as sp

from derive.model import schemes
from derive.model.objective import sgd_update, weighted_sum, weights
from derive.recipes.base import Input, Mistake, Quantity, Recipe
from derive.wording import plural


def _units(c):
    """The counts the target averages over: valid tokens when given, else records."""
    return c.given["tokens"] if c.has("tokens") else c["microbatch_sizes"]


def _sizes(c):
    if c.has("microbatches"):
        return [sp.Integer(len(mb)) for mb in c["microbatches"]]
    return list(c.given["microbatch_sizes"])


def _means(c):
    if c.has("microbatches"):
        return schemes.mean_gradients(c["microbatches"], c["w"])
    return list(c.given["microbatch_mean_gradients"])


def _sums(c):
    return [u * g for u, g in zip(_units(c), c["microbatch_mean_gradients"])]


def _micro_gradients(c):
    out, current = [], c["w"]
    for mb in c["microbatches"]:
        g = schemes.mean_gradients([mb], current)[0]
        out.append(g)
        current = sgd_update(current, c["lr"], g)
    return out


def _walk(w, lr, gradients):
    """w after each step on the given per-microbatch gradients."""
    out = []
    for g in gradients:
        w = sgd_update(w, lr, g)
        out.append(w)
    return out


def _step(c, g):
    return sgd_update(c["w"], c["lr"], g)


STEP = ("w", "lr")

QUANTITIES = (
    Quantity("microbatch_sizes", "n_k, the records in each microbatch", "n_k = |B_k|",
             _sizes, zh="微批大小"),
    Quantity("microbatch_gradient_sums",
             "each microbatch's gradient summed over its records (its tokens with `tokens`)",
             "Σ_{i∈B_k} ∇ℓ_i", _sums, zh="微批梯度和"),
    Quantity("microbatch_mean_gradients", "∇L_k, each microbatch's mean gradient",
             "∇L_k = (1/n_k) Σ_{i∈B_k} ∇ℓ_i", _means, zh="微批平均梯度"),
    Quantity("weights", "each microbatch's weight in the target: n_k/N (t_k/T with tokens)",
             "n_k/N (t_k/T with tokens)", lambda c: weights(_units(c)), zh="微批权重"),
    Quantity("gradient", "the target's gradient (A2)", "g = Σ_k (n_k/N)·∇L_k",
             lambda c: weighted_sum(c["weights"], c["microbatch_mean_gradients"]),
             zh="梯度"),
    Quantity("mean_of_means", "the 1/K mistake: microbatch means averaged equally",
             "(1/K) Σ_k ∇L_k",
             lambda c: schemes.mean_of_means(c["microbatch_mean_gradients"]),
             wrong=True, mistake_of=("gradient",), zh="均值的均值"),
    Quantity("sum_of_means", "the undivided sum of microbatch means", "Σ_k ∇L_k",
             lambda c: schemes.sum_of_means(c["microbatch_mean_gradients"]),
             wrong=True, mistake_of=("gradient",), zh="均值之和"),
    Quantity("w_new", "w after one SGD step on the accumulated gradient (A3)",
             "w_new = w − η·g", lambda c: _step(c, c["gradient"]), needs=STEP, zh="新权重"),
    Quantity("w_new_mean_of_means", "w after a step on the 1/K mean of means",
             "w − η·(1/K) Σ_k ∇L_k", lambda c: _step(c, c["mean_of_means"]), needs=STEP,
             wrong=True, mistake_of=("w_new",), zh="按均值的均值更新"),
    Quantity("w_new_sum_of_means", "w after a step on the undivided sum",
             "w − η·Σ_k ∇L_k", lambda c: _step(c, c["sum_of_means"]), needs=STEP,
             wrong=True, mistake_of=("w_new",), zh="按均值之和更新"),
    Quantity("micro_step_gradients",
             "∇L_k at the w reached after the previous per-microbatch step",
             "∇L_k(w_{k−1})", _micro_gradients, needs=("microbatches", "lr"), wrong=True,
             zh="逐微批梯度"),
    Quantity("w_micro_steps", "w after each per-microbatch step (a different trajectory)",
             "w_k = w_{k−1} − η·∇L_k(w_{k−1})",
             lambda c: _walk(c["w"], c["lr"], c["micro_step_gradients"]),
             needs=("microbatches", "lr"), wrong=True, zh="逐微批更新"),
    Quantity("divisor_gradient", "the microbatch means summed and divided by the fixed divisor d",
             "(1/d) Σ_k ∇L_k",
             lambda c: schemes.divisor_gradient(c["microbatch_mean_gradients"], c["divisor"]),
             needs=("divisor",), wrong=True, mistake_of=("gradient",), zh="固定分母梯度"),
    Quantity("w_new_divisor", "w after a step on the fixed-divisor gradient",
             "w − η·(1/d) Σ_k ∇L_k", lambda c: _step(c, c["divisor_gradient"]),
             needs=("divisor", *STEP), wrong=True, mistake_of=("w_new",), zh="按固定分母更新"),
)

MISTAKES = (
    Mistake("weights_by_records", "weights", "n_k/N although the target is over tokens",
            lambda c: weights(c["microbatch_sizes"]), needs=("tokens",)),
    Mistake("weights_one_over_k", "weights", "1/K for every microbatch",
            lambda c: [sp.Rational(1, len(_units(c)))] * len(_units(c))),
    Mistake("gradient_by_records", "gradient", "weights n_k/N although the target is over tokens",
            lambda c: schemes.accumulated_gradient(c["microbatch_sizes"],
                                                   c["microbatch_mean_gradients"]),
            needs=("tokens",)),
    Mistake("microbatch_gradient_sums", "microbatch_mean_gradients",
            "the microbatch gradient sums, not divided by n_k",
            lambda c: c["microbatch_gradient_sums"]),
    Mistake("w_micro_steps", "w_new", "the w reached by stepping after every microbatch",
            lambda c: c["w_micro_steps"][-1], needs=("microbatches", "lr")),
    Mistake("w_new_sign", "w_new", "the update with the wrong sign: w + η·g",
            lambda c: c["w"] + c["lr"] * c["gradient"], needs=STEP),
)


def check(given):
    problems = []
    has_mb = given.get("microbatches") is not None
    has_sizes = given.get("microbatch_sizes") is not None
    has_means = given.get("microbatch_mean_gradients") is not None
    if has_mb and (has_sizes or has_means):
        problems.append(("microbatches", "is given together with microbatch_sizes or "
                         "microbatch_mean_gradients", "give either microbatches, or both "
                         "microbatch_sizes and microbatch_mean_gradients"))
    elif not has_mb and not (has_sizes and has_means):
        missing = "microbatch_mean_gradients" if has_sizes else "microbatch_sizes"
        problems.append((missing if (has_sizes or has_means) else "microbatches", "is missing",
                         "give either microbatches = [[[x, y], …], …], or both "
                         "microbatch_sizes and microbatch_mean_gradients"))
    if has_mb and given.get("w") is None:
        problems.append(("w", "is missing", "give w: the gradients of records depend on it"))
    k = (len(given["microbatches"]) if has_mb else len(given["microbatch_sizes"])
         if has_sizes else None)
    if has_sizes and has_means and len(given["microbatch_mean_gradients"]) != k:
        problems.append(("microbatch_mean_gradients",
                         f"has {plural(len(given['microbatch_mean_gradients']), 'value')} for "
                         f"{plural(k, 'size')}",
                         "give one mean gradient per microbatch"))
    if given.get("tokens") is not None and k is not None and len(given["tokens"]) != k:
        problems.append(("tokens", f"has {plural(len(given['tokens']), 'count')} for "
                         f"{plural(k, 'microbatch', 'microbatches')}",
                         "give one valid-token count per microbatch"))
    return problems


RECIPE = Recipe(
    name="accumulation",
    title="One update from K microbatches at a fixed w",
    doc=__doc__,
    inputs=(
        Input("w", "number", "w at the start of the window (needed with microbatches)",
              required=False),
        Input("lr", "positive", "the learning rate η (needed for the updates)", required=False),
        Input("microbatches", "microbatches", "the records of each microbatch: [[[x, y], …], …]",
              required=False),
        Input("microbatch_sizes", "counts", "n_k, instead of microbatches", required=False),
        Input("microbatch_mean_gradients", "numbers", "∇L_k, instead of microbatches",
              required=False),
        Input("tokens", "counts", "valid tokens per microbatch: the target becomes the token mean",
              required=False),
        Input("divisor", "count", "a fixed divisor d, as a tail window that keeps dividing by "
              "the planned count", required=False),
    ),
    quantities=QUANTITIES,
    mistakes=MISTAKES,
    check=check,
)
