"""The thermal, trace and telemetry line charts keep each stretch's lowest and highest point when
they thin a long series (QA: they took every k-th point, so a one-period dip could vanish)."""

from __future__ import annotations

from ssdlab.report.charts import MAX_POINTS_PER_CURVE, telemetry_rows
from ssdlab.report.section_trace import timeline_rows

LONG = 7 * MAX_POINTS_PER_CURVE + 3  # long enough to thin; the dip sits off every k-th point
DIP_AT = 4001


def series(dip: float, level: float = 100.0) -> list[float]:
    return [dip if i == DIP_AT else level for i in range(LONG)]


def test_a_telemetry_dip_survives_thinning() -> None:
    rows = telemetry_rows("drive", {"t_s": [float(i) for i in range(LONG)], "free_blocks": series(3.0)})["free_blocks"]
    assert len(rows) <= MAX_POINTS_PER_CURVE + 2
    assert min(r["value"] for r in rows) == 3.0


def test_a_trace_stall_survives_thinning() -> None:
    detail = {"series": {"t_s": [float(i) for i in range(LONG)], "mb_s": series(0.0), "lat_us": series(9e5, 50.0)}}
    rows = timeline_rows(detail)
    assert min(r["mb_s"] for r in rows["mb_s"]) == 0.0
    assert max(r["lat_us"] for r in rows["lat_us"]) == 9e5
    assert len(rows["mb_s"]) <= MAX_POINTS_PER_CURVE + 2
