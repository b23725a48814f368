"""Report sections for the sweeps: per-QD bars, bathtub curves, the transfer-size chart.

Every figure is drawn from a test's metrics and params in run.json (the per-point figures
are metrics already). Each section registers under its catalogue test; an unfinished test
(no metrics) shows its raw per-second curves instead, as the generic section does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.report.charts import Row, alt_data
from ssdlab.report.section_generic import measured, metrics_tables, section_title, series_figures, status_notes
from ssdlab.report.sections import register_section
from ssdlab.report.types import AltChart, Figure, FigureLike, Section, TableLike
from ssdlab.units import format_size

WIDTH = 420
HEIGHT = 240


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# --- qd-sweep ----------------------------------------------------------------------------

QD_METRIC = re.compile(r"^(rnd|seq)(\w+?)_(read|write)_qd(\d+)_(iops|mb_s)$")


def qd_rows(metrics: Mapping[str, Any]) -> list[Row]:
    """One row per (curve, QD): rnd4k_read_qd8_iops -> {'curve': '4K random read', ...}."""
    rows: list[Row] = []
    for key, value in metrics.items():
        match = QD_METRIC.match(key)
        number = _number(value)
        if not match or number is None:
            continue
        kind, size, direction, qd, unit = match.groups()
        wanted = "iops" if kind == "rnd" else "mb_s"
        if unit != wanted:
            continue
        label = f"{size.upper()} {'random' if kind == 'rnd' else 'sequential'}"
        rows.append({"kind": kind, "curve": label, "direction": direction, "qd": int(qd), "value": number})
    return sorted(rows, key=lambda r: (r["kind"], r["direction"], r["qd"]))


def qd_bars(rows: Sequence[Row], kind: str, y_title: str) -> AltChart:
    """Grouped bars: queue depth on x, read and write side by side."""
    picked = [r for r in rows if r["kind"] == kind]
    return alt.Chart(alt_data(picked)).mark_bar().encode(
        x=alt.X("qd:O", title="queue depth"),
        xOffset=alt.XOffset("direction:N"),
        y=alt.Y("value:Q", title=y_title),
        color=alt.Color("direction:N", title=None),
        tooltip=["curve:N", "direction:N", "qd:O", alt.Tooltip("value:Q", format=",.0f")],
    ).properties(width=WIDTH, height=HEIGHT)


def qd_figures(record: TestRecord) -> list[Figure]:
    rows = qd_rows(record.metrics)
    p = record.params
    span = format_size(int(record.metrics.get("span_bytes") or p.get("span_bytes") or 0))
    qds = ", ".join(str(q) for q in p.get("queue_depths", ()))
    how = f"at QD {qds}, {p.get('runtime_s', 0):g} s per point, over a {span} region written beforehand"
    return [
        Figure(f"{record.name}-random", f"{format_size(int(p.get('random_block_bytes', 4096)))} random IOPS "
               "by queue depth", qd_bars(rows, "rnd", "IOPS"),
               f"Random reads (on written data), then random writes, {how}; the drive was purged first. "
               "Score = mean of QD1, QD2 and QD4."),
        Figure(f"{record.name}-sequential", f"{format_size(int(p.get('seq_block_bytes', 131072)))} sequential MB/s "
               "by queue depth", qd_bars(rows, "seq", "MB/s"),
               f"Sequential reads, then sequential writes, {how}. MB/s are decimal (10^6 bytes)."),
    ]


# --- mixed sweeps ------------------------------------------------------------------------

MIX_METRIC = re.compile(r"^r(\d+)w(\d+)_(read_|write_)?(iops|mb_s)$")


def mix_rows(metrics: Mapping[str, Any], unit: str) -> list[Row]:
    """Total, read and write rate at each read share."""
    rows: list[Row] = []
    for key, value in metrics.items():
        match = MIX_METRIC.match(key)
        number = _number(value)
        if not match or number is None or match.group(4) != unit:
            continue
        part = (match.group(3) or "total_").rstrip("_")
        rows.append({"read_pct": int(match.group(1)), "part": part, "value": number})
    return sorted(rows, key=lambda r: (r["part"], -r["read_pct"]))


def bathtub(rows: Sequence[Row], y_title: str) -> AltChart:
    """Rate against read share, 100 % reads on the left as the sweep runs."""
    return alt.Chart(alt_data(rows)).mark_line(point=True).encode(
        x=alt.X("read_pct:Q", title="reads (%)", scale=alt.Scale(domain=[100, 0])),
        y=alt.Y("value:Q", title=y_title),
        color=alt.Color("part:N", title=None, sort=["total", "read", "write"]),
        strokeDash=alt.StrokeDash("part:N", legend=None, sort=["total", "read", "write"]),
        tooltip=["part:N", "read_pct:Q", alt.Tooltip("value:Q", format=",.0f")],
    ).properties(width=WIDTH, height=HEIGHT)


def mixed_figures(record: TestRecord) -> list[Figure]:
    p = record.params
    random = record.test == "mixed-random"
    unit, y_title = ("iops", "IOPS") if random else ("mb_s", "MB/s")
    block = format_size(int(p.get("block_size_bytes", 4096)))
    steps = ", ".join(f"{x}" for x in p.get("read_pcts", ()))
    if random:
        where = f"over a {format_size(int(record.metrics.get('span_bytes') or 0))} region written after a purge"
    else:
        where = "over the whole drive, written beforehand" + ("" if p.get("fill", True) else " by the previous test")
    caption = (f"{block} {'random' if random else 'sequential'} I/O at QD{p.get('iodepth')}, {where}; "
               f"read share {steps} %, {p.get('runtime_s', 0):g} s each. Total, read and write rates.")
    title = f"Mixed {'random' if random else 'sequential'} {block}: rate against read share"
    return [Figure(f"{record.name}-bathtub", title, bathtub(mix_rows(record.metrics, unit), y_title), caption)]


# --- transfer-sweep ----------------------------------------------------------------------

BS_METRIC = re.compile(r"^bs(\d+)([bkmg])_(read|write)_mb_s$")
UNIT_BYTES = {"b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def transfer_rows(metrics: Mapping[str, Any]) -> list[Row]:
    rows: list[Row] = []
    for key, value in metrics.items():
        match = BS_METRIC.match(key)
        number = _number(value)
        if not match or number is None:
            continue
        block = int(match.group(1)) * UNIT_BYTES[match.group(2)]
        rows.append({"block_bytes": block, "label": format_size(block), "direction": match.group(3),
                     "mb_s": number})
    return sorted(rows, key=lambda r: (r["direction"], r["block_bytes"]))


def transfer_chart(rows: Sequence[Row]) -> AltChart:
    """MB/s against transfer size on a log2 axis, read and write."""
    return alt.Chart(alt_data(rows)).mark_line(point=True).encode(
        x=alt.X("block_bytes:Q", title="transfer size (log2 scale)", scale=alt.Scale(type="log", base=2),
                axis=alt.Axis(labelExpr="datum.value >= 1048576 ? datum.value / 1048576 + ' MiB' : "
                              "datum.value >= 1024 ? datum.value / 1024 + ' KiB' : datum.value + ' B'")),
        y=alt.Y("mb_s:Q", title="MB/s"),
        color=alt.Color("direction:N", title=None),
        tooltip=["label:N", "direction:N", alt.Tooltip("mb_s:Q", format=",.1f")],
    ).properties(width=WIDTH, height=HEIGHT)


def transfer_figures(record: TestRecord) -> list[Figure]:
    p = record.params
    length = format_size(int(record.metrics.get("length_bytes") or p.get("length_bytes") or 0))
    caption = (f"Sequential writes of a {length} region at QD{p.get('iodepth')}, each read back, for transfer "
               f"sizes {format_size(int(p.get('min_block_bytes', 512)))} to "
               f"{format_size(int(p.get('max_block_bytes', 0)))} (powers of two), after a purge (ATTO-like).")
    return [Figure(f"{record.name}-sizes", "Throughput by transfer size", transfer_chart(
        transfer_rows(record.metrics)), caption)]


BUILDERS = {"qd-sweep": qd_figures, "mixed-random": mixed_figures, "mixed-seq": mixed_figures,
            "transfer-sweep": transfer_figures}
CAPTIONS = {
    "qd-sweep": "AnandTech-style queue-depth sweeps: after a purge a test region is written, then each point "
                "(4 KiB random, 128 KiB sequential; reads first, then writes) runs at one queue depth.",
    "mixed-random": "4 KiB random I/O at QD3 on a test region written after a purge, the share of reads stepping "
                    "down from 100 % to 0 %.",
    "mixed-seq": "128 KiB sequential I/O at QD1 over the whole written drive, the share of reads stepping down "
                 "from 100 % to 0 %; balanced mixes are usually slowest (the bathtub).",
    "transfer-sweep": "ATTO-like: for each transfer size, a region is written sequentially at QD4 and read back.",
}


def figures(bundle: Bundle, record: TestRecord) -> list[Figure]:
    """The figures of one sweep test of a bundle (none for other tests); all from run.json."""
    builder = BUILDERS.get(record.test)
    return builder(record) if builder and record.metrics else []


def dedicated_section(
    bundle: Bundle, record: TestRecord, caption: str, shown: Sequence[FigureLike], tables: Sequence[TableLike] = (),
) -> Section:
    """A section with the method's own figures; raw per-second curves while it has no metrics."""
    found: Sequence[FigureLike] = shown if record.metrics else series_figures(record.name, measured(bundle, record))
    return Section(key=record.name, title=section_title(record), caption=caption, status=record.status,
                   tables=tables, figures=found, notes=status_notes(record))


def sweep_section(bundle: Bundle, record: TestRecord) -> Section:
    tables = metrics_tables(record) if record.metrics else []
    return dedicated_section(bundle, record, CAPTIONS[record.test], figures(bundle, record), tables)


for _test in BUILDERS:
    register_section(_test, sweep_section)
