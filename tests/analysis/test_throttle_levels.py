"""Each throttled level's own cause (QA: a cache that ran out, then heat throttling later in the
same phase, read 'gc-cache' for the whole phase, the cause being judged over all throttled time).

Synthetic phases are piecewise constant: each piece has a rate, a temperature (or a ramp of it),
the drive's throttle flag, garbage collection and power, so the evidence of every level is known.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_throttle import check_invariants

from ssdlab.analysis.throttle import Evidence, ThrottleAnalysis, analyze_throttle


@dataclass(frozen=True)
class Piece:
    rate: float
    seconds: int
    temp_c: tuple[float, float] = (40.0, 40.0)  # from, to (a linear ramp)
    throttle: bool = False
    gc: bool = False
    power_w: float = 5.0


def phase(*pieces: Piece) -> tuple[list[float], Evidence]:
    rates: list[float] = []
    temp: list[float] = []
    flags: list[bool] = []
    gc: list[bool] = []
    power: list[float] = []
    for p in pieces:
        rates += [p.rate] * p.seconds
        a, b = p.temp_c
        temp += [a + (b - a) * i / max(p.seconds - 1, 1) for i in range(p.seconds)]
        flags += [p.throttle] * p.seconds
        gc += [p.gc] * p.seconds
        power += [p.power_w] * p.seconds
    return rates, Evidence(temp_c=temp, throttle_active=flags, gc_active=gc, power_w=power)


def causes(result: ThrottleAnalysis) -> dict[float, str]:
    return {round(result.levels[lc.level].rate): lc.cause for lc in result.level_causes}


# A write cache runs out after 20 s (the drive stays cool, garbage collection starts, the energy
# per host byte rises), the drive then heats up writing at the slower level and throttles from
# heat after 200 s for the last 100 s: most throttled time is the cache's.
CACHE_THEN_HEAT = (Piece(1500, 20, (30, 31), power_w=5.0),
                   Piece(800, 180, (31, 75), gc=True, power_w=5.2),
                   Piece(500, 100, (75, 72), throttle=True, gc=True, power_w=1.7))
HEAT_ONLY = (Piece(1500, 100, (30, 75), power_w=5.0), Piece(900, 100, (75, 72), throttle=True, power_w=3.0))
CACHE_ONLY = (Piece(1500, 10, (30, 31), power_w=5.0), Piece(700, 190, (31, 35), gc=True, power_w=5.1))


def test_cache_then_heat_gives_each_level_its_cause_and_the_phase_is_thermal() -> None:
    rates, ev = phase(*CACHE_THEN_HEAT)
    result = analyze_throttle(rates, evidence=ev)
    assert causes(result) == {800: "gc-cache", 500: "thermal"}
    assert result.cause == "thermal"  # the whole-phase rule said gc-cache: 64 % of the throttled time is the cache's
    assert result.time_to_throttle_s == 20.0 and result.time_to_thermal_s == 200.0
    assert result.overall is not None and result.overall.cause == "gc-cache"  # all throttled time at once
    assert result.evidence[0] == ("by throttled level: garbage collection / cache from 20 s (1 level, 180 s); "
                                  "thermal throttling from 200 s (1 level, 100 s)")
    check_invariants(result, rates)


@pytest.mark.parametrize("keep", [("temp_c",), ("power_w",), ("throttle_active",), ("temp_c", "power_w")])
def test_cache_then_heat_from_each_kind_of_evidence(keep: tuple[str, ...]) -> None:
    """The temperature alone (cool up to the cache's drop, hot up to the heat's), the energy per
    byte alone (up with the cache's internal writes, flat with heat's duty cycling), or the
    drive's indicator alone each tell the two levels apart."""
    rates, ev = phase(*CACHE_THEN_HEAT)
    only = Evidence(**{name: getattr(ev, name) for name in keep})
    result = analyze_throttle(rates, evidence=only)
    assert causes(result) == {800: "gc-cache", 500: "thermal"}
    assert result.cause == "thermal" and result.time_to_thermal_s == 200.0
    check_invariants(result, rates)


def test_heat_only_is_thermal_from_the_time_to_throttle() -> None:
    rates, ev = phase(*HEAT_ONLY)
    result = analyze_throttle(rates, evidence=ev)
    assert causes(result) == {900: "thermal"}
    assert result.cause == "thermal" and result.time_to_thermal_s == result.time_to_throttle_s == 100.0
    check_invariants(result, rates)


