"""Hostile inputs against the `derive` command line, each in a child process under
RLIMIT_AS = 2 GiB and a wall-clock limit (the case table and the runner are
tests/hostile_cases.py; the files they use are in tests/hostile/).

A case fails on a Python traceback, a hang, memory or time beyond its bound, a wrong exit code,
more than one line on stderr for exit 2 or 130 (or a line of 300 characters or more), a Python
repr or a control character on stderr, or unsafe output (a file replaced or half-written, author
text that runs as LaTeX or HTML).

The slow cases (the full-size time attacks, which run up to the time bound) are skipped unless
DERIVE_SLOW=1. `benchmarks/hostile.py` runs them all and prints times and peak memory.

Which derive runs: DERIVE_PYTHON (default .venv/bin/python) with DERIVE_PYTHONPATH in front of
its path (default: none, the installed derive).
"""

from __future__ import annotations

import os

import hostile_cases as hc
import pytest

SLOW = os.environ.get("DERIVE_SLOW") == "1"


TARGET = hc.Target()


def _param(c: hc.Case):
    marks = [pytest.mark.slow,
             pytest.mark.skipif(not SLOW, reason="slow: set DERIVE_SLOW=1")] if c.slow else []
    return pytest.param(c, id=c.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in hc.by_id().values()])
def test_hostile(case: hc.Case, tmp_path):
    try:
        run, res, problems = hc.run_case(case, tmp_path, TARGET)
    except hc.Skip as exc:
        pytest.skip(str(exc))
    if problems:
        tail = "\n".join(res.err.splitlines()[-3:])
        lines = [f"{case.id} ({case.klass}): {case.note}",
                 f"  derive {' '.join(run.argv)}" if run.module == "derive"
                 else f"  python -m {run.module} {' '.join(run.argv)}",
                 f"  {hc.describe_rc(res.rc)} in {res.seconds:.2f}s, peak {res.peak_mib:.0f} MiB",
                 *(f"  [{tag}] {text}" for tag, text in problems),
                 "  stderr (last lines):", *("    " + ln for ln in tail.splitlines())]
        pytest.fail("\n".join(lines), pytrace=False)


def test_case_table_is_consistent():
    """Ids unique; every class known; static files small (the folder stays under 200 KB)."""
    cases = hc.by_id()
    assert {c.klass for c in cases.values()} <= {"memory", "time", "traceback", "output",
                                                 "untrusted", "silent"}
    total = sum(p.stat().st_size for p in hc.STATIC.rglob("*") if p.is_file())
    assert total < 200_000, f"tests/hostile/ holds {total} bytes"
