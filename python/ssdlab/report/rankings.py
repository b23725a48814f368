"""Review-style rankings: every compared drive on one horizontal bar chart per metric, best
first, the drive under review highlighted, and the same figures as a sortable table.

One chart per test carries all of its measured figures; a menu in the chart picks the
metric (the PNG shows the first). Ranking follows each metric's declared direction
(`better`: higher or lower), so a latency ranks the lowest first. Only figures rank:
settings, counts and verdicts never do (methods/metrics.py, "Kinds").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import altair as alt

from ssdlab.methods.metrics import MetricSpec, label_with_unit, names_unit
from ssdlab.report.charts import Row, alt_data
from ssdlab.report.contract import spec_text
from ssdlab.report.formatting import MISSING
from ssdlab.report.types import AltChart, Figure, Table
from ssdlab.units import is_number

Value = float | int | bool | str | None
BAR_PX = 22  # height of one drive's bar
WIDTH_PX = 520
# A bar's label: at most LABEL_CHARS, shortened here where it must be so that what tells drives apart
# stays (axis_labels); LABEL_LIMIT_PX holds that many at the axis font, so Vega never cuts one at its
# end. QA: it cut both 950 PROs' "… 22.5 GB (sim:950pro-512?capacity_…" before "&heatsink=1" (320 px).
LABEL_CHARS = 56
LABEL_LIMIT_PX = 420
ELLIPSIS = "…"
OPENERS = ("(", "[", "&", "?", ",")  # where a part of a drive's name begins: its spec, an option, an id
REVIEW_COLOUR = "#d9480f"
OTHER_COLOUR = "#8aa1c1"
PARAM = "metric_shown"


@dataclass(frozen=True)
class RankedMetric:
    """One figure of one test, with each drive's value (None where a drive has none)."""

    spec: MetricSpec
    values: tuple[Value, ...]

    @property
    def rankable(self) -> bool:
        """A declared figure with a direction, measured on at least two drives."""
        return self.spec.kind == "figure" and self.spec.better is not None and \
            sum(is_number(v) for v in self.values) >= 2


def metric_title(spec: MetricSpec) -> str:
    """'4 KiB random read, QD 1: mean latency (µs, lower is better)'; the unit once."""
    unit = spec.unit
    shown = f"{unit}, " if unit and unit != "bytes" and not names_unit(spec.label, unit) else ""
    return f"{spec.label} ({shown}{spec.better} is better)"


def parting(label: str, others: Sequence[str]) -> int:
    """Where `label` parts from the other label that stays alike with it the longest."""
    def common(other: str) -> int:
        alike = min(len(label), len(other))
        return next((i for i, (a, b) in enumerate(zip(label, other, strict=False)) if a != b), alike)
    return max((common(o) for o in others if o != label), default=0)


def tail_start(label: str, apart: int) -> int:
    """Where the kept end of `label` begins: at the word or option in which it parts from the
    others (index `apart`), so the end reads whole ('&heatsink=1)', '(fua=default)')."""
    if apart < len(label) and label[apart] in OPENERS:
        return apart
    return max((label.rfind(c, 0, apart) + (c == " ") for c in (" ", *OPENERS)), default=0)


