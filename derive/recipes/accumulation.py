"""`accumulation`: one update from K microbatches at a fixed w (A2, A3), and the wrong schemes
the course warns about. The target is the mean over all records, or over valid tokens when
`tokens` is given (then microbatch k's mean gradient is its mean over its t_k tokens and its
weight is t_k/T).
"""
# Every quantity is one node of the derivation graph below. Records are numbered i = 1…N
# across the window, microbatch B_k holding records c_{k−1}+1 … c_k; a record's gradient is
# `sympy.diff` of its loss (ŷ_i − y_i)²/2 through the prediction ŷ_i = w·x_i.

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derive.graph import Family, Node, family, symbol
from derive.graph.graph import Graph, boundaries, members
from derive.graph.lesson import K, N, T, eta, g, i, k, w, x, y, yhat
from derive.graph.lesson import w_new as w1
from derive.graph.notation import blocks, kin
from derive.graph.words import Words, cat, said
from derive.model import linear
from derive.recipes.base import Candidate, Example, Input, Quantity, Recipe
from derive.recipes.graphed import Graphed, NamedMistake, as_computed
from derive.recipes.sgd_step import WRONG_SIGN
from derive.wording import plural

RECORDS = Family("records", i, N)
MICROBATCHES = Family("microbatches", k, K)
d = symbol("d", "d", integer=True, positive=True)
B = family("B", "B")
c = family("c", "c", integer=True)
blocks("c", "B")
t = family("t", "t", integer=True, positive=True)
n = family("n", "n", integer=True, positive=True)
grad = family("nabla_ell", "ell", prefix="nabla")
S = family("S", "S")
G = family("nabla_L", "L", prefix="nabla")
G_given = family("nabla_L_given", "L", prefix="nabla")
alpha = family("alpha", "alpha")
g_mean = symbol("g_bar", "g", accent="bar")
g_sum = symbol("g_sum", "g", sub=r"\Sigma")
g_div = symbol("g_d", "g", sub="d")
w1_mean = symbol("w_new_bar", "w", accent="bar", prime=True)
w1_sum = symbol("w_new_sum", "w", prime=True, sub=r"\Sigma")
w1_div = symbol("w_new_d", "w", prime=True, sub="d")
g_micro = family("g_micro", "g")
kin("g", "g_micro")  # g_k, each micro step's gradient, beside the accumulated g
w_micro = family("w_micro", "w")

RECORDS_MODE, GIVEN_MODE = "microbatches", "means"


def _step(param: sp.Expr, gradient: sp.Expr) -> sp.Expr:
    """param − η·gradient, as written."""
    return sp.Add(param, sp.Mul(-1, eta, gradient, evaluate=False), evaluate=False)


def _block_sum(term: sp.Expr) -> sp.Expr:
    """Σ_{i∈B_k} term: i from c_{k−1}+1 to c_k."""
    return sp.Sum(term, (i, c[k - 1] + 1, c[k]))


def _over_microbatches(term: sp.Expr) -> sp.Expr:
    return sp.Sum(term, (k, 1, K))


def _scaled(scale: sp.Expr, term: sp.Expr) -> sp.Expr:
    """scale·term kept as written ((1/n_k)·Σ, not folded into the sum)."""
    return sp.Mul(scale, term, evaluate=False)


def _record_gradient(weight: sp.Expr) -> sp.Expr:
    """∂ℓ_i/∂w at `weight` = ∂ℓ_i/∂ŷ_i · ∂ŷ_i/∂w, each factor by `sympy.diff` (the per-record
    loss (ŷ − y)²/2 of the lesson's model ŷ = w·x)."""
    out_grad = sp.diff(linear.squared_error(linear.yhat, y[i]), linear.yhat)
    local = sp.diff(linear.prediction(linear.w, x[i]), linear.w)
    if weight == w:  # at the window's w: through the prediction node ŷ_i
        return sp.Mul(out_grad.xreplace({linear.yhat: yhat[i]}), local, evaluate=False)
    at = sp.Mul(weight, x[i], evaluate=False)
    return sp.Mul(out_grad.xreplace({linear.yhat: at}), local, evaluate=False)


def mean_of_means_expr():
    return _scaled(1 / K, _over_microbatches(G[k]))


