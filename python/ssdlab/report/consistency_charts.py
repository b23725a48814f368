"""Charts for the steady-state methods, built from bundle data only.

Docs: docs/methods/consistency.md, wsat.md, pts-iops.md, trim-validation.md.

Pure builders: plain rows in, altair charts out, so the report and compare can both use
them. Loaders at the bottom turn a bundle's test records into those rows. Long runs are
thinned to at most about MAX_POINTS per panel: the IOPS scatters and the telemetry lines keep the
lowest and the highest of each run of k seconds (charts.thin_keeping_extremes), so a stall is never
the second left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ssdlab._lazy import deferred
from ssdlab.analysis.consistency import (
    HOST_BYTES,
    NAND_BYTES,
    RunSeries,
    join_series,
    period_write_amplification,
    run_offsets,
)
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.measurement import Measurement
from ssdlab.report.charts import Row, alt_data, field_values, log_scale_with_zero, thin_keeping_extremes, value_scale
from ssdlab.report.types import AltChart
from ssdlab.units import seconds_text

if TYPE_CHECKING:
    import altair as alt
else:
    alt = deferred("altair")

MAX_POINTS = 4000  # per scatter panel: an hour at 1 s periods is shown whole
PANEL_WIDTH = 360
PANEL_HEIGHT = 220
# Simulator telemetry worth a panel, with axis titles (docs/methods/consistency.md "overlay telemetry").
TELEMETRY = {"wa": "write amplification (each period)", "free_blocks": "free blocks", "temp_c": "temperature °C"}


def _data(rows: Sequence[Row]) -> Any:
    return alt_data(rows)


@dataclass(frozen=True)
class TortureRun:
    """One consistency / wsat test of a bundle: its joined series and telemetry."""

    label: str  # test name in the run, e.g. consistency-op25
    series: RunSeries
    telemetry: Mapping[str, tuple[float, ...]]
    metrics: Mapping[str, Any]
    # iops_rows by last_s, made once: a section draws the whole run three times (linear, log, over
    # the telemetry) and side_by_side reads each panel's rows twice; an 8-hour run thinned from
    # 28,800 rows each time (QA, scale). Not part of the run: left out of ==, hash and repr.
    thinned: dict[float | None, tuple[Row, ...]] = field(default_factory=dict, compare=False, hash=False, repr=False)


def iops_rows(run: TortureRun, last_s: float | None = None) -> list[Row]:
    kept = run.thinned.get(last_s)
    if kept is None:
        kept = run.thinned[last_s] = tuple(_thinned_iops(run, last_s))
    return list(kept)


def _thinned_iops(run: TortureRun, last_s: float | None) -> list[Row]:
    series = run.series
    # By time, as the window figures are taken (RunSeries.tail_count): rounds an early stop joined
    # end in a short period each, so a count of periods is not a time.
    count = len(series.iops) if last_s is None else series.tail_count(last_s)
    pairs = list(zip(series.t_s, series.iops, strict=True))[-count:]
    return thin_keeping_extremes([{"t_s": t, "iops": v, "run": run.label} for t, v in pairs], "iops", MAX_POINTS)


def iops_scatter(run: TortureRun, last_s: float | None = None, log_y: bool = False,
                 last_text: str | None = None, shared: Sequence[float] = ()) -> AltChart:
    """Per-second IOPS against time: the whole run, or its last `last_s` seconds (said as `last_text`
    where given: 399.99 of a 400 s window, methods/consistency.window_text); `shared`: the IOPS of
    the panels beside it on one scale (side_by_side), which its top clears too."""
    rows = iops_rows(run, last_s)
    drawn = [*field_values(rows, "iops"), *shared]
    scale, axis = log_scale_with_zero(drawn) if log_y else (value_scale(drawn), alt.Axis())
    title = f"{run.label}: " + ("whole run" if last_s is None else f"last {last_text or seconds_text(last_s)} s")
    # The window's own seconds, not 0 on: a quantitative axis starts at 0 by default, and QA saw
    # the last 400 s of a 3,600 s run as a cluster in the corner of a 0-4,000 s axis.
    time_scale = alt.Scale(zero=last_s is None, nice=last_s is None)
    return alt.Chart(_data(rows), title=title).mark_circle(size=6).encode(
        x=alt.X("t_s:Q", title="time (s)", scale=time_scale), y=alt.Y("iops:Q", title="IOPS", scale=scale, axis=axis),
        tooltip=["t_s:Q", "iops:Q"],
    ).properties(width=PANEL_WIDTH, height=PANEL_HEIGHT)


def side_by_side(runs: Sequence[TortureRun], last_s: float | None = None, log_y: bool = False) -> AltChart:
    """Default and OP variants next to each other, on one IOPS scale so levels compare."""
    shared = [row["iops"] for r in runs for row in iops_rows(r, last_s)]
    return alt.hconcat(*(iops_scatter(r, last_s, log_y, shared=shared) for r in runs)).resolve_scale(y="shared")


def telemetry_rows(run: TortureRun, key: str) -> list[Row]:
    """One telemetry channel under the IOPS scatter: a one-period dip (free blocks) kept (QA)."""
    times, values = run.telemetry.get("t_s", ()), run.telemetry.get(key, ())
    return thin_keeping_extremes([{"t_s": t, "value": v} for t, v in zip(times, values, strict=False)], "value",
                                 MAX_POINTS)


def has_telemetry(run: TortureRun) -> bool:
    """Whether the run holds any channel telemetry_panels draws (a time and a value: telemetry_rows
    has rows), asked without thinning any: the terminal's tables ask it too."""
    times = run.telemetry.get("t_s", ())
    return bool(times) and any(run.telemetry.get(key, ()) for key in TELEMETRY)


