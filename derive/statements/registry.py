"""The statements of proofs/, in the order proofs/__init__.py lists them: the one entry to
proofs/ (installed as derive.proofs). proofs/ is data, the statements written with
derive.statements and derive.model; nothing else in derive imports it (tests/test_layers.py)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from derive.statements.statement import Statement


class UnknownStatement(KeyError):
    """An id that no file in proofs/ defines."""


class InvalidProofs(ValueError):
    """A file of proofs/ that does not define a valid statement."""


def proofs_module(name: str = ""):
    """derive.proofs, or its module `name` (a helper of the statements, such as `families`)."""
    return importlib.import_module(f"derive.proofs.{name}" if name else "derive.proofs")


def proofs_folder() -> Path:
    """The folder of proofs/ as installed."""
    return Path(proofs_module().__file__).resolve().parent


def all_statements() -> list[Statement]:
    proofs = proofs_module()
    out, seen = [], {}
    for name in proofs.MODULES:
        try:
            module = proofs_module(name)
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


def statement_ids() -> list[str]:
    """The ids of the statements, in `all_statements`' order, read from the files of proofs/
    without running them: a command that only needs to know which names are ids (`derive
    export PATH`) does not prove, nor import, the statements, so an invalid statement file
    does not stop it. A file whose id is not written as `Statement(id="…")` is imported."""
    proofs = proofs_module()
    folder = proofs_folder()
    ids = []
    for name in proofs.MODULES:
        found = _written_id(folder / f"{name}.py")
        if found is None:
            try:
                module = proofs_module(name)
            except ValueError as exc:
                raise InvalidProofs(f"proofs/{name}.py: {exc}") from None
            statement = getattr(module, "STATEMENT", None)
            if not isinstance(statement, Statement):
                raise InvalidProofs(f"proofs/{name}.py: defines no STATEMENT = Statement(...)")
            found = statement.id
        ids.append(found)
    return ids


def _written_id(path: Path) -> str | None:
    """The `id="…"` of a file's `STATEMENT = Statement(…)`, or None when it is not written
    as a literal (or the file cannot be read as Python)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "STATEMENT"
                                                for t in node.targets) \
                and isinstance(node.value, ast.Call):
            for kw in node.value.keywords:
                if kw.arg == "id" and isinstance(kw.value, ast.Constant) \
                        and isinstance(kw.value.value, str):
                    return kw.value.value
    return None


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
