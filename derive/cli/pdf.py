"""A standalone LaTeX document made into a PDF by the TeX installed (pdfLaTeX for en, XeLaTeX
for zh), in a temporary folder, without shell escape, within a time bound."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from derive.cli import build_site, pool
from derive.errors import EngineMissing, UsageError

ENGINES = {"en": "pdflatex", "zh": "xelatex"}
SECONDS = 60.0
REPRODUCIBLE = {**os.environ, "SOURCE_DATE_EPOCH": "0", "FORCE_SOURCE_DATE": "1"}
"""Dates and the document id fixed: the same key, the same bytes (for any --jobs)."""


def pdf_of(tex: str, lang: str, seconds: float = SECONDS) -> bytes:
    engine = shutil.which(ENGINES[lang])
    if engine is None:
        raise EngineMissing(f"not supported here: {ENGINES[lang]} is not installed (TeX); "
                                f"install TeX, or leave pdf out of --only")
    with build_site.pdf_folder() as folder:
        (Path(folder) / "key.tex").write_text(tex, encoding="utf-8")
        try:
            done = subprocess.run([engine, "-no-shell-escape", "-interaction=nonstopmode",
                                   "-halt-on-error", "key.tex"], cwd=folder,
                                  stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=seconds, env=REPRODUCIBLE,
                                  preexec_fn=pool.die_with_parent)
        except subprocess.TimeoutExpired:
            raise UsageError(f"{ENGINES[lang]} passed {seconds:g} s; nothing written") from None
        pdf = Path(folder) / "key.pdf"
        if done.returncode != 0 or not pdf.is_file():
            last = [ln for ln in done.stdout.decode("utf-8", "replace").splitlines()
                    if ln.startswith("!")][:1]
            raise UsageError(f"{ENGINES[lang]} failed (exit {done.returncode})"
                             f"{': ' + last[0] if last else ''}")
        return pdf.read_bytes()
