"""The quick (CrystalDiskMark-style) section: the familiar table and MB/s bars per entry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.methods.quick import NVME, STANDARD, CdmEntry
from ssdlab.report.charts import Row, grouped_bars
from ssdlab.report.formatting import MISSING, format_metric
from ssdlab.report.section_generic import measured, section_title, series_figures, status_notes
from ssdlab.report.sections import register_section
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.units import format_size, is_number

DIRECTIONS = ("read", "write")
# (column title, metric suffix) in CrystalDiskMark's order of importance.
COLUMNS = (("MB/s", "mb_s"), ("IOPS", "iops"), ("latency µs", "lat_us"))


def quick_entries(metrics: Mapping[str, Any]) -> tuple[CdmEntry, ...]:
    """The profile's entries, in CrystalDiskMark order (NVMe profile when the run used it)."""
    return NVME if metrics.get("profile") == "nvme" else STANDARD


def table_header() -> tuple[str, ...]:
    return ("test", *(f"{d} {title}" for title, _ in COLUMNS for d in DIRECTIONS))


def entry_cells(entry: CdmEntry, metrics: Mapping[str, Any]) -> tuple[str, ...]:
    cells = []
    for _, suffix in COLUMNS:
        for direction in DIRECTIONS:
            name = f"{entry.key}_{direction}_{suffix}"
            cells.append(format_metric(name, metrics[name]) if name in metrics else MISSING)
    return (entry.label, *cells)


def quick_table(record: TestRecord) -> Table:
    rows = tuple(entry_cells(e, record.metrics) for e in quick_entries(record.metrics))
    return Table(key=f"{record.name}-cdm", title="CrystalDiskMark-style results", header=table_header(), rows=rows,
                 caption="MB/s are decimal (10^6 bytes/s); latency is the mean completion latency per I/O.")


def mb_s_rows(metrics: Mapping[str, Any]) -> list[Row]:
    return [
        {"entry": e.label, "direction": d, "mb_s": value}
        for e in quick_entries(metrics) for d in DIRECTIONS
        if is_number(value := metrics.get(f"{e.key}_{d}_mb_s"))
    ]


def quick_caption(record: TestRecord) -> str:
    p = record.params
    runs, runtime_s = p.get("runs", "?"), p.get("runtime_s", "?")
    size = format_size(int(p["size_bytes"])) if isinstance(p.get("size_bytes"), int) else "?"
    pick = "best run" if p.get("aggregate", "best") == "best" else "mean of the runs"
    profile = record.metrics.get("profile", p.get("profile", "auto"))
    return (
        f"CrystalDiskMark method ({profile} profile): each entry runs {runs} times for {runtime_s} s over a "
        f"{size} test region that was written once beforehand, reads first, then writes; incompressible data. "
        f"Shown: the {pick} (latency: the lowest mean). Qn = queue depth, Tn = threads."
    )


def quick_section(bundle: Bundle, record: TestRecord) -> Section:
    figures: list[FigureLike] = []
    rows = mb_s_rows(record.metrics)
    if not record.metrics:  # unfinished: no analysis, show the raw per-second curves it has
        figures.extend(series_figures(record.name, measured(bundle, record)))
    if rows:
        chart = grouped_bars(rows, "entry", "", "direction", "mb_s", "MB/s")
        figures.append(Figure(f"{record.name}-mb-s", "Throughput per entry: read vs write", chart,
                              "Grouped bars: MB/s (decimal) per CrystalDiskMark entry, read and write."))
    tables = [quick_table(record)] if record.metrics else []
    return Section(key=record.name, title=section_title(record), caption=quick_caption(record),
                   status=record.status, tables=tables, figures=figures, notes=status_notes(record))


register_section("quick", quick_section)
