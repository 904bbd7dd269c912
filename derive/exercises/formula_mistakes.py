"""Named mistakes of a wrong formula answer: the mutations of the quantity's right formula
(derive.graph.mutate: a constant factor such as ½ or 2 dropped, the sign flipped, a mean taken
as a sum, a term dropped, a chain-rule factor dropped, …), the first one the kernel proves
equal to the claim named.

Equality is decided exactly, with the exercise's real inputs (w, η, x_i, y_i) left as symbols,
so a mutation is named only when it is the claim as a function: no numerical coincidence
names one. A per-step claim (`mhat = m_t`) is compared with the mutations of the quantity's own
definition, each written in one step (members of step t − 1 free) at the exercise's steps."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import sympy as sp

from derive.exercises.formula_steps import StepForm, step_quantity
from derive.exercises.formulas import MAX_MEMBERS, FormulaAnswer, _at_member, _same
from derive.graph.graph import Graph
from derive.graph.mutate import mutations
from derive.graph.symbolic import NoForm, Specialiser, TooLarge, symbolic_form
from derive.kernel import intervals
from derive.kernel.decide import decide
from derive.kernel.definedness import domain_fact
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.recipes.base import Context, Recipe

MUTATION_SECONDS = 3.0
"""The most time spent looking for the mutation a wrong formula answer is."""

DECIDE_SECONDS = 0.5
"""The kernel's bound for one mutation's equality with the claim."""

STEP_MUTATIONS = 10_000
"""Most mutations of a per-step quantity's graph generated (its own node's are kept: those
of the nodes it reads are ranked after them, and dropped)."""

PROBES = ((sp.Rational(3, 7), sp.Rational(11, 13)), (sp.Rational(-5, 17), sp.Rational(7, 19)))
"""Exact points (a base and a step: the k-th symbol takes base + k·step) where a mutation
and the claim are compared first: a difference there rules the mutation out, exactly."""


@dataclass(frozen=True)
class FormulaMistake:
    name: str
    en: str
    zh: str
    also: tuple[str, ...] = ()
    """Other mutations equal to the claim (the same mistake described another way)."""


def formula_mistake(answer: FormulaAnswer, recipe: Recipe, given: dict, name: str,
                    seconds: float = MUTATION_SECONDS) -> FormulaMistake | None:
    """The named mutation of `name`'s right formula that the wrong claim `answer` equals
    exactly (the most specific first, as derive.graph.mutate orders them), or None."""
    found: list = []
    try:
        with time_bound(seconds):
            _formula_mistake(answer, recipe, given, name, found)
    except DecisionTimeout:
        pass  # the mutations tried in time, in order: the first of them found is still first
    except (NoForm, TooLarge, ValueError, TypeError, ArithmeticError, RecursionError):
        return None
    if not found:
        return None
    first = found[0]
    return FormulaMistake(first.name, first.en, first.zh, tuple(v.name for v in found[1:]))


def _members(spec: Specialiser, node) -> list[dict] | None:
    """The index values a family quantity is compared at ({} for a scalar), None when unknown."""
    if node.over is None:
        return [{}]
    size = spec(node.over.size)
    if not size.is_Integer or int(size) > MAX_MEMBERS:
        return None
    return [{node.indices[0]: sp.Integer(m)} for m in range(1, int(size) + 1)]


def _differ_at_probe(a: sp.Expr, b: sp.Expr) -> bool:
    """Whether a and b are shown to differ at an exact probe point (both defined there): by
    exact arithmetic, or by certified enclosures of a − b when a value is not rational (a log,
    a sigmoid) and the enclosure settles its sign."""
    symbols = sorted(a.free_symbols | b.free_symbols, key=sp.default_sort_key)
    for base, step in PROBES:
        at = {s: base + k * step for k, s in enumerate(symbols)}
        u, v = a.xreplace(at), b.xreplace(at)
        if u.is_Rational and v.is_Rational:
            return u != v
        if u.free_symbols or v.free_symbols or u.has(sp.Sum, sp.Derivative) \
                or v.has(sp.Sum, sp.Derivative):
            continue
        try:
            if intervals.sign(sp.Add(u, -v, evaluate=False)) not in (None, 0):
                return True
        except (ValueError, TypeError, ArithmeticError):
            continue
    return False


def _equal(a: sp.Expr, b: sp.Expr, facts: tuple) -> bool:
    if _same(a, b):
        return True
    if _differ_at_probe(a, b):
        return False
    return decide(a, b, facts, DECIDE_SECONDS).proved


def _named_indices(e: sp.Expr) -> sp.Expr:
    """`e` with each Σ's dummy index (printed `_i`) replaced by a plain index of its name, so
    that a mutation's words read x_i; a name the expression already uses is kept a dummy."""
    taken = {s.name for s in e.free_symbols}
    plain = {d: sp.Symbol(d.name, integer=True) for d in e.atoms(sp.Dummy)
             if d.name not in taken}
    return e.xreplace(plain) if len(set(plain.values())) == len(plain) else e


