"""Report section for the linear pass: throughput against position, peak region marked.

Drawn from the passes' per-period raw counts in the bundle (throughput against bytes moved
so far), with the write pass's peak region — found by `ssdlab.analysis.linear` — shaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from ssdlab._lazy import deferred
from ssdlab.analysis.linear import curve_from_series, detect_peak_region
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.measurement import Measurement
from ssdlab.methods.linear import PASSES, fell_words, pass_name, returns_words
from ssdlab.methods.metrics import GB, block_text
from ssdlab.report.charts import Row, alt_data, field_values, thin_keeping_extremes, value_scale
from ssdlab.report.contract import MethodView, mark, method_view
from ssdlab.report.section_generic import metrics_tables
from ssdlab.report.section_sweeps import HEIGHT, dedicated_section
from ssdlab.report.sections import register_section
from ssdlab.report.types import AltChart, Figure, Section
from ssdlab.units import MIB, in_unit

if TYPE_CHECKING:
    import altair as alt
else:
    alt = deferred("altair")

WIDTH = 560
MAX_POINTS = 3000  # per pass; a 2 TB drive at 1 s periods has ~1000-4000 of them


def position_rows(m: Measurement, direction: str) -> list[Row]:
    """(GB moved by the middle of the period, MB/s in it) for each period; of a pass longer than
    MAX_POINTS periods, the slowest and the fastest of each stretch (a one-period stall is kept)."""
    curve = curve_from_series(m.series, "read" if direction == "read" else "write")
    if not len(curve):
        return []  # too short to log a single period
    starts = (0.0, *curve.end_position_bytes[:-1])
    points = zip(starts, curve.end_position_bytes, curve.rate_mb_s, strict=True)
    return thin_keeping_extremes([{"position_gb": (start + end) / 2e9, "mb_s": rate, "pass": direction}
                                  for start, end, rate in points], "mb_s", MAX_POINTS)


def region_layer(size_gb: float, peak_mb_s: float) -> AltChart:
    """A shaded band from 0 to the end of the peak region, labelled with its size."""
    row = [{"start": 0.0, "end": size_gb, "label": f"peak region {in_unit(size_gb, GB)}", "y": peak_mb_s}]
    band = alt.Chart(alt_data(row)).mark_rect(opacity=0.12, color="#2a9d8f").encode(x="start:Q", x2="end:Q")
    edge = alt.Chart(alt_data(row)).mark_rule(strokeDash=[4, 3], color="#2a9d8f").encode(x="end:Q")
    text = alt.Chart(alt_data(row)).mark_text(align="right", dx=-4, dy=-6, color="#2a9d8f").encode(
        x="end:Q", y="y:Q", text="label:N")
    return band + edge + text


def position_chart(rows: Sequence[Row], region: tuple[float, float] | None) -> AltChart:
    lines = alt.Chart(alt_data(rows)).mark_line(strokeWidth=1.2).encode(
        x=alt.X("position_gb:Q", title="position (GB written or read so far)"),
        y=alt.Y("mb_s:Q", title="MB/s", scale=value_scale(field_values(rows, "mb_s"))),
        color=alt.Color("pass:N", title=None, sort=list(PASSES)),
        tooltip=["pass:N", alt.Tooltip("position_gb:Q", format=",.2f"), alt.Tooltip("mb_s:Q", format=",.0f")],
    )
    chart = lines if region is None else region_layer(*region) + lines
    return chart.properties(width=WIDTH, height=HEIGHT)


CAUSES = {
    True: "the engine reported thermal throttling as it fell",
    False: "the engine reported no throttling, so a cache ran out",
    None: "an SLC/DRAM cache running out, or thermal throttling",
}


def caption(view: MethodView) -> str:
    p, m = view.params, view.record.metrics
    writes = "write" in p.passes
    start = "After a purge, the" if p.purge and writes else "The"
    throttled = m.get("write_throttled_at_drop")
    cause = CAUSES[throttled if isinstance(throttled, bool) else None]
    region = view.number("write_peak_region_gb")
    dropped = m.get("write_drop_detected")
    if dropped and region is not None:
        spec = view.specs.get("write_peak_region_gb")
        size = mark(in_unit(region, GB), spec is not None and view.marked(spec))
        found = (f"Peak region (shaded): {size} written at peak before the rate {fell_words(m, p.drop_fraction)}"
                 f"{returns_words(m, p.drop_fraction)} — {cause}.")
    elif dropped is None:  # a pass too short to judge: no finding, neither way (QA)
        found = "The write pass logged too few periods to judge a drop."
    else:
        found = "No sustained drop in the write pass."
    what = " and ".join(f"{d} pass" for d in p.passes)
    span = view.number("span_gb")
    # A span short of the drive is said as such (QA: span_bytes=8g on a 250 GB drive read "covered from the
    # first to the last LBA", beside the plan's note that the passes covered 8.59 of 250.06 GB).
    covered = ("drive was covered from the first to the last LBA" if span is None or p.span_bytes is None
               or span * 1e9 >= view.target.capacity_bytes - MIB
               else f"drive's first {in_unit(span, GB)} (of {in_unit(view.target.capacity_bytes / 1e9, GB)}) "
                    "were covered from its first LBA")
    return (f"{start} {covered} ({what}) in {block_text(p.block_size_bytes)}"
            f" blocks at QD{p.iodepth}; rate per {p.log_period_s:g} s period against the position reached. "
            + (found if writes else ""))


def figures(bundle: Bundle, record: TestRecord) -> list[Figure]:
    view = method_view(bundle, record) if record.test == "linear" else None
    if view is None or not record.measurements:
        return []
    measured = bundle.measurements(record)
    rows: list[Row] = []
    region: tuple[float, float] | None = None
    for direction in PASSES:
        m = measured.get(pass_name(direction))
        if m is None:
            continue
        rows += position_rows(m, direction)
        if direction == "write":
            found = detect_peak_region(curve_from_series(m.series, "write"), view.params.drop_fraction)
            region = None if found is None else (found.size_gb, found.peak_mb_s)
    return [Figure(f"{record.name}-position", "Linear pass: throughput against position",
                   partial(position_chart, rows, region), caption(view))]


def linear_section(bundle: Bundle, record: TestRecord) -> Section:
    view = method_view(bundle, record)
    tables = metrics_tables(view, record) if record.metrics else []
    text = caption(view) if view is not None else f"Method {record.test!r}."
    return dedicated_section(bundle, record, text, figures(bundle, record), tables)


register_section("linear", linear_section)
