"""Drawing a comparison: terminal tables and the HTML page (side-by-side table, bar charts,
overlaid curves). The model is ssdlab.compare.

Tests may register their own comparison figures (`register_compare_figures`); every test
also gets per-second IOPS curves overlaid per drive for measurements that share a name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from rich.table import Table as RichTable

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.compare import Comparison, MetricRow, TestComparison, Value
from ssdlab.measurement import Measurement
from ssdlab.methods.quick import quick_specs
from ssdlab.report.charts import Row, grouped_bars, line_chart, thin
from ssdlab.report.contract import format_value
from ssdlab.report.formatting import MISSING, format_metric, format_pct_change
from ssdlab.report.identity import drive_facts
from ssdlab.report.page import Page, ReportFiles, render_page
from ssdlab.report.section_generic import params_caption
from ssdlab.report.section_quick import DIRECTIONS, quick_entries
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.units import is_number

MAX_CURVE_FIGURES_PER_TEST = 6
CompareFigures = Callable[[Comparison, TestComparison], list[FigureLike]]
_COMPARE_FIGURES: dict[str, CompareFigures] = {}


def register_compare_figures(test: str, builder: CompareFigures) -> None:
    _COMPARE_FIGURES[test] = builder


def difference_headers(c: Comparison) -> list[str]:
    if len(c.drives) == 2:
        return ["Difference %"]
    return [f"Difference % ({d.label})" for d in c.drives[1:]]


def comparison_header(c: Comparison) -> tuple[str, ...]:
    return ("metric", *(d.label for d in c.drives), *difference_headers(c))


def _cell(row: MetricRow, value: Value) -> str:
    return format_value(row.spec, value) if row.spec is not None else format_metric(row.name, value)


def comparison_cells(t: TestComparison) -> list[tuple[str, ...]]:
    """Label (with unit), each drive's value, then Difference % for measured figures only."""
    rows = []
    for row in t.rows:
        values = [_cell(row, v) if present else MISSING for v, present in zip(row.values, t.present, strict=True)]
        diffs = [format_pct_change(d) if row.compared else "" for d in row.difference_pct]
        unit = f" ({row.spec.unit})" if row.spec is not None and row.spec.unit else ""
        rows.append((f"{row.label}{unit}", *values, *diffs))
    return rows


def test_caption(c: Comparison, t: TestComparison) -> str:
    missing = [d.label for d, here in zip(c.drives, t.present, strict=True) if not here]
    notes = []
    if missing:
        notes.append("not run on " + ", ".join(missing))
    if t.differing_params:
        notes.append("FORCED: parameters differ (" + ", ".join(t.differing_params) + ")")
    notes.append(f"Difference % against {c.baseline.label}")
    return "; ".join(notes)


def comparison_tables(c: Comparison) -> list[RichTable]:
    """One table per test: each metric side by side, then Difference % against the baseline."""
    tables = []
    for t in c.tests:
        table = RichTable(title=f"{t.name} ({t.test})", title_justify="left", caption=test_caption(c, t),
                          caption_justify="left")
        for index, heading in enumerate(comparison_header(c)):
            table.add_column(heading, justify="left" if index == 0 else "right", no_wrap=index == 0)
        for cells in comparison_cells(t):
            table.add_row(*cells)
        tables.append(table)
    return tables


def quick_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    """MB/s per CrystalDiskMark entry, one bar per drive, for reads and for writes."""
    values = {row.name: row.values for row in t.rows}
    profiles = dict.fromkeys(str(p) for p in values.get("profile", ()) if p)
    entries = list(dict.fromkeys(e for p in profiles for e in quick_entries(p)))
    figures: list[FigureLike] = []
    for direction in DIRECTIONS:
        rows: list[Row] = [
            {"entry": e.label, "drive": d.label, "mb_s": v}
            for e in entries
            for d, v in zip(c.drives, values.get(quick_specs(e, direction)[0].name, ()), strict=False)
            if is_number(v)
        ]
        if rows:
            figures.append(Figure(f"{t.name}-{direction}-mb-s", f"{direction.capitalize()} MB/s per entry",
                                  grouped_bars(rows, "entry", "", "drive", "mb_s", "MB/s"),
                                  f"{direction.capitalize()} throughput (decimal MB/s) per CrystalDiskMark "
                                  "entry, one bar per drive."))
    return figures


