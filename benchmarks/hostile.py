"""Every hostile case of tests/hostile_cases.py, slow ones included, with a generous wall limit:
a table of exit code, seconds, peak MiB (the child's ru_maxrss from os.wait4), whether a
traceback was printed, the lines on stderr, and what is wrong with the outcome.

    python benchmarks/hostile.py                        # the installed derive
    python benchmarks/hostile.py --wall 120 --only mem- --only tb-
    DERIVE_PYTHONPATH=/tmp/derive-before python benchmarks/hostile.py   # another tree

`--pythonpath DIR` (or DERIVE_PYTHONPATH) puts DIR in front of the child's sys.path, so a copy
of another version of `derive` can be measured with the same interpreter: the "before" table
(benchmarks/hostile-before.txt) was measured that way on a copy of the code as it was before
the fixes.

Each case runs once, in its own temporary folder, under RLIMIT_AS = 2 GiB; a child still
running at the wall limit is killed (SIGKILL to its process group) and reported as a hang.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import hostile_cases as hc  # noqa: E402 (after the path)

TAG_ORDER = ("hang", "traceback", "memory", "slow", "exit", "stderr-lines", "repr", "control",
             "output")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wall", type=float, default=120.0,
                    help="kill a case after this many seconds (default 120)")
    ap.add_argument("--python", default=None, help="the interpreter that runs derive")
    ap.add_argument("--pythonpath", default=None,
                    help="put this folder in front of the child's sys.path")
    ap.add_argument("--only", action="append", default=[], metavar="PREFIX",
                    help="run only the cases whose id starts with PREFIX (repeatable)")
    ap.add_argument("--skip-slow", action="store_true", help="leave out the slow cases")
    ap.add_argument("--details", action="store_true",
                    help="after the table, every problem of every case in full")
    args = ap.parse_args(argv)

    target = hc.Target(**{k: v for k, v in (("python", args.python),
                                             ("pythonpath", args.pythonpath)) if v is not None})
    cases = [c for c in hc.CASES
             if (not args.only or any(c.id.startswith(p) for p in args.only))
             and not (args.skip_slow and c.slow)]
    version = subprocess.run([target.python, "-c", "import derive, sys; "
                              "print(derive.__file__, derive.__version__, sys.version.split()[0])"],
                             capture_output=True, text=True, env=target.env(), cwd="/",
                             check=False)
    print(f"# derive hostile-input benchmark, {time.strftime('%Y-%m-%d %H:%M:%S')}")
    print(f"# derive: {version.stdout.strip() or version.stderr.strip()[-200:]}")
    print(f"# python: {target.python}; pythonpath: {target.pythonpath or '(none)'}")
    print(f"# machine: {platform.platform()}, {os.cpu_count()} CPUs, euid {os.geteuid()}; "
          f"RLIMIT_AS {hc.AS_LIMIT >> 20} MiB, wall limit {args.wall:g} s")
    print("# exit: the child's exit code (-N: killed by signal N; 'kill' = killed at the wall "
          "limit); peak MiB: ru_maxrss; tb: a traceback on stderr; err: lines on stderr")
    print()
    header = (f"{'case':40} {'class':9} {'slow':4} {'exit':>5} {'seconds':>8} {'MiB':>6} "
              f"{'tb':3} {'err':>4}  {'verdict':7} wrong today")
    print(header)
    print("-" * len(header))
    failed = 0
    details = []
    for c in cases:
        with tempfile.TemporaryDirectory(prefix=f"hostile-{c.id}-") as d:
            try:
                _, res, probs = hc.run_case(c, Path(d), target, wall=args.wall)
            except hc.Skip as exc:
                print(f"{c.id:40} {c.klass:9} {'slow' if c.slow else '':4} "
                      f"{'-':>5} {'-':>8} {'-':>6} {'-':3} {'-':>4}  skipped {exc}", flush=True)
                continue
        tags = sorted({t for t, _ in probs}, key=TAG_ORDER.index)
        verdict = "ok" if not probs else "FAIL"
        failed += bool(probs)
        rc = "kill" if res.timed_out else str(res.rc)
        print(f"{c.id:40} {c.klass:9} {'slow' if c.slow else '':4} {rc:>5} "
              f"{res.seconds:8.2f} {res.peak_mib:6.0f} {'yes' if res.traceback else 'no':3} "
              f"{res.stderr_lines:4d}  {verdict:7} {', '.join(tags)}", flush=True)
        details.append((c, res, probs))
    print()
    print(f"{len(cases)} cases, {failed} not as expected")
    if args.details:
        print()
        for c, res, probs in details:
            if not probs:
                continue
            print(f"## {c.id} ({c.klass}) — {c.note}")
            for tag, text in probs:
                print(f"   [{tag}] {text}")
            tail = [ln for ln in res.err.splitlines() if ln.strip()][-1:]
            if tail and not any(tail[0][:60] in t for _, t in probs):
                print(f"   stderr: {tail[0][:200]}")
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
