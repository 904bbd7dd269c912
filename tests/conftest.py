"""Shared settings for the suite: hypothesis profiles without deadlines (SymPy's first call of
anything is slow, and a deadline would turn that into flakiness, not a finding).

`derive` (the default) keeps the whole suite fast; `HYPOTHESIS_PROFILE=thorough` runs ten
times as many examples per property, for a longer search before a release.

Every test runs with DERIVE_NO_CACHE=1; `own_cache` turns the cache on in the test's own
folder.

`browser`: one headless Chromium for the whole session, for the tests that open pages (the
helpers are in tests/browser.py; it is started only when such a test runs).

Tiers: a test or a parametrisation marked `slow` runs only with `DERIVE_SLOW=1`; each such
test keeps a small fixed sample of its cases in the default run (`tests/support.py`: `tier`
for parametrisations, `examples(n, slow=N)` for properties). `DERIVE_SLOW=1` runs everything
(the full-size hostile cases and layout survey too)."""

import os
import signal

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "derive",
    max_examples=50,
    deadline=None,
    suppress_health_check=(HealthCheck.too_slow,),
)
settings.register_profile(
    "thorough",
    max_examples=500,
    deadline=None,
    suppress_health_check=(HealthCheck.too_slow, HealthCheck.filter_too_much),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "derive"))

SLOW = os.environ.get("DERIVE_SLOW") == "1"
"""The slow tier is on: every case of every test runs."""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: the slow tier, run only with DERIVE_SLOW=1 (a sample of the same "
        "test runs by default)")


def pytest_collection_modifyitems(config, items):
    if SLOW:
        return
    skip = pytest.mark.skip(reason="slow tier: set DERIVE_SLOW=1")
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(skip)


# The interrupt tests run derive as a terminal does: Ctrl-C, SIGTERM and SIGHUP at their
# defaults. A suite started in the background by a non-interactive shell (`make test &`)
# inherits SIGINT ignored, and so would every derive it starts, which then rightly keeps it
# ignored (as under `nohup`): 28 interrupt tests failed so, never in a foreground run. What
# derive does with an ignored SIGINT has tests of its own, which set it in the child.
for _signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    if signal.getsignal(_signum) is signal.SIG_IGN:
        signal.signal(_signum, signal.default_int_handler if _signum == signal.SIGINT
                      else signal.SIG_DFL)

# Every test computes what it checks: no result comes from the user's cache or from another
# test's run (the cache's own tests name a folder of their own and remove this).
os.environ["DERIVE_NO_CACHE"] = "1"


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """The cache on, in a folder of this test's own (never the user's): its path."""
    monkeypatch.delenv("DERIVE_NO_CACHE", raising=False)
    folder = tmp_path / "cache"
    monkeypatch.setenv("DERIVE_CACHE_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium under Playwright, launched once per session (tests/browser.py)."""
    from browser import launch

    yield from launch()


def pytest_terminal_summary(terminalreporter):
    """The shares of tests/test_semantics.py (issue 22), when it ran: true claims proved and
    false claims refuted, of its table and of its index-letter statements."""
    import sys

    module = sys.modules.get("test_semantics")
    line = module.shares_line() if module is not None else None
    if line:
        terminalreporter.write_sep("-", line)
