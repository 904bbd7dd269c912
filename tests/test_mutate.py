"""Mutations of a derivation graph (derive/graph/mutate.py) as the diagnosis of any derivation.

Graphs are built here by hand, as an author's `formulas` exercise would define them. Each
mutation class is checked the same way: a claim computed by a hand-written Fraction reference
of the mistaken computation (never by derive) is diagnosed, through
derive/exercises/diagnosis.py, by that mutation's name."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from planted import planted

from derive.exercises.claims import Claim
from derive.exercises.diagnosis import diagnose
from derive.graph import Family, Node
from derive.graph.graph import Graph, members
from derive.graph.language import evaluated
from derive.graph.mutate import MAX_MUTATIONS, mutations, mutations_of
from derive.recipes import sgd_step
from derive.recipes.base import Context, Input, Quantity, Recipe
from derive.recipes.graphed import Graphed, as_computed, mutation_mistakes, one_member_a_number

R = sp.Rational
i, k, t = sp.Symbol("i", integer=True), sp.Symbol("k", integer=True), sp.Symbol("t", integer=True)
N = sp.Symbol("N", integer=True, positive=True)
T = sp.Symbol("T_steps", integer=True, positive=True)
RECORDS, STEPS = Family("records", i, N), Family("steps", t, T)
w, b = sp.Symbol("w"), sp.Symbol("b")
eta = sp.Symbol("eta", positive=True)
x, y = sp.IndexedBase("x"), sp.IndexedBase("y")
yhat, ell, gw = sp.IndexedBase("yhat"), sp.IndexedBase("ell"), sp.IndexedBase("g_w")
L, S, g, w1 = sp.Symbol("L"), sp.Symbol("S"), sp.Symbol("g"), sp.Symbol("w_new")


def _mean(e):
    return sp.Sum(e, (i, 1, N)) / N


def _inputs(extra=None):
    recs = lambda c: c["records"]  # noqa: E731
    out = {"w": lambda c: c["w"], "b": lambda c: c["b"], "eta": lambda c: c["lr"],
           "N": lambda c: sp.Integer(len(recs(c))),
           "x": lambda c: members([r[0] for r in recs(c)]),
           "y": lambda c: members([r[1] for r in recs(c)])}
    out.update(extra or {})
    return out


# the lesson's squared loss with ½ and a bias, an L2 term w²/10 in the loss (its gradient w/5)
LESSON = Graph((
    Node("prediction", yhat, w * x[i] + b, RECORDS),
    Node("record_loss", ell, R(1, 2) * (yhat[i] - y[i]) ** 2, RECORDS),
    Node("loss", L, _mean(ell[i]) + R(1, 10) * w ** 2),
    Node("loss_total", S, sp.Sum(ell[i], (i, 1, N))),
    Node("record_gradient", gw, (yhat[i] - y[i]) * x[i], RECORDS),
    Node("gradient", g, _mean(gw[i]) + R(1, 5) * w),
    Node("w_new", w1, w - eta * g),
), _inputs())
LESSON_CLAIMABLE = ("prediction", "loss", "loss_total", "gradient", "w_new")

# three SGD steps on the same batch: w_t = w_{t−1} − η·g_t, g_t at w_{t−1}, w_0 = w
W, G, LT, LS = (sp.IndexedBase(n) for n in ("W", "G", "L_t", "L_s"))
SGD3 = Graph((
    Node("gradient_steps", G, _mean((W[t - 1] * x[i] - y[i]) * x[i]), STEPS),
    Node("w_steps", W, W[t - 1] - eta * G[t], STEPS, start=w),
    Node("loss_steps", LT, _mean(R(1, 2) * (W[t] * x[i] - y[i]) ** 2), STEPS),
    Node("loss_start", LS, _mean(R(1, 2) * (W[t - 1] * x[i] - y[i]) ** 2), STEPS),
), _inputs({"T_steps": lambda c: sp.Integer(c["steps"])}))
SGD3_CLAIMABLE = ("gradient_steps", "w_steps", "loss_steps", "loss_start")


def _recipe(graph: Graph, claimable, shape=as_computed) -> Recipe:
    graphed = Graphed(lambda ctx: graph, claimable, shape)
    inputs = tuple(Input(n, "number", n, required=False)
                   for n in ("w", "b", "lr", "records", "steps"))
    return Recipe(name="by_hand", title="", doc="", inputs=inputs,
                  quantities=tuple(Quantity(n, n, graphed.value(n)) for n in claimable),
                  mistakes=mutation_mistakes(graphed, graph, claimable),
                  graph=lambda ctx: graph)


def _claim(v):
    if isinstance(v, list):
        return Claim([_claim(e) for e in v], "[…]")
    v = sp.Rational(v.numerator, v.denominator)
    return Claim(v, str(v))


def _sym(v):
    return [_sym(e) for e in v] if isinstance(v, list) else sp.Rational(v.numerator,
                                                                        v.denominator)


def _diagnosis(recipe: Recipe, given_: dict, name: str, claimed):
    expected = recipe.evaluate(given_)
    return diagnose(recipe, given_, {name: _claim(claimed)}, [name], expected)[name]


# ---- the lesson's graph: a hand-written Fraction reference, mistakes as keyword switches ----

W0, B0, LR = F(1), F(1, 2), F(1, 10)
RECS = [(F(2), F(4)), (F(-1), F(3)), (F(3), F(1))]
LESSON_GIVEN = {"w": sp.Integer(1), "b": R(1, 2), "lr": R(1, 10), "steps": None,
                "records": [[sp.Integer(a), sp.Integer(c)] for a, c in ((2, 4), (-1, 3), (3, 1))]}


def lesson(half=F(1, 2), l2=F(1, 10), bias=True, swap_wb=False, swap_xy=False,
           chain_x=True, sum_not_mean=False, sign=1, step_sign=-1, doubled=1):
    """Every quantity of LESSON by hand, with a mistake switched on where asked."""
    n = len(RECS)
    pw, pb = (B0, W0) if swap_wb else (W0, B0)
    pred = [pw * a + (pb if bias else 0) for a, _ in RECS]
    losses = [half * (p - c) ** 2 for p, (_, c) in zip(pred, RECS)]
    loss = sum(losses) / n + l2 * W0 ** 2
    grads = []
    for p, (a, c) in zip(pred, RECS):
        if swap_xy:
            a, c = c, a
        grads.append((p - c) * (a if chain_x else 1))
    grad = doubled * sign * ((sum(grads) if sum_not_mean else sum(grads) / n) + 2 * l2 * W0)
    return {"prediction": pred, "loss": loss, "loss_total": sum(losses), "gradient": grad,
            "w_new": W0 + step_sign * LR * grad}


LESSON_RECIPE = _recipe(LESSON, LESSON_CLAIMABLE)


def test_lesson_values_match_the_reference():
    got = LESSON_RECIPE.evaluate(LESSON_GIVEN)
    want = lesson()
    assert {k: got[k] for k in want} == {k: _sym(v) for k, v in want.items()}


LESSON_CASES = [  # (quantity, the mistaken value by hand, the mutation's name)
    ("loss", lesson(half=F(1))["loss"], "record_loss_constant_dropped"),
    ("loss", lesson(l2=F(0))["loss"] + W0 ** 2, "loss_constant_dropped"),
    ("loss", lesson(l2=F(1, 5))["loss"], "loss_constant_doubled"),
    ("gradient", -lesson()["gradient"], "gradient_sign"),
    ("gradient", lesson(sum_not_mean=True)["gradient"], "gradient_sum_for_mean"),
    ("loss_total", lesson()["loss_total"] / 3, "loss_total_mean_for_sum"),
    ("gradient", lesson(swap_xy=True)["gradient"], "record_gradient_swapped_x_y"),
    ("gradient", lesson(swap_wb=True)["gradient"], "prediction_swapped_b_w"),
    ("w_new", lesson(step_sign=1)["w_new"], "w_new_term_sign"),
    ("gradient", lesson(bias=False)["gradient"], "prediction_term_dropped_b"),
    ("w_new", lesson(bias=False)["w_new"], "prediction_term_dropped_b"),
    ("gradient", lesson(chain_x=False)["gradient"], "record_gradient_factor_dropped_x"),
    ("gradient", 2 * lesson()["gradient"], "gradient_doubled"),
]


@pytest.mark.parametrize("name,claimed,mistake", LESSON_CASES,
                         ids=[f"{m}-{n}" for n, _, m in LESSON_CASES])
def test_lesson_mutation_diagnosed(name, claimed, mistake):
    d = _diagnosis(LESSON_RECIPE, LESSON_GIVEN, name, claimed)
    fit = planted(d, mistake)  # named, tied or (a generic edit alone) offered
    quantity = max((n for n in LESSON.by_name if mistake.startswith(n + "_")), key=len)
    assert fit.en.startswith(f"{quantity}: ")
    assert fit.zh.startswith(f"{quantity}:") and fit.zh != fit.en


def test_explanations_name_mutation_and_quantity():
    d = _diagnosis(LESSON_RECIPE, LESSON_GIVEN, "loss", lesson(half=F(1))["loss"])
    fit = planted(d, "record_loss_constant_dropped")
    assert fit.en == "record_loss: the constant factor 1/2 dropped"
    assert fit.zh == "record_loss:漏掉了常数因子 1/2"
    d = _diagnosis(LESSON_RECIPE, LESSON_GIVEN, "gradient", lesson(bias=False)["gradient"])
    fit = planted(d, "prediction_term_dropped_b")
    assert (fit.en, fit.zh) == ("prediction: the term b dropped", "prediction:漏掉了项 b")
    d = _diagnosis(LESSON_RECIPE, LESSON_GIVEN, "gradient", lesson(chain_x=False)["gradient"])
    assert planted(d, "record_gradient_factor_dropped_x").en.startswith(
        "record_gradient: the factor x_i dropped")


def test_a_mean_over_a_known_count_is_a_mean():
    """Σ_{i=1}^{3} g_i / 3 is Σ·(1/3) in SymPy: its 1/3 is the mean's, not a constant."""
    graph = Graph((Node("record_gradient", gw, (yhat[i] - y[i]) * x[i], RECORDS),
                   Node("gradient", g, sp.Sum(gw[i], (i, 1, 3)) / 3)),
                  _inputs({"yhat": lambda c: members([1, 2, 3])}))
    ms = {v.name: v for v in mutations(graph, "gradient")}
    assert _new(ms.values(), "gradient_sum_for_mean") == sp.Sum(gw[i], (i, 1, 3))
    assert "gradient_constant_dropped" not in ms
    assert _new(ms.values(), "gradient_constant_doubled") == 2 * sp.Sum(gw[i], (i, 1, 3)) / 3


