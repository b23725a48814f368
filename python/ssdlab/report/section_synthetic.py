"""Report sections for the synthetic presets: the AS SSD table and the Iometer figure.

AS SSD is a table in its own layout (rows Seq / 4K / 4K-64Thrd (the count that ran) / Acc.time, columns Read /
Write, then the three scores); `as_ssd_table` gives it as header + rows for any renderer,
and `figures` a bar chart of the same MB/s. Iometer: combined, read and write IOPS, and
IOPS per period over the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from ssdlab._lazy import deferred
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.measurement import Measurement
from ssdlab.methods.metrics import block_text, part_moved_nothing
from ssdlab.methods.synthetic import (
    AS_SSD_RUNS,
    AS_SSD_THREADS,
    MIXED_RUN,
    AsSsdParams,
    IometerParams,
    access_write_bytes,
    iometer_block,
    threads_label,
)
from ssdlab.report.charts import Row, alt_data, field_values, value_scale
from ssdlab.report.contract import MethodView, mark, method_view
from ssdlab.report.section_generic import metrics_tables, run_params
from ssdlab.report.section_sweeps import HEIGHT, WIDTH, dedicated_section
from ssdlab.report.sections import register_section
from ssdlab.report.types import AltChart, Figure, Section, Table
from ssdlab.units import human_size, is_number, seconds_text

if TYPE_CHECKING:
    import altair as alt
else:
    alt = deferred("altair")


def as_ssd_rows_of(threads: int = AS_SSD_THREADS) -> tuple[tuple[str, str], ...]:
    """(row label, metric key) of the MB/s rows: the many-thread row named by the jobs that ran."""
    return ("Seq", "seq"), ("4K", "rnd4k"), (threads_label(threads), "rnd4k_64t")



def _fmt(value: Any, unit: str, digits: int = 1) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "—"
    return f"{value:,.{digits}f} {unit}".rstrip()


def _run_value(view: MethodView, run: str, rate: str) -> float | None:
    found = view.numbers(run=run, rate=rate)
    return found[0][1] if found else None


def _cell(view: MethodView, unit: str, digits: int = 1, **dims: object) -> str:
    """The table's cell of the figure with these dimensions, marked when a window too short to
    trust made it."""
    found = view.numbers(**dims)
    return mark(_fmt(found[0][1], unit, digits), view.marked(found[0][0])) if found else _fmt(None, unit)


def as_ssd_table(view: MethodView, found: Mapping[str, Measurement] | None = None) -> Table:
    """The AS SSD table; `found`: the test's measurements, whose telemetry says whether the cool-down did cool
    the drive (cooldown_text)."""
    p = view.params
    rows = [(label, _cell(view, "MB/s", run=f"{key}_read", rate="mb_s"),
             _cell(view, "MB/s", run=f"{key}_write", rate="mb_s")) for label, key in as_ssd_rows_of(p.threads)]
    rows.append(("Acc.time", _cell(view, "ms", 3, run="access_read", rate="access_ms"),
                 _cell(view, "ms", 3, run="access_write", rate="access_ms")))
    rows.append(("Score", _cell(view, "", 0, score="read"), _cell(view, "", 0, score="write")))
    rows.append(("Total score", _cell(view, "", 0, score="total"), ""))
    access_write = human_size(access_write_bytes(p.access_write_block_bytes, view.target.logical_block_size))
    caption = (f"Incompressible data. Seq: {human_size(p.size_bytes)} in {human_size(p.seq_block_bytes)} blocks at "
               f"QD1. 4K: random QD1, {p.runtime_s:g} s. {threads_label(p.threads)}: {p.threads} jobs at QD1 "
               f"each, {p.runtime_s:g} s. Acc.time: mean latency of 4 KiB random reads over the whole "
               f"(written) drive and {access_write} random writes in the test region, QD1. Scores by AS SSD's "
               f"published formula from the MB/s figures.{cooldown_text(view, found)}")
    return Table(f"{view.record.name}-table", "AS SSD-like benchmark", ("", "Read", "Write"), tuple(rows), caption)


def cooldown_text(view: MethodView, found: Mapping[str, Measurement] | None = None) -> str:
    """How the drive started the runs, from the recorded setting (cooldown_s): not from the parameters,
    which read a run from before the cool-down existed (measured at once) as one at its default. What the
    idle was for, and whether it did it only as the measured runs' telemetry (`found`) says: QA: "after a
    5 s idle, so the drive started near rest, not hot" stood above a note that the Seq runs of a 950 PRO
    ran throttled all their time at 67 °C."""
    if "cooldown_s" not in view.record.metrics:
        return ""
    idle_s = view.number("cooldown_s")
    if idle_s:
        return (f" Measured after a {seconds_text(idle_s)} s idle, for the drive to cool from the fill or the test "
                f"before{cooled_words(found or {})}.")
    return " Measured at once, without a cool-down: a drive the fill or the test before heated may have been throttled."


def cooled_words(found: Mapping[str, Measurement]) -> str:
    """Whether the measured runs ran cool, as their telemetry says: '; it did not here: 3 of the 8 measured
    runs ran throttled (see the notes)', '; none of the 8 measured runs ran throttled', or "" when the
    telemetry cannot say for every run (a real drive without a temperature sampler)."""
    shares = [found[name].throttled_share() for name, *_ in AS_SSD_RUNS if name in found]
    hot = sum(1 for share in shares if share)
    if hot:
        return f"; it did not here: {hot} of the {len(shares)} measured runs ran throttled (see the notes)"
    if shares and all(share is not None for share in shares):
        return f"; none of the {len(shares)} measured runs ran throttled"
    return ""


def as_ssd_rows(view: MethodView) -> list[Row]:
    rows: list[Row] = []
    for label, key in as_ssd_rows_of(view.params.threads):
        for direction in ("read", "write"):
            value = _run_value(view, f"{key}_{direction}", "mb_s")
            if value is not None:
                rows.append({"test": label, "direction": direction, "mb_s": value})
    return rows


def as_ssd_chart(rows: Sequence[Row]) -> AltChart:
    order = list(dict.fromkeys(str(row["test"]) for row in rows))  # Seq, 4K, 4K-nThrd, as as_ssd_rows gives them
    return alt.Chart(alt_data(rows)).mark_bar().encode(
        y=alt.Y("test:N", title=None, sort=order),
        yOffset=alt.YOffset("direction:N"),
        x=alt.X("mb_s:Q", title="MB/s", scale=value_scale(field_values(rows, "mb_s"))),
        color=alt.Color("direction:N", title=None),
        tooltip=["test:N", "direction:N", alt.Tooltip("mb_s:Q", format=",.1f")],
    ).properties(width=WIDTH, height=HEIGHT // 2 + 40)


def iometer_rows(bundle: Bundle, record: TestRecord) -> list[Row]:
    m = bundle.measurements(record).get(MIXED_RUN)
    if m is None:
        return []
    rows: list[Row] = []
    for t, reads, writes in zip(m.series.t_s, m.series.iops("read"), m.series.iops("write"), strict=True):
        rows += [{"t_s": t, "part": "read", "iops": reads}, {"t_s": t, "part": "write", "iops": writes},
                 {"t_s": t, "part": "total", "iops": reads + writes}]
    return rows


def iometer_chart(rows: Sequence[Row]) -> AltChart:
    return alt.Chart(alt_data(rows)).mark_line().encode(
        x=alt.X("t_s:Q", title="time (s)"),
        y=alt.Y("iops:Q", title="IOPS", scale=value_scale(field_values(rows, "iops"))),
        color=alt.Color("part:N", title=None, sort=["total", "read", "write"]),
        tooltip=["part:N", "t_s:Q", alt.Tooltip("iops:Q", format=",.0f")],
    ).properties(width=WIDTH, height=HEIGHT)


def total_text(view: MethodView, name: str, unit: str) -> str:
    """A figure of the run as its chart's caption quotes it ('41,203 IOPS'), marked when a window
    too short to trust made it."""
    spec = view.specs.get(name)
    return mark(_fmt(view.number(name), unit, 0), spec is not None and view.marked(spec))


def moved_nothing(view: MethodView, name: str) -> bool:
    """Whether the run's part `name` (read_iops, write_iops) did no I/O (metrics.part_moved_nothing)."""
    spec = view.specs.get(name)
    return spec is not None and part_moved_nothing(spec, view.number(name))


