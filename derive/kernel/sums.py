"""Σ in the normal form: every rule an identity for all integer limits under Karr's convention,
Σ_{i=a}^{b} g(i) = −Σ_{i=b+1}^{a−1} g(i) when b < a − 1 (and 0 when b = a − 1).

- Linearity: the summand is expanded; a factor without the index moves out, and a constant
  summand c gives c·(b − a + 1), when c is defined everywhere or the range is never empty.
- Re-indexing: when every occurrence of the index is an argument σ·i + s (σ = ±1) of a function
  or subscript, i ↦ σ·(j − s) with the smallest such s, so that shifted and reflected sums meet.
- Closed forms: a summand without undefined parts is summed by SymPy, and the result F is
  accepted only after F(m) − F(m−1) = g(m) is proved and F has no pole in m; then
  Σ_{i=a}^{b} g = F(b) − F(a − 1) for all integers a, b.
- Prefix sums: Σ_{i=a}^{b} g = P_g(b) − P_g(a − 1), P_g(m, p…) = Σ_{i=1}^{m} g(i, p…), a fresh
  function of the summand (an instance of `Prefix`, told apart by its class, never by name),
  P_g(0, p…) = 0; P_g(a + m) = P_g(a) + Σ_{t=1}^{m} g(a + t) relates nearby arguments.
- Exchange: nested sums with independent limits are put in one canonical order; a triangular
  Σ_{i=a}^{b} Σ_{j=c}^{i+s} becomes sums whose inner lower limit holds the outer index.
"""

from __future__ import annotations

from itertools import permutations

import sympy as sp
from sympy.core.function import AppliedUndef

from derive.kernel.algebra import expand, rational_zero
from derive.kernel.branches import in_range
from derive.kernel.definedness import UnknownDomain, conditions, describe_condition
from derive.kernel.equalities import substitute_rows
from derive.kernel.prefix import _INDEX, Prefix, integer_valued, prefix_class

MAX_OFFSET = 64
"""P_g(a + m) is related to P_g(a) only for |m| up to this (each step adds a term)."""

MAX_CLOSED_FORM_OPS = 80
"""Summands larger than this are not given to SymPy's summation (kept as prefix sums)."""


def _parameters(g: sp.Expr, i: sp.Symbol) -> tuple[sp.Symbol, ...]:
    """The symbols a summand depends on besides its index (subscript bases excluded)."""
    labels = {x.base.label for x in g.atoms(sp.Indexed)}
    return tuple(sorted((s for s in g.free_symbols
                         if s != i and isinstance(s, sp.Symbol) and s not in labels
                         and s not in _SLOTS),
                        key=sp.default_sort_key))


_SLOTS = [sp.Dummy(f"q{k}") for k in range(64)]


def _abstract(g: sp.Expr, i: sp.Symbol) -> tuple[sp.Expr, list[sp.Expr]]:
    """g with each argument of a function or subscript that does not hold the index replaced
    by a slot q₀, q₁, …, and the arguments: Σ_i F(i, a − 1) and Σ_i F(i, j) at j = a − 1 then
    have one prefix function, F(i, q₀), applied to a − 1."""
    atoms = sorted(g.atoms(AppliedUndef, Prefix, sp.Indexed),
                   key=lambda x: (str(x.base if isinstance(x, sp.Indexed) else x.func),
                                  tuple(a.has(i) for a in (x.indices if isinstance(x, sp.Indexed)
                                                           else x.args)),
                                  sp.default_sort_key(x)))
    found: list[sp.Expr] = []
    repl = {}
    for atom in atoms:
        args = atom.indices if isinstance(atom, sp.Indexed) else atom.args
        new = []
        for a in args:
            if a.has(i) or a.has(*_SLOTS) or len(found) >= len(_SLOTS) and a not in found:
                new.append(a)
                continue
            if a not in found:
                found.append(a)
            new.append(_SLOTS[found.index(a)])
        if list(args) != new:
            repl[atom] = atom.base[tuple(new)] if isinstance(atom, sp.Indexed) else atom.func(*new)
    return (g.xreplace(repl) if repl else g), found


