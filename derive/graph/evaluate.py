"""Exact values of a node's expression: compiled once into closures over an environment
(name → number, or name → {member: number} for a family), Σ expanded by looping over its
index. Rationals run as GMP rationals (`gmpy2.mpq`, else `fractions.Fraction`); anything else
(surds) in SymPy."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction as _Fraction
from functools import lru_cache

import sympy as sp
from sympy import integer_nthroot

from derive.kernel import functions
from derive.kernel.dag import nodes, tree_size
from derive.kernel.exact import exact_sign, to_expr, undecided_sign

try:  # GMP's exact rationals: the same arithmetic as Fraction, about ten times faster
    from gmpy2 import mpq as Fraction
except ImportError:  # pragma: no cover — gmpy2 is a dependency; Fraction if it is missing
    Fraction = _Fraction

Q = type(Fraction(0))
"""The exact rational type the evaluator computes with."""

Env = Mapping[str, object]


class NotEvaluable(ValueError):
    """An expression with a construct the evaluator does not handle (a bug of a recipe)."""


class UndecidedSign(NotEvaluable):
    """A sign that neither certified enclosures nor exact zero tests tell (relu of a value
    within 2^-32768 of 0 that no zero test shows is 0): the value is undecided, which is not
    the same as unsupported."""


class Undefined(ArithmeticError):
    """A value that does not exist: log of a number ≤ 0, a root of a negative number, a
    division by zero outside the rationals."""


class TooLarge(ArithmeticError):
    """A value past MAX_VALUE_BITS: refused before it is computed, so that a 100-byte formula
    cannot ask for gigabytes ((w^10000)^10000, or squaring at every one of many steps)."""


MAX_VALUE_BITS = 2_000_000
"""Largest numerator or denominator a computed value may have, in bits (about 600,000
digits; every value of the built-in recipes is far below it)."""


def _bits(q) -> int:
    return max(q.numerator.bit_length(), q.denominator.bit_length())


MAX_WORK_BITS = 400_000_000
"""Most bits of rational results one computation may produce (about 50 MB): a 300-byte file
asking for 9,000 steps of values that each grow by 200 bits is refused rather than held in
gigabytes. `reset_work` starts the count of one computation: an exercise's answer key (whose
wrong-claim diagnosis spends what the key left: past it, a candidate explains nothing), and
its export's working, which must not inherit what the key and the diagnosis spent."""

_work = [0]


def reset_work() -> None:
    _work[0] = 0


SMALL_BITS = 4096
"""Values of at most this many bits are neither checked nor counted (the common case)."""


def _counted(q):
    """A rational product, checked against MAX_VALUE_BITS and counted when it is large."""
    n, d = q.numerator.bit_length(), q.denominator.bit_length()
    if n > SMALL_BITS or d > SMALL_BITS:
        _too_large(max(n, d))
    return q


def _too_large(bits: int) -> None:
    if bits > MAX_VALUE_BITS:
        raise TooLarge(f"a value of more than {MAX_VALUE_BITS:,} bits (about "
                       f"{MAX_VALUE_BITS * 3 // 10:,} digits)")
    _work[0] += bits
    if _work[0] > MAX_WORK_BITS:
        raise TooLarge(f"values of more than {MAX_WORK_BITS:,} bits in all (about "
                       f"{MAX_WORK_BITS // 8 // 10**6} MB)")


def _defined(v: sp.Expr) -> sp.Expr:
    """A result SymPy computed, or Undefined when it is not a real number (each distinct
    node of the value visited once)."""
    for x in nodes(v):
        if x in (sp.zoo, sp.nan, sp.oo, sp.S.NegativeInfinity):
            raise Undefined("a division by zero or log 0")
        if x is sp.I:
            raise Undefined("a logarithm or even root of a negative number")
    return v


def _real_root(a, n) -> None:
    """A fractional power of a negative number is refused: SymPy's (and PyTorch's) a^(p/q)
    is the principal, complex value (torch: nan), not the real root."""
    if not isinstance(n, Fraction) or n.denominator == 1:
        return
    if isinstance(a, Fraction):
        negative = a < 0
    else:
        negative = exact_sign(_sym(a)) == -1
    if negative:
        raise Undefined("a fractional power of a negative number")


def _exact(v):
    """A Fraction for a rational, else the SymPy number."""
    if isinstance(v, Fraction):
        return v
    if type(v) is int:
        return Fraction(v)
    if isinstance(v, _Fraction):
        return Fraction(v.numerator, v.denominator)
    e = to_expr(v)
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    return e


def _sym(v):
    if isinstance(v, Fraction):
        return sp.Rational(int(v.numerator), int(v.denominator))
    return v