def test_chinese_in_documents():
    """A document in Chinese shows the mutation's own Chinese (derive/render/labels.py)."""
    from derive.render.labels import explanation
    d = _diagnosis(LESSON_RECIPE, LESSON_GIVEN, "gradient", lesson(swap_xy=True)["gradient"])
    planted(d, "record_gradient_swapped_x_y")  # a tie of three generic edits here
    assert explanation(d, "zh").startswith("3 个已知错误都给出这个值,因此不指明其中之一:"
                                           "record_gradient_swapped_x_y(record_gradient:"
                                           "x_i 与 y_i 互换了)、")
    assert explanation(d, "en").startswith("3 known mistakes give this value, so none is named: "
                                           "record_gradient_swapped_x_y (record_gradient: "
                                           "x_i and y_i swapped), ")


def test_no_mutation_gives_an_arbitrary_value():
    d = _diagnosis(LESSON_RECIPE, LESSON_GIVEN, "gradient", F(12345, 7))
    assert d.mistake is None and d.explanation.startswith("no known mistake")


# ---- three SGD steps: the previous step's value, and the current one ----

SGD3_GIVEN = {"w": sp.Integer(1), "b": None, "lr": R(1, 10), "steps": 3,
              "records": [[sp.Integer(1), sp.Integer(2)], [sp.Integer(2), sp.Integer(3)]]}
