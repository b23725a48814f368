"""The bundle's series CSV puts telemetry on the periods by time, as the analyses do
(measurement.period_values), not by row number: the real-drive sampler's rows are not the series'
periods (it reads once a second on its own cadence, from its own start), the simulator's are."""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest

from ssdlab.bundle import series_csv_text
from ssdlab.engines.base import RunContext
from ssdlab.engines.sim import SimEngine
from ssdlab.measurement import Measurement, Series
from ssdlab.targets import parse_target
from ssdlab.workload import Workload


def measured(periods: int, telemetry: dict[str, tuple[float, ...]]) -> Measurement:
    ones = (1.0,) * periods
    series = Series(t_s=tuple(float(i + 1) for i in range(periods)), read_ios=ones, read_bytes=ones,
                    write_ios=ones, write_bytes=ones, read_lat_sum_ns=ones, write_lat_sum_ns=ones)
    return Measurement(workload=Workload(name="w", pattern="write", block_size_bytes=4096, runtime_s=periods),
                       engine="fio", runtime_s=float(periods), series=series, telemetry=telemetry)


def columns(m: Measurement) -> dict[str, list[float]]:
    rows = list(csv.DictReader(io.StringIO(series_csv_text(m))))
    return {key: [float(row[key]) for row in rows] for key in rows[0]}


def test_sampler_rows_half_a_second_off_the_periods() -> None:
    """Six rows read half a second into each second (0.5 .. 5.5 s) beside six 1-s periods: a
    period holds half of two rows' time, so a drive heating 10 °C a second reads 10 °C at the end
    of the first second, not the 5 °C row 0 was read at; the last period, half of whose time no
    row stands for, takes the one row that does."""
    t_s = tuple(i + 0.5 for i in range(6))
    m = measured(6, {"t_s": t_s, "temp_c": tuple(10.0 * t for t in t_s), "throttle_active": (0, 0, 1, 1, 0, 0)})
    out = columns(m)
    assert out["temp_c"] == pytest.approx([10.0, 20.0, 30.0, 40.0, 50.0, 55.0])  # was 5, 15, ... 55
    # the flag stands for the time since the row before: the share of each period it was on
    assert out["throttle_active"] == [0.0, 0.5, 1.0, 0.5, 0.0, 0.0]
    assert "t_s" in out and len(out["t_s"]) == 6


def test_a_sampler_with_fewer_rows_than_periods_is_still_written() -> None:
    """195 rows beside 200 periods (the sampler's old drift) were left out of the CSV."""
    t_s = tuple(k * 200 / 195 for k in range(1, 196))
    out = columns(measured(200, {"t_s": t_s, "temp_c": tuple(40.0 + 0.5 * t for t in t_s)}))
    assert len(out["temp_c"]) == 200 and not any(math.isnan(v) for v in out["temp_c"])
    assert max(abs(v - (40.0 + 0.5 * (i + 1))) for i, v in enumerate(out["temp_c"])) < 0.5


def test_the_simulators_columns_are_its_samples_as_written(tmp_path: Path) -> None:
    """The simulator samples at each period's end: its columns hold its samples row for row,
    written exactly as they were (the CSV of a simulated run is unchanged)."""
    w = Workload(name="w", pattern="write", block_size_bytes=131072, iodepth=32, runtime_s=12)
    m = SimEngine().measure(parse_target("sim:"), w, RunContext(raw_dir=tmp_path, bundle_dir=tmp_path))
    tel = m.telemetry
    assert tel["t_s"] == m.series.t_s and len(tel) > 3
    rows = list(csv.reader(io.StringIO(series_csv_text(m))))
    header, body = rows[0], rows[1:]
    for key, values in tel.items():
        if key != "t_s":
            at = header.index(key)
            assert [row[at] for row in body] == [str(v) for v in values], key
