"""Throttle analysis on synthetic series: levels, onset, share and cause with its evidence."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.analysis.throttle import (
    Evidence,
    ThrottleAnalysis,
    analyze_throttle,
    change_points,
    cluster_levels,
    segment_series,
)


def noisy(levels: list[tuple[float, int]], noise_pct: float = 2.0, seed: int = 1) -> list[float]:
    rng = random.Random(seed)
    return [rate * (1 + rng.uniform(-noise_pct, noise_pct) / 100) for rate, n in levels for _ in range(n)]


def test_change_points_find_the_steps_of_a_noisy_staircase() -> None:
    rates = noisy([(1500, 60), (1000, 40), (600, 50)])
    cuts = change_points(rates)
    assert len(cuts) == 2
    assert abs(cuts[0] - 60) <= 1 and abs(cuts[1] - 100) <= 1


def test_a_flat_noisy_series_has_no_change_point() -> None:
    assert change_points(noisy([(1500, 300)], noise_pct=5)) == []


def test_oscillating_levels_cluster_into_two() -> None:
    rates = noisy([(1580, 60), *([(1020, 25), (1580, 15)] * 5)])
    segments = [segment for segment, _ in segment_series(rates)]
    labels = cluster_levels(segments, 8.0)
    assert sorted(set(labels)) == [0, 1]
    result = analyze_throttle(rates)
    assert [round(lv.rate, -1) for lv in result.levels] == [1580, 1020]
    assert result.time_to_throttle_s == pytest.approx(60, abs=1)
    assert result.throttled_share_pct == pytest.approx(125 / 260 * 100, abs=2)


def test_heating_and_the_drives_indicator_say_thermal() -> None:
    rates = noisy([(1500, 60), (900, 60)])
    temp = [30 + 0.7 * i for i in range(60)] + [72 + (i % 3) for i in range(60)]
    active = [False] * 60 + [True] * 60
    result = analyze_throttle(rates, evidence=Evidence(temp_c=temp, throttle_active=active))
    assert result.cause == "thermal"
    assert any("indicator was on during 100 %" in e for e in result.evidence)
    assert result.temp_rise_c is not None and result.temp_rise_c > 40


def test_temperature_alone_separates_heat_from_gc() -> None:
    rates = noisy([(1500, 60), (900, 60)])
    heating = [30 + 0.7 * i for i in range(60)] + [72.0] * 60
    flat = [40.0 + 0.01 * i for i in range(120)]
    assert analyze_throttle(rates, evidence=Evidence(temp_c=heating)).cause == "thermal"
    gc = analyze_throttle(rates, evidence=Evidence(temp_c=flat))
    assert gc.cause == "gc-cache"
    assert any("rose 0.6 °C" in e for e in gc.evidence)


def test_energy_per_byte_separates_duty_cycling_from_internal_writes() -> None:
    rates = noisy([(1500, 60), (900, 60)])
    duty_cycled = [5.0] * 60 + [3.0] * 60  # power falls with the rate: same energy per byte
    internal = [5.0] * 60 + [5.2] * 60  # drive as busy, host sees less: GC
    assert analyze_throttle(rates, evidence=Evidence(power_w=duty_cycled)).cause == "thermal"
    assert analyze_throttle(rates, evidence=Evidence(power_w=internal)).cause == "gc-cache"


def test_no_evidence_is_unknown_and_no_drop_is_none() -> None:
    dropped = analyze_throttle(noisy([(1500, 60), (900, 60)]))
    assert dropped.cause == "unknown" and dropped.throttled
    flat = analyze_throttle(noisy([(1500, 120)]), evidence=Evidence(temp_c=[50.0] * 120))
    assert flat.cause == "none" and not flat.throttled and flat.time_to_throttle_s is None
    assert flat.throttled_share_pct == 0.0


def test_a_burst_shorter_than_a_level_is_not_the_peak() -> None:
    """One or two fast first seconds are a transition (shorter than min_segment_s), not the peak."""
    for seconds in (1, 2):
        result = analyze_throttle(noisy([(3000, seconds), (1500, 100)], noise_pct=1))
        assert result.peak_rate == pytest.approx(1500, rel=0.02)
        assert not result.throttled and result.throttled_share_pct == 0.0
        check_invariants(result, noisy([(3000, seconds), (1500, 100)], noise_pct=1))


def test_mismatched_evidence_is_refused() -> None:
    with pytest.raises(ValueError, match="temp_c has 3 values for 5 periods"):
        analyze_throttle([1.0] * 5, evidence=Evidence(temp_c=[1.0, 2.0, 3.0]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(min_value=0, max_value=1e7, allow_nan=False), max_size=200))
def test_any_series_gives_a_consistent_result(rates: list[float]) -> None:
    result = analyze_throttle(rates)
    assert 0.0 <= result.throttled_share_pct <= 100.0 + 1e-9
    assert sum(s.stop - s.start for s in result.segments) == len(rates)
    assert all(math.isfinite(lv.rate) for lv in result.levels)
    if result.onset is not None:
        assert 0 <= result.onset < len(rates)
    check_invariants(result, rates)


def test_gc_is_named_beside_a_thermal_cause_and_alone_it_says_gc() -> None:
    rates = noisy([(350, 100), (130, 100)])
    gc = [False] * 100 + [True] * 100
    hot = analyze_throttle(rates, evidence=Evidence(throttle_active=[False] * 100 + [True] * 100, gc_active=gc))
    assert hot.cause == "thermal" and any("garbage collection moved pages during 100 %" in e for e in hot.evidence)
    assert analyze_throttle(rates, evidence=Evidence(gc_active=gc)).cause == "gc-cache"


# Known answers and invariants of the peak / onset / throttled rules (QA: a 16 GiB simulated drive's
# random-write phase showed a peak below the run's mean, a time to throttle before the peak level,
# 'throttled levels: none' beside a throttled share, a stall ignored). The data written before
# throttling is summed from the series by the method (tests/methods/test_thermal_figures.py).


def check_invariants(result: ThrottleAnalysis, rates: list[float]) -> None:
    """What the figures must satisfy together, whatever the series."""
    n = len(rates)
    if result.peak is None:
        assert result.onset is None and result.throttled_share_pct == 0.0
        return
    peak = result.peak_rate
    assert peak is not None and peak == max(lv.rate for lv in result.levels)
    # The peak is at least every throttled level.
    assert all(lv.rate < peak for lv in result.throttled_levels) or result.peak_throttled
    # A throttled share exactly when there is an onset, and then there is a throttled level to list.
    assert (result.onset is not None) == (result.throttled_share_pct > 0) == bool(result.throttled_levels)
    first_peak = next(s for s in result.segments if s.level == result.peak)
    if result.onset is not None:
        if result.peak_throttled:  # the peak level itself throttled: from the indicator's first on, all of it
            assert result.peak in result.throttled_indices
            assert all(result.is_throttled(i) for i in range(result.onset, n))
        elif result.throttled_before_peak:  # hot from before: a slower level, the indicator on, came first
            first = next(s for s in result.segments if s.start >= result.onset and s.level >= 0)
            assert result.peak < first.level and first.stop <= first_peak.start
            assert all(result.is_throttled(i) for i in range(result.onset, first.stop))
            assert not any(result.is_throttled(i) for s in result.segments if s.level == result.peak
                           for i in range(s.start, s.stop))  # its peak level unthrottled
        else:
            assert first_peak.stop <= result.onset < n  # never before the peak level is reached
        assert result.time_to_throttle_s == result.start_s(result.onset)  # whole periods: onset x period_s
        assert not any(result.is_throttled(i) for i in range(result.onset))
    check_level_times(result)
    # The mean over the run exceeds the peak only through transitions faster than it.
    lengths = _lengths_of(result, n)
    if all(s.rate <= peak for s in result.segments if s.level < 0):
        mean = math.fsum(r * d for r, d in zip(rates, lengths, strict=True)) / math.fsum(lengths)
        assert mean <= peak * (1 + 1e-9) + 1e-9
    check_cause_invariants(result)


def check_cause_invariants(result: ThrottleAnalysis) -> None:
    """Each throttled level's cause and the phase's agree, whatever the series and the evidence."""
    by_level = result.level_causes
    # One cause per throttled level, in the same order.
    assert tuple(result.levels[lc.level] for lc in by_level) == result.throttled_levels
    assert all(lc.cause in ("thermal", "gc-cache", "unknown") for lc in by_level)
    # No throttled level: no cause, no heat, no evidence over throttled time.
    assert (result.cause == "none") == (result.onset is None) == (not by_level) == (result.overall is None)
    # Heat throttling exactly when some level is thermal, and then the phase is thermal.
    thermal = [lc for lc in by_level if lc.cause == "thermal"]
    assert (result.cause == "thermal") == bool(thermal) == (result.thermal_onset is not None)
    for lc in by_level:  # each level judged on its own throttled seconds
        onset = result.onset if result.onset is not None else len(result.throttled_mask)
        # Its own periods from the onset on (inside a segment when a peak level throttled throughout
        # is throttled from where the indicator came on; else the onset starts a segment).
        own = [i for s in result.segments if s.level == lc.level for i in range(max(s.start, onset), s.stop)]
        assert lc.start == own[0] and lc.periods == len(own)
        assert all(result.is_throttled(i) for i in own)
        j = lc.judgement
        for pct in (j.indicator_pct, j.gc_pct):
            assert pct is None or 0.0 <= pct <= 100.0
    assert sum(lc.periods for lc in by_level) <= sum(lc.throttled_periods for lc in by_level)
    if thermal:
        assert result.onset is not None and result.thermal_onset is not None
        start = min(lc.start for lc in thermal)
        # From the time to throttle on, at most where the first thermal level starts, and throttled.
        assert result.onset <= result.thermal_onset <= start and result.is_throttled(result.thermal_onset)
        assert all(result.is_throttled(i) for i in range(result.thermal_onset, start))  # the fall into it
        first = min(by_level, key=lambda lc: lc.start)
        assert (result.thermal_onset == result.onset) == (first.cause == "thermal")
        assert result.time_to_thermal_s == result.start_s(result.thermal_onset)  # whole periods: x period_s
        # Where the first thermal level starts in the levels table.
        assert result.thermal_onset == min(lc.since for lc in thermal)
    elif by_level:  # then the cause of the most throttled time (the levels table's), unknown on a tie
        gc = sum(lc.throttled_periods for lc in by_level if lc.cause == "gc-cache")
        total = sum(lc.throttled_periods for lc in by_level)
        assert result.cause == ("gc-cache" if gc > total - gc else "unknown")


def _lengths_of(result: ThrottleAnalysis, n: int) -> list[float]:
    """Each period's length, as the analysis took them."""
    return list(result.durations_s) if len(result.durations_s) == n else [result.period_s] * n


