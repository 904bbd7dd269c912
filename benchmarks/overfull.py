"""Lines that leave the text block: every LaTeX export the tests build (tests/layout_cases.py:
the course as tests/test_export.py compiles it, `derive export FILE --standalone` for every
exercise file under proofs/course/ and tests/data/, `derive key proofs/course --format tex`, and
`derive export ID --standalone` for every statement), in English (pdfLaTeX) and Chinese
(XeLaTeX), each compiled once; per document the number of "Overfull \\hbox" warnings of its log
and the worst overflow in pt, then the totals.

    python benchmarks/overfull.py                 # every export, 2 at a time
    python benchmarks/overfull.py --only key --details
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import layout_cases as lc  # noqa: E402 (after the path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", action="append", default=[],
                    help="only exports whose name contains this (repeatable)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="engines run at once (default: the CPUs)")
    ap.add_argument("--details", action="store_true",
                    help="also print every overfull line: its width and what TeX shows of it")
    args = ap.parse_args(argv)

    import derive

    chosen = [e for e in lc.exports() if not args.only or any(o in e.name for o in args.only)]
    start = time.monotonic()
    sources = [(e, e.source()) for e in chosen]  # in this thread: SymPy and the CLI run here
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda es: lc.compile_export(*es), sources))
    seconds = time.monotonic() - start

    print(f"# derive overfull-box benchmark, {datetime.datetime.now():%Y-%m-%d %H:%M:%S}")
    print(f"# derive: {derive.__file__}")
    print(f"# machine: {platform.platform()}, {os.cpu_count()} CPUs; {seconds:.0f} s")
    print("# count: 'Overfull \\hbox' warnings in the log; worst: the largest overflow in pt")
    print()
    width = max(len(r.name) for r in results)
    print(f"{'document':<{width}}  {'count':>5}  {'worst pt':>8}  compiles")
    print("-" * (width + 28))
    for r in results:
        print(f"{r.name:<{width}}  {len(r.overfull):>5}  {r.worst:>8.1f}  "
              f"{'yes' if r.ok else 'NO: ' + r.error}")
    print("-" * (width + 28))
    total = sum(len(r.overfull) for r in results)
    worst = max((r.worst for r in results), default=0.0)
    over1 = sum(1 for r in results for o in r.overfull if o.pt > 1)
    bad = sum(1 for r in results if r.overfull)
    print(f"{'total':<{width}}  {total:>5}  {worst:>8.1f}")
    print(f"# {len(results)} documents, {bad} with an overfull line; {over1} overflows over 1 pt;"
          f" {sum(not r.ok for r in results)} failed to compile")
    for lang in lc.LANGS:
        mine = [r for r in results if r.name.endswith(f"[{lang}]")]
        print(f"# {lang} ({lc.ENGINE[lang]}): {sum(len(r.overfull) for r in mine)} overfull, "
              f"worst {max((r.worst for r in mine), default=0.0):.1f} pt")
    if args.details:
        print()
        for r in results:
            for o in r.overfull:
                print(f"{r.name}: {o.pt:.1f} pt {o.where}\n    source: {o.line[:160]}\n"
                      f"    box: {o.shown[:160]}")
    return 0 if all(r.ok for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
