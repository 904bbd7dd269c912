"""Mutations of a derivation graph: the single-node mistakes a student makes, generated from
each node's SymPy expression, so that any derivation (an author's own too) has a catalogue of
known mistakes.

A mutation replaces one node's definition e by another e′ (a `Variant`): a constant factor c
dropped (c → 1) or doubled (c → 2c), the sign flipped (−e, or one term of a sum), Σ/N for Σ and
back, a recurrent member read one step early or late (w_{t−1} for w_t and back), two inputs of
one kind swapped (x_i ↔ y_i), a term dropped (b of w·x + b) or a factor dropped (x_i of
(ŷ_i − y_i)·x_i), the whole definition doubled (a squared loss's ½ missing, seen downstream) or
halved; and the patterns the course names (`NAMED`: Adam's bias correction forgotten, √
forgotten, momentum forgotten, a warmup counted from t − 1 or a cosine's t − 1 read as t, sign(0)
as +1, 1/K for n_k/N, one column read for another; one found at two sites or more is also
made at every site at once, one mistake named by its kind: momentum forgotten in every buffer).
Every e′ is in SymPy's evaluated form; one that equals e, or an
earlier e′ of the same node, is dropped.

Order (the diagnosis names the first mutation that gives a claimed value): first every edit of what
is written (a named pattern before a generic edit of the same node), then the two scale guesses (the
whole definition ×2, ×½), which explain many values by coincidence. Within each, the target's own
node first, then the nodes it reads, nearest first (ties: later in the derivation first): a mistake
in the quantity itself is the specific explanation, one upstream explains it only through what it
feeds. Within a node, by kind as in `KINDS`, from the smallest edit (one constant) to the largest (a
factor gone); within a kind, in the expression's pre-order.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

import sympy as sp

from derive.graph.graph import Graph
from derive.graph.language import evaluated
from derive.graph.mutation_parts import Candidate, at, slug, terms, text
from derive.graph.named_mutations import bias_correction, carried, every_site, named
from derive.graph.node import Node, Variant
from derive.graph.notation import in_scope
from derive.graph.words import cat

MAX_MUTATIONS = 200
"""At most this many mutations per target."""
MAX_NODES = 40
"""At most this many nodes mutated per target: the target and its nearest ancestors."""
MAX_SITES = 300
"""At most this many subexpressions of one node examined."""
MAX_PER_NODE = 120
"""At most this many mutations of one node (in the order they are generated: kind by kind)."""
MAX_REEVALUATED = 100
"""A node of at most this many subexpressions has each mutation evaluated once more as a whole
(a larger one keeps the form SymPy's constructors give: the same, but for a rare nesting)."""
MAX_TRIED = 4 * MAX_PER_NODE
"""At most this many candidates of one node built (duplicates included)."""

KINDS = ("bias_correction_forgotten", "sqrt_forgotten", "momentum_forgotten",
         "counted_from_t_minus_1", "counted_from_t", "sign_at_zero_as_one",
         "weights_one_over_k", "column_swapped",
         "constant_dropped", "constant_doubled", "sign", "sum_for_mean", "mean_for_sum",
         "previous_step", "current_step", "swapped", "term_dropped", "term_sign",
         "factor_dropped", "doubled", "halved")
"""The kinds of mutation, in the order a diagnosis prefers them: first the named patterns of
the course's catalogue (`NAMED`), then the generic edits."""
NAMED = KINDS[:8]
"""Mutations that are a mistake the course names: Adam's bias correction forgotten (a factor
1/(1 − β^t) dropped), √ forgotten (√v → v), momentum forgotten (a recurrence's carried term
μ·u_{t−1} dropped, or the step along g_t in place of the buffer u_t that accumulates it), a
step counted from t − 1 (a warmup's t/W as (t − 1)/W) or t − 1 read as t (a cosine one step
late), sign(0) taken as +1 (|u|′ at a zero
residual), 1/K for each microbatch's weight n_k/N, and one record column read for another in
one place (x_{1,i} as the chain factor of w_2)."""
TAUGHT = (*NAMED[:7], "sum_for_mean")
"""The kinds that are a mistake the course teaches (the named patterns but one column read for
another, and Σ for the mean: summed, not averaged): named where alone they fit a claimed value.
Every other kind is a generic edit (two inputs or columns swapped, a factor or term dropped, a
sign flipped, a scale): where alone it fits, it is offered, not named
(derive.exercises.evidence)."""
RANK = {k: r for r, k in enumerate(KINDS)}
GENERIC = frozenset({"doubled", "halved"})
"""The scale guesses, tried after every edit of what is written."""


def mutations(graph: Graph, target: str, limit: int = MAX_MUTATIONS) -> list[Variant]:
    """Every single-node mutation of the nodes `target` reads (itself included, directly or
    not), as Variants of `target`, most specific first, at most `limit`."""
    return mutations_of(graph, (target,), limit)[target]


def mutations_of(graph: Graph, targets, limit: int = MAX_MUTATIONS,
                 skip: frozenset[str] = frozenset()) -> dict[str, list[Variant]]:
    """`mutations(graph, target, limit)` for each target, each node's mutations generated
    once for all of them (their words in the graph's notation); none of the nodes in `skip`
    (the entries of a tensor quantity: a scalar edit of one entry is no mistake a student
    makes, and there would be hundreds)."""
    with in_scope(graph.notation):
        return _mutations_of(graph, targets, limit, skip)


def _mutations_of(graph: Graph, targets, limit: int,
                  skip: frozenset[str] = frozenset()) -> dict[str, list[Variant]]:
    order = {n.name: p for p, n in enumerate(graph.nodes)}
    of_node: dict[str, list[tuple[str, Candidate]]] = {}
    originals: dict[str, sp.Expr | None] = {}
    out = {}
    for target in targets:
        if target not in graph.by_name:
            raise KeyError(target)
        ranked = []
        for distance, node in _ancestors(graph, target):
            if node.name in skip:
                continue
            if node.name not in of_node:
                of_node[node.name] = _of_node(graph, node)
                originals[node.name] = _original(node)
            for name, c in of_node[node.name]:
                key = (c.kind in GENERIC, distance, -order[node.name], RANK[c.kind], c.position)
                ranked.append((key, name, node, c))
        ranked.sort(key=lambda r: r[0])
        variants = [(key, Variant(name, target, {node.name: c.expr}, en=c.en, zh=c.zh,
                                         kind=c.kind))
                    for key, name, node, c in ranked]
        variants += _at_every_site(target, ranked, originals, order)
        variants.sort(key=lambda r: r[0])
        out[target] = [v for _, v in variants[:max(0, limit)]]
    return out


def _at_every_site(target: str, ranked, originals: dict[str, sp.Expr],
                   order: dict[str, int]) -> list:
    """A named pattern found at two sites or more of what `target` reads, made at all of them
    at once (one mistake: momentum forgotten in every buffer), ranked just after its first
    site."""
    keys = {id(c): key for key, _, _, c in ranked}
    found = [(node, originals[node.name], c) for _, _, node, c in ranked if c.swap is not None]
    out = []
    for kind, replace, en, zh, first in every_site(found, order):
        try:
            replace = {name: evaluated(e) for name, e in replace.items()}
        except ValueError:
            continue
        if any(e.has(sp.zoo, sp.nan, sp.oo, -sp.oo) for e in replace.values()):
            continue
        key = keys[id(first)]
        out.append((key[:-1] + (key[-1] + 0.5,), Variant(kind, target, replace, en=en, zh=zh,
                                                                   kind=kind)))
    return out


def _ancestors(graph: Graph, target: str) -> list[tuple[int, Node]]:
    """(distance, node): the target (0) and every node it reads, by breadth-first distance."""
    seen = {target: 0}
    frontier = [graph.by_name[target]]
    while frontier:
        nxt = []
        for n in frontier:
            for m in graph.needs[n.name]:
                if m.name not in seen:
                    seen[m.name] = seen[n.name] + 1
                    nxt.append(m)
        frontier = nxt
    position = {n.name: p for p, n in enumerate(graph.nodes)}
    out = sorted(((d, graph.by_name[n]) for n, d in seen.items()),
                 key=lambda p: (p[0], -position[p[1].name]))
    return out[:MAX_NODES]


def _original(node: Node) -> sp.Expr | None:
    """The node's expression in SymPy's evaluated form (what its mutations edit), or None."""
    try:
        return evaluated(node.expr)
    except ValueError:
        return None


def _of_node(graph: Graph, node: Node) -> list[tuple[str, Candidate]]:
    """The node's distinct mutations, each with its name (the same for every target)."""
    original = _original(node)
    if original is None:
        return []
    seen = {original}
    out: list[tuple[str, Candidate]] = []
    names: set[str] = set()
    small = sum(1 for _ in _sites(original)) <= MAX_REEVALUATED
    candidates = islice(_candidates(graph, node, original), MAX_TRIED)
    while True:
        try:
            c = next(candidates)
        except StopIteration:
            break
        except (ValueError, TypeError, ZeroDivisionError):  # pragma: no cover — SymPy refused
            break  # to build one: the generator is finished, the node keeps what it has
        e = c.expr  # built by SymPy's evaluating constructors from the evaluated original
        if small:  # once more through them all: Abs(2·|w|) is built as 2·||w||, then 2·|w|
            try:
                e = evaluated(e)
            except ValueError:
                continue
        if e in seen or e.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            continue
        seen.add(e)
        base = f"{node.name}_{c.kind}" + (f"_{c.obj}" if c.obj else "")
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}_{n}"
        names.add(name)
        out.append((name, Candidate(c.kind, c.position, e, c.obj, c.en, c.zh, c.swap)))
        if len(out) >= MAX_PER_NODE:
            break
    return out


