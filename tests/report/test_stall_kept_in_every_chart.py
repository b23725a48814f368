"""Every chart that draws per-second data keeps a one-second stall of a long run: the per-second
IOPS and MB/s line charts of any test, compare's overlaid curves and thermal lines, the
consistency telemetry panels, the linear pass's throughput against position and the thermal
section's MB/s and temperature. QA (stop 47): these took every k-th second of a long run, so a
lone 0-IOPS second was drawn or not by where it fell."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import pytest

from ssdlab.analysis.consistency import RunSeries
from ssdlab.measurement import Measurement, Series, Workload
from ssdlab.report import compare_figures, consistency_charts
from ssdlab.report.charts import MAX_POINTS_PER_CURVE, chart_spec, series_rows, thin_keeping_extremes, thinned_every
from ssdlab.report.compare_figures import curve_rows
from ssdlab.report.section_linear import MAX_POINTS as LINEAR_POINTS
from ssdlab.report.section_linear import position_rows
from ssdlab.report.section_thermal import rate_temp_rows
from ssdlab.report.types import FigureLike

BLOCK = 4096
IOPS = 10_000.0


def long_run(seconds: int, stall_at: int, direction: str = "write", telemetry: dict | None = None) -> Measurement:
    """A run at IOPS (4 KiB) every second but second `stall_at` (0-based), in which nothing completed.
    The stall sits at an odd index past every k-th second the old thinning drew."""
    ios = [0.0 if i == stall_at else IOPS for i in range(seconds)]
    none = (0.0,) * seconds
    moved = tuple(ios)
    series = Series(t_s=tuple(float(i + 1) for i in range(seconds)),
                    read_ios=moved if direction == "read" else none, write_ios=moved if direction == "write" else none,
                    read_bytes=tuple(v * BLOCK for v in moved) if direction == "read" else none,
                    write_bytes=tuple(v * BLOCK for v in moved) if direction == "write" else none,
                    read_lat_sum_ns=tuple(v * 50_000 for v in moved) if direction == "read" else none,
                    write_lat_sum_ns=tuple(v * 50_000 for v in moved) if direction == "write" else none)
    pattern = "randread" if direction == "read" else "randwrite"
    workload = Workload(name="w", pattern=pattern, block_size_bytes=BLOCK, runtime_s=seconds)
    return Measurement(workload=workload, engine="sim", runtime_s=float(seconds), series=series,
                       telemetry=telemetry or {})


def every_kth(count: int, limit: int) -> int:
    """The step of the old thinning (every k-th row): the stall is put off it."""
    return max(1, -(-count // limit))


def off_every_kth(count: int, limit: int) -> int:
    step = every_kth(count, limit)
    assert step > 1
    return 3 * step + 1  # never a multiple of step


def lowest(rows: Sequence[dict], field: str) -> float:
    return min(r[field] for r in rows if r[field] is not None)


def test_per_second_iops_and_mb_s_keep_a_stall() -> None:
    seconds = 5 * MAX_POINTS_PER_CURVE + 7
    stall = off_every_kth(seconds, MAX_POINTS_PER_CURVE)
    rows = series_rows("w", long_run(seconds, stall))
    assert len(rows) <= MAX_POINTS_PER_CURVE + 2
    assert lowest(rows, "iops") == 0.0 and lowest(rows, "mb_s") == 0.0
    assert [r["t_s"] for r in rows] == sorted(r["t_s"] for r in rows)


def test_both_values_keep_their_extremes() -> None:
    """Rows drawn twice (IOPS and MB/s) keep each's lowest: MB/s need not follow IOPS (mixed sizes)."""
    rows = [{"t_s": float(i), "iops": 100.0, "mb_s": 400.0} for i in range(9001)]
    rows[4001]["iops"] = 1.0
    rows[6003]["mb_s"] = 2.0
    kept = thin_keeping_extremes(rows, ("iops", "mb_s"), 2000)
    assert len(kept) <= 2000 + 4
    assert lowest(kept, "iops") == 1.0 and lowest(kept, "mb_s") == 2.0
    assert thinned_every(9001, 2000, 2) == 19  # 2 rows of each of 2 fields per stretch: ceil(4 * 9,001 / 2,000)


