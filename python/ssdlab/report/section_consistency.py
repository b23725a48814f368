"""Report sections of `consistency` and `wsat` (DESIGN §3.1, §3.2).

Consistency: the steady-state table, the per-second IOPS scatter for the whole run and
for the analysed window, simulator telemetry on the same time axis; the first
consistency test of a run also puts every consistency test of the run (default and
over-provisioned variants) side by side with bars of their steady mean and stddev.
WSAT: IOPS against time and against host GB written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.report import consistency_charts as charts
from ssdlab.report.formatting import MISSING, format_metric
from ssdlab.report.section_generic import measured, section_title, series_figures, status_notes
from ssdlab.report.sections import register_section
from ssdlab.report.types import Figure, FigureLike, Section, Table

# (label, metric, unit) rows of the steady-state table, headline figures first.
STEADY_ROWS = (
    ("steady-state mean", "steady_iops_mean", "IOPS"),
    ("steady-state stddev", "steady_iops_stddev", "IOPS"),
    ("mean / stddev", "steady_mean_stddev_ratio", ""),
    ("coefficient of variation", "steady_cv_pct", "%"),
    ("min / max (window)", ("steady_iops_min", "steady_iops_max"), "IOPS"),
    ("p1 / p99 (window)", ("steady_iops_p1", "steady_iops_p99"), "IOPS"),
    ("fresh (first 5 s)", "fresh_iops", "IOPS"),
    ("steady as % of fresh", "steady_fresh_pct", "%"),
    ("steady state reached (PTS rule)", "steady_attained", ""),
    ("time to steady state", "time_to_steady_s", "s"),
    ("host data written", "host_gb_written", "GB"),
    ("span used", "span_pct", "% of capacity"),
    ("write amplification (window, simulator)", "steady_wa", ""),
    ("fio steady state (cross-check)", "fio_ss_attained", ""),
)
WSAT_ROWS = (
    ("fresh-out-of-box (first 5 s)", "fob_iops", "IOPS"),
    ("steady-state mean", "steady_iops_mean", "IOPS"),
    ("steady-state stddev", "steady_iops_stddev", "IOPS"),
    ("half-way down the cliff at", "cliff_gb_written", "GB written"),
    ("steady state from", "gb_written_to_steady", "GB written"),
    ("time to steady state", "time_to_steady_s", "s"),
    ("host data written", "host_gb_written", "GB"),
    ("drive capacities written", "capacity_writes", "times"),
)


def cell(metrics: Mapping[str, Any], key: str | tuple[str, ...]) -> str:
    keys = (key,) if isinstance(key, str) else key
    return " / ".join(format_metric(k, metrics.get(k)) for k in keys)


def metric_table(key: str, title: str, rows: Sequence[tuple[str, Any, str]], metrics: Mapping[str, Any]) -> Table:
    body = tuple((label, cell(metrics, k), unit) for label, k, unit in rows if cell(metrics, k) != MISSING)
    return Table(key=key, title=title, header=("", "value", "unit"), rows=body)


def window_s(record: TestRecord) -> float:
    value = record.metrics.get("steady_window_s", record.params.get("steady_window_s", 400.0))
    return float(value) if isinstance(value, int | float) else 400.0


def scatter_figures(run: charts.TortureRun, window: float) -> list[FigureLike]:
    key = run.label
    return [
        Figure(f"{key}-scatter", "IOPS per second, whole run", charts.iops_scatter(run),
               "Each dot is one second of 4 KiB random writes; the cliff is where the spare area ran out."),
        Figure(f"{key}-scatter-window", f"IOPS per second, last {window:g} s", charts.iops_scatter(run, window),
               "The analysed window: its mean and standard deviation are the steady-state figures."),
        Figure(f"{key}-scatter-log", "IOPS per second, whole run (log scale)", charts.iops_scatter(run, log_y=True),
               "The same run on a logarithmic IOPS axis, so outliers and stalls far below the mean show."),
    ]


def telemetry_figure(run: charts.TortureRun) -> list[FigureLike]:
    chart = charts.telemetry_panels(run)
    if chart is None:
        return []
    return [Figure(f"{run.label}-telemetry", "IOPS with simulator telemetry", chart,
                   "Simulator telemetry (write amplification, free blocks, temperature) on the IOPS time axis.")]


def sibling_runs(bundle: Bundle, record: TestRecord) -> list[TestRecord]:
    """Every test of the run using the same method, in run order."""
    return [t for t in bundle.load_run().tests if t.test == record.test and t.metrics]


def comparison_figures(bundle: Bundle, record: TestRecord) -> list[FigureLike]:
    """Default and OP variants side by side: only in the first such test's section."""
    siblings = sibling_runs(bundle, record)
    if len(siblings) < 2 or siblings[0].name != record.name:
        return []
    runs = [r for r in (charts.load_torture_run(bundle, t) for t in siblings) if r is not None]
    bars = [{"label": t.name, "mean": t.metrics.get("steady_iops_mean"), "stddev": t.metrics.get("steady_iops_stddev")}
            for t in siblings]
    window = window_s(record)
    return [
        Figure(f"{record.name}-variants", "Variants side by side, whole run", charts.side_by_side(runs),
               "Same IOPS scale in every panel, so levels compare directly."),
        Figure(f"{record.name}-variants-window", f"Variants side by side, last {window:g} s",
               charts.side_by_side(runs, window), "The analysed windows of each variant."),
        Figure(f"{record.name}-variants-bars", "Steady-state mean and stddev per variant", charts.steady_bars(bars),
               "Higher mean is faster; lower stddev is steadier."),
    ]