SIMPLIFY_NODES = 60
"""Irrational operands of at most this many tree nodes together are combined by SymPy's
arithmetic (which simplifies: 2·√2/√2 is 2); larger ones are joined as they are, an
unevaluated node over the operands' shared DAG, so that values computed over many steps
(Adam's nested surds) grow linearly, not by SymPy's rewriting of ever larger trees. Both are
the same exact value; its decimals and comparisons come from certified enclosures."""


def _small(a, b) -> bool:
    """Whether SymPy may combine a and b: few nodes, and no rational of more than ROOT_BITS
    bits (SymPy factors the rationals under a root it multiplies)."""
    if tree_size(a, SIMPLIFY_NODES) + tree_size(b, SIMPLIFY_NODES) > SIMPLIFY_NODES:
        return False
    return all(max(abs(int(x.p)), int(x.q)).bit_length() <= ROOT_BITS
               for e in (a, b) for x in nodes(e) if x.is_Rational)


def _combine(op, a, b):
    a, b = to_expr(_sym(a)), to_expr(_sym(b))
    if _small(a, b):
        return _exact(_defined(op(a, b)))
    return _exact(op.unevaluated(a, b))


class _Op:
    def __init__(self, evaluated, unevaluated):
        self.evaluated, self.unevaluated = evaluated, unevaluated

    def __call__(self, a, b):
        return self.evaluated(a, b)


def _unevaluated_pow(a, b):
    obj = sp.Expr.__new__(sp.Pow, a, b)
    obj.is_commutative = True
    return obj


# Built without SymPy's constructor cache, whose lookups compare equal values structurally
# (as trees) when a variant of the graph recomputes them as new objects.
_ADD = _Op(lambda a, b: a + b, lambda a, b: sp.Add._from_args((a, b), is_commutative=True))
_MUL = _Op(lambda a, b: a * b, lambda a, b: sp.Mul._from_args((a, b), is_commutative=True))
_POW = _Op(lambda a, b: a ** b, _unevaluated_pow)


def _add(a, b):
    if type(a) is int:  # an index's member number (k − 1)
        a = Fraction(a)
    if type(b) is int:
        b = Fraction(b)
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a + b
    if a == 0:
        return b
    if b == 0:
        return a
    return _combine(_ADD, a, b)


def _mul(a, b):
    if type(a) is int:
        a = Fraction(a)
    if type(b) is int:
        b = Fraction(b)
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return _counted(a * b)
    if a == 1:
        return b
    if b == 1:
        return a
    if a == 0 or b == 0:
        return Fraction(0)
    return _combine(_MUL, a, b)


def _pow(a, n):
    if isinstance(a, Fraction) and isinstance(n, Fraction) and n.denominator == 1:
        if a == 0 and n < 0:
            raise ZeroDivisionError("division by zero")
        if a not in (0, 1, -1):
            _too_large(_bits(a) * abs(int(n)))
        return a ** int(n)
    if isinstance(n, Fraction) and abs(n.numerator) > 10_000:
        raise TooLarge(f"a power with the exponent {n}, beyond 10,000")
    if n == 1:
        return a
    if isinstance(a, Fraction) and a == 0 and isinstance(n, Fraction) and n < 0:
        raise ZeroDivisionError("division by zero")  # 1/√0 (layer_norm with eps = 0 on a
        # constant row: torch's nan), never 0·zoo taken as 0
    _real_root(a, n)
    if isinstance(a, Fraction) and a == 0:
        return _exact(_sym(a) ** _sym(n))
    if isinstance(a, Fraction) and isinstance(n, Fraction) and \
            max(abs(int(a.numerator)), int(a.denominator)).bit_length() > ROOT_BITS:
        return _large_root(a, n)
    return _combine(_POW, a, n)


ROOT_BITS = 64
"""A rational under a root with more bits than this is not given to SymPy, which factors it
to take square factors out (hours for a 100-digit number): its root is exact when numerator
and denominator are perfect powers, and is otherwise kept as the unevaluated power."""


def _large_root(a, n):
    """a^n for a large rational a and a rational n = p/q: exact when a is a q-th power."""
    p, q = int(n.numerator), int(n.denominator)
    num, den = abs(int(a.numerator)), int(a.denominator)
    rn, exact_n = integer_nthroot(num, q)
    rd, exact_d = integer_nthroot(den, q)
    if exact_n and exact_d and (a > 0 or q % 2 == 1):
        root = Fraction(rn if a > 0 else -rn, rd)
        return root ** p if p >= 0 else 1 / root ** -p
    return _exact(_POW.unevaluated(_sym(a), _sym(n)))


