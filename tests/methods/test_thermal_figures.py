"""The thermal figures a reader compares with each other (QA): the data written before throttling
summed from the per-second series, a never-throttled phase's figure as the lower bound it is (in
the tables, `compare` and rankings), and a summary that gives the verdict and its key figure."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from ssdlab.analysis.throttle import DEFAULT_CONFIG
from ssdlab.bundle import RunRecord, TestRecord
from ssdlab.compare import TestComparison, metric_rows
from ssdlab.measurement import Measurement, OpTotals, Series
from ssdlab.methods import get_test
from ssdlab.methods.thermal import phase_metrics, phase_specs, throttling_verdict
from ssdlab.report.compare_page import ranked_metrics, row_cells
from ssdlab.report.summary import summary_findings
from ssdlab.targets.base import TargetInfo
from ssdlab.workload import Workload

TARGET = TargetInfo(spec="sim:x", kind="sim", model="Test drive", capacity_bytes=512 * 10**9, transport="nvme")


def measurement(rates: list[float], last_s: float = 1.0) -> Measurement:
    """A sequential write whose per-second MB/s is `rates`; its last period lasts `last_s`."""
    n = len(rates)
    ends = (*(float(i + 1) for i in range(n - 1)), n - 1 + last_s)
    moved = (*(r * 1e6 for r in rates[:-1]), rates[-1] * 1e6 * last_s)
    series = Series(period_s=1.0, t_s=ends, read_ios=(0.0,) * n, write_ios=(1.0,) * n, read_bytes=(0.0,) * n,
                    write_bytes=moved, read_lat_sum_ns=(0.0,) * n, write_lat_sum_ns=(0.0,) * n)
    w = Workload(name="seq", pattern="write", block_size_bytes=131072, runtime_s=n)
    return Measurement(workload=w, engine="x", runtime_s=ends[-1], series=series,
                       write=OpTotals(ios=n, bytes=int(sum(moved)), lat_sum_ns=0.0))


GB_SPEC = next(s for s in phase_specs("seq") if s.name == "seq_gb_at_peak")


def test_written_before_throttling_is_every_second_up_to_the_time_to_throttle() -> None:
    """QA: 'written at peak before throttling' was the peak level's seconds x its mean rate, not the
    data written up to the time to throttle. A ramp-up (400, then 600 MB/s) before the peak (800)
    is written before throttling too."""
    rates = [400.0] * 10 + [600.0] * 20 + [800.0] * 15 + [500.0] * 30
    m = phase_metrics("seq", measurement(rates), DEFAULT_CONFIG)
    assert m["seq_peak_mb_s"] == 800.0 and m["seq_time_to_throttle_s"] == 45.0
    assert m["seq_gb_at_peak"] == pytest.approx((400 * 10 + 600 * 20 + 800 * 15) / 1e3)
    assert not GB_SPEC.is_bound(m)
    assert GB_SPEC.label == "Sequential write: written before the first slowdown"


def test_a_phase_that_never_throttled_gives_all_it_wrote_as_a_lower_bound() -> None:
    """QA: a drive that never throttled reported its whole run as 'written at peak' (749.99 GB), a
    value. It is the bytes written (here a last period of half a second), and only a lower bound."""
    rates = [500.0] * 60
    m = phase_metrics("seq", measurement(rates, last_s=0.5), DEFAULT_CONFIG)
    assert m["seq_time_to_throttle_s"] is None
    assert m["seq_gb_at_peak"] == pytest.approx((500 * 59 + 500 * 0.5) / 1e3)
    assert GB_SPEC.is_bound(m) and GB_SPEC.exact(m) is None
    assert GB_SPEC.bound_text("29.75") == "≥ 29.75 (never throttled)"


def record(metrics: Mapping[str, float | str | None]) -> TestRecord:
    return TestRecord(name="thermal", test="thermal", params={}, status="complete", metrics=dict(metrics))


# Stored as a bundle written before this change stores them: 749.99 GB over a run that never throttled.
THROTTLED = {"seq_time_to_throttle_s": 87.0, "seq_gb_at_peak": 111.04}
NEVER = {"seq_time_to_throttle_s": None, "seq_gb_at_peak": 749.99}


def gb_row(*records: TestRecord) -> tuple[str, ...]:
    specs = get_test("thermal").metric_specs(get_test("thermal").parse_params({}), TARGET)
    row = next(r for r in metric_rows(records, specs) if r.name == "seq_gb_at_peak")
    return row_cells(row, (True,) * len(records))


def test_compare_gives_no_difference_from_a_lower_bound() -> None:
    """QA: `compare` turned 749.99 GB 'at peak' of a never-throttled run into '+575.4 %' against
    111.04 GB of one that throttled. Bundles written before this change load alike."""
    assert gb_row(record(THROTTLED), record(NEVER)) == (
        "Sequential write: written before the first slowdown (GB)", "111.04", "≥ 749.99 (never throttled)",
        "never throttled")
    assert gb_row(record(NEVER), record(THROTTLED))[-1] == "baseline never throttled"
    assert gb_row(record(NEVER), record(NEVER))[-1] == "both never throttled"
    assert gb_row(record(THROTTLED), record({**THROTTLED, "seq_gb_at_peak": 222.08}))[-1] == "+100.0 % better"


def test_rankings_leave_a_lower_bound_out() -> None:
    specs = get_test("thermal").metric_specs(get_test("thermal").parse_params({}), TARGET)
    rows = metric_rows([record(THROTTLED), record(NEVER), record({**THROTTLED, "seq_gb_at_peak": 90.0})], specs)
    t = TestComparison(name="thermal", test="thermal", present=(True,) * 3, params={}, differences=(), rows=rows)
    gb = next(m for m in ranked_metrics(t) if m.spec.name == "seq_gb_at_peak")
    assert gb.values == (111.04, None, 90.0)
    # Not as a value, but as the bound it is: at least 749.99 where the others wrote less, it ranks first.
    assert gb.placed == (111.04, 749.99, 90.0) and gb.text(1) == "≥ 749.99 (never throttled)"


def test_the_verdict_gives_when_each_phase_slowed_and_the_summary_is_the_verdict() -> None:
    """QA: the summary cell repeated every phase figure in one parenthesis; the verdict with its key
    figure is what it gives (the figures are in the section)."""
    gc: dict[str, float | str | None] = {
        "seq_cause": "gc-cache", "rnd_cause": "gc-cache", "seq_time_to_throttle_s": 5.0,
        "rnd_time_to_throttle_s": 380.0, "seq_peak_mb_s": 525.0, "seq_throttled_mb_s": 269.7}
    verdict = throttling_verdict(gc)
    assert verdict.summary == ("No thermal throttling (garbage collection / cache: sequential write slowed after 5 s; "
                               "random write after 380 s)")
    assert throttling_verdict({**gc, "seq_cause": "none", "seq_time_to_throttle_s": None}).summary == (
        "No thermal throttling (garbage collection / cache: random write slowed after 380 s)")
    assert throttling_verdict({"seq_cause": "none", "rnd_cause": "none"}).summary == "No thermal throttling"
    assert throttling_verdict({**gc, "rnd_cause": "unknown"}).summary == (
        "Slows down, cause not known (sequential write slowed after 5 s; random write after 380 s)")
    run = RunRecord(ssdlab_version="t", created_utc="2024-01-01T00:00:00Z", updated_utc="2024-01-01T00:00:00Z",
                    status="complete", target=TARGET, engine="sim",
                    tests=(record(gc).model_copy(update={"verdicts": (verdict,)}),))
    finding = next(f for f in summary_findings(run) if f.key == "throttling")
    assert finding.text == verdict.summary and finding.outcome == "no"


def test_a_slowdown_that_is_not_heat_gives_its_share_of_the_time() -> None:
    """QA: "No thermal throttling (garbage collection / cache: random write slowed after 18 s)" of a
    phase held back 85 % of its time; the summary is to give the share throttled, by cause."""
    gc: dict[str, float | str | None] = {
        "seq_cause": "none", "rnd_cause": "gc-cache", "seq_time_to_throttle_s": None, "rnd_time_to_throttle_s": 18.0,
        "rnd_throttled_share_pct": 85.0, "seq_throttled_share_pct": 0.0}
    assert throttling_verdict(gc).summary == (
        "No thermal throttling (garbage collection / cache: random write slowed after 18 s, 85.0 % of its time)")
    both = {**gc, "seq_cause": "unknown", "seq_time_to_throttle_s": 5.0, "seq_throttled_share_pct": 12.0}
    assert throttling_verdict(both).summary == (
        "Slows down, cause not known (sequential write slowed after 5 s, 12.0 % of its time; random write after 18 s, "
        "85.0 % of its time)")