def iometer_figure(bundle: Bundle, view: MethodView) -> Figure:
    p, record = view.params, view.record
    parts = [total_text(view, name, unit) for name, unit in (("read_iops", "read"), ("write_iops", "write"))
             if not moved_nothing(view, name)]  # no "(41,203 read, 0 write)" of a 100 % read mix
    caption = (f"{block_text(p.block_size_bytes)} random, {p.read_pct} % reads, QD{p.iodepth}, {p.runtime_s:g} s over "
               f"{iometer_where(record, p)}: {total_text(view, 'iops', 'IOPS')} combined"
               + (f" ({', '.join(parts)})." if parts else "."))
    return Figure(f"{record.name}-iops", f"Iometer {iometer_block(p.block_size_bytes)} mixed: IOPS over the run",
                  partial(iometer_chart, iometer_rows(bundle, record)), caption)


def figures(bundle: Bundle, record: TestRecord) -> list[Figure]:
    view = method_view(bundle, record) if record.test in ("as-ssd", "iometer-mixed") else None
    if view is None or not record.metrics:
        return []
    if view.record.test == "as-ssd":
        table = as_ssd_table(view, bundle.measurements(record))
        return [Figure(f"{view.record.name}-bars", "AS SSD-like: MB/s", partial(as_ssd_chart, as_ssd_rows(view)),
                       table.caption)]
    if view.record.test == "iometer-mixed":
        return [iometer_figure(bundle, view)]
    return []


