"""The statements of proofs/, in the order proofs/__init__.py lists them."""

from __future__ import annotations

import importlib

from derive.statements.statement import Statement


class UnknownStatement(KeyError):
    """An id that no file in proofs/ defines."""


def all_statements() -> list[Statement]:
    proofs = importlib.import_module("derive.proofs")
    out = []
    for name in proofs.MODULES:
        module = importlib.import_module(f"derive.proofs.{name}")
        out.append(module.STATEMENT)
    ids = [s.id for s in out]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate statement ids in proofs/: {ids}")
    return out


def select(ids: list[str]) -> list[Statement]:
    """The statements with these ids (all of them when none is given), in the order asked."""
    statements = all_statements()
    if not ids:
        return statements
    by_id = {s.id: s for s in statements}
    missing = [i for i in ids if i not in by_id]
    if missing:
        raise UnknownStatement(missing[0])
    return [by_id[i] for i in ids]
