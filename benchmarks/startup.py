"""Start-up: `derive --help`, `derive --version`, the refusal of a file that is not an exercise
file, and `derive prove`, each against a cold `python -c "import sympy"` in the same run.

Every command is a fresh process, run through the console script's entry (derive.cli.entry,
as `python -m derive` does), interleaved with the baseline; the figure is the ratio of the
medians. Targets (issue 33): --help and --version ≤ 0.5×, a refusal ≤ 1.5×, `derive prove`
≤ 3× (from the cache, as a second run finds it; and --no-cache, proving every statement).
Run: `python benchmarks/startup.py [--repeat N] [--no-prove]`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASELINE = [sys.executable, "-c", "import sympy"]
DERIVE = [sys.executable, "-m", "derive"]

# name, arguments, the exit code it must give, target ratio
CASES = [
    ("derive --help", ["--help"], 0, 0.5),
    ("derive --version", ["--version"], 0, 0.5),
    ("check: missing file", ["check", "missing.toml"], 2, 1.5),
    ("check: folder, no toml", ["check", "empty"], 2, 1.5),
    ("check: not UTF-8", ["check", "latin1.toml"], 2, 1.5),
    ("check: TOML syntax error", ["check", "syntax.toml"], 2, 1.5),
    ("check: unknown key", ["check", "unknown.toml"], 2, 1.5),
]
PROVE = [("derive prove (cached)", ["prove"], 0, 3.0),
         ("derive prove --no-cache", ["prove", "--no-cache"], 0, 3.0)]


def bad_files(folder: Path) -> None:
    (folder / "empty").mkdir()
    (folder / "latin1.toml").write_bytes('title = "Übung"\n'.encode("latin-1"))
    (folder / "syntax.toml").write_text('[[exercise]]\nid = "a"\nlr = 0.1 0.2\n')
    (folder / "unknown.toml").write_text('[[exercise]]\nid = "a"\n[exercize]\nx = 1\n')


def timed(cmd: list[str], cwd: Path, code: int = 0) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != code:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}, not {code}: "
                         f"{done.stderr.decode()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--no-prove", action="store_true", help="leave `derive prove` out")
    args = parser.parse_args()
    cases = CASES + ([] if args.no_prove else PROVE)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        bad_files(work)
        timed(BASELINE, work)  # warm the file cache for all
        for _, argv, code, _ in cases:
            timed(DERIVE + argv, work, code)
        base: list[float] = []
        runs: dict[str, list[float]] = {name: [] for name, *_ in cases}
        for _ in range(args.repeat):
            for name, argv, code, _ in cases:
                base.append(timed(BASELINE, work))
                runs[name].append(timed(DERIVE + argv, work, code))
    b = statistics.median(base)
    print(f"{'import sympy':<26} median {b:.3f} s  (min {min(base):.3f}, max {max(base):.3f})")
    missed = []
    for name, _, _, target in cases:
        s = statistics.median(runs[name])
        ratio = s / b
        if ratio > target:
            missed.append(name)
        print(f"{name:<26} median {s:.3f} s  (min {min(runs[name]):.3f}, "
              f"max {max(runs[name]):.3f}): {ratio:.2f}×  (target ≤ {target:g}×)")
    print(f"{args.repeat} runs of each, each beside its own run of the baseline; "
          + (f"past the target: {', '.join(missed)}" if missed else "every target met"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