SGD3_RECS = [(F(1), F(2)), (F(2), F(3))]


def sgd3():
    """w_0 … w_3 by hand, and the batch loss at each."""
    ws = [F(1)]
    for _ in range(3):
        grad = sum((ws[-1] * a - c) * a for a, c in SGD3_RECS) / 2
        ws.append(ws[-1] - F(1, 10) * grad)
    loss = [sum(F(1, 2) * (v * a - c) ** 2 for a, c in SGD3_RECS) / 2 for v in ws]
    return ws, loss


SGD3_RECIPE = _recipe(SGD3, SGD3_CLAIMABLE)


def test_sgd3_values_match_the_reference():
    ws, loss = sgd3()
    got = SGD3_RECIPE.evaluate(SGD3_GIVEN)
    assert got["w_steps"] == _sym(ws[1:])
    assert got["loss_steps"] == _sym(loss[1:]) and got["loss_start"] == _sym(loss[:3])


def test_previous_step_diagnosed():
    ws, loss = sgd3()
    d = _diagnosis(SGD3_RECIPE, SGD3_GIVEN, "loss_steps", loss[:3])  # the loss at w_{t−1}
    fit = planted(d, "loss_steps_previous_step_W")
    assert fit.en == "loss_steps: the previous step's W_(t − 1) for W_t"
    d = _diagnosis(SGD3_RECIPE, SGD3_GIVEN, "loss_start", loss[1:])  # the loss at w_t
    fit = planted(d, "loss_start_current_step_W_prev")
    assert fit.zh == "loss_start:用了当前步的 W_t 而不是 W_(t − 1)"


