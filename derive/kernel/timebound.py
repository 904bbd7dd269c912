"""A time bound for one decision: past it, the decision is `unknown`."""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager

DEFAULT_SECONDS = 20.0
"""The bound on one decision when the caller gives none."""


class DecisionTimeout(BaseException):
    """Raised inside a decision whose time bound has passed. A BaseException, like Ctrl-C, so
    that no `except Exception` on the way (a SymPy call that may fail) swallows it."""


@contextmanager
def time_bound(seconds: float | None):
    """Interrupt the enclosed work after `seconds` (main thread: by SIGALRM; elsewhere the
    bound is only checked between strategies through `Deadline`)."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield Deadline(seconds)
        return

    def _raise(signum, frame):
        raise DecisionTimeout(f"no decision within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, _raise)
    remaining, interval = signal.getitimer(signal.ITIMER_REAL)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield Deadline(seconds)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if remaining:
            signal.setitimer(signal.ITIMER_REAL, remaining, interval)


class Deadline:
    """A cooperative check of the same bound, for loops that can stop early."""

    def __init__(self, seconds: float | None):
        self.end = time.monotonic() + seconds if seconds else None

    def check(self) -> None:
        if self.end is not None and time.monotonic() > self.end:
            raise DecisionTimeout("time bound passed")
