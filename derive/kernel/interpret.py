"""Interpretations: a claim with Σ over symbolic limits and undefined functions made concrete.

An interpretation gives values to the claim's own symbols (a count K = 2) and Lambdas to its
undefined functions and indexed bases (ℓ(i, θ) ↦ (θ·x_i − y_i)²/2), in terms of finitely many
variables that the witness search then assigns. The claim's sides are written out under the
interpretation by the kernel itself (evaluate.py), so a witness always refutes the claim as
stated; `confirm` re-evaluates the original sides at the final point before anything is said.

`automatic` builds interpretations when the caller gives none: small values for the integer
symbols, integer-valued functions as small tables (rules at every integer), and every other
undefined function as a polynomial of degree ≤ 1 in its non-integer arguments with one set of
coefficients per integer argument tuple (free values, so any smooth function's values and
slopes are reachable), then of degree ≤ 2 (curvatures: f(2x)′ = 2f′(x) holds for every affine
f, not for u²)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice, product

import sympy as sp
from sympy.core.function import AppliedUndef

from derive.kernel.evaluate import NotConcrete, differ, instantiate, value_at
from derive.kernel.exact import exact_str
from derive.kernel.facts import Fact
from derive.kernel.verdict import Witness
from derive.kernel.witness import (
    Instantiation,
    _compositions,
    assumptions_of,
    domain_values,
    in_domain,
    satisfies,
)

MAX_AUTO_SHAPES = 24
"""Automatic interpretations of degree 1 tried per claim."""

MAX_TABLES = 4
"""Tables of the integer-valued functions tried with each value of the integer symbols."""

MAX_CURVED_SHAPES = 4
"""Automatic interpretations tried again with free values of degree 2 (a curvature), when a
free function has an argument that is not a concrete integer."""

TABLE_ARGUMENTS = range(-2, 7)
"""Arguments an integer-valued function's table covers (others take its first domain value)."""


@dataclass(frozen=True)
class Interpretation:
    """Concrete meaning for a claim's symbols and functions, over `variables`."""

    shape: str
    symbols: dict = field(default_factory=dict)
    functions: dict = field(default_factory=dict)
    variables: tuple[sp.Symbol, ...] = ()
    names: dict = field(default_factory=dict)
    shown: tuple[tuple[str, sp.Expr], ...] = ()
    """What a witness shows instead of the variables it mentions: (name, expression) pairs,
    such as ("ell(3, theta)", c₀ + c₁·theta)."""
    quick: bool = False
    """Search only the first assignments (witness.QUICK_POINTS): a shape tried again with more
    variables (curvatures), whose witnesses sit at small heights."""


@dataclass(frozen=True)
class Family:
    """Interpretations of a claim, smallest first: `interpret(shape)` for each of `shapes()`."""

    shapes: Callable[[], Iterable[object]]
    interpret: Callable[[object], Interpretation]
    max_shapes: int = 12


@dataclass(frozen=True)
class Schema:
    """A claim with a discrete parameter: for each of `shapes()`, `sides(shape)` gives the
    claim on that shape as an Instantiation (its sides are the claim; nothing else builds
    them). Such a claim can be refuted on one shape, never proved for all."""

    shapes: Callable[[], Iterable[object]]
    sides: Callable[[object], Instantiation]
    max_shapes: int = 12


class Table:
    """A function of integer arguments given by its values at finitely many points and by
    `default` elsewhere (a value, or an expression of `args` such as max(a₀, 1)): looked up
    directly at integers, a Piecewise Lambda for display and anywhere else."""

    def __init__(self, args: tuple[sp.Symbol, ...], entries: dict[tuple, sp.Expr],
                 default: sp.Expr):
        self.args = tuple(args)
        self.entries = {tuple(int(k) for k in key): sp.S(v) for key, v in entries.items()}
        self.default = sp.S(default)

    def __call__(self, *values):
        if all(isinstance(v, sp.Integer) or type(v) is int for v in values):
            key = tuple(int(v) for v in values)
            if key in self.entries:
                return self.entries[key]
            if self.default.free_symbols & set(self.args):
                return self.default.xreplace(dict(zip(self.args, map(sp.Integer, key))))
            return self.default
        return self.as_lambda()(*values)

    def as_lambda(self) -> sp.Lambda:
        pieces = [(value, sp.And(*[sp.Eq(a, k) for a, k in zip(self.args, key)]))
                  for key, value in self.entries.items()]
        return sp.Lambda(self.args, sp.Piecewise(*pieces, (self.default, True))
                         if pieces else self.default)

    def xreplace(self, point: dict) -> Table:
        return Table(self.args, {k: v.xreplace(point) for k, v in self.entries.items()},
                     self.default.xreplace(point))


