"""A normal form in which an identity's difference becomes 0.

Rules, applied bottom-up (each one an identity, so the rewrite never changes a value):

1. Derivatives are taken by `sympy.diff` (and `Subs` evaluated); nothing else is evaluated.
2. Linearity: a sum's summand is expanded and every factor that does not depend on the
   index is taken outside; each remaining monomial is summed on its own, in closed form when
   it holds no undefined function (SymPy's summation of a polynomial in the index).
3. Index shift, then telescoping: Σ_{i=a}^{b} g(i + c) = Σ_{i=a+c}^{b+c} g(i) when the index
   enters only as i + c; Σ_{i=a}^{b} (h(i) − h(i−1)) = h(b) − h(a−1).
4. Prefix sums: Σ_{i=a}^{b} g(i) = P_g(b, p…) − P_g(a−1, p…), where P_g(m, p…) = Σ_{i=1}^{m} g(i)
   is a fresh function of the summand g and of every other symbol p… that g depends on (an
   outer summation index among them), and P_g(0, p…) = 0. With SymPy's (Karr's) convention for sums whose
   upper limit is below the lower one, this holds for all integer limits.
5. Offsets: P_g(a + m) = P_g(a) + Σ_{t=1}^{m} g(a + t) for integers m > 0, so that prefix
   sums whose arguments differ by a constant are written over one base.
6. Rational normal form: numerator of the difference over a common denominator, expanded.

Rules 3 and 4 need integer limits; a sum whose limits are not known to be integers is left
alone, and the identity stays undecided.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef

_INDEX = sp.Dummy("i", integer=True)
_PREFIX: dict[sp.Expr, sp.FunctionClass] = {}


def prefix_function(summand_key: sp.Expr) -> sp.FunctionClass:
    """The prefix-sum function P_g of a summand, the same one for the same summand."""
    fn = _PREFIX.get(summand_key)
    if fn is None:
        assumptions = {"integer": True} if summand_key.is_integer else {}
        fn = sp.Function(f"Σ{len(_PREFIX)}", **assumptions)
        _PREFIX[summand_key] = fn
    return fn


def _canon_args(e: sp.Expr) -> sp.Expr:
    """Expand the arguments of applied undefined functions, so P(k − 1) is always one shape."""
    repl = {}
    for f in e.atoms(AppliedUndef):
        new_args = [sp.expand(a) for a in f.args]
        if list(f.args) != new_args:
            repl[f] = f.func(*new_args)
    return e.xreplace(repl) if repl else e


def _parameters(g: sp.Expr, i: sp.Symbol) -> tuple[sp.Symbol, ...]:
    """The symbols a summand depends on besides its index, in a fixed order."""
    return tuple(sorted((s for s in g.free_symbols if s != i and not s.has(i)
                         and isinstance(s, sp.Symbol)), key=sp.default_sort_key))


def _is_prefix(f: sp.Expr) -> bool:
    return isinstance(f, AppliedUndef) and f.func in _PREFIX.values()


def _zero_empty_prefixes(e: sp.Expr) -> sp.Expr:
    repl = {f: sp.S.Zero for f in e.atoms(AppliedUndef) if _is_prefix(f) and f.args[0] == 0}
    return e.xreplace(repl) if repl else e


def _telescoping_part(terms: list[sp.Expr], i: sp.Symbol) -> sp.Expr:
    """h with h(i) − h(i−1) among the terms: each term whose negated shift is also a term."""
    present = set(terms)
    h = [t for t in terms if _canon_args(sp.expand(-t.subs(i, i - 1))) in present]
    return sp.Add(*h)


def _uniform_shift(f: sp.Expr, i: sp.Symbol) -> int:
    """c when the index enters f only as i + c inside function arguments or subscripts."""
    shifts, holders = set(), {}
    for atom in f.atoms(AppliedUndef, sp.Indexed):
        if not atom.has(i):
            continue
        args = atom.indices if isinstance(atom, sp.Indexed) else atom.args
        for arg in args:
            if arg.has(i):
                const, rest = sp.expand(arg).as_coeff_Add()
                if rest != i or not const.is_Integer:
                    return 0
                shifts.add(int(const))
        holders[atom] = sp.Dummy()
    if len(shifts) != 1 or f.xreplace(holders).has(i):
        return 0
    return shifts.pop()


def _sum_one(f: sp.Expr, i: sp.Symbol, a: sp.Expr, b: sp.Expr, rules: set[str]) -> sp.Expr:
    if f.is_zero:
        return sp.S.Zero
    if a.is_integer is not True or b.is_integer is not True:
        return sp.Sum(f, (i, a, b))
    shift = _uniform_shift(f, i)
    if shift:  # Σ_{i=a}^{b} g(i + c) = Σ_{j=a+c}^{b+c} g(j)
        rules.add("index shift")
        f, a, b = f.subs(i, i - shift), a + shift, b + shift
    f = _canon_args(sp.expand(f))
    terms = list(sp.Add.make_args(f))
    h = _telescoping_part(terms, i)
    result = sp.S.Zero
    if h != 0:
        rest = _canon_args(sp.expand(f - (h - h.subs(i, i - 1))))
        if rest == 0 or len(sp.Add.make_args(rest)) < len(terms):
            rules.add("telescoping")
            result += h.subs(i, b) - h.subs(i, a - 1)
            terms = [] if rest == 0 else list(sp.Add.make_args(rest))
    for term in terms:
        coeff, g = term.as_independent(i, as_Add=False)
        if g == 1:
            rules.add("linearity of Σ")
            result += coeff * (b - a + 1)
            continue
        if not g.atoms(AppliedUndef, sp.Indexed, sp.Sum, sp.Derivative):
            closed = sp.Sum(g, (i, a, b)).doit()
            if not closed.has(sp.Sum):
                rules.add("closed-form Σ")
                result += coeff * closed
                continue
        rules.add("prefix sums (Karr)")
        if coeff != 1:
            rules.add("linearity of Σ")
        params = _parameters(g, i)
        P = prefix_function(sp.Lambda(params, g.xreplace({i: _INDEX})) if params
                            else g.xreplace({i: _INDEX}))
        result += coeff * (P(b, *params) - P(a - 1, *params))
    return _zero_empty_prefixes(_canon_args(result))


def rewrite_sums(e: sp.Expr, rules: set[str]) -> sp.Expr:
    """Rules 2–4, innermost sums first."""
    if not e.args or e.is_Atom:
        return e
    if isinstance(e, sp.Sum):
        f = rewrite_sums(e.function, rules)
        for i, a, b in e.limits:
            f = _sum_one(f, i, rewrite_sums(a, rules), rewrite_sums(b, rules), rules)
        return f
    if isinstance(e, sp.Tuple) or not isinstance(e, sp.Basic):
        return e
    args = [rewrite_sums(x, rules) for x in e.args]
    return e.func(*args) if args != list(e.args) else e


def _align_offsets(e: sp.Expr, rules: set[str]) -> sp.Expr:
    """Rule 5: each prefix function's arguments a + m (m an integer) over the smallest m."""
    keys = {fn: key for key, fn in _PREFIX.items()}
    groups: dict[tuple, list[tuple[int, sp.Expr]]] = {}
    for f in e.atoms(AppliedUndef):
        if f.func in keys:
            const, rest = f.args[0].as_coeff_Add()
            if const.is_Integer:
                groups.setdefault((f.func, rest, f.args[1:]), []).append((int(const), f))
    repl = {}
    for (fn, rest, params), members in groups.items():
        low = min(m for m, _ in members)
        if rest == 0 and low > 0:
            low = 0  # P_g(0, p…) = 0
        key = keys[fn]
        body = key(*params) if isinstance(key, sp.Lambda) else key
        for m, f in members:
            if m > low:
                tail = sp.Add(*[body.xreplace({_INDEX: rest + t}) for t in range(low + 1, m + 1)])
                repl[f] = fn(rest + low, *params) + tail
    if not repl:
        return e
    rules.add("prefix offsets")
    return _zero_empty_prefixes(_canon_args(e.xreplace(repl)))


