"""A pool of forked workers: one fresh child per task, at most `jobs` alive, each sending its
result back over a pipe; every child is killed and reaped before `run` returns or raises.

A child starts from a copy of the parent (nothing to import again) and ends with its task, so
its memory is that of one task. Children ignore Ctrl-C, SIGTERM and SIGHUP (a signal sent to
the whole group): the parent, interrupted, kills them.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from derive import interrupt

PR_SET_PDEATHSIG = 1


@dataclass
class _Child:
    pid: int
    index: int
    started: float
    chunks: list[bytes] = field(default_factory=list)


def die_with_parent() -> None:
    """Linux: the child gets SIGKILL if the parent dies (even killed), so none is left over
    (a worker's TeX too, which a worker killed would otherwise leave running)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _child(index: int, write_fd: int, work: Callable[[int], bytes], parent: int) -> None:
    code = 70
    try:
        for signum in interrupt.SIGNALS:
            signal.signal(signum, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(interrupt.SIGNALS))
        die_with_parent()
        if os.getppid() != parent:  # the parent died before the line above
            os._exit(code)
        data = memoryview(work(index))
        while data:
            data = data[os.write(write_fd, data):]
        code = 0
    except BaseException:  # noqa: BLE001 — the parent reports a child that sent nothing
        code = 70
    finally:
        os._exit(code)


def _start(index: int, work, children: dict[int, _Child]) -> None:
    read_fd, write_fd = os.pipe()
    # the signals blocked across fork: a Ctrl-C then is seen by the parent only, never by a
    # child that has not yet set it aside
    signal.pthread_sigmask(signal.SIG_BLOCK, set(interrupt.SIGNALS))
    try:
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            for fd in children:
                os.close(fd)
            _child(index, write_fd, work, parent)
        os.close(write_fd)
        children[read_fd] = _Child(pid, index, time.monotonic())
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(interrupt.SIGNALS))


def _ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals.__members__.values() else sig
        return f"its worker was killed ({name})"
    return f"its worker exited with {os.waitstatus_to_exitcode(status)} and sent nothing"


def run(count: int, jobs: int, work: Callable[[int], bytes],
        done: Callable[[int, bytes | None, str], None], wall: float | None = None) -> None:
    """`work(i)` for i in range(count), each in a child; `done(i, payload, "")` in the parent
    as each ends, or `done(i, None, why)` if it crashed, was killed or ran past `wall` seconds.
    """
    todo = iter(range(count))
    children: dict[int, _Child] = {}
    left = count
    try:
        while left:
            while len(children) < max(jobs, 1):
                index = next(todo, None)
                if index is None:
                    break
                _start(index, work, children)
            timeout = None
            if wall is not None:
                oldest = min(c.started for c in children.values())
                timeout = max(0.0, oldest + wall - time.monotonic())
            ready, _, _ = select.select(list(children), [], [], timeout)
            for fd in ready:
                data = os.read(fd, 1 << 16)
                if data:
                    children[fd].chunks.append(data)
                    continue
                child = children.pop(fd)
                os.close(fd)
                _, status = os.waitpid(child.pid, 0)
                left -= 1
                if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
                    done(child.index, b"".join(child.chunks), "")
                else:
                    done(child.index, None, _ended(status))
            if wall is not None:
                now = time.monotonic()
                for fd, child in list(children.items()):
                    if now - child.started > wall:
                        _kill(fd, children.pop(fd))
                        left -= 1
                        done(child.index, None, f"its worker ran past {wall:g} s and was killed")
    finally:
        for fd, child in list(children.items()):
            _kill(fd, child)


def _kill(fd: int, child: _Child) -> None:
    try:
        os.kill(child.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:
        try:
            os.waitpid(child.pid, 0)
            break
        except ChildProcessError:
            break
        except InterruptedError:
            continue
    os.close(fd)
