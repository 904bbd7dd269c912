"""Functions of closed constants: max and min of constants decided exactly or by certified
enclosures (SymPy's Max raises on a constant its evalf cannot compare), and the language's
functions in the terms the kernel's proofs know (`known_terms`)."""

from __future__ import annotations

import sympy as sp
from sympy.core.parameters import global_parameters

from derive.kernel.exact import exact_sign, undecided_sign
from derive.kernel.functions import OWN, clamp, relu, sigmoid, softplus


class UndecidedComparison(ValueError):
    """Constants of a max or min whose order exact arithmetic cannot decide."""


def extremum(func: type, *args: sp.Expr) -> sp.Expr:
    """Max(*args) or Min(*args) (`func`), its constant arguments first reduced to the largest
    (smallest) one by exact signs of their differences (`exact_sign`: certified enclosures,
    then exact zero tests; a tie keeps a rational if there is one, else the first): max(sin(1)²
    + cos(1)² − 1, 0) is 0, max(cos(π/4), sin(π/4)) is √2/2. SymPy's constructor compares with
    evalf and raises on a constant it cannot compare; such a constant beside symbols is kept
    in a Max as written. UndecidedComparison when two constants cannot be ordered."""
    if not issubclass(func, _Ordered):
        func = Min if issubclass(func, sp.Min) else Max
    numbers = [a for a in args if a.is_number]
    others = [a for a in args if not a.is_number]
    if len(numbers) > 1:
        best, tied = _best(func, numbers)
        if not others:
            return best
        numbers = [best]
        if tied:  # max(w, sin(1)² + cos(1)², 1): at w = 1 a tie of three
            func = _as_repeated(func)
    try:
        return func(*numbers, *others)
    except ValueError:  # "The argument … is not comparable": kept as written
        return func(*numbers, *others, evaluate=False)


def _best(func: type, numbers: list) -> tuple[sp.Expr, bool]:
    """The largest (smallest, for a Min `func`) of constants by exact signs, a tie keeping a
    rational; and whether another of them equals it exactly. UndecidedComparison when two
    cannot be ordered."""
    smaller = issubclass(func, sp.Min)
    best, tied = numbers[0], False
    for v in numbers[1:]:
        s = exact_sign(v - best)
        if s is None:
            raise UndecidedComparison(undecided_sign("min" if smaller else "max", v - best))
        if s == 0:
            tied = True
            if v.is_Rational and not best.is_Rational:
                best = v
        elif s < 0 if smaller else s > 0:
            best, tied = v, False
    return best, tied


class _Ordered:
    """Max and Min whose constant arguments are ordered exactly when they are built with
    evaluation (a rebuild by `e.func(*args)` anywhere, sympy.diff's steps): SymPy's own
    constructor compares constants with evalf and raises "not comparable" on 1 − tanh(10⁴)
    or sin(1)² + cos(1)² − 1. Constants that cannot be ordered are kept as written, beside
    the rest; the evaluator then says which sign it could not decide."""

    def __new__(cls, *args, **assumptions):
        if not assumptions.pop("evaluate", global_parameters.evaluate):
            return super(_Ordered, cls).__new__(cls, *args, evaluate=False, **assumptions)
        flat = []
        for a in map(sp.sympify, args):  # max(max(a, b), c) is max(a, b, c)
            flat.extend(a.args if isinstance(a, cls._kind) else (a,))
        cls = repeated(cls, flat)
        numbers = [a for a in flat if a.is_number]
        if len(numbers) > 1:
            try:
                best, tied = _best(cls, numbers)
                flat = [best] + [a for a in flat if not a.is_number]
                if tied and len(flat) > 1:
                    cls = _as_repeated(cls)
            except UndecidedComparison:
                pass
        if len(flat) == 1:
            return flat[0]
        if any(a.is_number and not a.is_Rational for a in flat):
            # beside a symbol, SymPy would compare an irrational constant by evalf, unbounded
            # (tanh(10^4000) against w: 26 s of CPU in one C call no time bound interrupts)
            return super(_Ordered, cls).__new__(cls, *flat, evaluate=False, **assumptions)
        try:
            return super(_Ordered, cls).__new__(cls, *flat, **assumptions)
        except ValueError:  # "The argument … is not comparable": kept as written
            return super(_Ordered, cls).__new__(cls, *flat, evaluate=False, **assumptions)

    def fdiff(self, argindex=1):
        """SymPy's step, with the other arguments' extremum built by this class (SymPy's
        builds its own Max, which raises on constants it cannot compare)."""
        n = len(self.args)
        if n == 2 or not 0 < argindex <= n:
            return super().fdiff(argindex)
        x = self.args[argindex - 1]
        rest = type(self)(*(a for i, a in enumerate(self.args) if i != argindex - 1),
                          evaluate=False)  # as SymPy's: its Max stays in the step (a tie of three)
        return sp.Heaviside(rest - x if self._kind is sp.Min else x - rest)


