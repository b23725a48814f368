"""Temperature readings that are not °C: readings of 104-141 (a drive at 40-60.5 °C read in °F)
passed the sources' plausibility check (173-423 K) and read as a 36.0 °C rise to a hottest second
of 141.0 °C, and as heat ("Throttles from heat ..."). A phase that begins, the drive idle, at a
reading of 100 or more is read in another unit: its readings are left out of every figure and vote,
and the verdict and the phase's note say so; they are not converted."""

from __future__ import annotations

from test_thermal_short_interrupted import recorded

from ssdlab.analysis.throttle import DEFAULT_CONFIG
from ssdlab.methods.thermal import analyze_measurement, phase_metrics, throttling_verdict

RATES = [1500.0] * 100 + [700.0] * 200
CELSIUS = [min(40.0 + 0.2 * t, 60.5) for t in range(300)]  # the drive's own: 40 to 60.5 °C


def fahrenheit(c: float) -> float:
    return float(round(c * 9 / 5 + 32))


def rows(temps: list[float], indicator: list[float] | None = None) -> dict[str, tuple[float, ...]]:
    out = {"t_s": tuple(i + 1.05 for i in range(len(temps))), "temp_c": tuple(temps)}
    return out if indicator is None else {**out, "throttle_active": tuple(indicator)}


def held_rnd() -> dict[str, object]:
    return phase_metrics("rnd", recorded([300.0] * 300, rows([40.0 + i // 60 for i in range(300)]), "rnd"),
                         DEFAULT_CONFIG)


def test_readings_in_fahrenheit_are_no_rise_in_celsius() -> None:
    found = recorded(RATES, rows([fahrenheit(c) for c in CELSIUS]))
    m = phase_metrics("seq", found, DEFAULT_CONFIG)
    # were 104.0, 141.0 and a rise of 36.0 "°C", and heat from it
    assert m["seq_start_temp_c"] is None and m["seq_max_temp_c"] is None and m["seq_temp_rise_c"] is None
    assert m["seq_temp_other_unit"] == "104 to 141"
    assert m["seq_cause"] == "unknown"  # nothing else tells heat from GC / cache
    verdict = throttling_verdict({**m, **held_rnd(), "warning_temp_c": None})
    assert verdict.outcome == "inconclusive"  # was "yes": "the temperature had risen 36.0 °C by then"
    assert "°C by then" not in verdict.because
    assert "sequential write's temperature readings, 104 to 141, are left out" in verdict.because
    note = analyze_measurement(found, DEFAULT_CONFIG).evidence[0]
    assert note.startswith("the temperature readings, 104 to 141, are left out of every figure: the phase began at "
                           "a reading of 104, the drive idle")
    assert "they fit °F, 40.0 to 60.6 °C, which ssdlab does not assume" in note


def test_the_drives_indicator_still_tells_heat() -> None:
    indicator = [0.0] * 100 + [1.0] * 200
    m = phase_metrics("seq", recorded(RATES, rows([fahrenheit(c) for c in CELSIUS], indicator)), DEFAULT_CONFIG)
    assert m["seq_cause"] == "thermal" and m["seq_temp_rise_c"] is None and m["seq_temp_other_unit"] == "104 to 141"


def test_celsius_readings_and_the_simulators_are_kept() -> None:
    """The same drive read in °C; and a simulated drive whose model runs hot (its ambient set) is
    never doubted."""
    m = phase_metrics("seq", recorded(RATES, rows(CELSIUS)), DEFAULT_CONFIG)
    assert m["seq_temp_other_unit"] is None and m["seq_start_temp_c"] == 40.0 and m["seq_cause"] == "thermal"
    sim = recorded(RATES, rows([c + 70.0 for c in CELSIUS])).model_copy(update={"engine": "sim"})
    assert phase_metrics("seq", sim, DEFAULT_CONFIG)["seq_start_temp_c"] == 110.0
