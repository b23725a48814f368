"""The fallback section: a metrics table and per-second curves of each measured workload.

Used for every catalogue test that has no dedicated section module. Helpers here (titles,
status notes, parameter captions) are shared by the dedicated sections.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from ssdlab.bundle import Bundle, TestRecord, short_windows
from ssdlab.effective import param_label
from ssdlab.errors import SsdlabError
from ssdlab.measurement import Measurement
from ssdlab.methods.base import Params
from ssdlab.methods.metrics import MetricSpec, figure_unreliable, part_moved_nothing, undeclared_spec
from ssdlab.report.charts import line_chart, series_rows, telemetry_rows, timeline_rows
from ssdlab.report.contract import MethodView, mark, method_view, spec_text
from ssdlab.report.formatting import MISSING, format_metric, metric_unit
from ssdlab.report.types import Figure, FigureLike, Section, Table
from ssdlab.units import human_size, is_number

MAX_OVERLAID_WORKLOADS = 6
TELEMETRY_TITLES = {"temp_c": "temperature (°C)", "wa": "write amplification (lifetime)", "free_blocks": "free blocks",
                    "cpu_usr_pct": "host CPU usr (%)", "cpu_sys_pct": "host CPU sys (%)",
                    "cpu_iowait_pct": "host CPU iowait (%)", "throttle_active": "drive throttling (0/1)"}


def catalogue_title(record: TestRecord) -> str:
    """The catalogue's title of the test's method, or its name for unknown methods."""
    from ssdlab.methods import get_test

    try:
        return get_test(record.test).title
    except SsdlabError:
        return record.test


def run_params(test: str, params: Mapping[str, Any]) -> Params | None:
    """A run's parameters through its method, as far as this ssdlab reads them (keys it does not
    know, a later ssdlab's, left out); None for a method it does not know or values it refuses."""
    from ssdlab.methods import get_test

    try:
        method = get_test(test)
        ran: Params = method.parse_params({k: v for k, v in params.items() if k in method.params_model.model_fields})
    except SsdlabError:
        return None
    return ran


def run_title(test: str, params: Mapping[str, Any], load: str | None = None) -> str:
    """The method's title as the run ran it (MethodTest.run_title). The catalogue's describes the
    method at its defaults: "Performance consistency (4 KiB random write, steady state)", "Mixed
    random read/write sweep (4 KiB, QD3)", which a run of another load says its own in place of
    (QA: a 16 KiB run was titled 4 KiB in its report, on compare's page and in the library's
    rankings). `load`: the load in the title's words, where the caller says it (compare: each
    drive's). A method this ssdlab does not know, or values it refuses: the catalogue's."""
    from ssdlab.methods import get_test

    ran = run_params(test, params)
    if ran is None:
        return catalogue_title(TestRecord(name=test, test=test))
    return get_test(test).run_title(ran, load)


def method_title(test: str, name: str, params: Mapping[str, Any], load: str | None = None) -> str:
    """The method's title as the run ran it (run_title); a variant (a second run of one method)
    adds what sets it apart: its spare area when it has one, else its name in the run."""
    return variant_title(run_title(test, params, load), test, name, params)


def variant_title(title: str, test: str, name: str, params: Mapping[str, Any]) -> str:
    """`title` of a run named `name`: a variant's adds what sets it apart (method_title)."""
    if name == test:
        return title
    op = params.get("op_pct")
    return f"{title} — {op:g} % spare area" if isinstance(op, int | float) and op > 0 else f"{title} — {name}"


def at_defaults(test: str, params: Mapping[str, Any]) -> bool:
    """Whether a run of a catalogue method ran it at its defaults: every parameter it gives is
    the default (a key this ssdlab does not know, or a value it refuses, is not)."""
    ran = run_params(test, params)
    if ran is None or any(k not in type(ran).model_fields for k in params):
        return False
    fields = type(ran).model_fields
    return all(getattr(ran, k) == fields[k].get_default(call_default_factory=True) for k in params)


def catalogue_summary(record: TestRecord) -> str:
    """The catalogue's summary of the method, which describes it at its defaults ("4 KiB QD32 …
    3600 s"): said so beside a run that gave other parameters (they follow in the caption)."""
    from ssdlab.methods import get_test

    try:
        summary = get_test(record.test).summary.rstrip(".")
    except SsdlabError:
        return f"Method {record.test!r}."
    return f"{summary}." if at_defaults(record.test, record.params) else f"{summary} (the method at its defaults)."


def section_title(record: TestRecord) -> str:
    return method_title(record.test, record.name, record.params)


