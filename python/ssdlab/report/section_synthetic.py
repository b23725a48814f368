"""Report sections for the synthetic presets: the AS SSD table and the Iometer figure.

AS SSD is a table in its own layout (rows Seq / 4K / 4K-64Thrd / Acc.time, columns Read /
Write, then the three scores); `as_ssd_table` gives it as header + rows for any renderer,
and `figures` a bar chart of the same MB/s. Iometer: combined, read and write IOPS, and
IOPS per period over the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.methods.synthetic import MIXED_RUN
from ssdlab.report.charts import Row, alt_data
from ssdlab.report.section_generic import metrics_tables
from ssdlab.report.section_sweeps import HEIGHT, WIDTH, dedicated_section
from ssdlab.report.sections import register_section
from ssdlab.report.types import AltChart, Figure, Section, Table
from ssdlab.units import format_size

AS_SSD_ROWS = (("Seq", "seq"), ("4K", "rnd4k"), ("4K-64Thrd", "rnd4k_64t"))


def _fmt(value: Any, unit: str, digits: int = 1) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "—"
    return f"{value:,.{digits}f} {unit}".rstrip()


def as_ssd_table(record: TestRecord) -> Table:
    m, p = record.metrics, record.params
    rows = [(label, _fmt(m.get(f"{key}_read_mb_s"), "MB/s"), _fmt(m.get(f"{key}_write_mb_s"), "MB/s"))
            for label, key in AS_SSD_ROWS]
    rows.append(("Acc.time", _fmt(m.get("access_read_ms"), "ms", 3), _fmt(m.get("access_write_ms"), "ms", 3)))
    rows.append(("Score", _fmt(m.get("score_read"), "", 0), _fmt(m.get("score_write"), "", 0)))
    rows.append(("Total score", _fmt(m.get("score_total"), "", 0), ""))
    region = format_size(int(p.get("size_bytes", 0)))
    caption = (f"Incompressible data. Seq: {region} in {format_size(int(p.get('seq_block_bytes', 0)))} blocks at "
               f"QD1. 4K: random QD1, {p.get('runtime_s', 0):g} s. 4K-64Thrd: {p.get('threads')} jobs at QD1 "
               f"each, {p.get('runtime_s', 0):g} s. Acc.time: mean latency of 4 KiB random reads over the whole "
               "(written) drive and 512 B random writes in the test region, QD1. Scores by AS SSD's published "
               "formula from the MB/s figures.")
    return Table(f"{record.name}-table", "AS SSD-like benchmark", ("", "Read", "Write"), tuple(rows), caption)


def as_ssd_rows(metrics: Mapping[str, Any]) -> list[Row]:
    rows: list[Row] = []
    for label, key in AS_SSD_ROWS:
        for direction in ("read", "write"):
            value = metrics.get(f"{key}_{direction}_mb_s")
            if isinstance(value, int | float):
                rows.append({"test": label, "direction": direction, "mb_s": float(value)})
    return rows


def as_ssd_chart(rows: Sequence[Row]) -> AltChart:
    return alt.Chart(alt_data(rows)).mark_bar().encode(
        y=alt.Y("test:N", title=None, sort=[label for label, _ in AS_SSD_ROWS]),
        yOffset=alt.YOffset("direction:N"),
        x=alt.X("mb_s:Q", title="MB/s"),
        color=alt.Color("direction:N", title=None),
        tooltip=["test:N", "direction:N", alt.Tooltip("mb_s:Q", format=",.1f")],
    ).properties(width=WIDTH, height=HEIGHT // 2 + 40)


def iometer_rows(bundle: Bundle, record: TestRecord) -> list[Row]:
    m = bundle.measurements(record).get(MIXED_RUN)
    if m is None:
        return []
    rows: list[Row] = []
    for t, reads, writes in zip(m.series.t_s, m.series.iops("read"), m.series.iops("write"), strict=True):
        rows += [{"t_s": t, "part": "read", "iops": reads}, {"t_s": t, "part": "write", "iops": writes},
                 {"t_s": t, "part": "total", "iops": reads + writes}]
    return rows


def iometer_chart(rows: Sequence[Row]) -> AltChart:
    return alt.Chart(alt_data(rows)).mark_line().encode(
        x=alt.X("t_s:Q", title="time (s)"),
        y=alt.Y("iops:Q", title="IOPS", scale=alt.Scale(zero=True)),
        color=alt.Color("part:N", title=None, sort=["total", "read", "write"]),
        tooltip=["part:N", "t_s:Q", alt.Tooltip("iops:Q", format=",.0f")],
    ).properties(width=WIDTH, height=HEIGHT)


def iometer_figure(bundle: Bundle, record: TestRecord) -> Figure:
    p, m = record.params, record.metrics
    caption = (f"{format_size(int(p.get('block_size_bytes', 0)))} random, {p.get('read_pct')} % reads, "
               f"QD{p.get('iodepth')}, {p.get('runtime_s', 0):g} s over the whole written drive: "
               f"{_fmt(m.get('iops'), 'IOPS', 0)} combined ({_fmt(m.get('read_iops'), 'read', 0)}, "
               f"{_fmt(m.get('write_iops'), 'write', 0)}).")
    return Figure(f"{record.name}-iops", "Iometer 4K mixed: IOPS over the run",
                  iometer_chart(iometer_rows(bundle, record)), caption)


def figures(bundle: Bundle, record: TestRecord) -> list[Figure]:
    if not record.metrics:
        return []
    if record.test == "as-ssd":
        table = as_ssd_table(record)
        return [Figure(f"{record.name}-bars", "AS SSD-like: MB/s", as_ssd_chart(as_ssd_rows(record.metrics)),
                       table.caption)]
    if record.test == "iometer-mixed":
        return [iometer_figure(bundle, record)]
    return []


def tables(record: TestRecord) -> list[Table]:
    return [as_ssd_table(record)] if record.test == "as-ssd" and record.metrics else []


def as_ssd_section(bundle: Bundle, record: TestRecord) -> Section:
    caption = ("AS SSD Benchmark's procedure on a 1 GiB test region with incompressible data: sequential, "
               "4K QD1, 4K with 64 threads, and access time; scores by AS SSD's published formula.")
    return dedicated_section(bundle, record, caption, figures(bundle, record), tables(record))


def iometer_section(bundle: Bundle, record: TestRecord) -> Section:
    caption = "Iometer-style 4 KiB random mix, half reads, at QD32 over the whole written drive; combined IOPS."
    extra = metrics_tables(record) if record.metrics else []
    return dedicated_section(bundle, record, caption, figures(bundle, record), extra)


register_section("as-ssd", as_ssd_section)
register_section("iometer-mixed", iometer_section)
