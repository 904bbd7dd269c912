"""Partial derivatives in a training loop (recipe = "formulas"): what ∂f/∂v holds fixed.

∂f/∂v for v = r_s, a recurrence's member at step s, is taken on the graph of step s + 1, as
autograd takes it on one step: its leaves are every recurrence's member at step s (the state the
step starts from) and the givens; v varies, every other leaf is held fixed. f is written in
those leaves (the quantities it reads inlined, the members of step s + 1 written out once) and
differentiated by `sympy.diff`. Refused: a formula that still reads a member of another step
(the derivative through time), a held leaf computed from v in their own step unless f is of
the next step and reads v itself, and any recurrence's member when v is not one (lr, w0).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from derive.graph import Family, Node


class PartialRefused(Exception):
    """A derivative whose held-fixed members would make it wrong: what is wrong, what to write."""

    def __init__(self, problem: str, expected: str):
        super().__init__(problem)
        self.problem, self.expected = problem, expected


@dataclass(frozen=True)
class Loop:
    """What a derivative needs to know of the exercise's quantities so far."""

    nodes: Mapping[str, Node]
    """The quantities defined so far, by canonical name."""
    bodies: Mapping[str, sp.Expr]
    """Each quantity's formula, its derivatives taken."""
    recurrences: Mapping[str, Family]
    """Every recurrence of the exercise (defined or below) and its family."""
    same_step: Mapping[str, frozenset[str]]
    """For each quantity over steps, the quantities it reads at its own step (w_t reads u_t)."""
    spelling: Mapping[str, str]
    """Each name as the author wrote it (lr for η)."""

    def text(self, x) -> str:
        """A member or a name as the author writes it: w_{t-1}, lr."""
        if isinstance(x, sp.Indexed):
            return member_text(x, self.spelling.get(x.base.label.name))
        return self.spelling.get(str(x), str(x))


def member_text(x: sp.Indexed, name: str | None = None) -> str:
    """w_{t-1}, x_i, w_0: a member as an author writes it."""
    ix = x.indices[0]
    shown = str(ix) if ix.is_Atom else "{" + str(ix).replace(" ", "") + "}"
    return f"{name or x.base.label.name}_{shown}"


def is_recurrence_member(loop: Loop, x) -> bool:
    return isinstance(x, sp.Indexed) and x.base.label.name in loop.recurrences


def _same_family(x: sp.Indexed, v: sp.Indexed) -> bool:
    """Members read with the same index letter (t − 1 and t) or both at fixed steps (0, 3)."""
    return x.indices[0].free_symbols == v.indices[0].free_symbols


def written_out(loop: Loop, e: sp.Expr, keep) -> sp.Expr:
    """e with every quantity replaced by its definition, down to the givens; `keep` (the
    variable of a derivative) and the recurrences' members stay as they are, but for the
    members of the step after keep's (a recurrence's member of step s for keep = w_{s−1}),
    written out once: their formulas read keep's step."""
    recurrent_keep = is_recurrence_member(loop, keep)

    def walk(x):
        if x == keep:
            return x
        if isinstance(x, sp.Indexed):
            name = x.base.label.name
            node = loop.nodes.get(name)
            after = recurrent_keep and node is not None and \
                loop.recurrences.get(name) == loop.recurrences[keep.base.label.name] and \
                sp.expand(x.indices[0] - keep.indices[0]) == 1
            if isinstance(keep, sp.Indexed) and x.base == keep.base and not after:
                return x  # another member of keep's family: `check` decides
            if node is not None and (node.start is None or after):
                return walk(loop.bodies[name].subs(node.over.index, x.indices[0]))
            return x
        if isinstance(x, sp.Symbol):
            node = loop.nodes.get(x.name)
            if node is not None:
                return walk(loop.bodies[x.name])
            return x
        if not x.args:
            return x
        return x.func(*[walk(a) for a in x.args])
    return walk(e)


def check(loop: Loop, f: sp.Expr, v, reads, step=None) -> None:
    """Raise PartialRefused unless ∂f/∂v of f as written out (`written_out`) is the derivative
    meant: every recurrence's member f reads but v is a leaf of the step after v's. A leaf m
    computed from v in its own step (w_{t−1} from its buffer u_{t−1}) is held fixed only when
    f is computed in the step after v's (`step`, the index of the quantity f is in) and reads
    v itself: ∂w_t/∂u_{t−1} = −lr·μ holding w_{t−1}; ∂loss_t/∂u_{t−1} would be 0 only because
    w_{t−1} is held, and ∂w_t/∂u_t is not ∂(leaf)/∂(leaf). `reads` yields the members f reads."""
    held = sorted({x for x in reads(f) if is_recurrence_member(loop, x) and x != v},
                  key=loop.text)
    if not held:
        return
    shown = loop.text(held[0])
    if not is_recurrence_member(loop, v):
        what = loop.text(v)
        raise PartialRefused(
            f"differentiates with respect to {what} a formula that reads {shown}, a member of "
            f"a recurrence, which depends on {what}",
            "derivatives through time are not supported: differentiate with respect to the "
            "step before")
    name = v.base.label.name
    for x in held:
        shown = loop.text(x)
        if loop.recurrences[x.base.label.name] != loop.recurrences[name] or \
                not _same_family(x, v):
            back = None
        else:
            back = sp.expand(v.indices[0] - x.indices[0])
        if back == 0:
            if computed_from(loop, x.base.label.name, name):
                _held_from_v(loop, f, v, x, step)
            continue
        before = v.base[v.indices[0] - 1]
        if back is not None and back.is_Integer and back > 0:
            raise PartialRefused(
                f"differentiates with respect to {loop.text(v)} a formula that reads {shown}, "
                f"of a step before {loop.text(v)}'s, which cannot be held fixed",
                f"differentiate with respect to {loop.text(before)}, as in "
                "grad(loss_t, w_{t-1})")
        raise PartialRefused(
            f"differentiates with respect to {loop.text(v)} a formula that reads {shown}, "
            f"which is neither of {loop.text(v)}'s step nor the step after it",
            "differentiate with respect to the step before the formula's, as in "
            "grad(loss_t, w_{t-1})")


def _held_from_v(loop: Loop, f, v, m, step) -> None:
    """Refuse holding m fixed, m computed from v in their step, unless f is of the step after
    theirs and reads v itself (see `check`)."""
    after = step is not None and sp.expand(step - v.indices[0]) == 1
    if not after:
        raise PartialRefused(
            f"differentiates with respect to {loop.text(v)} holding {loop.text(m)} fixed, but "
            f"{loop.text(m)} is computed from {loop.text(v)} in the same step",
            f"write {loop.text(m)}'s formula into this one, or differentiate with respect to "
            "the step before, as in grad(w_t, w_{t-1})")
    if not f.has(v):
        raise PartialRefused(
            f"differentiates with respect to {loop.text(v)} a formula that reads it only "
            f"through {loop.text(m)}, held fixed (so 0) though computed from {loop.text(v)}",
            f"differentiate with respect to {loop.text(m)}, or write {loop.text(m)}'s formula "
            "into this one")


def computed_from(loop: Loop, name: str, source: str) -> bool:
    """Whether quantity `name` reads `source` within one step, directly or through the
    quantities of that step it reads (w_t reads u_t; u_t reads g_t)."""
    seen, todo = set(), [name]
    while todo:
        n = todo.pop()
        for m in loop.same_step.get(n, ()):
            if m == source:
                return True
            if m not in seen:
                seen.add(m)
                todo.append(m)
    return False
