"""The mutations the course names (`NAMED` of derive/graph/mutate.py), each at one site of a
node: Adam's bias correction forgotten, √ forgotten, sign(0) as +1, 1/K for each microbatch's
weight n_k/N, a step counted from t − 1 (or t − 1 read as t), one record column read for another,
the step along what a recurrence accumulates (momentum forgotten); and the same pattern made at
every site at once (`everywhere`)."""

from __future__ import annotations

from collections.abc import Iterator

import sympy as sp

from derive.graph.graph import Graph
from derive.graph.mutation_parts import Candidate, at, letter, slug, terms, text
from derive.graph.node import Node
from derive.graph.notation import notation_of
from derive.graph.words import cat, filled, said


def named(graph: Graph, node: Node, e: sp.Expr, sites) -> Iterator[Candidate]:
    """The named patterns that are not a generic edit renamed (see `NAMED`)."""
    q = node.name
    for pos, (path, sub, _) in enumerate(sites):
        if isinstance(sub, sp.Pow) and sub.exp in (sp.S.Half, -sp.S.Half):
            new = sub.base ** (2 * sub.exp)
            yield Candidate("sqrt_forgotten", pos, at(e, path, new), "",
                            cat(q, ": the square root of ", text(sub.base), " forgotten"),
                            cat(q, ":忘了对 ", text(sub.base), " 开平方"), (sub, new))
        if isinstance(sub, sp.sign):
            u = sub.args[0]
            new = sp.Piecewise((1, sp.Eq(u, 0)), (sub, True))
            yield Candidate("sign_at_zero_as_one", pos, at(e, path, new), "",
                            cat(q, said(r": $\operatorname{sign}(0)$ taken as $+1$ (the "
                                        r"derivative of $|u|$ at $u = 0$, where torch takes 0)")),
                            cat(q, said(r":把 $\operatorname{sign}(0)$ 当成了 $+1$($|u|$ 在 "
                                        r"$u = 0$ 处的导数,torch 取 0)")),
                            (sub, new))
        if isinstance(sub, sp.Sum):
            yield from _one_over_k(q, e, pos, path, sub)
    yield from _counted_from_previous(node, e)
    yield from _counted_from_current(node, e)
    yield from _read_for(graph, node, e, sites)


def carried(node: Node, term: sp.Expr) -> bool:
    """A recurrence's term that carries its own previous member with a factor: μ·u_{t−1}."""
    if node.over is None or not isinstance(term, sp.Mul):
        return False
    t = node.over.index
    return any(isinstance(a, sp.Indexed) and a.base == node.symbol and a.indices[0] == t - 1
               for a in term.args)


def bias_correction(f: sp.Expr) -> bool:
    """1/(1 − β^t): the reciprocal of 1 minus a power with a symbolic exponent."""
    return (isinstance(f, sp.Pow) and f.exp == -1 and isinstance(f.base, sp.Add)
            and 1 in f.base.args
            and any(isinstance(p, sp.Pow) and p.exp.free_symbols for p in f.base.args
                    for p in sp.preorder_traversal(p)))


def _one_over_k(q: str, e: sp.Expr, pos: int, path, s: sp.Sum) -> Iterator[Candidate]:
    """Each microbatch's weight n_k/N replaced by 1/K: in Σ_k (1/N)·Σ_{i∈B_k} (n_k cancelled),
    Σ_k (1/K)·(1/n_k)·Σ_{i∈B_k}, the mean of the microbatch means; in Σ_k (n_k/N)·q_k (q_k a
    quantity of microbatch k), Σ_k (1/K)·q_k."""
    k = s.limits[0][0]
    body = s.function
    if not isinstance(body, sp.Mul):
        return
    inner = [a for a in body.args if isinstance(a, sp.Sum) and k in a.limits[0][1].free_symbols]
    totals = [a for a in body.args if isinstance(a, sp.Pow) and a.exp == -1
              and isinstance(a.base, sp.Symbol)]
    sizes = [a for a in body.args if isinstance(a, sp.Indexed) and a.indices == (k,)
             and a.base.label.is_integer and a.base.label.is_positive]
    if len(totals) != 1:
        return
    many = terms(s)
    if len(inner) == 1:
        new = body.xreplace({totals[0]: 1}) / (many * terms(inner[0]))
    elif len(sizes) == 1 and len(body.args) > 2:
        new = body.xreplace({totals[0]: 1, sizes[0]: 1}) / many
    else:
        return
    new = s.func(new, *s.limits)
    share = (text(sizes[0] / totals[0].base) if sizes
             else cat(said("$n_k$"), "/", text(totals[0].base)))  # n_k cancelled in the sum
    yield Candidate("weights_one_over_k", pos, at(e, path, new), "",
                    cat(q, ": ", text(1 / many), " for every microbatch in place of its share ",
                        share, " (the mean of the microbatch means)"),
                    cat(q, ":每个微批都取 ", text(1 / many), ",而不是它的份额 ",
                        share, "(微批均值的均值)"), (s, new))


