"""The self-check pages against `derive check`, in full: thousands of generated answers typed
into every page (course, examples, bank24, heldout24 in English; a sample in Chinese and with
--variants 2), each compared with derive check on the same claims (tests/page_differential.py).

    .venv/bin/python benchmarks/page_differential.py [--per-exercise N] [--seed S] [--chromium]

Prints per page and per category: answers, disagreements (names / silent / verdict); the
slowest single judgement in QuickJS (and, with --chromium, in Chromium for a sample); up to 20
disagreements with the answers typed, the page's result and derive's diagnosis.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import page_differential as pd  # noqa: E402


def specs() -> list[pd.PageSpec]:
    en = [pd.PageSpec(p) for p in pd.COURSE + pd.EXAMPLES + pd.BANK24 + pd.HELDOUT24]
    zh = [pd.PageSpec(p, "zh") for p in (pd.COURSE[2], pd.BANK24[0], pd.HELDOUT24[0])]
    variants = [pd.PageSpec(p, variants=2) for p in (pd.ROOT / "proofs" / "course" /
                                                    "variants.toml", pd.COURSE[2])]
    return en + zh + variants


def chromium_timing(pages: list[pd.Page], answers: int = 200) -> tuple[float, str]:
    """The slowest classify() in Chromium (performance.now around it) over a sample."""
    sys.path.insert(0, str(ROOT / "tests"))
    from browser import launch, open_page

    worst = (0.0, "")
    gen = launch()
    browser = next(gen)
    try:
        for page in pages:
            with open_page(browser, page.html) as opened:
                rng = pd.random.Random(page.spec.label)
                for pe in page.exercises[:3]:
                    for _ in range(max(1, answers // (3 * len(pages)))):
                        texts = [t for _, t in pd.sequence(pe, None, rng)]
                        ms = opened.page.evaluate(
                            """([qs, texts, words]) => {
                                const typed = {}; let worst = 0;
                                qs.forEach(([key, Q], i) => {
                                  typed[key] = undefined;
                                  const t0 = performance.now();
                                  const r = DeriveCheck.classify(texts[i], Q, typed, words);
                                  worst = Math.max(worst, performance.now() - t0);
                                  typed[key] = r.values;
                                });
                                return worst; }""",
                            [pe.questions, texts, page.words])
                        if ms > worst[0]:
                            worst = (ms, page.spec.label)
    finally:
        with pd.contextlib.suppress(StopIteration):
            next(gen)
    return worst


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-exercise", type=int, default=40,
                    help="answer sequences per exercise of each page (default 40)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chromium", action="store_true", help="also time classify() in Chromium")
    ap.add_argument("--only", default="", help="only pages whose label contains this")
    args = ap.parse_args()
    total = pd.Tally()
    pages = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="page-differential-") as tmp:
        folder = Path(tmp)
        print(f"{'page':58} {'answers':>7} {'names':>6} {'silent':>6} {'verdict':>7}")
        for spec in specs():
            if args.only and args.only not in spec.label:
                continue
            page = pd.load_page(spec, folder)
            if isinstance(page, str):
                print(f"{spec.label:58} not exported: {page[:120]}")
                continue
            pages.append(page)
            t = pd.run_page(page, args.per_exercise, args.seed, folder)
            c = t.counts
            print(f"{spec.label:58} {t.answers:7} {c['names']:6} {c['silent']:6} "
                  f"{c['verdict']:7}", flush=True)
            total.add(t)
        c = total.counts
        print(f"{'total':58} {total.answers:7} {c['names']:6} {c['silent']:6} {c['verdict']:7}")
        print(f"answers with a disagreement: {total.total}; page unsure: {total.unsure}; "
              f"sequences: {total.sequences}; {time.perf_counter() - start:.0f} s")
        print("\nper category (answers, with a disagreement):")
        for cat, (n, bad) in sorted(total.by_category.items()):
            print(f"  {cat:24} {n:6} {bad:6}")
        print(f"\nslowest judgement in QuickJS: {total.slowest[0] * 1000:.1f} ms "
              f"({total.slowest[1]})")
        if args.chromium and pages:
            ms, where = chromium_timing(pages)
            print(f"slowest judgement in Chromium (sample): {ms:.1f} ms ({where})")
        print(f"\nfirst {min(20, len(total.found))} disagreements:")
        # the serious kind first, then one of each page before a second of any
        order = sorted(total.found, key=lambda d: ("names" not in d.kinds, "silent" not in d.kinds))
        seen: dict[str, int] = {}
        shown = []
        for d in order:
            if seen.get(d.page + str(d.kinds), 0) < 2:
                shown.append(d)
                seen[d.page + str(d.kinds)] = seen.get(d.page + str(d.kinds), 0) + 1
            if len(shown) == 20:
                break
        for d in shown:
            print(d.describe())
    return 0 if total.total == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