def test_no_step_mutation_makes_a_cycle():
    """w_t read as w_t in its own definition, or g_t read at w_t, would read what is being
    computed: never offered; g_{t−1} does not exist at t = 1 (g has no start): never offered."""
    names = {v.name for target in SGD3_CLAIMABLE for v in mutations(SGD3, target)}
    assert not any("_current_step" in n for n in names if n.startswith(("w_steps", "gradient")))
    assert not any(n.startswith("w_steps_previous_step_G") for n in names)


# ---- the built-in sgd_step graphs, ½ and not, with the mutation mistakes ----

def _sgd_given(records):
    return {"w": sp.Integer(2), "lr": R(1, 10), "b": None, "loss": None, "steps": None,
            "records": [[sp.Integer(a), sp.Integer(c)] for a, c in records]}


@pytest.mark.parametrize("convention,name,claimed,mistake", [
    ("half", "loss", F(1), "record_loss_constant_dropped"),   # (6 − 5)² for (6 − 5)²/2
    ("half", "gradient", F(6), "gradient_doubled"),           # MSELoss's 2·(ŷ − y)·x
    ("squared", "loss", F(1, 2), "record_loss_halved"),       # the ½ added to (ŷ − y)²
])
def test_sgd_step_graph_conventions(convention, name, claimed, mistake):
    """The record (3, 5) at w = 2: ŷ = 6, ℓ = (6 − 5)²/2, ∂ℓ/∂w = (6 − 5)·3 = 3."""
    graph = sgd_step.graph(False, convention)
    recipe = _recipe(graph, ("prediction", "loss", "gradient", "w_new"),
                     one_member_a_number)
    planted(_diagnosis(recipe, _sgd_given([(3, 5)]), name, claimed), mistake)


# ---- logistic regression with binary cross-entropy: structure (exp is not evaluated yet) ----

