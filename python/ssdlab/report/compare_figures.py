"""Each test's comparison chart is the kind its own report section uses, one mark per drive:

- qd-sweep: IOPS (random) and MB/s (sequential) against queue depth, a line per drive;
- mixed sweeps: rate against read share; transfer-sweep: MB/s against transfer size;
- consistency / wsat: per-second IOPS scatter, the whole run beside the analysed window
  zoomed, linear and log scale, one row per drive, with a switch between the default
  and the spare-area variants when the comparison has both;
- trim-validation: grouped bars, clean / after TRIM / dirty, a bar per drive;
- linear: throughput against position, a line per drive;
- quick: MB/s per CrystalDiskMark entry, a bar per drive.

Tests without a builder get per-second IOPS curves of same-named workloads overlaid.
Builders read the comparison's rows (the methods' declared dimensions) or, for series,
the bundles the comparison names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab._lazy import deferred
from ssdlab.analysis.consistency import RunSeries
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.compare import Comparison, TestComparison
from ssdlab.measurement import Measurement
from ssdlab.methods.consistency import TortureParams
from ssdlab.methods.linear import PASSES, pass_name
from ssdlab.methods.metrics import block_text
from ssdlab.methods.quick import quick_specs
from ssdlab.methods.thermal import evidence_of
from ssdlab.methods.trim import AFTER_TRIM, CLEAN, DIRTY
from ssdlab.report.charts import (
    Row,
    alt_data,
    field_values,
    grouped_bars,
    line_chart,
    log_scale_with_zero,
    thin_keeping_extremes,
    thinned_every,
    top_legend,
    value_scale,
)
from ssdlab.report.consistency_charts import TortureRun, load_torture_run
from ssdlab.report.contract import method_view
from ssdlab.report.section_consistency import each_dot, iops_per_dot
from ssdlab.report.section_linear import position_rows
from ssdlab.report.section_quick import DIRECTIONS, quick_entries
from ssdlab.report.types import AltChart, Figure, FigureLike
from ssdlab.units import is_number

if TYPE_CHECKING:
    import altair as alt
else:
    alt = deferred("altair")

CompareFigures = Callable[[Comparison, TestComparison], list[FigureLike]]
MAX_CURVE_FIGURES_PER_TEST = 6
MAX_SCATTER_DRIVES = 6  # rows of a scatter comparison; more drives are ranked, not plotted
SCATTER_POINTS = 1500  # per drive and variant
PANEL_W, PANEL_H, LINE_W, LINE_H = 330, 140, 300, 220
VARIANT_PARAM = "variant_shown"
TRIM_STATES = {CLEAN: "clean (purged)", AFTER_TRIM: "after torture and TRIM", DIRTY: "after torture, no TRIM"}
_BUILDERS: dict[str, CompareFigures] = {}


def register_compare_figures(test: str, builder: CompareFigures) -> None:
    _BUILDERS[test] = builder


def drive_colour(c: Comparison) -> alt.Color:
    """One colour per drive, in comparison order, the same in every chart of the page."""
    return alt.Color("drive:N", title=None, sort=[d.label for d in c.drives],
                     scale=alt.Scale(domain=[d.label for d in c.drives]), legend=top_legend())


def dim_rows(c: Comparison, t: TestComparison, value_dims: dict[str, object], *keys: str,
             without: tuple[str, ...] = ()) -> list[Row]:
    """One row per (drive, declared figure with `value_dims`, the `keys` dims and none of the
    `without` dims): the value and the named dims."""
    rows: list[Row] = []
    for row in t.rows:
        spec = row.spec
        if spec is None or any(spec.dims.get(k) != v for k, v in value_dims.items()):
            continue
        if not all(k in spec.dims for k in keys) or any(k in spec.dims for k in without):
            continue
        for drive, value in zip(c.drives, row.values, strict=True):
            if is_number(value):
                rows.append({"drive": drive.label, "value": float(value), "metric": spec.name,
                             **{k: spec.dims[k] for k in keys}})
    return rows


def lines_by(rows: Sequence[Row], c: Comparison, x: alt.X, y_title: str, column: str | None) -> AltChart:
    base = alt.Chart(alt_data(rows)).mark_line(point=True).encode(
        x=x, y=alt.Y("value:Q", title=y_title, scale=value_scale(field_values(rows, "value"))), color=drive_colour(c),
        tooltip=["drive:N", alt.Tooltip("value:Q", title=y_title, format=",.1f"), "metric:N"],
    ).properties(width=LINE_W, height=LINE_H)
    return base.facet(column=alt.Column(f"{column}:N", title=None)) if column else base


# ---- qd-sweep, mixed, transfer --------------------------------------------------------


def qd_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    figures: list[FigureLike] = []
    for curve, rate, y_title, what in (("rnd", "iops", "IOPS", "random"), ("seq", "mb_s", "MB/s", "sequential")):
        rows = dim_rows(c, t, {"curve": curve, "rate": rate}, "qd", "direction")
        if rows:
            draw = partial(lines_by, rows, c, alt.X("qd:O", title="queue depth"), y_title, "direction")
            figures.append(Figure(f"{t.name}-{curve}-by-qd", f"{what.capitalize()} {y_title} against queue depth",
                                  draw, f"{y_title} at each queue depth, one line per drive; reads left, writes "
                                  "right."))
    return figures


def mixed_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    rate, y_title = ("iops", "IOPS") if t.test == "mixed-random" else ("mb_s", "MB/s")
    rows = dim_rows(c, t, {"rate": rate}, "read_pct", without=("part",))
    if not rows:
        return []
    x = alt.X("read_pct:Q", title="reads (%)", scale=alt.Scale(domain=[100, 0]))
    return [Figure(f"{t.name}-by-mix", f"{y_title} against read share", partial(lines_by, rows, c, x, y_title, None),
                   f"Total {y_title} at each read share, 100 % reads on the left, one line per drive.")]


def transfer_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    rows = dim_rows(c, t, {"rate": "mb_s"}, "block_bytes", "direction")
    if not rows:
        return []
    x = alt.X("block_bytes:Q", title="transfer size (log2 scale)", scale=alt.Scale(type="log", base=2),
              axis=alt.Axis(labelExpr="datum.value >= 1048576 ? datum.value / 1048576 + ' MiB' : "
                            "datum.value >= 1024 ? datum.value / 1024 + ' KiB' : datum.value + ' B'"))
    return [Figure(f"{t.name}-by-size", "MB/s against transfer size",
                   partial(lines_by, rows, c, x, "MB/s", "direction"),
                   "Sequential throughput at each transfer size, one line per drive; MB/s are decimal.")]


# ---- trim, quick ----------------------------------------------------------------------


def trim_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    rows = [{"state": TRIM_STATES[str(r["state"])], "drive": r["drive"], "mb_s": r["value"]}
            for r in dim_rows(c, t, {}, "state")]
    rows.sort(key=lambda r: list(TRIM_STATES.values()).index(r["state"]))
    if not rows:
        return []
    return [Figure(f"{t.name}-states", "Sequential write by drive state",
                   partial(grouped_bars, rows, "state", "", "drive", "mb_s", "MB/s"),
                   "Clean, after torture and TRIM, and (when measured) after torture without TRIM; a bar per "
                   "drive. MB/s are decimal.")]


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
                                  partial(grouped_bars, rows, "entry", "", "drive", "mb_s", "MB/s"),
                                  f"{direction.capitalize()} throughput (decimal MB/s) per CrystalDiskMark "
                                  "entry, one bar per drive."))
    return figures


# ---- series: consistency, linear, overlaid curves -------------------------------------


def present_records(c: Comparison, t: TestComparison) -> list[tuple[str, Bundle, TestRecord]]:
    """(drive label, bundle, record) of each drive the test is compared on."""
    out = []
    for drive, here, source in zip(c.drives, t.present, t.sources or (None,) * len(c.drives), strict=True):
        if here and source is not None:
            bundle = Bundle(source)
            out.append((drive.label, bundle, bundle.load_run().test(t.name)))
    return out


def variant_label(record: TestRecord) -> str:
    op = record.metrics.get("op_pct", record.params.get("op_pct", 0))
    return f"{op:g} % spare area" if is_number(op) and op > 0 else "default"


@dataclass(frozen=True)
class Plotted:
    """One drive's run of a torture in the comparison's scatter."""

    drive: str
    record: TestRecord
    run: TortureRun
    params: TortureParams | None  # None: a method this ssdlab does not know


def plotted_runs(c: Comparison, tests: Sequence[TestComparison]) -> list[Plotted]:
    """Each drive's run of each variant, as far as the scatter plots them (MAX_SCATTER_DRIVES)."""
    out = []
    for t in tests:
        for label, bundle, record in present_records(c, t)[:MAX_SCATTER_DRIVES]:
            run = load_torture_run(bundle, record)
            if run is None:
                continue
            view = method_view(bundle, record)
            params = view.params if view is not None and isinstance(view.params, TortureParams) else None
            out.append(Plotted(label, record, run, params))
    return out


