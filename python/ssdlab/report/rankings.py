"""Review-style rankings: every compared drive on one horizontal bar chart per metric, best
first, the drive under review highlighted, and the same figures as a sortable table.

One chart per test carries all of its measured figures; a menu in the chart picks the
metric (the PNG shows the first). Ranking follows each metric's declared direction
(`better`: higher or lower), so a latency ranks the lowest first. Only figures rank:
settings, counts and verdicts never do (methods/metrics.py, "Kinds"), nor a figure that declares no
direction (a test condition such as a start temperature, or a figure no direction reads right).

A figure that is only a lower bound (MetricSpec.lower_bound: the data written by a phase that never
throttled) is placed where it is at or above every measured value, marked '≥': the drive is at least
that and the others are less, so it ranks first (last where lower is better). A bound below some
measured value does not tell where the drive stands against those: it is left out, and the caption
says so, naming the drive (bound_notes). No drive is dropped in silence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from ssdlab._lazy import deferred
from ssdlab.methods.metrics import BYTES, MetricSpec, label_with_unit, names_unit
from ssdlab.report.charts import Row, alt_data
from ssdlab.report.contract import spec_text
from ssdlab.report.formatting import MISSING
from ssdlab.report.types import AltChart, Figure, Table
from ssdlab.units import is_number

if TYPE_CHECKING:
    import altair as alt
else:
    alt = deferred("altair")

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
    """One figure of one test, with each drive's value (None where a drive has none, or only a
    lower bound) and each drive's lower bound where its figure is only one (None elsewhere;
    (): no drive's is)."""

    spec: MetricSpec
    values: tuple[Value, ...]
    bounds: tuple[Value, ...] = ()
    # Per drive, why it has no figure where its declarations say (unreached): "never throttled" for a
    # time to throttle; None elsewhere. () : none said.
    unreached: tuple[str | None, ...] = ()

    def bound(self, index: int) -> float | None:
        """Drive `index`'s lower bound, or None where its figure is exact or missing."""
        value = self.bounds[index] if index < len(self.bounds) else None
        return float(value) if is_number(value) and self.values[index] is None else None

    @property
    def measured(self) -> list[float]:
        return [float(v) for v in self.values if is_number(v)]

    @cached_property
    def top_measured(self) -> float | None:
        """The highest measured value (None without one), found once: placed_bound asks it of every
        drive, and reading every drive's value each time made a ranking against a library of
        hundreds of runs quadratic (QA, scale: 10,200 scans of 150 drives in one report)."""
        return max(self.measured, default=None)

    def placed_bound(self, index: int) -> bool:
        """Whether drive `index`'s lower bound is at or above every measured value (at least one),
        so the drive is at least as far along as any: it ranks first (last where lower is better)."""
        bound, top = self.bound(index), self.top_measured
        return bound is not None and top is not None and bound >= top

    @property
    def placed(self) -> tuple[Value, ...]:
        """Each drive's value as the ranking places it: its measured figure, or its lower bound
        where that can be placed (placed_bound); None where it has neither."""
        return tuple(self.bound(i) if self.placed_bound(i) else v for i, v in enumerate(self.values))

    def left_out(self) -> list[int]:
        """The drives whose lower bound cannot be placed: below some measured value."""
        return [i for i in range(len(self.values)) if self.bound(i) is not None and not self.placed_bound(i)]

    @property
    def rankable(self) -> bool:
        """A declared figure with a direction, placed on at least two drives."""
        return self.spec.kind == "figure" and self.spec.better is not None and \
            sum(is_number(v) for v in self.placed) >= 2

    def text(self, index: int, unit: bool = False) -> str:
        """Drive `index`'s figure as the ranking shows it: '1,530.0', '≥ 315.01 (never throttled)', '—';
        with its unit (a note's, where no column heading gives it): '≥ 315.01 GB (never throttled)'."""
        bound = self.bound(index)
        value = bound if bound is not None else self.values[index]
        if not is_number(value):
            return MISSING
        text = spec_text(self.spec, value)
        if unit and self.spec.unit and self.spec.unit != BYTES and not names_unit(self.spec.label, self.spec.unit):
            text = f"{text} {self.spec.unit}"
        return self.spec.bound_text(text) if bound is not None else text


def ranked_metric(spec: MetricSpec, specs: Iterable[MetricSpec], tests: Sequence[Mapping[str, Value]]) -> RankedMetric:
    """The figure of `spec` of each drive's test (`tests`: their metrics, in the drives' order; `specs`:
    the method's declarations): exact values, lower bounds, and why a drive has none where they say."""
    specs = tuple(specs)
    return RankedMetric(spec, tuple(spec.exact(m) for m in tests), tuple(bound_value(spec, m) for m in tests),
                        tuple(unreached(spec, specs, m) for m in tests))


def bound_value(spec: MetricSpec, metrics: Mapping[str, Value]) -> Value:
    """The figure of `spec` among one record's `metrics` where it is only a lower bound, else None:
    what RankedMetric.bounds holds (its values: spec.exact)."""
    return metrics.get(spec.name) if spec.is_bound(metrics) else None


