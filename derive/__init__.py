"""derive: prove the identities of one training step, and check answer keys exactly.

Layers, each depending only on the ones before it:
kernel (exact equality, verdicts, witnesses) <- model (the course's formulas)
<- statements (claims, proofs, course instances) <- cli.
"""

__version__ = "0.1.0"
