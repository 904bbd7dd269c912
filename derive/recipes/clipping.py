"""`clipping`: clipping the accumulated gradient versus accumulating clipped microbatch
gradients, by norm (`max_norm`, with torch's optional ε) or by value (`clip_value`).

Every quantity is one node of the derivation graph below, over microbatches k = 1…K and, for
vectors, elements j = 1…d (g_{k,j}; several tensors per microbatch are their entries one after
the other, as `torch.nn.utils.clip_grad_norm_` sees them: one norm over all of them). Norm
clipping scales g_k by s_k = c/max(c, ‖g_k‖ + ε), which is torch's clamp(c/(‖g_k‖ + ε), max=1) =
min(1, c/(‖g_k‖ + ε)) written so that a zero gradient needs no division by zero.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import sympy as sp

from derive.graph import Family, Node, family, symbol
from derive.graph.graph import Graph, members
from derive.graph.notation import index
from derive.graph.words import said
from derive.kernel.exact import decimal_str
from derive.model.clipping import entries
from derive.model.objective import weights
from derive.recipes.base import Example, Input, Quantity, Recipe
from derive.recipes.graphed import Graphed, NamedMistake
from derive.wording import plural

k, j = index("k"), index("j")
K = symbol("clip_K", "K", integer=True, positive=True)
d = symbol("clip_d", "d", integer=True, positive=True)
MICRO = Family("microbatches", k, K)
ELEMENTS = Family("elements", j, d)
c = symbol("clip_c", "c", real=True)
eps = symbol("clip_eps", "varepsilon", nonnegative=True)
S = symbol("clip_S", "S", positive=True)
P = symbol("clip_p", "p", positive=True)
w = family("clip_w", "w")
NORM = family("clip_norm_g", "g", norm=True)
SCALE = family("clip_s", "s")
NORM_GBAR = symbol("clip_norm_gbar", "g", accent="bar", norm=True)
SBAR = symbol("clip_sbar", "s", accent="bar")
NORM_GS = symbol("clip_norm_gS", "g", accent="bar", sub="S", norm=True)
SS = symbol("clip_sS", "s", sub="S")
"""The norms and scales, numbers for either shape (declared once, shared by both)."""


class _Symbols:
    """The symbols of one shape: vectors (g_{k,j}, ḡ_j) or numbers (g_k, ḡ)."""

    def __init__(self, vector: bool):
        tag = "" if vector else "_number"

        def vec(name, letter, **kw):  # a vector: a family over j; a number: a scalar symbol
            if vector:
                return family(f"clip_{name}", letter, vector=True, **kw)
            return symbol(f"clip_{name}{tag}", letter, **kw)

        self.vector = vector
        self.g = family(f"clip_g{tag}", "g", vector=vector)
        self.norm = NORM
        self.s = SCALE
        self.clipped = family(f"clip_clipped{tag}", "g", func="clip", vector=vector)
        self.gtilde = vec("gtilde", "g", accent="tilde")
        self.gbar = vec("gbar", "g", accent="bar")
        self.norm_gbar = NORM_GBAR
        self.sbar = SBAR
        self.clip_gbar = vec("clip_gbar", "g", accent="bar", func="clip")
        self.gS = vec("gS", "g", accent="bar", sub="S")
        self.norm_gS = NORM_GS
        self.sS = SS
        self.clip_gS = vec("clip_gS", "g", accent="bar", sub="S", func="clip")
        self.ghat = vec("ghat", "g", accent="hat")

    def at(self, base, member=None):
        """Element j of a vector (of microbatch `member`), or the number itself."""
        if self.vector:
            return base[member, j] if member is not None else base[j]
        return base[member] if member is not None else base

    def norm_of(self, base, member=None, has_p=False, inf_d=None) -> sp.Expr:
        """‖v‖ = sqrt(Σ_j v_j²), or (Σ_j |v_j|^p)^(1/p) for torch's norm_type p, or
        max_j |v_j| for norm_type inf (written over the d entries); |v| for a number."""
        if self.vector:
            if inf_d is not None:
                return sp.Max(*[sp.Abs(base[member, i] if member is not None else base[i])
                                for i in range(1, inf_d + 1)], evaluate=False)
            body = base[member, j] if member is not None else base[j]
            if has_p:
                return sp.Pow(sp.Sum(sp.Pow(sp.Abs(body), P), (j, 1, d)), 1 / P,
                              evaluate=False)
            return sp.sqrt(sp.Sum(body ** 2, (j, 1, d)))
        return sp.Abs(base[member] if member is not None else base)


VECTOR, NUMBER = _Symbols(True), _Symbols(False)


def _coefficient(norm: sp.Expr, has_eps: bool) -> sp.Expr:
    """c/max(c, ‖g‖ + ε): 1 within the threshold, else c/(‖g‖ + ε)."""
    bound = sp.Add(norm, eps, evaluate=False) if has_eps else norm
    return sp.Mul(c, sp.Pow(sp.Max(c, bound), -1, evaluate=False), evaluate=False)


def _by_value(v: sp.Expr) -> sp.Expr:
    """max(−c, min(v, c))."""
    return sp.Max(-c, sp.Min(v, c, evaluate=False), evaluate=False)


def _weighted(sy: _Symbols, base) -> sp.Expr:
    """Σ_k w_k·v_k (element j)."""
    return sp.Sum(sp.Mul(w[k], sy.at(base, k), evaluate=False), (k, 1, K))


@lru_cache(maxsize=None)
def graph(by_norm: bool, vector: bool, has_eps: bool, has_scale: bool,
          has_p: bool = False, inf_d: int | None = None) -> Graph:
    """The graph of one exercise's configuration: norm or value clipping, vectors or numbers,
    with or without ε, with or without a loss scale."""
    sy = VECTOR if vector else NUMBER
    over_j = ELEMENTS if vector else None
    nodes = []
    if by_norm:
        nodes += [Node("microbatch_norms", sy.norm, sy.norm_of(sy.g, k, has_p, inf_d), MICRO),
                  Node("microbatch_coefficients", sy.s, _coefficient(sy.norm[k], has_eps),
                       MICRO),
                  Node("clipped_gradients", sy.clipped,
                       sp.Mul(sy.s[k], sy.at(sy.g, k), evaluate=False), MICRO, over_j)]
    else:
        nodes.append(Node("clipped_gradients", sy.clipped, _by_value(sy.at(sy.g, k)), MICRO,
                          over_j))
    nodes += [Node("clip_then_mean", sy.gtilde, _weighted(sy, sy.clipped), None, over_j),
              Node("mean_gradient", sy.gbar, _weighted(sy, sy.g), None, over_j)]

    def clip_once(name, v, norm, norm_name, s, s_name, out):
        if not by_norm:
            return [Node(name, out, _by_value(sy.at(v)), None, over_j)]
        return [Node(norm_name, norm, sy.norm_of(v, None, has_p, inf_d)),
                Node(s_name, s, _coefficient(norm, has_eps)),
                Node(name, out, sp.Mul(s, sy.at(v), evaluate=False), None, over_j)]

    nodes += clip_once("mean_then_clip", sy.gbar, sy.norm_gbar, "mean_norm", sy.sbar,
                       "mean_coefficient", sy.clip_gbar)
    if has_scale:
        nodes.append(Node("scaled_mean_gradient", sy.gS, sp.Mul(S, sy.at(sy.gbar),
                                                                 evaluate=False), None, over_j))
        nodes += clip_once("clipped_scaled_gradient", sy.gS, sy.norm_gS, "scaled_norm", sy.sS,
                           "scaled_coefficient", sy.clip_gS)
        nodes.append(Node("clip_scaled_then_unscale", sy.ghat,
                          sp.Mul(sy.at(sy.clip_gS), sp.Pow(S, -1, evaluate=False),
                                 evaluate=False), None, over_j))

    def gradient(ctx):
        gs = ctx["gradients"]
        if vector:
            return {(m, n): v for m, g in members(gs).items()
                    for n, v in members(entries(g)).items()}
        return members(gs)

    return Graph(tuple(nodes), {
        "clip_K": lambda ctx: sp.Integer(len(ctx["gradients"])),
        "clip_d": lambda ctx: sp.Integer(len(entries(ctx["gradients"][0]))),
        sy.g.label.name: gradient,
        "clip_w": lambda ctx: members(_weights(ctx)),
        "clip_c": lambda ctx: ctx["max_norm"] if by_norm else ctx["clip_value"],
        "clip_eps": lambda ctx: ctx["eps"],
        "clip_S": lambda ctx: ctx["loss_scale"],
        "clip_p": lambda ctx: ctx["norm_type"],
    })


def _weights(ctx):
    if ctx.has("weights"):
        return list(ctx["weights"])
    return weights([1] * len(ctx["gradients"]))


def _is_vector(ctx) -> bool:
    return isinstance(ctx["gradients"][0], (list, tuple))


def graph_of(ctx) -> Graph:
    by_norm = ctx.has("max_norm")
    p = ctx["norm_type"] if by_norm and ctx.has("norm_type") else 2
    vector = _is_vector(ctx)
    inf_d = len(entries(ctx["gradients"][0])) if p == sp.oo and vector else None
    return graph(by_norm, vector, by_norm and ctx.has("eps"), ctx.has("loss_scale"),
                 p not in (2, sp.oo), inf_d)


def _reshape(flat, template):
    """Entries in the gradients' own nesting (several tensors per microbatch)."""
    it = iter(flat)

    def build(t):
        return [build(x) for x in t] if isinstance(t, (list, tuple)) else next(it)
    return build(template)


