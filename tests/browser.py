"""Helpers for the tests that open pages in a real browser: Debian's Chromium driven by Playwright.

Not a test file. The session-wide `browser` fixture lives in tests/conftest.py (it calls
`launch` below); a test module takes `browser` as an argument and imports the rest:

    from browser import PHONE, load_timing, open_page, screenshot

    def test_page(browser, tmp_path):
        with open_page(browser, tmp_path / "page.html", device=PHONE) as opened:
            opened.page.get_by_role("button").click()
            assert opened.requests_blocked == [] and opened.errors == []

A page whose own CSP refuses a resource never asks the network for it: a test that a page stays
offline checks both `requests_blocked` and `csp_violations`.

Chromium is Debian's (/usr/bin/chromium, installed by `make renderers` through .ci/renderers),
never a browser downloaded by `playwright install`. With DERIVE_SKIP_RENDERERS=1 a machine without
it skips the browser tests; without the variable a missing Chromium or Playwright is a failure.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import pytest

if TYPE_CHECKING:  # Playwright is imported only when a browser test runs
    from playwright.sync_api import Browser, ConsoleMessage, Page, Route, WebSocketRoute

SKIP = os.environ.get("DERIVE_SKIP_RENDERERS") == "1"

# --headless: no display here or in CI. --no-sandbox: CI and this machine run as root, and
# Chromium refuses to start its sandbox as root. The rest keep Chromium from calling Google's
# hosts (refused on a closed network, and noise in any request log) and from using a GPU.
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)

# A phone (an iPhone-sized portrait screen): pass as open_page(..., device=PHONE).
PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}

# How long the last `launch` took to start Playwright and Chromium, in seconds.
LAUNCH_SECONDS: dict[str, float] = {}


def _missing(what: str, remedy: str) -> None:
    if SKIP:
        pytest.skip(f"{what} not installed and DERIVE_SKIP_RENDERERS=1")
    pytest.fail(f"{what} is not installed: {remedy} (or set DERIVE_SKIP_RENDERERS=1)")


def chromium_path() -> str:
    """Debian's Chromium; skips or fails (see the module docstring) when it is missing."""
    path = shutil.which("chromium")
    if path is None:
        _missing("chromium", "run `make renderers` (as root: .ci/renderers apt-installs it)")
    return path


def launch() -> Iterator[Browser]:
    """Start Playwright and one headless Chromium; yield the browser, close both after.

    Used by the session-scoped `browser` fixture of tests/conftest.py."""
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright (Python package)",
                 "`make test` installs it with the test extra (pip install -e '.[test]')")
    start = time.perf_counter()
    with sync_playwright() as playwright:
        started = time.perf_counter()
        browser = playwright.chromium.launch(
            executable_path=executable, headless=True, args=list(CHROMIUM_ARGS))
        LAUNCH_SECONDS["playwright"] = started - start
        LAUNCH_SECONDS["chromium"] = time.perf_counter() - started
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class OpenedPage:
    """A page loaded from a file in its own offline context, and what it did while open.

    requests_blocked: every URL the page asked for that was not the file itself (nor a data:
    or blob: URL, which never reach the network), including WebSocket URLs; each was aborted.
    errors: uncaught exceptions in the page (the `pageerror` event), as "Name: message".
    console: every console message as (type, text), the browser's own ones included.
    csp_violations: the console messages about the page's Content Security Policy."""

    page: Page
    url: str
    requests_blocked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    console: list[tuple[str, str]] = field(default_factory=list)

    @property
    def csp_violations(self) -> list[str]:
        return [text for _, text in self.console if "Content Security Policy" in text]

    def close(self) -> None:
        self.page.context.close()

    def __enter__(self) -> OpenedPage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_page(browser: Browser, path: str | os.PathLike[str], width: int = 1280,
              height: int = 900, lang: str | None = None,
              device: dict[str, Any] | None = None) -> OpenedPage:
    """Open the HTML file `path` in a fresh, offline context and wait for its load event.

    width/height: the viewport (CSS pixels); `device` (e.g. PHONE) overrides them and adds its
    scale factor, touch and mobile settings. lang: the browser's language ("zh-CN"): the
    context's locale, so navigator.language and Accept-Language. Nothing is injected into the
    page: its own CSP and scripts run as they would for a reader opening the file.
    Close the result (or use it in a `with`) to drop the context."""
    url = Path(path).resolve().as_uri()
    options: dict[str, Any] = {
        "viewport": {"width": width, "height": height},
        "service_workers": "block",
    }
    if lang is not None:
        options["locale"] = lang
    if device is not None:
        options.update(device)
    context = browser.new_context(**options)
    context.set_offline(True)
    opened = OpenedPage(page=context.new_page(), url=url)

    def route(route: Route) -> None:
        requested = route.request.url
        if requested.split("#", 1)[0] == url or requested.startswith(("data:", "blob:")):
            route.continue_()
        else:
            opened.requests_blocked.append(requested)
            route.abort("blockedbyclient")

    def websocket(ws: WebSocketRoute) -> None:  # never connected to a server: closed at once
        opened.requests_blocked.append(ws.url)
        ws.close()

    def console(message: ConsoleMessage) -> None:
        opened.console.append((message.type, message.text))

    context.route("**/*", route)
    context.route_web_socket("**/*", websocket)
    opened.page.on("console", console)
    opened.page.on("pageerror", lambda error: opened.errors.append(f"{error.name}: {error.message}"))
    try:
        opened.page.goto(url, wait_until="load")
    except BaseException:
        context.close()
        raise
    return opened