def prefix(g: sp.Expr, i: sp.Symbol, m: sp.Expr) -> sp.Expr:
    """P_g(m, a…, p…): the arguments a… that g's functions take without the index, then the
    other symbols p… g depends on."""
    if m == 0:
        return sp.S.Zero
    g, args = _abstract(g, i)
    params = _parameters(g, i)
    body = sp.Lambda((_INDEX, *_SLOTS[:len(args)], *params), g.xreplace({i: _INDEX}))
    return prefix_class(body)(m, *args, *params)


# --------------------------------------------------------------------------- helpers

def canon_args(e: sp.Expr) -> sp.Expr:
    """Arguments of undefined functions, prefix sums and subscripts expanded, so that
    P(k − 1) is always one shape."""
    repl = {}
    for f in e.atoms(AppliedUndef, Prefix, sp.Indexed):
        args = f.indices if isinstance(f, sp.Indexed) else f.args
        new = [sp.expand(a) for a in args]
        if list(args) != new:
            repl[f] = f.base[tuple(new)] if isinstance(f, sp.Indexed) else f.func(*new)
    return e.xreplace(repl) if repl else e


def _defined(c: sp.Expr, ctx) -> bool:
    """Whether `c` is defined wherever the claim is (each condition discharged)."""
    try:
        conds = conditions(c)
    except UnknownDomain:
        return False
    for cond, relation in conds:
        if not ctx.holds(cond, relation):
            return False
        ctx.discharged.add(describe_condition(cond, relation, listed=True))
    return True


def split_powers(e: sp.Expr, ctx) -> sp.Expr:
    """x^(c + r) → x^c·x^r for an integer c, where x ≠ 0 is known (an identity there)."""
    def rule(p):
        const, rest = p.exp.as_coeff_Add()
        if not (const.is_Integer and const != 0 and rest != 0):
            return p
        if not ctx.nonzero(p.base):
            return p
        ctx.discharged.add(sp.sstr(p.base))
        return p.base**const * p.base**rest

    return e.replace(lambda x: x.is_Pow and x.exp.is_Add, rule)


# --------------------------------------------------------------------------- re-indexing

def _slots(g: sp.Expr, i: sp.Symbol):
    """(σ, s) for every occurrence of i as an argument σ·i + s of a function or subscript, or
    None when i also occurs where re-indexing would not give a canonical form (inside another
    argument, an exponent, or a function other than +, ·, integer powers). Occurrences of i as
    a polynomial factor are allowed: they are re-indexed along."""
    found = []

    def walk(e) -> bool:
        if not e.has(i):
            return True
        if e == i:
            return True
        if isinstance(e, (AppliedUndef, Prefix, sp.Indexed)):
            args = e.indices if isinstance(e, sp.Indexed) else e.args
            for arg in args:
                if not arg.has(i):
                    continue
                lin = sp.expand(arg)
                sigma = lin.coeff(i)
                rest = sp.expand(lin - sigma * i)
                if sigma in (1, -1) and not rest.has(i) and integer_valued(rest):
                    found.append((int(sigma), rest))
                elif not _inside(arg):
                    return False
            return True
        if e.is_Add or e.is_Mul:
            return all(walk(a) for a in e.args)
        if e.is_Pow and e.exp.is_Integer and e.exp > 0:
            return walk(e.base)
        return False

    def _inside(arg) -> bool:
        # i deeper inside an argument (P(Q(k)) holds k in Q's argument): allowed only there
        if isinstance(arg, (AppliedUndef, Prefix, sp.Indexed)):
            return walk(arg)
        if arg.is_Add or arg.is_Mul:
            return all(_inside(a) if a.has(i) else True for a in arg.args)
        return False

    return found if walk(g) and found else None


