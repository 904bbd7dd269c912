"""Certified enclosures of exact real constants, for deciding what exact arithmetic cannot
settle cheaply: signs, comparisons and decimal rounding of surds, exp and log.

An enclosure of a closed SymPy constant c is a pair of exact rationals lo ≤ c ≤ hi, computed
over the expression's DAG (a shared subexpression once) with interval arithmetic that rounds
every endpoint outward (mpmath's `libmpi` on binary floating-point endpoints of `bits` bits:
+ − × ÷ and integer powers exact up to a directed rounding, √ correctly rounded, exp and log
at `bits + 20` bits then widened by a relative 2^−bits, far beyond mpmath's few-ulp error).
No float and no `evalf` guess decides anything: a question is settled only when the enclosure
settles it, at a precision that doubles from 64 bits to MAX_BITS, and is otherwise answered
None ("undecided"). A value computed over many steps is enclosed by interval arithmetic of the
recurrence itself (its DAG, each step once): the cost of one precision is linear in the steps,
and the bits a long run loses to interval widening are made up by the doubling.

Handled: rationals, E and π, Add, Mul, Pow (integer, half-integer and rational exponents,
a positive base for any real exponent), exp, log, sin, cos, tanh, Abs, Min, Max, and the
language's relu, clamp, sigmoid and softplus (kernel/functions.py) — what the graph evaluator
(derive/graph/evaluate.py) and the formula language produce. A value that is not real
(a negative base under an even root, log of a negative number) has no enclosure.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from mpmath.libmp import (
    finf,
    fnan,
    fninf,
    from_int,
    from_rational,
    fzero,
    mpf_abs,
    mpf_add,
    mpf_lt,
    mpf_neg,
    mpf_shift,
    mpf_sign,
    mpf_sub,
    round_ceiling,
    round_floor,
)
from mpmath.libmp.libmpi import (
    mpi_abs,
    mpi_add,
    mpi_cos,
    mpi_div,
    mpi_exp,
    mpi_log,
    mpi_mul,
    mpi_pi,
    mpi_pow_int,
    mpi_sin,
    mpi_sqrt,
)

from derive.kernel import functions
from derive.kernel.dag import tree_size

MAX_BITS = 2**15
"""The highest working precision: past it a question is undecided."""

PRECISIONS = tuple(64 << k for k in range((MAX_BITS // 64).bit_length()))
"""Bits of the endpoints, 64, 128, 256, … MAX_BITS, tried in turn until a question is settled
(all of them costing at most twice the last one tried)."""

WALK_BITS = 2**30
"""Most endpoint bits one enclosure may hold at once (distinct subexpressions × bits, about
256 MB): a walk that would pass it stops the doubling, and the question is undecided."""

CACHE_BITS = 2**28
"""Most endpoint bits kept in the cache between calls (about 64 MB); emptied when full."""

MAX_NODES = 200_000
"""Most distinct subexpressions one enclosure evaluates (a bound on time and memory)."""

TRANSCENDENTAL_GUARD = 20
MAGNITUDE_BITS = 2**15
"""Largest binary exponent an endpoint keeps when it becomes an exact rational: an endpoint
beyond 2^±MAGNITUDE_BITS (about 10^±9864) is replaced by a weaker bound (a huge lower bound by
2^MAGNITUDE_BITS, a tiny one by 0, a huge upper bound by none at all), so that no integer
of a value such as exp(10⁹) (434,294,482 digits) is ever built."""

EXP_ARGUMENT = 2**64
"""exp is evaluated on arguments within ±EXP_ARGUMENT (mpmath's argument reduction costs
time in the argument's bits); beyond, the result is bounded by exp(±EXP_ARGUMENT) alone."""
"""Extra bits exp and log are computed with before the result is widened by 2^−bits."""

DECIMAL_EXPONENT = 10**15
"""Largest decimal exponent a certified decimal is written with: beyond it (e^(−10^4000) is
about 10^(−4.3·10^3999)) the scale 10^k is not computed (its repeated squaring costs time in
the exponent's digits: 18 s for softplus(−10^4000)), and the value has no certified decimal."""

REDUCTION_BITS = 2**16
"""sin and cos are enclosed on arguments below 2^REDUCTION_BITS in magnitude: mpmath reduces
the argument modulo π/2 with π to the argument's bits beyond the working precision (sin(10³⁰)
needs about 100 more, sin(10⁴⁰⁰⁰) 13,300), so the enclosure is as tight as the precision;
beyond, [−1, 1]."""


def _beyond_reduction(x) -> bool:
    """Whether an mpf endpoint is infinite or at least 2^REDUCTION_BITS in magnitude."""
    sign_, man, exp, bc = x
    if not man:
        return x != fzero
    return exp + bc > REDUCTION_BITS


_CACHE: dict = {}
_CACHE_SIZE = 200_000
"""(id(node), bits) → (node, enclosure), kept between calls (the steps of a recurrence share
them); keyed by identity, holding the node so that its id stays its own; emptied when full."""


class NoEnclosure(ValueError):
    """An expression this module cannot enclose: a symbol, a function it does not know, or a
    value that is not real."""


class TooCostly(NoEnclosure):
    """An enclosure past WALK_BITS at this precision (and so at every higher one)."""


class _Unsettled(ArithmeticError):
    """The enclosure at this precision is too wide to go on (a divisor or a log argument that
    may be 0): try more bits."""


def _rational_interval(p: int, q: int, bits: int):
    if q == 1 and abs(p).bit_length() <= bits:
        v = from_int(p)
        return (v, v)
    return (from_rational(p, q, bits, round_floor), from_rational(p, q, bits, round_ceiling))


def _widen(iv, bits: int):
    """The interval widened outward by 2^−bits times its largest magnitude."""
    a, b = iv
    m = mpf_abs(a) if mpf_lt(mpf_abs(b), mpf_abs(a)) else mpf_abs(b)
    d = mpf_shift(m, -bits)
    return (mpf_sub(a, d, bits, round_floor), mpf_add(b, d, bits, round_ceiling))


def _finite(iv):
    a, b = iv
    if a in (fnan, fninf, finf) or b in (fnan, fninf, finf):
        raise _Unsettled("unbounded")
    return iv


def _positive(iv, what: str):
    """`iv` when it lies in (0, ∞); NoEnclosure when it lies in (−∞, 0] (not real), else
    unsettled."""
    a, b = iv
    if mpf_sign(a) > 0:
        return iv
    if mpf_sign(b) <= 0:
        raise NoEnclosure(f"{what} of a number that is not positive")
    raise _Unsettled(what)


def _sqrt(iv, bits):
    a, b = iv
    if mpf_sign(a) >= 0:
        return mpi_sqrt(iv, bits)
    if mpf_sign(b) < 0:
        raise NoEnclosure("the square root of a negative number")
    raise _Unsettled("sqrt")


_EXP_LIMIT = from_int(EXP_ARGUMENT)
_MINUS_EXP_LIMIT = from_int(-EXP_ARGUMENT)


def _exp(iv, bits):
    a, b = iv
    if not (mpf_lt(a, _MINUS_EXP_LIMIT) or mpf_lt(_EXP_LIMIT, b)):
        return _widen(mpi_exp(iv, bits + TRANSCENDENTAL_GUARD), bits)
    if mpf_lt(b, _MINUS_EXP_LIMIT) and a[1] and a[2] + a[3] <= TINY_EXPONENT_BITS:
        # both ends below −2^64: mpmath reduces by log 2 to the argument's bits, so e^(−10^4000)
        # is 2^(−1.44·10^4000) to HUGE_EXP_BITS bits in its exponent's range; more bits would
        # cost seconds (exp(−10^4000) at 32,768 bits: 19 s) and no sign needs them, since
        # such values differ in their exponents (1 − tanh(10^4000) < 1 − sigmoid(10^4000))
        return _widen(mpi_exp(iv, HUGE_EXP_BITS + TRANSCENDENTAL_GUARD), HUGE_EXP_BITS)
    # exp is increasing: clamp the argument, then weaken the ends that were clamped
    def clamp(x):
        return _MINUS_EXP_LIMIT if mpf_lt(x, _MINUS_EXP_LIMIT) else (
            _EXP_LIMIT if mpf_lt(_EXP_LIMIT, x) else x)
    lo, hi = _widen(mpi_exp((clamp(a), clamp(b)), bits + TRANSCENDENTAL_GUARD), bits)
    if mpf_lt(a, _MINUS_EXP_LIMIT):
        lo = _exp_floor(a)
    if mpf_lt(_EXP_LIMIT, b):
        raise _Unsettled("exp of an argument beyond ±2^64")
    return (lo, hi)


LOG2_E_ABOVE = Fraction(14427, 10000)
"""A rational above log2(e) = 1.44269504…"""

TINY_EXPONENT_BITS = 2**16
"""Largest bit length of the binary exponent of a lower bound of exp(a) for a < −2^64 (so
up to about exp(−2^65536)); past it the lower bound is 0."""


HUGE_EXP_BITS = 64
"""The precision of e^a for a < −2^64 (see _exp)."""


def _exp_floor(a):
    """A positive lower bound of e^a for a < −2^64, 2^−N with N = ⌈|a|·1.4427⌉ + 1 computed in
    integers (e^a = 2^(a·log2 e) ≥ 2^−N): tiny, but positive, so that 1 − tanh(10^4000) is
    shown > 0; 0 when N itself would be past TINY_EXPONENT_BITS bits."""
    _, man, exp, bc = a
    if exp + bc > TINY_EXPONENT_BITS:
        return from_int(0)
    magnitude = Fraction(man) * Fraction(2) ** exp
    bound = magnitude * LOG2_E_ABOVE
    n = -((-bound.numerator) // bound.denominator) + 1
    return (0, 1, -n, 1)


def _log(iv, bits):
    return _widen(mpi_log(_positive(iv, "log"), bits + TRANSCENDENTAL_GUARD), bits)


def _div(num, den, bits):
    a, b = den
    if mpf_sign(a) <= 0 <= mpf_sign(b):
        raise _Unsettled("division")
    return mpi_div(num, den, bits)


def _pow(base, e: sp.Expr, exp_iv, bits):
    if e.is_Integer:
        n = int(e)
        if n < 0:
            return _div((from_int(1), from_int(1)), mpi_pow_int(base, -n, bits + 10), bits)
        return mpi_pow_int(base, n, bits)
    if e.is_Rational and e.q == 2:
        root = _sqrt(base, bits + 10)
        n = int(e.p)
        if n < 0:
            return _div((from_int(1), from_int(1)), mpi_pow_int(root, -n, bits + 10), bits)
        return mpi_pow_int(root, n, bits)
    # x^e = exp(e·log x) for x > 0 (SymPy's root of a negative number is not real)
    return _exp(mpi_mul(_log(base, bits + 10), exp_iv, bits + 10), bits)


def _minmax(ivs, smaller: bool):
    def pick(x, y):
        return (x if mpf_lt(x, y) else y) if smaller else (y if mpf_lt(x, y) else x)
    lo, hi = ivs[0]
    for a, b in ivs[1:]:
        lo, hi = pick(lo, a), pick(hi, b)
    return (lo, hi)


def _node(e: sp.Basic, args: list, bits: int):
    """The enclosure of one node from its arguments' enclosures."""
    if isinstance(e, sp.Add):
        out = args[0]
        for a in args[1:]:
            out = mpi_add(out, a, bits)
        return out
    if isinstance(e, sp.Mul):
        out = args[0]
        for a in args[1:]:
            out = mpi_mul(out, a, bits)
        return out
    if isinstance(e, sp.Pow):
        return _pow(args[0], e.exp, args[1], bits)
    if isinstance(e, sp.exp):
        return _exp(args[0], bits)
    if isinstance(e, sp.log):
        if len(args) == 2:
            return _div(_log(args[0], bits + 10), _log(args[1], bits + 10), bits)
        return _log(args[0], bits)
    if isinstance(e, (sp.sin, sp.cos)):  # within [−1, 1] whatever the widening
        one = from_int(1)
        a, b = args[0]
        if _beyond_reduction(a) or _beyond_reduction(b):
            return (mpf_neg(one), one)
        f = mpi_sin if isinstance(e, sp.sin) else mpi_cos
        lo, hi = _widen(f(args[0], bits + TRANSCENDENTAL_GUARD), bits)
        return (lo if mpf_lt(mpf_neg(one), lo) else mpf_neg(one), hi if mpf_lt(hi, one) else one)
    if isinstance(e, sp.Abs):
        return mpi_abs(args[0], bits)
    if isinstance(e, (sp.Min, sp.Max)):
        return _minmax(args, isinstance(e, sp.Min))
    if isinstance(e, functions.OWN + (sp.tanh,)):
        return _declared(e, args, bits)
    raise NoEnclosure(f"cannot enclose {type(e).__name__}")


_ZERO = (from_int(0), from_int(0))
_ONE = (from_int(1), from_int(1))


def _declared(e: sp.Basic, args: list, bits: int):
    """relu = max(x, 0), clamp = min(max(x, lo), hi), sigmoid = 1/(1 + e^(−x)),
    softplus = log(1 + e^x), tanh = 1 − 2/(e^(2x) + 1): each argument once, so interval
    arithmetic on the formula is as tight as its operations."""
    if isinstance(e, functions.relu):
        return _minmax([args[0], _ZERO], False)
    if isinstance(e, functions.clamp):
        return _minmax([_minmax(args[:2], False), args[2]], True)
    x = args[0]
    if isinstance(e, functions.sigmoid):
        return _div(_ONE, mpi_add(_ONE, _exp((mpf_neg(x[1]), mpf_neg(x[0])), bits), bits),
                    bits)
    if isinstance(e, functions.softplus):
        if mpf_sign(x[1]) < 0:  # log(1 + u), u = e^x: tiny for a large −x
            return _log1p_small(_exp(x, bits), bits)
        if mpf_sign(x[0]) > 0:  # x + log(1 + e^(−x)): e^x is never formed
            return mpi_add(x, _log1p_small(_exp((mpf_neg(x[1]), mpf_neg(x[0])), bits), bits),
                           bits)
        return _log(mpi_add(_ONE, _exp(x, bits), bits), bits)
    if mpf_sign(x[1]) < 0:  # tanh is odd: a negative argument as −tanh(−x)
        lo, hi = _tanh((mpf_neg(x[1]), mpf_neg(x[0])), bits)
        return (mpf_neg(hi), mpf_neg(lo))
    return _tanh(x, bits)


def _log1p_small(u, bits: int):
    """log(1 + u) for u ≥ 0: for u < 2^−bits between u/(1 + u) and u (both increasing in u;
    their gap, below u², is under the precision), so that a tiny positive u (e^(−10^4000))
    gives a positive lower end, where log(1 + u) at `bits` bits would give 0; else log."""
    lo, hi = u
    if not mpf_lt(hi, mpf_shift(from_int(1), -bits)):
        return _log(mpi_add(_ONE, u, bits), bits)
    below = mpi_div((lo, lo), mpi_add(_ONE, (lo, lo), bits), bits)[0]
    return (below, hi)


def _tanh(x, bits: int):
    """tanh x = 2/(1 + e^(−2x)) − 1 for x ≥ 0 (e^(−2x) tiny, never huge, for a large x: 1 −
    tanh(10^4000) is enclosed in (0, 2^−MAGNITUDE_BITS)); as 1 − 2/(e^(2x) + 1) when x may be
    negative (then |x| is moderate or e^(2x) is unsettled)."""
    two = (from_int(2), from_int(2))
    if mpf_sign(x[0]) >= 0:
        minus_two_x = mpi_mul((from_int(-2), from_int(-2)), x, bits)
        half = _div(two, mpi_add(_ONE, _exp(minus_two_x, bits), bits), bits)
        return mpi_add(half, (from_int(-1), from_int(-1)), bits)
    two_x = mpi_mul(two, x, bits)
    frac = _div(two, mpi_add(_exp(two_x, bits), _ONE, bits), bits)
    return mpi_add(_ONE, (mpf_neg(frac[1]), mpf_neg(frac[0])), bits)


def _leaf(e: sp.Basic, bits: int, box=None):
    if box is not None and e in box:
        lo, hi = box[e]
        return (from_rational(int(lo.p), int(lo.q), bits, round_floor),
                from_rational(int(hi.p), int(hi.q), bits, round_ceiling))
    if e.is_Rational:
        return _rational_interval(int(e.p), int(e.q), bits)
    if e is sp.E:
        return _exp((from_int(1), from_int(1)), bits)
    if e is sp.pi:
        return mpi_pi(bits)
    raise NoEnclosure(f"cannot enclose {e!s:.40}")


_cached_bits = [0]


_settled_at = [0]
"""The index in PRECISIONS of the precision that last settled a rounding (sig_parts tries it
first: the steps of a recurrence need about the same, so that one precision of each node is
enclosed and cached, not every precision below it as well)."""


def forget() -> None:
    """Empty the cache of enclosures (between exercises: it holds their values alive)."""
    _empty()
    _settled_at[0] = 0


def _empty() -> None:
    _CACHE.clear()
    _cached_bits[0] = 0


def _keep(e: sp.Basic, bits: int, iv) -> None:
    if len(_CACHE) >= _CACHE_SIZE or _cached_bits[0] + 2 * bits > CACHE_BITS:
        _drop_other_precisions(bits)
    if len(_CACHE) >= _CACHE_SIZE or _cached_bits[0] + 2 * bits > CACHE_BITS:
        _empty()
    _CACHE[(id(e), bits)] = (e, iv)
    _cached_bits[0] += 2 * bits


def _drop_other_precisions(bits: int) -> None:
    """Make room in a full cache by forgetting the enclosures at precisions other than `bits`,
    the one in use: a recurrence climbs to the precision its later steps need and stays there,
    so emptying the whole cache made every later question enclose its chain again at that
    precision (1000 Adam steps written as a variant: 125,000 enclosures at 1,024 bits for
    55,000 nodes)."""
    kept = {key: hit for key, hit in _CACHE.items() if key[1] == bits}
    _CACHE.clear()
    _CACHE.update(kept)
    _cached_bits[0] = 2 * bits * len(kept)


def _cached(e: sp.Basic, bits: int):
    hit = _CACHE.get((id(e), bits))
    return hit[1] if hit is not None and hit[0] is e else None


def _interval(expr: sp.Basic, bits: int, box=None):
    """The enclosure of `expr` as a pair of mpf tuples: an iterative walk over its DAG,
    every distinct subexpression once (and cached between calls). With a `box` (symbol →
    (lo, hi) rationals), an enclosure of its values for every point of the box, its symbols
    read from the box: nothing is read from or kept in the cache, whose entries are the
    values of constants, not of one box."""
    hit = None if box is not None else _cached(expr, bits)
    if hit is not None:
        return hit
    most = min(MAX_NODES, WALK_BITS // (2 * bits))
    local: dict[int, tuple] = {}
    stack = [(expr, False)]
    while stack:
        e, ready = stack.pop()
        if id(e) in local:
            continue
        cached = None if box is not None else _cached(e, bits)
        if cached is not None:
            local[id(e)] = cached
            continue
        if not e.args or e.is_Rational:
            local[id(e)] = _leaf(e, bits, box)
            continue
        if not ready:
            stack.append((e, True))
            stack.extend((a, False) for a in e.args if id(a) not in local)
            if len(local) + len(stack) > most:
                if most == MAX_NODES:
                    raise NoEnclosure(f"more than {MAX_NODES:,} subexpressions")
                raise TooCostly(f"more than {most:,} subexpressions at {bits} bits")
            continue
        iv = _finite(_node(e, [local[id(a)] for a in e.args], bits))
        local[id(e)] = iv
        if box is None:
            _keep(e, bits, iv)
    return local[id(expr)]


def _to_rational(m, lower: bool) -> Fraction | None:
    """An endpoint as an exact rational, weakened (outward) when its magnitude is beyond
    2^±MAGNITUDE_BITS: None for an unbounded end (a huge upper bound of a positive value, a
    huge lower bound of a negative one)."""
    sign, man, exp, bc = m
    if not man:
        return Fraction(0)
    if exp + bc > MAGNITUDE_BITS:  # |m| ≥ 2^(exp+bc−1) ≥ 2^MAGNITUDE_BITS
        if lower == bool(sign):
            return None
        big = Fraction(2) ** MAGNITUDE_BITS
        return -big if sign else big
    if exp + bc < -MAGNITUDE_BITS:  # |m| < 2^(exp+bc) < 2^−MAGNITUDE_BITS
        if lower != bool(sign):
            return Fraction(0)
        small = Fraction(1, 2 ** MAGNITUDE_BITS)
        return -small if sign else small
    v = Fraction(man) * (Fraction(2) ** exp)
    return -v if sign else v


def enclose(expr: sp.Expr, bits: int) -> tuple[sp.Rational, sp.Rational] | None:
    """Exact rationals (lo, hi) with lo ≤ expr ≤ hi, from `bits`-bit interval arithmetic; None
    when this precision does not bound it (a divisor not yet away from 0, or a magnitude beyond
    2^MAGNITUDE_BITS). NoEnclosure when `expr` is not a real constant this module handles."""
    lo, hi = _fractions(expr, bits) or (None, None)
    if lo is None or hi is None:
        return None
    return sp.Rational(lo.numerator, lo.denominator), sp.Rational(hi.numerator, hi.denominator)


def _fractions(expr: sp.Basic, bits: int) -> tuple[Fraction | None, Fraction | None] | None:
    """(lo, hi) at `bits` bits (an end None when unbounded, see _to_rational); None when this
    precision does not settle the walk."""
    if expr.is_Rational:
        v = Fraction(int(expr.p), int(expr.q))
        return v, v
    try:
        a, b = _interval(expr, bits)
    except _Unsettled:
        return None
    except RecursionError as exc:  # pragma: no cover — the walk is iterative
        raise NoEnclosure("too deep") from exc
    return _to_rational(a, True), _to_rational(b, False)


def enclosures(expr: sp.Expr):
    """(lo, hi) as Fractions at each precision of PRECISIONS in turn (skipping those that do
    not bound it; an end is None when unbounded, see _to_rational); nothing for an expression
    that cannot be enclosed."""
    try:
        for bits in PRECISIONS:
            pair = _fractions(expr, bits)
            if pair is not None:
                yield pair
            if pair is not None and pair[0] is not None and pair[0] == pair[1]:
                return
    except NoEnclosure:
        return


def _as_fraction(q) -> Fraction:
    if isinstance(q, Fraction):
        return q
    if isinstance(q, int):
        return Fraction(q)
    q = sp.Rational(q)
    return Fraction(int(q.p), int(q.q))


def compare(expr: sp.Expr, q) -> int | None:
    """−1, 0 or 1 as expr <, = or > the rational q; 0 only when expr is that rational (as a
    SymPy Rational); None when the enclosures at every precision contain q."""
    q = _as_fraction(q)
    if expr.is_Rational:
        v = Fraction(int(expr.p), int(expr.q))
        return (v > q) - (v < q)

    def side(bits: int) -> int | None:
        pair = _fractions(expr, bits)
        if pair is None:
            return None
        lo, hi = pair
        return 1 if lo is not None and lo > q else -1 if hi is not None and hi < q else None

    return _settle(side)


def sign(expr: sp.Expr) -> int | None:
    """The sign of a real constant: certified, 0 only for an exact rational zero. Read on the
    binary endpoints themselves (exact rationals), so that a positive end too small to become
    a rational (2^−(10^4000)) still shows the sign; when the enclosures do not settle it, on
    the complemented form (`complemented`), where 1 − tanh x cancels exactly."""
    if expr.is_Rational:
        return int(sp.sign(expr))
    s = _endpoint_sign(expr)
    if s is None:
        other = complemented(expr)
        if other is not expr:
            s = 0 if other == 0 else _endpoint_sign(other)
    return s


def _endpoint_sign(expr: sp.Basic) -> int | None:
    try:
        for bits in PRECISIONS:
            try:
                a, b = _interval(expr, bits)
            except _Unsettled:
                continue
            if mpf_sign(a) > 0:
                return 1
            if mpf_sign(b) < 0:
                return -1
            if mpf_sign(a) == 0 and mpf_sign(b) == 0:
                return None  # an enclosure [0, 0] of a value that is not a rational
    except NoEnclosure:
        return None
    return None


COMPLEMENT_NODES = 400
"""Largest expression (in tree nodes) that `complemented` rebuilds."""


def complemented(expr: sp.Basic) -> sp.Basic:
    """`expr` with each tanh(x) and sigmoid(x) of a certified positive (negative) x written
    as 1 minus (−1 plus, 0 plus) its small complement: tanh x = 1 − 2u/(1 + u), u = e^(−2x);
    sigmoid x = 1 − u/(1 + u), u = e^(−x) (sigmoid x = u/(1 + u), u = e^x, for x < 0); and
    softplus x of a positive x as x + softplus(−x) (softplus(10^30) − 10^30 > 0). The
    same value; SymPy's addition then cancels the rationals, so 1 − tanh(10^4000) becomes
    2u/(1 + u), which an enclosure shows is positive (u's lower bound, _exp_floor), where
    tanh itself is 1 up to any precision. `expr` itself when it has none of them, or past
    COMPLEMENT_NODES nodes."""
    if not expr.has(sp.tanh, functions.sigmoid, functions.softplus) or \
            tree_size(expr, COMPLEMENT_NODES) > COMPLEMENT_NODES:
        return expr
    subs = {}
    for f in expr.atoms(sp.tanh, functions.sigmoid, functions.softplus):
        x = f.args[0]
        if not x.is_number:
            return expr
        side = _endpoint_sign(x)
        if side is None:
            continue
        if isinstance(f, functions.softplus):  # softplus x = x + softplus(−x)
            if side > 0:
                subs[f] = x + functions.softplus(-x)
            continue
        k = 2 if isinstance(f, sp.tanh) else 1
        u = sp.exp(-side * k * x)
        small = k * u / (1 + u)
        if isinstance(f, sp.tanh):
            subs[f] = side * (1 - small)
        else:
            subs[f] = 1 - small if side > 0 else small
    return expr.xreplace(subs) if subs else expr


def _half_away(x: Fraction) -> int:
    """x rounded half away from zero to an integer."""
    n, d = abs(x.numerator), x.denominator
    q, r = divmod(n, d)
    if 2 * r >= d:
        q += 1
    return -q if x < 0 else q


def round_places(expr: sp.Expr, places: int) -> sp.Rational | None:
    """expr rounded half away from zero to `places` digits after the point (places may be
    negative); None when no enclosure puts both ends on the same rounded value (the value on
    or too near a tie: only a rational can be on one)."""
    scale = Fraction(10) ** places

    def rounded(bits: int) -> sp.Rational | None:
        pair = _fractions(expr, bits)
        if pair is None or pair[0] is None or pair[1] is None:
            return None
        a, b = _half_away(pair[0] * scale), _half_away(pair[1] * scale)
        if a != b:
            return None
        r = Fraction(a) / scale  # rounding is monotone: every value between rounds the same
        return sp.Rational(r.numerator, r.denominator)

    if expr.is_Rational:
        return rounded(PRECISIONS[0])
    return _settle(rounded)


def decimal_exponent(x) -> int:
    """e with 10^e ≤ x < 10^(e+1), for a rational x > 0, exactly (estimated from bit lengths,
    never by printing the integers)."""
    x = _as_fraction(x)
    e = _log10_floor(x.numerator.bit_length() - x.denominator.bit_length())
    while Fraction(10) ** e > x:
        e -= 1
    while Fraction(10) ** (e + 1) <= x:
        e += 1
    return e


_LOG10_2 = (30102999566398119521373889472449302677, 10**38)


def _log10_floor(n: int) -> int:
    """⌊n·log10 2⌋ up to ±1 (the callers correct it exactly)."""
    return (n * _LOG10_2[0]) // _LOG10_2[1]


def _round_scaled(x: Fraction, low: int, high: int) -> tuple[int, int]:
    """(m, shift): x (with low/10 ≤ x < 10·high) rounded half away from zero to the digits of
    [low, high), as m·10^shift with low ≤ m < high."""
    shift = -1 if x < low else (1 if x >= high else 0)
    m = _half_away(x * Fraction(10) ** -shift)
    if m == high:
        m, shift = low, shift + 1
    return (m, shift)


def _sig_of_interval(iv, sig: int, bits: int) -> tuple[int, int] | None:
    """(m, e) with m·10^e the value of every point of the mpf interval `iv` rounded half away
    from zero to `sig` significant digits (10^(sig−1) ≤ |m| < 10^sig), when they all round
    the same; computed on binary floating point (the scale 10^k as an interval), so that a
    value such as exp(10⁹) never becomes an integer of its own digits."""
    a, b = iv
    if mpf_sign(a) <= 0 <= mpf_sign(b):
        return None
    negative = mpf_sign(b) < 0
    if negative:
        a, b = mpf_neg(b), mpf_neg(a)
    _, _, ex, bc = a
    e = _log10_floor(ex + bc - 1)
    if abs(e) > DECIMAL_EXPONENT:
        return None
    low, high = 10 ** (sig - 1), 10 ** sig
    ten = (from_int(10), from_int(10))
    for _ in range(6):
        k = sig - 1 - e
        scale = mpi_pow_int(ten, abs(k), bits + 20)
        lo, hi = (mpi_mul if k >= 0 else mpi_div)((a, b), scale, bits + 20)
        lo, hi = _to_rational(lo, True), _to_rational(hi, False)
        if hi is not None and hi < low:
            e -= 1
        elif lo >= high:
            e += 1
        elif hi is None or lo * 10 < low or hi >= 10 * high:
            return None
        else:  # each end rounded in its own decade (rounding is monotone)
            ends = {_round_scaled(lo, low, high), _round_scaled(hi, low, high)}
            if len(ends) != 1:
                return None
            m, shift = ends.pop()
            return (int(-m if negative else m), e - sig + 1 + shift)
    return None


def sig_parts(expr: sp.Expr, sig: int) -> tuple[int, int] | None:
    """(m, e): expr rounded half away from zero to `sig` significant digits is m·10^e, with
    10^(sig−1) ≤ |m| < 10^sig ((0, 0) for zero); exact for a rational, certified by
    enclosures otherwise; None when undecided (too near a tie, or not enclosable)."""
    if expr.is_Rational:
        if expr == 0:
            return (0, 0)
        x = _as_fraction(expr)
        e = decimal_exponent(abs(x)) - sig + 1
        m = _half_away(x / Fraction(10) ** e)
        if abs(m) == 10 ** sig:
            m, e = m // 10, e + 1
        return (int(m), e)
    return _settle(lambda bits: _sig_of_interval(_interval(expr, bits), sig, bits))


def _settle(attempt):
    """The first answer `attempt(bits)` gives (None: not settled at these bits), trying the
    precision that settled the last question first, then those above it, then those below.
    Any precision that settles a question gives its one answer (a sign, a rounding of the
    exact value), and a walk too costly at one precision is too costly at every higher one,
    so the answer is that of trying them upwards from the lowest; but the steps of a
    recurrence need about the same precision, and so only it is enclosed and cached for most
    nodes, not every precision below it as well (1000 amsgrad steps: each comparison of
    max(v_max, v) enclosed the chain at five precisions, overflowing the cache, and every
    later one enclosed it all again)."""
    start = _settled_at[0]
    order = [*range(start, len(PRECISIONS)), *range(start)]
    k = 0
    while k < len(order):
        i = order[k]
        k += 1
        try:
            answer = attempt(PRECISIONS[i])
        except _Unsettled:
            continue
        except TooCostly:
            if i < start:
                return None
            k = max(k, len(PRECISIONS) - start)  # on to the precisions below the first tried
            continue
        except NoEnclosure:
            return None
        if answer is not None:
            _settled_at[0] = i
            return answer
    return None


def round_sig(expr: sp.Expr, sig: int) -> sp.Rational | None:
    """expr rounded half away from zero to `sig` significant digits; None when undecided, or
    when its decimal exponent is beyond ±MAGNITUDE_BITS (use sig_parts)."""
    parts = sig_parts(expr, sig)
    if parts is None or abs(parts[1]) > MAGNITUDE_BITS:
        return None
    m, e = parts
    return sp.Integer(m) * sp.Integer(10) ** e if e >= 0 else sp.Rational(m, 10 ** -e)


BOX_PRECISIONS = PRECISIONS[:3]
"""The precisions tried for an enclosure over a box (64, 128 and 256 bits): the box's own
width, not the endpoints' bits, is what a wider enclosure comes from, so more bits rarely
settle what these do not."""


def enclose_box(expr: sp.Expr, box: dict) -> tuple[sp.Rational, sp.Rational] | None:
    """Exact rationals (lo, hi) with lo ≤ expr ≤ hi at every point of `box` (each free symbol
    of `expr` → (lo, hi), rationals, lo ≤ hi), or None when no precision of BOX_PRECISIONS
    bounds it: a divisor or a log argument whose enclosure meets 0 (or is ≤ 0), an even root
    of an argument that may be negative, a function this module does not enclose (sign,
    floor, Piecewise: NoEnclosure), a symbol outside the box.

    A finite enclosure is also a certificate of continuity on the box: every operation
    enclosed here (+, ×, integer powers; roots, real powers, log and division only of
    arguments enclosed where they are continuous, positive or away from 0; exp, sin, cos,
    tanh, |x|, min, max, relu, clamp, sigmoid, softplus) is continuous where it was enclosed,
    so the expression is a composition of continuous functions on the box."""
    box = {s: (sp.Rational(lo), sp.Rational(hi)) for s, (lo, hi) in box.items()}
    if any(lo > hi for lo, hi in box.values()):
        raise ValueError("a box's lower end above its upper end")
    try:
        for bits in BOX_PRECISIONS:
            try:
                a, b = _interval(expr, bits, box)
            except _Unsettled:
                continue
            lo, hi = _to_rational(a, True), _to_rational(b, False)
            if lo is None or hi is None:
                return None
            return (sp.Rational(lo.numerator, lo.denominator),
                    sp.Rational(hi.numerator, hi.denominator))
    except NoEnclosure:
        return None
    return None


def is_enclosable(expr: sp.Expr) -> bool:
    """Whether this module can enclose `expr` at all (at the lowest precision)."""
    try:
        _fractions(expr, PRECISIONS[0])
    except NoEnclosure:
        return False
    return True


__all__ = ["MAX_BITS", "PRECISIONS", "NoEnclosure", "TooCostly", "compare", "decimal_exponent",
           "enclose", "enclose_box", "enclosures", "forget", "is_enclosable", "round_places",
           "round_sig", "sig_parts", "sign"]
