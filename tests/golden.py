"""Golden files: the exact text of the course's exports. `make golden` (python tests/golden.py
--update) rewrites them after a deliberate change; read the diff before committing it."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"

CASES = {
    # file name: derive command line (run from the repository root)
    "A2.en.tex": ["export", "A2", "--format", "tex", "--standalone"],
    "A2.zh.tex": ["export", "A2", "--format", "tex", "--standalone", "--lang", "zh"],
    "A2.en.md": ["export", "A2", "--format", "md"],
    "mean-of-means.en.md": ["export", "mean-of-means", "--format", "md"],
    "clip-norm-within-threshold.en.md": ["export", "clip-norm-within-threshold", "--format", "md"],
    "lesson03.en.md": ["export", "proofs/course/lesson03.toml", "--format", "md"],
    "lesson03.zh.tex": ["export", "proofs/course/lesson03.toml", "--format", "tex",
                        "--standalone", "--lang", "zh"],
    "reading.en.tex": ["export", "proofs/course/reading.toml", "--format", "tex"],
    "mistakes.zh.md": ["export", "tests/data/mistakes.toml", "--format", "md", "--lang", "zh"],
    "key.course.en.md": ["key", "proofs/course", "--format", "md"],
    "key.course.zh.tex": ["key", "proofs/course", "--format", "tex", "--lang", "zh"],
}


def render(args: list[str]) -> str:
    """What `derive ARGS` prints, run in-process from the repository root."""
    import os

    from derive.cli.main import main

    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            code = main(args)
    finally:
        os.chdir(cwd)
    if code != 0:
        raise RuntimeError(f"derive {' '.join(args)} exited {code}")
    return out.getvalue()


def update() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, args in CASES.items():
        (GOLDEN / name).write_text(render(args), encoding="utf-8")
        print(f"wrote tests/golden/{name}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python tests/golden.py --update")
    sys.path.insert(0, str(ROOT))
    update()