z, p = sp.IndexedBase("z"), sp.IndexedBase("p")
BCE_LOSS = -(y[i] * sp.log(p[i]) + (1 - y[i]) * sp.log(1 - p[i]))
BCE = Graph((
    Node("logit", z, w * x[i] + b, RECORDS),
    Node("probability", p, 1 / (1 + sp.exp(-z[i])), RECORDS),
    Node("record_loss", ell, BCE_LOSS, RECORDS),
    Node("loss", L, _mean(ell[i])),
    Node("record_gradient", gw, (p[i] - y[i]) * x[i], RECORDS),
    Node("gradient", g, _mean(gw[i])),
), _inputs())


def _new(variants, name):
    (v,) = [v for v in variants if v.name == name]
    (e,) = v.replace.values()
    return e


def test_bce_mutations():
    ms = mutations(BCE, "gradient")
    assert _new(ms, "record_gradient_factor_dropped_x") == p[i] - y[i]
    assert _new(ms, "logit_term_dropped_b") == w * x[i]
    assert _new(ms, "gradient_sum_for_mean") == sp.Sum(gw[i], (i, 1, N))
    assert _new(ms, "record_gradient_sign") == -((p[i] - y[i]) * x[i])
    assert _new(ms, "logit_swapped_b_w") == b * x[i] + w
    loss = mutations(BCE, "loss")
    assert _new(loss, "record_loss_sign") == -evaluated(BCE_LOSS)
    assert _new(loss, "probability_term_dropped") == 1 / sp.exp(-z[i])  # the 1 of 1 + e^−z
    assert {"record_loss_term_dropped", "record_loss_term_dropped_2"} <= {v.name for v in loss}


def test_bce_diff_gradient_mutations():
    """The gradient as sympy.diff gives it (a plain expression in w): every mutation is new."""
    zi = w * x[i] + b
    pi = 1 / (1 + sp.exp(-zi))
    grad = sp.diff(-(y[i] * sp.log(pi) + (1 - y[i]) * sp.log(1 - pi)), w)
    graph = Graph((Node("record_gradient", gw, grad, RECORDS), Node("gradient", g,
                                                                     _mean(gw[i]))), _inputs())
    _check_all(graph, "gradient")


# ---- order, bounds and general properties ----

def test_order_nearness_then_kind():
    """Edits of what is written, the target's node first and then upstream (nearest first),
    each node's by kind; the scale guesses ×2 and ×½ after them all."""
    names = [v.name for v in mutations(LESSON, "gradient")]
    assert names[:4] == ["gradient_constant_dropped", "gradient_constant_doubled",
                         "gradient_sign", "gradient_sum_for_mean"]
    assert names.index("gradient_term_dropped") < names.index("record_gradient_sign")
    assert names.index("record_gradient_factor_dropped_x") < names.index("prediction_sign")
    assert names[-2:] == ["gradient_doubled", "record_gradient_doubled"] or \
        names[-3:-1] == ["gradient_doubled", "record_gradient_doubled"]
    w_new = [v.name for v in mutations(LESSON, "w_new")]
    assert w_new.index("w_new_term_sign") < w_new.index("gradient_sign")


def test_names_are_the_same_for_every_target():
    """A mutation of prediction is one name whichever quantity it is tried for."""
    for name in ("prediction_term_dropped_b", "prediction_swapped_b_w"):
        exprs = {str(_new(mutations(LESSON, t), name)) for t in ("gradient", "w_new", "loss")}
        assert len(exprs) == 1


def test_bounded():
    """At most MAX_MUTATIONS per target however large the definitions, or `limit`."""
    big = [sp.Add(*[sp.Rational(j + 2, j + 3) * v * x[i] ** (j + 1) for j in range(80)])
           for v in (w, b)]
    graph = Graph((Node("q", gw, big[0], RECORDS), Node("r", ell, big[1] + gw[i], RECORDS),
                   Node("s", g, _mean(ell[i]) + big[0].subs(x[i], w))), _inputs())
    assert len(mutations(graph, "s")) == MAX_MUTATIONS
    assert len(mutations(graph, "s", limit=7)) == 7
    assert len(mutations(graph, "q")) <= MAX_MUTATIONS


