"""The quick section's caption says how the latency shown was taken from the runs, as the method
took it: under aggregate=mean the mean of the runs' mean latencies, not 'the lowest mean'."""

from __future__ import annotations

from pathlib import Path
from statistics import fmean

import pytest
from report_bundles import make_bundle

from ssdlab.bundle import Bundle
from ssdlab.report.sections import build_section
from ssdlab.suites import SuiteEntry


def quick_bundle(tmp_path: Path, aggregate: str) -> Bundle:
    entry = SuiteEntry(name="quick", test="quick", params={"runs": 3, "runtime_s": 1, "aggregate": aggregate})
    return Bundle(make_bundle(tmp_path / aggregate, (entry,)))


def test_under_mean_the_caption_says_the_latency_is_the_mean_of_the_runs(tmp_path: Path) -> None:
    """QA (stop 47): `quick -p aggregate=mean` captioned its table "Shown: the mean of the runs
    (latency: the lowest mean)", where each latency is the mean of the runs' mean latencies."""
    bundle = quick_bundle(tmp_path, "mean")
    record = bundle.load_run().test("quick")
    measured = bundle.measurements(record)
    runs = [m for name, m in measured.items() if name.startswith("rnd4k_q1t1-read-r")]
    assert len(runs) == 3
    assert record.metrics["rnd4k_q1t1_read_lat_us"] == pytest.approx(fmean(m.mean_lat_us() for m in runs))
    caption = build_section(bundle, record).caption
    assert "Shown: the mean of the runs (latency: the mean of the runs' means)" in caption, caption
    assert "lowest" not in caption


def test_under_best_the_caption_says_the_lowest_mean(tmp_path: Path) -> None:
    bundle = quick_bundle(tmp_path, "best")
    caption = build_section(bundle, bundle.load_run().test("quick")).caption
    assert "Shown: the best run (latency: the lowest mean)" in caption, caption