def _shaped(ctx, node, value):
    """A node's value in the exercise's shape: a number, a vector or several tensors, per
    microbatch for a family."""
    if node.element is None:
        return value
    template = ctx["gradients"][0]
    if node.over is not None:
        return [_reshape(v, template) for v in value]
    return _reshape(value, template)


GRAPHED = Graphed(graph_of, lambda: (q.name for q in QUANTITIES), shape=_shaped)


def _quantity(name: str, doc: str, words: tuple[str, str], **kw) -> Quantity:
    return Quantity(name, doc, GRAPHED.value(name), words=words, **kw)


SCALED = ("loss_scale",)

QUANTITIES = (
    _quantity("mean_gradient", "the accumulated gradient, unclipped",
              ("The accumulated gradient", "平均梯度")),
    _quantity("clipped_gradients", "each microbatch gradient clipped on its own",
              ("Each microbatch gradient clipped", "各微批裁剪后梯度")),
    _quantity("clip_then_mean", "clip each microbatch gradient, then accumulate",
              ("Clip, then accumulate", "先裁剪再平均"), wrong=True),
    _quantity("mean_then_clip", "accumulate, then clip once: the window's clipping",
              ("Accumulate, then clip", "先平均再裁剪")),
    _quantity("scaled_mean_gradient", "what .grad holds under AMP after accumulation: S·ḡ",
              ("What .grad holds under AMP", "AMP 下 .grad 中的缩放梯度"), needs=SCALED),
    _quantity("clip_scaled_then_unscale", "clip the scaled gradient, then unscale (the order "
              "PyTorch warns against)",
              ("Clip the scaled gradient, then unscale", "先裁剪再反缩放"), wrong=True,
              needs=SCALED),
)
"""The claimable quantities, in derivation order."""

