"""A content-addressed cache of exercise reports and artefacts, shared by check, key, export and
build: an entry's name is the SHA-256 of what decides it (the exercise's own table, its file's
notation and its bank's declared mistakes, its path and id, derive's source and the versions of
what it computes with, and the options), so an edit anywhere in that list is a miss.

The folder ($DERIVE_CACHE_DIR, else $XDG_CACHE_HOME/derive, else ~/.cache/derive) is safe to
delete at any time. It is trusted only when it is this user's own and not writable by others;
every entry is signed (HMAC-SHA256) with a secret kept in it, and an entry whose signature does
not verify is a miss, so bytes nobody here wrote are never unpickled. Writes are atomic; a
cache that cannot be used (no home, a full disk) is silently no cache.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import hmac
import io
import json
import os
import pickle
import secrets
import stat
import sys
from pathlib import Path

import derive

_SECRET = "secret"
_TEXT, _REPORT = "t", "r"


def default_folder() -> Path | None:
    """Where the cache lives, or None when no folder is named and there is no home."""
    named = os.environ.get("DERIVE_CACHE_DIR")
    if named:
        return Path(named)
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return Path(base) / "derive"
    try:
        return Path.home() / ".cache" / "derive"
    except (RuntimeError, KeyError):
        return None


_SOURCE: str | None = None


def source_hash() -> str:
    """SHA-256 of derive's own files (code, page scripts, fonts) and the versions of Python,
    SymPy, mpmath and gmpy2: what a cached result was computed with."""
    global _SOURCE
    if _SOURCE is None:
        # start-up: the versions are read from the installed packages' metadata, not by
        # importing them (a cached `derive prove` loads no SymPy)
        from importlib.metadata import version

        digest = hashlib.sha256()
        for part in (derive.__version__, sys.version, version("sympy"), version("mpmath"),
                     version("gmpy2")):
            digest.update(part.encode() + b"\0")
        folder_digest(digest, Path(derive.__file__).resolve().parent)
        _SOURCE = digest.hexdigest()
    return _SOURCE


def folder_digest(digest, folder: Path) -> None:
    """Add every file of `folder` (but compiled ones), by its relative path and its bytes."""
    for path in sorted(folder.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file() or path.suffix == ".pyc":
            continue
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())


class Uncacheable(Exception):
    """A value with no canonical form here: the exercise is computed, not cached."""


def canonical(value):
    """A JSON-ready form of a value read from a file (TOML tables, notation, declarations),
    the same for equal values in any order of their keys."""
    from sympy import Basic, srepr  # start-up: SymPy only when an exercise is addressed

    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return ["float", repr(value)]
    if isinstance(value, (datetime.date, datetime.time)):
        return [type(value).__name__, value.isoformat()]
    if isinstance(value, dict):
        items = sorted(((str(k), canonical(v)) for k, v in value.items()), key=lambda kv: kv[0])
        extra = [canonical(getattr(value, "mistakes", ()))] if hasattr(value, "mistakes") else []
        return ["dict", items, *extra]
    if isinstance(value, (list, tuple)):
        return ["list", [canonical(v) for v in value]]
    if isinstance(value, (set, frozenset)):
        return ["set", sorted((canonical(v) for v in value), key=json.dumps)]
    if isinstance(value, Basic):
        return ["sympy", srepr(value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value).__name__,
                [[f.name, canonical(getattr(value, f.name))] for f in dataclasses.fields(value)]]
    raise Uncacheable(type(value).__name__)


def _written(notation) -> list:
    """A file's notation by what was written (name, text, file) and its bank's mistakes."""
    entries = sorted((str(name), entry[1], entry[2]) for name, entry in notation.items())
    return [entries, canonical(tuple(getattr(notation, "mistakes", ())))]


def address(*parts: str) -> str:
    """The address of `parts` computed by this derive."""
    digest = hashlib.sha256(source_hash().encode())
    for part in parts:
        digest.update(b"\0" + part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def exercise_address(ex, *options: str) -> str | None:
    """The address of what `ex` gives under `options` (None: not cacheable)."""
    try:
        content = json.dumps([ex.path, ex.id, canonical(ex.raw), _written(ex.notation),
                              list(ex.declared), canonical(ex.bank_applied)],
                             ensure_ascii=True, separators=(",", ":"))
    except (Uncacheable, TypeError, ValueError, IndexError):
        return None
    return address(content, *options)


class Cache:
    """Get and put by content address; `Cache.open(False)` (or an unusable folder) keeps
    nothing and finds nothing."""

    def __init__(self, folder: Path | None, secret: bytes = b""):
        self.folder = folder
        self._secret = secret

    @classmethod
    def open(cls, enabled: bool = True) -> Cache:
        if not enabled or os.environ.get("DERIVE_NO_CACHE"):
            return cls(None)
        folder = default_folder()
        if folder is None:
            return cls(None)
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not _own(folder):
                return cls(None)
            return cls(folder, _secret(folder))
        except OSError:
            return cls(None)

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def key(self, *parts: str) -> str | None:
        """The address of `parts` (None when nothing is kept: no work for a disabled cache)."""
        return address(*parts) if self.enabled else None

    def exercise_key(self, ex, *options: str) -> str | None:
        """The address of what `ex` gives under `options` (None: not cacheable, or nothing is
        kept)."""
        return exercise_address(ex, *options) if self.enabled else None

    # ------------------------------------------------------------------ entries

    def _path(self, key: str, kind: str) -> Path:
        return self.folder / key[:2] / f"{key}.{kind}"

    def _get(self, key: str | None, kind: str) -> bytes | None:
        if self.folder is None or key is None:
            return None
        try:
            data = _read_own(self._path(key, kind))
        except OSError:
            return None
        signature, body = data[:32], data[32:]
        expected = hmac.new(self._secret, kind.encode() + key.encode() + body,
                            hashlib.sha256).digest()
        return body if hmac.compare_digest(signature, expected) else None

    def _put(self, key: str | None, kind: str, body: bytes) -> None:
        if self.folder is None or key is None:
            return
        signature = hmac.new(self._secret, kind.encode() + key.encode() + body,
                             hashlib.sha256).digest()
        try:
            _write_atomic(self._path(key, kind), signature + body)
        except OSError:
            pass

    def get_text(self, key: str | None) -> str | None:
        body = self._get(key, _TEXT)
        try:
            return None if body is None else body.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def put_text(self, key: str | None, text: str) -> None:
        self._put(key, _TEXT, text.encode("utf-8", "surrogatepass"))

    def get_report(self, key: str | None, ex):
        """The report stored under `key`, given back its exercise `ex`, or None."""
        body = self._get(key, _REPORT)
        if body is None:
            return None
        try:
            return unpack_report(body, ex)
        except Exception:  # noqa: BLE001 — a signed entry from an older layout: a miss
            return None

    def put_report(self, key: str | None, report) -> None:
        """Store a report that decided every claim (one cut by a time bound, or with an
        undecided claim, may decide on another run: it is computed again)."""
        if not storable(report):
            return
        try:
            body = pack_report(report)
        except Exception:  # noqa: BLE001 — what does not pickle is computed again
            return
        self._put(key, _REPORT, body)


def storable(report) -> bool:
    """Whether a report is the same on every run: no time bound cut it, no claim undecided."""
    # start-up: the exercise layer is loaded by the commands that check exercises
    from derive.exercises.check import UNDECIDED

    return not report.undecided and all(c.status != UNDECIDED for c in report.claims)


class _Pickler(pickle.Pickler):
    """SymPy's own pickles rebuild an expression through its constructor, which evaluates it
    again (1/3*(a + b) can come back as a/3 + b/3) and returns cached objects (so subtrees that
    were distinct become one, and the names of shared subexpressions in exact text change):
    every node is rebuilt as it was, by its class, its arguments and its own attributes."""

    def reducer_override(self, obj):
        from sympy import Basic  # start-up: SymPy only when a report is packed

        if isinstance(obj, Basic) and obj.args:
            own = {name: getattr(obj, name) for name in _slots(type(obj))
                   if hasattr(obj, name)}
            own.update(getattr(obj, "__dict__", {}))
            return _rebuilt, (type(obj), obj.args, own)
        return NotImplemented


def _slots(cls) -> tuple[str, ...]:
    names = {name for k in cls.__mro__ for name in getattr(k, "__slots__", ())}
    return tuple(sorted(names - {"_args", "_assumptions", "_mhash", "__weakref__"}))


def _rebuilt(cls, args, own):
    from sympy import Basic  # start-up: SymPy only when a report is unpacked

    obj = Basic.__new__(cls, *args)
    for name, value in own.items():
        setattr(obj, name, value)
    return obj


def pack_report(report) -> bytes:
    """A report's bytes without its exercise (whose recipe holds closures); unpacked, every
    expression has the form it had."""
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(
        dataclasses.replace(report, exercise=None))
    return out.getvalue()


def unpack_report(data: bytes, ex):
    """The report of `pack_report`, given back its exercise. Only for bytes derive wrote: a
    signed cache entry, or a pipe from its own worker."""
    return dataclasses.replace(pickle.loads(data), exercise=ex)  # noqa: S301


def _own(path: Path) -> bool:
    """A file or folder of this user's that nobody else may write."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return False
    return info.st_uid == os.geteuid() and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def _secret(folder: Path) -> bytes:
    path = folder / _SECRET
    try:
        data = _read_own(path)
        if len(data) == 32:
            return data
    except OSError:  # none yet, or not one to trust: a new one replaces it
        pass
    _write_atomic(path, os.urandom(32))
    return _read_own(path)


def _folder(path: Path, make: bool) -> int:
    """A descriptor of `path`'s folder, opened without following a link (made if `make`): an
    entry is read and written only in a real folder of this user's, never through a link."""
    if make:
        try:
            os.mkdir(path.parent, 0o700)
        except FileExistsError:
            pass
    fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    info = os.fstat(fd)
    if info.st_uid != os.geteuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        os.close(fd)
        raise PermissionError(f"{path.parent}: not this user's own folder")
    return fd


def _read_own(path: Path) -> bytes:
    """An entry's bytes: a regular file of this user's, not a link, in a folder that is not a
    link either (OSError otherwise: a miss)."""
    folder = _folder(path, make=False)
    try:
        fd = os.open(path.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    finally:
        os.close(folder)
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or \
                info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise PermissionError(f"{path}: not this user's own file")
        return fh.read()


def _write_atomic(path: Path, data: bytes) -> None:
    """Write `path` whole, through no link: a new file in its folder (itself not a link), then
    renamed over the name."""
    folder = _folder(path, make=True)
    try:
        tmp = f".{secrets.token_hex(8)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600,
                     dir_fd=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=folder)
            except OSError:
                pass
            raise
    finally:
        os.close(folder)
