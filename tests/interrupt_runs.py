"""Running `derive` in a child and interrupting it, for tests/test_interrupts.py and
benchmarks/interrupts.py. No timing decides anything here: the child says when derive's
Ctrl-C handler is in place (a line on a pipe), and a test sends its signal at a point derive
itself reports (DERIVE_TEST_PROGRESS, derive.interrupt.reached: `handler-installed`, `running`
once the command is parsed and loaded, `working` once a time bound is entered), never after a
guessed time. Only the benchmark counts instants in seconds from the handler's.

The child runs derive's own entry (derive.cli.entry.run, what the console script and
`python -m derive` run) from a `python -c` that wraps `derive.interrupt.install` to write one
line the moment the entry has installed its handler: "ready <whether SymPy was imported>".
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = os.environ.get("DERIVE_PYTHON", sys.executable)
SLOW = ROOT / "tests" / "hostile" / "adam1000-amsgrad.toml"
"""1000 amsgrad steps: many seconds of work, far longer than the instants used."""
GOOD = ROOT / "tests" / "hostile" / "good.toml"
"""Five claims, each right (written by hand): `derive check` exits 0."""

_WRAPPER = """
import os, sys
from derive import interrupt
_install = interrupt.install
_said = []
def _ready():
    previous = _install()
    if not _said:
        _said.append(1)
        os.write({fd}, ("ready %d\\n" % ("sympy" in sys.modules)).encode())
        os.close({fd})
    return previous
interrupt.install = _ready
{extra}
from derive.cli.entry import run
run()
"""

_STOP_IN_BOUND = """
import signal, contextlib
from derive.kernel import timebound
_bound = timebound.time_bound
_stopped = []
@contextlib.contextmanager
def _stopping(seconds, *args, **kwargs):
    with _bound(seconds, *args, **kwargs) as deadline:
        if seconds == {seconds!r} and not _stopped:
            _stopped.append(1)
            os.kill(os.getpid(), signal.SIGSTOP)
        yield deadline