def table(args: tuple[sp.Symbol, ...], entries: dict[tuple, sp.Expr], default) -> Table:
    """A function of integer arguments given by its values at finitely many points."""
    return Table(args, entries, default)


def as_lambda(interpretation) -> sp.Lambda:
    return interpretation.as_lambda() if isinstance(interpretation, Table) else interpretation


# --------------------------------------------------------------------------- writing out

def _free_variables(interp: Interpretation, lhs, rhs, facts) -> tuple[sp.Symbol, ...]:
    """The interpretation's variables, then the claim's symbols it leaves free."""
    rest = sorted((s for s in _free_symbols((lhs, rhs, *(f.expr for f in facts)))
                   if s not in interp.symbols and s not in interp.variables),
                  key=lambda s: s.name)
    return tuple(interp.variables) + tuple(rest)


MAX_EVERY_INSTANCES = 256
"""Most instances a fact over index ranges (facts.every) is written out to on one shape."""


def instances(facts: tuple[Fact, ...], symbols: dict) -> tuple[Fact, ...]:
    """The facts with each fact over index ranges (facts.every) replaced by its instances at
    every index of its ranges, once the symbols' concrete values make the limits integers
    (an empty range gives none: the fact says nothing there). NotConcrete otherwise."""
    out: list[Fact] = []
    for f in facts:
        if not f.over:
            out.append(f)
            continue
        subs: list[dict] = [{}]
        for i, lo, hi in f.over:
            grown = []
            for sub in subs:
                a, b = (sp.S(x).xreplace(symbols).xreplace(sub) for x in (lo, hi))
                if not (a.is_Integer and b.is_Integer):
                    raise NotConcrete(f"the range of {f.reason!r} is not concrete")
                grown += [{**sub, i: sp.Integer(v)} for v in range(int(a), int(b) + 1)]
            subs = grown
            if len(subs) > MAX_EVERY_INSTANCES:
                raise NotConcrete(f"more than {MAX_EVERY_INSTANCES} instances of {f.reason!r}")
        out += [Fact(f.expr.xreplace(sub), f.reason, f.relation, f.origin, f.uses)
                for sub in subs]
    return tuple(out)


def _integer_facts_hold(facts: tuple[Fact, ...], symbols: dict) -> bool:
    """Whether every fact about the integer symbols alone (1 ≤ p ≤ m) holds at their values:
    a shape where one fails has no witness, so it is not built."""
    for f in facts:
        if f.over or f.expr.atoms(sp.Indexed, AppliedUndef, sp.Sum):
            continue
        if not f.expr.free_symbols or not f.expr.free_symbols <= set(symbols):
            continue
        if not f.relation.holds(f.expr.xreplace(symbols)):
            return False
    return True


def write_out(lhs, rhs, facts: tuple[Fact, ...], interp: Interpretation) -> Instantiation:
    """The claim's own sides and facts written out under an interpretation."""
    facts = instances(facts, interp.symbols)
    budget = [5000]
    parts = [instantiate(e, interp.symbols, interp.functions, budget)
             for e in (lhs, rhs, *(f.expr for f in facts))]
    variables = _free_variables(interp, lhs, rhs, facts)
    for p in parts:
        extra = p.expr.free_symbols - set(variables)
        if extra:
            raise NotConcrete(f"{', '.join(sorted(map(str, extra)))} left open")
    kinks = tuple(k for p in parts for k in p.kinks)
    names = {**{v: v.name for v in variables}, **interp.names}
    return Instantiation(interp.shape, parts[0].expr, parts[1].expr, variables,
                         tuple((p.expr, f.relation) for p, f in zip(parts[2:], facts)),
                         names, kinks, tuple(d for p in parts for d in p.defined))


