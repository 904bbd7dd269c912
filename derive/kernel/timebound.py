"""A time bound for one decision: past it, the decision is `unknown`.

A bound counts the CPU time of this process (SIGPROF), so that a busy machine does not turn a
decision into a different verdict; a wall-clock backstop (SIGALRM), `backstop(seconds)`, still
ends work that waits instead of computing. A bound may also be a wall-clock budget only (the
run's --total-time-limit). Bounds nest: an inner bound never outlasts an outer one.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from derive import interrupt

DEFAULT_SECONDS = 20.0
"""The bound on one decision when the caller gives none (CPU seconds)."""

BACKSTOP_FACTOR = 10.0
BACKSTOP_EXTRA = 60.0


def backstop(seconds: float) -> float:
    """The wall-clock seconds after which a bound of `seconds` of CPU time ends all the same:
    enough for a machine ten times oversubscribed, and a minute for waiting."""
    return max(BACKSTOP_FACTOR * seconds, seconds + BACKSTOP_EXTRA)


class DecisionTimeout(BaseException):
    """Raised inside a decision whose time bound has passed. A BaseException, like Ctrl-C, so
    that no `except Exception` on the way (a SymPy call that may fail) swallows it.
    `seconds` is the bound that passed and `wall` whether it was a wall-clock budget (not a
    bound of CPU time or its backstop); both None when not known."""

    def __init__(self, text: str = "", seconds: float | None = None, wall: bool | None = None):
        super().__init__(text)
        self.seconds = seconds
        self.wall = wall


@dataclass
class _Bound:
    seconds: float | None
    """The bound of CPU time; None for a wall-clock budget alone."""
    wall: float
    """The wall-clock seconds: the budget, or the backstop."""
    cpu_end: float | None
    wall_end: float
    budget: bool
    """A wall-clock budget (`wall=`) rather than the backstop of a CPU bound."""


_active: list[_Bound] = []
"""The bounds in force in the main thread, outermost first."""
_saved: list = []
"""The SIGPROF and SIGALRM handlers outside every bound."""
_foreign: dict = {"wall_end": None}
"""The end of an alarm (ITIMER_REAL) set outside every bound: kept, and its handler called."""


def _passed(b: _Bound) -> DecisionTimeout | None:
    if b.cpu_end is not None and time.process_time() >= b.cpu_end:
        return DecisionTimeout(f"no decision within {b.seconds:g} s of CPU time", b.seconds,
                               False)
    if time.monotonic() >= b.wall_end:
        if b.budget:
            return DecisionTimeout(f"no decision within {b.wall:g} s", b.wall, True)
        return DecisionTimeout(f"no decision within {b.seconds:g} s of CPU time (its "
                               f"wall-clock backstop of {b.wall:g} s passed)",
                               b.seconds, False)
    return None


def _arm() -> None:
    """Set both timers to the nearest end among the bounds in force (none: off)."""
    cpu_ends = [b.cpu_end for b in _active if b.cpu_end is not None]
    walls = [b.wall_end for b in _active]
    if _foreign["wall_end"] is not None:
        walls.append(_foreign["wall_end"])
    cpu = max(min(cpu_ends) - time.process_time(), 1e-3) if cpu_ends else 0
    wall = max(min(walls) - time.monotonic(), 1e-3) if walls else 0
    signal.setitimer(signal.ITIMER_PROF, cpu)
    signal.setitimer(signal.ITIMER_REAL, wall)


def _on_timer(signum, frame):
    interrupt.check()  # a Ctrl-C is never replaced by a time bound
    end = _foreign["wall_end"]
    if signum == signal.SIGALRM and end is not None and time.monotonic() >= end:
        _foreign["wall_end"] = None
        if callable(_saved[1]):  # an alarm set outside every bound, by the caller
            _saved[1](signum, frame)
    for b in _active:  # the outermost first: its end ends everything inside it
        if (exc := _passed(b)) is not None:
            raise exc
    _arm()  # early or stale: set again for what is left


@contextmanager
def time_bound(seconds: float | None, wall: float | None = None):
    """Interrupt the enclosed work after `seconds` of CPU time (or backstop(seconds) of wall
    time), or after `wall` seconds of wall time when given; in threads other than the main one
    the bound is only checked between strategies, through `Deadline`."""
    interrupt.reached("working")  # for tests (DERIVE_TEST_PROGRESS): the work has begun
    if not seconds and not wall:
        yield Deadline(None)
        return
    if threading.current_thread() is not threading.main_thread():
        yield Deadline(seconds, wall)
        return
    now_cpu, now_wall = time.process_time(), time.monotonic()
    if seconds and not (wall and wall < backstop(seconds)):
        bound = _Bound(seconds, backstop(seconds), now_cpu + seconds,
                       now_wall + backstop(seconds), False)
    else:
        bound = _Bound(seconds, wall, now_cpu + seconds if seconds else None, now_wall + wall,
                       True)
    depth = len(_active)
    if not _active:
        outer = signal.getitimer(signal.ITIMER_REAL)[0]
        _foreign["wall_end"] = now_wall + outer if outer else None
        _saved[:] = [signal.signal(signal.SIGPROF, _on_timer),
                     signal.signal(signal.SIGALRM, _on_timer)]
    elif signal.getsignal(signal.SIGALRM) is not _on_timer or \
            signal.getsignal(signal.SIGPROF) is not _on_timer:
        # a handler set by other code inside a bound would never raise: the bounds keep theirs
        signal.signal(signal.SIGPROF, _on_timer)
        signal.signal(signal.SIGALRM, _on_timer)
    _active.append(bound)
    try:
        _arm()
        yield Deadline(seconds, wall)
    finally:
        del _active[depth:]  # this bound, and any an interrupted exit left inside it
        if _active:
            _arm()
        else:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGPROF, _saved[0])
            signal.signal(signal.SIGALRM, _saved[1])
            if _foreign["wall_end"] is not None:  # the caller's alarm, for what is left of it
                left = _foreign["wall_end"] - time.monotonic()
                _foreign["wall_end"] = None
                signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3))
        interrupt.check()  # a Ctrl-C replaced or swallowed in here goes on as one


class Deadline:
    """A cooperative check of the same bound, for loops that can stop early."""

    def __init__(self, seconds: float | None, wall: float | None = None):
        self.seconds = seconds
        self.end = time.process_time() + seconds if seconds else None
        walls = ([backstop(seconds)] if seconds else []) + ([wall] if wall else [])
        self.wall_end = time.monotonic() + min(walls) if walls else None

    def check(self) -> None:
        interrupt.check()
        if self.end is not None and time.process_time() > self.end:
            raise DecisionTimeout("time bound passed", self.seconds, False)
        if self.wall_end is not None and time.monotonic() > self.wall_end:
            raise DecisionTimeout("time bound passed", self.seconds, None)


def attempt(seconds: float, f, *args, default=None):
    """f(*args) within `seconds` of CPU time, or `default` when that bound passes first: for
    one SymPy call that may run on (a rewrite, an expansion) whose failure only means "no
    answer". A bound outside it that passed meanwhile still ends the caller's work."""
    try:
        with time_bound(seconds):
            return f(*args)
    except DecisionTimeout:
        for b in _active:
            if (exc := _passed(b)) is not None:
                raise exc from None
        return default
