"""`derive serve BANK`: it builds, serves the site on 127.0.0.1, rebuilds when a file of the bank
is saved and the open page reloads itself; Ctrl-C stops it with exit 130, its temporary site
removed. No sleeps: the test waits on the lines derive prints (`serving at`, `rebuilt`) and on
the browser's own navigation event."""

import os
import re
import select
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYTHON = os.environ.get("DERIVE_PYTHON", sys.executable)
WAIT = 180
"""Most seconds any one line may take to come (a build on a loaded machine): a bound on a
failure, never a pause."""

EXERCISE = """\
[[exercise]]
id = "one-step"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]
[exercise.claims]
loss = 2
"""


class Lines:
    """The child's stdout, line by line, waited on with select (no sleep)."""

    def __init__(self, proc: subprocess.Popen):
        self.proc, self.seen, self._buffer = proc, [], b""

    def until(self, pattern: str) -> re.Match:
        end = time.monotonic() + WAIT
        while True:
            for line in self.seen:
                found = re.search(pattern, line)
                if found:
                    self.seen.remove(line)
                    return found
            left = end - time.monotonic()
            assert left > 0, f"no line {pattern!r} in {WAIT} s: {self.seen}"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            assert chunk, f"derive serve ended (rc {self.proc.wait()}): {self.seen} " \
                          f"{self.proc.stderr.read().decode()}"
            self._buffer += chunk
            *lines, self._buffer = self._buffer.split(b"\n")
            self.seen += [line.decode("utf-8") for line in lines]


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=WAIT) as response:
        return response.read().decode("utf-8")


@pytest.fixture
def serving(tmp_path):
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "week1.toml").write_text(EXERCISE, encoding="utf-8")
    (bank / "derive.toml").write_text('[course]\ntitle = "Before"\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DERIVE_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([PYTHON, "-m", "derive", "serve", str(bank), "--port", "0"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        yield bank, proc, Lines(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_rebuilds_on_save_and_the_page_reloads(serving, browser):
    bank, proc, lines = serving
    serving = lines.until(r"^serving at (http://127\.0\.0\.1:\d+/)students/ .*the site: (.+)\)")
    url, site = serving.group(1), Path(serving.group(2))
    page_html = fetch(url + "students/")
    assert "<h1>Before</h1>" in page_html and "/__derive/version" in page_html
    assert fetch(url + "__derive/version") == "1"
    # the reload script is added as a page is served, never written into the built files
    assert "__derive" not in (site / "students" / "index.html").read_text(encoding="utf-8")

    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url + "students/")
        assert page.locator("h1").inner_text() == "Before"
        with page.expect_navigation(timeout=WAIT * 1000):  # the page reloads itself
            (bank / "derive.toml").write_text('[course]\ntitle = "After"\n', encoding="utf-8")
            lines.until(r"^rebuilt: version 2")
        assert page.locator("h1").inner_text() == "After"
        assert errors == []  # the served page's CSP allows its reload script and its polls
    finally:
        context.close()
    assert fetch(url + "__derive/version") == "2"
    assert "<h1>After</h1>" in fetch(url + "students/index.html")

    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=WAIT) == 130
    assert "stopped (Ctrl-C)" in proc.stdout.read().decode() + "\n".join(lines.seen)
    assert not site.parent.exists()  # the temporary site, removed


def test_a_port_that_is_not_a_number_is_one_line(tmp_path, capsys):
    from derive.cli.main import main

    (tmp_path / "a.toml").write_text(EXERCISE, encoding="utf-8")
    assert main(["serve", str(tmp_path), "--port", "http"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "derive serve: --port: is 'http', not a port; give a whole number " \
                          "from 0 to 65535"


def test_a_served_page_keeps_its_own_script_and_adds_the_reload():
    import base64
    import hashlib

    from derive.cli.serve import reload_script, served

    page = ('<html><head><meta http-equiv="Content-Security-Policy" content="default-src '
            "'none'; script-src 'sha256-OWN'; style-src-elem 'sha256-CSS'\"></head>"
            "<body><main></main></body></html>")
    digest = base64.b64encode(hashlib.sha256(reload_script(3).encode()).digest()).decode()
    assert served(page, 3) == (
        '<html><head><meta http-equiv="Content-Security-Policy" content="default-src '
        f"'none'; script-src 'sha256-OWN' 'sha256-{digest}'; style-src-elem 'sha256-CSS'; "
        "connect-src 'self'\"></head><body><main></main>"
        f"<script>{reload_script(3)}</script></body></html>")
    assert 'var v="3"' in reload_script(3) and "/__derive/version" in reload_script(3)
