"""The reading of `derive prove FILE.toml`'s files, light: a path that does not exist, a file that
cannot be read or is not TOML, a folder with no [[statement]] table is refused here, before the
statements' layer (and SymPy) is loaded (derive.exercises.statements validates what is read)."""

from __future__ import annotations

from pathlib import Path

from derive.errors import NotSupportedError, capped
from derive.exercises.bank import examine, toml_files
from derive.exercises.errors import ExerciseError
from derive.exercises.reader import read_toml

DOCS = "see docs/writing-statements.md#statements-in-toml"


class StatementError(ExerciseError):
    """An invalid [[statement]] table: file, statement id, key, what is wrong, what would be
    right (exit 2)."""

    def line(self) -> str:
        return capped(_where(self) + (f"; {self.expected}" if self.expected else ""))


class StatementNotSupported(StatementError, NotSupportedError):
    """A valid [[statement]] table asking for what derive does not do (exit 2)."""

    def line(self) -> str:
        text = _where(self, "not supported: ")
        return capped(text + (f"; {self.expected}" if self.expected else ""))


def _where(e: ExerciseError, prefix: str = "") -> str:
    return f"{e.where('statement')}: {prefix}{e.problem}"


def has_statements(doc: dict) -> bool:
    return "statement" in doc


def read_paths(paths: list[str]) -> list[tuple[dict, str, str]]:
    """(document, its name in messages, the file its statements are said to come from) for the
    files named and the *.toml files with [[statement]] tables under the folders named."""
    out: list[tuple[dict, str, str]] = []
    for p in paths:
        path = Path(p)
        kind = examine(p)
        if kind == "folder":
            docs = [(f, read_toml(f)) for f in toml_files([p])]
            docs = [(f, d) for f, d in docs if has_statements(d)]
            if not docs:
                raise StatementError(p, None, None, "is a folder with no [[statement]] table",
                                     f"name a file or folder of statements; {DOCS}")
            out += [(d, str(f), str(f)) for f, d in docs]
        elif kind == "file":
            out.append((read_toml(path), str(path), p))
        else:
            raise StatementError(p, None, None, "does not exist",
                                 "name a file of [[statement]] tables (FILE.toml), or a "
                                 "statement id of proofs/ (`derive prove` lists them)")
    return out