def tables(bundle: Bundle, record: TestRecord) -> list[Table]:
    view = method_view(bundle, record) if record.test == "as-ssd" else None
    return [as_ssd_table(view, bundle.measurements(record))] if view is not None and record.metrics else []


def as_ssd_section(bundle: Bundle, record: TestRecord) -> Section:
    ran = run_params(record.test, record.params)
    p = ran if isinstance(ran, AsSsdParams) else AsSsdParams()
    threads = p.threads
    # The test region the run used (QA: "a 1 GiB test region" was printed whatever size_bytes was).
    caption = (f"AS SSD Benchmark's procedure on a {human_size(p.size_bytes)} test region with incompressible "
               "data: sequential, "
               f"4K QD1, 4K with {threads} threads, and access time; scores by AS SSD's published formula.")
    return dedicated_section(bundle, record, caption, figures(bundle, record), tables(bundle, record))


def iometer_caption(record: TestRecord) -> str:
    """'Iometer-style 4 KiB random mix, half reads, at QD32 over the whole written drive; combined
    IOPS.': the load and the span the run ran (QA: that text was printed whatever they were)."""
    ran = run_params(record.test, record.params)
    p = ran if isinstance(ran, IometerParams) else IometerParams()
    mix = "half reads" if p.read_pct == 50 else f"{p.read_pct} % reads"
    return (f"Iometer-style {block_text(p.block_size_bytes)} random mix, {mix}, at QD{p.iodepth} over "
            f"{iometer_where(record, p)}; combined IOPS.")


def iometer_where(record: TestRecord, p: IometerParams) -> str:
    """'the whole written drive', 'a 8 GiB span of the written drive': the span the run ran over, for the
    section's caption and the figure's (QA: the figure said "the whole written drive" of a span)."""
    span = record.metrics.get("span_bytes")
    where = "the whole" if p.span_bytes is None or not is_number(span) else f"a {human_size(float(span))} span of the"
    written = "written drive" if p.fill else "drive, as written before it (no fill)"
    return f"{where} {written}"


def iometer_section(bundle: Bundle, record: TestRecord) -> Section:
    caption = iometer_caption(record)
    extra = metrics_tables(method_view(bundle, record), record) if record.metrics else []
    return dedicated_section(bundle, record, caption, figures(bundle, record), extra)


register_section("as-ssd", as_ssd_section)
register_section("iometer-mixed", iometer_section)
