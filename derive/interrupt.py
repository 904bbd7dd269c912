"""Ctrl-C, once: the handler the command line installs before anything heavy is imported.

It records the interrupt and raises KeyboardInterrupt once; later ones are ignored, so that they
cannot cut a cleanup short. What records it stays true, so that an interrupt swallowed on the
way (by a library's broad `except`, or replaced by a time bound's exception) is raised again at
the next check: in every time bound's exit, before an output is put in place, after the work.
"""

from __future__ import annotations

import signal
import threading

_state = {"interrupted": False, "ours": False}


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
    return signal.signal(signal.SIGINT, _handler)


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
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def reset() -> None:
    """Forget an interrupt (for a caller that runs several commands in one process)."""
    _state["interrupted"] = False
