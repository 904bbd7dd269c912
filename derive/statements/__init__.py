"""Statements of the course: claims with proofs or witnesses, and the course's numbers."""

from derive.kernel import (
    Family,
    Instantiation,
    Interpretation,
    Schema,
    Verdict,
    equal,
    every,
    hypothesis,
    nonzero,
    positive,
    table,
)
from derive.statements.prove import Outcome, prove
from derive.statements.statement import (
    Calc,
    Certificate,
    Instance,
    Rounded,
    Statement,
    Step,
    calc,
)

PROVED, REFUTED = Verdict.PROVED, Verdict.REFUTED

__all__ = [
    "PROVED",
    "REFUTED",
    "Calc",
    "Certificate",
    "Family",
    "Instance",
    "Instantiation",
    "Interpretation",
    "Schema",
    "Outcome",
    "Rounded",
    "Statement",
    "Step",
    "Verdict",
    "calc",
    "equal",
    "every",
    "hypothesis",
    "nonzero",
    "positive",
    "table",
    "prove",
]
