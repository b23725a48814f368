"""Shared chart builders (altair) and exporters: Vega-Lite spec for the page, PNG via vl-convert."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdlab._lazy import deferred
from ssdlab.bundle import atomic_write_bytes
from ssdlab.errors import UsageError
from ssdlab.measurement import Measurement
from ssdlab.report import png_reuse
from ssdlab.report.types import AltChart
from ssdlab.units import UNIT_FORMATS, is_number
from ssdlab.userdirs import xdg_base

if TYPE_CHECKING:
    import altair as alt
    import vl_convert as vlc
else:
    alt = deferred("altair")
    vlc = deferred("vl_convert")

Row = dict[str, Any]
WIDTH_PX = 560
HEIGHT_PX = 260
MAX_POINTS_PER_CURVE = 2000
PNG_SCALE = 2.0
# What the inlined bundle exposes to the page's own script.
BUNDLE_SNIPPET = "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;"
# The Vega-Lite version altair 5.5 writes (alt.SCHEMA_VERSION "v5.20.1"), written out: reading it
# from altair here would import altair with every command (ssdlab/_lazy.py). A test checks it.
VL_VERSION = "5.20"
VL_CONVERT_VERSION = importlib.metadata.version("vl-convert-python")  # what bundles the page's script


def alt_data(rows: Sequence[Row]) -> Any:
    """Inline data for a chart. altair checks every row against the Vega-Lite schema as the
    object is made (its debug mode, on by default): 0.2 s per 4,000 rows, most of a review
    report's time. The tests check each chart's whole spec instead (chart_spec)."""
    from altair.utils.schemapi import debug_mode  # here: importing it loads altair (ssdlab/_lazy.py)

    with debug_mode(False):
        return alt.Data(values=list(rows))  # type: ignore[no-untyped-call]


def thin_keeping_extremes(rows: Sequence[Row], fields: str | Sequence[str],
                          limit: int = MAX_POINTS_PER_CURVE) -> list[Row]:
    """At most about `limit` rows of a long series, for a chart whose outliers are its point: of
    each run of k consecutive rows, the one lowest and the one highest in each of `fields` (a
    chart drawing two values from its rows, IOPS and MB/s, keeps both's), in their order.
    Every k-th row left a stall out of the chart as often as not: QA saw a 3,600 s consistency
    run drawn from every second second, and compare's from every third, so a one-second drop to
    0 IOPS, the thing the plot is for, could be missing from it. It is the only thinning the
    charts use, so no chart of per-second data leaves a stall out."""
    names = (fields,) if isinstance(fields, str) else tuple(fields)
    step = thinned_every(len(rows), limit, len(names))
    if step == 1:
        return list(rows)
    out: list[Row] = []
    for start in range(0, len(rows), step):
        chunk = rows[start:start + step]
        kept = {i for name in names for i in _extremes(chunk, name)}
        out.extend(chunk[i] for i in sorted(kept or {0}))
    return out


def _extremes(chunk: Sequence[Row], field: str) -> tuple[int, ...]:
    """The indices of the lowest and the highest finite `field` in `chunk` (none without one); of
    equal ones the first, as min() and max() take it. One pass: an 8-hour run's telemetry is
    28,800 rows a channel, and a list of the valued rows and two keyed scans of it were most of
    its thinning (QA, scale)."""
    low = high = -1
    low_value = high_value = 0.0
    for i, row in enumerate(chunk):
        value = row.get(field)
        if not is_number(value) or not math.isfinite(value):
            continue
        if low < 0 or value < low_value:
            low, low_value = i, value
        if high < 0 or value > high_value:
            high, high_value = i, value
    return () if low < 0 else (low, high)


def thinned_every(count: int, limit: int = MAX_POINTS_PER_CURVE, fields: int = 1) -> int:
    """Of how many consecutive rows thin_keeping_extremes keeps the lowest and the highest of each
    of `fields` fields (1: all rows kept)."""
    return 1 if count <= limit else -(-2 * fields * count // limit)


def log_scale_with_zero(values: Iterable[object]) -> tuple[alt.Scale, alt.Axis]:
    """A logarithmic value axis that still draws 0: a symmetric-log scale (linear below 1, so 0
    sits at its foot) with ticks at 0 and the powers of ten. A plain log scale has no place for 0:
    Vega took log(0) into its domain and drew every point of the chart on one line at its top, the
    axis without a tick (QA: one second of 0 IOPS blanked a consistency run's log chart, the chart
    meant to show stalls)."""
    finite = [float(v) for v in values if is_number(v) and math.isfinite(v) and v >= 0]
    top = max(finite, default=1.0)
    decades = max(1, math.ceil(math.log10(top))) if top > 1 else 1
    ticks = [0, *(10 ** k for k in range(1, decades + 1))]
    # labelExpr: Vega reads a symlog axis's format specifier as a log one's and printed 1e+5.
    axis = alt.Axis(values=ticks, labelExpr="format(datum.value, ',')")
    return alt.Scale(type="symlog", domainMax=10 ** decades), axis


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def series_rows(label: str, m: Measurement, offset_s: float = 0.0) -> list[Row]:
    """Per-second IOPS and MB/s of one measurement, per direction that did I/O; `offset_s`
    shifts the time axis (to lay consecutive workloads end to end)."""
    series = m.series
    rows: list[Row] = []
    for direction in ("read", "write"):
        if not any(series.iops(direction)):
            continue
        curve = f"{label} {direction}"
        points = zip(series.t_s, series.iops(direction), series.mb_s(direction), strict=True)
        # Both charts drawn from these rows keep their stalls: a one-second 0 IOPS (QA: every k-th
        # second was drawn, so a stall in a long run was as often missing as not).
        rows.extend(thin_keeping_extremes([{"curve": curve, "workload": label, "direction": direction,
                                            "t_s": offset_s + t, "iops": iops, "mb_s": mb_s}
                                           for t, iops, mb_s in points], ("iops", "mb_s")))
    return rows


def timeline_rows(found: Mapping[str, Measurement]) -> list[Row]:
    """Series of consecutive workloads on one clock, in run order."""
    rows: list[Row] = []
    offset_s = 0.0
    for label, m in found.items():
        rows.extend(series_rows(label, m, offset_s))
        offset_s += m.series.t_s[-1] if m.series.t_s else m.runtime_s
    return rows


def telemetry_rows(label: str, telemetry: Mapping[str, Sequence[float]]) -> dict[str, list[Row]]:
    """Engine telemetry per channel (temp_c, wa, free_blocks, ...) as rows on the t_s axis."""
    times = telemetry.get("t_s", ())
    out: dict[str, list[Row]] = {}
    for key, values in telemetry.items():
        if key == "t_s" or not values:
            continue
        rows = [{"curve": label, "t_s": t, "value": _finite(float(v))} for t, v in zip(times, values, strict=False)]
        if rows:  # a one-period dip (free blocks, a temperature drop) must survive thinning (QA)
            out[key] = thin_keeping_extremes(rows, "value")
    return out


# Room between a value axis's highest mark and the plot's edge, as a share of the axis's span: more
# than a value label's height (grouped_bars). Vega's round ends alone gave none where the highest
# value was a round number (QA: 2,200 MB/s on a 0-2,200 axis drew the queue-depth chart's top bar
# and its label on the plot's top edge).
HEADROOM = 0.1


def value_scale(values: Iterable[object], zero: bool = True, **scale: Any) -> alt.Scale:
    """The scale of a rate's axis (IOPS, MB/s, °C...) drawing `values`, its top HEADROOM of the
    span above the highest (Vega then rounds it up to a tick)."""
    finite = [float(v) for v in values if is_number(v) and math.isfinite(v)]
    if not finite:
        return alt.Scale(zero=zero, **scale)
    low, high = (min(0.0, *finite) if zero else min(finite)), max(finite)
    return alt.Scale(zero=zero, domainMax=high + HEADROOM * (high - low), **scale)


def field_values(rows: Sequence[Row], field: str) -> list[object]:
    """One field of every row, for value_scale."""
    return [row.get(field) for row in rows]


def top_legend() -> alt.Legend:
    """A legend above the chart, one entry a line and never cut: drive labels are long and
    often differ only at their end (the same model with and without a heatsink)."""
    return alt.Legend(orient="top", labelLimit=0, columns=1)


def line_chart(rows: Sequence[Row], y: str, y_title: str, color: str = "curve", color_title: str = "",
               detail: str | None = None) -> AltChart:
    """Lines against time; `detail` splits lines of one colour (e.g. one per workload)."""
    encoding: dict[str, Any] = {
        "x": alt.X("t_s:Q", title="time (s)"),
        "y": alt.Y(f"{y}:Q", title=y_title, scale=value_scale(field_values(rows, y))),
        "color": alt.Color(f"{color}:N", title=color_title or None, sort=None, legend=top_legend()),
        "tooltip": [*([f"{detail}:N"] if detail else []), f"{color}:N", alt.Tooltip("t_s:Q", title="time (s)"),
                    alt.Tooltip(f"{y}:Q", title=y_title, format=",.1f")],
    }
    if detail:
        encoding["detail"] = alt.Detail(f"{detail}:N")
    return alt.Chart(alt_data(rows)).mark_line(strokeWidth=1.5).encode(**encoding).properties(
        width=WIDTH_PX, height=HEIGHT_PX).interactive(bind_y=False)


def grouped_bars(rows: Sequence[Row], x: str, x_title: str, group: str, y: str, y_title: str,
                 unit: str | None = None) -> AltChart:
    """Bars of `y` per `x` category, one bar per `group` side by side, value labels on top, with
    the digits the tables give `unit` (default: the y title, e.g. "MB/s"). QA: a bar read "469"
    where the table beside it said 469.5."""
    label_format = UNIT_FORMATS.get(unit or y_title, ",.0f")
    base = alt.Chart(alt_data(rows)).encode(
        x=alt.X(f"{x}:N", title=x_title, sort=None, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset(f"{group}:N", sort=None),
        y=alt.Y(f"{y}:Q", title=y_title, scale=value_scale(field_values(rows, y))),
        color=alt.Color(f"{group}:N", title=None, sort=None, legend=top_legend()),
        tooltip=[f"{x}:N", f"{group}:N", alt.Tooltip(f"{y}:Q", title=y_title, format=",.1f")],
    )
    bars = base.mark_bar()
    labels = base.mark_text(dy=-4, fontSize=10, baseline="bottom").encode(text=alt.Text(f"{y}:Q", format=label_format))
    return alt.layer(bars, labels).properties(width=WIDTH_PX, height=HEIGHT_PX)


def chart_spec(chart: AltChart, validate: bool = False) -> dict[str, Any]:
    """The chart's Vega-Lite spec, not checked against the Vega-Lite schema here (with
    alt_data's check, half a review report's time): the tests check every chart of every
    method's section and comparison (tests/methods/test_contract.py, tests/test_compare.py)."""
    spec: dict[str, Any] = chart.to_dict(validate=validate)
    return spec