# A test "running" in a run nobody runs any more (stopped without saving its status); the report of
# a run still going (`live`: another ssdlab holds its lock) says LIVE_RUNNING_NOTE instead.
STOPPED_RUNNING_NOTE = "Incomplete: the run stopped while this test was running; partial data shown."
LIVE_RUNNING_NOTE = "Still running: this test was running as the report was made; what it had measured is shown."
# Of a test that had measured nothing yet (QA: "what it had measured is shown" above nothing).
STOPPED_EMPTY_NOTE = "Incomplete: the run stopped while this test was running; it had measured nothing."
LIVE_EMPTY_NOTE = "Still running: this test was running as the report was made; it had measured nothing yet."


def status_notes(record: TestRecord, live: bool = False) -> tuple[str, ...]:
    """What a reader must know about an unfinished test, then the test's own notes: the first notes
    of every section (sections.build_section adds them, so no builder words them alone). `live`:
    the run is still going, which the record alone cannot tell from a run that stopped: the run's
    lock is held (sections.build_section)."""
    notes: list[str] = []
    if record.status == "pending":
        notes.append("Not started yet: the run is still going." if live else
                     "Not run: the run stopped before this test started.")
    elif record.status == "running" and record.measurements:
        notes.append(LIVE_RUNNING_NOTE if live else STOPPED_RUNNING_NOTE)
    elif record.status == "running":
        notes.append(LIVE_EMPTY_NOTE if live else STOPPED_EMPTY_NOTE)
    elif record.status in ("interrupted", "failed"):
        what = "was interrupted" if record.status == "interrupted" else "failed"
        reason = f" ({record.error})" if record.error else ""
        shown = "what it measured before that is shown" if record.measurements else "it had measured nothing"
        notes.append(f"This test {what}{reason}; {shown}.")
    start = record.start
    if start is not None and start.shared_from and record.status != "pending":  # a test not run started nowhere
        notes.append(f"Started from the drive as {start.shared_from} left it ({start.state}): the same state its "
                     "own preparation makes, so that preparation was not run.")
    return (*notes, *record.notes)


def format_param(name: str, value: Any) -> str:
    """A parameter as a reader sees it: 'span 16 GiB', 'runtime (s) 60', 'queue depths 1,2,4'."""
    if isinstance(value, int) and not isinstance(value, bool) and name.endswith("_bytes"):
        shown = human_size(value)
    elif isinstance(value, list | tuple):
        shown = ",".join(str(v) for v in value)
    elif value is None:
        shown = "auto"
    elif isinstance(value, bool):
        shown = "yes" if value else "no"
    elif isinstance(value, float) and value == int(value):
        shown = str(int(value))
    else:
        shown = str(value)
    return f"{param_label(name)} {shown}"


def params_caption(params: Mapping[str, Any]) -> str:
    if not params:
        return "No parameters."
    return "Parameters: " + ", ".join(format_param(k, v) for k, v in params.items()) + "."


# Columns of the results grid, by the `rate` dimension a method gives its point metrics.
RATE_COLUMNS = (("iops", "IOPS"), ("mb_s", "MB/s"), ("lat", "mean latency"), ("p99", "p99 latency"),
                ("access_ms", "access time"), ("min", "slowest second"))


def raw_table(record: TestRecord) -> Table:
    """A method this ssdlab does not know: its metrics as they are named in the bundle, each number
    marked when the test's note says windows were too short to trust (which figures they made,
    only the method knows), but a setting its parameters name (undeclared_spec)."""
    short = short_windows(record)
    rows = tuple((name, mark(format_metric(name, value), is_number(value) and figure_unreliable(
                     short, undeclared_spec(name, record.params))), metric_unit(name))
                 for name, value in record.metrics.items())
    return Table(key=f"{record.name}-metrics", title="Metrics", header=("metric", "value", "unit"), rows=rows)


def row_label(spec: MetricSpec) -> str:
    return spec.label.split(": ")[0]


def column_title(name: str, unit: str) -> str:
    return name if not unit or unit == name else f"{name} {unit}"


def column_name(rate: str, name: str, specs: Sequence[MetricSpec]) -> str:
    """A column's name; the slowest-period column names a second only where its figures are of
    seconds (their labels say so: a run of 120.5 s ends in a half-second period)."""
    if rate != "min" or all(s.label.endswith(" second") for s in specs if s.dims["rate"] == rate):
        return name
    return "slowest logging period"


def rate_grid(view: MethodView, specs: Sequence[MetricSpec]) -> Table:
    """One row per measured point, one column per rate (IOPS, MB/s, latency...), each column
    in its declared unit (latencies in µs, as everywhere in the report); a mixed point's part that
    did no I/O has no row (metrics.part_moved_nothing)."""
    columns = [(rate, column_name(rate, name, specs)) for rate, name in RATE_COLUMNS
               if any(s.dims["rate"] == rate for s in specs)]
    units = {str(s.dims["rate"]): s.unit for s in reversed(specs)}  # each column's (its first metric's)
    rows: dict[str, dict[object, str]] = {}
    keys: dict[str, list[str]] = {}
    for spec in specs:
        if part_moved_nothing(spec, view.value(spec)):  # no "write part: 0" of a 100 % read point
            continue
        rows.setdefault(row_label(spec), {})[spec.dims["rate"]] = mark(spec_text(spec, view.value(spec)),
                                                                       view.marked(spec))
        keys.setdefault(row_label(spec), []).append(spec.name)
    body = tuple((label, *(cells.get(rate, MISSING) for rate, _ in columns)) for label, cells in rows.items())
    header = ("", *(column_title(name, units[rate]) for rate, name in columns))
    return Table(key=f"{view.record.name}-metrics", title="Results", header=header, rows=body,
                 row_keys=tuple(", ".join(names) for names in keys.values()))


