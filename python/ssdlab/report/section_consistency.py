"""Report sections of `consistency` and `wsat` (docs/methods/consistency.md, wsat.md).

Consistency: the steady-state table, the per-second IOPS scatter for the whole run and
for the analysed window, simulator telemetry on the same time axis; the first
consistency test of a run also puts every consistency test of the run (default and
over-provisioned variants) side by side with bars of their steady mean and stddev.
WSAT: IOPS against time and against host GB written.
"""

from __future__ import annotations

from collections.abc import Sequence

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.methods.consistency import torture_time
from ssdlab.methods.metrics import block_text
from ssdlab.report import consistency_charts as charts
from ssdlab.report.contract import MethodView, method_view, record_view
from ssdlab.report.section_generic import (
    flat_table,
    generic_section,
    measured,
    section_title,
    series_figures,
    status_notes,
)
from ssdlab.report.sections import register_section
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.units import seconds_text

# The rows of the window table, by metric: headline figures first (names are the method's).
WINDOW_TABLE = (
    "window_iops_mean", "window_iops_stddev", "window_mean_stddev_ratio", "window_cv_pct", "window_iops_min",
    "window_iops_max", "window_iops_p1", "window_iops_p99", "fresh_iops", "window_fresh_pct", "steady_attained",
    "time_to_steady_s", "host_gb_written", "span_pct", "window_wa", "fio_ss_attained",
)
WSAT_TABLE = ("fob_iops", "window_iops_mean", "window_iops_stddev", "cliff_gb_written", "gb_written_to_steady",
              "time_to_steady_s", "host_gb_written", "capacity_writes")


def metric_table(view: MethodView, key: str, title: str, names: Sequence[str]) -> Table:
    """Label, value and unit of each named metric the method declares and the run has."""
    specs = [spec for name in names if (spec := view.specs.get(name)) is not None and view.value(spec) is not None]
    return flat_table(view, key, title, specs)


def window_s(view: MethodView) -> float:
    """The analysed window: what the run had, or the method's window before analysis."""
    measured_s = view.number("window_s")
    return measured_s if measured_s is not None else float(view.params.steady_window_s)


def window_title(view: MethodView) -> str:
    """'Steady state (last 400 s)' only when the window was judged steady."""
    verdict = next((v for v in view.record.verdicts if v.key == "steady_state"), None)
    last = f"last {seconds_text(window_s(view))} s"
    if verdict is not None and verdict.outcome == "yes":
        return f"Steady state ({last})"
    return f"{last.capitalize()} (not steady state)" if verdict else last.capitalize()


def scatter_figures(run: charts.TortureRun, window: float) -> list[FigureLike]:
    key = run.label
    return [
        Figure(f"{key}-scatter", "IOPS per second, whole run", charts.iops_scatter(run),
               "Each dot is one second of 4 KiB random writes; the cliff is where the spare area ran out."),
        Figure(f"{key}-scatter-window", f"IOPS per second, last {seconds_text(window)} s",
               charts.iops_scatter(run, window),
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


def comparison_figures(bundle: Bundle, view: MethodView) -> list[FigureLike]:
    """Default and OP variants side by side: only in the first such test's section."""
    record = view.record
    siblings = sibling_runs(bundle, record)
    if len(siblings) < 2 or siblings[0].name != record.name:
        return []
    runs = [r for r in (charts.load_torture_run(bundle, t) for t in siblings) if r is not None]
    bars = [{"label": t.name, "mean": t.metrics.get("window_iops_mean"), "stddev": t.metrics.get("window_iops_stddev")}
            for t in siblings]
    window = window_s(view)
    return [
        Figure(f"{record.name}-variants", "Variants side by side, whole run", charts.side_by_side(runs),
               "Same IOPS scale in every panel, so levels compare directly."),
        Figure(f"{record.name}-variants-window", f"Variants side by side, last {seconds_text(window)} s",
               charts.side_by_side(runs, window), "The analysed windows of each variant."),
        Figure(f"{record.name}-variants-bars", "Steady-state mean and stddev per variant", charts.steady_bars(bars),
               "Higher mean is faster; lower stddev is steadier."),
    ]


def consistency_caption(view: MethodView) -> str:
    p = view.params
    op = p.op_pct
    span = f"the first {100 - op:g} % of the purged drive ({op:g} % over-provisioning)" if op else "the full span"
    data = "incompressible" if not p.compress_pct else f"{p.compress_pct} % compressible"
    return (
        f"Purge, sequential 128 KiB QD32 fill ({p.fill_passes} pass), then {block_text(p.block_size_bytes)} random "
        f"writes QD{p.iodepth}, {data}, over {span} {torture_time(p)}, IOPS logged every second. Figures: mean "
        f"and standard deviation of the last {seconds_text(window_s(view))} s; steady state by the SNIA PTS rule on "
        f"{p.round_s:g} s rounds."
    )


# Against the review figures checked, simulated client steady states run high (bench/fidelity.py).
# No figures here: they move whenever the calibration does (this note still said "about twice"
# after the SM951 was brought to its review figure). The doc keeps them.
SIM_LEVEL_NOTE = ("Simulated drive: a client preset's steady-state level rests on at most one review figure "
                  "of its controller family, and the review figures held out still differ from the simulator's "
                  "(docs/simulator-calibration.md, \"Fidelity\" and \"What is still off\", give each drive's); "
                  "compare this test's shape with real drives more than its level.")


def consistency_section(bundle: Bundle, record: TestRecord) -> Section:
    target = bundle.load_run().target
    view = record_view(record, target)
    if view is None:
        return generic_section(bundle, record)
    run = charts.load_torture_run(bundle, record)
    figures: list[FigureLike] = []
    if run is not None:
        figures += [*scatter_figures(run, window_s(view)), *telemetry_figure(run)]
        figures += comparison_figures(bundle, view)
    else:
        figures += series_figures(record.name, measured(bundle, record))
    tables = [metric_table(view, "steady", window_title(view), WINDOW_TABLE)]
    level = (SIM_LEVEL_NOTE,) if record.metrics and target.kind == "sim" else ()
    return Section(key=record.name, title=section_title(record), caption=consistency_caption(view),
                   status=record.status, tables=tables if record.metrics else [], figures=figures,
                   notes=(*status_notes(record), *level))


def wsat_section(bundle: Bundle, record: TestRecord) -> Section:
    view = method_view(bundle, record)
    if view is None:
        return generic_section(bundle, record)
    run = charts.load_torture_run(bundle, record)
    figures: list[FigureLike] = []
    if run is not None:
        figures.append(Figure(f"{record.name}-wsat", "WSAT: IOPS against time and host GB written",
                              charts.wsat_charts(run), "Each dot is one second; right: the same against data written."))
        figures += telemetry_figure(run)
    tables = [metric_table(view, "wsat", "Write saturation", WSAT_TABLE)]
    p = view.params
    caption = (f"SNIA PTS write saturation: purge, then {block_text(p.block_size_bytes)} random writes "
               f"QD{p.iodepth} from the fresh drive {torture_time(p)}, no preconditioning, IOPS every second.")
    return Section(key=record.name, title=section_title(record), caption=caption, status=record.status,
                   tables=tables if record.metrics else [], figures=figures, notes=status_notes(record))


register_section("consistency", consistency_section)
register_section("wsat", wsat_section)