register_compare_figures("quick", quick_figures)


def _measured(drive_bundle: Path, name: str) -> dict[str, Measurement]:
    bundle = Bundle(drive_bundle)
    record: TestRecord | None = next((r for r in bundle.load_run().tests if r.name == name), None)
    if record is None:
        return {}
    return {ref.name: bundle.load_measurement(ref) for ref in record.measurements if ref.role == "measure"}


def curve_rows(label: str, m: Measurement) -> list[Row]:
    iops = m.series.iops("total")
    return thin([{"curve": label, "t_s": t, "iops": v} for t, v in zip(m.series.t_s, iops, strict=True)])


def curve_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    """Per-second IOPS of same-named measurements, one curve per drive."""
    per_drive = [_measured(d.bundle, t.name) if here else {} for d, here in zip(c.drives, t.present, strict=True)]
    names = [n for n in per_drive[0] if sum(n in found for found in per_drive) >= 2]
    for found in per_drive[1:]:
        names += [n for n in found if n not in names and sum(n in f for f in per_drive) >= 2]
    figures: list[FigureLike] = []
    for name in names[:MAX_CURVE_FIGURES_PER_TEST]:
        rows = [row for d, found in zip(c.drives, per_drive, strict=True) if name in found
                for row in curve_rows(d.label, found[name])]
        figures.append(Figure(f"{t.name}-{name}-iops", f"{name}: IOPS per second", line_chart(rows, "iops", "IOPS"),
                              f"Per-second IOPS of workload {name!r}, overlaid per drive."))
    return figures


def comparison_section(c: Comparison, t: TestComparison) -> Section:
    table = Table(key=f"{t.name}-compare", title="Side by side", header=comparison_header(c),
                  rows=tuple(comparison_cells(t)), caption="")
    custom = _COMPARE_FIGURES.get(t.test)
    figures = [*(custom(c, t) if custom else []), *([] if custom else curve_figures(c, t))]
    caption = f"{test_caption(c, t)}. {params_caption(t.params)}"
    return Section(key=t.name, title=f"{t.name} ({t.test})", caption=caption,
                   status="in all runs" if all(t.present) else "gaps", tables=[table], figures=figures,
                   figures_first=True)


def drives_table(c: Comparison) -> Table:
    facts = [drive_facts(Bundle(d.bundle).load_run().target) for d in c.drives]
    rows = tuple((name, *(f[i][1] for f in facts)) for i, (name, _) in enumerate(facts[0]))
    rows += (("Run status", *(d.run_status for d in c.drives)), ("Bundle", *(d.bundle.name for d in c.drives)))
    return Table(key="drives", title="Drives", header=("", *(d.label for d in c.drives)), rows=rows)


def banner(c: Comparison) -> str | None:
    notes = []
    forced = [t.name for t in c.tests if t.differing_params]
    if forced:
        notes.append(f"Forced comparison: method parameters differ in {', '.join(forced)}; numbers may not be "
                     "comparable.")
    unfinished = [d.label for d in c.drives if d.run_status != "complete"]
    if unfinished:
        notes.append(f"Unfinished runs: {', '.join(unfinished)}.")
    return " ".join(notes) or None


def render_comparison(c: Comparison, out_html: Path) -> ReportFiles:
    sections: Sequence[Section] = [comparison_section(c, t) for t in c.tests]
    page = Page(
        title="Comparison: " + " vs ".join(d.label for d in c.drives),
        subtitle=f"Baseline: {c.baseline.label} · Difference % = (drive - baseline) / baseline",
        banner=banner(c), intro=[drives_table(c)], sections=sections,
        footer="Generated by ssdlab compare from " + ", ".join(str(d.bundle) for d in c.drives) + ".",
    )
    out = out_html.resolve()
    return render_page(page, out, out.parent / f"{out.stem}-charts")