class Max(_Ordered, sp.Max):
    """max(…) of the formula language: SymPy's Max, its constants ordered exactly."""
    _kind = sp.Max


class Min(_Ordered, sp.Min):
    """min(…) of the formula language: SymPy's Min, its constants ordered exactly."""
    _kind = sp.Min


RepeatedMax = type("Max", (Max,), {"__doc__": """max(…) written with an argument twice
    (max(w, 1, w), max(w, 1, 1)): SymPy keeps each argument once, so a step of its derivative
    would be ½ where torch gives ¾, ¼ or ⅔ depending on how the max is nested; a derivative
    through it is not supported. Named Max, so that it prints as max (and found by its
    qualified name when a report is cached).""", "__module__": __name__,
                                   "__qualname__": "RepeatedMax"})

RepeatedMin = type("Min", (Min,), {"__doc__": """min(…) written with an argument twice (see
    RepeatedMax).""", "__module__": __name__, "__qualname__": "RepeatedMin"})


def _amax_fdiff(self, argindex=1):
    """∂ amax/∂x_k = [x_k is a maximum] / (number of maxima): torch.amax's backward, which
    splits a tie evenly (⅓ each at a tie of three, where SymPy's step gives ½ each), written
    in Heaviside steps H(u, 1) = [u ≥ 0] so that it is exact at a tie."""
    n = len(self.args)
    if not 0 < argindex <= n:
        raise sp.ArgumentIndexError(self, argindex)
    x = self.args[argindex - 1]
    others = [a for i, a in enumerate(self.args) if i != argindex - 1]
    on_top = sp.Mul(*[sp.Heaviside(x - o, 1) for o in others])
    ties = sp.Add(*[sp.Heaviside(x - o, 1) * sp.Heaviside(o - x, 1) for o in others])
    return on_top / (1 + ties)


AMax = type("Max", (Max,), {"__doc__": """max over a tensor's dimension (torch.amax): Max,
    its derivative splitting a tie evenly among the maxima (`_amax_fdiff`). Named Max, so that
    it prints as max.""", "__module__": __name__, "__qualname__": "AMax",
                           "fdiff": _amax_fdiff})


def repeated(func: type, args) -> type:
    """`func` (a Max or Min class), or RepeatedMax (RepeatedMin) when one of `args` is written
    twice (a nested max of max counted flat) and they are not all one."""
    smaller = issubclass(func, sp.Min)
    flat: list = []
    for a in args:
        flat.extend(a.args if isinstance(a, sp.Min if smaller else sp.Max) else (a,))
    if len(set(flat)) < len(flat) and len(set(flat)) > 1 or \
            any(isinstance(a, RepeatedMin if smaller else RepeatedMax) for a in args):
        return _as_repeated(func)
    return func


def _as_repeated(func: type) -> type:
    return RepeatedMin if issubclass(func, sp.Min) else RepeatedMax


def written(kind: str, args: list) -> sp.Expr:
    """max or min (`kind`) of the arguments as written, unevaluated (see `repeated`)."""
    return repeated(Min if kind == "min" else Max, args)(*args, evaluate=False)


def _kept(func: type, *args: sp.Expr) -> sp.Expr:
    """extremum, or the Max (Min) as written when its constants cannot be ordered: a claim
    about it is then decided by the kernel's branches, or not at all."""
    try:
        return extremum(func, *args)
    except UndecidedComparison:
        return (Min if issubclass(func, sp.Min) else Max)(*args, evaluate=False)


def known_terms(e: sp.Basic) -> sp.Basic:
    """`e` with relu, clamp, sigmoid, softplus and tanh written in the functions the kernel's
    proofs know (max, min, exp, log): the same values everywhere. A derivative of them taken
    by the kernel is then the mathematical one, which at a kink does not exist (kinks.py),
    not torch's convention."""
    if not isinstance(e, sp.Basic) or not e.has(*OWN, sp.tanh):
        return e

    def walk(x):
        if not x.args or not x.has(*OWN, sp.tanh):
            return x
        args = [walk(a) for a in x.args]
        if isinstance(x, relu):
            return _kept(sp.Max, args[0], sp.S.Zero)
        if isinstance(x, clamp):
            return _kept(sp.Min, _kept(sp.Max, args[0], args[1]), args[2])
        if isinstance(x, sigmoid):
            return 1 / (1 + sp.exp(-args[0]))
        if isinstance(x, softplus):
            return sp.log(1 + sp.exp(args[0]))
        if isinstance(x, sp.tanh):
            return (sp.exp(2 * args[0]) - 1) / (sp.exp(2 * args[0]) + 1)
        if isinstance(x, (sp.Max, sp.Min)):
            return _kept(x.func, *args)
        return x.func(*args)
    return walk(e)
