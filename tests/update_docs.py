"""Rewrite the outputs of the docs' shell sessions from real runs (`make docs`).

Only sessions shown in full are rewritten; a session cut with `…` is listed for a hand edit.
Read the diff before committing it: the docs' prose must still say what the output shows.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

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


def main() -> int:
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
                text[start:end] = new
                changed = True
        if changed:
            page.write_text("\n".join(text) + "\n", encoding="utf-8")
            print(f"rewrote {page.relative_to(td.ROOT)}")
    for where in cut:
        print(f"cut with …, check by hand: {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
