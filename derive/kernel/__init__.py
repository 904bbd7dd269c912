"""The kernel: exact numbers, exact equality, verdicts and witnesses.

Nothing here knows about training steps; everything above it does.
"""

from derive.kernel.decide import decide, decide_chain, refute
from derive.kernel.exact import exact, exact_str, decimal_str, is_zero_exact
from derive.kernel.facts import Fact, hypothesis, certify
from derive.kernel.verdict import Decision, Verdict, Witness
from derive.kernel.witness import Family, Instantiation, search_witness

__all__ = [
    "Decision",
    "Fact",
    "Family",
    "Instantiation",
    "Verdict",
    "Witness",
    "certify",
    "decide",
    "decide_chain",
    "refute",
    "decimal_str",
    "exact",
    "exact_str",
    "hypothesis",
    "is_zero_exact",
    "search_witness",
]