NODE_WORDS = {
    "microbatch_norms": ("Norm of each microbatch gradient", "各微批梯度的范数"),
    "microbatch_coefficients": ("Clipping factor of each microbatch", "各微批的裁剪系数"),
    "mean_norm": ("Norm of the accumulated gradient", "平均梯度的范数"),
    "mean_coefficient": ("Clipping factor of the accumulated gradient",
                         "平均梯度的裁剪系数"),
    "scaled_norm": ("Norm of the scaled gradient", "缩放梯度的范数"),
    "scaled_coefficient": ("Clipping factor of the scaled gradient", "缩放梯度的裁剪系数"),
    "clipped_scaled_gradient": ("The scaled gradient clipped", "裁剪后的缩放梯度"),
}
"""The words of the graph's other nodes, English and Chinese (headings of the working)."""

CLAIMABLE = tuple(q.name for q in QUANTITIES)


def _per_shape(node: str, define) -> Callable:
    """`replace` of a mistake whose definition of `node` is written in the symbols of the
    exercise's shape (`define(symbols)`, vectors or numbers), built once for each shape."""
    by_shape = {vector: {node: define(VECTOR if vector else NUMBER)} for vector in (True, False)}
    return lambda ctx: by_shape[_is_vector(ctx)]


_TWO = {"gradients": ["10", "-8"], "max_norm": "1"}

