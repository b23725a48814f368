"""Report section of `trace` (docs/methods/trace.md): the review metrics, latency
percentiles and slow-I/O shares by direction, and the replay over time (the simulator's
virtual time, fio's real time)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from pydantic import ValidationError

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.methods.metrics import MetricSet
from ssdlab.methods.trace import DSYNC_BECOMES, dsync_sentence
from ssdlab.report.charts import Row, grouped_bars, line_chart, thin_keeping_extremes
from ssdlab.report.contract import MethodView, method_view
from ssdlab.report.cpu import competing_note
from ssdlab.report.section_generic import generic_section, metrics_tables, section_title
from ssdlab.report.sections import register_section
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.targets.base import ReadingProcess
from ssdlab.trace.metrics import duration_parts
from ssdlab.trace.sim_step import FUA_DSYNC
from ssdlab.units import is_number


def replay_detail(record: TestRecord) -> dict[str, Any]:
    found = next((s for s in record.steps if s.step.kind == "replay_trace"), None)
    return dict(found.detail) if found is not None else {}


def percentile_rows(view: MethodView) -> list[Row]:
    return [{"percentile": f"p{spec.dims['percentile']:g}", "direction": str(spec.dims["direction"]), "us": value}
            for spec, value in view.numbers() if "percentile" in spec.dims]


def slow_rows(view: MethodView) -> list[Row]:
    rows = []
    for d in ("read", "write"):
        for ms in (10, 100):
            value = view.number(f"{d}_over_{ms}ms_pct")
            if value is not None:
                rows.append({"limit": f"> {ms} ms", "direction": d, "pct": value})
    return rows


def timeline_rows(detail: dict[str, Any]) -> dict[str, list[Row]]:
    series = detail.get("series") or {}
    t = series.get("t_s", [])
    # Each stretch's lowest and highest second, so a one-second stall stays on the chart (QA).
    return {key: thin_keeping_extremes([{"t_s": ts, "curve": label, key: v}
                                        for ts, v in zip(t, series.get(key, []), strict=False)], key)
            for key, label in (("mb_s", "data moved"), ("lat_us", "mean latency"))}


def trace_figures(view: MethodView, detail: dict[str, Any]) -> list[FigureLike]:
    key = view.record.name
    figures: list[FigureLike] = []
    pct = percentile_rows(view)
    if pct:
        figures.append(Figure(f"{key}-percentiles", "Latency percentiles by direction",
                              partial(grouped_bars, pct, "percentile", "", "direction", "us", "latency (µs)",
                                      unit="µs"),
                              "From fio-layout latency bins of every replayed I/O (issue to completion)."))
    slow = slow_rows(view)
    if slow:
        figures.append(Figure(f"{key}-slow", "I/Os above 10 ms and 100 ms",
                              partial(grouped_bars, slow, "limit", "", "direction", "pct", "% of I/Os", unit="%"),
                              "Share of each direction's I/Os whose service time exceeded the limit."))
    rows = timeline_rows(detail)
    bin_s = float((detail.get("series") or {}).get("bin_s", 1.0))
    if rows["mb_s"]:
        cut = "" if view.params.idle_cap_us is None else " (idle time cut)"
        figures.append(Figure(f"{key}-timeline", "Data moved over the replay",
                              partial(line_chart, rows["mb_s"], "mb_s", "MB/s"),
                              f"Bytes of completed reads and writes per {bin_s:g} s of {replay_clock(detail)}{cut}. "
                              "MB/s are decimal."))
        figures.append(Figure(f"{key}-latency", "Mean service time over the replay",
                              partial(line_chart, rows["lat_us"], "lat_us", "µs"),
                              f"Mean issue-to-completion time of the I/Os completing in each {bin_s:g} s."))
    return figures


def replay_clock(detail: dict[str, Any]) -> str:
    """The time a replay's timeline runs in: fio replays in real time; only the simulator's (and
    the fake engine's) is virtual (QA: a fio replay's chart said "of virtual time")."""
    return "real time" if detail.get("fua_replay") == FUA_DSYNC else "virtual time"


def trace_caption(view: MethodView, detail: dict[str, Any]) -> str:
    p = view.params
    trace = detail.get("trace") or {}
    cap = "idle time kept" if p.idle_cap_us is None else f"idle time cut to {p.idle_cap_us:g} µs"
    # Not purged (purge=no): the drive as the run found it (QA: "on the purged drive" was said of either).
    drive = "the purged drive" if p.purge else "the drive as it was (not purged first: purge=no)"
    return (f"Open-loop replay of {trace.get('source', p.trace)} ({held_text(detail, trace)}) on {drive}, "
            f"{cap}, offsets remapped by {p.remap}. Average data rate = bytes moved / busy time "
            "(time with at least one I/O outstanding); see docs/traces.md.")


def held_text(detail: dict[str, Any], trace: dict[str, Any]) -> str:
    """What the trace holds, in the words of the results: its reads and writes (the I/Os
    replayed), then its flushes and trims apart."""
    held = detail.get("trace_counts")
    if not isinstance(held, dict):  # a replay recorded before ssdlab counted them
        return f"{trace.get('records', '?')} records"
    parts = [f"{held.get('reads', 0) + held.get('writes', 0):,} reads and writes"]
    parts += [f"{held[k]:,} {k}" for k in ("flushes", "trims") if held.get(k)]
    return ", ".join(parts)


def count_notes(view: MethodView, detail: dict[str, Any]) -> tuple[str, ...]:
    """What the replay left out, said where the figures are: trims fio dropped, and reads and
    writes fio counted that its per-I/O log does not hold (the figures come from the log)."""
    notes = []
    dropped = detail.get("dropped_trims")
    if isinstance(dropped, int) and dropped:
        # On a block device too: one iolog for both (docs/traces.md); "fio cannot trim a file" said of a disk was wrong.
        notes.append(f"{dropped:,} trims of the trace dropped: the fio replay drops every trim, a block device's too "
                     "(docs/traces.md, \"Replay on fio\"); the figures are of its reads, writes and flushes.")
    fio_ios, logged = detail.get("fio_ios"), view.record.metrics.get("trace_ios")
    if isinstance(fio_ios, int) and isinstance(logged, int) and logged < fio_ios:
        notes.append(f"The per-I/O figures cover {logged:,} of the {fio_ios:,} reads and writes fio counted: fio's "
                     "latency log holds no more.")
    return tuple(notes)


def reader_notes(detail: dict[str, Any]) -> tuple[str, ...]:
    """Other programs the replay's watch saw reading the target (trace/sim_step.py keeps them in
    the step's detail, as a measurement keeps its competing_readers), said as a test's are."""
    readers = detail.get("competing_readers")
    if not isinstance(readers, list):
        return ()
    valid = (reader for reader in map(_reader, readers) if reader is not None)
    return tuple(competing_note(reader, ("the replay",)) for reader in valid)


def _reader(recorded: object) -> ReadingProcess | None:
    """A recorded reader, or None for one this ssdlab cannot read (a hand-edited bundle)."""
    try:
        return ReadingProcess.model_validate(recorded)
    except ValidationError:
        return None


def shown_view(view: MethodView) -> MethodView:
    """The view whose tables the section shows: without the generated trace's scale for a trace
    that was never generated (a capture, an import), which has none."""
    if view.record.metrics.get("scale") is not None:
        return view
    return replace(view, specs=MetricSet(tuple(s for s in view.specs if s.name != "scale")))


def fua_notes(view: MethodView, detail: dict[str, Any]) -> tuple[str, ...]:
    """What became of the trace's FUA writes where the engine did not send them as FUA writes."""
    fua = detail.get("trace_fua_writes")
    how = view.record.metrics.get("fua_replay")
    if not isinstance(fua, int) or not fua:
        return ()
    if how == "not_applied":
        return (f"FUA not applied: this engine replayed the trace's {fua:,} FUA writes as plain writes, so "
                "\"Writes marked FUA in the trace\" describes the trace, not what the drive was asked to do.",)
    if isinstance(how, str) and how in ("o_dsync", *DSYNC_BECOMES):  # what the kernel made of them, as the results say
        return (f"FUA on fio: the trace's {fua:,} FUA writes ran as O_DSYNC direct writes in fio jobs of their own; "
                f"{dsync_sentence(how)} (docs/traces.md, \"Replay on fio\").",)
    return ()