def check_level_times(result: ThrottleAnalysis) -> None:
    """Each throttled level's time, share and first second as the report shows them (QA: the
    chart's level share left out the transitions the share of time throttled counts; a level's
    'from' was a second or two after the time to throttle, which counts the fall into it)."""
    throttled = result.throttled_indices
    shares = sum(result.level_share_pct(i) for i in throttled)
    assert shares == pytest.approx(result.throttled_share_pct, abs=1e-9)
    lengths = _lengths_of(result, len(result.throttled_mask))
    throttled_s = math.fsum(d for d, hot in zip(lengths, result.throttled_mask, strict=True) if hot)
    assert sum(result.level_time_s(i) for i in throttled) == pytest.approx(throttled_s)
    assert result.throttled_share_pct == pytest.approx(100 * throttled_s / math.fsum(lengths) if lengths else 0.0)
    if result.onset is None:
        assert not throttled and not any(result.throttled_mask)
        return
    assert min(result.level_since_s(i) for i in throttled) == result.time_to_throttle_s
    for lc in result.level_causes:
        # From the fall into it, which is its own: its own seconds from the onset on and that fall are its time.
        assert lc.since <= lc.start and result.level_since_s(lc.level) == result.start_s(lc.since)
        assert result.start_s(lc.since) == pytest.approx(math.fsum(lengths[:lc.since]))
        assert lc.throttled_s == result.level_time_s(lc.level)
        assert all(result.throttled_level_at[i] == lc.level for i in range(lc.since, lc.start))
        assert lc.periods <= lc.throttled_periods == result.throttled_level_at.count(lc.level)


