"""Proving many statements on several cores: each statement is decided on its own, so a group
of them can be proved in a forked child and the outcomes sent back (the parent proves one group
itself). The result is the same list, in the same order, as proving them one by one; without
fork (or with one job, or on any failure of a child) they are proved one by one."""

from __future__ import annotations

import os
import pickle
from dataclasses import replace

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


def _send(fd: int, outcomes: list[Outcome]) -> None:
    data = pickle.dumps([replace(o, statement=None) for o in outcomes])
    with os.fdopen(fd, "wb") as pipe:
        pipe.write(data)


def prove_all(statements: list[Statement], jobs: int | None = None) -> list[Outcome]:
    """`prove` of every statement, on up to `jobs` processes."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs <= 1 or len(statements) < 2 * jobs or not hasattr(os, "fork"):
        return [prove(s) for s in statements]
    groups = [list(range(k, len(statements), jobs)) for k in range(jobs)]
    children = []
    for group in groups[1:]:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: prove its group, send the outcomes, leave at once
            code = 0
            try:
                os.close(read)
                _send(write, [prove(statements[k]) for k in group])
            except BaseException:  # noqa: BLE001 — the parent proves this group itself
                code = 1
            finally:
                os._exit(code)
        os.close(write)
        children.append((pid, read, group))
    results: dict[int, Outcome] = {k: prove(statements[k]) for k in groups[0]}
    for pid, read, group in children:
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()
        _, status = os.waitpid(pid, 0)
        try:
            received = pickle.loads(data) if status == 0 else None
        except Exception:  # noqa: BLE001
            received = None
        if received is None or len(received) != len(group):
            received = [prove(statements[k]) for k in group]
        for k, o in zip(group, received):
            results[k] = replace(o, statement=statements[k])
    return [results[k] for k in range(len(statements))]
