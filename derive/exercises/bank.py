"""Loading exercise files and folders: every exercise valid, every id unique, or one error."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from derive.exercises.errors import ExerciseError, did_you_mean
from derive.exercises.reader import SETTINGS_FILE, exact_numbers, read_document
from derive.exercises.shape import table_shape

if TYPE_CHECKING:
    from derive.exercises.schema import Exercise


def _walk(folder: Path, name: str) -> list[Path]:
    """Every *.toml file under a folder, following linked folders once; a folder that cannot
    be listed is an error, never skipped."""
    found, seen = [], set()

    def fail(exc: OSError):
        where = exc.filename or name
        raise ExerciseError(str(where), None, None,
                            f"cannot be listed ({exc.strerror or exc})",
                            "make the folder readable, or name only readable folders")

    for root, dirs, files in os.walk(folder, onerror=fail, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:  # a link back to a folder already walked
            dirs[:] = []
            continue
        seen.add(real)
        dirs.sort()
        found.extend(Path(root) / f for f in sorted(files)
                     if f.endswith(".toml") and f != SETTINGS_FILE)
    return found


_ABSENT = (errno.ENOENT, errno.ENOTDIR)


def on_disk(name: str) -> bool:
    """Whether an argument names an entry on disk: a file, a folder, a link (even one that
    leads nowhere or loops), or an entry that cannot be examined (reading it says why)."""
    try:
        os.lstat(name)
    except OSError as exc:
        return exc.errno not in _ABSENT
    except ValueError:  # a NUL in the name
        return False
    return True


def examine(name: str) -> str:
    """What an argument names: "folder", "file" (anything else, which reading refuses in its
    own words) or "missing"; a symbolic-link loop, or an entry that cannot be examined (a
    folder on its path without search permission), is an ExerciseError."""
    try:
        mode = os.stat(name).st_mode
    except OSError as exc:
        if exc.errno in _ABSENT:
            return "file" if os.path.islink(name) else "missing"
        raise _unreadable(name, exc) from None
    except ValueError:
        raise ExerciseError(name, None, None, "holds a NUL character", "name a file") from None
    return "folder" if stat.S_ISDIR(mode) else "file"


def _unreadable(name: str, exc: OSError) -> ExerciseError:
    if exc.errno == errno.ELOOP:
        return ExerciseError(name, None, None, "is a symbolic-link loop",
                             "point the link at an exercise file, or remove it")
    if exc.errno == errno.EACCES:
        return ExerciseError(name, None, None, "cannot be read (permission denied: a folder on "
                             "its path cannot be searched)", "make the folders on its path "
                             "searchable (chmod +x), or copy the file elsewhere")
    return ExerciseError(name, None, None, f"cannot be read ({exc.strerror or exc})",
                         "give a readable .toml file")


def real_path(path: Path) -> Path:
    """The path with every link followed, for telling two names of one file apart; a loop (in
    the entry or a folder on its path) is an ExerciseError naming the entry."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno not in _ABSENT:
            raise _unreadable(str(path), exc) from None
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:  # Python 3.11 says RuntimeError for a loop
        raise _unreadable(str(path), OSError(errno.ELOOP, str(exc))) from None


def toml_files(paths: list[str]) -> list[Path]:
    """The files named, and the *.toml files under the folders named, in a stable order."""
    return [path for path, _, _ in _toml_entries(paths)]


def _toml_entries(paths: list[str]) -> list[tuple[Path, bool, Path]]:
    """(file, whether it was named rather than found in a folder, the folder named or the
    file's own: where its derive.toml may be), as `toml_files` orders them."""
    out, seen = [], set()

    def add(path: Path, named: bool = False, root: Path | None = None) -> None:
        key = real_path(path)
        if key not in seen:
            seen.add(key)
            out.append((path, named, root or path.parent))

    for p in paths:
        if p == "":
            raise ExerciseError("''", None, None, "is an empty path", "name an exercise file")
        path = Path(p)
        kind = examine(p)
        if kind == "folder":
            found = _walk(path, p)
            if not found:
                raise ExerciseError(p, None, None, "is a folder with no *.toml file",
                                    "name a folder that holds exercise files")
            for f in found:
                add(f, root=path)
        elif kind == "file":
            add(path, named=True)  # read_bytes refuses what is not a regular, readable file
        else:
            raise ExerciseError(p, None, None, "does not exist", "name an exercise file or folder")
    return out


def load_file(path: Path, named: bool = True, root: Path | None = None) -> list[Exercise]:
    """The exercises of a file. Its [[statement]] tables are `derive prove`'s: a file of
    statements only is refused when named, and has no exercises when found in a folder. Its
    [notation], over the derive.toml of its bank (from its folder up to `root`), restyles
    symbols."""
    path = Path(path)
    doc = read_document(path)  # an unreadable file, or one not TOML: refused before SymPy loads
    name = str(path)
    for key in doc:
        if key not in ("exercise", "statement", "notation"):
            hint = did_you_mean(key, ("exercise", "statement", "notation"))
            raise ExerciseError(name, None, key, "is not a top-level key of an exercise file",
                                hint or "write exercises as [[exercise]] tables")
    tables = doc.get("exercise")
    if tables is None and "statement" in doc:
        if not named:
            return []
        raise ExerciseError(name, None, "statement", "holds [[statement]] tables and no "
                            "[[exercise]] table", "`derive prove FILE` decides statements; "
                            "write [[exercise]] tables for this command")
    if not isinstance(tables, list) or not tables:
        raise ExerciseError(name, None, "exercise", "holds no [[exercise]] table",
                            "write at least one [[exercise]] table")
    # the checks that need no numbers, every table before any is read with SymPy
    ids = [table_shape(t, name, i)[0].exercise for i, t in enumerate(tables)]
    for i, ex_id in enumerate(ids):
        if ex_id in ids[:i]:
            raise duplicate_id(name, ex_id, name)
    # start-up: SymPy and the exercises' validation only once the file's shape is right
    from derive.exercises import notation
    from derive.exercises.schema import exercise

    doc = exact_numbers(doc)
    tables = doc["exercise"]
    own = notation.read_table(doc["notation"], name) if "notation" in doc else notation.Written()
    written = notation.merged(notation.bank_settings(path, root or path.parent), own, tables)
    return [exercise(t, name, i, written) for i, t in enumerate(tables)]


def duplicate_id(path: str, ex_id: str, where: str) -> ExerciseError:
    """The error of an id that an exercise of `where` already has (ids are unique in a bank)."""
    return ExerciseError(path, ex_id, "id", f"is also the id of an exercise in {where}",
                         "give every exercise its own id")


def load(paths: list[str]) -> list[Exercise]:
    """Every exercise of every file, validated; ids unique across the whole bank."""
    exercises, seen = [], {}
    bank, applied = {}, set()
    for path, named, root in _toml_entries(paths):
        for ex in load_file(path, named, root):
            bank.update({(d.path, d.key): d for d in getattr(ex.notation, "mistakes", ())})
            applied |= ex.bank_applied
            if ex.id in seen:
                raise duplicate_id(ex.path, ex.id, seen[ex.id])
            seen[ex.id] = ex.path
            exercises.append(ex)
    # start-up: loaded by load_file with the first file read
    from derive.exercises.declared import unapplied

    unapplied(tuple(bank.values()), applied)
    return exercises