def _concrete(interp: Interpretation, point: dict) -> tuple[dict, dict]:
    symbols = {s: sp.S(v).xreplace(point) for s, v in interp.symbols.items()}
    functions = {f: lam.xreplace(point) if isinstance(lam, Table)
                 else sp.Lambda(lam.variables, lam.expr.xreplace(point))
                 for f, lam in interp.functions.items()}
    return symbols, functions


def confirm(lhs, rhs, facts: tuple[Fact, ...], interp: Interpretation,
            point: dict) -> Witness | None:
    """The witness at `point`, after evaluating the claim's own sides and facts again with every
    value concrete, and checking every symbol's and every used function value's domain."""
    symbols, functions = _concrete(interp, point)
    for v in _free_variables(interp, lhs, rhs, [f for f in facts if not f.over]):
        if v not in interp.variables and v in point:
            symbols[v] = point[v]
    try:
        facts = instances(facts, symbols)
    except NotConcrete:
        return None
    exprs = [sp.S(e) for e in (lhs, rhs, *(f.expr for f in facts))]
    for app in {a for e in exprs for a in e.atoms(AppliedUndef, sp.Indexed)}:
        key = app.base if isinstance(app, sp.Indexed) else app.func
        if key not in functions:  # cancelled before it was used: any value of its domain
            n = len(app.indices if isinstance(app, sp.Indexed) else app.args)
            values = domain_values(app, 1)
            if not values:
                return None
            functions[key] = sp.Lambda(tuple(sp.Dummy(f"a{k}") for k in range(n)), values[0])
    for s, value in symbols.items():
        if not (value.is_number and in_domain(s, value)):
            return None
    try:
        parts = [instantiate(e, symbols, functions) for e in (lhs, rhs, *(f.expr for f in facts))]
    except NotConcrete:
        return None
    values = []
    for p in parts:
        v = value_at(p, {})
        if v is None:
            return None
        for original, used in p.applications:
            u = value_at(type(p)(used), {})
            if u is None or not satisfies(assumptions_of(original), u):
                return None
        values.append(v)
    for v, f in zip(values[2:], facts):
        if not f.relation.holds(v):
            return None
    if not differ(values[0], values[1]):
        return None
    names = {**{v: v.name for v in interp.variables}, **interp.names}
    hidden = set().union(*(e.free_symbols for _, e in interp.shown)) & set(interp.variables)
    own = {v: point[v] for v in interp.variables if v in point}
    assignment = tuple((name, sp.expand(e.xreplace(own))) for name, e in interp.shown)
    assignment += tuple((names.get(v, str(v)), point[v]) for v in _free_variables(
        interp, lhs, rhs, facts) if v in point and v not in hidden)
    return Witness(interp.shape, assignment, values[0], values[1],
                   symbols=tuple(sorted(symbols.items(), key=lambda kv: str(kv[0]))),
                   functions=_self_contained(functions, (lhs, rhs, *(f.expr for f in facts))))


def _self_contained(functions: dict, exprs) -> tuple:
    """A Lambda for each undefined function and subscript of the claim, with the helper tables
    of the interpretation written into it, so that the witness stands on its own."""
    used = {a.func for e in exprs for a in sp.S(e).atoms(AppliedUndef)} | {
        x.base for e in exprs for x in sp.S(e).atoms(sp.Indexed)}
    lambdas = {f: as_lambda(v) for f, v in functions.items()}
    helpers = {f: lam for f, lam in lambdas.items() if f not in used}
    out = []
    for f in sorted(used & set(lambdas), key=str):
        lam = lambdas[f]
        for _ in range(4):  # helpers may use helpers; four levels is more than any builds
            body = lam.expr
            for h, hl in helpers.items():
                body = body.replace(h, hl) if not isinstance(h, sp.IndexedBase) else body
            if body == lam.expr:
                break
            lam = sp.Lambda(lam.variables, body)
        out.append((f, lam))
    return tuple(out)


# --------------------------------------------------------------------------- automatic shapes

