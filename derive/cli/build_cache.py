"""A stand-in for derive.cli.cache until it is merged (the same interface, texts only)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import derive


def _source_hash() -> str:
    h = hashlib.sha256()
    root = Path(derive.__file__).parent
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".js", ".css", ".json"):
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


class Cache:
    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.source = _source_hash() if folder else ""

    @classmethod
    def open(cls, enabled: bool) -> Cache:
        if not enabled:
            return cls(None)
        folder = Path(os.environ.get("DERIVE_CACHE_DIR")
                      or Path.home() / ".cache" / "derive") / "build"
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return cls(None)
        return cls(folder)

    def exercise_key(self, ex, *options: str) -> str:
        h = hashlib.sha256()
        for part in (repr(ex.raw), ex.path, ex.id, self.source, *options):
            h.update(str(part).encode() + b"\0")
        return h.hexdigest()

    def get_text(self, key: str) -> str | None:
        if self.folder is None:
            return None
        try:
            return (self.folder / key).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def put_text(self, key: str, text: str) -> None:
        if self.folder is None:
            return
        try:
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, self.folder / key)
        except OSError:
            pass

    def get_report(self, key: str, ex):
        return None

    def put_report(self, key: str, report) -> None:
        pass
