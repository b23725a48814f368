"""Report section of `trim-validation` (DESIGN §3.3): the TRIM table and the three writes."""

from __future__ import annotations

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.report import consistency_charts as charts
from ssdlab.report.charts import grouped_bars
from ssdlab.report.formatting import format_number
from ssdlab.report.section_generic import measured, section_title, series_figures, status_notes
from ssdlab.report.sections import register_section
from ssdlab.report.types import Figure, FigureLike, Section, Table


def trim_table(record: TestRecord) -> Table:
    rows = tuple(
        (r["state"], format_number(float(r["mb_s"]), ",.1f"),
         "—" if r["pct_of_clean"] is None else format_number(float(r["pct_of_clean"]), ",.1f"))
        for r in charts.trim_rows(record)
    )
    effective = record.metrics.get("trim_effective")
    verdict = ("no verdict" if not isinstance(effective, bool)
               else "TRIM restores performance" if effective else "TRIM does NOT restore performance")
    threshold = record.metrics.get("effective_threshold_pct", 90.0)
    return Table(key=f"{record.name}-trim", title=f"Sequential write: {verdict}",
                 header=("drive state", "MB/s", "% of clean"), rows=rows,
                 caption=f"Verdict: after-TRIM at least {threshold} % of clean. MB/s are decimal.")


def trim_caption(record: TestRecord) -> str:
    p = record.params
    return (
        f"{int(p.get('seq_block_size_bytes', 131072)) // 1024} KiB sequential writes QD{p.get('seq_iodepth', 1)} "
        f"for {float(p.get('seq_runtime_s', 0)):g} s on the purged drive (clean); then fill and "
        f"{float(p.get('torture_runtime_s', 0)):g} s of 4 KiB QD{p.get('torture_iodepth', 32)} random writes, "
        "TRIM of the whole span and the sequential write again (after TRIM); the same torture without TRIM "
        "gives the dirty reference."
    )


def trim_section(bundle: Bundle, record: TestRecord) -> Section:
    rows = charts.trim_rows(record)
    figures: list[FigureLike] = []
    if rows:
        bars = [{"state": r["state"], "what": "sequential write", "mb_s": r["mb_s"]} for r in rows]
        figures.append(Figure(f"{record.name}-bars", "Sequential write by drive state",
                              grouped_bars(bars, "state", "", "what", "mb_s", "MB/s"), "MB/s are decimal."))
    figures += series_figures(record.name, measured(bundle, record))
    tables = [trim_table(record)] if rows else []
    return Section(key=record.name, title=section_title(record), caption=trim_caption(record),
                   status=record.status, tables=tables, figures=figures, notes=status_notes(record))


register_section("trim-validation", trim_section)
