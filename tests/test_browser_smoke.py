"""The browser test helpers (tests/browser.py, the `browser` fixture of tests/conftest.py) on a page
written here: keyboard and click reach its script, its CSP is enforced and reported, a request to
the network is stopped and recorded, a phone-sized screenshot is written.

Needs Debian's Chromium (`make renderers`); DERIVE_SKIP_RENDERERS=1 skips where it is missing."""

import base64
import hashlib

from browser import PHONE, load_timing, open_page, screenshot

# Answers in an aria-live region: what an exported page does with a reader's input.
SCRIPT = """
const form = document.getElementById('f');
form.addEventListener('submit', (event) => {
  event.preventDefault();
  document.getElementById('out').textContent = 'checked: ' + document.getElementById('answer').value;
});
document.getElementById('go').addEventListener('click', () => {
  document.getElementById('clicks').textContent = 'clicked';
});
"""
HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
# Not in the CSP: must not run.
UNHASHED = "document.getElementById('out').textContent = 'unhashed script ran';"


def page_html(csp: str, image: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>smoke</title><style>body {{ font: 16px sans-serif; margin: 1rem }}</style></head>
<body>
<form id="f"><label for="answer">Answer 答案</label> <input id="answer" autocomplete="off">
<button type="button" id="go">Go</button></form>
<p id="out" aria-live="polite"></p><p id="clicks"></p>
{image}
<script>{SCRIPT}</script>
<script>{UNHASHED}</script>
</body></html>
"""


STRICT = f"default-src 'none'; script-src 'sha256-{HASH}'; style-src 'unsafe-inline'"


def test_keyboard_click_csp_and_blocked_request(browser, tmp_path):
    # img-src lets the image past the CSP so that it reaches the network, where open_page stops it.
    path = tmp_path / "page.html"
    path.write_text(page_html(STRICT + "; img-src http://example.com",
                              '<img src="http://example.com/x.png" alt="">'), encoding="utf-8")
    with open_page(browser, path, device=PHONE) as opened:
        page = opened.page
        assert page.viewport_size == {"width": 390, "height": 844}
        # The unhashed script was refused: it would have filled #out while the page loaded.
        assert page.locator("#out").text_content() == ""
        page.get_by_label("Answer").click()
        page.keyboard.type("x^2 + 1")
        page.keyboard.press("Enter")
        page.get_by_role("button", name="Go").click()
        assert page.locator("#out").text_content() == "checked: x^2 + 1"
        assert page.locator("#clicks").text_content() == "clicked"
        assert page.get_attribute("#out", "aria-live") == "polite"
        assert any("inline script" in text for text in opened.csp_violations), opened.console
        assert opened.requests_blocked == ["http://example.com/x.png"]
        assert opened.errors == []
        timing = load_timing(page)
        assert 0 <= timing["interactive"] <= timing["load"] < 10_000
        shot = screenshot(page, tmp_path / "phone.png")
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    # Full page at device scale factor 2: 780 pixels wide.
    assert int.from_bytes(data[16:20], "big") == 780
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_strict_csp_stops_an_image_before_the_network(browser, tmp_path):
    # With default-src 'none' alone the image never becomes a request: the CSP refuses it.
    path = tmp_path / "page.html"
    path.write_text(page_html(STRICT, '<img src="http://example.com/x.png" alt="">'),
                    encoding="utf-8")
    with open_page(browser, path, width=800, height=600, lang="zh-CN") as opened:
        assert opened.page.evaluate("navigator.language") == "zh-CN"
        assert opened.page.viewport_size == {"width": 800, "height": 600}
        assert opened.requests_blocked == []
        assert any("img-src" in text or "default-src" in text
                   for text in opened.csp_violations if "image" in text), opened.console
        assert opened.page.locator("#out").text_content() == ""
