"""Times and shares of the throttle analysis are over the periods' real lengths, not their count.

fio's periods are its own logging windows: at 1 s periods its first window runs about 1.14 s (its
helper's first sample comes late; later ones keep that phase), and a run's last period ends with
the run (a 0.6 s tail). The time to throttle was the onset's index times the period, the shares
counts of periods.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_throttle import check_invariants

from ssdlab.analysis.throttle import DEFAULT_CONFIG, Cause, Evidence, analyze_throttle
from ssdlab.measurement import Measurement, Series
from ssdlab.methods.thermal import analyze_measurement, phase_metrics
from ssdlab.workload import Workload

# 60 s at the peak, then 60 periods throttled: fio's windows, its first one 1.14 s, its tail 0.6 s.
RATES = [1500.0] * 60 + [900.0] * 60
LENGTHS = [1.14] + [1.0] * 118 + [0.6]


def _phase(rates: list[float], lengths: list[float], active: list[float] | None = None) -> Measurement:
    """A thermal phase's write as fio logs it (periods ending at its windows' stamps), the sampler's
    throttle flag at each period's end."""
    ends = tuple(np.cumsum(lengths).tolist())
    n = len(rates)
    series = Series(period_s=1.0, start_s=0.0, t_s=ends, read_ios=(0.0,) * n, read_bytes=(0.0,) * n,
                    write_ios=tuple(r * d for r, d in zip(rates, lengths, strict=True)),
                    write_bytes=tuple(r * d * 1e6 for r, d in zip(rates, lengths, strict=True)),
                    read_lat_sum_ns=(0.0,) * n, write_lat_sum_ns=(0.0,) * n)
    telemetry = {"t_s": ends, "throttle_active": tuple(active)} if active is not None else {}
    w = Workload(name="thermal-seq", pattern="write", block_size_bytes=131072, runtime_s=round(ends[-1]))
    return Measurement(workload=w, engine="fio", runtime_s=ends[-1], series=series, telemetry=telemetry)


def test_the_time_to_throttle_is_where_the_onset_period_starts() -> None:
    result = analyze_measurement(_phase(RATES, LENGTHS))
    (level,) = result.throttled_indices
    assert result.onset == 60
    assert result.time_to_throttle_s == pytest.approx(60.14)  # was 60.0
    assert result.level_since_s(level) == result.time_to_throttle_s
    # the throttled time is 59 whole periods and the tail; the run 119.74 s
    assert result.level_time_s(level) == pytest.approx(59.6)  # was 60.0
    assert result.throttled_share_pct == pytest.approx(100 * 59.6 / 119.74)  # was 50.0
    assert result.level_share_pct(level) == pytest.approx(result.throttled_share_pct)
    peak = result.levels[result.peak or 0]
    assert peak.duration_s == pytest.approx(60.14) and peak.share_pct == pytest.approx(100 * 60.14 / 119.74)
    check_invariants(result, RATES)


def test_the_indicators_share_of_a_levels_time_is_by_time() -> None:
    """The drive's throttle indicator on in 30 of the level's 60 periods, the last of them the 0.6 s
    tail: 29.6 s of its 59.6 s, under half, so not decisive: the level was called heat on a count
    of periods that is half."""
    active = [0.0] * 60 + [0.0] * 30 + [1.0] * 30
    m = _phase(RATES, LENGTHS, active)
    result = analyze_measurement(m)
    (lc,) = result.level_causes
    assert lc.judgement.indicator_pct == pytest.approx(100 * 29.6 / 59.6)  # was 50.0
    assert result.cause == "gc-cache"  # was "thermal"
    metrics = phase_metrics("seq", m, DEFAULT_CONFIG)
    assert metrics["seq_time_to_throttle_s"] == pytest.approx(60.14)
    assert metrics["seq_gc_share_pct"] == pytest.approx(100 * 59.6 / 119.74)
    assert any("garbage collection / cache from 60.1 s (1 level, 59.6 s)" in e for e in result.evidence)