# Durations a replay can make short (a few µs of busy time): printed in the unit that keeps them
# short, as `trace replay` prints them, not rounded to 0.1 s in their declared seconds. Its
# latencies (`_us`) too, which a slow drive makes long (QA: "Read latency p99 53,399,177.1 µs").
DURATIONS = ("busy_s", "idle_cut_s")
LATENCY_SUFFIX = "_us"


def duration_s(key: str, value: Any) -> float | None:
    """A DURATIONS or latency metric's value in seconds; None for any other metric, or no figure."""
    if not is_number(value) or not (key in DURATIONS or key.endswith(LATENCY_SUFFIX)):
        return None
    return float(value) / 1e6 if key.endswith(LATENCY_SUFFIX) else float(value)


def with_durations(tables: list[Table], metrics: dict[str, Any]) -> list[Table]:
    """`tables` with each duration's (duration_s) value and unit as duration_parts gives them."""
    out = []
    for table in tables:
        rows = tuple(
            (row[0], *duration_parts(seconds))
            if (seconds := duration_s(key, metrics.get(key))) is not None and len(row) == 3 else row
            for row, key in zip(table.rows, table.row_keys or ("",) * len(table.rows), strict=True))
        out.append(replace(table, rows=rows))
    return out


def trace_section(bundle: Bundle, record: TestRecord) -> Section:
    view = method_view(bundle, record)
    if view is None:
        return generic_section(bundle, record)
    detail = replay_detail(record)
    return Section(key=record.name, title=section_title(record), caption=trace_caption(view, detail),
                   status=record.status,
                   tables=with_durations(metrics_tables(shown_view(view), record), dict(record.metrics)),
                   figures=trace_figures(view, detail),
                   notes=(*count_notes(view, detail), *fua_notes(view, detail), *reader_notes(detail)))


register_section("trace", trace_section)
