"""What an unfinished test measured, as a table: one row per workload it ran.

A test that stopped (Ctrl-C, a signal, an engine failure) has no analysis and so no metrics,
yet the workloads it ran are in its bundle. This table derives each one's rates from its
raw totals, so a reader sees the points measured without waiting for a resume. It is not the
method's own figures (a sweep's score, a steady-state verdict): those need every point.
"""

from __future__ import annotations

from collections.abc import Mapping

from ssdlab.bundle import ShortWindows, TestRecord
from ssdlab.measurement import Measurement
from ssdlab.planning import too_short_windows
from ssdlab.report.contract import mark, window_unreliable
from ssdlab.report.formatting import MISSING, format_in_unit
from ssdlab.report.types import Table

CAPTION = ("The workloads this test ran before it stopped, each from its own totals: IOPS and MB/s over its "
           "runtime, latency over its I/Os. The method's own figures need every point and are left out until the "
           "test is resumed and finishes.")
# A report of a bundle whose run is still going (QA: it said "before it stopped" of a running test).
LIVE_CAPTION = ("The workloads this test has run so far, each from its own totals: IOPS and MB/s over its runtime, "
                "latency over its I/Os. The method's own figures need every point and come when the test finishes.")
# QA: a table captioned "the workloads this test finished" listed "torture (cut short)", one it had not.
CUT_SHORT = " A workload marked (cut short) was running when the test stopped: its figures cover the part it ran."


def caption(found: Mapping[str, Measurement], live: bool = False) -> str:
    """The table's caption, saying what a (cut short) row is when the table has one; `live`: of a
    test still running."""
    if live:
        return LIVE_CAPTION
    return CAPTION + (CUT_SHORT if any(m.interrupted for m in found.values()) else "")


def unfinished(record: TestRecord) -> bool:
    """Whether a test has no analysis: it stopped, failed or never ran (no metrics)."""
    return not record.metrics and record.status != "complete"


def stopped_short_windows(record: TestRecord, found: Mapping[str, Measurement]) -> ShortWindows | None:
    """The windows of an unfinished test that were too short to trust (Measurement.window_too_short),
    with what to raise as its note would say it: the runner writes that note only when a test
    finishes (runner.short_window_notes), yet the table of what it measured gives their rates.
    None for a finished test, whose note says it, or one whose windows were long enough."""
    short = too_short_windows(list(found.values()), record.params) if unfinished(record) else None
    return ShortWindows.of(short) if short is not None else None


def figure_cell(unit: str, value: float, unreliable: bool) -> str:
    """A rate as the table gives it, marked when from a window too short to trust (a dash never is)."""
    text = format_in_unit(unit, value)
    return mark(text, unreliable and text != MISSING)


# The title of an unfinished test's measured workloads; of a test still running, LIVE_TITLE.
STOPPED_TITLE = "Measured before the test stopped"
LIVE_TITLE = "Measured so far (the test is still running)"


def unfinished_table(record: TestRecord, found: Mapping[str, Measurement],
                     names: Mapping[str, str] | None = None, short: ShortWindows | None = None,
                     live: bool = False) -> Table | None:
    """The measured workloads of a test that has no metrics, each by its display name in
    `names` (report/cpu.workload_names; the id where it has none), the rates of a window too
    short to trust (`short`: stopped_short_windows) marked; None for a finished test or one that
    measured nothing. `live`: the test is still running (status_notes)."""
    if not unfinished(record) or not found:
        return None
    shown = names or {}
    rows = tuple(
        (shown.get(name, name) + (" (cut short)" if m.interrupted else ""),
         *(figure_cell(unit, value, window_unreliable(short, name)) for unit, value in (
             ("IOPS", m.iops()), ("MB/s", m.mb_s()), ("µs", m.mean_lat_us()),
             ("µs", m.percentile_us(99.0)))))
        for name, m in found.items()
    )
    header = ("workload", "IOPS", "MB/s", "mean latency µs", "p99 latency µs")
    return Table(key=f"{record.name}-measured", title=LIVE_TITLE if live else STOPPED_TITLE, header=header, rows=rows,
                 caption=caption(found, live))