def _sites(e: sp.Basic) -> Iterator[tuple[tuple[int, ...], sp.Basic, sp.Basic | None]]:
    """(path, subexpression, parent) in pre-order: inside a Σ only its summand, an indexed
    member and a number are leaves, a case's condition is skipped."""
    stack = [((), e, None)]
    count = 0
    while stack and count < MAX_SITES:
        path, sub, parent = stack.pop()
        count += 1
        yield path, sub, parent
        if isinstance(sub, (sp.Indexed, sp.Symbol, sp.Number, sp.Tuple)) or not sub.args:
            continue
        if isinstance(sub, sp.Sum):
            kids = [0]
        elif isinstance(sub, sp.Piecewise):
            kids = [(j, 0) for j in range(len(sub.args))]
        elif isinstance(sub, (sp.Expr,)):
            kids = list(range(len(sub.args)))
        else:
            continue
        for k in reversed(kids):
            if isinstance(k, tuple):
                j, _ = k
                pair = sub.args[j]
                stack.append((path + (j, 0), pair.args[0], sub))
            else:
                stack.append((path + (k,), sub.args[k], sub))


def _candidates(graph: Graph, node: Node, e: sp.Expr) -> Iterator[Candidate]:
    """Every mutation of the node's evaluated expression `e`, roughly kind by kind (a
    duplicate is kept where it comes first: Σ/3 is the sum for the mean before it is the
    constant 1/3 dropped)."""
    q = node.name
    sites = list(_sites(e))
    yield from named(graph, node, e, sites)
    for pos, (path, sub, parent) in enumerate(sites):
        if isinstance(sub, sp.Mul):
            for f in sub.args:
                if isinstance(f, sp.Sum) and terms(f) ** -1 in sub.args:
                    n = text(terms(f))
                    yield Candidate("sum_for_mean", pos, at(e, path, sub * terms(f)), "",
                                    cat(q, ": the sum for the mean (Σ not divided by ", n, ")"),
                                    cat(q, ":用求和代替了平均(没有除以 ", n, ")"))
            c, _ = sub.as_coeff_Mul()
            if c.is_Rational and c not in (1, -1, 0):
                a = abs(c)
                yield Candidate("constant_dropped", pos, at(e, path, sub / a), "",
                                cat(q, ": the constant factor ", text(a), " dropped"),
                                cat(q, ":漏掉了常数因子 ", text(a)))
                yield Candidate("constant_doubled", pos, at(e, path, sub * 2), "",
                                cat(q, ": the constant factor ", text(a), " doubled"),
                                cat(q, ":常数因子 ", text(a), " 被加倍了"))
        if isinstance(sub, sp.Sum) and not (isinstance(parent, sp.Mul)
                                            and terms(sub) ** -1 in parent.args):
            n = text(terms(sub))
            yield Candidate("mean_for_sum", pos, at(e, path, sub / terms(sub)), "",
                            cat(q, ": the mean for the sum (Σ divided by ", n, ")"),
                            cat(q, ":用平均代替了求和(多除以了 ", n, ")"))
    if e != 0:
        yield Candidate("sign", 0, -e, "", f"{q}: the sign flipped", f"{q}:符号取反了")
    yield from _steps(graph, node, e)
    yield from _swaps(graph, node, e)
    for pos, (path, sub, _) in enumerate(sites):
        if isinstance(sub, sp.Add):
            for j, t in enumerate(sub.args):
                rest = sub.args[:j] + sub.args[j + 1:]
                tt = text(t)
                if carried(node, t):
                    yield Candidate("momentum_forgotten", pos, at(e, path, sub.func(*rest)),
                                    slug(t), cat(q, ": the carried term ", tt, " dropped "
                                                 "(momentum forgotten)"),
                                    cat(q, ":漏掉了从上一步带来的项 ", tt, "(忘了动量)"),
                                    (sub, sub.func(*rest)))
                yield Candidate("term_sign", pos, at(e, path, sub.func(*rest, -t)), slug(t),
                                cat(q, ": the sign of the term ", tt, " flipped"),
                                cat(q, ":项 ", tt, " 的符号反了"))
                yield Candidate("term_dropped", pos, at(e, path, sub.func(*rest)), slug(t),
                                cat(q, ": the term ", tt, " dropped"), cat(q, ":漏掉了项 ", tt))
        if isinstance(sub, sp.Mul):
            means = {terms(f) ** -1 for f in sub.args if isinstance(f, sp.Sum)}
            factors = [f for f in sub.args if not f.is_Number]
            for j, f in enumerate(sub.args):
                if f.is_Number or len(factors) < 2 or isinstance(f, sp.Sum) or f in means:
                    continue  # what remains is a constant, or 1/N: not a forgotten factor
                rest = sub.args[:j] + sub.args[j + 1:]
                ft = text(f)
                if bias_correction(f):
                    yield Candidate("bias_correction_forgotten", pos,
                                    at(e, path, sub.func(*rest)), "",
                                    cat(q, ": the bias correction ", ft, " forgotten"),
                                    cat(q, ":忘了偏差修正 ", ft), (sub, sub.func(*rest)))
                yield Candidate("factor_dropped", pos, at(e, path, sub.func(*rest)), slug(f),
                                cat(q, ": the factor ", ft, " dropped (a chain-rule factor "
                                    "forgotten)"),
                                cat(q, ":漏掉了因子 ", ft, "(链式法则少乘了一项)"))
    c, _ = e.as_coeff_Mul()
    if c in (1, -1) and e != 0:
        yield Candidate("doubled", 0, 2 * e, "", f"{q}: doubled (a factor 2 too many, "
                        "as from a squared loss without its ½)",
                        f"{q}:多乘了因子 2(如平方损失漏掉了 ½)")
        if any(isinstance(p, sp.Pow) and p.exp == 2 for p in sp.preorder_traversal(e)):
            yield Candidate("halved", 0, e / 2, "",
                            f"{q}: halved (a ½ added: the other loss convention)",
                            f"{q}:多乘了因子 ½(另一种损失约定)")


