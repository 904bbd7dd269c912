"""The statements of proofs/, in the order proofs/__init__.py lists them."""

from __future__ import annotations

import importlib

from derive.statements.statement import Statement


class UnknownStatement(KeyError):
    """An id that no file in proofs/ defines."""


class InvalidProofs(ValueError):
    """A file of proofs/ that does not define a valid statement."""


def all_statements() -> list[Statement]:
    proofs = importlib.import_module("derive.proofs")
    out, seen = [], {}
    for name in proofs.MODULES:
        try:
            module = importlib.import_module(f"derive.proofs.{name}")
        except ValueError as exc:  # a Statement that rejects its own fields
            raise InvalidProofs(f"proofs/{name}.py: {exc}") from None
        statement = getattr(module, "STATEMENT", None)
        if not isinstance(statement, Statement):
            raise InvalidProofs(f"proofs/{name}.py: defines no STATEMENT = Statement(...)")
        if statement.id in seen:
            raise InvalidProofs(f"proofs/{name}.py: id {statement.id!r} is also the id in "
                                f"proofs/{seen[statement.id]}.py; give each statement its own id")
        seen[statement.id] = name
        out.append(statement)
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