def telemetry_panels(run: TortureRun) -> AltChart:
    """IOPS with the simulator's telemetry underneath on the same time axis (has_telemetry)."""
    panels = [iops_scatter(run)]
    for key, title in TELEMETRY.items():
        rows = telemetry_rows(run, key)
        if rows:
            panels.append(alt.Chart(_data(rows)).mark_line().encode(
                x=alt.X("t_s:Q", title="time (s)"),
                y=alt.Y("value:Q", title=title, scale=value_scale(field_values(rows, "value"), zero=False)),
            ).properties(width=PANEL_WIDTH, height=PANEL_HEIGHT // 2))
    return alt.vconcat(*panels).resolve_scale(x="shared")


def steady_bars(rows: Sequence[Row]) -> AltChart:
    """Steady mean and stddev per compared drive/variant; rows: label, mean, stddev."""
    data = _data(list(rows))
    mean = alt.Chart(data, title="steady-state mean IOPS").mark_bar().encode(
        y=alt.Y("label:N", title=None, sort=None), x=alt.X("mean:Q", title="IOPS"))
    stddev = alt.Chart(data, title="steady-state stddev (IOPS)").mark_bar(color="#d62728").encode(
        y=alt.Y("label:N", title=None, sort=None), x=alt.X("stddev:Q", title="IOPS"))
    return alt.hconcat(mean, stddev)


def wsat_charts(run: TortureRun) -> AltChart:
    """WSAT: IOPS against time and against total host GB written."""
    gb = run.series.cumulative_gb_written()
    rows = thin_keeping_extremes([{"t_s": t, "gb": g, "iops": v}
                                  for t, g, v in zip(run.series.t_s, gb, run.series.iops, strict=True)], "iops",
                                 MAX_POINTS)
    base = alt.Chart(_data(rows)).mark_circle(size=6)
    y = alt.Y("iops:Q", title="IOPS", scale=value_scale(field_values(rows, "iops")))
    by_time = base.encode(x=alt.X("t_s:Q", title="time (s)"), y=y)
    by_gb = base.encode(x=alt.X("gb:Q", title="host GB written"), y=y)
    return alt.hconcat(by_time.properties(title="WSAT: IOPS against time"),
                       by_gb.properties(title="WSAT: IOPS against GB written")).resolve_scale(y="shared")


def pts_convergence(rows: Sequence[Row], window: tuple[int, int]) -> AltChart:
    """Tracking variables per round (rows: round, cell, iops) with the measurement window."""
    lines = alt.Chart(_data(list(rows)), title="PTS steady-state convergence").mark_line(point=True).encode(
        x=alt.X("round:Q", title="round", axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y("iops:Q", title="IOPS", scale=value_scale(field_values(rows, "iops"))),
        color=alt.Color("cell:N", title="variable"),
    )
    span = alt.Chart(_data([{"start": window[0] - 0.5, "end": window[1] + 0.5}])).mark_rect(
        opacity=0.12, color="#2ca02c").encode(x="start:Q", x2="end:Q")
    return alt.layer(span, lines).properties(width=PANEL_WIDTH * 1.5, height=PANEL_HEIGHT)


def pts_window_plot(rows: Sequence[Row]) -> AltChart:
    """Measurement-window IOPS per block size, one line per read share (rows: bs_kib, read_pct, iops)."""
    return alt.Chart(_data(list(rows)), title="PTS IOPS: measurement window").mark_line(point=True).encode(
        x=alt.X("bs_kib:Q", title="block size (KiB)", scale=alt.Scale(type="log", base=2)),
        y=alt.Y("iops:Q", title="IOPS", scale=alt.Scale(type="log")),
        color=alt.Color("read_pct:O", title="read %"),
    ).properties(width=PANEL_WIDTH * 1.5, height=PANEL_HEIGHT)


# ---- loaders: bundle -> rows --------------------------------------------------------------


def torture_measurements(found: Mapping[str, Measurement]) -> list[Measurement]:
    """The torture of a consistency/wsat test: one `torture` run or its `torture-rNNN` rounds."""
    return [found[name] for name in sorted(found) if name == "torture" or name.startswith("torture-r")]


def joined_telemetry(ran: Sequence[Measurement]) -> dict[str, tuple[float, ...]]:
    """Telemetry of consecutive runs on one clock (run_offsets), the clock join_series puts the series on."""
    out: dict[str, list[float]] = {}
    for m, offset_s in zip(ran, run_offsets(ran), strict=True):
        for key, values in m.telemetry.items():
            shifted = [offset_s + v for v in values] if key == "t_s" else list(values)
            out.setdefault(key, []).extend(shifted)
    joined = {key: tuple(values) for key, values in out.items()}
    if NAND_BYTES in joined and HOST_BYTES in joined:  # each period's own, not the lifetime ratio
        joined["wa"] = period_write_amplification(joined[NAND_BYTES], joined[HOST_BYTES])
    return joined


def load_torture_run(bundle: Bundle, record: TestRecord) -> TortureRun | None:
    ran = torture_measurements(bundle.measurements(record))
    if not ran:
        return None
    return TortureRun(record.name, join_series(ran), joined_telemetry(ran), dict(record.metrics))


def pts_rows(bundle: Bundle, record: TestRecord) -> tuple[list[Row], list[Row]]:
    """(convergence rows of the tracked cells per round, measurement-window rows per cell)."""
    from ssdlab.methods._prep import size_label
    from ssdlab.methods.pts import PtsIopsParams, cell_metric, cell_name, cells, tracking_cells

    params = PtsIopsParams.model_validate(record.params)
    found = bundle.measurements(record)
    convergence = [
        {"round": number, "cell": f"{size_label(bs)} {pct} % read", "iops": found[name].iops()}
        for bs, pct in tracking_cells(params) for number in range(1, params.max_rounds + 1)
        if (name := cell_name(number, (bs, pct))) in found
    ]
    window = [
        {"bs_kib": bs / 1024, "read_pct": pct, "iops": value}
        for bs, pct in cells(params)
        if isinstance(value := record.metrics.get(cell_metric((bs, pct))), (int, float))
    ]
    return convergence, window