def sum_of_means_expr():
    return _over_microbatches(G[k])


def divisor_expr():
    return _scaled(1 / d, _over_microbatches(G[k]))


@lru_cache(maxsize=None)
def graph(mode: str, tokens: bool) -> Graph:
    """The graph of one exercise's configuration: records given (`microbatches`) or sizes and
    means given; the target over records or over valid tokens."""
    records = mode == RECORDS_MODE
    units = t[k] if tokens else n[k]
    means = (_scaled(1 / n[k], _block_sum(grad[i])) if records else G_given[k])
    nodes = [Node("microbatch_sizes", n, sp.Abs(B[k]), MICROBATCHES),
             Node("records_total", N, _over_microbatches(n[k]))]
    if records:
        nodes += [Node("prediction", yhat, sp.Mul(w, x[i], evaluate=False), RECORDS),
                  Node("record_gradient", grad, _record_gradient(w), RECORDS)]
    sums = _block_sum(grad[i]) if records and not tokens else sp.Mul(units, G[k], evaluate=False)
    nodes += [Node("microbatch_gradient_sums", S, sums, MICROBATCHES),
              Node("microbatch_mean_gradients", G, means, MICROBATCHES)]
    if tokens:
        nodes.append(Node("tokens_total", T, _over_microbatches(t[k])))
    nodes += [
        Node("weights", alpha, units / (T if tokens else N), MICROBATCHES),
        Node("gradient", g, _over_microbatches(sp.Mul(alpha[k], G[k], evaluate=False))),
        Node("mean_of_means", g_mean, mean_of_means_expr()),
        Node("sum_of_means", g_sum, sum_of_means_expr()),
        Node("w_new", w1, _step(w, g)),
        Node("w_new_mean_of_means", w1_mean, _step(w, g_mean)),
        Node("w_new_sum_of_means", w1_sum, _step(w, g_sum)),
    ]
    if records:
        nodes += [
            Node("micro_step_gradients", g_micro,
                 _scaled(1 / n[k], _block_sum(_record_gradient(w_micro[k - 1]))), MICROBATCHES),
            Node("w_micro_steps", w_micro, _step(w_micro[k - 1], g_micro[k]), MICROBATCHES,
                 start=w),
        ]
    nodes += [Node("divisor_gradient", g_div, divisor_expr()),
              Node("w_new_divisor", w1_div, _step(w, g_div))]
    inputs = {"w": lambda c_: c_["w"], "eta": lambda c_: c_["lr"], "d": lambda c_: c_["divisor"],
              "K": lambda c_: sp.Integer(len(_sizes(c_))),
              "B": lambda c_: members(_sizes(c_)),
              "t": lambda c_: members(c_.given["tokens"])}
    if records:
        flat = lambda c_: [r for mb in c_["microbatches"] for r in mb]  # noqa: E731
        inputs.update({
            "x": lambda c_: members([r[0] for r in flat(c_)]),
            "y": lambda c_: members([r[1] for r in flat(c_)]),
            "c": lambda c_: boundaries(_sizes(c_)),
        })
    else:
        inputs["nabla_L_given"] = lambda c_: members(c_.given["microbatch_mean_gradients"])
    return Graph(tuple(nodes), inputs, opaque=frozenset({"B"}))


def _sizes(c_):
    """n_k as the exercise gives them: the records of each microbatch, or `microbatch_sizes`."""
    if c_.has("microbatches"):
        return [sp.Integer(len(mb)) for mb in c_["microbatches"]]
    return list(c_.given["microbatch_sizes"])


def graph_of(ctx) -> Graph:
    return graph(RECORDS_MODE if ctx.has("microbatches") else GIVEN_MODE, ctx.has("tokens"))


STEP = ("w", "lr")
MICRO = ("microbatches", "lr")

GRAPHED = Graphed(graph_of, lambda: (q.name for q in QUANTITIES), shape=as_computed)


def _quantity(name: str, doc: str, words: tuple[str, str], **kw) -> Quantity:
    return Quantity(name, doc, GRAPHED.value(name), words=words, **kw)