MISTAKES = GRAPHED.mistakes((
    NamedMistake(
        "clip_then_mean", "mean_then_clip",
        ("clip each microbatch gradient, then accumulate", "先裁剪每个微批梯度,再累积"),
        Example({"gradients": ["10", "-4"], "max_norm": "2"}, {"mean_then_clip": "0"}),
        replace=_per_shape("mean_then_clip", lambda sy: _weighted(sy, sy.clipped))),
    NamedMistake(
        "clip_scaled_then_unscale", "mean_then_clip",
        ("clip the scaled gradient, then unscale (the order PyTorch warns against)",
         "先裁剪缩放后的梯度,再反缩放(PyTorch 要求先 unscale_)"),
        Example({**_TWO, "loss_scale": "1024"}, {"mean_then_clip": "1/1024"}),
        replace=_per_shape("mean_then_clip", lambda sy: sp.Mul(
            sy.at(sy.clip_gS), sp.Pow(S, -1, evaluate=False), evaluate=False)),
        needs=SCALED),
    NamedMistake(
        "mean_then_clip_without_eps", "mean_then_clip",
        (said(r"the accumulated gradient clipped without $\varepsilon$: $c/\lVert\bar{g}\rVert$ "
              r"where torch divides by $\lVert\bar{g}\rVert + \varepsilon$"),
         said(r"裁剪平均梯度时漏了 $\varepsilon$:torch 除以 $\lVert\bar{g}\rVert + \varepsilon$,"
              r"而不是 $\lVert\bar{g}\rVert$")),
        Example({**_TWO, "eps": "1e-6"}, {"mean_then_clip": "1"}),
        replace=_per_shape("mean_coefficient", lambda sy: _coefficient(sy.norm_gbar, False)),
        needs=("max_norm", "eps")),
    NamedMistake(
        "mean_gradient_equal_weights", "mean_gradient",
        (said(r"the plain mean $(1/K) \cdot \sum_k g_k$, not the weighted sum "
              r"$\sum_k w_k \cdot g_k$"),
         said(r"用了等权平均 $(1/K) \cdot \sum_k g_k$,而不是加权和 $\sum_k w_k \cdot g_k$")),
        Example({"gradients": ["1", "3"], "weights": ["0.25", "0.75"], "max_norm": "5"},
                {"mean_gradient": "2"}),
        replace=_per_shape("mean_gradient", lambda sy: sp.Sum(sy.at(sy.g, k), (k, 1, K)) / K),
        needs=("weights",)),
))
"""The known mistakes, in the order the diagnosis tries them for each target."""


def _shape(g):
    return tuple(_shape(x) for x in g) if isinstance(g, list) else None


