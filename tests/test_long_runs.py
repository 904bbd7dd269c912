"""Long runs (issue 33): the cost of a recurrence grows with its steps, not faster.

Every value of 1000 amsgrad steps is compared (max(v_max, v)) and printed by certified
enclosures, and step k+1 is enclosed from step k's cached enclosures. The enclosures were
cached at every precision tried from the lowest up, until the cache overflowed and was emptied:
then every later comparison enclosed the whole chain again (1000 steps: past the 30 s bound).
Counted here in enclosures computed, never in seconds."""

from __future__ import annotations

from pathlib import Path

from derive.exercises import check_exercise, load
from derive.kernel import intervals

ROOT = Path(__file__).resolve().parents[1]
AMSGRAD = (ROOT / "tests" / "hostile" / "adam1000-amsgrad.toml").read_text(encoding="utf-8")


def _enclosed(tmp_path, monkeypatch, steps: int, cache: int) -> tuple[int, str]:
    """(enclosures computed, the answer key's text) of `steps` amsgrad steps, with a cache of
    `cache` entries."""
    path = tmp_path / f"amsgrad{steps}-{cache}.toml"
    path.write_text(AMSGRAD.replace("steps = 1000", f"steps = {steps}"), encoding="utf-8")
    count = [0]
    keep = intervals._keep

    def counted(e, bits, iv):
        count[0] += 1
        keep(e, bits, iv)

    with monkeypatch.context() as m:
        m.setattr(intervals, "_keep", counted)
        m.setattr(intervals, "_CACHE_SIZE", cache)
        (ex,) = load([str(path)])
        report = check_exercise(ex, 600)
    assert report.undecided == ""
    return count[0], repr([c.status for c in report.claims])


def test_a_recurrence_is_enclosed_once_at_the_precision_it_needs(tmp_path, monkeypatch):
    """100 steps with a cache of 8,000 entries, smaller than the chain's nodes at every
    precision from 64 bits up but larger than at one: the enclosures computed are about those
    of an unbounded cache (before: 388,181 against 13,882), and the claims' results are the
    same."""
    roomy, report = _enclosed(tmp_path, monkeypatch, 100, 10**7)
    tight, same = _enclosed(tmp_path, monkeypatch, 100, 8_000)
    assert same == report
    assert tight <= roomy * 1.5, (tight, roomy)
