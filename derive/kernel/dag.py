"""Large exact values as DAGs: SymPy shares equal subexpressions, so a value computed over
many steps (Adam's nested surds) can be small as a graph and astronomically large as a tree.
These walks visit each distinct node once; nothing here rewrites or evaluates a value."""

from __future__ import annotations

import sympy as sp

_SIZES: dict = {}
"""id(node) → (node, size): keyed by identity, holding the node so that its id stays its own
(equal but distinct large values would otherwise be compared structurally, as trees)."""
_SIZES_KEPT = 200_000


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


def nodes(e: sp.Basic):
    """Each distinct subexpression of `e` once (by identity), parents before children."""
    seen: set[int] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend(x.args)


def has_type(e: sp.Basic, kind) -> bool:
    """Whether a node of type `kind` occurs in `e` (each distinct node visited once)."""
    return any(isinstance(x, kind) for x in nodes(e))


def shared_str(e: sp.Basic, limit: int = 2_000) -> str:
    """SymPy's text of `e`, or, for a tree larger than `limit` nodes, the same value with each
    subexpression used more than once named once: `x1 = …; x2 = …; <expression>`, in order
    of definition. The names are exact: the text is the value, only shorter."""
    if tree_size(e, limit) <= limit:
        return sp.sstr(e)
    parents: dict[int, int] = {}
    order: list[sp.Basic] = []
    for x in nodes(e):
        order.append(x)
        for a in x.args:
            if a.args:
                parents[id(a)] = parents.get(id(a), 0) + 1
    names: dict[int, sp.Basic] = {}
    rebuilt: dict[int, sp.Basic] = {}
    lines: list[str] = []
    for x in reversed(order):  # children before parents
        if not x.args:
            rebuilt[id(x)] = x
            continue
        args = [rebuilt[id(a)] for a in x.args]
        plain = isinstance(x, (sp.Add, sp.Mul, sp.Pow))
        new = x.func(*args, evaluate=False) if plain else x.func(*args)
        if parents.get(id(x), 0) > 1 and x is not e:
            name = sp.Symbol(f"x{len(names) + 1}")
            names[id(x)] = name
            lines.append(f"{name} = {sp.sstr(new)}")
            rebuilt[id(x)] = name
        else:
            rebuilt[id(x)] = new
    return "; ".join([*lines, sp.sstr(rebuilt[id(e)])])