QUANTITIES = (  # each formula is its node in `graph`
    _quantity("microbatch_sizes", "n_k, the records in each microbatch",
              ("Records in each microbatch", "每个微批的记录数")),
    _quantity("microbatch_gradient_sums",
              "each microbatch's gradient summed over its records (its tokens with `tokens`)",
              ("Gradient sum of each microbatch", "每个微批的梯度和")),
    _quantity("microbatch_mean_gradients", "∇L_k, each microbatch's mean gradient",
              ("Mean gradient of each microbatch", "每个微批的平均梯度")),
    _quantity("weights", "each microbatch's weight in the target: n_k/N (t_k/T with tokens)",
              ("Weight of each microbatch in the target", "每个微批在目标中的权重")),
    _quantity("gradient", "the target's gradient (A2)",
              ("The accumulated gradient (A2)", "累积梯度(A2)")),
    _quantity("mean_of_means", said(r"the $1/K$ mistake: microbatch means averaged equally"),
              ("The microbatch means averaged equally", "微批均值等权平均"),
              wrong=True, mistake_of=("gradient",)),
    _quantity("sum_of_means", "the undivided sum of microbatch means",
              ("The microbatch means summed, undivided", "微批均值直接相加,不除"),
              wrong=True, mistake_of=("gradient",)),
    _quantity("w_new", "w after one SGD step on the accumulated gradient (A3)",
              ("The weight after the step (A3)", "更新后的权重(A3)"), needs=STEP),
    _quantity("w_new_mean_of_means", said(r"$w$ after a step on the $1/K$ mean of means"),
              ("The weight after a step on the mean of means", "按均值的均值更新后的权重"),
              wrong=True, mistake_of=("w_new",), needs=STEP),
    _quantity("w_new_sum_of_means", said(r"$w$ after a step on the undivided sum"),
              ("The weight after a step on the undivided sum", "按均值之和更新后的权重"),
              wrong=True, mistake_of=("w_new",), needs=STEP),
    _quantity("micro_step_gradients",
              "∇L_k at the w reached after the previous per-microbatch step",
              ("Gradient of each microbatch at the w of the previous step",
               "每个微批在上一步的 w 处的梯度"), wrong=True, needs=MICRO),
    _quantity("w_micro_steps", "w after each per-microbatch step (a different trajectory)",
              ("The weight after each per-microbatch step", "逐微批更新后的权重"),
              wrong=True, needs=MICRO),
    _quantity("divisor_gradient",
              said(r"the microbatch means summed and divided by the fixed divisor $d$"),
              ("The microbatch means summed and divided by d", "微批均值之和除以固定分母 d"),
              wrong=True, mistake_of=("gradient",), needs=("divisor",)),
    _quantity("w_new_divisor", said(r"$w$ after a step on the fixed-divisor gradient"),
              ("The weight after a step on the fixed-divisor gradient",
               "按固定分母梯度更新后的权重"),
              wrong=True, mistake_of=("w_new",), needs=("divisor", *STEP)),
)
"""The claimable quantities, in derivation order."""

NODE_WORDS = {
    "records_total": ("Records in the window", "窗口内的记录总数"),
    "prediction": ("Prediction of each record at w", "每条记录在 w 处的预测"),
    "record_gradient": ("Gradient of each record by backward", "每条记录的梯度(反向传播)"),
    "tokens_total": ("Valid tokens in the window", "窗口内的有效 token 总数"),
}
"""The words of the graph's other nodes, English and Chinese (headings of the working)."""

CLAIMABLE = tuple(q.name for q in QUANTITIES)
DOCS = {q.name: q.doc for q in QUANTITIES}
"""Each quantity's docs line (a wrong scheme's is its mistake's English)."""

THREE = {"w": "1", "lr": "0.1", "microbatches": [[["1", "0"], ["2", "0"]], [["3", "0"]]]}
"""The reading's three records (1, 0), (2, 0), (3, 0) in microbatches of 2 and 1."""
TOKENS = {"microbatch_sizes": ["1", "1"], "microbatch_mean_gradients": ["1", "7"],
          "tokens": ["100", "20"], "w": "1", "lr": "0.1"}


def _sums_for_means(ctx):
    """The sums' definition read as the means' (∇L_k := S_k): in the graph of the exercise,
    with ∇L_k inside S_k = t_k·∇L_k still the right mean."""
    gr = graph_of(ctx)
    sums, means = gr.by_name["microbatch_gradient_sums"].expr, gr.by_name[
        "microbatch_mean_gradients"].expr
    return {"microbatch_mean_gradients": sums.xreplace({G[k]: means})}


