"""A phase that began throttled, hot from the phase before, whose peak level came later as the drive
cooled (QA, 950 PRO random write after a 5 s cool-down: 24 s at 284 MB/s with the throttle level at
1, then the 455 MB/s peak for 5 s, read "share of time throttled 0.0 %" and "never throttled"; with
no cool-down, 7 s at 190 then 284, the peak, 284 again read 20 % from 48 s, the 190 level missing).
Seconds before the peak at a slower level during most of which the drive's indicator was on are
throttled, not a ramp-up; a ramp-up with the indicator off still is neither peak nor throttled."""

from __future__ import annotations

import pytest
from test_throttle import check_invariants
from test_throttle_levels import Piece, causes, phase

from ssdlab.analysis.throttle import Evidence, analyze_throttle, judge

# The QA runs' random phases, second by second as the simulator gave them (rounded).
COOLDOWN_5 = (Piece(284, 24, (69.7, 67.1), throttle=True, power_w=2.4), Piece(302, 1, (67.0, 67.0), power_w=2.5),
              Piece(455, 5, (67.4, 68.8), power_w=3.6))
NO_COOLDOWN = (Piece(190, 7, (74.2, 71.3), throttle=True, power_w=1.8),
               Piece(218, 1, (70.9, 70.9), throttle=True, power_w=2.0),
               Piece(284, 31, (70.8, 67.1), throttle=True, power_w=2.4), Piece(319, 1, (67.1, 67.1), power_w=2.7),
               Piece(455, 8, (67.4, 69.8), power_w=3.6), Piece(403, 1, (70.0, 70.0), throttle=True, power_w=3.2),
               Piece(284, 11, (69.8, 68.5), throttle=True, power_w=2.4))


def test_a_phase_that_began_throttled_below_its_peak_is_throttled_from_the_start() -> None:
    """Was: never throttled, 0.0 %, 'it held its peak level throughout'."""
    rates, ev = phase(*COOLDOWN_5)
    result = analyze_throttle(rates, evidence=ev)
    assert result.peak_rate == 455 and not result.peak_throttled and result.throttled_before_peak
    assert result.time_to_throttle_s == 0.0 and result.time_to_thermal_s == 0.0
    # The 24 s at 284 and the second climbing out of it to the peak: 25 of 30.
    assert result.throttled_share_pct == pytest.approx(100 * 25 / 30)
    assert causes(result) == {284: "thermal"} and result.cause == "thermal"
    # Throttled from the first second: no rise to throttling was measured (not "0.0 °C").
    assert result.temp_rise_c is None and result.level_causes[0].judgement.temp_rise_c is None
    assert any("throttled from the start, already at 69.7 °C" in e for e in result.evidence)
    assert result.evidence[0].startswith("it ran throttled from the start, the drive's throttle indicator on at "
                                         "slower levels, before it first reached its peak level at 25 s")
    check_invariants(result, rates)


def test_every_throttled_level_before_and_after_the_peak_counts() -> None:
    """Was: time to the first slowdown 48 s, 20.0 % throttled, levels '284' (190 missing), rise 0.0 °C."""
    rates, ev = phase(*NO_COOLDOWN)
    result = analyze_throttle(rates, evidence=ev)
    assert result.time_to_throttle_s == 0.0 and result.throttled_before_peak
    assert [round(lv.rate) for lv in result.throttled_levels] == [284, 190]
    assert causes(result) == {284: "thermal", 190: "thermal"}
    # All but the 8 s at the peak; the seconds climbing out to it and falling from it are 284's.
    assert result.throttled_share_pct == pytest.approx(100 * 52 / 60)
    slow = next(i for i, lv in enumerate(result.levels) if round(lv.rate) == 190)
    assert result.level_since_s(slow) == 0.0 and result.level_time_s(slow) == 7.0
    assert not any(result.is_throttled(i) for i in range(40, 48))  # the peak itself
    assert result.temp_rise_c is None
    check_invariants(result, rates)


def test_a_ramp_with_the_indicator_off_before_a_throttled_level_is_still_a_ramp() -> None:
    """The onset is the indicated level's start: the ramp-up before it is neither peak nor throttled."""
    rates, ev = phase(Piece(60, 5, (40, 40)), Piece(190, 20, (75, 72), throttle=True), Piece(455, 30, (72, 70)))
    result = analyze_throttle(rates, evidence=ev)
    assert result.time_to_throttle_s == 5.0 and result.throttled_before_peak
    assert [round(lv.rate) for lv in result.throttled_levels] == [190]
    assert not any(result.is_throttled(i) for i in range(5))
    assert result.throttled_share_pct == pytest.approx(100 * 20 / 55)
    assert result.temp_rise_c == pytest.approx(35.0)  # measured from the first second up to the onset
    check_invariants(result, rates)


@pytest.mark.parametrize("flags", [None, False])
def test_a_slower_start_without_the_indicator_on_is_a_ramp_up_as_before(flags: bool | None) -> None:
    """No indicator, or one off: the slower seconds before the peak are a ramp-up (unchanged)."""
    rates, ev = phase(Piece(284, 24, (69.7, 67.1)), Piece(455, 30, (67.4, 70.0)))
    evidence = Evidence(temp_c=ev.temp_c, throttle_active=None if flags is None else [flags] * len(rates))
    result = analyze_throttle(rates, evidence=evidence)
    assert not result.throttled and result.throttled_share_pct == 0.0 and result.peak_rate == 455
    assert result.peak_start == 24 and not result.throttled_before_peak
    check_invariants(result, rates)


def test_a_level_judged_from_the_first_second_has_no_rise_and_no_vote_from_it() -> None:
    """A rise of 0 °C up to the first second read as 'the rate fell without heating', a vote for GC /
    cache; throttled from the first second, no rise to throttling was measured at all."""
    rates = [300.0] * 10 + [500.0] * 10
    temp = [80.0 - i for i in range(20)]
    selected = [True] * 10 + [False] * 10
    at_peak = [not s for s in selected]
    j = judge(selected, at_peak, 0, rates, Evidence(temp_c=temp))
    # No rise vote; the level ran 10 °C hotter than the peak level did (the drive cooled as it sped
    # up), which is a vote for heat of its own (stop 42; it was "unknown" before that vote).
    assert j.temp_rise_c is None and j.cause == "thermal"  # was 0.0, gc-cache
    assert j.evidence[0] == ("throttled from the start, already at 80.0 °C: no temperature rise up to the onset of "
                             "throttling was measured")
    later = judge(selected[::-1], at_peak[::-1], 10, rates[::-1], Evidence(temp_c=temp))
    assert later.temp_rise_c == 0.0 and later.cause == "gc-cache"  # from a later second: as before
