"""A derivative rewritten in the exercise's own quantities, kept only where proved equal.

Given ∂f/∂v and the definitions q = body of the quantities before it (p_i = 1/(1 + e^{−z_i})),
each exp(u) a definition reads is solved for from it (e^{−z_i} = (1 − p_i)/p_i), put back into
the derivative, and the result simplified (cancelled, factored): the logistic gradient becomes
(p_i − y_i)·x_i. A form is accepted only when the kernel proves it equal to the derivative once
every quantity is written out again (`derive.kernel.decide`, under the inputs' declared
domains); otherwise the derivative is kept as it was. Σ bodies are rewritten term by term.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import sympy as sp

from derive.graph.domains import domain_facts
from derive.kernel import decide
from derive.kernel.timebound import attempt

PROOF_SECONDS = 5.0
"""The kernel's time for one proof of a rewritten piece; undecided keeps the derivative."""

MAX_PIECE_OPS = 400
"""A piece larger than this is kept as it is (factoring it could take long)."""

SIMPLIFY_SECONDS = 2.0
"""The CPU time SymPy's solve, cancel and factor may take on one definition or piece; past
it the definition gives no rule, the piece no candidate (the derivative is kept as it is)."""

Definition = tuple[sp.Expr, sp.Expr]
"""(head, body): a quantity (p_i) and its definition in the quantities before it."""


def inverse_rules(definitions: Sequence[Definition]) -> dict[sp.Expr, sp.Expr]:
    """exp(u) → its value in a quantity, for each definition q = body rational in one exp(u)
    (p = 1/(1 + e^{−z}) gives e^{−z} = (1 − p)/p and e^{z} = p/(1 − p)); a definition with
    no such single solution gives no rule."""
    rules: dict[sp.Expr, sp.Expr] = {}
    for q, body in definitions:
        atoms = [a for a in body.atoms(sp.exp)]
        if len(atoms) != 1:
            continue
        atom, = atoms
        d = sp.Dummy("e", positive=True)
        rational = body.xreplace({atom: d})
        if rational.has(sp.exp, sp.log) or not rational.has(d):
            continue
        try:
            solved = attempt(SIMPLIFY_SECONDS, _solved, q, rational, d)
        except (NotImplementedError, ValueError, TypeError):
            continue
        if solved is None:
            continue
        value, inverse = solved
        rules.setdefault(atom, value)
        rules.setdefault(sp.exp(-atom.args[0]), inverse)
    return rules


def _solved(q: sp.Expr, rational: sp.Expr, d: sp.Dummy) -> tuple[sp.Expr, sp.Expr] | None:
    """(d, 1/d) factored, for the one solution d of q = rational; None without one."""
    solved = sp.solve(sp.Eq(q, rational), d, dict=True)
    if len(solved) != 1 or d not in solved[0]:
        return None
    value = sp.factor(solved[0][d])
    return value, sp.factor(1 / value)


def _flip_sign(coeff: sp.Expr, factors: list[sp.Expr]) -> tuple[sp.Expr, list[sp.Expr]]:
    """A negative number taken into a sum that reads better negated: −2·(a − 1) is 2·(1 − a)."""
    if not coeff.is_negative:
        return coeff, factors
    for n, f in enumerate(factors):
        if f.is_Add and any(t.is_Number and t.is_negative for t in f.args):
            return -coeff, factors[:n] + [sp.expand(-f)] + factors[n + 1:]
    return coeff, factors


def _pair_conjugates(factors: list[sp.Expr]) -> list[sp.Expr]:
    """(1 + a)·(1 − a) as 1 − a², the form a derivative of tanh is written in."""
    out = list(factors)
    for n, f in enumerate(out):
        for m in range(n + 1, len(out)):
            g = out[m]
            if f.is_Add and g.is_Add and len(f.args) == len(g.args) == 2:
                both = sp.expand(f * g)
                if both.is_Add and len(both.args) == 2:
                    return _pair_conjugates(out[:n] + [both] + out[n + 1:m] + out[m + 1:])
    return out