def _tail(ctx) -> tuple[int, list[int], list] | None:
    """(the planned size n_max, the sizes n_k, the gradient sums S_k) when the window has a
    microbatch smaller than its largest (a tail), else None. The planned size is inferred from
    the largest microbatch; a target over tokens has no planned size (masks make counts
    differ)."""
    if ctx.has("tokens"):
        return None
    sizes = [int(n_) for n_ in ctx["microbatch_sizes"]]
    big = max(sizes)
    if all(n_ == big for n_ in sizes):
        return None
    return big, sizes, list(ctx["microbatch_gradient_sums"])


def _planned_counts(ctx) -> list[tuple[int, str, str]]:
    """(planned record count, English, Chinese) of the window: K·n_max (every microbatch
    counted as full), and d·n_max when a divisor declares the planned microbatch count d."""
    big, sizes, _ = _tail(ctx)
    k_ = len(sizes)
    count = said(rf"$K \cdot n_{{\max}} = {k_} \cdot {big}$")
    out = [(k_ * big, count, count)]
    if ctx.has("divisor") and int(ctx["divisor"]) != k_:
        d_ = int(ctx["divisor"])
        count = said(rf"$d \cdot n_{{\max}} = {d_} \cdot {big}$")
        out.append((d_ * big, cat(count, " (the declared plan)"), cat(count, "(声明的计划)")))
    return out


PLANNED_MICROBATCHES_UP_TO = 4
"""Without `divisor`, a window of K microbatches is tried as planned for K+1 … 4K of them (at
most MAX_PLANNED_MICROBATCHES): the reading's window planned for four that ends with two."""
MAX_PLANNED_MICROBATCHES = 64


def _planned_records(ctx) -> list[Candidate]:
    """The window's gradient sum divided by its planned record count instead of the records it
    holds: a tail window whose last microbatch is short, still divided as if full."""
    if _tail(ctx) is None:
        return []
    _, sizes, sums = _tail(ctx)
    total, records = sp.Add(*sums), sum(sizes)
    out = []
    for planned, en, zh in _planned_counts(ctx):
        out.append(Candidate(
            total / planned,
            en=cat("the window's gradient sum divided by its planned count ", en,
                   f" = {planned} records, not by the {records} records it holds (a tail "
                   "window divided as if full)"),
            zh=cat("把窗口的梯度和除以计划的记录数 ", zh,
                   f" = {planned},而不是实际的 {records} 条记录(尾部窗口仍按满窗口除)"),
            details={"planned_records": planned, "records": records}))
    return out


def _planned_microbatches(ctx) -> list[Candidate]:
    """Without `divisor`: the microbatch means summed and divided by a planned microbatch count
    P = K+1 … 4K, as a window planned for P microbatches that holds only K (`divisor = P` is
    the same mistake declared, `divisor_gradient`)."""
    if ctx.has("divisor"):
        return []
    means = list(ctx["microbatch_mean_gradients"])
    k_, total = len(means), sp.Add(*means)
    top = min(PLANNED_MICROBATCHES_UP_TO * k_, MAX_PLANNED_MICROBATCHES)
    return [Candidate(
        total / p_,
        en=said(f"the microbatch means summed and divided by {p_}, a planned count of "
                f"microbatches, although the window holds $K = {k_}$ (a tail window divided by "
                f"the planned count; `divisor = {p_}` states such a plan)"),
        zh=said(f"把微批均值之和除以 {p_}(计划的微批数),而窗口实际只有 $K = {k_}$ 个微批"
                f"(尾部窗口仍按计划个数除;可用 divisor = {p_} 声明这种计划)"),
        details={"planned_microbatches": p_, "microbatches": k_})
        for p_ in range(k_ + 1, top + 1)]


def tail_gradients(ctx) -> list[Candidate]:
    """The tail-window gradients, in the order tried: divided by the planned record count
    (inferred from the largest microbatch, or from a declared divisor), then by a planned
    microbatch count."""
    return _planned_records(ctx) + _planned_microbatches(ctx)


