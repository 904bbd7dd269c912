"""Ctrl-C, SIGTERM and SIGHUP, once: the handler the command line installs before anything heavy
is imported.

It records the interrupt (and which signal: the exit code is 128 + its number, 130 for Ctrl-C)
and raises KeyboardInterrupt once; later ones, of any of the three, are ignored, so that they
cannot cut a cleanup short. What records it stays true, so that an interrupt swallowed on the
way (by a library's broad `except`, or replaced by a time bound's exception) is raised again at
the next check: in every time bound's exit, before an output is put in place, after the work.
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading

_state = {"interrupted": False, "ours": False, "committed": False, "signal": None}

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                if hasattr(signal, name))
"""What interrupts a run: Ctrl-C, `kill` (SIGTERM), and the terminal closed (SIGHUP)."""

PROGRESS = "DERIVE_TEST_PROGRESS"
"""For tests only: a file to which `reached` appends the points a run passes."""


def _handler(signum, frame):
    if not _state["interrupted"]:
        _state["signal"] = signum
    _state["interrupted"] = True
    ignore()
    raise KeyboardInterrupt


def ignore() -> None:
    """Ignore all three from now on (main thread only: a no-op elsewhere)."""
    if threading.current_thread() is threading.main_thread():
        for signum in SIGNALS:
            signal.signal(signum, signal.SIG_IGN)


def install():
    """Make Ctrl-C ours (main thread, Python's default handler only), and SIGTERM and SIGHUP
    too where nothing was set for them (one that a caller ignores, as `nohup` does SIGHUP, stays
    ignored): the handlers replaced, for `restore`, or None when nothing was changed."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return None
    _state["ours"] = True
    if sys.unraisablehook is not _unraisable:
        _state["hook"] = sys.unraisablehook
        sys.unraisablehook = _unraisable
    previous = {signal.SIGINT: signal.signal(signal.SIGINT, _handler)}
    for signum in SIGNALS[1:]:
        if signal.getsignal(signum) is signal.SIG_DFL:
            previous[signum] = signal.signal(signum, _handler)
    _state["taken"] = tuple(previous)
    reached("handler-installed")
    return previous


def restore(previous) -> None:
    """Put back the handlers `install` replaced."""
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def code() -> int:
    """The exit code of an interrupted run: 128 + the signal's number (130 for Ctrl-C)."""
    return 128 + (_state["signal"] or signal.SIGINT)


def said() -> str:
    """The interrupt, as the one line says it: `Ctrl-C`, `SIGTERM` or `SIGHUP`."""
    signum = _state["signal"] or signal.SIGINT
    return "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name


def reached(point: str) -> None:
    """For tests: append `POINT PID` to the file named by $DERIVE_TEST_PROGRESS, once per
    process, so that a test sends its signal at a point of the run instead of after a guessed
    time. Nothing at all when that variable is unset."""
    path = os.environ.get(PROGRESS)
    if not path:
        return
    said_here = _state.setdefault("reached", set())
    key = (os.getpid(), point)
    if key in said_here:
        return
    said_here.add(key)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, f"{point} {os.getpid()}\n".encode())
        finally:
            os.close(fd)
    except OSError:
        pass


def _unraisable(unraisable) -> None:
    """A Ctrl-C raised where Python cannot raise it (a finalizer run by the garbage collector):
    not printed, but raised again a moment later (from a timer thread, once the finalizer has
    returned) in the main thread's own work."""
    if issubclass(unraisable.exc_type, KeyboardInterrupt) and _state["interrupted"]:
        if not _state["committed"] and signal.getsignal(signal.SIGINT) is signal.SIG_IGN and \
                threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, _handler)
            again = threading.Timer(0.01, _thread.interrupt_main)
            again.daemon = True
            again.start()
        return
    _state.get("hook", sys.__unraisablehook__)(unraisable)


def installed() -> bool:
    """Whether Ctrl-C is handled here now (not yet ignored, not another handler)."""
    return signal.getsignal(signal.SIGINT) is _handler


def interrupted() -> bool:
    """Whether Ctrl-C was pressed (or SIGTERM or SIGHUP came) since the handler was
    installed."""
    return _state["interrupted"]


def check() -> None:
    """KeyboardInterrupt if Ctrl-C was pressed (again, if it was swallowed on the way)."""
    if _state["interrupted"]:
        raise KeyboardInterrupt


def commit() -> None:
    """Call just before an output is put in place: a Ctrl-C pressed before it stops the run
    (nothing written); one pressed after it is ignored, so that what is written stands."""
    check()
    if threading.current_thread() is threading.main_thread() and installed():
        _state["committed"] = True
        ignore()


def rearm() -> None:
    """For a command that puts one output in place after another (`derive serve` rebuilds on
    each save): once an output is committed (the signals ignored), the handler back on the
    signals `install` took, so that the next Ctrl-C stops the command again."""
    if not _state["ours"] or threading.current_thread() is not threading.main_thread() or \
            _state["interrupted"]:
        return
    _state["committed"] = False
    for signum in _state.get("taken", ()):
        signal.signal(signum, _handler)


def reset() -> None:
    """Forget an interrupt (for a caller that runs several commands in one process)."""
    _state["interrupted"] = False
    _state["committed"] = False
    _state["signal"] = None
