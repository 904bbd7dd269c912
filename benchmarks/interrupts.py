"""Ctrl-C at random instants, N times under load: passes/N and the outcomes seen.

    .venv/bin/python benchmarks/interrupts.py [-n 50] [--hogs 2] [--seed 26] [--high 3]
        [--from-spawn] [--tree PATH]

Each trial runs `derive check SLOW` or `derive key SLOW -o out.md` (alternately; SLOW is
tests/hostile/adam1000-amsgrad.toml) and sends SIGINT at a seeded random instant in
[0, --high] s, with --hogs busy loops running. A pass: exit 130, exactly one line on stderr
(`derive COMMAND: interrupted (Ctrl-C); no file was written`), nothing on stdout, nothing left
in the working folder.

By default instants count from the moment derive's handler is in place (as
tests/test_interrupts.py does). --from-spawn counts them from the start of
`python -m derive` instead, as a user's Ctrl-C falls; it runs any tree (--tree: the folder put
first on PYTHONPATH), so it measures the code before a change too. Its first tens of
milliseconds are Python's own start-up, before any line of derive runs (there, Ctrl-C kills
the interpreter, or fails its `site` import): those trials are counted apart.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import interrupt_runs as ir  # noqa: E402

COMMANDS = [("check", ["check", str(ir.SLOW)]),
            ("key", ["key", str(ir.SLOW), "-o", "out.md"])]


def _caught(pid: int) -> bool:
    """Whether the interpreter has set its SIGINT handler (SigCgt): Python's start-up is past
    its first stage."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
    except (OSError, ValueError):
        pass
    return False


def from_spawn(argv: list[str], work: Path, delay: float, tree: str | None):
    """`python -m derive ARGV`, SIGINT `delay` s after it was started; the outcome and whether
    Python had set up its own handler by then."""
    work.mkdir(parents=True)
    env = dict(os.environ)
    if tree:
        env["PYTHONPATH"] = tree
    out, err = work.parent / f"{work.name}.stdout", work.parent / f"{work.name}.stderr"
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen([ir.PYTHON, "-m", "derive", *argv], cwd=work, stdout=o,
                                stderr=e, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
    time.sleep(delay)
    started = _caught(proc.pid)
    sent = proc.poll() is None
    if sent:
        os.kill(proc.pid, signal.SIGINT)
    outcome = ir.finish(proc, work, None, sent)
    return outcome, started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=50)
    parser.add_argument("--hogs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--high", type=float, default=3.0)
    parser.add_argument("--from-spawn", action="store_true")
    parser.add_argument("--tree")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    passes, seen, early = 0, collections.Counter(), 0
    failures = []
    with tempfile.TemporaryDirectory() as tmp, ir.Hogs(args.hogs):
        for k in range(args.n):
            name, argv = COMMANDS[k % 2]
            delay = round(rng.uniform(0, args.high), 3)
            work = Path(tmp, f"t{k}")
            if args.from_spawn:
                out, started = from_spawn(argv, work, delay, args.tree)
                if not started:
                    early += 1
                    seen[f"python start-up: exit {out.rc}"] += 1
                    continue
            else:
                out = ir.interrupt_at(argv, work, delay)
            problems = out.problems(name) if out.sent else ["ended before Ctrl-C"]
            lines = len(out.lines)
            seen[f"exit {out.rc}, {lines} line{'s' * (lines != 1)}"
                 f"{', files left' if out.left else ''}"] += 1
            if problems:
                failures.append(f"{name} at {delay} s: {'; '.join(problems)}")
            else:
                passes += 1
    counted = args.n - early
    how = "from the start of python" if args.from_spawn else "from derive's handler"
    print(f"Ctrl-C at random instants in [0, {args.high:g}] s ({how}), {args.hogs} busy "
          f"loops alongside: {passes}/{counted} pass")
    if early:
        print(f"({early} of {args.n} fell in Python's own start-up, before derive runs)")
    for what, count in seen.most_common():
        print(f"  {count:3d}  {what}")
    for line in failures[:10]:
        print("  fail: " + line[:300])
    return 0 if passes == counted else 1


if __name__ == "__main__":
    sys.exit(main())
