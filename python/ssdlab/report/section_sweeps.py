"""Report sections for the sweeps: per-QD bars, bathtub curves, the transfer-size chart.

Every figure is drawn from a test's metrics and params in run.json (the per-point figures
are metrics already). Each section registers under its catalogue test; an unfinished test
(no metrics) shows its raw per-second curves instead, as the generic section does.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from ssdlab._lazy import deferred
from ssdlab.bundle import Bundle, TestRecord
from ssdlab.methods.metrics import block_text
from ssdlab.methods.sweeps import MixedRandomParams, MixedSeqParams, QdSweepParams, TransferParams, scores_low_qd
from ssdlab.report.charts import Row, alt_data, field_values, value_scale
from ssdlab.report.contract import MethodView, method_view
from ssdlab.report.formatting import with_article
from ssdlab.report.section_generic import (
    measured,
    metrics_tables,
    row_label,
    run_params,
    section_title,
    series_figures,
)
from ssdlab.report.sections import register_section
from ssdlab.report.types import AltChart, Figure, FigureLike, Section, TableLike
from ssdlab.units import MIB, human_size

if TYPE_CHECKING:
    import altair as alt
else:
    alt = deferred("altair")

WIDTH = 420
HEIGHT = 240


# --- qd-sweep ----------------------------------------------------------------------------


def qd_rows(view: MethodView) -> list[Row]:
    """One row per (curve, QD): IOPS for random curves, MB/s for sequential ones."""
    rows: list[Row] = []
    for kind, rate in (("rnd", "iops"), ("seq", "mb_s")):
        for spec, value in view.numbers(curve=kind, rate=rate):
            rows.append({"kind": kind, "curve": row_label(spec), "direction": spec.dims["direction"],
                         "qd": spec.dims["qd"], "value": value, "metric": spec.name})
    return sorted(rows, key=lambda r: (r["kind"], r["direction"], r["qd"]))


def qd_bars(rows: Sequence[Row], kind: str, y_title: str) -> AltChart:
    """Grouped bars: queue depth on x, read and write side by side."""
    picked = [r for r in rows if r["kind"] == kind]
    return alt.Chart(alt_data(picked)).mark_bar().encode(
        x=alt.X("qd:O", title="queue depth"),
        xOffset=alt.XOffset("direction:N"),
        y=alt.Y("value:Q", title=y_title, scale=value_scale(field_values(picked, "value"))),
        color=alt.Color("direction:N", title=None),
        tooltip=["curve:N", "direction:N", "qd:O", alt.Tooltip("value:Q", format=",.0f"), "metric:N"],
    ).properties(width=WIDTH, height=HEIGHT)


def qd_figures(view: MethodView) -> list[Figure]:
    rows, p, name = qd_rows(view), view.params, view.record.name
    span = human_size(int(view.number("span_bytes") or p.span_bytes))
    qds = ", ".join(str(q) for q in p.queue_depths)
    how = f"at QD {qds}, {p.runtime_s:g} s per point, over {with_article(span)} region written beforehand"
    return [
        Figure(f"{name}-random", f"{block_text(p.random_block_bytes)} random IOPS by queue depth",
               partial(qd_bars, rows, "rnd", "IOPS"),
               f"Random reads (on written data), then random writes, {how}; the drive was purged first."
               + (" Score = mean of QD1, QD2 and QD4." if scores_low_qd(p) else "")),
        Figure(f"{name}-sequential", f"{block_text(p.seq_block_bytes)} sequential MB/s by queue depth",
               partial(qd_bars, rows, "seq", "MB/s"),
               f"Sequential reads, then sequential writes, {how}. MB/s are decimal (10^6 bytes)."),
    ]


# --- mixed sweeps ------------------------------------------------------------------------


def mix_rows(view: MethodView, rate: str) -> list[Row]:
    """Total, read and write rate at each read share."""
    rows: list[Row] = [
        {"read_pct": spec.dims["read_pct"], "part": spec.dims.get("part", "total"), "value": value,
         "metric": spec.name}
        for spec, value in view.numbers(rate=rate) if "read_pct" in spec.dims
    ]
    return sorted(rows, key=lambda r: (r["part"], -r["read_pct"]))


def bathtub(rows: Sequence[Row], y_title: str) -> AltChart:
    """Rate against read share, 100 % reads on the left as the sweep runs."""
    return alt.Chart(alt_data(rows)).mark_line(point=True).encode(
        x=alt.X("read_pct:Q", title="reads (%)", scale=alt.Scale(domain=[100, 0])),
        y=alt.Y("value:Q", title=y_title, scale=value_scale(field_values(rows, "value"))),
        color=alt.Color("part:N", title=None, sort=["total", "read", "write"]),
        strokeDash=alt.StrokeDash("part:N", legend=None, sort=["total", "read", "write"]),
        tooltip=["part:N", "read_pct:Q", alt.Tooltip("value:Q", format=",.0f"), "metric:N"],
    ).properties(width=WIDTH, height=HEIGHT)


def mixed_figures(view: MethodView) -> list[Figure]:
    p, record = view.params, view.record
    random = record.test == "mixed-random"
    rate, y_title = ("iops", "IOPS") if random else ("mb_s", "MB/s")
    block = block_text(p.block_size_bytes)
    steps = ", ".join(f"{x}" for x in p.read_pcts)
    if random:
        where = f"over {with_article(human_size(int(view.number('span_bytes') or 0)))} region written after a purge"
    else:
        # A span short of the drive is said as such (QA: span_bytes=8g on a 250 GB drive read "over the whole
        # drive"); whole_span cuts the whole drive to whole MiB.
        span = view.number("span_bytes")
        short = p.span_bytes is not None and span is not None and span < view.target.capacity_bytes - MIB
        drive = f"the drive's first {human_size(int(span))}" if short and span is not None else "the whole drive"
        where = f"over {drive}, written beforehand" + ("" if p.fill else " by the previous test")
    caption = (f"{block} {'random' if random else 'sequential'} I/O at QD{p.iodepth}, {where}; "
               f"read share {steps} %, {p.runtime_s:g} s each. Total, read and write rates.")
    title = f"Mixed {'random' if random else 'sequential'} {block}: rate against read share"
    return [Figure(f"{record.name}-bathtub", title, partial(bathtub, mix_rows(view, rate), y_title), caption)]


# --- transfer-sweep ----------------------------------------------------------------------


def transfer_rows(view: MethodView) -> list[Row]:
    rows: list[Row] = [
        {"block_bytes": spec.dims["block_bytes"], "label": block_text(int(str(spec.dims["block_bytes"]))),
         "direction": spec.dims["direction"], "mb_s": value, "metric": spec.name}
        for spec, value in view.numbers(rate="mb_s") if "block_bytes" in spec.dims
    ]
    return sorted(rows, key=lambda r: (r["direction"], r["block_bytes"]))


def transfer_chart(rows: Sequence[Row]) -> AltChart:
    """MB/s against transfer size on a log2 axis, read and write."""
    return alt.Chart(alt_data(rows)).mark_line(point=True).encode(
        x=alt.X("block_bytes:Q", title="transfer size (log2 scale)", scale=alt.Scale(type="log", base=2),
                axis=alt.Axis(labelExpr="datum.value >= 1048576 ? datum.value / 1048576 + ' MiB' : "
                              "datum.value >= 1024 ? datum.value / 1024 + ' KiB' : datum.value + ' B'")),
        y=alt.Y("mb_s:Q", title="MB/s", scale=value_scale(field_values(rows, "mb_s"))),
        color=alt.Color("direction:N", title=None),
        tooltip=["label:N", "direction:N", alt.Tooltip("mb_s:Q", format=",.1f"), "metric:N"],
    ).properties(width=WIDTH, height=HEIGHT)


def transfer_figures(view: MethodView) -> list[Figure]:
    p = view.params
    length = human_size(int(view.number("length_bytes") or p.length_bytes))
    caption = (f"Sequential writes of a {length} region at QD{p.iodepth}, each read back, for transfer "
               f"sizes {block_text(p.min_block_bytes)} to {block_text(p.max_block_bytes)} (powers of two), "
               "after a purge (ATTO-like).")
    return [Figure(f"{view.record.name}-sizes", "Throughput by transfer size",
                   partial(transfer_chart, transfer_rows(view)), caption)]


BUILDERS = {"qd-sweep": qd_figures, "mixed-random": mixed_figures, "mixed-seq": mixed_figures,
            "transfer-sweep": transfer_figures}
def shares_words(read_pcts: Sequence[int]) -> str:
    """'stepping down from 100 % to 0 %' of a sweep run in that order, else the shares in the order run."""
    pcts = list(read_pcts)
    if len(pcts) > 1 and pcts == sorted(pcts, reverse=True):
        return f"stepping down from {pcts[0]} % to {pcts[-1]} %"
    return f"at {', '.join(str(pct) for pct in pcts)} % in turn"


def sweep_caption(record: TestRecord) -> str:
    """The method in a sentence, in the block sizes, queue depth, shares and span the run ran (QA: fixed text
    read "4 KiB random I/O at QD3" of a run at other settings, and "over the whole written drive" of a
    mixed-seq run over an 8 GiB span)."""
    p = run_params(record.test, record.params) or run_params(record.test, {})  # values it refuses: the defaults
    if isinstance(p, QdSweepParams):
        return ("AnandTech-style queue-depth sweeps: after a purge a test region is written, then each point "
                f"({block_text(p.random_block_bytes)} random, {block_text(p.seq_block_bytes)} sequential; reads "
                "first, then writes) runs at one queue depth.")
    if isinstance(p, MixedSeqParams):
        where = "the whole written drive" if p.span_bytes is None else "the written span"
        return (f"{block_text(p.block_size_bytes)} sequential I/O at QD{p.iodepth} over {where}, the share of "
                f"reads {shares_words(p.read_pcts)}; balanced mixes are usually slowest (the bathtub).")
    if isinstance(p, MixedRandomParams):
        return (f"{block_text(p.block_size_bytes)} random I/O at QD{p.iodepth} on a test region written after a "
                f"purge, the share of reads {shares_words(p.read_pcts)}.")
    if isinstance(p, TransferParams):
        return (f"ATTO-like: for each transfer size, a region is written sequentially at QD{p.iodepth} and read "
                "back.")
    return f"Method {record.test!r}."


def figures(bundle: Bundle, record: TestRecord) -> list[Figure]:
    """The figures of one sweep test of a bundle (none for other tests); all from run.json."""
    builder = BUILDERS.get(record.test)
    view = method_view(bundle, record)
    return builder(view) if builder and view and record.metrics else []


def dedicated_section(
    bundle: Bundle, record: TestRecord, caption: str, shown: Sequence[FigureLike], tables: Sequence[TableLike] = (),
) -> Section:
    """A section with the method's own figures; raw per-second curves while it has no metrics."""
    found: Sequence[FigureLike] = shown if record.metrics else series_figures(record.name, measured(bundle, record))
    return Section(key=record.name, title=section_title(record), caption=caption, status=record.status,
                   tables=tables, figures=found)


def sweep_section(bundle: Bundle, record: TestRecord) -> Section:
    tables = metrics_tables(method_view(bundle, record), record) if record.metrics else []
    return dedicated_section(bundle, record, sweep_caption(record), figures(bundle, record), tables)


for _test in BUILDERS:
    register_section(_test, sweep_section)