def _flat(g) -> list:
    return [x for v in g for x in _flat(v)] if isinstance(g, list) else [g]


def _zero_norm(gs, ws) -> str | None:
    """Which gradient a norm clipping divides by 0 with c ≤ 0 and no ε: a microbatch gradient
    that is 0, or their (weighted) mean; None when every norm is positive."""
    flat = [_flat(g) for g in gs]
    for k, g in enumerate(flat, 1):
        if all(x == 0 for x in g):
            return f"microbatch gradient {k}"
    if flat and len({len(g) for g in flat}) == 1:
        w = list(ws) if ws is not None and len(ws) == len(flat) else [1] * len(flat)
        if all(sp.Add(*[wk * g[j] for wk, g in zip(w, flat)]) == 0 for j in range(len(flat[0]))):
            return "the mean gradient"
    return None


def check(given):
    problems = []
    has_norm, has_value = given.get("max_norm") is not None, given.get("clip_value") is not None
    if has_norm == has_value:
        problems.append(("max_norm", "is given together with clip_value" if has_norm else
                         "is missing, and so is clip_value",
                         "give exactly one: max_norm (norm clipping) or clip_value"))
    if given.get("eps") is not None and not has_norm:
        problems.append(("eps", "only applies to norm clipping", "give max_norm, or drop eps"))
    if given.get("norm_type") is not None and not has_norm:
        problems.append(("norm_type", "only applies to norm clipping",
                         "give max_norm, or drop norm_type"))
    gs = given.get("gradients") or []
    c_norm = given.get("max_norm")
    if has_norm and c_norm <= 0 and not (given.get("eps") or 0) > 0:
        zero = _zero_norm(gs, given.get("weights"))
        if zero is not None:
            problems.append(("max_norm", f"is {decimal_str(c_norm)} without a positive eps, and "
                             f"{zero} is 0: c/max(c, ‖g‖) divides by 0 there, where torch "
                             "divides by ‖g‖ + 1e-6",
                             "give eps = 1e-6, as torch does, or a positive max_norm"))
    if len({_shape(g) for g in gs}) > 1:
        problems.append(("gradients", "mixes shapes (numbers, vectors or tensors of different "
                         "lengths)", "give every microbatch gradient the same shape"))
    ws = given.get("weights")
    if ws is not None:
        if len(ws) != len(gs):
            problems.append(("weights", f"has {plural(len(ws), 'weight')} for "
                             f"{plural(len(gs), 'gradient')}",
                             "give one weight per gradient"))
        elif sp.Add(*ws) != 1:
            problems.append(("weights", f"add up to {decimal_str(sp.Add(*ws))}",
                             "weights that add up to 1"))
    return problems


RECIPE = Recipe(
    name="clipping",
    title="Clipping the accumulated gradient versus accumulating clipped gradients",
    doc=__doc__,
    inputs=(
        Input("gradients", "gradients", "g_k: numbers, or vectors as lists of equal length"),
        Input("max_norm", "number", "norm clipping threshold c (0 or negative as torch takes "
              "them; without eps no gradient may be 0)", required=False),
        Input("clip_value", "nonnegative", "value clipping threshold c", required=False),
        Input("weights", "nonnegatives", "w_k (default: equal, 1/K), adding up to 1",
              required=False),
        Input("eps", "nonnegative", "ε added to the norm (torch's clip_grad_norm_ uses 1e-6; "
              "default 0)", required=False),
        Input("norm_type", "norm_type", "torch's norm_type p for max_norm: the norm "
              "(Σ|g|^p)^(1/p), or max|g| for \"inf\" (default 2)", required=False),
        Input("loss_scale", "positive", "AMP's loss scale S: adds what .grad holds (S·ḡ) and "
              "the wrong order clip-then-unscale", required=False),
    ),
    quantities=QUANTITIES,
    mistakes=MISTAKES,
    check=check,
    graph=graph_of,
    node_words=NODE_WORDS,
)
