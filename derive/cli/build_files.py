"""A whole exercise file's entry in the cache, for `derive build`: what its exercises gave
(id, title, status, and the addresses of their artefacts), found by the file's bytes, its bank's
derive.toml, its place in the bank, the artefacts asked and derive's source. A warm build reads
and validates only the files that changed: an unchanged file's exercises are neither read nor
computed again."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ENTRY = "build-file"


def file_key(cache, path: Path, top: Path, folder: str, names: list[str]) -> str | None:
    """The address of a file's entry (None when the file or its settings cannot be read)."""
    # start-up: loaded only when `derive build` runs this
    from derive.errors import DeriveError
    from derive.exercises.notation import settings_file
    from derive.exercises.reader import read_bytes

    if not cache.enabled:
        return None
    try:  # read as the reader reads (a FIFO never opened blocking, a size bound)
        settings = settings_file(path, top)
        parts = [str(path), str(top), folder, hashlib.sha256(read_bytes(path)).hexdigest(),
                 "" if settings is None else str(settings),
                 "" if settings is None else hashlib.sha256(read_bytes(settings)).hexdigest()]
    except (OSError, DeriveError):  # the reader then gives the file's own line
        return None
    return cache.key(ENTRY, json.dumps([parts, names]))


def read_entry(cache, key: str | None) -> dict | None:
    """The entry, once every artefact it names was found, or None (a miss: the file is read as
    usual). Each exercise's `texts` are the artefacts' addresses: the texts are read again as
    they are written, so that a warm build never holds them all."""
    text = cache.get_text(key)
    if text is None:
        return None
    try:
        entry = json.loads(text)
        for ex in entry["exercises"]:
            for at in ex["texts"].values():
                if cache.get_text(at) is None:
                    return None
        entry["applied"] = {(a[0], a[1]) for a in entry["applied"]}
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    return entry


def write_entry(cache, key: str | None, exercises: list[dict], applied) -> None:
    """Store a file whose every exercise was decided and fully written."""
    if key is None:
        return
    cache.put_text(key, json.dumps({"exercises": exercises,
                                    "applied": sorted([list(a) for a in applied])}))
