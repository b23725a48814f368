"""Temperature read every 10 s (a slow sampler, or smartctl polling): a sample stands for the time
since the one before, so the first period's temperature was the reading taken 10 s into the phase,
the drive already heating, and the rise to throttling came out short (QA: 17.8 °C reported against a
true 20.8 °C). A reading from before the phase (the sampler's as it started, the drive idle) is the
start temperature where one was kept; without one the rise is a lower bound, named so."""

from __future__ import annotations

from pathlib import Path

from test_thermal_short_interrupted import recorded

from ssdlab.analysis.throttle import DEFAULT_CONFIG
from ssdlab.measurement import Measurement
from ssdlab.methods.thermal import phase_metrics, phase_specs, throttling_verdict
from ssdlab.telemetry.sampler import TEMP_BEFORE_C, TEMP_BEFORE_S, Sampler, with_telemetry


def true_temp_c(t_s: float) -> float:
    """40 °C idle, heating 0.3 °C a second to its throttle point, 60.8 °C at 69.3 s, held there."""
    return round(min(40.0 + 0.3 * t_s, 60.8), 1)


RATES = [1500.0] * 70 + [700.0] * 230  # heat throttles it at 70 s: a true rise of 20.8 °C
READ_AT = [10.0 * k + 0.05 for k in range(1, 31)]  # every 10 s, 50 ms after the tick


def slow_sampled(before_c: float | None = None) -> Measurement:
    rows = {"t_s": tuple(READ_AT), "temp_c": tuple(true_temp_c(t) for t in READ_AT),
            "throttle_active": tuple(1.0 if t > 70 else 0.0 for t in READ_AT)}
    found = recorded(RATES, rows)
    if before_c is None:
        return found
    return found.model_copy(update={"engine_facts": {TEMP_BEFORE_C: before_c, TEMP_BEFORE_S: 0.2}})


def held_rnd() -> dict[str, object]:
    rows = {"t_s": tuple(i + 1.05 for i in range(300)), "temp_c": tuple(40.0 + i // 60 for i in range(300))}
    return phase_metrics("rnd", recorded([300.0] * 300, rows, "rnd"), DEFAULT_CONFIG)


def test_a_reading_from_before_the_phase_is_its_start_temperature() -> None:
    m = phase_metrics("seq", slow_sampled(before_c=40.0), DEFAULT_CONFIG)
    assert m["seq_time_to_throttle_s"] == 70.0 and m["seq_cause"] == "thermal"
    assert m["seq_start_temp_c"] == 40.0  # was 43.0, read at 10 s
    assert round(m["seq_temp_rise_c"], 1) == 20.8  # was 17.8
    assert m["seq_temp_first_read_s"] is None  # exact: no lower bound
    spec = {s.name: s for s in phase_specs("seq")}["seq_temp_rise_c"]
    assert spec.lower_bound is not None and spec.lower_bound.reason(m) is None


def test_without_one_the_rise_from_a_late_first_reading_is_a_lower_bound() -> None:
    m = phase_metrics("seq", slow_sampled(), DEFAULT_CONFIG)
    assert m["seq_start_temp_c"] == 43.0 and round(m["seq_temp_rise_c"], 1) == 17.8
    assert m["seq_temp_first_read_s"] == 10.05
    specs = {s.name: s for s in phase_specs("seq")}
    for name in ("seq_temp_rise_c", "seq_heat_temp_rise_c"):
        bound = specs[name].lower_bound
        assert bound is not None and bound.reason(m) == "first reading late"  # was None: read as exact
    verdict = throttling_verdict({**m, **held_rnd(), "warning_temp_c": None})
    assert verdict.outcome == "yes"
    assert "the temperature had risen at least 17.8 °C by then" in verdict.because
    assert "the temperature was first read 10.1 s into the phase, so the rise before that is not known" in \
        verdict.because


def test_a_small_rise_from_a_late_first_reading_is_no_vote_for_gc() -> None:
    """A drive heating fast before the first reading at 10 s, then nearly flat: 3 °C from the first
    reading to the slowdown says nothing of the seconds before it (it voted GC / cache)."""
    temps = [round(51.0 + 0.02 * t) for t in READ_AT]  # 51 °C at 10 s, 52 °C from 30 s, 57 °C at 300 s
    found = recorded(RATES, {"t_s": tuple(READ_AT), "temp_c": tuple(float(t) for t in temps)})
    m = phase_metrics("seq", found, DEFAULT_CONFIG)
    assert m["seq_temp_rise_c"] < 5.0 and m["seq_cause"] == "unknown"  # was gc-cache: "flat" up to the slowdown


def test_the_sampler_keeps_its_reading_from_before_fios_start() -> None:
    """The baseline read as the sampler started (the drive idle), or a row read while fio was
    starting up, becomes the measurement's temperature before it; rows after the start do not."""
    sampler = Sampler(drive=None, proc_stat=Path("/nonexistent/stat"))
    sampler.baseline = (0.0, {"temp_c": 38.0})
    sampler.rows = [(10.05 * k, {"temp_c": 40.0 + k}) for k in range(1, 4)]
    m = slow_sampled()
    facts = with_telemetry(m, sampler, 1.3).engine_facts
    assert facts[TEMP_BEFORE_C] == 38.0 and facts[TEMP_BEFORE_S] == 1.3
    facts = with_telemetry(m, sampler, 12.0).engine_facts  # a row at 10.05 s, during a long start-up
    assert facts[TEMP_BEFORE_C] == 41.0 and abs(float(facts[TEMP_BEFORE_S] or 0) - 1.95) < 1e-9
    sampler.baseline = None
    assert TEMP_BEFORE_C not in with_telemetry(m, sampler, 1.3).engine_facts
