"""This tree against an earlier commit, in one run: `derive prove`, `derive check` of the course
bank, and a generated bank of 200 exercises (sgd_step, accumulation, optimizer_steps), each
command run alternately on both trees so that the machine's load falls on both alike.

Run: `python benchmarks/versions.py --base COMMIT [--repeat 3]`. Prints the median wall time of
each command on each tree and the ratio after/before (below 1: faster now).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from check import generate  # noqa: E402


def optimizer_bank(n: int) -> str:
    """n optimizer_steps exercises on ordinary decimals, no claims (the key is computed)."""
    names = ("sgd", "adam", "adamw")
    parts = []
    for i in range(n):
        name = names[i % len(names)]
        option = ', momentum = 0.9' if name == "sgd" else ""
        parts.append(f'[[exercise]]\nid = "opt-{i}"\nrecipe = "optimizer_steps"\n'
                     f'[exercise.given]\nw = "0.{i % 9 + 1}"\nb = "-0.25"\nlr = "0.05"\n'
                     f'steps = 3\nrecords = [["1.5", "2"], ["-0.5", "0.3"]]\n'
                     f'optimizer = {{ name = "{name}"{option} }}\n')
    return "\n".join(parts)


def extract(commit: str, into: Path) -> Path:
    """The tree of `commit` (derive/, proofs/, pyproject.toml) written under `into`."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "derive", "proofs",
                           "pyproject.toml"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    # proofs/ is installed as derive.proofs: inside the package, the import finds that tree's
    (into / "derive" / "proofs").symlink_to(into / "proofs", target_is_directory=True)
    return into


def timed(tree: Path, args: list[str]) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "derive", *args], cwd=tree, env=env,
                          capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{tree}: derive {' '.join(args)} exited {done.returncode}:\n"
                         f"{done.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the earlier commit")
    parser.add_argument("--repeat", type=int, default=3)
    a = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        before = extract(a.base, tmp / "before")
        bank = tmp / "bank.toml"
        bank.write_text(generate(100) + "\n" + optimizer_bank(100))
        jobs = {"derive prove": ["prove", "--format", "json"],
                "derive check proofs/course": ["check", str(ROOT / "proofs" / "course"),
                                               "--format", "json"],
                "derive key (200-exercise bank)": ["key", str(bank), "--format", "json"]}
        print(f"before: {a.base[:12]}   after: this tree   (median of {a.repeat}, seconds)")
        for label, args in jobs.items():
            times = {"before": [], "after": []}
            for _ in range(a.repeat):
                times["before"].append(timed(before, args))
                times["after"].append(timed(ROOT, args))
            b, n = statistics.median(times["before"]), statistics.median(times["after"])
            print(f"{label:34s} before {b:7.2f}  after {n:7.2f}  ratio {n / b:5.2f}")


if __name__ == "__main__":
    main()