def tail_steps(ctx) -> list[Candidate]:
    """w − η·(a tail gradient divided by the planned count)."""
    return [Candidate(ctx["w"] - ctx["lr"] * c.value,
                      en=cat(said("$w$ after a step on "), _without_the(c.en)),
                      zh=cat("用这样的梯度做的更新:", c.zh), details=c.details)
            for c in tail_gradients(ctx)]


def _without_the(words: Words) -> Words:
    """Words without their leading "the " (a gradient named after "a step on")."""
    first, *rest = words.parts
    return cat(first.removeprefix("the ") if isinstance(first, str) else first, *rest)


def tail_means(ctx) -> list[Candidate]:
    """Each microbatch's gradient sum divided by the planned size n_max: right for the full
    microbatches, wrong for each short one (named with its index, 1-based)."""
    if _tail(ctx) is None:
        return []
    big, sizes, sums = _tail(ctx)
    value = [s_ / big for s_ in sums]
    short_ = [(m_, n_, s_) for m_, (n_, s_) in enumerate(zip(sizes, sums), 1)
              if n_ < big and s_ != 0]
    if not short_:
        return []
    en = "; ".join(f"element {m_} (a tail microbatch of {plural(n_, 'record')}): its gradient "
                   f"sum {s_} divided by the planned size {big}, {s_ / big}, not by its "
                   f"{plural(n_, 'record')}, {s_ / n_}" for m_, n_, s_ in short_)
    zh = ";".join(f"第 {m_} 项(尾部微批,只有 {n_} 条记录):把梯度和 {s_} 除以计划的微批大小 "
                  f"{big},得 {s_ / big};应除以它实际的 {n_} 条记录,得 {s_ / n_}"
                  for m_, n_, s_ in short_)
    elements = [{"index": m_, "size": n_, "planned_size": big, "value": str(s_ / big),
                 "expected": str(s_ / n_)} for m_, n_, s_ in short_]
    return [Candidate(value, en=en, zh=zh, details={"elements": elements})]


