"""Periods without a temperature (NaN in measurement.period_values: the telemetry sampler's read
failed, or it stopped answering mid-run) are left out of every temperature figure, not carried
into it: Python's max over a NaN first period gave NaN as the phase's hottest second (null in the
bundle, "nan" in words), a level's mean over a gap was NaN, so its "ran hotter than the peak" vote
was lost and a heat throttle read as cause unknown, and the rise to throttling was NaN."""

from __future__ import annotations

import json
import math

import numpy as np

from ssdlab.analysis.throttle import DEFAULT_CONFIG, analyze_throttle
from ssdlab.measurement import Measurement, Series
from ssdlab.methods.thermal import evidence_of, phase_metrics
from ssdlab.workload import Workload

N = 120
RATES = [1500.0] * 60 + [900.0] * 60  # throttled from 60 s
HEATING = [40.0 + 0.3 * i for i in range(N)]  # up to 75.7 °C


def sampled(temps: list[float]) -> Measurement:
    """A 120-s phase as fio measures it, the sampler's readings stamped just after each period."""
    ends = tuple(float(i + 1) for i in range(N))
    series = Series(period_s=1.0, start_s=0.0, t_s=ends, read_ios=(0.0,) * N, read_bytes=(0.0,) * N,
                    write_ios=tuple(RATES), write_bytes=tuple(r * 1e6 for r in RATES),
                    read_lat_sum_ns=(0.0,) * N, write_lat_sum_ns=(0.0,) * N)
    w = Workload(name="thermal-seq", pattern="write", block_size_bytes=131072, runtime_s=float(N), log_period_s=1.0)
    return Measurement(workload=w, engine="fio", runtime_s=float(N), series=series,
                       telemetry={"t_s": tuple(e + 0.05 for e in ends), "temp_c": tuple(temps)})


def test_failed_first_read_leaves_the_hottest_second_and_no_rise() -> None:
    found = sampled([math.nan, *HEATING[1:]])
    m = phase_metrics("seq", found, DEFAULT_CONFIG)
    periods = np.array(evidence_of(found).temp_c, dtype=float)  # each period's readings, weighed by time
    assert math.isnan(periods[0]) and m["seq_max_temp_c"] == np.nanmax(periods)
    assert m["seq_start_temp_c"] is None and m["seq_temp_rise_c"] is None  # no start: no rise measured
    json.dumps(m, allow_nan=False)


def test_sampler_never_answering_gives_no_temperature_figures() -> None:
    m = phase_metrics("seq", sampled([math.nan] * N), DEFAULT_CONFIG)
    assert m["seq_max_temp_c"] is None and m["seq_temp_rise_c"] is None and m["seq_start_temp_c"] is None
    json.dumps(m, allow_nan=False)


def test_gap_inside_a_level_leaves_its_mean_and_the_heat_vote() -> None:
    temps = [math.nan if 80 <= i < 90 else t for i, t in enumerate(HEATING)]  # sampler silent 10 s
    found = sampled(temps)
    result = analyze_throttle(found.series.mb_s("write"), 1.0, evidence_of(found), DEFAULT_CONFIG)
    throttled = result.levels[1]
    periods = np.array(evidence_of(found).temp_c, dtype=float)
    assert np.isnan(periods[81:90]).all()
    assert throttled.mean_temp_c is not None and math.isclose(throttled.mean_temp_c, np.nanmean(periods[60:]))
    assert result.cause == "thermal"  # rose 18 °C to the onset, and the level ran hotter than the peak
    assert result.temp_rate_corr is not None and math.isfinite(result.temp_rate_corr)
    assert not any("nan" in text for text in result.evidence)
