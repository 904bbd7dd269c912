"""Ctrl-C, once: the handler the command line installs before anything heavy is imported.

It records the interrupt and raises KeyboardInterrupt once; later ones are ignored, so that they
cannot cut a cleanup short. What records it stays true, so that an interrupt swallowed on the
way (by a library's broad `except`, or replaced by a time bound's exception) is raised again at
the next check: in every time bound's exit, before an output is put in place, after the work.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading

_state = {"interrupted": False, "ours": False, "committed": False}


def _handler(signum, frame):
    _state["interrupted"] = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def install():
    """Make Ctrl-C ours (main thread, Python's default handler only): the handler it replaced,
    or None when nothing was changed."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return None
    _state["ours"] = True
    if sys.unraisablehook is not _unraisable:
        _state["hook"] = sys.unraisablehook
        sys.unraisablehook = _unraisable
    return signal.signal(signal.SIGINT, _handler)


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
    """Whether Ctrl-C was pressed since the handler was installed."""
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
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def reset() -> None:
    """Forget an interrupt (for a caller that runs several commands in one process)."""
    _state["interrupted"] = False
    _state["committed"] = False
