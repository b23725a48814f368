"""The rise to heat throttling and the drive's indicator's first period, where a cache ran out first
(QA: the rise to a GC slowdown at 81 s, 24.3 °C, was the only rise, and was read as the rise to heat
at 159 s, where it was 33.8 °C; the indicator first came on at 161 s)."""

from __future__ import annotations

import pytest

from ssdlab.analysis.throttle import Evidence, analyze_throttle

# The peak for 20 s at 30 °C, a cache run out at 800 MB/s while the drive heats from 31 to 75 °C, then
# heat at 500 MB/s, the drive's indicator on from `indicator_from`.
RATES = [1500.0] * 20 + [800.0] * 180 + [500.0] * 100
TEMP = [30.0] * 20 + [31 + 44 * i / 179 for i in range(180)] + [75.0] * 100


def cache_then_heat(indicator_from: int = 200) -> Evidence:
    return Evidence(temp_c=TEMP, throttle_active=[i >= indicator_from for i in range(len(RATES))])


def test_the_rise_to_heat_throttling_is_to_the_fall_into_the_first_heat_level() -> None:
    result = analyze_throttle(RATES, evidence=cache_then_heat())
    assert result.onset == 20 and result.thermal_onset == 200 and result.heat_later
    assert result.temp_rise_c == pytest.approx(1.0)  # to the cache running out
    assert result.heat_temp_rise_c == pytest.approx(45.0)  # to heat's onset


def test_heat_first_gives_the_same_rise_twice() -> None:
    rates = [1500.0] * 100 + [900.0] * 100
    temp = [30 + 45 * i / 99 for i in range(100)] + [75.0] * 100
    result = analyze_throttle(rates, evidence=Evidence(temp_c=temp, throttle_active=[i >= 100 for i in range(200)]))
    assert result.onset == result.thermal_onset == 100 and not result.heat_later
    assert result.heat_temp_rise_c == result.temp_rise_c == pytest.approx(45.0)


def test_no_heat_gives_no_rise_to_heat_throttling() -> None:
    # A sensor that moves (a constant one could be stuck: analysis.throttle.STUCK_SENSOR_S), never 5 °C up.
    result = analyze_throttle(RATES, evidence=Evidence(temp_c=[30.0 + i // 100 for i in range(len(RATES))]))
    assert result.cause == "gc-cache" and result.heat_temp_rise_c is None and result.indicator_onset is None


def test_the_indicator_onset_is_the_drives_own_first_on() -> None:
    """The levels' time to heat throttling stays where the drive fell into the level; the indicator's
    first period is kept beside it."""
    result = analyze_throttle(RATES, evidence=cache_then_heat(indicator_from=202))
    assert result.time_to_thermal_s == 200.0 and result.time_to_indicator_s == 202.0
    assert analyze_throttle(RATES).time_to_indicator_s is None  # no indicator data


def test_the_phase_evidence_names_the_onset_its_rise_is_to() -> None:
    result = analyze_throttle(RATES, evidence=cache_then_heat())
    assert result.overall is not None
    assert "temperature rose 1.0 °C up to the onset of throttling, at 20 s" in result.overall.evidence
