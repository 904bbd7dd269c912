"""The site's folder on disk, for `derive build`: the marker that makes a folder one derive may
replace, and the folders derive makes beside it (and in TMPDIR), removed by a later build once
the process that made them is gone.

The marker (`.derive-site`) is a manifest: every file and folder derive wrote, each file with
its size and SHA-256 (so the same site has the same bytes, the marker too). A SITE is replaced
only when its marker is a regular file of this user's, not a link of any kind (a symbolic link,
or a hard link: a second name of another site's marker), and the folder holds nothing the
manifest does not list, as it was written: a copied marker, or a user's file added inside a
real site, makes the folder not replaceable.

A folder derive works in carries the id of the process that made it in its name and a marker
file inside (`.derive-building`), so that a build removes only such folders, and only once that
process is gone.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
from pathlib import Path

from derive import interrupt
from derive.errors import OutputError, quoted_path

MANIFEST = ".derive-site"
"""The file that marks a folder as a site derive built (and may replace): its manifest."""
BUILDING = ".derive-building"
"""The file inside a folder derive works in (beside SITE, or in TMPDIR)."""
_FIRST = "a site built by derive {version} (derive build); derive build may replace this " \
         "folder whole, as long as it holds only the files listed below, as they were written"


# --------------------------------------------------------------------------- the manifest

def _walk(folder: Path):
    """(relative path, lstat) of everything under `folder`, links not followed, in order."""
    pending = [""]
    while pending:
        rel = pending.pop()
        with os.scandir(folder / rel if rel else folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                name = f"{rel}/{entry.name}" if rel else entry.name
                info = entry.stat(follow_symlinks=False)
                yield name, info
                if stat.S_ISDIR(info.st_mode):
                    pending.append(name)


def _sha256(path: Path) -> str:
    """The SHA-256 of a regular file, read without following a link (OSError otherwise)."""
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def manifest(folder: Path, version: str) -> str:
    """The marker's text for a site built in `folder` (every file in it already written)."""
    files, folders = {}, []
    for name, info in _walk(folder):
        if name in (MANIFEST, BUILDING):
            continue
        if stat.S_ISDIR(info.st_mode):
            folders.append(name)
        else:
            files[name] = [info.st_size, _sha256(folder / name)]
    return _FIRST.format(version=version) + "\n" + json.dumps(
        {"files": files, "folders": sorted(folders)}, ensure_ascii=True, sort_keys=True) + "\n"


def check_replaceable(target: Path, out: str) -> None:
    """Refuse (one line) a non-empty SITE that derive may not replace: no marker, a marker that
    is a link or not this user's, or a file or folder the marker does not list as written."""
    new = f"name a new or empty folder, or remove {out} yourself"
    marker = target / MANIFEST
    try:
        info = os.lstat(marker)
    except FileNotFoundError:
        raise OutputError(f"-o {out}: is not empty and not a site derive built (no {MANIFEST})"
                          f"; name a new or empty folder") from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        raise OutputError(f"-o {out}: its {MANIFEST} is a link or not a regular file, not one "
                          f"derive wrote; {new}")
    if info.st_nlink != 1:
        raise OutputError(f"-o {out}: its {MANIFEST} is a hard link ({info.st_nlink} names), "
                          f"not one derive wrote; {new}")
    if info.st_uid != os.geteuid():
        raise OutputError(f"-o {out}: its {MANIFEST} is another user's; {new}")
    try:
        fd = os.open(marker, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            text = fh.read(1 << 26).decode("utf-8")
        head, _, body = text.partition("\n")
        listed = json.loads(body)
        files = {str(k): (int(v[0]), str(v[1])) for k, v in listed["files"].items()}
        folders = {str(f) for f in listed["folders"]}
        if not head.startswith("a site built by derive "):
            raise ValueError(head)
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        raise OutputError(f"-o {out}: its {MANIFEST} lists no files (written by hand, or by an "
                          f"older derive); {new}") from None
    try:
        for name, st in _walk(target):
            if name == MANIFEST or (stat.S_ISDIR(st.st_mode) and name in folders):
                continue
            if stat.S_ISREG(st.st_mode) and name in files and files[name][0] == st.st_size \
                    and files[name][1] == _sha256(target / name):
                continue
            what = "was changed since derive wrote it" if name in files or name in folders \
                else "is not one derive wrote"
            raise OutputError(f"-o {out}: {quoted_path(name)} {what}; replacing the site would "
                              f"delete it: move it out, or {new}")
    except OSError as exc:
        raise OutputError(f"-o {out}: cannot be examined ({exc.strerror or exc}); {new}") \
            from None


# ------------------------------------------------------------------ folders derive makes

def _alive(pid: int) -> bool:
    """Whether a process of that id exists (one of another user's counts as alive)."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _ours_and_dead(path: Path, pid: str) -> bool:
    """A folder (not a link) of this user's, made by a process now gone, that holds derive's
    working marker or nothing."""
    try:
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or _alive(int(pid)):
            return False
        names = os.listdir(path)
        return not names or BUILDING in names
    except (OSError, ValueError):
        return False


def aside_name(target: Path) -> Path:
    """The folder to build SITE in, beside it: named with this process's id."""
    parent = target.parent if str(target.parent) else Path(".")
    return parent / f".{target.name}.{os.getpid()}-{secrets.token_hex(8)}.tmp"


def make_working(path: Path) -> None:
    """Make a folder derive works in, with its marker (a folder found empty is also taken as
    derive's own, so an interrupt between the two leaves nothing a later build keeps)."""
    os.mkdir(path, 0o700)
    Path(path, BUILDING).touch(mode=0o600)


def old_name(target: Path) -> Path:
    """A folder beside SITE, named with this process's id, that the old site is renamed into
    before it is removed."""
    parent = target.parent if str(target.parent) else Path(".")
    old = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}.{os.getpid()}-",
                                suffix=".old"))
    Path(old, BUILDING).touch(mode=0o600)
    return old


def sweep_beside(target: Path) -> list[str]:
    """Remove the folders an earlier build of SITE left beside it (killed before it could
    remove them): only derive's own, of a process now gone. The names removed."""
    parent = target.parent if str(target.parent) else Path(".")
    pattern = re.compile(rf"\.{re.escape(target.name)}\.(\d+)-[A-Za-z0-9_]+\.(tmp|old)")
    return _sweep(parent, pattern)


PDF_PREFIX = "derive-pdf-"


def pdf_folder() -> tempfile.TemporaryDirectory:
    """The temporary folder a PDF is made in, named with this process's id."""
    folder = tempfile.TemporaryDirectory(prefix=f"{PDF_PREFIX}{os.getpid()}-")
    Path(folder.name, BUILDING).touch(mode=0o600)
    interrupt.reached("making-pdf")  # for tests (DERIVE_TEST_PROGRESS)
    return folder


def sweep_pdf() -> list[str]:
    """Remove the PDF folders of processes now gone from TMPDIR (a worker killed while TeX
    ran, or a build killed whole)."""
    pattern = re.compile(rf"{re.escape(PDF_PREFIX)}(\d+)-[A-Za-z0-9_]+")
    return _sweep(Path(tempfile.gettempdir()), pattern)


def _sweep(parent: Path, pattern: re.Pattern) -> list[str]:
    removed = []
    try:
        names = os.listdir(parent)
    except OSError:
        return removed
    for name in names:
        found = pattern.fullmatch(name)
        if found and _ours_and_dead(parent / name, found.group(1)):
            shutil.rmtree(parent / name, ignore_errors=True)
            removed.append(name)
    return removed
