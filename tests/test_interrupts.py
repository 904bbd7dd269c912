"""Ctrl-C at any instant, and time bounds that a busy machine does not change.

Each run is a child process (tests/interrupt_runs.py). A signal is sent at a point the child
reports (its handler in place, the command loaded, the work begun), never after a guess at how
fast the machine is; the machine is made busy on purpose (busy loops, and a child stopped by
SIGSTOP inside its bound).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import tomllib

import interrupt_runs as ir
import pytest

from derive import interrupt
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.limits import computation_seconds  # the bound the computation runs under

SEEDS = [int(s) for s in os.environ.get("DERIVE_INTERRUPT_SEEDS", "26").split(",")]
COUNT = int(os.environ.get("DERIVE_INTERRUPT_COUNT", "4"))

COMMANDS = {
    "check": ["check", str(ir.SLOW)],
    "key": ["key", str(ir.SLOW), "-o", "out.md"],
}


def _burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_bounds_count_cpu_time_and_nest():
    with pytest.raises(DecisionTimeout) as outer:
        with time_bound(0.4):
            with pytest.raises(DecisionTimeout) as inner:
                with time_bound(0.1):
                    _burn(5)
            _burn(5)
    assert "0.1 s of CPU time" in str(inner.value) and inner.value.wall is False
    assert "0.4 s of CPU time" in str(outer.value)
    with time_bound(0.2):
        time.sleep(0.6)  # waiting is not CPU time: no bound passes
    assert signal.getitimer(signal.ITIMER_PROF)[0] == signal.getitimer(signal.ITIMER_REAL)[0] == 0


def test_a_wall_budget_is_wall_time():
    with pytest.raises(DecisionTimeout) as exc:
        with time_bound(5, wall=0.2):
            time.sleep(3)
    assert exc.value.wall is True


def test_an_alarm_set_outside_the_bounds_is_kept():
    class Rang(Exception):
        pass

    def ring(signum, frame):
        raise Rang

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        with pytest.raises(Rang):
            with time_bound(5):
                time.sleep(3)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_swallowed_ctrl_c_is_raised_again_at_the_bounds_end():
    """The Ctrl-C that was lost: caught by a broad `except` inside a bound (or replaced by
    the bound's own exception), it is raised again when the bound is left."""
    previous = {s: signal.getsignal(s) for s in interrupt.SIGNALS}
    try:
        with pytest.raises(KeyboardInterrupt):
            with time_bound(5):
                try:
                    interrupt._handler(signal.SIGINT, None)
                except BaseException:  # noqa: BLE001 — as a library might
                    pass
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # later ones are ignored
    finally:
        interrupt.reset()
        interrupt.restore(previous)


FINALIZER = """
import signal, time
from derive import interrupt
interrupt.install()
class Slow:
    def __del__(self):
        time.sleep(0.5)  # the Ctrl-C falls here, where Python cannot raise it
slow = Slow()
signal.signal(signal.SIGALRM, lambda s, f: signal.raise_signal(signal.SIGINT))
signal.setitimer(signal.ITIMER_REAL, 0.1)
try:
    del slow
    for _ in range(10 ** 9):
        pass
    print("went on")
except KeyboardInterrupt:
    print("raised again")
"""


def test_a_ctrl_c_in_a_finalizer_is_raised_again_not_printed():
    """Seen once in 50 runs: a Ctrl-C raised inside a finalizer is printed by Python as
    "Exception ignored" and dropped; derive raises it again, and prints nothing for it."""
    done = subprocess.run([ir.PYTHON, "-c", FINALIZER], capture_output=True, text=True,
                          env=ir._env(), cwd=ir.ROOT, timeout=600)
    assert (done.stdout, done.stderr) == ("raised again\n", "")


def test_the_entry_imports_nothing_heavy():
    """The console script's module sets the handler before SymPy or any command is loaded."""
    code = ("import sys, signal; import derive.cli.entry as e; "
            "print(sorted(m for m in sys.modules if m.startswith(('sympy', 'derive.cli.main', "
            "'derive.exercises', 'derive.kernel', 'mpmath'))))")
    out = subprocess.run([ir.PYTHON, "-c", code], capture_output=True, text=True, check=True,
                         env=ir._env(), cwd=ir.ROOT, timeout=300).stdout
    assert out.strip() == "[]"


def test_the_console_script_and_python_m_run_the_entry():
    with open(ir.ROOT / "pyproject.toml", "rb") as fh:
        scripts = tomllib.load(fh)["project"]["scripts"]
    assert scripts == {"derive": "derive.cli.entry:run"}
    main = (ir.ROOT / "derive" / "__main__.py").read_text(encoding="utf-8")
    assert "from derive.cli.entry import run" in main


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("seed", SEEDS)
def test_ctrl_c_at_random_instants(command, seed, tmp_path):
    """SIGINT at seeded points of a run of many seconds, the first while SymPy is still to
    import: exit 130, exactly one line, nothing written, no temporary file — with two busy
    loops running alongside."""
    failures = []
    with ir.Hogs(2):
        for k, point in enumerate(ir.points(seed, COUNT)):
            out = ir.interrupt_at(COMMANDS[command], tmp_path / f"run{k}", point=point)
            if not out.sent:
                failures.append(f"{point}: the run ended (exit {out.rc}) before Ctrl-C")
                continue
            failures += [f"{point}: {p}" for p in out.problems(command)]
            if k == 0 and out.sympy_at_ready:
                failures.append("the handler was installed after SymPy was imported")
    assert not failures, "\n".join(failures)


def test_ctrl_c_at_once_is_during_start_up(tmp_path):
    """Sent the moment the handler is in place, while SymPy is still to be imported: the
    handler comes first."""
    out = ir.interrupt_at(COMMANDS["check"], tmp_path / "run", point="handler-installed")
    assert out.sympy_at_ready is False
    assert out.problems("check") == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("point", ["handler-installed", "working"])
def test_sigterm_and_sighup_are_handled_as_ctrl_c(command, signum, point, tmp_path):
    """(found) SIGTERM killed derive (exit -15) with whatever it had made left behind: now one
    line, exit 128 + n, nothing written."""
    out = ir.interrupt_at(COMMANDS[command], tmp_path / "run", point=point, signum=signum)
    assert out.sent and out.problems(command, signum) == []


def test_a_bound_counts_cpu_time_not_waiting(tmp_path):
    """A run stopped for 8 s inside its 5 s bound (wall time passing, no CPU time), with three
    busy loops alongside, gives the verdict of a quiet machine: good.toml's five hand-written
    claims all hold."""
    with ir.Hogs(3):
        out = ir.paused_in_bound(["check", str(ir.GOOD), "--time-limit", "5"],
                                 tmp_path / "run", computation_seconds(5.0), 8.0)
    assert out.rc == 0, out.stdout[-500:] + out.stderr
    assert "undecided" not in out.stdout
    assert out.stderr == ""


def test_the_total_time_limit_is_wall_time(tmp_path):
    """--total-time-limit is a budget of the run's wall time: stopped past it, the exercise is
    undecided and the message names that option."""
    out = ir.paused_in_bound(["check", str(ir.GOOD), "--time-limit", "5",
                              "--total-time-limit", "3"], tmp_path / "run",
                             computation_seconds(5.0), 5.0)
    assert out.rc == 1, out.stdout[-500:] + out.stderr
    assert "undecided" in out.stdout
    assert "--total-time-limit" in out.stdout


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))


def test_a_signal_the_caller_ignores_stays_ignored(tmp_path):
    """Under `nohup` (SIGHUP ignored) derive leaves SIGHUP alone: a hang-up while it works
    changes nothing, and its key is written whole (the suite itself resets the three signals to
    their defaults, tests/conftest.py: this is the one place that ignores one)."""
    work = tmp_path / "run"
    work.mkdir()
    course = ir.ROOT / "proofs" / "course" / "lesson03.toml"
    proc, read = ir.start(["key", str(course), "-o", "out.md"], work,
                          extra="import signal\nsignal.signal(signal.SIGHUP, signal.SIG_IGN)")
    ir.wait_ready(proc, read)
    ir.wait_point(proc, ir.progress_file(work), "working")
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGHUP)
    out = ir.finish(proc, work, None, True)
    assert out.rc == 0, out.stderr
    assert out.left == ["out.md"]
    key = (work / "out.md").read_text(encoding="utf-8")
    assert key.startswith("# Answer key") and "`sum_of_means`" in key  # the last exercise