def _counted_from_previous(node: Node, e: sp.Expr) -> Iterator[Candidate]:
    """The step t read as t − 1 where it is a number in the formula (not a member's index):
    a warmup's t/W as (t − 1)/W."""
    if node.over is None:
        return
    t = node.over.index
    members = {a: sp.Dummy() for a in sp.preorder_traversal(e) if isinstance(a, sp.Indexed)}
    bare = e.xreplace(members)
    if t not in bare.free_symbols:
        return
    back = {d: a for a, d in members.items()}
    new = bare.xreplace({t: t - 1}).xreplace(back)
    yield Candidate("counted_from_t_minus_1", 0, new, "",
                    cat(node.name, ": the step counted from ", text(t - 1), " (", text(t - 1),
                        " in place of ", text(t), ", as a warmup counted from 0)"),
                    cat(node.name, ":步数从 ", text(t - 1), " 数起(用 ", text(t - 1), " 代替 ",
                        text(t), ",如从 0 开始数的 warmup)"),
                    (e, new))


def _counted_from_current(node: Node, e: sp.Expr) -> Iterator[Candidate]:
    """The step t − 1 read as t where it is a number in the formula (not a member's index),
    the reverse of `_counted_from_previous`: a cosine schedule's cos(π·(t − 1)/T) as
    cos(π·t/T), one step late."""
    if node.over is None:
        return
    t = node.over.index
    members = {a: sp.Dummy() for a in sp.preorder_traversal(e) if isinstance(a, sp.Indexed)}
    bare = e.xreplace(members)
    if not any(a == t - 1 for a in sp.preorder_traversal(bare)):
        return
    back = {d: a for a, d in members.items()}
    new = bare.xreplace({t - 1: t}).xreplace(back)
    yield Candidate("counted_from_t", 0, new, "",
                    cat(node.name, ": the step counted from ", text(t), " instead of ",
                        text(t - 1), " (", text(t), " in place of ", text(t - 1),
                        ": one step late)"),
                    cat(node.name, ":步数从 ", text(t), " 而不是 ", text(t - 1), " 数起(用 ",
                        text(t), " 代替 ", text(t - 1), ":晚了一步)"),
                    (e, new))


def _read_for(graph: Graph, node: Node, e: sp.Expr, sites) -> Iterator[Candidate]:
    """One member read in place of another, at one place: a record column for another of the same
    letter (x_{1,i} as the chain factor of w_2: `column_swapped`), or a recurrence's member for the
    step along what it accumulates (g_t in place of the buffer u_t: `momentum_forgotten`)."""
    columns = sorted({a.base for n in graph.nodes for a in sp.preorder_traversal(n.expr)
                      if isinstance(a, sp.Indexed) and a.base.label.name not in graph.by_key},
                     key=lambda b: b.label.name)
    for pos, (path, sub, _) in enumerate(sites):
        if not isinstance(sub, sp.Indexed):
            continue
        name = sub.base.label.name
        owner = graph.by_key.get(name)
        if owner is None:
            for other in columns:
                if other == sub.base or not _same_letter(other, sub.base):
                    continue
                new = other[sub.indices]
                a, b = text(sub), text(new)
                yield Candidate("column_swapped", pos, at(e, path, new),
                                f"{slug(sub)}_{slug(new)}",
                                cat(node.name, ": ", b, " in place of ", a, " (one column "
                                    "read for another)"),
                                cat(node.name, ":在一处用了 ", b, " 而不是 ", a, "(读错了列)"))
        elif owner.over is not None and owner is not node and owner.start is not None:
            t = owner.over.index
            if sub.indices[0] != t:
                continue
            for a in sp.preorder_traversal(owner.expr):
                if (isinstance(a, sp.Indexed) and a.base != owner.symbol
                        and a.indices[0] == t and a.base.label.name in graph.by_key):
                    yield Candidate("momentum_forgotten", pos, at(e, path, a), slug(a),
                                    cat(node.name, ": ", text(a), " in place of ", text(sub),
                                        " (momentum forgotten: the step along what the "
                                        "recurrence accumulates)"),
                                    cat(node.name, ":用 ", text(a), " 代替了 ", text(sub),
                                        "(忘了动量:直接沿被累积的量更新)"))