def test_a_short_fast_start_then_a_lower_plateau_peaks_at_the_fast_start() -> None:
    """The 16 GiB intel750 random phase: ~950 MB/s for 3 s (a cache), a dip to ~130, then 170."""
    rates = [952.0] * 3 + [644.0, 178.0, 146.0] + [130.0] * 10 + [147.0] * 4 + [170.0] * 100
    result = analyze_throttle(rates)
    assert result.peak_rate == pytest.approx(952.0)
    assert result.time_to_throttle_s == 3.0  # where it left the peak, the fall included
    assert [round(lv.rate) for lv in result.throttled_levels] == [170, 147, 130]
    assert result.throttled_share_pct == pytest.approx(100 * 117 / 120)
    assert result.peak_rate is not None and result.peak_rate >= sum(rates) / len(rates)
    check_invariants(result, rates)


def test_a_stall_is_a_level_however_noisy_the_rest() -> None:
    """The 16 GiB 840 EVO random phase: 273 MB/s for 4 s, nothing for 6 s, then GC-bound chatter
    whose noise would hide the stall from the penalty."""
    rng = random.Random(3)
    rates = [273.0] * 4 + [74.0] + [0.0] * 6 + [rng.uniform(0, 60) for _ in range(100)]
    result = analyze_throttle(rates)
    assert result.peak_rate == pytest.approx(273.0)
    assert result.time_to_throttle_s == 4.0
    stall = [lv for lv in result.throttled_levels if lv.rate == 0.0]
    assert len(stall) == 1 and stall[0].duration_s == 6.0
    assert result.cause == "unknown"  # throttled, nothing to tell why: not 'none'
    check_invariants(result, rates)