def _sign(v, what: str) -> int:
    """The sign of a value, exact for a rational, else exact_sign's (certified enclosures,
    then exact zero tests); NotEvaluable naming `what` needs it and the value when it cannot
    be told."""
    if isinstance(v, Fraction):
        return (v > 0) - (v < 0)
    s = exact_sign(_sym(v))
    if s is None:
        raise UndecidedSign(undecided_sign(what, _sym(v)))
    return s


_RELATIONS = {sp.Eq: lambda a, b: a == b, sp.Ne: lambda a, b: a != b,
              sp.Lt: lambda a, b: a < b, sp.Le: lambda a, b: a <= b,
              sp.Gt: lambda a, b: a > b, sp.Ge: lambda a, b: a >= b}


def _build(e: sp.Basic, indices: frozenset):
    """A closure f(env, idx): `env` holds the symbols' values (Fractions where rational),
    `idx` the members the indices stand for. A case's condition is one too: true, or a
    comparison of index expressions (t = 1, t > 1)."""
    if e is sp.true:
        return lambda env, idx: True
    if type(e) in _RELATIONS:
        op, left, right = _RELATIONS[type(e)], _build(e.lhs, indices), _build(e.rhs, indices)
        return lambda env, idx: op(left(env, idx), right(env, idx))
    if e.is_Rational:
        c = Fraction(int(e.p), int(e.q))
        return lambda env, idx: c
    if e is sp.pi or e is sp.E:
        return lambda env, idx: e
    if isinstance(e, sp.Symbol):
        name = e.name
        if name in indices:
            return lambda env, idx: idx[name]
        return lambda env, idx: env[name]
    if isinstance(e, sp.Indexed):
        name = e.base.label.name
        parts = [_build(i, indices) for i in e.indices]
        if len(parts) == 1:
            only = parts[0]
            if isinstance(e.indices[0], sp.Symbol) and e.indices[0].name in indices:
                iname = e.indices[0].name
                return lambda env, idx: env[name][idx[iname]]
            return lambda env, idx: env[name][int(only(env, idx))]
        return lambda env, idx: env[name][tuple(int(p(env, idx)) for p in parts)]
    if isinstance(e, (sp.Add, sp.Mul)):
        parts = [_build(a, indices) for a in e.args]
        op = _add if isinstance(e, sp.Add) else _mul
        if len(parts) == 2:  # the common case, without a call per operation
            a, b = parts
            if isinstance(e, sp.Add):
                def add2(env, idx):
                    x, y = a(env, idx), b(env, idx)
                    return x + y if type(x) is Q and type(y) is Q else _add(x, y)
                return add2

            def mul2(env, idx):
                x, y = a(env, idx), b(env, idx)
                return _counted(x * y) if type(x) is Q and type(y) is Q else _mul(x, y)
            return mul2

        def fold(env, idx):
            out = parts[0](env, idx)
            for p in parts[1:]:
                out = op(out, p(env, idx))
            return out
        return fold
    if isinstance(e, sp.Pow):
        base, exp = _build(e.base, indices), _build(e.exp, indices)
        return lambda env, idx: _pow(base(env, idx), exp(env, idx))
    if isinstance(e, sp.Sum):
        if len(e.limits) != 1:
            raise NotEvaluable("a Σ over several indices")
        (i, lo, hi), = e.limits
        inner = indices | {i.name}
        body, low, high, name = (_build(e.function, inner), _build(lo, indices),
                                 _build(hi, indices), i.name)

        def total(env, idx):
            out = Fraction(0)
            bound = dict(idx)
            for m in range(int(low(env, idx)), int(high(env, idx)) + 1):
                bound[name] = m
                out = _add(out, body(env, bound))
            return out
        return total
    if isinstance(e, (sp.Min, sp.Max)):
        return _extremum([_build(a, indices) for a in e.args], isinstance(e, sp.Min),
                         "min" if isinstance(e, sp.Min) else "max")
    if isinstance(e, functions.relu):  # max(0, x): relu of an exact 0 is the rational 0
        return _extremum([lambda env, idx: Fraction(0), _build(e.args[0], indices)], False,
                         "relu")
    if isinstance(e, functions.clamp):  # min(max(x, lo), hi), without building SymPy's Max
        x, lo, hi = (_build(a, indices) for a in e.args)
        return _extremum([_extremum([x, lo], False, "clamp"), hi], True, "clamp")
    if isinstance(e, sp.Abs):
        inner_f = _build(e.args[0], indices)

        def absolute(env, idx):
            v = inner_f(env, idx)
            if isinstance(v, Fraction):
                return -v if v < 0 else v
            s = exact_sign(v)
            if s is None:
                return _exact(sp.Abs(v))
            if s == 0:  # |0| of a closed form the zero test shows is 0
                return Fraction(0)
            return v if s > 0 else _mul(Fraction(-1), v)
        return absolute
    if isinstance(e, (sp.exp, sp.log)):
        inner_f, func = _build(e.args[0], indices), e.func

        def elementary(env, idx):
            v = inner_f(env, idx)
            if func is sp.log:
                if isinstance(v, Fraction):
                    if v <= 0:
                        raise Undefined(f"log of {v}, a number that is not positive")
                else:
                    if exact_sign(_sym(v)) in (-1, 0):
                        raise Undefined("log of a number that is not positive")
            return _exact(_defined(func(_sym(v))))
        return elementary
    if isinstance(e, (sp.sin, sp.cos, sp.tanh, functions.sigmoid, functions.softplus)):
        inner_f, func = _build(e.args[0], indices), e.func

        def smooth(env, idx):  # exact where SymPy knows a closed form (cos(π/3) = 1/2)
            return _exact(_defined(func(_sym(inner_f(env, idx)))))
        return smooth
    if isinstance(e, (sp.Heaviside, sp.DiracDelta)):
        return _step(e, indices)
    if isinstance(e, sp.sign):
        inner_f = _build(e.args[0], indices)

        def signum(env, idx):
            return Fraction(_sign(inner_f(env, idx), "sign"))
        return signum
    if isinstance(e, sp.Piecewise):
        for _, c in e.args:
            if c is not sp.true and type(c) not in _RELATIONS:
                raise NotEvaluable(f"cannot evaluate the condition {c}")
        cases = [(_build(v, indices), _build(c, indices)) for v, c in e.args]

        def branch(env, idx):
            for value, holds in cases:
                if holds(env, idx):
                    return value(env, idx)
            raise NotEvaluable("a case distinction with no case that holds")
        return branch
    raise NotEvaluable(f"cannot evaluate {type(e).__name__} in a recipe's formula")