def screenshot(page: Page, path: str | os.PathLike[str]) -> Path:
    """A full-page PNG of `page` at `path`, written atomically (a temporary file, then a rename)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = page.screenshot(full_page=True, type="png")
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # mkstemp makes it 0600
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def load_timing(page: Page) -> dict[str, float]:
    """Milliseconds from navigation start to DOM interactive, DOMContentLoaded end and load end
    (keys interactive, dom_content_loaded, load) for the page's last navigation."""
    return page.evaluate(
        """() => {
            const nav = performance.getEntriesByType('navigation')[0];
            return {
                interactive: nav.domInteractive - nav.startTime,
                dom_content_loaded: nav.domContentLoadedEventEnd - nav.startTime,
                load: nav.loadEventEnd - nav.startTime,
            };
        }"""
    )


# A feedback's words (tests/test_page_browser.py): a mistake's typeset words are a copy of their
# <template>, a span.said[data-said] (derive.render.html.said_templates). READ_PLAIN reads each
# as the plain text the page's data gives those words, so that the reading is classify()'s
# message; READ_TEX reads each KaTeX formula as $ + its TeX annotation + $.
READ_PLAIN = """e => {
    const texts = {}, data = JSON.parse(document.getElementById('derive-data').textContent);
    for (const v of data.variants) for (const q of Object.values(v.questions))
        for (const m of q.mistakes) if (m.said) texts[m.said] = m.text;
    const copy = e.cloneNode(true);
    copy.querySelectorAll('span.said[data-said]').forEach(s => {
        s.replaceWith(texts[s.getAttribute('data-said')]); });
    return copy.textContent;
}"""
READ_TEX = """e => {
    const copy = e.cloneNode(true);
    copy.querySelectorAll('.katex').forEach(k => {
        const a = k.querySelector('annotation[encoding="application/x-tex"]');
        k.replaceWith('$' + (a ? a.textContent : '?') + '$'); });
    return copy.textContent;
}"""


def feedback_text(page: Page, key: str, tex: bool = False) -> str:
    """What question `key`'s feedback says: each mistake's typeset words as their plain text
    (classify()'s message), or with `tex` each formula as $…$ of its TeX annotation."""
    return page.locator(f"#{key}-feedback").evaluate(READ_TEX if tex else READ_PLAIN)
