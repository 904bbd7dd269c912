"""`optimizer_steps`: several updates, exactly as torch.optim computes them (every optimizer of
the registry in derive/optimizers, with every option torch takes), on the same batch or on a
batch of its own at each step (`batches`), from a fresh optimizer or resumed from a saved
state (`state`: the per-parameter tensors of torch's state_dict and its step count).

The steps t = 1…T are a recurrent family of the derivation graph: g_t is the batch-mean
gradient at (w_{t−1}, b_{t−1}) by backward (`sympy.diff` through the prediction, as in
`sgd_step`); the optimizer's state (the momentum buffer u_t, Adam's m_t and v_t, …) carries
over from step to step, starting from w_0 = w, b_0 = b and a fresh or saved state. Each
optimizer configuration is its own graph, so each formula shows only the terms that apply; the
order of operations is torch's (each optimizer's module, read from `_single_tensor_*`).

w may be a vector of d entries, each record's x one too (ŷ_i = w·x_i + b): every optimizer
updates element-wise, so each entry w_{t,j} is moved by the same rule with its own state, and
a quantity of w is a row of d entries per step.
"""

from __future__ import annotations

from derive.graph.evaluate import Undefined
from derive.optimizers import REGISTRY, slots
from derive.optimizers.chain import DECAYED_WORDS
from derive.recipes import sgd_step as sgd
from derive.recipes.base import Input, Quantity, QuantityUndefined, Recipe
from derive.recipes.optimizer_steps.graph import (
    GRAPHED,
    config,
    graph,
    graph_of,
    optimizer,
    saved_state,
)
from derive.recipes.optimizer_steps.inputs import MAX_SAVED_STEP, MAX_STEPS, check, state_keys
from derive.recipes.optimizer_steps.mistakes import mistakes, variants

__all__ = ["RECIPE", "config", "graph", "graph_of", "variants", "check", "state_keys",
           "MAX_STEPS", "MAX_SAVED_STEP"]


def _value(name: str):
    """A quantity's value; where a value does not exist (eps = 0 with a zero denominator,
    which torch accepts and answers with nan or ±inf; the root of a negative number) the
    exercise has no exact values to check, and the optimizer's module says which input to
    blame."""
    compute = GRAPHED.value(name)

    def value(ctx):
        try:
            return compute(ctx)
        except (ZeroDivisionError, Undefined) as exc:
            opt = optimizer(ctx)
            if opt.spec.undefined is None:
                raise
            key, reason, expected = opt.spec.undefined(opt, saved_state(ctx), exc)
            raise QuantityUndefined(name, reason, expected=expected, key=key) from None
    return value


def _slot_in_use(slot):
    def when(given) -> bool:
        opt = given.get("optimizer")
        return (opt is not None and any(s is slot for s in opt.spec.slots)
                and slot.used(opt))
    keepers = [n for n, spec in REGISTRY.items() if any(s is slot for s in spec.slots)]
    names = " or ".join(f'"{n}"' for n in keepers)
    text = f"optimizer = {{ name = {names} }}" + (f" {slot.used_text}" if slot.used_text else "")
    return when, text


def _state_quantities() -> list[Quantity]:
    """Each registered optimizer's claimable state, w's (and b's where it is claimable)."""
    out = []
    for slot in slots():
        when, text = _slot_in_use(slot)
        for chain in slot.claimable:
            b = chain == "b"
            name = ("b_" if b else "") + slot.node
            out.append(Quantity(name, slot.b_doc if b else slot.doc, _value(name),
                                needs=("b",) if b else (), when=when, when_text=text,
                                words=slot.b_words if b else slot.words,
                                header=f"{slot.header} (b)" if b else slot.header))
    return out


def _quantity(name, doc, words, header="", needs=()):
    return Quantity(name, doc, _value(name), needs=needs, words=words, header=header)


QUANTITIES = (
    _quantity("gradient_steps", "∂L/∂w at each step's starting point (w_{t−1}, b_{t−1})",
              ("Gradient at each step's start, by backward", "各步梯度(反向传播)"), "g_t"),
    _quantity("b_gradient_steps", "∂L/∂b at each step's starting point",
              ("Gradient with respect to b at each step's start", "各步偏置梯度"), "∂L/∂b",
              needs=("b",)),
    *_state_quantities(),
    _quantity("w_steps", "w after each step", ("The weight after each step", "各步权重"), "w_t"),
    _quantity("b_steps", "b after each step", ("The bias after each step", "各步偏置"), "b_t",
              needs=("b",)),
    _quantity("loss_steps", "the loss of each step's batch after the step, at (w_t, b_t)",
              ("Batch loss after each step", "各步之后的批损失"), "L_t"),
)
"""In derivation order, which the diagnosis follows: the gradients, then the optimizer state,
then the parameters that state moves, then the loss after them."""


def _node_words() -> dict[str, tuple[str, str]]:
    """Words of the nodes that are not quantities: each state slot's that cannot be claimed
    (w's and b's), and each optimizer's other nodes (m̂_t, Nesterov's direction, …)."""
    claimable = {q.name for q in QUANTITIES}
    out = {}
    for slot in slots():
        out.setdefault(slot.node, slot.words)
        out.setdefault("b_" + slot.node, slot.b_words)
    for spec in REGISTRY.values():
        for name, words in spec.words.items():
            out.setdefault(name, words)
    out.update(DECAYED_WORDS)
    return {name: words for name, words in out.items() if name not in claimable}


_OPTIONS = "; ".join(f"{n}: {', '.join(o.name for o in spec.options)}"
                     for n, spec in REGISTRY.items())


def _saved_keys(spec) -> str:
    """`{ step, m, v, v_max (amsgrad) } for adam`: the keys of a saved state, from the slots."""
    keys = (["step"] if spec.keeps_step else []) + [
        s.key + (f" ({s.used_text})" if s.used_text else "") for s in spec.slots]
    return f"{{ {', '.join(keys)} }} for {spec.name}"


_STATES = "; ".join(_saved_keys(spec) for spec in REGISTRY.values())

RECIPE = Recipe(
    name="optimizer_steps",
    title="Several torch.optim updates, fresh or resumed",
    doc=__doc__,
    inputs=(
        *(Input(i.name, "vector_records", "the batch of every step: a list of [x, y] pairs, "
                "x a vector [x1, …, xd] when w is one (or give batches)", required=False)
          if i.name == "records" else
          Input(i.name, "parameter", "the weight before the first step: a number, or a "
                "vector [w1, …, wd] of 1 to 8 entries (ŷ = w·x + b)") if i.name == "w" else i
          for i in sgd.MODEL_INPUTS),
        Input("steps", "count", "how many steps (default 1; with batches, one per batch)",
              required=False),
        Input("batches", "vector_batches", "a batch of its own for each step, in place of "
              "records: a list of lists of [x, y] pairs, steps = how many", required=False),
        Input("optimizer", "optimizer", f"{{ name = {' | '.join(map(repr, REGISTRY))}, "
              f"options }} with torch's option names ({_OPTIONS}); what is left out takes "
              "PyTorch's default", required=False),
        Input("state", "optimizer_state", "the saved optimizer state the run resumes from "
              "(torch's optimizer.state_dict()): its step and each parameter's state tensors "
              f"(of b: b_…; of a vector w, lists of d): {_STATES}; left out, a fresh "
              "optimizer", required=False),
    ),
    quantities=QUANTITIES,
    mistakes=mistakes(tuple(q.name for q in QUANTITIES)),
    check=check,
    graph=graph_of,
    node_words=_node_words(),
    members_shown=1,
)