def test_heat_throttling_starts_where_its_first_period_does() -> None:
    """A cache runs out, then heat: the time to heat throttling is the start of the heat level's
    first period, after a first window of 1.14 s."""
    rates = [1500.0] * 20 + [800.0] * 60 + [650.0] + [500.0] * 60
    lengths = [1.14] + [1.0] * (len(rates) - 1)
    flags = [False] * 80 + [True] * 61
    temp = [30.0] * 20 + [31 + 44 * i / 59 for i in range(60)] + [75.0] * 61
    result = analyze_throttle(rates, evidence=Evidence(temp_c=temp, throttle_active=flags), durations_s=lengths)
    assert result.time_to_throttle_s == pytest.approx(20.14) and result.time_to_thermal_s == pytest.approx(80.14)
    assert any("thermal throttling from 80.1 s (1 level, 61 s)" in e for e in result.evidence)
    check_invariants(result, rates)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([1500.0, 1200.0, 900.0, 0.0]), min_size=2, max_size=12),
       st.lists(st.integers(1, 30), min_size=12, max_size=12), st.sampled_from([1.0, 0.5, 0.1]),
       st.integers(0, 2**16))
def test_whole_periods_give_the_figures_they_always_did(steps: list[float], holds: list[int], period_s: float,
                                                        seed: int) -> None:
    """Lengths that are all the period (as the simulator gives them: n x the period in ns over 1e9,
    a little off) give the figures as they were, to the bit: an index x the period, counts of
    periods, plain means."""
    rng = np.random.default_rng(seed)
    rates = [r * (1 + rng.uniform(-0.01, 0.01)) for r, n in zip(steps, holds, strict=False) for _ in range(n)]
    n = len(rates)
    ns = round(period_s * 1e9)
    ends = [(i + 1) * ns / 1e9 for i in range(n)]
    lengths = [b - a for a, b in zip([0.0, *ends[:-1]], ends, strict=True)]
    temp = [30.0 + 0.1 * i + rng.uniform(0, 1) for i in range(n)]
    flags = [bool(rng.integers(0, 2)) for _ in range(n)]
    ev = Evidence(temp_c=temp, throttle_active=flags, gc_active=flags[::-1])
    result = analyze_throttle(rates, period_s, ev, durations_s=lengths)
    level_at = result.throttled_level_at
    assert result.throttled_share_pct == 100.0 * sum(level >= 0 for level in level_at) / n
    if result.onset is not None:
        assert result.time_to_throttle_s == result.onset * period_s
    if result.thermal_onset is not None:
        assert result.time_to_thermal_s == result.thermal_onset * period_s
    total = sum(s.stop - s.start for s in result.segments)
    for index, level in enumerate(result.levels):
        own = [i for s in result.segments if s.level == index for i in range(s.start, s.stop)]
        assert level.duration_s == len(own) * period_s and level.share_pct == 100.0 * len(own) / total
        assert level.mean_temp_c == sum(temp[i] for i in own) / len(own)
        if index in result.throttled_indices:
            assert result.level_since_s(index) == level_at.index(index) * period_s
            assert result.level_time_s(index) == level_at.count(index) * period_s
            assert result.level_share_pct(index) == 100.0 * (level_at.count(index) * period_s) / (n * period_s)
    for lc in result.level_causes:
        # Its own periods from the onset on (which falls inside a segment when the peak level was itself
        # throttled from where the indicator came on), against the peak level's unthrottled ones.
        periods = [i for s in result.segments if s.level == lc.level
                   for i in range(max(s.start, result.onset or 0), s.stop)]
        assert lc.judgement.indicator_pct == 100.0 * sum(flags[i] for i in periods) / len(periods)
        peak = [i for s in result.segments if s.level == result.peak for i in range(s.start, s.stop)
                if not result.is_throttled(i)]
        hotter = sum(temp[i] for i in periods) / len(periods) - sum(temp[i] for i in peak) / len(peak) if peak \
            else None
        assert lc.judgement.hotter_c == hotter
    causes: tuple[Cause, ...] = ("thermal", "gc-cache", "unknown")
    for cause in causes:
        count = sum(lc.throttled_periods for lc in result.level_causes if lc.cause == cause)
        assert result.cause_share_pct(cause) == 100.0 * count / n
    assert math.isfinite(result.throttled_share_pct)