MISTAKES = GRAPHED.mistakes((  # in the order the diagnosis tries them for each target
    NamedMistake(
        "weights_by_records", "weights",
        (said(r"$n_k/N$ although the target is over tokens"),
         said(r"目标是 token 均值,却按记录数加权 $n_k/N$")),
        Example(TOKENS, {"weights": ["0.5", "0.5"]}),
        replace={"weights": n[k] / N}, needs=("tokens",)),
    NamedMistake(
        "weights_one_over_k", "weights",
        (said(r"$1/K$ for every microbatch"), said(r"每个微批都取 $1/K$")),
        Example(THREE, {"weights": ["0.5", "0.5"]}), replace={"weights": 1 / K}),
    NamedMistake(
        "gradient_by_records", "gradient",
        (said(r"weights $n_k/N$ although the target is over tokens"),
         said(r"目标是 token 均值,却按记录数加权 $n_k/N$")),
        Example(TOKENS, {"gradient": "4"}), replace={"weights": n[k] / N}, needs=("tokens",)),
    NamedMistake(
        "mean_of_means", "gradient",
        (DOCS["mean_of_means"], said(r"$1/K$ 错误:各微批均值直接等权平均")),
        Example(THREE, {"gradient": "5.75"}), replace={"gradient": mean_of_means_expr()}),
    NamedMistake(
        "sum_of_means", "gradient", (DOCS["sum_of_means"], "微批均值直接相加,没有除"),
        Example(THREE, {"gradient": "11.5"}), replace={"gradient": sum_of_means_expr()}),
    NamedMistake(
        "divisor_gradient", "gradient",
        (DOCS["divisor_gradient"], said(r"微批均值之和除以固定分母 $d$(尾部窗口仍按计划个数除)")),
        Example({**THREE, "divisor": "4"}, {"gradient": "2.875"}),
        replace={"gradient": divisor_expr()}, needs=("divisor",)),
    NamedMistake(
        "microbatch_gradient_sums", "microbatch_mean_gradients",
        (said(r"the microbatch gradient sums, not divided by $n_k$"),
         said(r"微批梯度和,没有除以 $n_k$")),
        Example(THREE, {"microbatch_mean_gradients": ["5", "9"]}), replace=_sums_for_means),
    NamedMistake(
        "w_micro_steps", "w_new",
        (said(r"the $w$ reached by stepping after every microbatch"),
         said(r"每个微批后都更新得到的 $w$(另一条轨迹)")),
        Example(THREE, {"w_new": "0.075"}), replace={"w_new": w_micro[K]}, needs=MICRO),
    NamedMistake(
        "w_new_sign", "w_new", WRONG_SIGN,
        Example(THREE, {"w_new": "22/15"}),
        replace={"w_new": sp.Add(w, sp.Mul(eta, g, evaluate=False), evaluate=False)},
        needs=STEP),
    NamedMistake(
        "w_new_mean_of_means", "w_new", (DOCS["w_new_mean_of_means"], "用均值的均值做的更新"),
        Example(THREE, {"w_new": "0.425"}), replace={"w_new": _step(w, mean_of_means_expr())},
        needs=STEP),
    NamedMistake(
        "w_new_sum_of_means", "w_new", (DOCS["w_new_sum_of_means"], "用未除的和做的更新"),
        Example(THREE, {"w_new": "-0.15"}), replace={"w_new": _step(w, sum_of_means_expr())},
        needs=STEP),
    NamedMistake(
        "w_new_divisor", "w_new", (DOCS["w_new_divisor"], "用固定分母的梯度做的更新"),
        Example({**THREE, "divisor": "4"}, {"w_new": "0.7125"}),
        replace={"w_new": _step(w, divisor_expr())}, needs=("divisor", *STEP)),
    # a tail: the planned size inferred from the largest microbatch, the planned count from it
    # (or from a declared divisor); each candidate explained with its numbers
    NamedMistake(
        "tail_divided_by_planned", "gradient",
        (said(r"a tail window divided by its planned count: the gradient sum by the planned "
              r"records ($K \cdot n_{\max}$, or $d \cdot n_{\max}$ with a divisor), or the "
              r"microbatch means' sum by a planned microbatch count $K+1, \ldots, 4K$ (the "
              r"diagnosis names the count)"),
         said(r"尾部窗口仍按计划数除:梯度和除以计划的记录数($K \cdot n_{\max}$,或有 divisor 时 "
              r"$d \cdot n_{\max}$),或微批均值之和除以计划的微批数 $K+1, \ldots, 4K$"
              r"(诊断会指出是多少)")),
        Example(THREE, {"gradient": "3.5"}), candidates=tail_gradients),
    NamedMistake(
        "w_new_tail_divided_by_planned", "w_new",
        (said(r"$w$ after a step on the gradient divided by the planned record count"),
         "用按计划记录数除的梯度做的更新"),
        Example(THREE, {"w_new": "0.65"}), candidates=tail_steps, needs=STEP),
    NamedMistake(
        "tail_divided_by_planned_size", "microbatch_mean_gradients",
        (said(r"a tail microbatch's gradient sum divided by the planned microbatch size "
              r"$n_{\max}$ (the diagnosis names the element)"),
         said(r"尾部微批的梯度和除以了计划的微批大小 $n_{\max}$(诊断会指出是哪一项)")),
        Example(THREE, {"microbatch_mean_gradients": ["2.5", "4.5"]}), candidates=tail_means,
        needs=("microbatches",)),
))


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
    k_ = (len(given["microbatches"]) if has_mb else len(given["microbatch_sizes"])
          if has_sizes else None)
    if has_sizes and has_means and len(given["microbatch_mean_gradients"]) != k_:
        problems.append(("microbatch_mean_gradients",
                         f"has {plural(len(given['microbatch_mean_gradients']), 'value')} for "
                         f"{plural(k_, 'size')}",
                         "give one mean gradient per microbatch"))
    if given.get("tokens") is not None and k_ is not None and len(given["tokens"]) != k_:
        problems.append(("tokens", f"has {plural(len(given['tokens']), 'count')} for "
                         f"{plural(k_, 'microbatch', 'microbatches')}",
                         "give one valid-token count per microbatch"))
    return problems


RECIPE = Recipe(
    name="accumulation",
    title="One update from K microbatches at a fixed w",
    doc=__doc__,
    inputs=(
        Input("w", "number", "w at the start of the window (needed with microbatches)",
              required=False),
        Input("lr", "nonnegative", "the learning rate η (needed for the updates)", required=False),
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
    graph=lambda ctx: graph_of(ctx),
    node_words=NODE_WORDS,
)