def _same_letter(u: sp.IndexedBase, v: sp.IndexedBase) -> bool:
    """Two columns written with one letter and two subscripts: x_1 and x_2."""
    nu, nv = notation_of(u.label.name), notation_of(v.label.name)
    return (nu is not None and nv is not None and nu.letter == nv.letter
            and bool(nu.sub) and bool(nv.sub))


EVERY_SITE = {
    "bias_correction_forgotten": (said("the bias correction forgotten in every estimate ({})"),
                                  said("每个估计({})都忘了偏差修正")),
    "sqrt_forgotten": (said("the square root forgotten wherever it is taken ({})"),
                       said("每处({})都忘了开平方")),
    "momentum_forgotten": (said("momentum forgotten in every buffer ({}): each carried term "
                                "dropped"),
                           said("每个缓冲({})都忘了动量:漏掉了从上一步带来的项")),
    "counted_from_t_minus_1": (said("the step counted from $t - 1$ everywhere ({})"),
                               said("每处({})步数都从 $t - 1$ 数起")),
    "counted_from_t": (said("the step counted from $t$ instead of $t - 1$ everywhere ({}): one "
                            "step late"),
                       said("每处({})步数都从 $t$ 而不是 $t - 1$ 数起:晚了一步")),
    "sign_at_zero_as_one": (said(r"$\operatorname{sign}(0)$ taken as $+1$ everywhere ({})"),
                            said(r"每处({})都把 $\operatorname{sign}(0)$ 当成了 $+1$")),
    "weights_one_over_k": (said("$1/K$ for every microbatch's share $n_k/N$ everywhere ({})"),
                           said("每处({})都给每个微批取 $1/K$,而不是它的份额 $n_k/N$")),
}
"""The named patterns also made at every site at once (a student who forgets momentum forgets
it in every buffer), with their words ({} holds the sites' quantities)."""


def every_site(found: list[tuple[Node, sp.Expr, Candidate]], order: dict[str, int]
               ) -> Iterator[tuple[str, dict[str, sp.Expr], str, str, Candidate]]:
    """For each kind of `EVERY_SITE` with at least two sites among `found` (node, its evaluated
    expression, one candidate of that node, in the order the diagnosis prefers them): the
    kind, every site's node with all its sites of that kind replaced at once, the words (the
    quantities in derivation `order`), and the first site's candidate (the variant is ranked
    just after it)."""
    by_kind: dict[str, list[tuple[Node, sp.Expr, Candidate]]] = {}
    for node, e, c in found:
        if c.kind in EVERY_SITE and c.swap is not None:
            by_kind.setdefault(c.kind, []).append((node, e, c))
    for kind, sites in by_kind.items():
        if len(sites) < 2:
            continue
        swaps: dict[str, tuple[Node, sp.Expr, dict]] = {}
        for node, e, c in sites:
            swaps.setdefault(node.name, (node, e, {}))[2].setdefault(*c.swap)
        replace = {name: _swapped(e, swap) for name, (_, e, swap) in swaps.items()}
        if any(r is None for r in replace.values()):
            continue  # a site lost in another's replacement: not every site at once
        where = ", ".join(letter(node.key) for node, _, _ in
                          sorted(swaps.values(), key=lambda s: order[s[0].name]))
        en, zh = EVERY_SITE[kind]
        en, zh = filled(en, where), filled(zh, where)
        if len(swaps) == 1:  # every site in one quantity: each said, as "w: … ; w: …"
            en = cat(*(x for n, (_, _, c) in enumerate(sites) for x in (("; ", c.en) if n
                                                                          else (c.en,))))
            zh = cat(*(x for n, (_, _, c) in enumerate(sites) for x in ((";", c.zh) if n
                                                                          else (c.zh,))))
        yield kind, replace, en, zh, sites[0][2]


def _swapped(e: sp.Expr, swap: dict) -> sp.Expr | None:
    """`e` with every (old → new) of `swap` made, the largest first: m/(1 − β₁^t) dropped from
    a product keeps its √(v/(1 − β₂^t)), where the next is then made (xreplace at once would
    make only the outer one); None where a site is gone by then."""
    for old, new in sorted(swap.items(), key=lambda s: -sp.count_ops(s[0])):
        made = e.xreplace({old: new})
        if made == e:
            return None
        e = made
    return e
