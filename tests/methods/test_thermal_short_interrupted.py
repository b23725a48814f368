"""A "no" (no thermal throttling) or a vote for GC / cache claims an absence of heat; the run must
be long enough, and its telemetry last long enough, to show it.

- A phase that slowed from GC / cache after 5 s and ran 30 s read "No thermal throttling": heat
  might have throttled it later, as a phase that held its peak for 30 s tells no "no" either
  (thermal.NO_VERDICT_MIN_S).
- A phase that wrote nothing (200 s at 0 MB/s) read "No thermal throttling": its fastest level
  was a stall, taken as the peak it "held throughout".
- A temperature that read the same in every period for minutes (a stuck sensor, or a fixed value)
  voted GC / cache as a drive that did not heat ("No thermal throttling"); it cannot tell.
- A sampler that died before the onset: measurement.period_samples held its last reading for every
  later period, so the rise to a slowdown at 90 s was the rise up to 40 s (a rise of 2.9 °C read as
  "the rate fell without the temperature rising", a vote for GC / cache), and an indicator read off
  at 40 s read off for the minutes after it (a second vote for GC / cache)."""

from __future__ import annotations

import math

from ssdlab.analysis.throttle import DEFAULT_CONFIG, analyze_throttle
from ssdlab.measurement import Measurement, Series
from ssdlab.methods.thermal import evidence_of, phase_metrics, throttling_verdict
from ssdlab.workload import Workload


def recorded(rates: list[float], telemetry: dict[str, tuple[float, ...]], phase: str = "seq") -> Measurement:
    """A phase as fio measures it at 1-s periods, with the sampler's rows (stamped 0.05 s after each
    period) as given."""
    n = len(rates)
    ends = tuple(float(i + 1) for i in range(n))
    series = Series(period_s=1.0, start_s=0.0, t_s=ends, read_ios=(0.0,) * n, read_bytes=(0.0,) * n,
                    write_ios=tuple(rates), write_bytes=tuple(r * 1e6 for r in rates),
                    read_lat_sum_ns=(0.0,) * n, write_lat_sum_ns=(0.0,) * n)
    w = Workload(name=f"thermal-{phase}", pattern="write", block_size_bytes=131072, runtime_s=float(n),
                 log_period_s=1.0)
    return Measurement(workload=w, engine="fio", runtime_s=float(n), series=series, telemetry=telemetry)


def rows(values: list[float], key: str = "temp_c") -> dict[str, tuple[float, ...]]:
    return {"t_s": tuple(i + 1.05 for i in range(len(values))), key: tuple(values)}


def test_a_short_phase_slowed_by_gc_gives_no_verdict() -> None:
    """30 s: 5 s at 1500 MB/s, then 600 MB/s at a flat 40 °C (GC / cache); random write held 300 s."""
    seq = phase_metrics("seq", recorded([1500.0] * 5 + [600.0] * 25, rows([40.0] * 30)), DEFAULT_CONFIG)
    rnd = phase_metrics("rnd", recorded([300.0] * 300, rows([40.0] * 300), "rnd"), DEFAULT_CONFIG)
    assert seq["seq_cause"] == "gc-cache" and seq["seq_measured_s"] == 30.0 and rnd["rnd_cause"] == "none"
    verdict = throttling_verdict({**seq, **rnd, "warning_temp_c": None})
    assert verdict.outcome == "inconclusive"  # was "no": "No thermal throttling (garbage collection / cache ...)"
    assert verdict.summary.startswith("No verdict: the sequential write phase was too short to rule out "
                                      "throttling (garbage collection / cache: sequential write slowed after 5 s")
    assert "sequential write ran 30 s in all (slowed by garbage collection / cache after 5 s" in verdict.because
    assert "seq_runtime_s of at least 120 s" in verdict.because


