"""The thermal method's verdict for a phase on a drive without a throttle indicator that ran slower
before it first reached its peak, hotter than at it (a drive hot from the phase before that cooled
as it sped up): it read "No thermal throttling" ("no throttling"), the slower levels a ramp-up."""

from __future__ import annotations

from test_thermal_levels import CACHE_ONLY, Piece, measurement

from ssdlab.analysis.throttle import DEFAULT_CONFIG
from ssdlab.measurement import Measurement
from ssdlab.methods.thermal import phase_because, phase_metrics, throttling_verdict

# (MB/s, seconds, °C from, °C to, throttle flag (dropped below), GC moving pages, W): hot, then cooling.
HOT_THEN_COOLING: list[Piece] = [(284, 24, 78.0, 70.0, False, False, 2.4), (455, 30, 69.0, 71.0, False, False, 3.6)]


def without_indicator(m: Measurement) -> Measurement:
    """The measurement as fio with the telemetry sampler gives it on a SATA drive: no throttle channel."""
    return m.model_copy(update={"telemetry": {k: v for k, v in m.telemetry.items() if k != "throttle_level"}})


def metrics() -> dict[str, object]:
    return {**phase_metrics("seq", measurement(CACHE_ONLY), DEFAULT_CONFIG),
            **phase_metrics("rnd", without_indicator(measurement(HOT_THEN_COOLING)), DEFAULT_CONFIG)}


def test_a_slower_hotter_start_without_an_indicator_throttles_from_heat() -> None:
    m = metrics()
    assert m["rnd_peak_indicator_pct"] is None and m["rnd_cause"] == "thermal"  # was "none"
    assert m["rnd_time_to_throttle_s"] == 0.0 and m["rnd_time_to_heat_throttle_s"] == 0.0
    verdict = throttling_verdict(m)
    assert verdict.outcome == "yes"  # was "no": No thermal throttling
    assert verdict.summary == ("Throttles from heat from the start of random write (heat 44.4 % of the time)"
                               "; sequential write slowed by garbage collection / cache after 10 s, 95.0 % of its time")
    because = phase_because(m, "rnd")
    assert because.startswith("random write was throttled from the start (0 GB written before it), below the 455 "
                              "MB/s peak level it reached later; heat throttled it to 284 MB/s")
    assert "indicator" not in because  # the drive has none
