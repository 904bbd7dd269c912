"""Structure-aware fuzzing (tests/fuzz.py): mutated valid files through check, key, export and
variants never crash, hang or say more than one line. A small sample by default;
`DERIVE_FUZZ=10000` for ten thousand files (benchmarks/fuzz.py reports the counts)."""

from __future__ import annotations

import os
import random

from fuzz import mutate, run_all
from hypothesis import given, settings
from hypothesis import strategies as st

FILES = int(os.environ.get("DERIVE_FUZZ", "0") or 0) or 30


@settings(max_examples=FILES, deadline=None)
@given(st.integers(0, 2**32))
def test_mutated_files_are_handled(tmp_path_factory, seed):
    text, how = mutate(random.Random(seed))
    path = tmp_path_factory.mktemp("fuzz") / "ex.toml"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    for result in run_all(path, seconds=120):
        assert not result.problems(), (how, result.command, result.code, result.stderr, text)
