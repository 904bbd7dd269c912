"""Bound variables renamed apart: every Σ index of a claim becomes a kernel dummy, chosen by
nesting depth, before anything else looks at the claim.

After this no bound variable is the same object as a free symbol, so a fact or guard about a
free i can never be applied to the i of Σ_i, a reordering of sums cannot capture a free symbol,
and a Σ that reuses an outer index (shadowing) keeps its meaning. A Σ index becomes an integer
with no other assumption: under Karr's convention a reversed Σ evaluates its summand at indices
outside [a, b], so assumptions declared on the index (positive, say) need not hold there.
Binders the kernel does not model (integrals, products, limits, Lambdas) are not supported.
A Subs keeps its variables (SymPy treats two Subs that differ only in them as the same object,
so renaming would not stick); every pass treats a Subs as a binder instead.
"""

from __future__ import annotations

import sympy as sp

from derive.kernel.claims import NotSupported

_INDEX = [sp.Dummy(f"i{k}", integer=True) for k in range(64)]

UNSUPPORTED = (sp.Integral, sp.Product, sp.Limit, sp.Lambda, sp.Order)


def rename_bound(e: sp.Basic, depth: int = 0) -> sp.Basic:
    """`e` with each bound variable replaced by the kernel's dummy for its depth."""
    if not isinstance(e, sp.Basic) or e.is_Atom or not e.args:
        return e
    if isinstance(e, UNSUPPORTED):
        raise NotSupported(f"{type(e).__name__} is not decided by the kernel (only Σ binds a "
                           f"variable)")
    if depth >= len(_INDEX):
        raise NotSupported(f"more than {len(_INDEX)} nested sums")
    if isinstance(e, sp.Sum):
        (i, a, b), *inner = reversed(e.limits)  # the outermost limit first
        body = sp.Sum(e.function, *reversed(inner)) if inner else e.function
        if not isinstance(i, sp.Symbol):
            raise NotSupported("a Σ whose index is not a symbol")
        body = rename_bound(body, depth + 1).xreplace({i: _INDEX[depth]})
        return sp.Sum(body, (_INDEX[depth], rename_bound(a, depth), rename_bound(b, depth)))
    args = [rename_bound(a, depth) if isinstance(a, sp.Basic) else a for a in e.args]
    # identity, not ==: SymPy compares a Subs up to the names of its variables
    return e.func(*args) if any(a is not b for a, b in zip(args, e.args)) else e