def take_derivatives(e: sp.Expr) -> sp.Expr:
    """Rule 1: every Derivative and Subs evaluated, innermost first, sums left as they are."""
    if not e.args or e.is_Atom:
        return e
    args = [take_derivatives(a) for a in e.args]
    if args != list(e.args):
        e = e.func(*args)
    if isinstance(e, (sp.Derivative, sp.Subs)):
        done = e.doit(deep=False)
        return take_derivatives(done) if done != e else e
    return e


def rational_zero(e: sp.Expr) -> bool:
    """Rule 6: whether `e` is 0 as a rational function of its atoms (a polynomial is only
    expanded; a rational function is put over a common denominator first)."""
    expanded = sp.expand(e)
    if expanded == 0:
        return True
    if not any(p.exp.is_negative for p in expanded.atoms(sp.Pow)):
        return False
    num, _ = sp.fraction(sp.together(expanded))
    return sp.expand(num) == 0


def normal_form(e: sp.Expr) -> tuple[sp.Expr, tuple[str, ...]]:
    """`e` rewritten by rules 1–5, and the names of the rules that fired."""
    rules: set[str] = set()
    done = take_derivatives(e)
    if done != e:
        rules.add("sympy.diff")
    out = _zero_empty_prefixes(_canon_args(rewrite_sums(done, rules)))
    out = _align_offsets(out, rules)
    return out, tuple(sorted(rules))
