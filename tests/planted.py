"""What a test of a planted mistake asks of a diagnosis under the rule of evidence
(derive/exercises/evidence.py): the mistake is shown (named alone, listed in a tie, or offered)
and no other mistake is named alone."""

from __future__ import annotations


def planted(d, name: str):
    """The `evidence.Fit` of mistake `name` in diagnosis `d` (its words: `en`, `zh`); fails
    when `name` is not among the candidates or another mistake is named."""
    assert d is not None and name in d.candidates and d.mistake in (name, None), (
        None if d is None else (d.mistake, d.candidates, d.explanation))
    kind, found = d.args[0], d.args[1]
    fits = found.args[1] if kind == "near" else found
    return next(f for f in fits if f.name == name)