def reindex(g: sp.Expr, i: sp.Symbol, a: sp.Expr, b: sp.Expr, rules: set[str]):
    """(g', a', b') with Σ_{i=a}^{b} g = Σ_{i=a'}^{b'} g' and the smallest argument shift 0."""
    slots = _slots(g, i)
    if not slots:
        return g, a, b
    sigmas = {s for s, _ in slots}
    if len(sigmas) != 1:
        return g, a, b
    sigma = sigmas.pop()
    shifts = sorted({s for _, s in slots}, key=sp.default_sort_key)
    base = shifts[0]
    if all((s - base).is_Integer for s in shifts):
        base = min(shifts, key=lambda s: (s - shifts[0]))
    if sigma == 1:
        if base == 0:
            return g, a, b
        rules.add("index shift")
        return canon_args(g.xreplace({i: i - base})), sp.expand(a + base), sp.expand(b + base)
    rules.add("reflection")
    return canon_args(g.xreplace({i: base - i})), sp.expand(base - b), sp.expand(base - a)


# --------------------------------------------------------------------------- closed forms

_M = sp.Dummy("m", integer=True)


def _opaque(g: sp.Expr) -> bool:
    return bool(g.atoms(AppliedUndef, Prefix, sp.Indexed, sp.Sum, sp.Derivative))


def _plain(F: sp.Expr, m: sp.Symbol) -> bool:
    """F built from +, ·, powers, numbers and symbols only, with m only in polynomial
    positions or in the exponent of a base free of m."""
    for node in sp.preorder_traversal(F):
        if node.is_Atom or node.is_Add or node.is_Mul:
            continue
        if node.is_Pow:
            if node.base.has(m) and not (node.exp.is_Integer and node.exp > 0):
                return False
            continue
        return False
    return True


def antidifference(g: sp.Expr, i: sp.Symbol, ctx, rules: set[str]) -> sp.Lambda | None:
    """F with F(m) − F(m − 1) = g(m) for every integer m, checked; None if none is found."""
    if sp.count_ops(g) > MAX_CLOSED_FORM_OPS:
        return None
    gm = g.xreplace({i: _M})
    try:
        closed = sp.summation(g, (i, 1, _M))
    except Exception:  # noqa: BLE001 — no closed form from SymPy: none
        return None
    candidates = [v for v, _ in closed.args] if isinstance(closed, sp.Piecewise) else [closed]
    for F in candidates:
        if F.has(sp.Sum) or not _plain(F, _M):
            continue
        try:
            conds = conditions(F)
        except UnknownDomain:
            continue
        if any(c.has(_M) for c, _ in conds) or not all(ctx.holds(*c) for c in conds):
            continue
        check = split_powers(F - F.xreplace({_M: _M - 1}) - gm, ctx)
        if rational_zero(check):
            ctx.discharged.update(describe_condition(*c, listed=True) for c in conds)
            rules.add("closed-form Σ (checked antidifference)")
            return sp.Lambda(_M, F)
    return None


# --------------------------------------------------------------------------- one Σ

def _telescoping(terms: list[sp.Expr], i: sp.Symbol) -> sp.Expr | None:
    """h with h(i) − h(i−1) among the terms (each term whose negated shift is also a term);
    re-indexing and prefix offsets would find most of these too, but not P(k·m) − P((k−1)·m)."""
    present = set(terms)
    h = [t for t in terms if t.has(i)
         and canon_args(sp.expand(-t.xreplace({i: i - 1}))) in present]
    return sp.Add(*h) if h else None


DELTA = "Σ of a Kronecker δ (the index's one term)"


def _delta_term(g: sp.Expr, i: sp.Symbol, a: sp.Expr, b: sp.Expr, ctx, rules: set[str]
                ) -> sp.Expr | None:
    """Σ_{i=a}^{b} δ(i + s, e)·h(i) for a factor δ of g whose one argument is i + s (s an
    integer free of i) and whose other, e, is an integer free of i: h(e − s) when the facts
    give a ≤ e − s ≤ b (the one term where δ = 1, the others 0); 0 when they put e − s
    outside [a, b] and the range is not reversed (b ≥ a − 1: Karr's reversed sums evaluate
    other terms). None when neither is known (the Σ is left to the other rules)."""
    for f in sp.Mul.make_args(g):
        if not isinstance(f, sp.KroneckerDelta):
            continue
        for this, other in (f.args, f.args[::-1]):
            if other.has(i) or not integer_valued(other):
                continue
            shift = sp.expand(this - i)
            if shift.has(i) or not integer_valued(shift):
                continue
            value = sp.expand(other - shift)
            if ctx.nonnegative(value - a) and ctx.nonnegative(b - value):
                rules.add(DELTA)
                ctx.discharged.add(f"{sp.sstr(a)} ≤ {sp.sstr(value)} ≤ {sp.sstr(b)}")
                return (g / f).xreplace({i: value})
            if ctx.nonnegative(b - a + 1) and (ctx.positive(a - value)
                                               or ctx.positive(value - b)):
                rules.add(DELTA)
                return sp.S.Zero
    return None


