"""The self-check page's pictures in docs/images (`make pages`): lesson 03's page in English and
Chinese, at desktop and phone width, after a right answer, a known mistake and an opened
working; taken by the tests' browser (tests/browser.py)."""

from __future__ import annotations

import contextlib
import io
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import PHONE, launch, open_page  # noqa: E402

from derive.cli.main import main  # noqa: E402


def _export(lang: str, out: Path) -> Path:
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(io.StringIO()):
        assert main(["export", "proofs/course/lesson03.toml", "--format", "html", "--lang",
                     lang, "-o", str(out)]) == 0
    return out


def _answer(page, key: str, text: str) -> None:
    page.locator(f"#{key}-input").fill(text)
    page.locator(f"button.check[data-q='{key}']").click()


def run() -> None:
    session = launch()  # held: the generator's end stops Playwright
    browser = next(session)
    with tempfile.TemporaryDirectory() as tmp:
        for lang in ("en", "zh"):
            path = _export(lang, Path(tmp) / f"{lang}.html")
            for name, device in (("desktop", None), ("phone", PHONE)):
                with open_page(browser, path, lang=lang, device=device) as opened:
                    page = opened.page
                    _answer(page, "v0-e0-q1", "2")
                    _answer(page, "v0-e0-q2", "-8")
                    _answer(page, "v0-e0-q3", "1.4")
                    page.locator("button.reveal[data-q='v0-e0-q3']").click()
                    page.locator("#v0-e0-q1-input").scroll_into_view_if_needed()
                    out = ROOT / "docs" / "images" / f"selfcheck-{lang}-{name}.png"
                    page.screenshot(path=str(out))  # the viewport, after the answers
                    print(out.relative_to(ROOT))
    session.close()


if __name__ == "__main__":
    run()