def _step(e: sp.Basic, indices: frozenset):
    """A derivative through a kink at a point (kernel/functions.py): H(u, h) is 1 for u > 0,
    0 for u < 0 and h at u = 0 (torch's backward: relu′(0) = 0, clamp passes it at its bounds,
    max and min split a tie ½ each); δ(u), the derivative of a step or of sign, is 0, as
    torch's backward takes it. The sign of u is decided exactly, or certified."""
    inner_f = _build(e.args[0], indices)
    if isinstance(e, sp.DiracDelta):
        return lambda env, idx: Fraction(0)
    at_zero = Fraction(1, 2) if len(e.args) == 1 else _exact(e.args[1])
    tie = at_zero == Fraction(1, 2) and any(  # SymPy's ∂max(x, y, z)/∂x = H(x − max(y, z))
        isinstance(t, (sp.Max, sp.Min)) or isinstance(-t, (sp.Max, sp.Min))
        for t in sp.Add.make_args(e.args[0]))

    def step(env, idx):
        s = _sign(inner_f(env, idx), "a derivative at a kink")
        if s == 0 and tie:
            raise NotEvaluable("a derivative at a tie of three or more arguments of max or "
                               "min (torch.maximum takes two)")
        return Fraction(1) if s > 0 else (Fraction(0) if s < 0 else at_zero)
    return step


def _extremum(parts: list, smaller: bool, what: str):
    """max (or min, `smaller`) of the arguments' values, in order: a later argument replaces
    the best so far when strictly greater (smaller), or when a tie is proved exactly and it is
    a rational (clamp(sin(1)² + cos(1)², 0, 1) is 1); otherwise a tie keeps the first of the
    equal values."""
    def pick(env, idx):
        best = parts[0](env, idx)
        for p in parts[1:]:
            v = p(env, idx)
            if v is best or (isinstance(v, Fraction) and isinstance(best, Fraction)
                             and v == best):
                continue
            s = _sign(_add(v, _mul(Fraction(-1), best)), what)
            if (s < 0 if smaller else s > 0) or (s == 0 and isinstance(v, Fraction)):
                best = v
        return best
    return pick


@lru_cache(maxsize=4096)
def compiled(expr: sp.Basic, indices: frozenset = frozenset()) -> Callable:
    """`f(env, idx)`: the exact value of `expr` (a Fraction, or a SymPy number for a surd),
    its symbols read from `env` (numbers as Fractions, families as {member: number}) and the
    `indices` from `idx` ({index name: member})."""
    return _build(expr, indices)


def exact_value(v):
    """A value as the evaluator holds it (Fraction where rational), lists element-wise."""
    if isinstance(v, dict):
        return {k: exact_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [exact_value(x) for x in v]
    return _exact(v)


def sympy_value(v):
    """Back to SymPy: a Rational for a Fraction, lists element-wise."""
    if isinstance(v, (list, tuple)):
        return [sympy_value(x) for x in v]
    return _sym(v)
