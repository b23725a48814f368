"""A temperature rise to a slowdown whose readings stopped before it (the sampler died) is the rise
up to the last reading: a lower bound. The verdict said "at least"; the tables printed it as an
exact figure, and compare set it beside another drive's with a Difference in °C."""

from __future__ import annotations

import math

from test_thermal_short_interrupted import RATES, SLOW_HEAT, recorded, rows

from ssdlab.analysis.throttle import DEFAULT_CONFIG
from ssdlab.bundle import TestRecord
from ssdlab.compare import metric_rows
from ssdlab.methods.thermal import READINGS_STOPPED, ThermalParams, ThermalTest, phase_metrics
from ssdlab.report.compare_page import row_cells
from ssdlab.targets.base import TargetInfo

TARGET = TargetInfo(spec="fake:", kind="fake", capacity_bytes=1 << 30)
SPECS = ThermalTest().metric_specs(ThermalParams(), TARGET)


def dead_sampler_metrics() -> dict[str, object]:
    """Heat throttling at 90 s (the drive's indicator, read to the end); temperatures to 41 s only."""
    telemetry = {"t_s": tuple(i + 1.05 for i in range(120)), "temp_c": (*SLOW_HEAT, *[math.nan] * 80),
                 "throttle_active": tuple(float(i >= 90) for i in range(120))}
    return dict(phase_metrics("seq", recorded(RATES, telemetry), DEFAULT_CONFIG))


def whole_run_metrics() -> dict[str, object]:
    heat = [40.0 + 0.2 * i for i in range(120)]
    telemetry = {**rows(heat), "throttle_active": tuple(float(i >= 90) for i in range(120))}
    return dict(phase_metrics("seq", recorded(RATES, telemetry), DEFAULT_CONFIG))


def test_a_rise_up_to_readings_that_stopped_first_is_a_bound() -> None:
    metrics = dead_sampler_metrics()
    spec = SPECS.get("seq_temp_rise_c")
    assert spec is not None and metrics["seq_time_to_throttle_s"] == 90.0
    assert spec.bound_why(metrics) == READINGS_STOPPED and spec.exact(metrics) is None
    assert spec.bound_text("2.9", spec.bound_why(metrics)) == f"≥ 2.9 ({READINGS_STOPPED})"
    exact = whole_run_metrics()
    assert spec.bound_why(exact) is None and spec.exact(exact) == exact["seq_temp_rise_c"]


def test_compare_gives_no_difference_from_it() -> None:
    records = [TestRecord(name="thermal", test="thermal", status="complete", metrics=m)  # type: ignore[arg-type]
               for m in (whole_run_metrics(), dead_sampler_metrics())]
    row = next(r for r in metric_rows(records, SPECS) if r.name == "seq_temp_rise_c")
    assert row.differences == (None,) and row.is_bound(1) and not row.is_bound(0)
    cells = row_cells(row, (True, True))
    assert cells[2].startswith("≥ 2.9") and READINGS_STOPPED in cells[2], cells
    assert READINGS_STOPPED in cells[3], cells  # the difference cell says why there is none