def _formula_mistake(answer: FormulaAnswer, recipe: Recipe, given: dict, name: str,
                     found: list) -> None:
    """Appends to `found` each mutation (in derive.graph.mutate's order) the claim equals."""
    ctx = Context(recipe, given)
    graph = recipe.graph(ctx) if recipe.graph is not None else None
    if graph is None or name not in graph.by_name:
        return
    node = graph.by_name[name]
    spec = Specialiser(graph, ctx)
    if step_quantity(graph, name):
        _step_mistake(answer, graph, spec, node, found)
        return
    form = _named_indices(symbolic_form(graph, name))
    ats = _members(spec, node)
    if ats is None:
        return
    # the right formula as one node over the inputs, so that its mutations edit what an
    # author writes (the chain rule's factor x_i is in it, not in a node it reads)
    alone = Graph((dataclasses.replace(node, expr=form),), graph.inputs, graph.opaque,
                  graph.notation)
    claimed = [spec(_at_member(answer.expr, at)) for at in ats]
    right = [spec(_at_member(form, at)) for at in ats]
    facts = tuple(domain_fact(spec(_at_member(c, at)), relation)
                  for at in ats for c, relation in answer.domain)
    for v in mutations(alone, name):
        mutant = [spec(_at_member(v.replace[name], at)) for at in ats]
        if all(_same(m, r) or not _differ_at_probe(m, r) and decide(m, r, (), DECIDE_SECONDS)
               .proved for m, r in zip(mutant, right)):
            continue  # no mistake for this exercise (a sum for the mean of one record)
        if all(_equal(c, m, facts) for c, m in zip(claimed, mutant)):
            found.append(v)


def _step_mistake(answer: FormulaAnswer, graph: Graph, spec: Specialiser, node,
                  found: list) -> None:
    """A per-step claim (`mhat = m_t`): the mutations of the quantity's own definition as the
    author writes it (m_t/(1 − β₁^t), members of step t and t − 1), each written in one step
    (derive.exercises.formula_steps) and compared with the claim at each of the exercise's
    steps 1 … T, the members of step t − 1 free values."""
    step = StepForm(graph, node.name)
    steps = spec(node.over.size)
    if not steps.is_Integer or not 1 <= int(steps) <= MAX_MEMBERS:
        return

    def written(e: sp.Basic) -> list[sp.Expr]:
        one = step(e)
        return [spec(step.at_step(one, m)) for m in range(1, int(steps) + 1)]

    claimed, right = written(answer.expr), written(node.expr)
    facts = tuple(domain_fact(c, relation) for c_, relation in answer.domain
                  for c in written(c_))
    # the graph's own mutations of this node (the nodes it reads give its steps and buffers)
    own = [v for v in mutations(graph, node.name, STEP_MUTATIONS)
           if set(v.replace) == {node.name}]
    for v in own:
        mutant = written(v.replace[node.name])
        if any(m.has(sp.zoo, sp.nan, sp.oo, -sp.oo) for m in mutant):
            continue  # no value at some step (t − 1 = 0 in 1/(1 − β^(t−1))): not this claim
        if all(_same(m, r) or not _differ_at_probe(m, r) and decide(m, r, (), DECIDE_SECONDS)
               .proved for m, r in zip(mutant, right)):
            continue  # no mistake at this exercise's steps
        if all(_equal(c, m, facts) for c, m in zip(claimed, mutant)):
            found.append(v)