def test_cache_only_has_no_heat() -> None:
    rates, ev = phase(*CACHE_ONLY)
    result = analyze_throttle(rates, evidence=ev)
    assert causes(result) == {700: "gc-cache"}
    assert result.cause == "gc-cache" and result.time_to_thermal_s is None
    check_invariants(result, rates)


def test_heat_before_garbage_collection_is_thermal_from_the_first_drop() -> None:
    """The simulated Intel 750's random phase: heat throttles first (14 s, indicator on), then
    garbage collection holds the rate down for the rest of the phase (indicator off)."""
    rates, ev = phase(Piece(950, 57, (42, 75), power_w=15.0), Piece(635, 14, (75, 74), throttle=True, power_w=11.4),
                      Piece(90, 300, (72, 65), gc=True, power_w=9.7))
    result = analyze_throttle(rates, evidence=ev)
    assert causes(result) == {635: "thermal", 90: "gc-cache"}
    assert result.cause == "thermal" and result.time_to_thermal_s == result.time_to_throttle_s == 57.0
    check_invariants(result, rates)


def test_the_fall_into_a_heat_level_is_where_heat_throttling_starts() -> None:
    """A partial second between the cache's level and the heat's belongs to the heat (as the fall
    from the peak belongs to the time to throttle)."""
    rates, ev = phase(Piece(1500, 20, (30, 31)), Piece(800, 60, (31, 75), gc=True, power_w=5.2),
                      Piece(650, 1, (75, 75), throttle=True), Piece(500, 60, (75, 72), throttle=True, power_w=1.7))
    result = analyze_throttle(rates, evidence=ev)
    assert causes(result) == {800: "gc-cache", 500: "thermal"}
    assert result.time_to_thermal_s == 80.0
    check_invariants(result, rates)


def test_without_a_thermal_level_the_phase_takes_the_cause_of_most_throttled_time() -> None:
    """GC / cache for 150 s (cool, GC moving pages), then 50 s that nothing separates (warmer by
    7 °C, no GC): the phase is GC / cache, as its most time is."""
    rates = [1500.0] * 20 + [800.0] * 150 + [500.0] * 50
    temp = [30.0] * 170 + [37.0] * 50
    gc = [False] * 20 + [True] * 150 + [False] * 50
    result = analyze_throttle(rates, evidence=Evidence(temp_c=temp, gc_active=gc))
    assert causes(result) == {800: "gc-cache", 500: "unknown"}
    assert result.cause == "gc-cache"
    shorter = analyze_throttle(rates[:20] + rates[20:70] + rates[170:] * 2,
                               evidence=Evidence(temp_c=temp[:70] + temp[170:] * 2, gc_active=gc[:70] + gc[170:] * 2))
    assert causes(shorter) == {800: "gc-cache", 500: "unknown"} and shorter.cause == "unknown"  # 50 s against 100 s


