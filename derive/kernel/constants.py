"""Functions of closed constants: max and min of constants decided exactly or by certified
enclosures (SymPy's Max raises on a constant its evalf cannot compare), and the language's
functions in the terms the kernel's proofs know (`known_terms`)."""

from __future__ import annotations

import sympy as sp

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
    numbers = [a for a in args if a.is_number]
    others = [a for a in args if not a.is_number]
    if len(numbers) > 1:
        best = numbers[0]
        for v in numbers[1:]:
            s = exact_sign(v - best)
            if s is None:
                raise UndecidedComparison(undecided_sign("max" if func is sp.Max else "min",
                                                         v - best))
            if (s < 0 if func is sp.Min else s > 0) or (s == 0 and v.is_Rational
                                                        and not best.is_Rational):
                best = v
        if not others:
            return best
        numbers = [best]
    try:
        return func(*numbers, *others)
    except ValueError:  # "The argument … is not comparable": kept as written
        return func(*numbers, *others, evaluate=False)


def _kept(func: type, *args: sp.Expr) -> sp.Expr:
    """extremum, or the Max (Min) as written when its constants cannot be ordered: a claim
    about it is then decided by the kernel's branches, or not at all."""
    try:
        return extremum(func, *args)
    except UndecidedComparison:
        return func(*args, evaluate=False)


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
