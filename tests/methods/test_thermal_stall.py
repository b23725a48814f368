"""A stall after the peak (the drive wrote nothing for minutes) is neither heat nor garbage
collection / cache: QA saw 140 s at 0 MB/s read "garbage collection / cache", its temperature
falling while idle and the drive's throttle indicator off voting so. The stall is named, with its
length, and gives no vote."""

from __future__ import annotations

from test_thermal_short_interrupted import recorded

from ssdlab.analysis.throttle import DEFAULT_CONFIG
from ssdlab.methods.thermal import analyze_measurement, phase_metrics, throttling_verdict

# 200 s at 1500 MB/s warming 4 °C (a drive in a cool case), a 140-s stall cooling, then the peak again.
RATES = [1500.0] * 200 + [0.0] * 140 + [1500.0] * 260
TEMPS = [40.0 + t * 0.02 for t in range(200)] + [44.0 - 0.02 * t for t in range(140)] + \
    [41.2 + 0.01 * t for t in range(260)]


def rows(temps: list[float], indicator: list[float]) -> dict[str, tuple[float, ...]]:
    """The sampler's rows, 0.05 s after each 1-s period: whole degrees, and the throttle flag."""
    return {"t_s": tuple(i + 1.05 for i in range(len(temps))), "temp_c": tuple(float(round(t)) for t in temps),
            "throttle_active": tuple(indicator)}


def held(phase: str = "rnd") -> dict[str, object]:
    """A phase that held its peak for 300 s, its temperature moving, its indicator off."""
    temps = [40.0 + i // 60 for i in range(300)]
    return phase_metrics(phase, recorded([300.0] * 300, rows(temps, [0.0] * 300), phase), DEFAULT_CONFIG)


def test_a_stall_after_the_peak_is_no_gc_and_says_what_it_is() -> None:
    found = recorded(RATES, rows(TEMPS, [0.0] * 600))
    result = analyze_measurement(found, DEFAULT_CONFIG)
    assert result.time_to_throttle_s == 200.0 and [lv.rate for lv in result.throttled_levels] == [0.0]
    assert result.cause == "unknown"  # was gc-cache: the indicator off and the falling temperature voted so
    assert result.stalled_s == 140.0
    assert any("a stall: the drive wrote nothing (0 MB/s) for 140 s, from 200 s, which is neither heat nor garbage "
               "collection / cache" in text for text in result.evidence)
    m = phase_metrics("seq", found, DEFAULT_CONFIG)
    assert m["seq_gc_share_pct"] == 0.0 and m["seq_stalled_s"] == 140.0
    verdict = throttling_verdict({**m, **held(), "warning_temp_c": None})
    assert verdict.outcome == "inconclusive"  # was "no": "No thermal throttling (garbage collection / cache ...)"
    assert verdict.summary == "Stalls, cause not known (sequential write stalled (wrote nothing) for 140 s)"
    assert "a stall is neither heat nor garbage collection / cache" in verdict.because


def test_a_stall_beside_a_gc_level_is_not_counted_as_gc() -> None:
    """A cache runs out at 100 s (600 MB/s, flat temperature: GC / cache), then a 40-s stall: the GC
    share is the 600 MB/s level's time alone, and the "no" names the stall apart."""
    rates = [1500.0] * 100 + [600.0] * 300 + [0.0] * 40 + [600.0] * 160
    temps = [40.0 + (i // 60) * 0.5 for i in range(600)]
    m = phase_metrics("seq", recorded(rates, rows(temps, [0.0] * 600)), DEFAULT_CONFIG)
    assert m["seq_cause"] == "gc-cache" and m["seq_stalled_s"] == 40.0
    assert m["seq_gc_share_pct"] == 100.0 * 460 / 600  # was 500 / 600: the stall voted GC / cache too
    verdict = throttling_verdict({**m, **held(), "warning_temp_c": None})
    assert verdict.outcome == "no" and "sequential write stalled (wrote nothing) for 40 s, neither heat nor GC / " \
        "cache" in verdict.because


def test_a_phase_without_a_stall_has_no_stall_figure() -> None:
    rates = [1500.0] * 100 + [600.0] * 200
    m = phase_metrics("seq", recorded(rates, rows([40.0 + i / 60 for i in range(300)], [0.0] * 300)), DEFAULT_CONFIG)
    assert m["seq_stalled_s"] is None
