"""A phase on a drive without a throttle indicator that ran slower before it first reached its peak
(a drive still hot from the phase before, or still collecting garbage, that recovered) read "no
throttling" and "held its peak level throughout": the slower levels before the peak were a ramp-up
unless the indicator was on during them. They are now judged as levels after the peak are, where
the evidence tells why: one that ran hotter than the peak level (the drive cooled as it sped up)
votes heat; power or GC data vote as they do after the peak; where nothing tells, a ramp-up still."""

from __future__ import annotations

import pytest
from test_throttle import check_invariants
from test_throttle_levels import Piece, causes, phase

from ssdlab.analysis.throttle import Evidence, analyze_throttle


def unindicated(*pieces: Piece, power: bool = False, gc: bool = False) -> tuple[list[float], Evidence]:
    """The phase's rates and evidence without the drive's throttle indicator (and power / GC unless asked)."""
    rates, ev = phase(*pieces)
    return rates, Evidence(temp_c=ev.temp_c, power_w=ev.power_w if power else None,
                           gc_active=ev.gc_active if gc else None)


def test_a_slower_start_hotter_than_the_peak_is_heat_from_the_start() -> None:
    """Was: never throttled, 0.0 %, no throttling."""
    rates, ev = unindicated(Piece(284, 24, (78.0, 70.0)), Piece(455, 30, (69.0, 71.0)))
    result = analyze_throttle(rates, evidence=ev)
    assert result.peak_rate == 455 and result.throttled_before_peak and result.peak_indicator_pct is None
    assert result.time_to_throttle_s == 0.0 and result.time_to_thermal_s == 0.0
    assert causes(result) == {284: "thermal"} and result.cause == "thermal"
    assert result.throttled_share_pct == pytest.approx(100 * 24 / 54)
    judged = result.level_causes[0].judgement
    assert judged.temp_rise_c is None and judged.hotter_c == pytest.approx(74.0 - 70.0)
    assert result.evidence[0].startswith("it ran slower from the start, at levels below its peak, before it first "
                                         "reached its peak level at 24 s: the drive has no throttle indicator")
    check_invariants(result, rates)


def test_a_slower_start_that_used_more_energy_per_byte_is_gc() -> None:
    """Cooler than at the peak (no heat vote) at the same power, so more energy per byte: GC / cache."""
    rates, ev = unindicated(Piece(284, 24, (40.0, 41.0), power_w=4.0), Piece(455, 30, (41.0, 44.0), power_w=4.0),
                            power=True)
    result = analyze_throttle(rates, evidence=ev)
    assert result.throttled_before_peak and causes(result) == {284: "gc-cache"} and result.cause == "gc-cache"
    assert result.time_to_throttle_s == 0.0 and result.time_to_thermal_s is None
    check_invariants(result, rates)


def test_a_later_slower_level_before_the_peak_has_no_rise_vote() -> None:
    """A second slower level before the peak did not fall from the peak either: no rise to throttling
    is measured up to it (a drive cooling reads a rise of 0 °C, a vote for GC / cache), its heat
    is read against the peak level's as the first one's is."""
    rates, ev = unindicated(Piece(150, 6, (80.0, 78.0)), Piece(284, 20, (77.0, 72.0)), Piece(455, 30, (70.0, 71.0)))
    result = analyze_throttle(rates, evidence=ev)
    assert causes(result) == {284: "thermal", 150: "thermal"}
    assert all(lc.judgement.temp_rise_c is None for lc in result.level_causes)
    check_invariants(result, rates)


@pytest.mark.parametrize("temp", [(40.0, 44.0), None])
def test_a_slower_start_nothing_explains_is_a_ramp_up_as_before(temp: tuple[float, float] | None) -> None:
    """Cooler than at the peak, or no evidence at all: nothing tells why it was slower, so a ramp-up."""
    rates, ev = unindicated(Piece(284, 24, temp or (40.0, 40.0)), Piece(455, 30, (44.0, 47.0)))
    result = analyze_throttle(rates, evidence=ev if temp else None)
    assert not result.throttled and result.peak_start == 24 and result.cause == "none"


@pytest.mark.parametrize(("hotter_c", "throttled"), [(0.5, False), (1.0, True)])
def test_hotter_by_less_than_a_sensor_step_is_a_ramp_up(hotter_c: float, throttled: bool) -> None:
    """Drives report whole kelvin or °C: a slower start half a degree hotter than the peak level may
    be rounding, so it tells nothing and stays a ramp-up; a whole step hotter votes heat."""
    rates, ev = unindicated(Piece(284, 24, (60.0 + hotter_c, 60.0 + hotter_c)), Piece(455, 30, (60.0, 60.0)))
    result = analyze_throttle(rates, evidence=ev)
    assert result.throttled is throttled and result.cause == ("thermal" if throttled else "none")