def test_a_stall_inside_a_steady_run_is_a_throttled_level() -> None:
    rates = [500.0] * 50 + [0.0] * 6 + [500.0] * 50
    result = analyze_throttle(rates)
    assert result.time_to_throttle_s == 50.0
    assert [lv.rate for lv in result.throttled_levels] == [0.0]
    assert result.throttled_share_pct == pytest.approx(100 * 6 / 106)
    check_invariants(result, rates)


def test_a_peak_that_is_the_last_level_is_not_throttled() -> None:
    """A ramp up to the peak: the slower seconds before it are not throttling."""
    rates = [300.0] * 20 + [400.0] * 20 + [500.0] * 60
    result = analyze_throttle(rates, evidence=Evidence(temp_c=[40.0 + 0.2 * i for i in range(100)]))
    assert result.peak_rate == 500.0
    assert result.onset is None and result.time_to_throttle_s is None and result.throttled_share_pct == 0.0
    assert result.throttled_levels == () and result.cause == "none"
    check_invariants(result, rates)


def test_a_ramp_then_a_peak_then_a_throttle_starts_at_the_peak() -> None:
    """The default preset's random phase: levels climb to a peak mid-run, then drop; the onset
    is after the peak level, not at the first slower second of the ramp."""
    rates = [400.0] * 10 + [600.0] * 20 + [800.0] * 15 + [500.0] * 30
    result = analyze_throttle(rates)
    assert result.peak_rate == 800.0 and result.time_to_throttle_s == 45.0
    assert [lv.rate for lv in result.throttled_levels] == [500.0]  # 600 and 400 came before the peak
    assert result.throttled_share_pct == pytest.approx(100 * 30 / 75)
    check_invariants(result, rates)


def test_a_partial_second_at_a_step_does_not_pull_a_level() -> None:
    rates = [1580.0] * 62 + [1200.0] + [990.0] * 17 + [1580.0] * 9 + [1356.0] + [990.0] * 10
    result = analyze_throttle(rates)
    assert result.peak_rate == 1580.0
    assert [lv.rate for lv in result.throttled_levels] == [990.0]
    assert result.time_to_throttle_s == 62.0
    check_invariants(result, rates)


pieces = st.lists(st.tuples(st.sampled_from([0.0, 35.0, 130.0, 170.0, 500.0, 950.0, 1500.0])
                            | st.floats(min_value=0, max_value=3000, allow_nan=False),
                            st.integers(min_value=1, max_value=40)), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(pieces, st.floats(min_value=0, max_value=5), st.integers(min_value=0, max_value=2**16))
def test_piecewise_constant_series_keep_the_figures_consistent(parts: list[tuple[float, int]], noise_pct: float,
                                                                seed: int) -> None:
    rates = noisy(parts, noise_pct=noise_pct, seed=seed)
    check_invariants(analyze_throttle(rates), rates)
