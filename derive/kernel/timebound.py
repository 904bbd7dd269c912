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
    bound is only checked between strategies through `Deadline`). Bounds nest: an inner bound
    never outlasts the outer one, and the outer one keeps counting while the inner runs."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield Deadline(seconds)
        return

    def _raise(signum, frame):
        raise DecisionTimeout(f"no decision within {seconds:g} s")

    outer, interval = signal.getitimer(signal.ITIMER_REAL)
    start = time.monotonic()
    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer) if outer else seconds)
    try:
        yield Deadline(seconds)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # the outer bound, less the time spent here (at once if it has passed)
            left = outer - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3), interval)


class Deadline:
    """A cooperative check of the same bound, for loops that can stop early."""

    def __init__(self, seconds: float | None):
        self.end = time.monotonic() + seconds if seconds else None

    def check(self) -> None:
        if self.end is not None and time.monotonic() > self.end:
            raise DecisionTimeout("time bound passed")