def value_cells(spec: MetricSpec, value: object) -> tuple[str, str]:
    """(value, unit) of one figure in its declared unit; sizes carry their unit in the value."""
    value = spec.shown(value)  # a stored code ('gc-cache') in words
    return spec_text(spec, value), "" if spec.unit == "bytes" else spec.unit


def view_cells(view: MethodView, spec: MetricSpec) -> tuple[str, str]:
    """value_cells of the test's figure, marked when a window too short to trust made it."""
    value, unit = value_cells(spec, view.value(spec))
    return mark(value, view.marked(spec)), unit


def flat_table(view: MethodView, key: str, title: str, specs: Sequence[MetricSpec]) -> Table:
    rows = tuple((s.label, *view_cells(view, s)) for s in specs)
    return Table(key=f"{view.record.name}-{key}", title=title, header=("", "value", "unit"), rows=rows,
                 row_keys=tuple(s.name for s in specs))


def metrics_tables(view: MethodView | None, record: TestRecord) -> list[Table]:
    """The results grid of a method's points, then its other figures, then how it ran."""
    if view is None:
        return [raw_table(record)] if record.metrics else []
    rated = [s for s in view.specs if "rate" in s.dims]
    figures = [s for s in view.specs if "rate" not in s.dims and s.kind in ("figure", "verdict")]
    settings = [s for s in view.specs if s.kind in ("setting", "count")]
    tables = [rate_grid(view, rated)] if rated else []
    if figures:
        tables.append(flat_table(view, "figures", "Results" if not rated else "Other figures", figures))
    if settings:
        tables.append(flat_table(view, "settings", "How it ran", settings))
    return tables


def measured(bundle: Bundle, record: TestRecord) -> dict[str, Measurement]:
    """The measurements of a test that are measurements (not preconditioning), in run order."""
    refs = [ref for ref in record.measurements if ref.role == "measure"]
    return {ref.name: bundle.load_measurement(ref) for ref in refs}


def series_figures(key: str, found: Mapping[str, Measurement]) -> list[Figure]:
    """Per-second IOPS and MB/s: a few workloads overlaid from t = 0, many laid end to end."""
    if len(found) <= MAX_OVERLAID_WORKLOADS:
        rows = [row for name, m in found.items() for row in series_rows(name, m)]
        how = "Per-second rates of each measured workload, as logged by the engine, overlaid from its start."
        draws = {y: partial(line_chart, rows, y, title) for y, title in (("iops", "IOPS"), ("mb_s", "MB/s"))}
    else:
        rows = timeline_rows(found)
        how = (f"Per-second rates of the {len(found)} measured workloads, as logged by the engine, laid end to "
               "end in run order (hover a line for its workload).")
        draws = {y: partial(line_chart, rows, y, title, color="direction", detail="workload")
                  for y, title in (("iops", "IOPS"), ("mb_s", "MB/s"))}
    if not rows:
        return []
    return [
        Figure(f"{key}-iops", "IOPS per second", draws["iops"], how),
        Figure(f"{key}-mb-s", "MB/s per second", draws["mb_s"], how + " MB/s are decimal (10^6 bytes)."),
    ]


def telemetry_figures(key: str, found: Mapping[str, Measurement]) -> list[Figure]:
    channels: dict[str, list[dict[str, Any]]] = {}
    for name, m in found.items():
        for channel, rows in telemetry_rows(name, m.telemetry).items():
            channels.setdefault(channel, []).extend(rows)
    return [
        Figure(f"{key}-telemetry-{channel}", f"Telemetry: {TELEMETRY_TITLES.get(channel, channel)}",
               partial(line_chart, rows, "value", TELEMETRY_TITLES.get(channel, channel)),
               f"Engine telemetry channel {channel!r}, sampled each logging period beside the rates.")
        for channel, rows in channels.items()
    ]


def generic_section(bundle: Bundle, record: TestRecord) -> Section:
    found = measured(bundle, record)
    figures: list[FigureLike] = [*series_figures(record.name, found), *telemetry_figures(record.name, found)]
    tables = metrics_tables(method_view(bundle, record), record) if record.metrics else []
    return Section(
        key=record.name, title=section_title(record),
        caption=f"{catalogue_summary(record)} {params_caption(record.params)}",
        status=record.status, tables=tables, figures=figures,
    )