def scatter_rows(plotted: Sequence[Plotted]) -> list[Row]:
    """Per-second IOPS of each drive and variant: the whole run thinned (`part` whole), and
    the analysed window, the last `window_s` of the run, every second of it (`part` window)."""
    rows: list[Row] = []
    for p in plotted:
        times = p.run.series.t_s
        window = p.record.metrics.get("window_s")
        start = times[-1] - float(window) if times and is_number(window) else float("inf")
        points: list[Row] = [{"drive": p.drive, "variant": variant_label(p.record), "t_s": ts, "iops": v}
                             for ts, v in zip(times, p.run.series.iops, strict=True)]
        rows += [{**point, "part": "whole"} for point in thin_keeping_extremes(points, "iops", SCATTER_POINTS)]
        rows += [{**point, "part": "window"} for point, ts in zip(points, times, strict=True) if ts > start]
    return rows


def plotted_writes(plotted: Sequence[Plotted]) -> str:
    """'4 KiB random writes' when every plotted run wrote one block size; else each size with its
    drives, '16 KiB on A, 4 KiB on B' (a forced comparison of unlike runs)."""
    drives: dict[str, list[str]] = {}
    for p in plotted:
        if p.params is not None:
            drives.setdefault(block_text(p.params.block_size_bytes), []).append(p.drive)
    if len(drives) <= 1:
        return f"{next(iter(drives))} random writes" if drives else "random writes"
    return "random writes (" + ", ".join(f"{block} on {' and '.join(dict.fromkeys(labels))}"
                                         for block, labels in drives.items()) + ")"


