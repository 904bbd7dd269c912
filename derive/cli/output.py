"""Writing outputs: atomically (a temporary file renamed into place), never over an input."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from derive.cli.errors import UsageError


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def emit(text: str, out: str | None, inputs: list[Path] = ()) -> None:
    """Print `text`, or write it to `out` atomically; refuse to overwrite any input file."""
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    target = Path(out)
    resolved = target.resolve()
    target = resolved if target.is_symlink() else target  # replace the file a link points to
    if any(resolved == Path(p).resolve() for p in inputs):
        raise UsageError(f"-o {out}: is one of the input files; name another output file")
    if target.is_dir():
        raise UsageError(f"-o {out}: is a folder; name a file")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"-o {out}: folder {parent} does not exist; create it first")
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file 0600; give it the mode a plain open() would (or keep the old one)
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~_umask()
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