def _steps(graph: Graph, node: Node, e: sp.Expr) -> Iterator[Candidate]:
    """A recurrent family's member t read as t − 1 (the previous step; the family has a start,
    w_0) and t − 1 read as t (the current step; never where that member is being computed
    from this node, which would be a cycle)."""
    if node.over is None:
        return
    t = node.over.index
    reads = sorted({a for a in sp.preorder_traversal(e) if isinstance(a, sp.Indexed)},
                   key=sp.default_sort_key)
    for a in reads:
        f = graph.by_key.get(a.base.label.name)
        if f is None or f.over is None or f.over.index != t:
            continue
        ix, rest = a.indices[0], a.indices[1:]
        if ix == t and f.start is not None:
            new, kind, en, zh = t - 1, "previous_step", "the previous step's", "上一步的"
        elif ix == t - 1 and f is not node and f.name not in graph.depends(node.name):
            new, kind, en, zh = t, "current_step", "the current step's", "当前步的"
        else:
            continue
        b = a.base[(new, *rest)]
        yield Candidate(kind, 0, e.xreplace({a: b}), slug(a),
                        cat(node.name, f": {en} ", text(b), " for ", text(a)),
                        cat(node.name, f":用了{zh} ", text(b), " 而不是 ", text(a)))


def _leaves(e: sp.Basic) -> Iterator[sp.Basic]:
    """The symbols and family members an expression reads, in pre-order (a member's base and
    index are not leaves of their own)."""
    if isinstance(e, (sp.Indexed, sp.Symbol)):
        yield e
        return
    for a in e.args:
        yield from _leaves(a)