def fitted_label(label: str, others: Sequence[str]) -> str:
    """`label` in at most LABEL_CHARS: its start, then its end from the word or option in which it
    parts from the other labels ('Samsung SSD 950 PRO 512GB 22.5 GB (sim:950pro-512?capaci…&heatsink=1)');
    where that end is itself too long, its start."""
    if len(label) <= LABEL_CHARS:
        return label
    keep = LABEL_CHARS - 1
    apart = parting(label, others)
    tail = label[tail_start(label, apart):]
    if len(tail) > keep // 2:  # a long word: from just before the difference
        tail = label[max(0, apart - 4):]
    if len(tail) > keep // 2:
        tail = tail[:keep // 2 - 1] + ELLIPSIS
    head = label[:keep - len(tail)]
    return f"{head.rstrip()}{ELLIPSIS}{tail}"


def axis_labels(drives: Sequence[str], short: Sequence[str] | None = None) -> list[str]:
    """Each drive's bar label: its `short` name where the caller gives one (e.g. compare's, which
    says what tells drives of one model apart), fitted to LABEL_CHARS (fitted_label); numbered
    where two would still read alike."""
    names = list(short if short is not None else drives)
    fitted = [fitted_label(name, names) for name in names]
    seen: dict[str, int] = {}
    out = []
    for label in fitted:
        seen[label] = seen.get(label, 0) + 1
        out.append(f"{label} #{seen[label]}" if fitted.count(label) > 1 else label)
    return out


def ranked_rows(drives: Sequence[str], review: int, metrics: Sequence[RankedMetric],
                short: Sequence[str] | None = None) -> list[Row]:
    """One row per (metric, drive with a value): value in the metric's declared unit (as the
    results tables show it), and a score that is larger for the better drive whichever way
    the metric points; `bar`: the drive's label on the axis (axis_labels), `drive` its whole name
    (the tooltip's)."""
    rows: list[Row] = []
    bars = axis_labels(drives, short)
    for metric in metrics:
        title = metric_title(metric.spec)
        for index, (drive, value) in enumerate(zip(drives, metric.values, strict=True)):
            if not is_number(value):
                continue
            shown = float(value)
            rows.append({"metric": title, "key": metric.spec.name, "drive": drive, "bar": bars[index], "value": shown,
                         "score": shown if metric.spec.better == "higher" else -shown,
                         "text": spec_text(metric.spec, value), "review": index == review})
    return rows


def ranked_chart(rows: Sequence[Row], drive_count: int) -> AltChart:
    """Horizontal bars, best drive on top; a menu picks the metric when there are several."""
    titles = list(dict.fromkeys(str(r["metric"]) for r in rows))
    menu: dict[str, Any] = {"bind": alt.binding_select(options=titles, name="Metric: ")} if len(titles) > 1 else {}
    pick = alt.param(name=PARAM, value=titles[0], **menu)
    base = alt.Chart(alt_data(rows), title=alt.TitleParams(text=alt.expr(PARAM), anchor="start", fontSize=13)).encode(
        y=alt.Y("bar:N", title=None, sort=alt.EncodingSortField("score", order="descending"),
                axis=alt.Axis(labelLimit=LABEL_LIMIT_PX)),
        x=alt.X("value:Q", title=None, axis=alt.Axis(tickCount=5)),
        tooltip=[alt.Tooltip("drive:N"), alt.Tooltip("text:N", title="value"), alt.Tooltip("key:N", title="metric")],
    )
    bars = base.mark_bar(height={"band": 0.75}).encode(
        color=alt.condition("datum.review", alt.value(REVIEW_COLOUR), alt.value(OTHER_COLOUR)))
    labels = base.mark_text(align="left", dx=4, fontSize=11).encode(text="text:N")
    layered = alt.layer(bars, labels).add_params(pick).transform_filter(f"datum.metric == {PARAM}")
    return layered.properties(width=WIDTH_PX, height=max(2, drive_count) * BAR_PX)


def bar_key(drives: Sequence[str], bars: Sequence[str]) -> str:
    """' Bars: X (heatsink=1) is FULL NAME; …' for each bar whose label is not its drive's whole name."""
    shortened = [f"{bar} is {drive}" for drive, bar in zip(drives, bars, strict=True) if bar != drive]
    return f" Bars: {'; '.join(shortened)}." if shortened else ""


def ranked_figure(key: str, title: str, drives: Sequence[str], review: int,
                  metrics: Sequence[RankedMetric], caption: str = "",
                  short: Sequence[str] | None = None) -> Figure | None:
    """The ranking of a test's figures, or None when fewer than two drives have any; `short`: the
    drives' names for the bars, where the caller has shorter ones that still tell them apart (the
    caption then gives each bar's whole name, and so does its tooltip)."""
    rows = ranked_rows(drives, review, [m for m in metrics if m.rankable], short)
    if not rows:
        return None
    bars = axis_labels(drives, short)
    note = (f"{bars[review]} is highlighted. Best first: by each metric's direction (lower is better for "
            f"latency and times). Pick the metric in the menu above the chart.{bar_key(drives, bars)}")
    return Figure(f"{key}-ranking", title, ranked_chart(rows, len(drives)), f"{caption} {note}".strip())


def ranking_table(key: str, title: str, drives: Sequence[str], metrics: Sequence[RankedMetric]) -> Table | None:
    """Drives as rows, each figure a column in its declared unit: click a heading to sort."""
    shown = [m for m in metrics if m.rankable]
    if not shown:
        return None
    header = ("drive", *(label_with_unit(m.spec.label, m.spec.unit) for m in shown))
    rows = tuple(
        (drive, *(spec_text(m.spec, m.values[i]) if is_number(m.values[i]) else MISSING for m in shown))
        for i, drive in enumerate(drives)
    )
    return Table(key=f"{key}-ranking-table", title=title, header=header, rows=rows,
                 caption="Click a column heading to sort by it.", collapsed=True)