def scatter(rows: Sequence[Row], c: Comparison, log_y: bool, variants: Sequence[str]) -> AltChart:
    """Whole run beside the analysed window zoomed, one row per drive; a switch picks the variant."""
    scale, axis = log_scale_with_zero(field_values(rows, "iops")) if log_y else \
        (value_scale(field_values(rows, "iops")), alt.Axis())
    y = alt.Y("iops:Q", title="IOPS", scale=scale, axis=axis)
    base = alt.Chart(alt_data(rows)).mark_circle(size=5, opacity=0.7).encode(
        y=y, color=drive_colour(c).legend(None), tooltip=["drive:N", "t_s:Q", alt.Tooltip("iops:Q", format=",.0f")],
    ).transform_filter(f"datum.variant == {VARIANT_PARAM}").properties(width=PANEL_W, height=PANEL_H)
    row = alt.Row("drive:N", title=None, sort=[d.label for d in c.drives], header=alt.Header(labelAngle=0,
                                                                                             labelAlign="left"))
    whole = base.transform_filter("datum.part == 'whole'").encode(x=alt.X("t_s:Q", title="time (s)")).facet(
        row=row, title="Whole run")
    window = base.transform_filter("datum.part == 'window'").encode(
        x=alt.X("t_s:Q", title="time (s)", scale=alt.Scale(zero=False))).facet(row=row, title="Analysed window")
    menu: dict[str, Any] = {"bind": alt.binding_radio(options=list(variants), name="Variant: ")} \
        if len(variants) > 1 else {}
    return alt.hconcat(whole, window).add_params(alt.param(name=VARIANT_PARAM, value=variants[0], **menu))