timebound.time_bound = _stopping
"""


@dataclass
class Outcome:
    rc: int | None
    stdout: str
    stderr: str
    left: list[str]
    """Every name in the working folder after the run (the input is elsewhere)."""
    sympy_at_ready: bool | None
    sent: bool
    """Whether SIGINT was sent (False: the run ended first)."""

    @property
    def lines(self) -> list[str]:
        return self.stderr.splitlines()

    def problems(self, command: str, signum: int = signal.SIGINT) -> list[str]:
        """What is wrong with an interrupted run: exit 128 + the signal (130 for Ctrl-C), one
        line, no file."""
        out = []
        if self.rc != 128 + signum:
            out.append(f"exit {self.rc}, expected {128 + signum}")
        said = "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name
        want = f"derive {command}: interrupted ({said}); no file was written"
        if self.lines != [want]:
            out.append(f"stderr {self.lines[-3:]!r}, expected one line {want!r}")
        if self.left:
            out.append(f"files left: {self.left}")
        if self.stdout:
            out.append(f"stdout not empty: {self.stdout[:80]!r}")
        return out


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("DERIVE_DEBUG", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def progress_file(work: Path) -> Path:
    """Where the child run in `work` appends the points it reaches."""
    return work.parent / f"{work.name}.progress"


def start(argv: list[str], work: Path, extra: str = ""):
    """The child, and the read end of its ready pipe."""
    read, write = os.pipe()
    code = _WRAPPER.format(fd=write, extra=extra)
    env = {**_env(), "DERIVE_TEST_PROGRESS": str(progress_file(work))}
    out = open(work.parent / f"{work.name}.stdout", "wb")
    err = open(work.parent / f"{work.name}.stderr", "wb")
    try:
        proc = subprocess.Popen([PYTHON, "-c", code, *argv], cwd=work, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, pass_fds=(write,), env=env,
                                start_new_session=True)
    finally:
        out.close()
        err.close()
        os.close(write)
    return proc, read


def wait_ready(proc, read: int, limit: float = 300.0) -> bool | None:
    """Block until the child's handler is in place; whether SymPy was loaded by then (None if
    the child ended or said nothing)."""
    line = b""
    end = time.monotonic() + limit
    while not line.endswith(b"\n") and time.monotonic() < end:
        if not select.select([read], [], [], 1.0)[0]:
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(read, 64)
        if not chunk:
            break
        line += chunk
    os.close(read)
    if not line.startswith(b"ready "):
        return None
    return line.split()[1] == b"1"


def finish(proc, work: Path, sympy: bool | None, sent: bool, limit: float = 600.0) -> Outcome:
    try:
        proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    left = sorted(str(p.relative_to(work)) for p in work.rglob("*"))
    out, err = (work.parent / f"{work.name}.{s}" for s in ("stdout", "stderr"))
    return Outcome(proc.returncode, out.read_text(encoding="utf-8", errors="replace"),
                   err.read_text(encoding="utf-8", errors="replace"), left, sympy, sent)


def reached(path: Path, point: str, pid: int | None = None) -> bool:
    """Whether the run (or its process `pid`) has said `point` in its progress file."""
    try:
        lines = path.read_text(encoding="ascii", errors="replace").splitlines()
    except FileNotFoundError:
        return False
    return any(ln.split(" ")[0] == point and (pid is None or ln.split(" ")[1:] == [str(pid)])
               for ln in lines)


def wait_point(proc, path: Path, point: str, limit: float = 300.0) -> bool:
    """Poll until the child reports `point` (True), ends, or `limit` seconds pass (a bound far
    past any run, which only turns a hang into a failure)."""
    end = time.monotonic() + limit
    while time.monotonic() < end and proc.poll() is None:
        if reached(path, point):
            return True
        time.sleep(0.005)  # polling a file the child writes; the signal waits for the point
    return reached(path, point)


def interrupt_at(argv: list[str], work: Path, delay: float = 0.0, point: str | None = None,
                 signum: int = signal.SIGINT) -> Outcome:
    """Run `derive ARGV` in `work` and send `signum` once it reports `point` (tests), or
    `delay` seconds after its handler is in place (the benchmark; 0: at once, while it still
    imports)."""
    work.mkdir(parents=True, exist_ok=True)
    proc, read = start(argv, work)
    sympy = wait_ready(proc, read)
    if point is not None:
        wait_point(proc, progress_file(work), point)
    elif delay:
        time.sleep(delay)
    sent = proc.poll() is None
    if sent:
        os.kill(proc.pid, signum)
    return finish(proc, work, sympy, sent)


def stopped(pid: int) -> bool:
    """Whether the process is stopped (state T in /proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] == "T"
    except (OSError, IndexError):
        return False


def paused_in_bound(argv: list[str], work: Path, seconds: float, pause: float) -> Outcome:
    """Run `derive ARGV`, stop it (SIGSTOP, by itself) on entering the time bound of
    `seconds`, keep it stopped `pause` seconds, then let it go on: wall time passes inside the
    bound while no CPU time does, as on a machine busy with other work."""
    work.mkdir(parents=True, exist_ok=True)
    proc, read = start(argv, work, extra=_STOP_IN_BOUND.format(seconds=seconds))
    sympy = wait_ready(proc, read)
    while proc.poll() is None and not stopped(proc.pid):
        time.sleep(0.01)
    if proc.poll() is None:
        time.sleep(pause)
        os.kill(proc.pid, signal.SIGCONT)
    return finish(proc, work, sympy, False)


class Hogs:
    """`count` busy loops (other work on the machine), ended on leaving."""

    def __init__(self, count: int):
        self.count = count
        self.procs: list[subprocess.Popen] = []

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                       stdin=subprocess.DEVNULL)
                      for _ in range(self.count)]
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def instants(seed: int, count: int, high: float = 3.0) -> list[float]:
    """`count` instants in [0, high], the first 0 (while SymPy is imported); the benchmark's."""
    rng = random.Random(seed)
    return [0.0] + [round(rng.uniform(0, high), 3) for _ in range(count - 1)]


POINTS = ("handler-installed", "running", "working")
"""The points a run reports, in order: the handler in place (SymPy still to import), the
command parsed and loaded, the work begun (a time bound entered)."""


def points(seed: int, count: int) -> list[str]:
    """`count` points of a run, the first while SymPy is still to import, the others seeded."""
    rng = random.Random(seed)
    return [POINTS[0]] + [rng.choice(POINTS) for _ in range(count - 1)]
