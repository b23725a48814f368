"""`thermal` on the simulator: the SM951 (AHCI) throttles from heat without a heatsink and not
with one; the verdict, the report section and `compare` between the two bundles."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.analysis.throttle import DEFAULT_CONFIG
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.compare import compare_bundles
from ssdlab.engines.sim import SimEngine
from ssdlab.measurement import Measurement, OpTotals, Series
from ssdlab.methods import get_test
from ssdlab.methods.thermal import phase_metrics, phase_specs, throttling_verdict
from ssdlab.report import render_report
from ssdlab.report.compare_page import render_comparison
from ssdlab.report.sections import build_section
from ssdlab.runner import run_entries
from ssdlab.steps import Idle, Purge
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.workload import Workload

# Long enough for the bare drive to reach its first throttle threshold (about two minutes of sequential
# writes, the review's figure its thermal.tau_s is fitted to) and stay throttled a while after.
SHORT = {"seq_runtime_s": 200, "rnd_runtime_s": 10, "cooldown_s": 60}
BARE, HEATSINK = "sim:sm951-ahci-512", "sim:sm951-ahci-512?heatsink=1"


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("thermal")
    out = {}
    for key, spec in (("bare", BARE), ("heatsink", HEATSINK)):
        entry = SuiteEntry(name="thermal", test="thermal", params=SHORT)
        run_entries(root / key, parse_target(spec), SimEngine(), [entry])
        out[key] = root / key
    return out


def _record(path: Path) -> TestRecord:
    return Bundle(path).load_run().test("thermal")


def test_plan_cools_down_before_each_phase() -> None:
    test = get_test("thermal")
    plan = test.plan(test.parse_params({"cooldown_s": 120}), parse_target(BARE).info())
    # QA: one purge before both phases left the random phase a drive the sequential one had filled
    # ~1.7 times over, so it measured garbage collection of the sequential phase's data.
    assert [a.name for a in plan.actions] == ["purge-seq", "cooldown-seq", "thermal-seq",
                                              "purge-rnd", "cooldown-rnd", "thermal-rnd"]
    assert isinstance(plan.actions[0], Purge) and isinstance(plan.actions[1], Idle)
    assert isinstance(plan.actions[3], Purge)
    seq, rnd = (m.workload for m in plan.measures())
    assert (seq.pattern, seq.block_size_bytes, seq.iodepth) == ("write", 128 * 1024, 32)
    assert (rnd.pattern, rnd.block_size_bytes) == ("randwrite", 4096)
    bare = test.plan(test.parse_params({"cooldown_s": None, "purge": False, "budget_bytes": "10g"}),
                     parse_target(BARE).info())
    assert [a.name for a in bare.actions] == ["thermal-seq", "thermal-rnd"]
    assert bare.measures()[0].workload.size_bytes == 10 * 1024**3


def test_bare_drive_throttles_from_heat(bundles: dict[str, Path]) -> None:
    record = _record(bundles["bare"])
    m = record.metrics
    assert m["seq_cause"] == "thermal"
    # AnandTech: bare, it "can sustain peak throughput for about two minutes" (sm951-ahci-512.toml, tau_s)
    assert isinstance(m["seq_time_to_throttle_s"], float) and 100 < m["seq_time_to_throttle_s"] < 140
    assert isinstance(m["seq_throttled_mb_s"], float) and isinstance(m["seq_peak_mb_s"], float)
    assert m["seq_throttled_mb_s"] < 0.8 * m["seq_peak_mb_s"]
    assert isinstance(m["seq_gb_at_peak"], float) and m["seq_gb_at_peak"] > 10
    assert isinstance(m["seq_max_temp_c"], float) and m["seq_max_temp_c"] >= 70  # the first threshold
    verdict = next(v for v in record.verdicts if v.key == "throttling")
    assert verdict.outcome == "yes" and "heat" in verdict.summary


def test_heatsink_removes_the_throttling(bundles: dict[str, Path]) -> None:
    record = _record(bundles["heatsink"])
    assert record.metrics["seq_cause"] == "none" and record.metrics["seq_throttled_share_pct"] == 0.0
    assert record.metrics["seq_time_to_throttle_s"] is None
    verdict = next(v for v in record.verdicts if v.key == "throttling")
    # Its 10-s random phase held its peak throughout, too briefly to rule out heat (NO_VERDICT_MIN_S): no "no".
    assert verdict.outcome == "inconclusive" and "random write phase was too short" in verdict.summary


def test_compare_gives_difference_pct_per_metric(bundles: dict[str, Path], tmp_path: Path) -> None:
    comparison = compare_bundles([bundles["bare"], bundles["heatsink"]])
    rows = {r.name: r for r in comparison.tests[0].rows}
    mean = rows["seq_mean_mb_s"]
    assert mean.difference_unit == "%"
    assert mean.differences[0] is not None and mean.differences[0] > 5  # the heatsink writes faster on average
    assert rows["seq_cause"].differences == (None,)  # a verdict, not a figure
    files = render_comparison(comparison, tmp_path / "compare.html")
    assert "Difference %" in files.html.read_text()


def test_section_draws_rate_and_temperature_with_levels(bundles: dict[str, Path]) -> None:
    bundle = Bundle(bundles["bare"])
    section = build_section(bundle, _record(bundles["bare"]))
    assert [f.key for f in section.figures] == ["thermal-seq", "thermal-rnd"]
    spec = section.figures[0].chart.to_dict()
    text = str(spec)
    assert "temperature °C" in text and "write MB/s" in text and "throttled 1" in text
    assert any("thermal throttling" in n and "indicator was on" in n for n in section.notes)
    assert render_report(bundles["bare"]).html.is_file()


def test_verdict_without_a_phase_is_inconclusive() -> None:
    verdict = throttling_verdict({"seq_cause": "none"})
    assert verdict.outcome == "inconclusive"
    unknown = throttling_verdict({"seq_cause": "unknown", "rnd_cause": "none", "seq_peak_mb_s": 1500.0})
    assert unknown.outcome == "inconclusive" and "separates heat" in unknown.because
    gc = throttling_verdict({"seq_cause": "gc-cache", "rnd_cause": "none"})
    assert gc.outcome == "no" and "garbage collection" in gc.because


def _measurement(rates: list[float]) -> Measurement:
    """A sequential-write measurement whose per-second MB/s is `rates`."""
    n = len(rates)
    series = Series(period_s=1.0, t_s=tuple(float(i + 1) for i in range(n)), read_ios=(0.0,) * n,
                    write_ios=(1.0,) * n, read_bytes=(0.0,) * n, write_bytes=tuple(r * 1e6 for r in rates),
                    read_lat_sum_ns=(0.0,) * n, write_lat_sum_ns=(0.0,) * n)
    w = Workload(name="seq", pattern="write", block_size_bytes=131072, runtime_s=n)
    return Measurement(workload=w, engine="x", runtime_s=float(n), series=series,
                       write=OpTotals(ios=n, bytes=int(sum(rates) * 1e6), lat_sum_ns=0.0))


def test_no_written_at_peak_without_a_peak_level() -> None:
    """QA: 'peak level —' sat beside 'written at peak before throttling 2.81 GB' when no level
    lasted long enough to be the peak; there is then no 'at peak' to report. A level holds for
    min_segment_s (3 s): a 2-s phase has none."""
    metrics = phase_metrics("seq", _measurement([520.0, 300.0]), DEFAULT_CONFIG)
    assert metrics["seq_peak_mb_s"] is None and metrics["seq_gb_at_peak"] is None
    # A 6-s phase alternating 520 / 280 holds its mean as its one level: peak and GB agree.
    metrics = phase_metrics("seq", _measurement([520.0, 300.0, 520.0, 280.0, 510.0, 270.0]), DEFAULT_CONFIG)
    assert metrics["seq_peak_mb_s"] == pytest.approx(400.0)
    assert metrics["seq_gb_at_peak"] == pytest.approx(400.0 * 6 / 1e3)


def _check_figures(m: Mapping[str, object], rates: list[float]) -> None:
    """The figures of one phase agree with each other and with its per-second MB/s `rates` (QA's invariants)."""
    peak, share, when, gb = m["seq_peak_mb_s"], m["seq_throttled_share_pct"], m["seq_time_to_throttle_s"], \
        m["seq_gb_at_peak"]
    slowest, levels = m["seq_throttled_mb_s"], m["seq_throttled_levels"]
    if peak is None:  # too short for a level: neither throttled nor not, no cause
        assert share is None and when is None and gb is None and m["seq_cause"] is None
        assert isinstance(m["seq_mean_mb_s"], float)
        return
    assert isinstance(share, float)
    throttled = share > 0
    assert (when is not None) == throttled == (slowest is not None) == (levels != "none")
    # Heat throttling exactly when the cause is heat, never before the time to throttle.
    heat, cause = m["seq_time_to_heat_throttle_s"], m["seq_cause"]
    assert (heat is not None) == (cause == "thermal") and (cause == "none") == (not throttled)
    assert heat is None or (isinstance(heat, float) and isinstance(when, float) and heat >= when)
    assert isinstance(peak, float) and isinstance(gb, float)
    if throttled:
        assert isinstance(slowest, float) and isinstance(when, float) and slowest < peak
    # Written before throttling: every second's data up to the time to throttle (all of it, a lower bound,
    # when it never throttled).
    upto = int(when) if isinstance(when, float) else len(rates)
    assert gb == pytest.approx(sum(rates[:upto]) / 1e3)
    spec = next(s for s in phase_specs("seq") if s.name == "seq_gb_at_peak")
    assert spec.is_bound(m) == (not throttled)


def test_a_short_fast_start_gives_figures_that_agree() -> None:
    """QA, intel750-400 at 16 GiB, random phase: peak 169.8 beside a mean of 189.3, time to throttle
    4 s with 'throttled levels: none', 3.50 GB 'at peak' in 4 s. The fast start is the peak."""
    rates = [952.0] * 3 + [644.0, 178.0, 146.0] + [130.0] * 10 + [147.0] * 4 + [170.0] * 100
    m = phase_metrics("seq", _measurement(rates), DEFAULT_CONFIG)
    assert m["seq_peak_mb_s"] == pytest.approx(952.0)
    assert isinstance(m["seq_mean_mb_s"], float) and m["seq_mean_mb_s"] <= 952.0
    assert m["seq_time_to_throttle_s"] == 3.0
    assert m["seq_gb_at_peak"] == pytest.approx(952.0 * 3 / 1e3)
    assert m["seq_throttled_levels"] == "170, 147, 130" and m["seq_throttled_mb_s"] == pytest.approx(130.0)
    assert m["seq_throttled_share_pct"] == pytest.approx(100 * 117 / 120)
    _check_figures(m, rates)


def test_a_stall_is_the_slowest_throttled_level() -> None:
    """QA, 840evo-250 at 16 GiB: 273 MB/s for 4 s then 0 MB/s for 6 s, yet cause 'none'."""
    rates = [273.0] * 4 + [74.0] + [0.0] * 6 + [25.0, 5.0, 40.0, 18.0, 33.0, 9.0, 30.0, 21.0] * 12
    m = phase_metrics("seq", _measurement(rates), DEFAULT_CONFIG)
    assert m["seq_peak_mb_s"] == pytest.approx(273.0) and m["seq_time_to_throttle_s"] == 4.0
    assert m["seq_throttled_mb_s"] == 0.0 and str(m["seq_throttled_levels"]).endswith(", 0")
    assert m["seq_cause"] != "none"
    _check_figures(m, rates)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.floats(min_value=0, max_value=3000, allow_nan=False),
                          st.integers(min_value=1, max_value=30)), min_size=1, max_size=6))
def test_phase_figures_agree_for_any_piecewise_constant_run(parts: list[tuple[float, int]]) -> None:
    rates = [rate for rate, n in parts for _ in range(n)]
    _check_figures(phase_metrics("seq", _measurement(rates), DEFAULT_CONFIG), rates)
