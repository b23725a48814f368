"""The quick (CrystalDiskMark-style) section: the familiar table and MB/s bars per entry."""

from __future__ import annotations

from functools import partial

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.methods.quick import NVME, STANDARD, CdmEntry, region_bytes
from ssdlab.report.charts import Row, grouped_bars
from ssdlab.report.contract import MethodView, format_value, mark, method_view
from ssdlab.report.formatting import MISSING, with_article
from ssdlab.report.section_generic import generic_section, measured, section_title, series_figures
from ssdlab.report.sections import register_section
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.units import human_size

DIRECTIONS = ("read", "write")
# (column title, rate dimension) in CrystalDiskMark's order of importance.
COLUMNS = (("MB/s", "mb_s"), ("IOPS", "iops"), ("latency µs", "lat"))


def quick_entries(profile: str) -> tuple[CdmEntry, ...]:
    """The profile's entries, in CrystalDiskMark order (NVMe profile when the run used it)."""
    return NVME if profile == "nvme" else STANDARD


def run_profile(view: MethodView) -> str:
    return str(view.record.metrics.get("profile") or "standard")


def table_header() -> tuple[str, ...]:
    return ("test", *(f"{d} {title}" for title, _ in COLUMNS for d in DIRECTIONS))


def entry_cells(view: MethodView, entry: CdmEntry) -> tuple[str, ...]:
    cells = []
    for _, rate in COLUMNS:
        for direction in DIRECTIONS:
            found = view.specs.where(entry=entry.key, direction=direction, rate=rate)
            cells.append(mark(format_value(found[0], view.value(found[0])), view.marked(found[0])) if found
                         else MISSING)
    return (entry.label, *cells)


def quick_table(view: MethodView) -> Table:
    rows = tuple(entry_cells(view, e) for e in quick_entries(run_profile(view)))
    return Table(key=f"{view.record.name}-cdm", title="CrystalDiskMark-style results", header=table_header(),
                 rows=rows, caption="MB/s are decimal (10^6 bytes/s); latency is the mean latency per I/O from "
                                    "submission to completion (fio's total latency, lat, not its completion latency, "
                                    "clat; the simulator counts from host submission too).")


def mb_s_rows(view: MethodView) -> list[Row]:
    labels = {e.key: e.label for e in quick_entries(run_profile(view))}
    return [{"entry": labels.get(str(spec.dims["entry"]), str(spec.dims["entry"])), "direction": spec.dims["direction"],
             "mb_s": value} for spec, value in view.numbers(rate="mb_s")]


def quick_caption(view: MethodView) -> str:
    p = view.params
    # As the method takes them (methods/quick.py, analyze): the best run's latency is the lowest mean
    # latency of the runs; the mean of the runs' is the mean of their mean latencies.
    pick, latency = ("best run", "the lowest mean") if p.aggregate == "best" else \
        ("mean of the runs", "the mean of the runs' means")
    times = "once" if p.runs == 1 else f"{p.runs} times"
    region = human_size(region_bytes(p, view.target.capacity_bytes))
    return (
        f"CrystalDiskMark method ({run_profile(view)} profile): each entry runs {times} for {p.runtime_s:g} s "
        f"over {with_article(region)} test region that was written once beforehand, reads first, then writes; "
        f"incompressible data. Shown: the {pick} (latency: {latency}). Qn = queue depth, Tn = threads."
    )


def quick_section(bundle: Bundle, record: TestRecord) -> Section:
    view = method_view(bundle, record)
    if view is None:
        return generic_section(bundle, record)
    figures: list[FigureLike] = []
    rows = mb_s_rows(view)
    if not record.metrics:  # unfinished: no analysis, show the raw per-second curves it has
        figures.extend(series_figures(record.name, measured(bundle, record)))
    if rows:
        draw = partial(grouped_bars, rows, "entry", "", "direction", "mb_s", "MB/s")
        figures.append(Figure(f"{record.name}-mb-s", "Throughput per entry: read vs write", draw,
                              "Grouped bars: MB/s (decimal) per CrystalDiskMark entry, read and write."))
    tables = [quick_table(view)] if record.metrics else []
    return Section(key=record.name, title=section_title(record), caption=quick_caption(view),
                   status=record.status, tables=tables, figures=figures)


register_section("quick", quick_section)
