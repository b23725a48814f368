"""The fallback section: a metrics table and per-second curves of each measured workload.

Used for every catalogue test that has no dedicated section module. Helpers here (titles,
status notes, parameter captions) are shared by the dedicated sections.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.errors import SsdlabError
from ssdlab.measurement import Measurement
from ssdlab.report.charts import line_chart, series_rows, telemetry_rows, timeline_rows
from ssdlab.report.formatting import MISSING, format_metric, metric_unit
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.units import format_size

MAX_OVERLAID_WORKLOADS = 6
TELEMETRY_TITLES = {"temp_c": "temperature (°C)", "wa": "write amplification", "free_blocks": "free blocks"}


def catalogue_title(record: TestRecord) -> str:
    """The catalogue's title of the test's method, or its name for unknown methods."""
    from ssdlab.methods import get_test

    try:
        return get_test(record.test).title
    except SsdlabError:
        return record.test


def catalogue_summary(record: TestRecord) -> str:
    from ssdlab.methods import get_test

    try:
        return get_test(record.test).summary.rstrip(".") + "."
    except SsdlabError:
        return f"Method {record.test!r}."


def section_title(record: TestRecord) -> str:
    title = catalogue_title(record)
    return title if record.name == record.test else f"{title} — {record.name}"


def status_notes(record: TestRecord) -> tuple[str, ...]:
    """What a reader must know about an unfinished test, then the test's own notes."""
    notes: list[str] = []
    if record.status == "pending":
        notes.append("Not run: the run stopped before this test started.")
    elif record.status == "running":
        notes.append("Incomplete: the run stopped while this test was running; partial data shown.")
    elif record.status in ("interrupted", "failed"):
        what = "was interrupted" if record.status == "interrupted" else "failed"
        reason = f" ({record.error})" if record.error else ""
        notes.append(f"This test {what}{reason}; what it measured before that is shown.")
    return (*notes, *record.notes)


def format_param(name: str, value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and name.endswith("_bytes"):
        return f"{name.removesuffix('_bytes')}={format_size(value)}"
    if isinstance(value, list | tuple):
        return f"{name}={','.join(str(v) for v in value)}"
    return f"{name}={value}"


def params_caption(params: Mapping[str, Any]) -> str:
    if not params:
        return "No parameters."
    return "Parameters: " + ", ".join(format_param(k, v) for k, v in params.items()) + "."


# <row>_<column>: rnd4k_read_qd8_iops -> row rnd4k_read_qd8, column iops; plain `iops` -> row "all".
RATE_COLUMN = r"(?:p\d+(?:_\d+)?_)?lat_us|mb_s|iops"
RATE_METRIC = re.compile(rf"^(?:(?P<row>.+?)_)?(?P<col>{RATE_COLUMN})$")
COLUMN_ORDER = ("iops", "mb_s", "lat_us")


def column_title(column: str) -> str:
    if column == "iops":
        return "IOPS"
    if column == "mb_s":
        return "MB/s"
    if column == "lat_us":
        return "mean latency µs"
    return f"{column.removesuffix('_lat_us').replace('_', '.')} latency µs"


def _column_key(column: str) -> tuple[int, float]:
    if column in COLUMN_ORDER:
        return (COLUMN_ORDER.index(column), 0.0)
    return (len(COLUMN_ORDER), float(column.removeprefix("p").removesuffix("_lat_us").replace("_", ".")))


def split_rate_metrics(metrics: Mapping[str, Any]) -> tuple[dict[str, dict[str, str]], dict[str, Any]]:
    """(row -> column -> cell) for rate/latency metrics, and every other metric as is."""
    grid: dict[str, dict[str, str]] = {}
    other: dict[str, Any] = {}
    for name, value in metrics.items():
        match = RATE_METRIC.match(name)
        if match and not isinstance(value, bool | str):
            row, column = ("all", name) if re.fullmatch(RATE_COLUMN, name) else (match["row"], match["col"])
            grid.setdefault(row, {})[column] = format_metric(name, value)
        else:
            other[name] = value
    return grid, other


def flat_table(key: str, title: str, metrics: Mapping[str, Any]) -> Table:
    rows = tuple((name, format_metric(name, value), metric_unit(name)) for name, value in metrics.items())
    return Table(key=key, title=title, header=("metric", "value", "unit"), rows=rows)


def metrics_tables(record: TestRecord) -> list[Table]:
    """Rates and latencies as a grid (one row per workload point), then the other metrics."""
    grid, other = split_rate_metrics(record.metrics)
    if len(grid) < 2:
        return [flat_table(f"{record.name}-metrics", "Metrics", record.metrics)]
    columns = sorted({c for cells in grid.values() for c in cells}, key=_column_key)
    rows = tuple((row, *(cells.get(c, MISSING) for c in columns)) for row, cells in grid.items())
    tables = [Table(key=f"{record.name}-metrics", title="Results", header=("", *map(column_title, columns)),
                    rows=rows)]
    if other:
        tables.append(flat_table(f"{record.name}-other", "Other metrics", other))
    return tables


def measured(bundle: Bundle, record: TestRecord) -> dict[str, Measurement]:
    """The measurements of a test that are measurements (not preconditioning), in run order."""
    refs = [ref for ref in record.measurements if ref.role == "measure"]
    return {ref.name: bundle.load_measurement(ref) for ref in refs}


def series_figures(key: str, found: Mapping[str, Measurement]) -> list[Figure]:
    """Per-second IOPS and MB/s: a few workloads overlaid from t = 0, many laid end to end."""
    if len(found) <= MAX_OVERLAID_WORKLOADS:
        rows = [row for name, m in found.items() for row in series_rows(name, m)]
        how = "Per-second rates of each measured workload, as logged by the engine, overlaid from its start."
        charts = {y: line_chart(rows, y, title) for y, title in (("iops", "IOPS"), ("mb_s", "MB/s"))}
    else:
        rows = timeline_rows(found)
        how = (f"Per-second rates of the {len(found)} measured workloads, as logged by the engine, laid end to "
               "end in run order (hover a line for its workload).")
        charts = {y: line_chart(rows, y, title, color="direction", detail="workload")
                  for y, title in (("iops", "IOPS"), ("mb_s", "MB/s"))}
    if not rows:
        return []
    return [
        Figure(f"{key}-iops", "IOPS per second", charts["iops"], how),
        Figure(f"{key}-mb-s", "MB/s per second", charts["mb_s"], how + " MB/s are decimal (10^6 bytes)."),
    ]


def telemetry_figures(key: str, found: Mapping[str, Measurement]) -> list[Figure]:
    channels: dict[str, list[dict[str, Any]]] = {}
    for name, m in found.items():
        for channel, rows in telemetry_rows(name, m.telemetry).items():
            channels.setdefault(channel, []).extend(rows)
    return [
        Figure(f"{key}-telemetry-{channel}", f"Telemetry: {TELEMETRY_TITLES.get(channel, channel)}",
               line_chart(rows, "value", TELEMETRY_TITLES.get(channel, channel)),
               f"Engine telemetry channel {channel!r}, sampled each logging period beside the rates.")
        for channel, rows in channels.items()
    ]


def generic_section(bundle: Bundle, record: TestRecord) -> Section:
    found = measured(bundle, record)
    figures: list[FigureLike] = [*series_figures(record.name, found), *telemetry_figures(record.name, found)]
    tables = metrics_tables(record) if record.metrics else []
    return Section(
        key=record.name, title=section_title(record),
        caption=f"{catalogue_summary(record)} {params_caption(record.params)}",
        status=record.status, tables=tables, figures=figures, notes=status_notes(record),
    )
