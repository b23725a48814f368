"""A ranking against a big results library does work in proportion to its drives, not their square.

QA (scale): ranking a run against a library of 300 runs (150 comparable drives) read every drive's
value once for each drive's placed_bound, 10,200 scans of 150 values in one report; with a few
thousand drives that is minutes. The figures are unchanged; this counts the work.
"""

from __future__ import annotations

from typing import Any

import pytest

from ssdlab.methods.metrics import LowerBound, MetricSpec
from ssdlab.report import rankings
from ssdlab.report.rankings import RankedMetric, bound_notes, ranked_rows

SPEC = MetricSpec("seq_gb_at_peak", "Sequential write: written before the first slowdown", "GB", better="higher",
                  lower_bound=LowerBound("seq_time_to_throttle_s", "never throttled"))
DRIVES = 2000


def test_placing_every_drive_reads_each_value_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    real = rankings.is_number

    def counted(value: Any) -> bool:
        calls[0] += 1
        return real(value)

    monkeypatch.setattr(rankings, "is_number", counted)
    # One drive with only a bound above every measured one, one with a bound below: both kinds said.
    values = (None, None, *(float(100 + i % 37) for i in range(DRIVES - 2)))
    bounds = (500.0, 50.0, *(None,) * (DRIVES - 2))
    metric = RankedMetric(SPEC, values, bounds)
    drives = [f"drive {i}" for i in range(DRIVES)]
    placed = metric.placed
    rows = ranked_rows(drives, 0, [metric])
    notes = bound_notes(drives, [metric])
    assert calls[0] <= 40 * DRIVES  # it was over DRIVES² (4,000,000) for `placed` alone
    assert placed[0] == 500.0 and placed[1] is None and placed[2:] == values[2:]
    assert len(rows) == DRIVES - 1 and rows[0]["text"].startswith("≥")
    assert len(notes) == 2 and "drive 1 left out" in notes[1]


def test_the_highest_measured_value_is_the_one_a_bound_must_reach() -> None:
    metric = RankedMetric(SPEC, (None, 87.21, 176.67, None), (176.67, None, None, 176.66))
    assert metric.top_measured == 176.67
    assert metric.placed_bound(0) and not metric.placed_bound(3) and not metric.placed_bound(1)
    assert RankedMetric(SPEC, (None,), (1.0,)).top_measured is None
    assert not RankedMetric(SPEC, (None,), (1.0,)).placed_bound(0)
