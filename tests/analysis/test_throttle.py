"""Throttle analysis on synthetic series: levels, onset, share and cause with its evidence."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.analysis.throttle import Evidence, analyze_throttle, change_points, cluster_levels, segments_of


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
    segments = segments_of(rates, change_points(rates))
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


def test_a_first_seconds_burst_is_not_the_peak() -> None:
    rates = noisy([(3000, 4), (1500, 100)], noise_pct=1)
    result = analyze_throttle(rates)
    assert result.peak_rate == pytest.approx(1500, rel=0.02)
    assert not result.throttled


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


def test_gc_is_named_beside_a_thermal_cause_and_alone_it_says_gc() -> None:
    rates = noisy([(350, 100), (130, 100)])
    gc = [False] * 100 + [True] * 100
    hot = analyze_throttle(rates, evidence=Evidence(throttle_active=[False] * 100 + [True] * 100, gc_active=gc))
    assert hot.cause == "thermal" and any("garbage collection moved pages during 100 %" in e for e in hot.evidence)
    assert analyze_throttle(rates, evidence=Evidence(gc_active=gc)).cause == "gc-cache"