def sum_one(f: sp.Expr, i: sp.Symbol, a: sp.Expr, b: sp.Expr, ctx, rules: set[str]) -> sp.Expr:
    """Σ_{i=a}^{b} f with no Σ left over i (or the Σ itself, when its limits are not integers)."""
    if f == 0:
        return sp.S.Zero
    if not (integer_valued(a) and integer_valued(b)):
        return sp.Sum(f, (i, a, b))
    count = sp.expand(b - a + 1)
    if a.is_Integer and b.is_Integer and abs(int(count)) <= MAX_OFFSET:
        # concrete limits: the terms themselves (Karr: a reversed range negates; an empty one
        # evaluates none), which is the sum's own definition
        rules.add("Σ written out")
        lo, hi, sign = (int(a), int(b), 1) if count >= 0 else (int(b) + 1, int(a) - 1, -1)
        return canon_args(sign * sp.Add(*[f.xreplace({i: sp.Integer(v)})
                                          for v in range(lo, hi + 1)]))
    never_empty = ctx.nonzero(count)
    inner = ctx.without(i)
    f = split_powers(canon_args(expand(f)), inner)
    result = sp.S.Zero
    terms = list(sp.Add.make_args(f))
    h = _telescoping(terms, i)
    if h is not None and (never_empty or (_defined(h.xreplace({i: b}), ctx)
                                          and _defined(h.xreplace({i: a - 1}), ctx))):
        rules.add("telescoping")
        result += h.xreplace({i: b}) - h.xreplace({i: a - 1})
        rest = canon_args(expand(f - (h - h.xreplace({i: i - 1}))))
        terms = [] if rest == 0 else list(sp.Add.make_args(rest))
    for term in terms:
        coeff, g = term.as_independent(i, as_Add=False)
        picked = _delta_term(g, i, a, b, ctx, rules)
        if picked is not None:
            result += coeff * picked
            continue
        if coeff != 1 and not never_empty and not _defined(coeff, ctx):
            coeff, g = sp.S.One, term  # Σ of c·g over an empty range is 0 even where c is not
        if g == 1:
            rules.add("linearity of Σ")
            result += coeff * count
            continue
        if coeff != 1:
            rules.add("linearity of Σ")
        g2, a2, b2 = reindex(g, i, a, b, rules)
        for mono in sp.Add.make_args(canon_args(expand(g2))):
            c2, g3 = mono.as_independent(i, as_Add=False)
            if c2 != 1 and not never_empty and not _defined(c2, ctx):
                c2, g3 = sp.S.One, mono
            c2 = coeff * c2
            if g3 == 1:  # a re-indexed polynomial factor left a constant
                result += c2 * sp.expand(b2 - a2 + 1)
                continue
            if not _opaque(g3):
                F = antidifference(g3, i, inner, rules)
                if F is not None:
                    result += c2 * (F(b2) - F(a2 - 1))
                    continue
            rules.add("prefix sums (Karr)")
            result += c2 * (prefix(g3, i, b2) - prefix(g3, i, a2 - 1))
    # a row's Σ that a fact over the rows fixes, at a row index the context puts in range
    return substitute_rows(canon_args(result), ctx, rules)


# --------------------------------------------------------------------------- nested Σ

def _flatten(e: sp.Sum):
    """(body, [(i, a, b) outermost first]) of a block of directly nested sums."""
    limits = list(reversed(e.limits))
    body = e.function
    while isinstance(body, sp.Sum):
        limits += list(reversed(body.limits))
        body = body.function
    return body, limits