def _check_all(graph: Graph, target: str):
    ms = mutations(graph, target)
    names = [v.name for v in ms]
    assert len(names) == len(set(names))
    by_node: dict[str, set] = {}
    for v in ms:
        assert v.target == target
        ((node, e),) = v.replace.items()
        original = evaluated(graph.by_name[node].expr)
        assert e != original
        assert e not in by_node.setdefault(node, set())
        by_node[node].add(e)
        assert v.en.startswith(f"{node}: ") and v.zh.startswith(f"{node}:")
    return ms


LEAVES = st.sampled_from([w, b, x[i], y[i], sp.Integer(2), R(1, 2), R(-3, 4),
                          sp.Sum(x[k] * y[k], (k, 1, N)) / N, sp.Sum(y[k], (k, 1, N))])


def _trees():
    return st.recursive(LEAVES, lambda kids: st.one_of(
        st.tuples(kids, kids).map(lambda a: a[0] + a[1]),
        st.tuples(kids, kids).map(lambda a: a[0] * a[1]),
        st.tuples(kids, kids).map(lambda a: a[0] - a[1]),
        kids.map(lambda a: a ** 2),
        kids.map(lambda a: -a),
        kids.map(lambda a: sp.Abs(a)),
        st.tuples(kids, kids).map(lambda a: sp.Max(a[0], a[1]))), max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(_trees())
def test_random_trees(expr):
    """Every mutation of a random small tree differs from the original and from the other
    mutations of the node, and none raises."""
    graph = Graph((Node("q", gw, expr, RECORDS), Node("r", g, _mean(gw[i]) + w)), _inputs())
    _check_all(graph, "q")
    _check_all(graph, "r")


RANDOM_GIVEN = {"w": R(1, 2), "b": sp.Integer(-2), "lr": R(1, 10), "steps": None,
                "records": [[sp.Integer(1), sp.Integer(2)], [sp.Integer(3), sp.Integer(-1)]]}


@settings(max_examples=60, deadline=None)
@given(_trees())
def test_random_tree_mistakes_evaluate(expr):
    """Every mutation of a random tree, as a recipe's mistake, computes an exact value or fails
    only in the ways the diagnosis skips (a division by zero); never a float."""
    graph = Graph((Node("q", gw, expr, RECORDS), Node("r", g, _mean(gw[i]) + w)), _inputs())
    recipe = _recipe(graph, ("q", "r"))
    ctx = Context(recipe, RANDOM_GIVEN)
    for m in recipe.mistakes:
        try:
            v = m.compute(ctx)
        except ZeroDivisionError:
            continue
        for e in (v if isinstance(v, list) else [v]):
            assert isinstance(e, sp.Basic) and e.is_number and not e.has(sp.Float)


def _built_in_graphs(tmp_path):
    """The graph of every built-in recipe's mistake example (each configuration once)."""
    from test_graph import MISTAKES, _toml

    from derive.exercises.bank import load_file
    seen = {}
    for n, (recipe, m) in enumerate(MISTAKES):
        path = tmp_path / f"e{n}.toml"
        path.write_text(_toml(recipe, m.example), encoding="utf-8")
        ex = load_file(path)[0]
        graph = ex.recipe.graph(Context(ex.recipe, ex.given))
        seen.setdefault(id(graph), graph)
    return list(seen.values())


def test_every_built_in_graph(tmp_path):
    """Mutations of every node of every built-in graph (sums, cases, recurrences, vectors):
    none raises, each target's are bounded and uniquely named."""
    graphs = _built_in_graphs(tmp_path)
    assert len(graphs) >= 10
    for graph in graphs:
        for target, variants in mutations_of(graph, [n.name for n in graph.nodes]).items():
            assert len(variants) <= MAX_MUTATIONS
            assert len({v.name for v in variants}) == len(variants), target