def thinned_words(series: Sequence[RunSeries]) -> str:
    """What the whole-run panel leaves out of a run longer than SCATTER_POINTS periods: of each k
    consecutive periods it draws the slowest and the fastest (charts.thin_keeping_extremes)."""
    every = max((thinned_every(len(s.t_s), SCATTER_POINTS) for s in series), default=1)
    if every <= 1:
        return ""
    return (f" Left, a run of more than {SCATTER_POINTS:,} periods is drawn from the slowest and the fastest "
            f"of each {every} periods in a row (the longest run's; fewer for a shorter one); the analysed "
            "window has every period.")


def consistency_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    """The scatter of every variant of the method, drawn once (in the first such test)."""
    family = [x for x in c.shown if x.test == t.test]
    if family[0] is not t:
        return []
    plotted = plotted_runs(c, family)
    rows = scatter_rows(plotted)
    if not rows:
        return []
    variants = list(dict.fromkeys(str(r["variant"]) for r in rows))
    switch = " Use the switch to show each variant." if len(variants) > 1 else ""
    cut = (f" The first {MAX_SCATTER_DRIVES} drives are plotted; the ranking has them all."
           if len(c.drives) > MAX_SCATTER_DRIVES else "")
    series = [p.run.series for p in plotted]
    how = f"{each_dot(series, plotted_writes(plotted))}; right: the analysed window, zoomed." + \
        thinned_words(series) + switch + cut
    per = iops_per_dot(series)
    return [
        Figure(f"{t.name}-scatter", per, partial(scatter, rows, c, False, variants), how),
        Figure(f"{t.name}-scatter-log", f"{per} (log scale)", partial(scatter, rows, c, True, variants),
               "The same on a logarithmic IOPS axis, so stalls far below the mean show; a period in which no "
               "write completed sits at 0, at its foot." + switch),
    ]


def linear_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    figures: list[FigureLike] = []
    found = present_records(c, t)
    for direction in PASSES:
        rows = []
        for label, bundle, record in found:
            ref = next((r for r in record.measurements if r.name == pass_name(direction)), None)
            if ref is not None:
                rows += [{**r, "drive": label} for r in position_rows(bundle.load_measurement(ref), direction)]
        if rows:
            figures.append(Figure(f"{t.name}-{direction}-position", f"Linear {direction}: MB/s against position",
                                  partial(position_lines, rows, c),
                                  "Throughput against the position reached, one line per drive."))
    return figures


def position_lines(rows: Sequence[Row], c: Comparison) -> AltChart:
    """MB/s against the position reached, one line per drive."""
    return alt.Chart(alt_data(rows)).mark_line(strokeWidth=1.2).encode(
        x=alt.X("position_gb:Q", title="position (GB)"),
        y=alt.Y("mb_s:Q", title="MB/s", scale=value_scale(field_values(rows, "mb_s"))),
        color=drive_colour(c)).properties(width=LINE_W * 2, height=LINE_H)


def _measured(bundle: Path, name: str) -> dict[str, Measurement]:
    b = Bundle(bundle)
    record = next((r for r in b.load_run().tests if r.name == name), None)
    if record is None:
        return {}
    return {ref.name: b.load_measurement(ref) for ref in record.measurements if ref.role == "measure"}


