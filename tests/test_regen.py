"""`make regen` (tests/update_docs.py): a rewritten session keeps its documented timings on
the lines where only timings differ."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "update_docs", Path(__file__).resolve().parent / "update_docs.py")
update_docs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(update_docs)


def test_only_the_changed_lines_are_rewritten():
    old = ["$ derive prove a b",
           "a   proved   1.23s  one step",
           "b   proved   0.40s  two steps",
           "2 statements"]
    new = ["$ derive prove a b",
           "a   proved   1.87s  one step",
           "b   refuted   0.52s  two steps",
           "2 statements",
           '{"seconds": 0.91}']
    assert update_docs.kept_timings(old, new) == [
        "$ derive prove a b",
        "a   proved   1.23s  one step",
        "b   refuted   0.52s  two steps",
        "2 statements",
        '{"seconds": 0.91}']


def test_json_seconds_are_kept():
    old = ['  "seconds": 0.12,', '  "verdict": "proved"']
    new = ['  "seconds": 0.34,', '  "verdict": "refuted"']
    assert update_docs.kept_timings(old, new) == ['  "seconds": 0.12,', '  "verdict": "refuted"']
