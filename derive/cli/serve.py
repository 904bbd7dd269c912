"""`derive serve BANK [-o SITE] [--port N]`: a preview of the site while the bank is edited.

It builds the bank as `derive build` does (the same function, the same SITE), serves SITE on
localhost (127.0.0.1 only) with the standard library's http.server, watches the bank's TOML
files (watchfiles) and rebuilds on each save. A page asks the server for the site's version
every half second and reloads itself when a rebuild changed it: the script that does so is
added to each page as it is served, never to a built file (the CSP of the page, as served,
allows that one script by its hash and a request to the server itself).

Without -o the site is built in a temporary folder, removed at exit. Ctrl-C stops it: exit 130
as every command, the server closed first.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import re
import shutil
import sys
import tempfile
import threading
from functools import partial
from pathlib import Path

from derive import interrupt
from derive.cli import build
from derive.cli.errors import UsageError
from derive.errors import DeriveError, quoted_path

VERSION_PATH = "/__derive/version"
"""Where a served page asks for the site's version (a number, one more on each rebuild)."""
POLL_MS = 500
_CSP = re.compile(r'(<meta http-equiv="Content-Security-Policy" content=")([^"]*)(")')
_SCRIPT_SRC = re.compile(r"script-src ([^;]*)")


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="build a bank's site, serve it on localhost, rebuild on "
                       "each save and reload the browser")
    p.add_argument("bank", metavar="BANK", help="a folder of exercise files")
    p.add_argument("-o", dest="out", metavar="SITE",
                   help="the site's folder, as for derive build (default: a temporary folder, "
                        "removed at exit)")
    p.add_argument("--port", default="8000", metavar="N",
                   help="the port on 127.0.0.1 (default 8000; 0: any free port)")
    p.add_argument("--lang", nargs="+", metavar="LANG", help="as for derive build")
    p.add_argument("--only", metavar="ARTEFACTS", help="as for derive build")
    p.add_argument("--jobs", metavar="N", help="as for derive build")
    p.set_defaults(run=run)


def reload_script(version: int) -> str:
    """The script added to a served page: it reloads the page once the site's version is not
    the one the page was served with."""
    return ("(function(){var v=\"%d\";function poll(){fetch(\"%s\",{cache:\"no-store\"})"
            ".then(function(r){return r.text();}).then(function(t){if(t!==v){location.reload();"
            "}else{setTimeout(poll,%d);}},function(){setTimeout(poll,%d);});}"
            "setTimeout(poll,%d);})();" % (version, VERSION_PATH, POLL_MS, POLL_MS, POLL_MS))


def served(html: str, version: int) -> str:
    """A built page as the preview serves it: the reload script before </body>, and the page's
    CSP (if it has one) allowing that script by its hash and requests to the server."""
    script = reload_script(version)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()

    def policy(m: re.Match) -> str:
        text = m.group(2)

        def scripts(s: re.Match) -> str:
            kept = "" if s.group(1).strip() == "'none'" else s.group(1).strip() + " "
            return f"script-src {kept}'sha256-{digest}'"
        text = _SCRIPT_SRC.sub(scripts, text, count=1) if _SCRIPT_SRC.search(text) else \
            f"{text}; script-src 'sha256-{digest}'"
        return m.group(1) + text + "; connect-src 'self'" + m.group(3)
    html = _CSP.sub(policy, html, count=1)
    at = html.rfind("</body>")
    tag = f"<script>{script}</script>"
    return html[:at] + tag + html[at:] if at >= 0 else html + tag


class _Site:
    """The site being served: its folder and its version (one more after each rebuild)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.version = 1


def _handler_class(site: _Site):
    """The request handler of the preview: files of SITE, each page as `served` makes it, and
    the site's version at VERSION_PATH."""
    # start-up: the HTTP server's modules only when `derive serve` runs
    from http.server import SimpleHTTPRequestHandler

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 — the terminal shows builds only
            pass

        def do_GET(self):  # noqa: N802 — http.server's name
            if self.path.split("?", 1)[0] == VERSION_PATH:
                return self._send(str(site.version).encode(), "text/plain; charset=utf-8")
            path = Path(self.translate_path(self.path))
            if path.is_dir() and self.path.split("?", 1)[0].endswith("/"):
                path = path / "index.html"
            if path.suffix == ".html" and path.is_file():
                try:
                    text = path.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    return super().do_GET()
                return self._send(served(text, site.version).encode("utf-8"),
                                  "text/html; charset=utf-8")
            return super().do_GET()

        def _send(self, body: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
    return Handler


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:
        raise UsageError(f"--port: is '{text[:20]}', not a port; give a whole number from 0 "
                         f"to 65535")
    return int(text)


def _say(line: str) -> None:
    print(line, flush=True)


def run(args) -> int:
    port = _port(args.port)
    if not Path(args.bank).is_dir():
        raise UsageError(f"{quoted_path(args.bank)}: is not a folder; name the bank's folder "
                         f"of exercise files")
    temporary = None
    if args.out is None:
        temporary = Path(tempfile.mkdtemp(prefix="derive-serve-"))
        out = str(temporary / "site")
    else:
        out = args.out
    options = argparse.Namespace(bank=args.bank, out=out, lang=args.lang, only=args.only,
                                 jobs=args.jobs, cache=None, quiet=None, time_limit=None,
                                 total_time_limit=None)
    server = None
    try:
        build.run(options)  # a bank that cannot be built at all stops here, as build would
        interrupt.rearm()
        site = _Site(Path(out).resolve())
        # start-up: the HTTP server's modules only when `derive serve` runs
        from http.server import ThreadingHTTPServer

        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), partial(
                _handler_class(site), directory=str(site.folder)))
        except OSError as exc:
            raise UsageError(f"--port {port}: cannot be served ({exc.strerror or exc}); name "
                             f"another port, or 0 for any free one") from None
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        _say(f"serving at {url}students/ (the authors' index: {url}; the site: "
             f"{quoted_path(out)}); watching {quoted_path(args.bank)}, each save rebuilds; "
             f"Ctrl-C to stop")
        interrupt.reached("serving")  # for tests (DERIVE_TEST_PROGRESS)
        _watch(args.bank, options, site)
        return 0
    except KeyboardInterrupt:
        _say(f"stopped ({interrupt.said()})")
        return interrupt.code()
    finally:
        if server is not None:
            server.server_close()
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


def _watch(bank: str, options, site: _Site) -> None:
    """Rebuild on each change to a TOML file of the bank (derive.toml among them), until a
    Ctrl-C; a build that fails says its line and the site served stays the last one built."""
    # start-up: loaded only when `derive serve` runs this
    import watchfiles

    for changes in watchfiles.watch(bank, watch_filter=lambda _, path: path.endswith(".toml"),
                                    debounce=200, step=50, raise_interrupt=True):
        names = sorted({Path(p).name for _, p in changes})
        _say(f"changed: {', '.join(names)}; rebuilding")
        try:
            build.run(options)
        except DeriveError as exc:
            print(f"derive serve: {exc.line()}", file=sys.stderr, flush=True)
            interrupt.rearm()
            continue
        interrupt.rearm()
        site.version += 1
        _say(f"rebuilt: version {site.version}; open pages reload")
        interrupt.reached("rebuilt")