def _build(body: sp.Expr, limits) -> sp.Expr:
    for i, a, b in reversed(limits):
        body = sp.Sum(body, (i, a, b))
    return body


def _triangular(body, limits, rules):
    """Σ_{i=a}^{b} Σ_{j=c}^{i+s} f
         = Σ_{i=a}^{b} Σ_{j=c}^{a+s−1} f + Σ_{j=a+s}^{b+s} Σ_{i=j−s}^{b} f,
    for the first level whose inner upper limit is the outer index (plus s) and whose inner
    lower limit is free of it; None when there is no such level."""
    for n in range(len(limits) - 1):
        (i, a, b), (j, c, d) = limits[n], limits[n + 1]
        s = sp.expand(d - i)
        if c.has(i) or s.has(i) or not integer_valued(s) or a.has(j) or b.has(j):
            continue
        if any(x.has(i) or x.has(j) for lim in limits[n + 2:] for x in lim[1:]) or any(
                x.has(j) for lim in limits[:n] for x in lim[1:]):
            continue
        rules.add("exchange of Σ (triangular)")
        head, tail = limits[:n], limits[n + 2:]
        part1 = head + [(i, a, b), (j, c, a + s - 1)] + tail
        part2 = head + [(j, a + s, b + s), (i, j - s, b)] + tail
        return _build(body, part1) + _build(body, part2)
    return None


def _roles(body: sp.Expr, indices: list[sp.Symbol]) -> tuple:
    """Where each index occurs in a summand (which function, which argument, or as a factor),
    blind to shifts and limits, so both sides of a claim order their sums alike."""
    out = []
    for d in indices:
        roles = []
        for atom in body.atoms(AppliedUndef, Prefix, sp.Indexed):
            args = atom.indices if isinstance(atom, sp.Indexed) else atom.args
            name = str(atom.base) if isinstance(atom, sp.Indexed) else str(atom.func)
            roles += [(name, pos) for pos, arg in enumerate(args) if arg.has(d)]
        bare = body.xreplace({a: sp.S.One for a in body.atoms(AppliedUndef, Prefix, sp.Indexed)})
        roles.append(("·", int(bare.has(d))))
        out.append(tuple(sorted(roles)))
    return tuple(out)


def _canonical_order(body, limits, rules):
    """The nested sums' order (among those with independent limits) whose form, with the
    indices renamed by position, sorts first."""
    n = len(limits)
    if n < 2 or n > 3:
        return limits
    best, best_key = limits, None
    for order in permutations(range(n)):
        perm = [limits[k] for k in order]
        bound = set()
        ok = True
        for idx, (v, lo, hi) in enumerate(perm):
            later = {perm[t][0] for t in range(idx + 1, n)}
            if lo.free_symbols & later or hi.free_symbols & later:
                ok = False
                break
            bound.add(v)
        if not ok:
            continue
        dummies = [sp.Symbol(f"_k{t}", integer=True) for t in range(n)]
        ren = {perm[t][0]: dummies[t] for t in range(n)}
        renamed = body.xreplace(ren)
        key = (_roles(renamed, dummies), sp.default_sort_key(_build(
            renamed, [(ren[v], lo.xreplace(ren), hi.xreplace(ren)) for v, lo, hi in perm])))
        if best_key is None or key < best_key:
            best, best_key = perm, key
    if best != limits:
        rules.add("exchange of Σ")
    return best


# --------------------------------------------------------------------------- whole expressions

