"""Writing outputs: atomically (a temporary file renamed into place), regular files only, never
over an input or a file of derive itself; a bank of files all at once or not at all.

Every refusal and every OS error on output is one line (OutputError, exit 2); Ctrl-C leaves no
file behind.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

import derive
from derive import interrupt
from derive.cli.terminal import safe
from derive.errors import OutputError
from derive.statements.registry import proofs_folder


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _protected() -> list[Path]:
    """Folders whose files derive never writes: its own package, and the statements."""
    return [Path(derive.__file__).resolve().parent, proofs_folder()]


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


def _check_target(out: str, inputs, what: str = "a file") -> Path:
    """The path to write for `-o out`, after every refusal."""
    if out == "":
        raise OutputError("-o '': an empty name; name " + what)
    target = Path(out)
    resolved = target.resolve()
    if any(resolved == Path(p).resolve() for p in inputs):
        raise OutputError(f"-o {out}: is one of the input files; name another output file")
    try:
        mode = os.stat(resolved).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(f"-o {out}: cannot be examined ({exc.strerror})") from None
    if mode is not None and stat.S_ISDIR(mode) and what == "a file":
        raise OutputError(f"-o {out}: is a folder; name a file")
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise OutputError(f"-o {out}: is not a regular file (a device, a FIFO or a socket); "
                          f"derive writes regular files only")
    if any(_inside(resolved, folder) for folder in _protected()):
        raise OutputError(f"-o {out}: is a file of derive itself; name a file elsewhere")
    return resolved if target.is_symlink() else target


def _write_aside(folder: Path, name: str, text: str, mode: int) -> str:
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
    try:
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def emit(text: str, out: str | None, inputs=()) -> None:
    """Print `text` (control characters escaped), or write it to `out` atomically."""
    if out is None:
        interrupt.commit()  # a Ctrl-C from here on is ignored: what is printed stands
        sys.stdout.write(safe(text if text.endswith("\n") else text + "\n"))
        return
    target = _check_target(out, inputs)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"-o {out}: folder {parent} does not exist; create it first")
    # mkstemp makes the file 0600; give it the mode a plain open() would (or keep the old one)
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~_umask()
    tmp = None
    try:
        tmp = _write_aside(parent, target.name, text, mode)
        interrupt.commit()  # a Ctrl-C before this line: nothing written; after it: ignored
        os.replace(tmp, target)
    except OSError as exc:
        raise OutputError(f"-o {out}: cannot be written ({exc.strerror or exc})") from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            Path(tmp).unlink(missing_ok=True)


def emit_bank(files, out: str, inputs) -> None:
    """Write every (name, text) of `files` (an iterable, consumed as it is made) into the folder
    `out`, all or nothing: built in a folder beside it, then renamed into place. `out` must be
    new or empty, and must not hold an input."""
    target = _check_target(out, inputs, what="a folder")
    resolved = target.resolve()
    if any(_inside(Path(p).resolve(), resolved) for p in inputs):
        raise OutputError(f"-o {out}: holds input files; name a folder of its own for the bank")
    if target.exists():
        if not target.is_dir():
            raise OutputError(f"-o {out}: is a file; name a folder")
        if any(target.iterdir()):
            raise OutputError(f"-o {out}: is not empty; name a new or empty folder")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"-o {out}: its parent folder does not exist; create it first")
    aside = None
    try:
        aside = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}.", suffix=".tmp"))
        mode = 0o666 & ~_umask()
        for name, text in files:
            os.replace(_write_aside(aside, name, text, mode), aside / name)
        os.chmod(aside, 0o777 & ~_umask())
        interrupt.commit()
        if target.exists():
            target.rmdir()  # empty: checked above
        os.rename(aside, target)
        aside = None
    except OSError as exc:
        raise OutputError(f"-o {out}: cannot be written ({exc.strerror or exc}); "
                          f"nothing was written") from None
    finally:
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