pieces = st.lists(st.builds(Piece, rate=st.sampled_from([0.0, 35.0, 130.0, 500.0, 950.0, 1500.0]),
                            seconds=st.integers(min_value=1, max_value=40),
                            temp_c=st.tuples(st.floats(20, 90), st.floats(20, 90)), throttle=st.booleans(),
                            gc=st.booleans(), power_w=st.floats(0.5, 15)),
                  min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(pieces, st.sets(st.sampled_from(["temp_c", "throttle_active", "gc_active", "power_w"])))
def test_level_causes_agree_with_the_phase_for_any_evidence(parts: list[Piece], keep: set[str]) -> None:
    rates, ev = phase(*parts)
    result = analyze_throttle(rates, evidence=Evidence(**{name: getattr(ev, name) for name in keep}))
    check_invariants(result, rates)


# A phase begun hot (QA: `ambient_c=82` on the simulator, or no cool-down after a phase): the drive's
# indicator is on from its first second, at the fastest rate it ever reaches. The peak level is then a
# throttled rate, not an unthrottled peak to measure a slowdown against (was "no throttling").
HOT_FROM_THE_START = (Piece(320, 200, (88, 101), throttle=True, power_w=1.6),)


def test_a_peak_level_throttled_throughout_is_throttled_from_the_start() -> None:
    rates, ev = phase(*HOT_FROM_THE_START)
    result = analyze_throttle(rates, evidence=ev)
    assert result.peak_throttled and result.peak_indicator_pct == 100.0
    assert result.cause == "thermal" and result.time_to_throttle_s == 0.0 == result.time_to_thermal_s
    assert result.throttled_share_pct == 100.0 and result.throttled_indices == (0,)
    assert result.evidence[0].startswith("the drive's throttle indicator was on during 100 % of its fastest level's "
                                         "time, from 0 s: it never ran at an unthrottled peak")
    # Nothing unthrottled to be hotter than, or to spend less energy than: no such figure, no such words.
    lc = result.level_causes[0]
    assert lc.judgement.hotter_c is None and lc.judgement.energy_rise_pct is None
    assert not any("against peak-level ones" in e for e in result.evidence)
    check_invariants(result, rates)


def test_a_hot_start_then_deeper_throttling_throttles_every_level_from_the_start() -> None:
    rates, ev = phase(Piece(100, 120, (88, 96), throttle=True), Piece(60, 100, (96, 97), throttle=True),
                      Piece(25, 200, (97, 97), throttle=True, gc=True))
    result = analyze_throttle(rates, evidence=ev)
    assert result.time_to_throttle_s == 0.0 and result.throttled_share_pct == 100.0
    assert causes(result) == {100: "thermal", 60: "thermal", 25: "thermal"}
    check_invariants(result, rates)


def test_a_ramp_before_a_peak_throttled_throughout_is_not_throttled() -> None:
    """Seconds before the peak is first reached are neither peak nor throttled, as in any phase: the
    onset is where the indicator came on from the run-in to the peak on."""
    rates, ev = phase(Piece(35, 10, (40, 40)), Piece(320, 100, (88, 95), throttle=True))
    result = analyze_throttle(rates, evidence=ev)
    assert result.peak_throttled and result.time_to_throttle_s == 10.0
    assert result.throttled_indices == (0,) and not any(result.is_throttled(i) for i in range(10))
    check_invariants(result, rates)


@pytest.mark.parametrize("pieces", [HEAT_ONLY, CACHE_THEN_HEAT, CACHE_ONLY])
def test_a_peak_level_with_the_indicator_off_is_judged_as_before(pieces: tuple[Piece, ...]) -> None:
    rates, ev = phase(*pieces)
    result = analyze_throttle(rates, evidence=ev)
    assert result.peak_indicator_pct == 0.0 and not result.peak_throttled
    assert result.time_to_throttle_s == pieces[0].seconds


def test_an_indicator_on_for_less_than_half_the_peak_leaves_it_the_peak() -> None:
    """A flag on for a minority of the peak level's time does not make it a throttled rate (the same
    half the cause of a throttled level is read at)."""
    rates, ev = phase(Piece(1500, 60, (30, 40)), Piece(1500, 40, (40, 45), throttle=True),
                      Piece(900, 100, (45, 75), throttle=True))
    result = analyze_throttle(rates, evidence=ev)
    assert result.peak_indicator_pct == pytest.approx(40.0) and not result.peak_throttled
    assert result.time_to_throttle_s == 100.0 and causes(result) == {900: "thermal"}


def test_a_hot_start_below_a_faster_throttled_peak_is_throttled_from_the_start() -> None:
    """QA (`ambient_c=60`, no cool-down): the random phase ran 26 s at 103 MB/s at the deepest throttle
    level, then at 165 MB/s one level up, the indicator on throughout. The 26 s were read as a ramp-up
    before the peak: time to the first slowdown 26 s, 2.69 GB 'written before throttling', 78 % throttled."""
    rates, ev = phase(Piece(103, 26, (80, 82), throttle=True), Piece(165, 57, (82, 84), throttle=True),
                      Piece(103, 37, (84, 85), throttle=True))
    result = analyze_throttle(rates, evidence=ev)
    assert result.peak_throttled and result.time_to_throttle_s == 0.0 and result.throttled_share_pct == 100.0
    slow = next(i for i, lv in enumerate(result.levels) if round(lv.rate) == 103)
    assert result.level_since_s(slow) == 0.0 and result.level_time_s(slow) == 63.0
    check_invariants(result, rates)


def test_a_ramp_with_the_indicator_on_now_and_then_is_still_a_ramp() -> None:
    """The walk back stops at a segment the indicator was off most of: a ramp-up stays no level's."""
    rates, ev = phase(Piece(35, 4), Piece(35, 1, throttle=True), Piece(35, 5), Piece(320, 100, throttle=True))
    result = analyze_throttle(rates, evidence=ev)
    assert result.peak_throttled and result.time_to_throttle_s == 10.0