def closed(exprs) -> bool:
    """Whether the expressions need no interpretation: no Σ, undefined function or subscript."""
    return not any(sp.S(e).atoms(sp.Sum, AppliedUndef, sp.Indexed) for e in exprs)


def _free_symbols(exprs) -> set[sp.Symbol]:
    """The symbols free somewhere in the expressions (SymPy's binding: a Σ index is free
    where it occurs outside its Σ), without subscript bases and subscripted names."""
    exprs = [sp.S(e) for e in exprs]
    labels = {x.label for e in exprs for x in e.atoms(sp.IndexedBase)}
    return {s for e in exprs for s in e.free_symbols | _entry_indices(e)
            if isinstance(s, sp.Symbol) and s not in labels}


def _entry_indices(e: sp.Basic, bound: frozenset = frozenset()) -> set:
    """The free symbols in the indices of a derivative's variable W[p, q], which SymPy leaves
    out of a Derivative's free_symbols (p and q need values as much as any other symbol)."""
    if not isinstance(e, sp.Basic) or e.is_Atom or not e.has(sp.Derivative):
        return set()
    out: set = set()
    if isinstance(e, sp.Sum):
        out |= _entry_indices(e.function, bound | {i for i, _, _ in e.limits})
        return out | {s for _, a, b in e.limits for s in (_entry_indices(a, bound)
                                                          | _entry_indices(b, bound))}
    if isinstance(e, sp.Derivative):
        for v, _ in e.variable_count:
            if isinstance(v, sp.Indexed):
                out |= {s for i in v.indices for s in i.free_symbols} - bound
    for a in e.args:
        out |= _entry_indices(a, bound)
    return out


def _structure(lhs, rhs, facts):
    exprs = [sp.S(e) for e in (lhs, rhs, *(f.expr for f in facts))]
    bound = {i for f in facts for i, _, _ in f.over}
    limits = [x for f in facts for _, lo, hi in f.over for x in (lo, hi)]
    free = _free_symbols(exprs + limits) - bound
    integers = sorted((s for s in free if s.is_integer), key=lambda s: s.name)
    functions = sorted({a.func for e in exprs for a in e.atoms(AppliedUndef)}, key=str)
    bases = sorted({x.base for e in exprs for x in e.atoms(sp.Indexed)}, key=str)
    return exprs, integers, functions, bases


def _integer_tables(fn, args: tuple[sp.Symbol, ...]) -> list[tuple[str, sp.Expr]]:
    """Small tables for an integer-valued function of integer arguments, as rules in its first
    argument k, each kept when its values at k = −2…6 are in the function's domain: constant
    at its first domain value, then k for k ≥ 1 and 1 for k ≤ 0, then 2k for k ≥ 1 and 1 − 2k
    for k ≤ 0 (1, 2, 3, 4, … at k = 0, 1, −1, 2, …: no two arguments, neighbours at and below
    0 among them, share a value), then its second domain value, 2 for k ≤ 1 and 1 for k ≥ 2,
    and its third domain value."""
    probe = fn(*[sp.Dummy(integer=True) for _ in args])
    values = domain_values(probe, 3)
    k = args[0]
    shown = f"{fn}(k{', …' if len(args) > 1 else ''})"
    constants = [(f"{fn}(·) = {exact_str(v)}", v) for v in values]
    ramps = [(f"{shown} = k for k ≥ 1, 1 for k ≤ 0", sp.Max(k, 1)),
             (f"{shown} = 2k for k ≥ 1, 1 − 2k for k ≤ 0",
              sp.Piecewise((2 * k, k >= 1), (1 - 2 * k, True))),
             (f"{shown} = 2 for k ≤ 1, 1 for k ≥ 2", sp.Piecewise((2, k <= 1), (1, True)))]
    ramps = [(label, rule) for label, rule in ramps
             if all(in_domain(probe, rule.subs(k, n)) for n in TABLE_ARGUMENTS)]
    order = constants[:1] + ramps[:2] + constants[1:2] + ramps[2:] + constants[2:]
    return order