def consistency_caption(record: TestRecord) -> str:
    p = record.params
    op = float(p.get("op_pct", 0) or 0)
    span = f"the first {100 - op:g} % of the purged drive ({op:g} % over-provisioning)" if op else "the full span"
    return (
        f"Purge, sequential 128 KiB QD32 fill ({p.get('fill_passes', 1)} pass), then "
        f"{int(p.get('block_size_bytes', 4096)) // 1024} KiB random writes QD{p.get('iodepth', 32)}, incompressible, "
        f"over {span} for {float(p.get('runtime_s', 0)):g} s, IOPS logged every second. Steady state: mean and "
        f"standard deviation of the last {window_s(record):g} s; time to steady state by the SNIA PTS rule on "
        f"{float(p.get('round_s', 80)):g} s rounds."
    )


def consistency_section(bundle: Bundle, record: TestRecord) -> Section:
    run = charts.load_torture_run(bundle, record)
    figures: list[FigureLike] = []
    if run is not None:
        figures += [*scatter_figures(run, window_s(record)), *telemetry_figure(run)]
        figures += comparison_figures(bundle, record)
    else:
        figures += series_figures(record.name, measured(bundle, record))
    tables = [metric_table(f"{record.name}-steady", "Steady state", STEADY_ROWS, record.metrics)]
    return Section(key=record.name, title=section_title(record), caption=consistency_caption(record),
                   status=record.status, tables=tables if record.metrics else [], figures=figures,
                   notes=status_notes(record))


def wsat_section(bundle: Bundle, record: TestRecord) -> Section:
    run = charts.load_torture_run(bundle, record)
    figures: list[FigureLike] = []
    if run is not None:
        figures.append(Figure(f"{record.name}-wsat", "WSAT: IOPS against time and host GB written",
                              charts.wsat_charts(run), "Each dot is one second; right: the same against data written."))
        figures += telemetry_figure(run)
    tables = [metric_table(f"{record.name}-wsat", "Write saturation", WSAT_ROWS, record.metrics)]
    p = record.params
    caption = (f"SNIA PTS write saturation: purge, then {int(p.get('block_size_bytes', 4096)) // 1024} KiB random "
               f"writes QD{p.get('iodepth', 32)} from the fresh drive for {float(p.get('runtime_s', 0)):g} s, "
               "no preconditioning, IOPS every second.")
    return Section(key=record.name, title=section_title(record), caption=caption, status=record.status,
                   tables=tables if record.metrics else [], figures=figures, notes=status_notes(record))


register_section("consistency", consistency_section)
register_section("wsat", wsat_section)
