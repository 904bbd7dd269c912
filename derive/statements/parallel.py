"""Proving many statements on several cores: each statement is decided on its own, so forked
workers (the parent among them) take the next statement from a shared queue, a pipe of
indices, and the children send their outcomes back when the queue is empty. The result is the
same list, in the same order, as proving them one by one; without fork (or with one job, or on
any failure of a child) they are proved one by one."""

from __future__ import annotations

import os
import pickle
import signal
import time
from dataclasses import replace

from derive.kernel.verdict import Verdict
from derive.statements.prove import Outcome, prove
from derive.statements.statement import Statement


def default_jobs() -> int:
    """DERIVE_JOBS if set, else the cores this process may use (at most 4)."""
    env = os.environ.get("DERIVE_JOBS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


def _prove(statement: Statement, deadline: float | None) -> Outcome:
    """`prove`, or `unknown` at once when the run has passed its time bound."""
    if deadline is not None and time.monotonic() >= deadline:
        return Outcome(statement, Verdict.UNKNOWN, "time bound", None, (), (), (), 0.0,
                       "the run passed its time bound (--total-time-limit)")
    return prove(statement)


def _work(queue: int, statements: list[Statement], deadline: float | None
          ) -> dict[int, Outcome]:
    """Prove statements taken from the queue until it is empty."""
    done = {}
    while True:
        ticket = os.read(queue, 2)  # reads of a pipe are atomic: each index goes to one worker
        if len(ticket) < 2:
            return done
        k = int.from_bytes(ticket, "big")
        done[k] = _prove(statements[k], deadline)


def prove_all(statements: list[Statement], jobs: int | None = None,
              seconds: float | None = None) -> list[Outcome]:
    """`prove` of every statement, on up to `jobs` processes; a statement not begun within
    `seconds` of the start is `unknown` (each one's own decision is bounded by the kernel)."""
    deadline = None if seconds is None else time.monotonic() + seconds
    jobs = default_jobs() if jobs is None else jobs
    if jobs <= 1 or len(statements) < 2 * jobs or not hasattr(os, "fork") \
            or len(statements) >= 1 << 16:
        return [_prove(s, deadline) for s in statements]
    queue_read, queue_write = os.pipe()
    os.write(queue_write, b"".join(k.to_bytes(2, "big") for k in range(len(statements))))
    os.close(queue_write)
    children = []
    for _ in range(jobs - 1):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # a child: prove from the queue, send the outcomes, leave at once
            code = 0
            try:
                os.close(read)
                done = _work(queue_read, statements, deadline)
                data = pickle.dumps({k: replace(o, statement=None) for k, o in done.items()})
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(data)
            except BaseException:  # noqa: BLE001 — the parent proves what is missing
                code = 1
            finally:
                os._exit(code)
        os.close(write)
        children.append((pid, read))
    try:
        results = _work(queue_read, statements, deadline)
    except BaseException:  # Ctrl-C: no worker outlives the run
        for pid, read in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read)
        raise
    os.close(queue_read)
    for pid, read in children:
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        try:
            received = pickle.loads(data) if status == 0 else {}
        except Exception:  # noqa: BLE001
            received = {}
        for k, o in received.items():
            results[k] = replace(o, statement=statements[k])
    return [results[k] if k in results else _prove(statements[k], deadline)
            for k in range(len(statements))]