def has_data(spec: Any) -> bool:
    """Whether any dataset of a (possibly layered or concatenated) spec holds a row: a chart
    with none draws only empty axes, so it is left out rather than shown."""
    if isinstance(spec, dict):
        values = spec.get("values")
        if isinstance(values, list) and any(_row_has_figure(row) for row in values):
            return True
        return any(has_data(v) for k, v in spec.items() if k in ("data", "datasets", "layer", "hconcat",
                                                                   "vconcat", "concat", "spec"))
    if isinstance(spec, list):
        return any(has_data(v) for v in spec)
    return False


def _row_has_figure(row: Any) -> bool:
    """Whether a data row gives the chart something to draw: a row whose every number is NaN or
    infinite (a damaged or hand-edited bundle) draws nothing, and a chart of only such rows has
    no size Vega can lay out."""
    fields = row.values() if isinstance(row, dict) else (row,)
    numbers = [v for v in fields if isinstance(v, int | float) and not isinstance(v, bool)]
    return not numbers or any(math.isfinite(v) for v in numbers)


def _clean(value: Any) -> Any:
    """NaN and infinities become null, which Vega treats as missing."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def spec_json(spec: Mapping[str, Any]) -> str:
    """A spec as JSON safe to put inside a <script> element."""
    return script_json(dict(spec))


def script_json(value: Any) -> str:
    """JSON safe to put inside a <script> element (a spec, a dataset's rows), NaN as null."""
    text = json.dumps(_clean(value), separators=(",", ":"), allow_nan=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@dataclass(frozen=True)
class ChartHeading:
    """What a chart's PNG says of itself, to be read on its own (pasted into an article): what it
    shows, then under it whose drive it is (or which drives it compares) and the test. On the page
    the heading, the figure's title and its caption say these; a PNG has only what is drawn in it
    (QA: a PNG titled "consistency: whole run" named no drive)."""

    title: str  # the figure's title
    lines: tuple[str, ...]  # under it: the drive (or the drives compared), the test


# Left-aligned over the plot as reviewers' charts are; the lines smaller and grey, under the title.
HEADING_STYLE: dict[str, Any] = {"anchor": "start", "fontSize": 13, "subtitleFontSize": 11,
                                 "subtitleColor": "#555555", "subtitlePadding": 3, "offset": 10}


def headed(spec: Mapping[str, Any], heading: ChartHeading) -> dict[str, Any]:
    """The spec with `heading` over it. A title the chart draws itself (the run a scatter is of, the
    metric a ranking shows) stays the title, the heading's lines under it."""
    own = spec.get("title")
    title = own if isinstance(own, dict) else {"text": own or heading.title}
    return {**spec, "title": {**HEADING_STYLE, **title, "subtitle": list(heading.lines)}}


def write_png(spec: Mapping[str, Any], path: Path, inside: Path | None = None, drawn_before: Path | None = None
              ) -> Path:
    """The chart as a PNG at `path`, replacing whatever is there (a link planted in a bundle is
    replaced, not written through); `inside`: the bundle it goes in (no link on the way).
    `drawn_before`: where the last report put this chart; its PNG is kept when drawn from the same
    spec by the same vl-convert (report/png_reuse.py), and drawn again otherwise."""
    cleaned = _clean(dict(spec))
    key = png_reuse.chart_key(cleaned, VL_CONVERT_VERSION, VL_VERSION, PNG_SCALE)
    png = png_reuse.kept(drawn_before, key) if drawn_before is not None else None
    if png is None:
        png = png_reuse.keyed(vlc.vegalite_to_png(cleaned, vl_version=VL_VERSION, scale=PNG_SCALE), key)
    atomic_write_bytes(path, png, inside=inside)
    return path


@cache
def javascript_bundle() -> str:
    """Vega, Vega-Lite and vega-embed in one script, so the page needs no network. Bundling it
    takes vl-convert 1.5-3 s, paid by every report; the script is the same for one vl-convert and
    Vega-Lite version, so it is kept in the user's cache (script_cache_dir) and read from there."""
    key = hashlib.sha256(f"{VL_CONVERT_VERSION}\0{VL_VERSION}\0{BUNDLE_SNIPPET}".encode()).hexdigest()[:16]
    folder = script_cache_dir()
    kept = _kept_script(folder, key) if folder is not None else None
    if kept is not None:
        return kept
    bundle: str = vlc.javascript_bundle(BUNDLE_SNIPPET, vl_version=VL_VERSION).replace("</script", "<\\/script")
    if folder is not None:
        _keep_script(folder, key, bundle)
    return bundle


def script_cache_dir() -> Path | None:
    """$XDG_CACHE_HOME/ssdlab/report (~/.cache/ssdlab/report); None without a home to put it in."""
    try:
        return xdg_base("XDG_CACHE_HOME", ".cache") / "ssdlab" / "report"
    except UsageError:
        return None


def _script_name(key: str, script: str) -> str:
    # The content's digest in the name: a file changed since (cut short, edited) is not taken.
    return f"vega-{key}-{hashlib.sha256(script.encode()).hexdigest()[:16]}.js"


def _kept_script(folder: Path, key: str) -> str | None:
    """The script kept for `key`, when its content is what its name says; None otherwise."""
    for path in folder.glob(f"vega-{key}-*.js"):
        try:
            script = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if path.name == _script_name(key, script):
            return script
    return None


def _keep_script(folder: Path, key: str, script: str) -> None:
    """Keep the script for the next report, in place of any other version's; a cache that cannot
    be written (read-only, full) only means the next report bundles it again."""
    with contextlib.suppress(OSError):
        for old in folder.glob("vega-*.js"):
            old.unlink(missing_ok=True)
        atomic_write_bytes(folder / _script_name(key, script), script.encode("utf-8"))
