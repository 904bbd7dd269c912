"""Facts an author states about an exercise's givens (issue 35 item 4): formula answers are
judged under them.

    facts = ["onehot(y1, y2, y3)", "x > 0"]

A formula answer compares the claim with the quantity's symbolic form, the givens symbols. Some
of what the lesson takes for granted is not in the symbols: the label of softmax cross-entropy
is one-hot, so the gradient p₁(y₁ + y₂ + y₃) − y₁ is p₁ − y₁, and without that fact the right
answer p₁ − y₁ is refuted at y = (0, 0, 0), a label no student would hold. A fact is one of

- `onehot(a, b, …)`: the givens are 0 or 1 and exactly one is 1. Judged case by case: the
  claim is equivalent when it is proved in every case, wrong when a case has a witness (the
  case's values are part of the witness);
- `lhs = rhs`, linear in a given with a constant coefficient (`y1 + y2 + y3 = 1`, a label's
  probabilities): that given is eliminated, the last one written that can be; a proof over the
  rest holds wherever the fact does, and a witness gets the eliminated value from the equation,
  so it satisfies the fact;
- `lhs > rhs` (also `>=`, `<`, `<=`, `!=`): a fact of the kernel's decision, which a proof may
  use and a witness must meet.

The facts name givens that are numbers, and the exercise's own values must satisfy them: a
fact the givens break is refused (exit 2), so a fact never hides a wrong answer key. Facts are
parsed by the formula language's parser (never eval or sympify).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import sympy as sp

from derive.exercises.values import Where, kind_of
from derive.graph.language import FormulaError, FormulaNotSupported, parse_formula
from derive.kernel.exact import exact_sign
from derive.kernel.facts import Fact, Relation

MAX_FACTS = 20
"""Most facts one exercise states."""
MAX_CASES = 64
"""Most cases the one-hot facts together make (the product of their lengths)."""

_RELATIONS = (("!=", "≠"), (">=", "≥"), ("<=", "≤"), ("=", "="), (">", ">"), ("<", "<"))
_ONEHOT = re.compile(r"\s*onehot\s*\((.*)\)\s*", re.S)


@dataclass(frozen=True)
class AuthorFacts:
    """The facts of one exercise: `cases`, each a substitution of givens (one-hot values, an
    eliminated given), and `relations`, facts of every case's decision."""

    texts: tuple[str, ...] = ()
    cases: tuple[tuple[tuple[sp.Symbol, sp.Expr], ...], ...] = ((),)
    relations: tuple[tuple[sp.Expr, Relation], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.texts)

    def kernel_facts(self, case: tuple) -> tuple[Fact, ...]:
        """The relation facts in one case, for the kernel's decision."""
        sub = dict(case)
        return tuple(Fact(e.xreplace(sub), "a fact the exercise states", rel, "hypothesis")
                     for e, rel in self.relations)


NONE = AuthorFacts()


def read_facts(raw, symbols: dict[str, sp.Symbol], values: dict[str, sp.Expr], where: Where,
               key: str = "facts") -> AuthorFacts:
    """The exercise's `facts` list read against its number givens (`symbols`: a given's name
    → its symbol in the graph; `values`: its exact value)."""
    if not isinstance(raw, list) or not raw or len(raw) > MAX_FACTS:
        where.fail(key, f"is {kind_of(raw)}" if not isinstance(raw, list)
                   else f"has {len(raw)} items",
                   f'write a list of 1 to {MAX_FACTS} facts, such as ["onehot(y1, y2, y3)"]')
    onehots: list[list[sp.Symbol]] = []
    equations: list[tuple[str, sp.Expr]] = []
    relations: list[tuple[sp.Expr, Relation]] = []
    named: dict[sp.Symbol, str] = {}
    for n, text in enumerate(raw):
        at = f"{key}[{n}]"
        if not isinstance(text, str):
            where.fail(at, f"is {kind_of(text)}", 'write a fact as text: "x > 0"')
        m = _ONEHOT.fullmatch(text)
        if m:
            group = [_given(part, symbols, where, at) for part in m.group(1).split(",")]
            if len(group) < 2 or len(set(group)) != len(group):
                where.fail(at, f"{_shown(text)} names {len(set(group))} distinct given(s)",
                           "a one-hot fact names two or more givens, each once")
            for s in group:
                if s in named:
                    where.fail(at, f"{_shown(text)} names {s.name}, which {named[s]} names too",
                               "state each given in one one-hot fact")
                named[s] = at
            onehots.append(group)
            continue
        op, lhs, rhs = _split(text, where, at)
        diff = _side(lhs, symbols, where, at, text) - _side(rhs, symbols, where, at, text)
        if op == "=":
            equations.append((at, diff))
        else:
            rel, expr = {"!=": (Relation.NONZERO, diff), ">=": (Relation.NONNEGATIVE, diff),
                         ">": (Relation.POSITIVE, diff), "<=": (Relation.NONNEGATIVE, -diff),
                         "<": (Relation.POSITIVE, -diff)}[op]
            relations.append((expr, rel))
            if not rel.holds(expr.xreplace(_at(values, symbols))):
                where.fail(at, f"{_shown(text)} does not hold for the exercise's givens",
                           "state facts the givens satisfy (a fact must not hide a wrong key)")
    _onehots_hold(onehots, values, symbols, where, key, raw)
    if math_prod([len(g) for g in onehots]) > MAX_CASES:
        where.fail(key, f"makes {math_prod([len(g) for g in onehots])} one-hot cases",
                   f"at most {MAX_CASES}")
    cases = []
    for choice in itertools.product(*[range(len(g)) for g in onehots]):
        case = {s: sp.S.One if j == c else sp.S.Zero
                for g, c in zip(onehots, choice) for j, s in enumerate(g)}
        for at, diff in equations:
            case = _eliminate(case, diff, at, where, symbols, values, raw)
            if case is None:
                break
        if case is not None:
            cases.append(tuple(case.items()))
    if not cases:
        where.fail(key, "no values satisfy these facts together", "state facts that can hold")
    return AuthorFacts(tuple(raw), tuple(cases), tuple(relations))