def rewrite_sums(e: sp.Expr, ctx, rules: set[str]) -> sp.Expr:
    """Every Σ rewritten by the rules above, innermost first."""
    if not e.args or e.is_Atom:
        return e
    if isinstance(e, sp.Sum):
        body, limits = _flatten(e)
        if body.is_Add and body.has(sp.Sum):  # Σ(A + Σ B) = ΣA + ΣΣB: nested blocks apart
            rules.add("linearity of Σ")
            return rewrite_sums(sp.Add(*[_build(t, limits) for t in body.args]), ctx, rules)
        inner = _push_factor(body)
        if inner is not None:
            return rewrite_sums(_build(inner, limits), ctx, rules)
        if len(limits) > 1 and all(integer_valued(x) for _, a, b in limits for x in (a, b)):
            split = _triangular(body, limits, rules)
            if split is not None:
                return rewrite_sums(split, ctx, rules)
            limits = _canonical_order(body, limits, rules)
        inner_ctx = ctx  # each index within its limits (branches.in_range)
        for i, a, b in limits:
            inner_ctx = in_range(inner_ctx.without(i), i, a, b)
        f = rewrite_sums(body, inner_ctx, rules)
        for n in range(len(limits) - 1, -1, -1):
            i, a, b = limits[n]
            level_ctx = ctx
            for k, lo, hi in limits[:n]:
                level_ctx = in_range(level_ctx.without(k), k, lo, hi)
            f = sum_one(f, i, rewrite_sums(a, level_ctx, rules),
                        rewrite_sums(b, level_ctx, rules), level_ctx, rules)
        return f
    if isinstance(e, sp.Tuple) or not isinstance(e, sp.Basic):
        return e
    if isinstance(e, sp.Derivative):
        return e
    args = [rewrite_sums(x, ctx, rules) for x in e.args]
    return e.func(*args) if args != list(e.args) else e


def _push_factor(body: sp.Expr) -> sp.Expr | None:
    """c·Σ_j B as Σ_j c·B when c does not involve j (so that the sums nest directly); where
    c·Σ_j B has a value, so does the other, and they agree (an empty Σ_j gives 0 both ways)."""
    if not body.is_Mul:
        return None
    sums = [a for a in body.args if isinstance(a, sp.Sum)]
    if len(sums) != 1:
        return None
    (s,) = sums
    rest = body / s
    if any(rest.has(v) for v, _, _ in s.limits):
        return None
    return sp.Sum(rest * s.function, *s.limits)


def _zero_empty(e: sp.Expr) -> sp.Expr:
    repl = {f: sp.S.Zero for f in e.atoms(Prefix) if f.args[0] == 0}
    return e.xreplace(repl) if repl else e


def align_offsets(e: sp.Expr, ctx, rules: set[str]) -> sp.Expr:
    """P_g(r + m) over the smallest m of its group (over 0 when r = 0, since P_g(0) = 0):
    P_g(r + m) = P_g(r + m₀) + Σ_{t=m₀+1}^{m} g(r + t), and P_g(m) = −Σ_{t=m+1}^{0} g(t) for m < 0,
    each applied only when the added terms are defined wherever the claim is."""
    groups: dict[tuple, list[tuple[int, sp.Expr]]] = {}
    for f in e.atoms(Prefix):
        const, rest = f.args[0].as_coeff_Add()
        if const.is_Integer:
            groups.setdefault((f.func, rest, f.args[1:]), []).append((int(const), f))
    repl = {}
    for (fn, rest, params), members in groups.items():
        low = 0 if rest == 0 else min(m for m, _ in members)
        for m, f in members:
            if m == low or abs(m - low) > MAX_OFFSET:
                continue
            step = 1 if m > low else -1
            ts = range(low + 1, m + 1) if m > low else range(m + 1, low + 1)
            terms = [f.summand(rest + t) for t in ts]
            if not all(_defined(t, ctx) for t in terms):
                continue
            base = fn(rest + low, *params) if not (rest == 0 and low == 0) else sp.S.Zero
            repl[f] = base + step * sp.Add(*terms)
    if not repl:
        return e
    rules.add("prefix offsets")
    return _zero_empty(canon_args(e.xreplace(repl)))


def sums_normal_form(e: sp.Expr, ctx, rules: set[str]) -> sp.Expr:
    """Every Σ rewritten and empty prefixes dropped (one side of a claim at a time)."""
    return _zero_empty(canon_args(rewrite_sums(e, ctx, rules)))


def relate_offsets(e: sp.Expr, ctx, rules: set[str]) -> sp.Expr:
    """Nearby prefix arguments related (on the difference of the two sides)."""
    out = e
    for _ in range(3):  # an offset may expose another (P inside a summand of P)
        new = align_offsets(out, ctx, rules)
        if new == out:
            break
        out = new
    return out