def automatic(lhs, rhs, facts: tuple[Fact, ...]) -> Iterator[Interpretation]:
    """Interpretations of a claim with Σ or undefined functions, smallest first: its integer
    symbols' small values by total height, the integer-valued functions' first MAX_TABLES
    tables by total height, the other functions as free values of degree 1 (a value and a
    slope); then the first MAX_CURVED_SHAPES of these again with free values of degree 2."""
    exprs, integers, functions, bases = _structure(lhs, rhs, facts)
    int_funcs = [f for f in functions if f(*[sp.Dummy() for _ in range(_arity(f, exprs))])
                 .is_integer]
    other_funcs = [f for f in functions if f not in int_funcs]
    int_choices = [domain_values(s, 6) for s in integers]
    int_args = {f: tuple(sp.Dummy(f"a{n}", integer=True) for n in range(_arity(f, exprs)))
                for f in int_funcs}
    table_choices = [_integer_tables(f, int_args[f]) for f in int_funcs]

    def combinations():
        for ints in _by_height(int_choices):
            if not _integer_facts_hold(facts, dict(zip(integers, ints))):
                continue
            for tables in islice(_by_height(table_choices), MAX_TABLES):
                symbols = dict(zip(integers, ints))
                labels = [f"{s} = {exact_str(v)}" for s, v in symbols.items()]
                labels += [label for label, _ in tables]
                int_fns = {f: table(int_args[f], {}, rule)
                           for f, (_, rule) in zip(int_funcs, tables)}
                yield symbols, int_fns, ", ".join(labels)

    def written(symbols):  # the claim's expressions, each fact over ranges as its instances
        if not any(f.over for f in facts):
            return exprs
        try:
            return [sp.S(lhs), sp.S(rhs), *(f.expr for f in instances(facts, symbols))]
        except NotConcrete:
            return None

    built = []
    for symbols, int_fns, label in combinations():
        here = written(symbols)
        if here is None:
            continue
        interp = _free_functions(here, symbols, int_fns, other_funcs, bases, label)
        if interp is None:
            continue
        yield interp
        built.append((symbols, int_fns, label))
        if len(built) >= MAX_AUTO_SHAPES:
            break
    for symbols, int_fns, label in built[:MAX_CURVED_SHAPES]:
        interp = _free_functions(written(symbols), symbols, int_fns, other_funcs, bases, label,
                                 degree=2)
        if interp is not None:
            yield interp


def _arity(f, exprs) -> int:
    for e in exprs:
        for a in e.atoms(AppliedUndef):
            if a.func == f:
                return len(a.args)
    return 1


def _by_height(choices: list[list]) -> Iterator[tuple]:
    if not choices:
        yield ()
        return
    if any(not c for c in choices):
        return
    caps = [len(c) for c in choices]

    for height in range(sum(c - 1 for c in caps) + 1):
        for idx in _compositions(height, len(choices), caps):
            yield tuple(c[i] for c, i in zip(choices, idx))


def _exponents(count: int, degree: int) -> list[tuple[int, ...]]:
    """The monomials of total degree ≤ `degree` in `count` variables, by degree, then with the
    first variable's exponent largest: (0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2), …"""
    out = [(0,) * count]
    for total in range(1, degree + 1):
        out += sorted((e for e in product(range(total + 1), repeat=count) if sum(e) == total),
                      reverse=True)
    return out


DISPLAY_NAMES = ("u", "v", "w", "r", "s")
"""Names for a free function's arguments in a witness, when the claim uses it at several
arguments (f(u) = u², never f(_xi_1) = …)."""


def _display_arguments(uses: list[tuple], smooth: list[int], taken: set[str]) -> list:
    """A display symbol for each argument position in `smooth`: the claim's own symbol when every
    use has that same symbol there (ell(1, theta)), else a fresh name not naming a symbol of
    the claim."""
    fresh = [n for n in DISPLAY_NAMES if n not in taken] + [f"u{k}" for k in range(1, 9)]
    out = []
    for n in smooth:
        at = {u[n] for u in uses}
        (only,) = at if len(at) == 1 else (None,)
        if isinstance(only, sp.Symbol) and not isinstance(only, sp.Dummy):
            out.append(sp.Symbol(only.name))
        else:
            out.append(sp.Symbol(fresh.pop(0)))
    return out


