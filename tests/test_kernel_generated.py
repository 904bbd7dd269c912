"""Generated Σ identities: the kernel never gives a wrong verdict, and decides most of them.

True identities are built by valid rewrites (tests/generated_sums.py); false ones perturb the
rewritten side, and their falsity is confirmed by brute force before they count as false.
The share decided is reported (run with -s); benchmarks/kernel_share.py measures it on a larger
seeded sample.
"""

from __future__ import annotations

import random

from generated_sums import counterexample, pair
from hypothesis import given
from hypothesis import strategies as st
from support import examples, reverify_claim

from derive.kernel import Verdict, decide

TALLY = {"true": 0, "proved": 0, "false": 0, "refuted": 0}


@examples(25, slow=60)
@given(st.integers(0, 10**9))
def test_generated_identities_never_get_a_wrong_verdict(seed):
    rng = random.Random(seed)
    lhs, rhs, built_true = pair(rng)
    truly_false = counterexample(lhs, rhs, seed) is not None
    assert not (built_true and truly_false), "a rewrite was not an identity"
    d = decide(lhs, rhs, seconds=20)
    if truly_false:
        TALLY["false"] += 1
        assert d.verdict is not Verdict.PROVED, (lhs, rhs, d.strategy)
        if d.verdict is Verdict.REFUTED:
            TALLY["refuted"] += 1
            reverify_claim(lhs, rhs, d.witness)
    elif built_true:
        TALLY["true"] += 1
        assert d.verdict is not Verdict.REFUTED, (lhs, rhs, d.witness)
        TALLY["proved"] += d.verdict is Verdict.PROVED
    else:  # a perturbation that happened to be harmless: no verdict may contradict it
        assert d.verdict is not Verdict.REFUTED or reverify_claim(lhs, rhs, d.witness) is None


def test_share_decided_is_reported():
    true, false = TALLY["true"], TALLY["false"]
    if true:
        print(f"\ngenerated true identities proved: {TALLY['proved']}/{true}")
    if false:
        print(f"generated false claims refuted: {TALLY['refuted']}/{false}")