def curve_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    """Per-second IOPS of same-named measurements, one curve per drive."""
    per_drive = measured_per_drive(c, t)
    names = list(dict.fromkeys(n for found in per_drive for n in found if sum(n in f for f in per_drive) >= 2))
    figures: list[FigureLike] = []
    for name in names[:MAX_CURVE_FIGURES_PER_TEST]:
        rows = [row for d, found in zip(c.drives, per_drive, strict=True) if name in found
                for row in curve_rows(d.label, found[name])]
        figures.append(Figure(f"{t.name}-{name}-iops", f"{name}: IOPS per second",
                              partial(line_chart, rows, "iops", "IOPS"),
                              f"Per-second IOPS of workload {name!r}, overlaid per drive."))
    return figures


def measured_per_drive(c: Comparison, t: TestComparison) -> list[dict[str, Measurement]]:
    """Each drive's analysed measurements of test `t`, by name (empty where it did not run)."""
    sources = t.sources or (None,) * len(c.drives)
    return [_measured(s, t.name) if here and s else {} for s, here in zip(sources, t.present, strict=True)]


def thermal_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    """The thermal test's own view, per phase: write MB/s and the drive's temperature against
    time, one line per drive (the report draws both on one chart for one drive)."""
    per_drive = measured_per_drive(c, t)
    figures: list[FigureLike] = []
    for name in dict.fromkeys(n for found in per_drive for n in found):
        rate: list[Row] = []
        temp: list[Row] = []
        for d, found in zip(c.drives, per_drive, strict=True):
            if name in found:
                drive_rate, drive_temp = thermal_rows(d.label, found[name])
                rate += drive_rate
                temp += drive_temp
        figures.append(Figure(f"{t.name}-{name}-mb-s", f"{name}: write MB/s",
                              partial(line_chart, rate, "mb_s", "MB/s"),
                              f"Write throughput of phase {name!r} per second, overlaid per drive."))
        if temp:
            figures.append(Figure(f"{t.name}-{name}-temp", f"{name}: temperature",
                                  partial(line_chart, temp, "temp_c", "°C"),
                                  f"Drive temperature during phase {name!r}, overlaid per drive."))
    return figures


def thermal_rows(label: str, m: Measurement) -> tuple[list[Row], list[Row]]:
    """One drive's write MB/s and temperature rows of a thermal phase, each thinned on its own
    keeping its lowest and highest (QA: every k-th row of all drives' rows together was drawn, so
    a one-second throttle dip, and a drive's share of the points, was left to chance)."""
    temps = evidence_of(m).temp_c or []
    rate = [{"curve": label, "t_s": t_s, "mb_s": mb_s}
            for t_s, mb_s in zip(m.series.t_s, m.series.mb_s("write"), strict=True)]
    temp = [{"curve": label, "t_s": t_s, "temp_c": temp_c} for t_s, temp_c in zip(m.series.t_s, temps, strict=False)]
    return thin_keeping_extremes(rate, "mb_s"), thin_keeping_extremes(temp, "temp_c")


def curve_rows(label: str, m: Measurement) -> list[Row]:
    """One drive's per-second IOPS of a workload, a stall kept however long the run."""
    iops = m.series.iops("total")
    return thin_keeping_extremes([{"curve": label, "t_s": t, "iops": v}
                                  for t, v in zip(m.series.t_s, iops, strict=True)], "iops")


for _test, _builder in (("qd-sweep", qd_figures), ("mixed-random", mixed_figures), ("mixed-seq", mixed_figures),
                        ("transfer-sweep", transfer_figures), ("trim-validation", trim_figures),
                        ("quick", quick_figures), ("consistency", consistency_figures),
                        ("wsat", consistency_figures), ("linear", linear_figures), ("thermal", thermal_figures)):
    register_compare_figures(_test, _builder)


def kind_figures(c: Comparison, t: TestComparison) -> list[FigureLike]:
    """The test's own kind of chart, or overlaid per-second curves for other tests."""
    builder = _BUILDERS.get(t.test)
    return builder(c, t) if builder is not None else curve_figures(c, t)