def _free_functions(exprs, symbols, int_fns, other_funcs, bases, label,
                    degree: int = 1) -> Interpretation | None:
    """Tables of fresh variables for the other functions and subscripts, found by writing the
    claim out once with them left opaque: for each integer-argument tuple, the coefficients of
    a polynomial of total degree ≤ `degree` in the other arguments (None at degree 2 when no
    function has such an argument)."""
    try:
        written = [instantiate(e, symbols, int_fns).expr for e in exprs]
    except NotConcrete:
        return None
    apps: dict = {}
    for w in written:
        for a in w.atoms(AppliedUndef):
            if a.func in other_funcs:
                apps.setdefault(a.func, set()).add(a.args)
        for x in w.atoms(sp.Indexed):
            if x.base in bases:
                apps.setdefault(x.base, set()).add(tuple(x.indices))
    taken = {s.name for e in exprs for s in sp.S(e).free_symbols}
    functions = dict(int_fns)
    variables: list[sp.Symbol] = []
    names: dict = {}
    display: list[tuple[str, sp.Expr]] = []
    curved = False
    for f, uses in sorted(apps.items(), key=lambda kv: str(kv[0])):
        uses = sorted(uses, key=sp.default_sort_key)
        arity = len(uses[0])
        if any(len(u) != arity for u in uses):
            return None
        keyed = [n for n in range(arity) if all(u[n].is_Integer for u in uses)]
        smooth = [n for n in range(arity) if n not in keyed]
        probe = (f[tuple(sp.Dummy() for _ in range(arity))] if isinstance(f, sp.IndexedBase)
                 else f(*[sp.Dummy() for _ in range(arity)]))
        assumptions = {k: v for k, v in assumptions_of(probe).items() if v is not None}
        restricted = any(k not in ("real", "complex", "commutative", "finite", "infinite",
                                   "hermitian", "imaginary", "extended_real") for k in assumptions)
        if restricted and smooth:
            return None  # a polynomial in θ need not stay in the function's domain
        curved = curved or bool(smooth)
        args = tuple(sp.Dummy(f"a{n}", integer=n in keyed) for n in range(arity))
        keyed_args = tuple(args[n] for n in keyed)
        default = sp.S.Zero if satisfies(assumptions, sp.S.Zero) else sp.S.One
        monomials = _exponents(len(smooth), degree if smooth else 0)
        shown_args = _display_arguments(uses, smooth, taken)
        slots: list[dict] = [{} for _ in monomials]
        seen = set()
        for use in uses:  # one set of values per integer-argument tuple
            key = tuple(use[n] for n in keyed)
            if key in seen:
                continue
            seen.add(key)
            value = sp.S.Zero
            for slot, powers in enumerate(monomials):  # the value at 0, slopes, curvatures
                v = sp.Symbol(f"_c{len(variables)}", **assumptions)
                variables.append(v)
                names[v] = f"{f}({', '.join(exact_str(k) for k in key)})" + (
                    f"[{slot}]" if smooth else "")
                slots[slot][key] = v
                value += v * sp.Mul(*[a ** p for a, p in zip(shown_args, powers)])
            written_args = iter(shown_args)
            shown = ", ".join(exact_str(use[n]) if n in keyed else str(next(written_args))
                              for n in range(arity))
            display.append((f"{f}({shown})" if not isinstance(f, sp.IndexedBase)
                            else f"{f}[{shown}]", value))
        if not smooth:
            functions[f] = Table(keyed_args, slots[0], default)
            continue
        helpers = [sp.Function(f"{f}_{slot}") for slot in range(len(monomials))]
        for helper, entries in zip(helpers, slots):
            functions[helper] = Table(keyed_args, entries, 0)
        smooth_args = [args[n] for n in smooth]
        body = sum(helper(*keyed_args) * sp.Mul(*[a ** p for a, p in zip(smooth_args, powers)])
                   for helper, powers in zip(helpers, monomials))
        functions[f] = sp.Lambda(args, body)
    if degree > 1 and not curved:
        return None
    return Interpretation(label, symbols, functions, tuple(variables), names, tuple(display),
                          quick=degree > 1)
