"""The kernel: exact numbers, exact equality, verdicts and witnesses.

Nothing here knows about training steps; everything above it does.
"""

from derive.kernel.certificates import CertificateError, certify
from derive.kernel.claims import InvalidClaim, NotSupported
from derive.kernel.decide import decide, decide_chain, refute, refute_schema
from derive.kernel.exact import decimal_str, exact, exact_str, is_zero_exact
from derive.kernel.facts import Fact, Relation, equal, every, hypothesis, nonzero, positive
from derive.kernel.interpret import Family, Interpretation, Schema, table
from derive.kernel.verdict import Decision, Verdict, Witness
from derive.kernel.witness import Instantiation, search_point

__all__ = [
    "CertificateError",
    "Decision",
    "Fact",
    "Family",
    "Instantiation",
    "Interpretation",
    "InvalidClaim",
    "NotSupported",
    "Relation",
    "Schema",
    "Verdict",
    "Witness",
    "certify",
    "decide",
    "decide_chain",
    "decimal_str",
    "exact",
    "equal",
    "every",
    "exact_str",
    "hypothesis",
    "is_zero_exact",
    "nonzero",
    "positive",
    "refute",
    "refute_schema",
    "search_point",
    "table",
]
