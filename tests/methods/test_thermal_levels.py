"""The thermal method's figures and verdict when a phase slows down for two reasons in turn (QA: a
write cache that ran out, then heat throttling later in the phase, read 'gc-cache' for the whole
phase and the verdict said 'No thermal throttling')."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.analysis.throttle import DEFAULT_CONFIG
from ssdlab.measurement import Measurement, OpTotals, Series
from ssdlab.methods.thermal import phase_metrics, throttling_verdict
from ssdlab.workload import Workload

# (MB/s, seconds, °C from, °C to, the drive's throttle flag, GC moving pages, W)
Piece = tuple[float, int, float, float, bool, bool, float]
CACHE_THEN_HEAT: list[Piece] = [(1500, 20, 30, 31, False, False, 5.0), (800, 180, 31, 75, False, True, 5.2),
                                (500, 100, 75, 72, True, True, 1.7)]
HEAT_ONLY: list[Piece] = [(1500, 100, 30, 75, False, False, 5.0), (900, 100, 75, 72, True, False, 3.0)]
CACHE_ONLY: list[Piece] = [(1500, 10, 30, 31, False, False, 5.0), (700, 190, 31, 35, False, True, 5.1)]


def measurement(pieces: Sequence[Piece]) -> Measurement:
    """A sequential-write measurement with the simulator's telemetry channels, piece by piece."""
    rates, temp, flag, gc, power = [], [], [], [], []
    for rate, n, t0, t1, on, moved, watts in pieces:
        rates += [rate] * n
        temp += [t0 + (t1 - t0) * i / max(n - 1, 1) for i in range(n)]
        flag += [1.0 if on else 0.0] * n
        gc += [100.0 if moved else 0.0] * n
        power += [watts] * n
    n = len(rates)
    t_s = tuple(float(i + 1) for i in range(n))
    series = Series(period_s=1.0, t_s=t_s, read_ios=(0.0,) * n, write_ios=(1.0,) * n, read_bytes=(0.0,) * n,
                    write_bytes=tuple(r * 1e6 for r in rates), read_lat_sum_ns=(0.0,) * n,
                    write_lat_sum_ns=(0.0,) * n)
    telemetry = {"t_s": t_s, "temp_c": tuple(temp), "throttle_level": tuple(flag), "gc_pages_moved": tuple(gc),
                 "power_w": tuple(power)}
    w = Workload(name="thermal-seq", pattern="write", block_size_bytes=131072, runtime_s=n)
    return Measurement(workload=w, engine="sim", runtime_s=float(n), series=series, telemetry=telemetry,
                       write=OpTotals(ios=n, bytes=int(sum(rates) * 1e6), lat_sum_ns=0.0))


def metrics_of(seq: Sequence[Piece], rnd: Sequence[Piece] = CACHE_ONLY) -> dict[str, object]:
    return {**phase_metrics("seq", measurement(seq), DEFAULT_CONFIG),
            **phase_metrics("rnd", measurement(rnd), DEFAULT_CONFIG)}


def test_cache_then_heat_throttles_from_heat_after_the_cache_ran_out() -> None:
    m = metrics_of(CACHE_THEN_HEAT)
    assert m["seq_cause"] == "thermal"
    assert m["seq_time_to_throttle_s"] == 20.0 and m["seq_time_to_heat_throttle_s"] == 200.0
    assert m["seq_throttled_levels"] == "800, 500"
    verdict = throttling_verdict(m)
    assert verdict.outcome == "yes"
    assert verdict.summary.startswith("Throttles from heat after 200 s of sequential write")
    assert "the first slowdown was not heat: heat throttling set in later, after 200 s" in verdict.because
    assert verdict.figures["seq_time_to_heat_throttle_s"] == 200.0
    check_phase(m, "seq")


def test_heat_only_throttles_from_heat_at_the_time_to_throttle() -> None:
    m = metrics_of(HEAT_ONLY)
    assert m["seq_cause"] == "thermal" and m["seq_time_to_heat_throttle_s"] == m["seq_time_to_throttle_s"] == 100.0
    verdict = throttling_verdict(m)
    assert verdict.outcome == "yes" and "after 100 s of sequential write" in verdict.summary
    assert "first slowdown was not heat" not in verdict.because


def test_cache_only_is_no_thermal_throttling() -> None:
    m = metrics_of(CACHE_ONLY)
    assert m["seq_cause"] == m["rnd_cause"] == "gc-cache" and m["seq_time_to_heat_throttle_s"] is None
    verdict = throttling_verdict(m)
    assert verdict.outcome == "no"
    assert verdict.because == "Sequential write: garbage collection / cache; Random write: garbage collection / cache"


def test_a_verdict_of_metrics_without_a_time_to_heat_throttling_uses_the_time_to_throttle() -> None:
    """Metrics recorded before each level had its own cause have no time to heat throttling."""
    verdict = throttling_verdict({"seq_cause": "thermal", "seq_time_to_throttle_s": 65.0, "rnd_cause": "none",
                                  "seq_throttled_share_pct": 60.0})
    assert verdict.outcome == "yes" and "after 65 s of sequential write" in verdict.summary


def check_phase(m: Mapping[str, object], phase: str) -> None:
    """The cause and the two times agree."""
    cause, when, heat = m[f"{phase}_cause"], m[f"{phase}_time_to_throttle_s"], m[f"{phase}_time_to_heat_throttle_s"]
    assert (heat is not None) == (cause == "thermal")
    if m[f"{phase}_peak_mb_s"] is None:  # too short for a level: no cause either way
        assert cause is None and when is None
        return
    assert (cause == "none") == (when is None)
    if heat is not None:
        assert isinstance(heat, float) and isinstance(when, float) and heat >= when


pieces = st.lists(st.tuples(st.sampled_from([0.0, 130.0, 500.0, 950.0, 1500.0]), st.integers(1, 40),
                            st.floats(20, 90), st.floats(20, 90), st.booleans(), st.booleans(), st.floats(0.5, 15)),
                  min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(pieces)
def test_cause_and_times_agree_for_any_piecewise_run(parts: list[Piece]) -> None:
    m = phase_metrics("seq", measurement(parts), DEFAULT_CONFIG)
    check_phase(m, "seq")


@pytest.mark.parametrize("seq", [CACHE_THEN_HEAT, HEAT_ONLY, CACHE_ONLY])
def test_the_verdict_names_heat_exactly_when_a_phase_has_a_thermal_level(seq: list[Piece]) -> None:
    m = metrics_of(seq)
    assert (throttling_verdict(m).outcome == "yes") == (m["seq_time_to_heat_throttle_s"] is not None)
