"""Report sections of `consistency` and `wsat` (docs/methods/consistency.md, wsat.md).

Consistency: the steady-state table, the per-second IOPS scatter for the whole run and
for the analysed window, simulator telemetry on the same time axis; the first
consistency test of a run also puts every consistency test of the run (default and
over-provisioned variants) side by side with bars of their steady mean and stddev.
WSAT: IOPS against time and against host GB written.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from ssdlab.analysis.consistency import RunSeries
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.methods._prep import FILL_BLOCK_BYTES, FILL_IODEPTH
from ssdlab.methods.consistency import (
    MOST_SPARE_PCT,
    SPARE_UNKNOWN_WORDS,
    TortureParams,
    rule_round_s,
    torture_time,
    window_before_free_s,
    window_text,
)
from ssdlab.methods.metrics import block_text
from ssdlab.report import consistency_charts as charts
from ssdlab.report.contract import MethodView, method_view
from ssdlab.report.section_generic import (
    flat_table,
    generic_section,
    measured,
    section_title,
    series_figures,
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


def queue_words(p: TortureParams) -> str:
    """'QD32', or 'QD8 in each of 4 jobs': the I/Os the torture kept outstanding (fio's depth is per job)."""
    return f"QD{p.iodepth}" if p.jobs == 1 else f"QD{p.iodepth} in each of {p.jobs} jobs"


def load_words(p: TortureParams) -> str:
    """'4 KiB QD32 random write', '16 KiB random write at QD8 in each of 4 jobs': the torture as it
    ran, from its parameters (QA: the report said 4 KiB QD32 of a 16 KiB QD4 torture)."""
    block = block_text(p.block_size_bytes)
    return f"{block} QD{p.iodepth} random write" if p.jobs == 1 else f"{block} random write at {queue_words(p)}"


def _printed_periods(runs: Sequence[RunSeries]) -> tuple[list[str], list[float], int]:
    """The runs' logging periods as a sentence prints them, the period lengths that print unlike
    their run's period, and how many periods there are. A length is read as printed: the
    simulator's last period holds the commands that complete just after the runtime (1.001 s),
    which is no other length; a round that ends half-way through a second is."""
    periods = sorted({seconds_text(r.period_s) for r in runs}, key=float)
    odd = [length for r in runs for length in _unlike_period(r)]
    return periods, odd, sum(len(r.lengths_s) for r in runs)


def _unlike_period(run: RunSeries) -> list[float]:
    """The run's period lengths that print unlike its period, in order. Each distinct length is
    printed once: an 8-hour run has 28,800 periods of a handful of lengths, and each was printed
    twice on every caption that says what a dot is (QA, scale: 230,000 prints in one report,
    691,000 in a comparison of ten such runs)."""
    lengths = run.lengths_s
    own = seconds_text(run.period_s)
    unlike = {length for length in set(lengths) if seconds_text(length) != own}
    return [length for length in lengths if length in unlike]


def each_dot(runs: Sequence[RunSeries], writes: str = "") -> str:
    """'Each dot is one second of 4 KiB random writes': what one dot of a per-period IOPS scatter
    stands for, as the periods ran (QA: "one second" of rounds that ended half-way through one).
    Periods of another length, or some of other lengths: 'Each dot is one logging period of …
    (1 s, but 10 of the 205 last 0.5 s)'."""
    of = f" of {writes}" if writes else ""
    periods, odd, count = _printed_periods(runs)
    if len(periods) == 1 and not odd:
        return f"Each dot is {'one second' if periods[0] == '1' else f'one {periods[0]} s period'}{of}"
    lasting = sorted({seconds_text(length) for length in odd}, key=float)
    span = lasting[0] if len(lasting) == 1 else f"{lasting[0]} to {lasting[-1]}"
    some = "the only one lasts" if count == 1 else f"all {count} last" if len(odd) == count else \
        f"{len(odd)} of the {count} last"  # QA: "1 of the 1 last 0.05 s" of a 0.05 s run
    but = f", but {some} {span} s" if odd else ""
    return f"Each dot is one logging period{of} ({' or '.join(periods)} s{but})"


def iops_per_dot(runs: Sequence[RunSeries]) -> str:
    """'IOPS per second' when each dot is one (each_dot), else 'IOPS per period'."""
    periods, odd, _ = _printed_periods(runs)
    return "IOPS per second" if periods == ["1"] and not odd else "IOPS per period"


def metric_table(view: MethodView, key: str, title: str, names: Sequence[str]) -> Table:
    """Label, value and unit of each named metric the method declares and the run has."""
    specs = [spec for name in names if (spec := view.specs.get(name)) is not None and view.value(spec) is not None]
    return flat_table(view, key, title, specs)


def window_s(view: MethodView) -> float:
    """The analysed window: what the run had, or the method's window before analysis."""
    measured_s = view.number("window_s")
    return measured_s if measured_s is not None else float(view.params.steady_window_s)


def window_seconds(view: MethodView) -> str:
    """The analysed window's seconds as its titles say them: '399.99' of a 400 s window they fall
    short of (window_text), never '400'."""
    return window_text(window_s(view), float(view.params.steady_window_s))


def window_title(view: MethodView) -> str:
    """'Steady state (last 400 s)' only when the window was judged steady."""
    verdict = next((v for v in view.record.verdicts if v.key == "steady_state"), None)
    last = f"last {window_seconds(view)} s"
    if window_before_free_s(view.record.metrics):  # the rule's window lies later: this one holds fresh seconds
        return f"{last.capitalize()} (not steady state: it began before the free space was written)"
    if verdict is not None and verdict.outcome == "yes":
        return f"Steady state ({last})"
    return f"{last.capitalize()} (not steady state)" if verdict else last.capitalize()


def scatter_figures(run: charts.TortureRun, window: float, p: TortureParams) -> list[FigureLike]:
    key, per = run.label, iops_per_dot([run.series])
    return [
        Figure(f"{key}-scatter", f"{per}, whole run", partial(charts.iops_scatter, run),
               f"{each_dot([run.series], f'{block_text(p.block_size_bytes)} random writes')}; the cliff is where "
               "the spare area ran out."),
        Figure(f"{key}-scatter-window", f"{per}, last {window_text(window, p.steady_window_s)} s",
               partial(charts.iops_scatter, run, window, last_text=window_text(window, p.steady_window_s)),
               "The analysed window: its mean and standard deviation are the steady-state figures."),
        Figure(f"{key}-scatter-log", f"{per}, whole run (log scale)", partial(charts.iops_scatter, run, log_y=True),
               "The same run on a logarithmic IOPS axis, so outliers and stalls far below the mean show; a "
               "second in which no write completed sits at 0, at its foot."),
    ]


def telemetry_figure(run: charts.TortureRun) -> list[FigureLike]:
    if not charts.has_telemetry(run):
        return []
    return [Figure(f"{run.label}-telemetry", "IOPS with simulator telemetry", partial(charts.telemetry_panels, run),
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
        Figure(f"{record.name}-variants", "Variants side by side, whole run", partial(charts.side_by_side, runs),
               "Same IOPS scale in every panel, so levels compare directly."),
        Figure(f"{record.name}-variants-window", f"Variants side by side, last {seconds_text(window)} s",
               partial(charts.side_by_side, runs, window), "The analysed windows of each variant."),
        Figure(f"{record.name}-variants-bars", "Steady-state mean and stddev per variant",
               partial(charts.steady_bars, bars),
               "Higher mean is faster; lower stddev is steadier."),
    ]


def fill_words(passes: int) -> str:
    """'Purge, sequential 128 KiB QD32 fill (1 pass)', from the fill _prep runs; 'Purge, no fill'
    for fill_passes=0 (it was captioned "fill (0 pass)")."""
    if not passes:
        return "Purge, no fill"
    return (f"Purge, sequential {block_text(FILL_BLOCK_BYTES)} QD{FILL_IODEPTH} fill ({passes} "
            f"pass{'es' if passes > 1 else ''})")


def consistency_caption(view: MethodView) -> str:
    p = view.params
    op = p.op_pct
    span = f"the first {100 - op:g} % of the purged drive ({op:g} % over-provisioning)" if op else "the full span"
    data = "incompressible" if not p.compress_pct else f"{p.compress_pct} % compressible"
    return (
        f"{fill_words(p.fill_passes)}, then {block_text(p.block_size_bytes)} random "
        f"writes {queue_words(p)}, {data}, over {span} {torture_time(p)}, IOPS logged every second. Figures: mean "
        f"and standard deviation of the last {window_seconds(view)} s; steady state by the SNIA PTS rule on "
        f"{seconds_text(rule_round_s(p, view.record.metrics))} s rounds."
    )


# Against the review figures checked, simulated client steady states run high (bench/fidelity.py).
# No figures here: they move whenever the calibration does (this note still said "about twice"
# after the SM951 was brought to its review figure). The doc keeps them.
SIM_LEVEL_NOTE = ("Simulated drive: a client preset's steady-state level rests on at most one review figure "
                  "of its controller family, and the review figures held out still differ from the simulator's "
                  "(docs/simulator-calibration.md, \"Fidelity\" and \"What is still off\", give each drive's); "
                  "compare this test's shape with real drives more than its level.")


def fresh_window_note(record: TestRecord) -> str | None:
    """One plain sentence where the analysed window began before the torture had written the drive's
    free space (window_before_free_s): its figures are then partly the fresh drive's, not steady state."""
    before = window_before_free_s(record.metrics)
    free_s = record.metrics.get("free_space_written_s")
    if not before or not isinstance(free_s, int | float):
        return None
    return (f"The analysed window began {seconds_text(before)} s before the torture had written the drive's free "
            f"space (by {seconds_text(free_s)} s), so its figures mix the fresh drive with its steady state and "
            "the cliff is not judged.")


def spare_unknown_note(record: TestRecord) -> str | None:
    """One plain sentence where the cliff was not judged because no fall came before the free space of
    the most spare area a drive keeps was written, on a drive whose NAND is not known."""
    cliff = next((v for v in record.verdicts if v.key == "cliff"), None)
    spare = record.metrics.get("spare_written_pct")
    if cliff is None or not cliff.summary.endswith(SPARE_UNKNOWN_WORDS) or not isinstance(spare, int | float):
        return None
    return (f"This drive's spare area is not known: before the analysed window the torture had written the free "
            f"space of a drive with up to {spare:.1f} % spare area, and one with more (drives keep up to "
            f"{MOST_SPARE_PCT:g} %) may still fall, so the cliff is not judged.")


def consistency_section(bundle: Bundle, record: TestRecord) -> Section:
    target = bundle.load_run().target
    view = method_view(bundle, record)
    if view is None:
        return generic_section(bundle, record)
    run = charts.load_torture_run(bundle, record)
    figures: list[FigureLike] = []
    if run is not None:
        figures += [*scatter_figures(run, window_s(view), view.params), *telemetry_figure(run)]
        figures += comparison_figures(bundle, view)
    else:
        figures += series_figures(record.name, measured(bundle, record))
    tables = [metric_table(view, "steady", window_title(view), WINDOW_TABLE)]
    sim = [SIM_LEVEL_NOTE] if record.metrics and target.kind == "sim" else []
    level = tuple(note for note in [*sim, fresh_window_note(record), spare_unknown_note(record)] if note)
    return Section(key=record.name, title=section_title(record), caption=consistency_caption(view),
                   status=record.status, tables=tables if record.metrics else [], figures=figures,
                   notes=level)


def wsat_section(bundle: Bundle, record: TestRecord) -> Section:
    view = method_view(bundle, record)
    if view is None:
        return generic_section(bundle, record)
    run = charts.load_torture_run(bundle, record)
    figures: list[FigureLike] = []
    if run is not None:
        figures.append(Figure(f"{record.name}-wsat", "WSAT: IOPS against time and host GB written",
                              partial(charts.wsat_charts, run),
                              f"{each_dot([run.series])}; right: the same against data written."))
        figures += telemetry_figure(run)
    tables = [metric_table(view, "wsat", "Write saturation", WSAT_TABLE)]
    p = view.params
    caption = (f"SNIA PTS write saturation: purge, then {block_text(p.block_size_bytes)} random writes "
               f"{queue_words(p)} from the fresh drive {torture_time(p)}, no preconditioning, IOPS every second.")
    return Section(key=record.name, title=section_title(record), caption=caption, status=record.status,
                   tables=tables if record.metrics else [], figures=figures)


register_section("consistency", consistency_section)
register_section("wsat", wsat_section)