def unreached(spec: MetricSpec, specs: Iterable[MetricSpec], metrics: Mapping[str, Value]) -> str | None:
    """Why one record's `metrics` hold no figure of `spec`, where the declarations say: the `why` of a
    lower bound its absence makes one ('never throttled': a phase that never throttled has no time to
    throttle, and what it wrote is only a bound), else None."""
    if metrics.get(spec.name) is not None:
        return None
    return next((other.lower_bound.why for other in specs if other.lower_bound is not None
                 and other.lower_bound.unless == spec.name and other.is_bound(metrics)), None)


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
    """One row per (metric, drive with a value placed: RankedMetric.placed): value in the metric's
    declared unit (as the results tables show it; a lower bound marked '≥' in `text`), and a score
    that is larger for the better drive whichever way the metric points; `bar`: the drive's label
    on the axis (axis_labels), `drive` its whole name (the tooltip's)."""
    rows: list[Row] = []
    bars = axis_labels(drives, short)
    for metric in metrics:
        title = metric_title(metric.spec)
        for index, (drive, value) in enumerate(zip(drives, metric.placed, strict=True)):
            if not is_number(value):
                continue
            shown = float(value)
            rows.append({"metric": title, "key": metric.spec.name, "drive": drive, "bar": bars[index], "value": shown,
                         "score": shown if metric.spec.better == "higher" else -shown,
                         "text": metric.text(index), "review": index == review})
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
    ranked = [m for m in metrics if m.rankable]
    rows = ranked_rows(drives, review, ranked, short)
    if not rows:
        return None
    bars = axis_labels(drives, short)
    note = (f"{bars[review]} is highlighted. Best first: by each metric's direction, as its name in the "
            "menu says (higher or lower is better). Pick the metric in the menu above the chart."
            f"{bar_key(drives, bars)}")
    bounds = " ".join(bound_notes(drives, ranked))
    return Figure(f"{key}-ranking", title, partial(ranked_chart, rows, len(drives)),
                  f"{caption} {note} {bounds}".strip())


def bound_notes(drives: Sequence[str], metrics: Sequence[RankedMetric]) -> list[str]:
    """What the rankings of `metrics` made of each lower bound: placed ('≥', ahead of every measured
    drive, and where several are, their order between them unknown), or left out, naming the drive,
    its bound and the drives measured above it, against which it tells nothing; and each drive with
    no figure for the reason its declarations give (a time to throttle of a phase that never throttled)."""
    notes = []
    for metric in metrics:
        placed = [i for i in range(len(drives)) if metric.placed_bound(i)]
        if placed:
            notes.append(placed_note(drives, metric, placed))
        notes += [left_out_bound_note(drives, metric, index) for index in metric.left_out()]
        notes += [f"{metric.spec.label}: {drives[i]} has none ({why}), so it is not ranked by it."
                  for i, why in enumerate(metric.unreached) if why is not None and metric.values[i] is None]
    return notes


def placed_note(drives: Sequence[str], metric: RankedMetric, placed: Sequence[int]) -> str:
    """'Sequential write: written before the first slowdown: A, ≥ 600 GB (never throttled), is placed
    first by its lower bound, at or above every measured figure …'."""
    where = "first" if metric.spec.better == "higher" else "last"
    whose = "; ".join(f"{drives[i]}, {metric.text(i, unit=True)}," for i in placed)
    if len(placed) == 1:
        return (f"{metric.spec.label}: {whose} is placed {where} by its lower bound, at or above every measured "
                f"figure ('≥': it is at least that).")
    return (f"{metric.spec.label}: {whose} are placed {where} by their lower bounds, each at or above every "
            "measured figure ('≥': each is at least that); their order between them is not known.")


def left_out_bound_note(drives: Sequence[str], metric: RankedMetric, index: int) -> str:
    """'Sequential write: written before the first slowdown: B left out of the ranking: ≥ 315.01 GB
    (never throttled), which does not tell where it stands against A (460.43 GB).'"""
    bound = metric.bound(index)
    above = [i for i, v in enumerate(metric.values) if is_number(v) and bound is not None and float(v) > bound]
    against = ", ".join(f"{drives[i]} ({metric.text(i, unit=True)})" for i in above)
    return (f"{metric.spec.label}: {drives[index]} left out of the ranking: {metric.text(index, unit=True)}, which "
            f"does not tell where it stands against {against}.")


def ranking_table(key: str, title: str, drives: Sequence[str], metrics: Sequence[RankedMetric]) -> Table | None:
    """Drives as rows, each figure a column in its declared unit, a lower bound as one ('≥ 315.01
    (never throttled)', placed or not): click a heading to sort."""
    shown = [m for m in metrics if m.rankable]
    if not shown:
        return None
    header = ("drive", *(label_with_unit(m.spec.label, m.spec.unit) for m in shown))
    rows = tuple((drive, *(m.text(i) for m in shown)) for i, drive in enumerate(drives))
    return Table(key=f"{key}-ranking-table", title=title, header=header, rows=rows,
                 caption="Click a column heading to sort by it.", collapsed=True)
