"""`derive build` of benchmarks/bank24 (its 48 exercises; intended.toml, which is not an
exercise file, left out) against the sequence of separate commands that makes the same
artefacts: cold with --jobs 1 and --jobs 2, and warm after editing one exercise.

Run: .venv/bin/python benchmarks/build.py   (minutes; run it on a quiet machine)
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DERIVE = [sys.executable, "-m", "derive"]


def timed(argv, env) -> float:
    start = time.monotonic()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   cwd=ROOT)
    return time.monotonic() - start


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="derive-bench-build-"))
    bank = work / "bank"
    bank.mkdir()
    for f in sorted((ROOT / "benchmarks" / "bank24").glob("*.toml")):
        if f.name != "intended.toml":
            shutil.copy(f, bank)
    env = {**os.environ, "DERIVE_CACHE_DIR": str(work / "cache")}
    env.pop("DERIVE_NO_CACHE", None)
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    for jobs in (1, 2):
        shutil.rmtree(work / "cache", ignore_errors=True)
        t = timed([*DERIVE, "build", str(bank), "-o", str(work / f"site{jobs}"), "--jobs",
                   str(jobs), "--quiet"], env)
        print(f"cold build --jobs {jobs}: {t:.1f} s", flush=True)
    lab = bank / "lab.toml"
    lab.write_text(lab.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # no change yet
    text = lab.read_text(encoding="utf-8")
    first = text.index("title = ")
    lab.write_text(text[:first] + "title = \"edited\"\n" + text[text.index("\n", first) + 1:],
                   encoding="utf-8")
    t = timed([*DERIVE, "build", str(bank), "-o", str(work / "site2"), "--quiet"], env)
    print(f"warm build after editing one exercise (--jobs 2): {t:.1f} s", flush=True)
    t = timed([*DERIVE, "build", str(bank), "-o", str(work / "site2"), "--quiet"], env)
    print(f"warm build, nothing edited: {t:.1f} s", flush=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"peak memory of one process (build or worker): {peak:.0f} MB", flush=True)

    nocache = {**env, "DERIVE_NO_CACHE": "1"}
    out = work / "out"
    out.mkdir()
    files = [str(f) for f in sorted(bank.glob("*.toml"))]
    commands = [[*DERIVE, "check", str(bank)]]
    for lang in ("en", "zh"):
        commands += [[*DERIVE, "key", str(bank), "--format", fmt, "--lang", lang,
                      "-o", str(out / f"key.{lang}.{fmt}")] for fmt in ("md", "tex")]
        commands += [[*DERIVE, "export", str(bank), "--format", "md", "--lang", lang,
                      "-o", str(out / f"export.{lang}.md")],
                     [*DERIVE, "export", str(bank), "--questions", "--format", "md",
                      "--lang", lang, "-o", str(out / f"questions.{lang}.md")]]
        commands += [[*DERIVE, "export", f, "--format", "html", "--lang", lang,
                      "-o", str(out / f"{Path(f).stem}.{lang}.html")] for f in files]
    total = 0.0
    for argv in commands:
        total += timed(argv, nocache)
    print(f"separate commands ({len(commands)}: check; key md/tex, export md, --questions, "
          f"a page per file; en and zh): {total:.1f} s", flush=True)
    shutil.rmtree(work / "cache", ignore_errors=True)
    shared = 0.0
    for argv in commands:  # the same commands sharing the cache (check's reports reused)
        shared += timed(argv, env)
    print(f"the same commands sharing one cache (cold at the start): {shared:.1f} s",
          flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