def written_order(e: sp.Expr) -> sp.Expr:
    """A product as the course writes it: the number, then the sums, then the rest
    ((p_i − y_i)·x_i, not x_i·(p_i − y_i)), 2·(1 − a²) rather than −2·(a + 1)·(a − 1);
    unevaluated, so its order is kept."""
    if not isinstance(e, sp.Mul):
        return e
    coeff, factors = e.as_coeff_mul()
    expanded = []
    for f in factors:  # −2a − 2 as −2·(a + 1): the number leads
        c, p = f.as_content_primitive() if f.is_Add else (sp.S.One, f)
        if p.is_Add and p.could_extract_minus_sign():
            c, p = -c, sp.expand(-p)
        coeff, expanded = coeff * c, expanded + [p]
    coeff, factors = _flip_sign(coeff, _pair_conjugates(expanded))
    sums = [f for f in factors if f.is_Add]
    rest = [f for f in factors if not f.is_Add]
    ordered = ([coeff] if coeff != 1 else []) + sums + rest
    if len(ordered) < 2:
        return e
    return sp.Mul(*ordered, evaluate=False)


@lru_cache(maxsize=1024)
def _candidates(piece: sp.Expr, rules: tuple[tuple[sp.Expr, sp.Expr], ...]) -> tuple:
    """Simpler forms of a piece: the rules applied, cancelled and factored (an exercise's
    graph is built again for each variant and mistake: each piece is factored once)."""
    out = []
    ruled = piece.xreplace(dict(rules)) if rules else piece
    for e in (ruled, piece):
        try:
            simpler = attempt(SIMPLIFY_SECONDS, _factored, e)
        except (sp.PolynomialError, NotImplementedError, ValueError, TypeError):
            continue
        if simpler is not None:
            out.append(simpler)
    return tuple(out)


def _factored(e: sp.Expr) -> sp.Expr:
    return sp.factor(sp.cancel(e))


class Rewriter:
    """Rewrites derivatives of one exercise: `equal(a, b)` is the proof a form must pass."""

    def __init__(self, definitions: Sequence[Definition], inline: Callable[[sp.Expr], sp.Expr],
                 equal: Callable[[sp.Expr, sp.Expr], bool] | None = None):
        rules = inverse_rules(definitions)
        self.inline = inline
        for atom, value in list(rules.items()):  # e^{−2b−2w·x_i} as well as e^{−2z_i}
            try:
                rules.setdefault(inline(atom), value)
            except (RecursionError, ValueError, TypeError):
                continue
        self.rules = tuple(sorted(rules.items(), key=str))
        self.equal = equal or proved_equal

    def __call__(self, e: sp.Expr) -> sp.Expr:
        """e in the exercise's own quantities where that form is proved equal, else e."""
        if isinstance(e, sp.Sum):
            return sp.Sum(self(e.function), *e.limits)
        if e.has(sp.Sum):
            args = [self(a) for a in e.args]
            return e if args == list(e.args) else e.func(*args)
        return self._piece(e)

    def _piece(self, piece: sp.Expr) -> sp.Expr:
        if piece.is_Atom or sp.count_ops(piece) > MAX_PIECE_OPS:
            return piece
        size = sp.count_ops(piece)
        for form in sorted(_candidates(piece, self.rules), key=sp.count_ops):
            if sp.count_ops(form) >= size:
                break
            try:
                if self.equal(self.inline(form), self.inline(piece)):
                    shown = written_order(form)  # the proved form, reordered: checked too
                    return shown if sp.expand(shown - form) == 0 else form
            except (RecursionError, ValueError, TypeError):
                continue
        return piece


@lru_cache(maxsize=1024)
def proved_equal(a: sp.Expr, b: sp.Expr) -> bool:
    """a = b proved by the kernel wherever both are defined, under the declared domains of
    the inputs they read (η > 0, 0 ≤ μ < 1, …); a witness or no proof is False."""
    if a == b:
        return True
    facts = domain_facts(a.free_symbols | b.free_symbols)
    return decide(a, b, facts, PROOF_SECONDS, search=False).proved