def _swaps(graph: Graph, node: Node, e: sp.Expr) -> Iterator[Candidate]:
    """Two symbols of one kind swapped everywhere in the definition: two families read at the
    same member (x_i ↔ y_i), or two scalars with the same assumptions (w ↔ b); both inputs,
    or both quantities."""
    bound = {lim[0] for s in sp.preorder_traversal(e) if isinstance(s, sp.Sum)
             for lim in s.limits} | set(node.indices)
    fams: dict[tuple, list] = {}
    scalars: dict[tuple, list] = {}
    for a in _leaves(e):
        if isinstance(a, sp.Indexed):
            label = a.base.label
            kind = (label.name in graph.by_key, a.indices)
            fams.setdefault(kind, [])
            if a.base not in fams[kind]:
                fams[kind].append(a.base)
        elif a not in bound:
            if a.is_integer:  # a family's size or an index: never a value to swap
                continue
            kind = (a.name in graph.by_key, tuple(sorted(a.assumptions0.items())))
            scalars.setdefault(kind, [])
            if a not in scalars[kind]:
                scalars[kind].append(a)
    pairs = []
    for (_, ix), bases in fams.items():
        bases.sort(key=lambda u: u.label.name)
        for p, u in enumerate(bases):
            for v in bases[p + 1:]:
                pairs.append((u, v, u[ix], v[ix]))
    for syms in scalars.values():
        syms.sort(key=lambda u: u.name)
        for p, u in enumerate(syms):
            for v in syms[p + 1:]:
                pairs.append((u, v, u, v))
    pairs.sort(key=lambda p: (sp.default_sort_key(p[2]), sp.default_sort_key(p[3])))
    for u, v, su, sv in pairs:
        a, b = text(su), text(sv)
        yield Candidate("swapped", 0, e.xreplace({u: v, v: u}), f"{slug(su)}_{slug(sv)}",
                        cat(node.name, ": ", a, " and ", b, " swapped"),
                        cat(node.name, ":", a, " 与 ", b, " 互换了"))


