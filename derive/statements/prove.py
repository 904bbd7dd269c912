"""Proving a statement: its facts, its calc chain or its witness search, and its instances."""

from __future__ import annotations

import time
from dataclasses import dataclass

from derive.kernel import (
    CertificateError,
    Decision,
    Fact,
    Verdict,
    Witness,
    certify,
    decide,
    decide_chain,
    refute_schema,
)
from derive.statements.statement import Certificate, Statement


@dataclass(frozen=True)
class InstanceResult:
    label: str
    source: str
    checks: tuple[tuple[str, object, object, bool], ...]

    @property
    def ok(self) -> bool:
        return all(ok for *_, ok in self.checks)


@dataclass(frozen=True)
class Outcome:
    """What proving one statement found."""

    statement: Statement
    verdict: Verdict
    strategy: str
    witness: Witness | None
    steps: tuple[Decision, ...]
    facts: tuple[tuple[str, bool, str, tuple[str, ...]], ...]
    """(fact, checked, reason, the facts a certificate used)"""
    instances: tuple[InstanceResult, ...]
    seconds: float
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict is self.statement.expect and all(i.ok for i in self.instances)


def _facts(statement: Statement) -> tuple[tuple[Fact, ...], list]:
    """Hypotheses as given; certificates checked in order, each from the facts before it only
    (a factor may name an earlier hypothesis or certificate)."""
    facts: list[Fact] = []
    checked: dict[Certificate, Fact] = {}
    report = []
    for f in statement.facts:
        if isinstance(f, Fact):
            facts.append(f)
            report.append((f.describe(), True, f.reason, ()))
            continue
        terms = [(c, tuple(checked.get(x, x) for x in fs)) for c, fs in f.terms]
        try:
            fact = certify(f.expr, terms, f.reason, tuple(facts))
        except CertificateError as exc:
            report.append((f.name, False, str(exc), ()))
            continue
        checked[f] = fact
        facts.append(fact)
        report.append((f.name, True, f.reason, fact.uses))
    return tuple(facts), report


def _identity(statement: Statement, facts: tuple[Fact, ...]):
    proof = statement.proof
    if proof is None:
        d = decide(statement.lhs, statement.rhs, facts, family=statement.family)
        return d.verdict, d.strategy, d.witness, (d,), d.detail
    if proof.start != statement.lhs or proof.end != statement.rhs:
        return Verdict.UNKNOWN, "calc chain", None, (), "the chain does not join lhs to rhs"
    steps = tuple(decide_chain(proof.start, [s.expr for s in proof.steps], facts))
    if all(s.proved for s in steps):
        rules = sorted({r for s in steps for r in s.rules})
        return Verdict.PROVED, "calc chain: " + ", ".join(rules), None, steps, ""
    d = decide(statement.lhs, statement.rhs, facts, family=statement.family)
    if d.verdict is Verdict.REFUTED:
        return d.verdict, d.strategy, d.witness, steps, d.detail
    bad = next(n for n, s in enumerate(steps, 1) if not s.proved)
    detail = f"step {bad} not proved: {steps[bad - 1].detail}"
    return Verdict.UNKNOWN, "calc chain", None, steps, detail


def prove(statement: Statement) -> Outcome:
    """Decide a statement afresh (no cache) and check its course instances."""
    start = time.perf_counter()
    facts, fact_report = _facts(statement)
    if not all(ok for _, ok, _, _ in fact_report):
        verdict, strategy, witness, steps, detail = (
            Verdict.UNKNOWN, "facts", None, (), "a certificate did not check")
    elif statement.schema is not None:
        d = refute_schema(statement.schema)
        verdict, strategy, witness, steps, detail = d.verdict, d.strategy, d.witness, (), d.detail
    else:
        verdict, strategy, witness, steps, detail = _identity(statement, facts)
    instances = tuple(InstanceResult(i.label, i.source, tuple(i.check()))
                      for i in statement.instances)
    return Outcome(statement, verdict, strategy, witness, steps, tuple(fact_report), instances,
                   time.perf_counter() - start, detail)