def math_prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:59] + "…")


def _split(text: str, where: Where, at: str) -> tuple[str, str, str]:
    for op, uni in _RELATIONS:
        for spelled in dict.fromkeys((op, uni)):
            if spelled in text:
                lhs, _, rhs = text.partition(spelled)
                if any(ch in rhs for ch in "<>=≠≥≤!"):
                    where.fail(at, f"{_shown(text)} has more than one comparison",
                               'write one: "x > 0", "y1 + y2 + y3 = 1"')
                return op, lhs, rhs
    where.fail(at, f"{_shown(text)} is not a fact",
               'write "onehot(y1, y2, y3)", an equation "y1 + y2 + y3 = 1" or a comparison '
               '"x > 0"')
    raise AssertionError  # where.fail raises


def _side(text: str, symbols: dict[str, sp.Symbol], where: Where, at: str,
          whole: str) -> sp.Expr:
    try:
        e = parse_formula(text, {})
    except FormulaNotSupported as exc:
        where.fail(at, f"{_shown(whole)}: {exc}", "facts use +, −, ·, / of givens and numbers")
    except FormulaError as exc:
        where.fail(at, f"{_shown(whole)}: {exc}", 'write a fact such as "x > 0"')
    subs = {}
    for s in e.free_symbols:
        if s.name not in symbols:
            where.fail(at, f"{_shown(whole)} reads {s.name!r}, which is not a given number",
                       "facts name the exercise's givens: " + ", ".join(sorted(symbols)[:12]))
        subs[s] = symbols[s.name]
    if e.atoms(sp.Derivative, sp.Sum, sp.Indexed):
        where.fail(at, f"{_shown(whole)} has a sum, a derivative or an index",
                   "facts name givens that are numbers")
    return e.xreplace(subs).doit()


def _given(text: str, symbols: dict[str, sp.Symbol], where: Where, at: str) -> sp.Symbol:
    name = text.strip()
    try:
        e = parse_formula(name, {})
    except (FormulaError, FormulaNotSupported):
        e = None
    if not isinstance(e, sp.Symbol) or e.name not in symbols:
        where.fail(at, f"onehot names {name[:40]!r}, which is not a given number",
                   "name the label's givens: onehot(y1, y2, y3)")
    return symbols[e.name]


def _at(values: dict[str, sp.Expr], symbols: dict[str, sp.Symbol]) -> dict:
    return {symbols[n]: v for n, v in values.items() if n in symbols}


def _onehots_hold(onehots, values, symbols, where, key, raw) -> None:
    at = _at(values, symbols)
    for g in onehots:
        got = [at.get(s) for s in g]
        if sorted(got, key=str) != sorted([sp.S.One] + [sp.S.Zero] * (len(g) - 1), key=str):
            shown = ", ".join(f"{s.name} = {v}" for s, v in zip(g, got))
            where.fail(key, f"onehot({', '.join(s.name for s in g)}) does not hold for the "
                       f"exercise's givens ({shown})", "give the label as 0s and one 1")


def _eliminate(case: dict, diff: sp.Expr, at: str, where: Where, symbols, values,
               raw) -> dict | None:
    """The case with one more given eliminated by `diff = 0`; None when the case makes the
    equation false (that case cannot hold)."""
    e = sp.expand(diff.xreplace(case))
    if not e.free_symbols:
        return None if e != 0 else case
    order = [symbols[n] for n in symbols]
    for s in reversed(order):
        if s not in e.free_symbols:
            continue
        coeff = e.coeff(s, 1)
        rest = sp.expand(e - coeff * s)
        if coeff.free_symbols or coeff == 0 or rest.has(s):
            continue
        solved = -rest / coeff
        if exact_sign(sp.expand(solved.xreplace(_at(values, symbols)))
                      - _at(values, symbols).get(s, sp.nan)) != 0:
            where.fail(at, "does not hold for the exercise's givens",
                       "state facts the givens satisfy (a fact must not hide a wrong key)")
        out = {k: v.xreplace({s: solved}) for k, v in case.items()}
        out[s] = solved
        return out
    where.fail(at, "is an equation that is not linear in any given with a constant "
               "coefficient", 'write a linear equation such as "y1 + y2 + y3 = 1"')
    return None