def test_compare_curves_keep_a_stall() -> None:
    seconds = 5 * MAX_POINTS_PER_CURVE + 7
    rows = curve_rows("drive A", long_run(seconds, off_every_kth(seconds, MAX_POINTS_PER_CURVE), "read"))
    assert len(rows) <= MAX_POINTS_PER_CURVE + 2
    assert lowest(rows, "iops") == 0.0


def drawn_rows(figure: FigureLike) -> list[dict]:
    """The data rows a figure's chart draws."""
    spec = chart_spec(figure.chart)  # type: ignore[union-attr]
    rows: list[dict] = spec["data"]["values"]
    return rows


def test_compare_thermal_lines_keep_each_drives_dip_and_spike(monkeypatch: pytest.MonkeyPatch) -> None:
    """compare's thermal charts thinned both drives' rows together, every k-th of them."""
    seconds = 3 * MAX_POINTS_PER_CURVE + 5
    at = off_every_kth(2 * seconds, MAX_POINTS_PER_CURVE)
    temps = [60.0 if i != at + 2 else 90.0 for i in range(seconds)]
    telemetry = {"t_s": tuple(float(i + 1) for i in range(seconds)), "temp_c": tuple(temps)}
    found = [{"sustained": long_run(seconds, at, telemetry=telemetry)},
             {"sustained": long_run(seconds, at + 1, telemetry=telemetry)}]
    monkeypatch.setattr(compare_figures, "measured_per_drive", lambda c, t: found)
    c = SimpleNamespace(drives=[SimpleNamespace(label="A"), SimpleNamespace(label="B")])
    rate, temp = compare_figures.thermal_figures(c, SimpleNamespace(name="thermal"))  # type: ignore[arg-type]
    for drive in ("A", "B"):
        rates = [r for r in drawn_rows(rate) if r["curve"] == drive]
        heats = [r for r in drawn_rows(temp) if r["curve"] == drive]
        assert len(rates) <= MAX_POINTS_PER_CURVE + 2 and len(heats) <= MAX_POINTS_PER_CURVE + 2
        assert lowest(rates, "mb_s") == 0.0, drive
        assert max(r["temp_c"] for r in heats) == 90.0, drive


def test_consistency_telemetry_keeps_a_dip() -> None:
    count = 3 * consistency_charts.MAX_POINTS + 11
    dip = off_every_kth(count, consistency_charts.MAX_POINTS)
    free = tuple(3.0 if i == dip else 500.0 for i in range(count))
    times = tuple(float(i + 1) for i in range(count))
    series = RunSeries(period_s=1.0, t_s=times, iops=(IOPS,) * count, write_bytes=(IOPS * BLOCK,) * count)
    run = consistency_charts.TortureRun("c", series, {"t_s": times, "free_blocks": free}, {})
    rows = consistency_charts.telemetry_rows(run, "free_blocks")
    assert len(rows) <= consistency_charts.MAX_POINTS + 2
    assert lowest(rows, "value") == 3.0


def test_linear_position_keeps_a_stall() -> None:
    seconds = 3 * LINEAR_POINTS + 13
    rows = position_rows(long_run(seconds, off_every_kth(seconds, LINEAR_POINTS)), "write")
    assert len(rows) <= LINEAR_POINTS + 2
    assert lowest(rows, "mb_s") == 0.0


def test_thermal_chart_keeps_a_throttle_dip_and_a_heat_spike() -> None:
    """The thermal section's MB/s and temperature chart (rate_temp_rows)."""
    seconds = 4 * MAX_POINTS_PER_CURVE + 9
    dip = off_every_kth(seconds, MAX_POINTS_PER_CURVE)
    temps = [55.0 + (i % 3) * 0.1 for i in range(seconds)]
    temps[dip + 4] = 88.0  # a spike elsewhere in the stretch than the dip
    rows = rate_temp_rows(long_run(seconds, dip), temps)
    assert len(rows) <= MAX_POINTS_PER_CURVE + 4
    assert lowest(rows, "mb_s") == 0.0
    assert max(r["temp_c"] for r in rows) == 88.0
    assert [r["t_s"] for r in rows] == sorted(r["t_s"] for r in rows)
