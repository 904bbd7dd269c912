"""Large exact values as DAGs: SymPy shares equal subexpressions, so a value computed over
many steps (Adam's nested surds) can be small as a graph and astronomically large as a tree.
These walks visit each distinct node once; nothing here rewrites or evaluates a value."""

from __future__ import annotations

import sympy as sp

_SIZES: dict = {}
"""id(node) → (node, size): keyed by identity, holding the node so that its id stays its own
(equal but distinct large values would otherwise be compared structurally, as trees)."""
_SIZES_KEPT = 200_000


def forget() -> None:
    """Empty the cache of tree sizes (between exercises: it holds their values alive)."""
    _SIZES.clear()


def _known(x):
    hit = _SIZES.get(id(x))
    return hit[1] if hit is not None and hit[0] is x else None


def tree_size(e: sp.Basic, cap: int = 10**9) -> int:
    """The number of nodes of `e` written out as a tree (as printers and `count_ops` see it),
    computed over the DAG with memoisation and capped at `cap` + 1."""
    if not e.args:
        return 1
    hit = _known(e)
    if hit is not None:
        return min(hit, cap + 1)
    if len(_SIZES) > _SIZES_KEPT:
        _SIZES.clear()
    stack = [(e, False)]
    local: dict[int, int] = {}
    while stack:
        x, ready = stack.pop()
        if id(x) in local:
            continue
        if not x.args:
            local[id(x)] = 1
            continue
        known = _known(x)
        if known is not None:
            local[id(x)] = known
            continue
        if not ready:
            stack.append((x, True))
            stack.extend((a, False) for a in x.args if id(a) not in local)
            continue
        size = min(1 + sum(local[id(a)] for a in x.args), 10**18)
        local[id(x)] = size
        _SIZES[id(x)] = (x, size)
    return min(local[id(e)], cap + 1)


def nodes(e: sp.Basic, seen: set[int] | None = None):
    """Each distinct subexpression of `e` once (by identity), parents before children; those
    whose ids are in `seen` (visited by an earlier walk sharing the set) are skipped."""
    seen = set() if seen is None else seen
    stack = [e]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend(x.args)


def postorder(e: sp.Basic) -> list:
    """Each distinct subexpression of `e` once (by identity), children before parents."""
    done: set[int] = set()
    out: list = []
    stack = [(e, False)]
    while stack:
        x, ready = stack.pop()
        if id(x) in done:
            continue
        if ready or not x.args:
            done.add(id(x))
            out.append(x)
            continue
        stack.append((x, True))
        stack.extend((a, False) for a in x.args if id(a) not in done)
    return out


def has_type(e: sp.Basic, kind, seen: set[int] | None = None) -> bool:
    """Whether a node of type `kind` occurs in `e` (each distinct node visited once; pass one
    `seen` set to walk the elements of a list, which share their steps, once in all)."""
    return any(isinstance(x, kind) for x in nodes(e, seen))


class TextTooLong(ValueError):
    """An exact text past its budget of characters (found while it is built)."""


class TextBudget:
    """Characters of exact text left to write (one budget shared by many values)."""

    def __init__(self, chars: int):
        self.chars = self.left = chars

    def fits(self, n: int) -> None:
        if n > self.left:
            raise TextTooLong(f"more than {self.chars:,} characters of exact text")

    def spend(self, n: int) -> None:
        self.fits(n)
        self.left -= n


def shared_str(e: sp.Basic, limit: int = 200, budget: TextBudget | None = None) -> str:
    """SymPy's text of `e`, or, for a tree larger than `limit` nodes, the same value with each
    subexpression used more than once named once: `x1 = …; x2 = …; <expression>`, in order
    of definition, written in SymPy's syntax (+, *, **, rationals as p/q, functions by name).
    The names are exact: the text is the value, only shorter. With `budget`, the text is
    charged to it and TextTooLong is raised as soon as it would pass it (every part written
    is a part of the result, so nothing longer than the budget is ever built)."""
    if tree_size(e, limit) <= limit:
        text = sp.sstr(e)
        if budget is not None:
            budget.spend(len(text))
        return text
    order = postorder(e)
    parents: dict[int, int] = {}
    for x in order:
        for a in x.args:
            if a.args:
                parents[id(a)] = parents.get(id(a), 0) + 1
    text: dict[int, tuple[str, int]] = {}
    lines: list[str] = []
    for x in order:  # children before parents
        t = _written(x, text)
        if budget is not None:
            budget.fits(len(t[0]))
        if parents.get(id(x), 0) > 1 and x is not e:
            name = f"x{len(lines) + 1}"
            lines.append(f"{name} = {t[0]}")
            if budget is not None:
                budget.spend(len(lines[-1]) + 2)
            t = (name, _ATOM)
        text[id(x)] = t
    if budget is not None:
        budget.spend(len(text[id(e)][0]))
    return "; ".join([*lines, text[id(e)][0]])


_ADD, _MUL, _POW, _ATOM = 1, 2, 3, 4
"""Precedences: an operand binding less tightly than its operator is parenthesized."""


def _written(x: sp.Basic, text: dict) -> tuple[str, int]:
    def arg(a, at_least):
        s, p = text[id(a)]
        return s if p >= at_least else f"({s})"

    if x.is_Integer:
        return str(int(x)), (_ATOM if x >= 0 else _ADD)
    if x.is_Rational:
        return f"{x.p}/{x.q}", _MUL
    if not x.args:
        return sp.sstr(x), _ATOM
    if isinstance(x, sp.Add):
        return " + ".join(arg(a, _ADD) for a in x.args), _ADD
    if isinstance(x, sp.Mul):
        return "*".join(arg(a, _POW) for a in x.args), _MUL
    if isinstance(x, sp.Pow):
        return f"{arg(x.base, _ATOM)}**{arg(x.exp, _ATOM)}", _POW
    return f"{type(x).__name__}({', '.join(text[id(a)][0] for a in x.args)})", _ATOM


def joined(kind: type, *args: sp.Basic) -> sp.Basic:
    """The unevaluated node kind(*args) (Add, Mul or Abs over a value's DAG), built without
    SymPy's constructor cache, whose lookups compare equal values structurally (as trees:
    exponential in the depth of a recurrence) when a value is recomputed as a new object."""
    if kind in (sp.Add, sp.Mul):
        return kind._from_args(args, is_commutative=True)
    obj = sp.Expr.__new__(kind, *args)
    return obj
