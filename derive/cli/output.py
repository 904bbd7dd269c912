"""Writing outputs: atomically (a temporary file renamed into place), regular files only, never
over an input or a file of derive itself; a bank of files all at once or not at all.

Every refusal and every OS error on output is one line (OutputError, exit 2); Ctrl-C leaves no
file behind.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

import derive
from derive import interrupt
from derive.cli.terminal import safe
from derive.errors import OutputError, quoted_path


def _o(option: str, out: str) -> str:
    """`-o NAME` as a message names an output: the name escaped and quoted short."""
    return f"{option} {quoted_path(out)}"


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _protected() -> list[Path]:
    """Folders whose files derive never writes: its own package, and the statements."""
    # start-up: the statements' registry only once an output is written
    from derive.statements.registry import proofs_folder

    return [Path(derive.__file__).resolve().parent, proofs_folder()]


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


def _real(path: Path) -> Path | None:
    """The path with every link followed; None when that cannot be told (a loop)."""
    try:
        return path.resolve()
    except (RuntimeError, OSError):  # Python 3.11 says RuntimeError for a symbolic-link loop
        return None


def same_file(a: str, b: str) -> bool:
    """Whether two output names write the same file (links on their folders followed)."""
    ra, rb = _real(Path(a)), _real(Path(b))
    return Path(a) == Path(b) or (ra is not None and ra == rb)


def _check_target(out: str, inputs, what: str = "a file", option: str = "-o") -> Path:
    """The path to write for `-o out`, after every refusal. A symbolic link is refused, never
    followed: writing replaces the name given, in the folder given."""
    if out == "":
        raise OutputError(f"{option} '': an empty name; name " + what)
    target = Path(out)
    try:
        st = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as exc:
        raise OutputError(f"{_o(option, out)}: cannot be examined ({_reason(exc)})") from None
    except ValueError:
        raise OutputError(f"{_o(option, out)}: holds a NUL character; name " + what) from None
    if st is not None and stat.S_ISLNK(st.st_mode):
        if what == "a file" and os.path.isdir(target):  # said as for the folder it names
            raise OutputError(f"{_o(option, out)}: is a folder; name a file")
        raise OutputError(f"{_o(option, out)}: is a symbolic link; derive never writes through a "
                          f"link: name the {what.split()[-1]} itself, or remove the link")
    parent = _real(target.parent if str(target.parent) else Path("."))
    if parent is None:
        raise OutputError(f"{_o(option, out)}: a folder on its path is a symbolic-link loop; name "
                          f"a file in a real folder")
    resolved = parent / target.name
    if any(resolved == _real(Path(p)) for p in inputs):
        raise OutputError(f"{_o(option, out)}: is one of the input files; name another output "
                          f"file")
    mode = st.st_mode if st is not None else None
    if mode is not None and stat.S_ISDIR(mode) and what == "a file":
        raise OutputError(f"{_o(option, out)}: is a folder; name a file")
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise OutputError(f"{_o(option, out)}: is not a regular file (a device, a FIFO or a "
                          f"socket); derive writes regular files only")
    if any(_inside(resolved, folder) for folder in _protected()):
        raise OutputError(f"{_o(option, out)}: is a file of derive itself; name a file elsewhere")
    return target


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a folder on its path is a symbolic-link loop"
    if exc.errno == errno.EACCES:
        return "permission denied"
    return str(exc.strerror or exc)


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


def _draw_aside(folder: Path, name: str, draw, mode: int) -> str:
    suffix = Path(name).suffix
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp" + suffix)
    os.close(fd)
    try:
        os.chmod(tmp, mode)
        draw(tmp)
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
    target = check_output(out, inputs)
    _replace(target, out, lambda folder, mode: _write_aside(folder, target.name, text, mode))


def check_output(out: str, inputs=(), option: str = "-o") -> Path:
    """The file to write for `option out`, after every refusal (`emit` and `emit_drawn` check
    again as they write)."""
    target = _check_target(out, inputs, option=option)
    parent = target.parent if str(target.parent) else Path(".")
    try:
        folder = stat.S_ISDIR(os.stat(parent).st_mode)
    except OSError:
        folder = False
    if not folder:
        raise OutputError(f"{_o(option, out)}: folder {quoted_path(parent)} does not exist; "
                          f"create it first")
    return target


def emit_drawn(draw, out: str, inputs=(), option: str = "-o") -> None:
    """Write `out` atomically with `draw(path)`, which writes a file (a chart) at the path of
    a temporary file beside `out` (with the same suffix), renamed into place once drawn."""
    target = check_output(out, inputs, option)
    _replace(target, out, lambda folder, mode: _draw_aside(folder, target.name, draw, mode),
             option)


def _replace(target: Path, out: str, aside, option: str = "-o") -> None:
    parent = target.parent if str(target.parent) else Path(".")
    # mkstemp makes the file 0600; give it the mode a plain open() would (or keep the old one)
    try:
        mode = os.lstat(target).st_mode & 0o777
    except OSError:
        mode = 0o666 & ~_umask()
    tmp = None
    try:
        tmp = aside(parent, mode)
        interrupt.commit()  # a Ctrl-C before this line: nothing written; after it: ignored
        os.replace(tmp, target)  # replaces the name itself: never writes through a link
    except OSError as exc:
        raise OutputError(f"{_o(option, out)}: cannot be written ({exc.strerror or exc})") \
            from None
    finally:
        if tmp is not None and os.path.lexists(tmp):
            Path(tmp).unlink(missing_ok=True)


def emit_bank(files, out: str, inputs) -> None:
    """Write every (name, text) of `files` (an iterable, consumed as it is made) into the folder
    `out`, all or nothing: built in a folder beside it, then renamed into place. `out` must be
    new or empty, and must not hold an input."""
    target = _check_target(out, inputs, what="a folder")
    resolved = _real(target) or target
    if any(real is not None and _inside(real, resolved)
           for real in (_real(Path(p)) for p in inputs)):
        raise OutputError(f"{_o('-o', out)}: holds input files; name a folder of its own for "
                          f"the bank")
    parent = target.parent if str(target.parent) else Path(".")
    try:
        if target.exists():
            if not target.is_dir():
                raise OutputError(f"{_o('-o', out)}: is a file; name a folder")
            if any(target.iterdir()):
                raise OutputError(f"{_o('-o', out)}: is not empty; name a new or empty folder")
        if not parent.is_dir():
            raise OutputError(f"{_o('-o', out)}: its parent folder does not exist; create it first")
    except OSError as exc:
        raise OutputError(f"{_o('-o', out)}: cannot be examined ({_reason(exc)})") from None
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
        raise OutputError(f"{_o('-o', out)}: cannot be written ({exc.strerror or exc}); "
                          f"nothing was written") from None
    finally:
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
