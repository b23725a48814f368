"""Each throttled level's time, first second and share, which the chart, the levels table and the
share of time throttled all give (QA: the chart's level share left out the transitions into the
level that the share of time throttled counted; a level's 'from' came a second or two after the
time to throttle). The invariants over any series are in test_throttle.check_level_times."""

from __future__ import annotations

import pytest
from test_throttle import check_invariants

from ssdlab.analysis.throttle import Evidence, analyze_throttle


def test_the_fall_into_a_level_is_its_time_and_its_start() -> None:
    rates = [1580.0] * 60 + [1300.0, 1100.0] + [834.0] * 40
    result = analyze_throttle(rates)
    (level,) = result.throttled_indices
    assert result.time_to_throttle_s == result.level_since_s(level) == 60.0
    assert result.level_time_s(level) == 42.0
    assert result.level_share_pct(level) == result.throttled_share_pct == pytest.approx(100 * 42 / 102)
    check_invariants(result, rates)


def test_a_dip_shorter_than_a_level_between_stretches_at_the_peak_is_not_throttled() -> None:
    """One second at 700 MB/s between two stretches at the peak, after the drive first throttled: no
    level's, so neither in a level's time nor in the share of time throttled."""
    rates = [1500.0] * 20 + [800.0] * 20 + [1500.0] * 20 + [700.0] + [1500.0] * 20
    result = analyze_throttle(rates)
    assert result.time_to_throttle_s == 20.0 and [lv.rate for lv in result.throttled_levels] == [800.0]
    assert result.throttled_share_pct == pytest.approx(100 * 20 / 81)
    assert not result.is_throttled(60)
    check_invariants(result, rates)


def test_the_climb_back_to_the_peak_is_the_levels_it_leaves() -> None:
    rates = [1500.0] * 20 + [1000.0] * 20 + [1200.0] + [1500.0] * 20
    result = analyze_throttle(rates)
    (level,) = result.throttled_indices
    assert result.is_throttled(40) and result.level_time_s(level) == 21.0
    assert result.throttled_share_pct == pytest.approx(100 * 21 / 61)
    check_invariants(result, rates)


def test_heat_throttling_starts_where_the_levels_table_starts_the_first_thermal_level() -> None:
    """A cache runs out (800 MB/s, cool), then one partial second, then heat (500 MB/s): the heat
    level's time starts at the partial second, as the time to heat throttling does."""
    rates = [1500.0] * 20 + [800.0] * 60 + [650.0] + [500.0] * 60
    temp = [30.0] * 20 + [31 + 44 * i / 59 for i in range(60)] + [75.0] * 61
    flags = [False] * 80 + [True] * 61
    result = analyze_throttle(rates, evidence=Evidence(temp_c=temp, throttle_active=flags))
    thermal = next(lc for lc in result.level_causes if lc.cause == "thermal")
    assert result.time_to_thermal_s == result.level_since_s(thermal.level) == 80.0
    assert thermal.start == 81 and result.level_time_s(thermal.level) == 61.0
    assert any("thermal throttling from 80 s (1 level, 61 s)" in e for e in result.evidence)
    check_invariants(result, rates)
