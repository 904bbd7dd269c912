"""Rewrite the outputs of the docs' shell sessions from real runs, and the tables written from
declarations (tests/docs_tables.py), for `make docs` and `make regen`.

Only sessions shown in full are rewritten; a session cut with `…` is listed for a hand edit.
Read the diff before committing it: the docs' prose must still say what the output shows.
"""

from __future__ import annotations

import difflib
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import docs_tables  # noqa: E402
import test_docs as td  # noqa: E402


def rerun(block: td.Block) -> list[str] | None:
    """The block's lines with every command's output replaced, or None if it is cut."""
    cmds = td.commands(block)
    if any(td.ELLIPSIS in (t.strip() for t in expected) for _, _, expected in cmds):
        return None
    out = []
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in td.files(block.page).items():
            (Path(tmp) / name).write_text(text, encoding="utf-8")
        for name in td.LINKED:
            (Path(tmp) / name).symlink_to(td.ROOT / name)
        os.chdir(tmp)
        try:
            for _, command, _ in cmds:
                out.append(f"$ {command}")
                out += [t.rstrip() for t in td.run(command, block.where).splitlines()]
        finally:
            os.chdir(cwd)
    while out and not out[-1]:
        out.pop()
    return out


def kept_timings(old: list[str], new: list[str]) -> list[str]:
    """`new`, with the documented line kept wherever the two differ only in timings (seconds
    of `derive prove`, "seconds" of JSON): a real change rewrites its lines, not the timing
    columns around it."""
    def plain(lines):
        return [td.normalise([t], "derive prove")[0] if t.strip() else "" for t in lines]
    out = list(new)
    matcher = difflib.SequenceMatcher(None, plain(old), plain(new), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out[j1:j2] = old[i1:i2]
    return out


def main() -> int:
    docs_tables.main()  # the tables written from declarations, before the sessions
    cut = []
    for page in td.PAGES:
        text = page.read_text(encoding="utf-8").splitlines()
        changed = False
        for block in reversed(td.blocks(page)):
            if not td.is_session(block):
                continue
            new = rerun(block)
            if new is None:
                cut.append(block.where)
                continue
            start, end = block.line, block.line + len(block.lines)
            if td.normalise(text[start:end], "derive prove") != td.normalise(new, "derive prove"):
                text[start:end] = kept_timings(text[start:end], new)
                changed = True
        if changed:
            page.write_text("\n".join(text) + "\n", encoding="utf-8")
            print(f"rewrote {page.relative_to(td.ROOT)}")
    for where in cut:
        print(f"cut with …, check by hand: {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