def test_the_same_slowdown_over_300_s_is_a_no() -> None:
    whole_degrees = [40.0 + i // 60 for i in range(300)]  # a sensor that moves: 40 to 44 °C over the run
    seq = phase_metrics("seq", recorded([1500.0] * 5 + [600.0] * 295, rows(whole_degrees)), DEFAULT_CONFIG)
    rnd = phase_metrics("rnd", recorded([300.0] * 300, rows([40.0] * 300), "rnd"), DEFAULT_CONFIG)
    assert throttling_verdict({**seq, **rnd, "warning_temp_c": None}).outcome == "no"


SLOW_HEAT = [40.0 + 0.075 * i for i in range(40)]  # 42.9 °C at 40 s, when the sampler died
RATES = [1500.0] * 90 + [900.0] * 30  # the fall at 90 s


def test_temperature_after_the_sampler_died_is_no_reading() -> None:
    found = recorded(RATES, rows(SLOW_HEAT))
    temps = evidence_of(found).temp_c
    assert temps is not None and all(math.isfinite(t) for t in temps[:41]) and all(math.isnan(t) for t in temps[41:])


def test_a_rise_up_to_a_dead_sampler_is_no_vote_for_gc() -> None:
    found = recorded(RATES, rows(SLOW_HEAT))
    result = analyze_throttle(found.series.mb_s("write"), 1.0, evidence_of(found), DEFAULT_CONFIG)
    assert result.time_to_throttle_s == 90.0 and result.temp_rise_open
    assert result.cause == "unknown"  # was gc-cache: 2.9 °C "up to the onset" was the rise up to 40 s
    assert any("temperature rose at least 2.9 °C up to the onset of throttling, at 90 s: its readings stopped at "
               "41 s, before it" in text for text in result.evidence)
    m = phase_metrics("seq", found, DEFAULT_CONFIG)
    assert m["seq_temp_stopped_s"] == 41.0 and m["seq_temp_rise_c"] is not None


def test_an_indicator_after_the_sampler_died_is_not_off() -> None:
    """The indicator read off for 40 s, then nothing: off "during 0 % of the level's time" was a GC vote."""
    found = recorded(RATES, {**rows(SLOW_HEAT), "throttle_active": (0.0,) * 40})
    ev = evidence_of(found)
    assert ev.throttle_active is not None and ev.throttle_active[50] is None and ev.throttle_active[10] is False
    result = analyze_throttle(found.series.mb_s("write"), 1.0, ev, DEFAULT_CONFIG)
    assert result.overall is not None and result.overall.indicator_pct is None
    assert result.cause == "unknown"  # was gc-cache, two votes (flat, indicator off) to none


def test_the_verdict_says_the_rise_is_a_lower_bound() -> None:
    """A heat throttle at 90 s with the drive's indicator (read to the end) and the temperature's
    readings stopped at 41 s: the rise to it is at least the rise to 41 s."""
    on = {"t_s": tuple(i + 1.05 for i in range(120)), "temp_c": (*SLOW_HEAT, *[math.nan] * 80),
          "throttle_active": tuple(float(i >= 90) for i in range(120))}
    found = recorded(RATES, on)
    seq = phase_metrics("seq", found, DEFAULT_CONFIG)
    rnd = phase_metrics("rnd", recorded([300.0] * 300, rows([40.0] * 300), "rnd"), DEFAULT_CONFIG)
    assert seq["seq_cause"] == "thermal" and seq["seq_temp_stopped_s"] == 41.0
    verdict = throttling_verdict({**seq, **rnd, "warning_temp_c": None})
    assert verdict.outcome == "yes"
    assert "the temperature had risen at least 2.9 °C by then (hottest second: 42.9 °C read; the readings stopped " \
        "at 41 s, before the slowdown, so the rise after that is not known)" in verdict.because, verdict.because


def test_a_sampler_that_read_to_the_end_is_as_before() -> None:
    found = recorded(RATES, rows([40.0 + 0.075 * i for i in range(120)]))
    m = phase_metrics("seq", found, DEFAULT_CONFIG)
    assert m["seq_temp_stopped_s"] is None and m["seq_measured_s"] == 120.0
    assert all(math.isfinite(t) for t in evidence_of(found).temp_c or [])


def test_a_phase_that_wrote_nothing_gives_no_verdict() -> None:
    seq = phase_metrics("seq", recorded([0.0] * 200, rows([40.0 + 0.1 * i for i in range(200)])), DEFAULT_CONFIG)
    rnd = phase_metrics("rnd", recorded([300.0] * 300, rows([40.0] * 300), "rnd"), DEFAULT_CONFIG)
    assert seq["seq_cause"] is None and seq["seq_peak_mb_s"] is None and seq["seq_mean_mb_s"] == 0.0
    verdict = throttling_verdict({**seq, **rnd, "warning_temp_c": None})
    assert verdict.outcome == "inconclusive"  # was "no": "No thermal throttling"
    assert verdict.summary == "No verdict: the sequential write phase wrote nothing"
    assert verdict.because.startswith("sequential write ran 200 s at 0 MB/s: no write completed")


def test_a_stuck_sensor_is_no_vote_for_gc() -> None:
    """200 s, throttled from 90 s, the temperature 40.0 °C in every period: no sign it did not heat."""
    found = recorded([1500.0] * 90 + [900.0] * 110, rows([40.0] * 200))
    result = analyze_throttle(found.series.mb_s("write"), 1.0, evidence_of(found), DEFAULT_CONFIG)
    assert result.cause == "unknown"  # was gc-cache: "temperature rose 0.0 °C"
    assert result.overall is not None and result.overall.stuck_c == 40.0
    assert any("the temperature read 40.0 °C in every period" in text for text in result.evidence)
    rnd = phase_metrics("rnd", recorded([300.0] * 300, rows([40.0 + i // 60 for i in range(300)]), "rnd"),
                        DEFAULT_CONFIG)
    verdict = throttling_verdict({**phase_metrics("seq", found, DEFAULT_CONFIG), **rnd, "warning_temp_c": None})
    assert verdict.outcome == "inconclusive" and verdict.summary.startswith("Slows down, cause not known")


def test_a_constant_temperature_over_a_short_phase_still_votes() -> None:
    """Under STUCK_SENSOR_S of readings a flat whole-degree sensor is a drive that did not heat, as before."""
    found = recorded([1500.0] * 5 + [600.0] * 25, rows([40.0] * 30))
    result = analyze_throttle(found.series.mb_s("write"), 1.0, evidence_of(found), DEFAULT_CONFIG)
    assert result.cause == "gc-cache" and result.overall is not None and result.overall.stuck_c is None
