"""The self-check page: export time of the course folder to HTML against the Markdown export of
the same folder (the baseline, in the same process), the page's weight, and the time from
navigation to interactive and to load in headless Chromium (tests/browser.py)."""

from __future__ import annotations

import contextlib
import gzip
import io
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from derive.cli.main import main  # noqa: E402


def export(fmt: str, lang: str, out: Path) -> float:
    start = time.perf_counter()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(io.StringIO()):
        assert main(["export", "proofs/course", "--format", fmt, "--lang", lang,
                     "-o", str(out)]) == 0
    return time.perf_counter() - start


def run(repeat: int = 3) -> None:
    from browser import launch, load_timing, open_page

    with tempfile.TemporaryDirectory() as tmp:
        export("html", "en", Path(tmp) / "warm.html")  # KaTeX loaded once per process
        for lang in ("en", "zh"):
            md = min(export("md", lang, Path(tmp) / f"{lang}.md") for _ in range(repeat))
            page = Path(tmp) / f"{lang}.html"
            html = min(export("html", lang, page) for _ in range(repeat))
            data = page.read_bytes()
            print(f"{lang}: html {html:.2f} s, md {md:.2f} s (html/md {html / md:.2f}); "
                  f"page {len(data) / 1e6:.2f} MB, {len(gzip.compress(data)) / 1e3:.0f} kB "
                  f"gzipped")
            session = launch()
            browser = next(session)
            timings = []
            for _ in range(repeat):
                with open_page(browser, page, lang=lang) as opened:
                    timings.append(load_timing(opened.page))
            session.close()
            best = min(timings, key=lambda t: t["interactive"])
            print(f"{lang}: Chromium interactive {best['interactive']:.0f} ms, "
                  f"load {best['load']:.0f} ms")


if __name__ == "__main__":
    run()
