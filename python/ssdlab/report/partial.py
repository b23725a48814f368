"""What an unfinished test measured, as a table: one row per workload it ran.

A test that stopped (Ctrl-C, a signal, an engine failure) has no analysis and so no metrics,
yet the workloads it ran are in its bundle. This table derives each one's rates from its
raw totals, so a reader sees the points measured without waiting for a resume. It is not the
method's own figures (a sweep's score, a steady-state verdict): those need every point.
"""

from __future__ import annotations

from collections.abc import Mapping

from ssdlab.bundle import TestRecord
from ssdlab.measurement import Measurement
from ssdlab.report.formatting import format_in_unit
from ssdlab.report.types import Table

CAPTION = ("The workloads this test ran before it stopped, each from its own totals: IOPS and MB/s over its "
           "runtime, latency over its I/Os. The method's own figures need every point and are left out until the "
           "test is resumed and finishes.")
# QA: a table captioned "the workloads this test finished" listed "torture (cut short)", one it had not.
CUT_SHORT = " A workload marked (cut short) was running when the test stopped: its figures cover the part it ran."


def caption(found: Mapping[str, Measurement]) -> str:
    """The table's caption, saying what a (cut short) row is when the table has one."""
    return CAPTION + (CUT_SHORT if any(m.interrupted for m in found.values()) else "")


def unfinished_table(record: TestRecord, found: Mapping[str, Measurement],
                     names: Mapping[str, str] | None = None) -> Table | None:
    """The measured workloads of a test that has no metrics, each by its display name in
    `names` (report/cpu.workload_names; the id where it has none); None for a finished test
    or one that measured nothing."""
    if record.metrics or record.status == "complete" or not found:
        return None
    shown = names or {}
    rows = tuple(
        (shown.get(name, name) + (" (cut short)" if m.interrupted else ""), format_in_unit("IOPS", m.iops()),
         format_in_unit("MB/s", m.mb_s()), format_in_unit("µs", m.mean_lat_us()),
         format_in_unit("µs", m.combined_hist().percentile_ns(99.0) / 1e3))
        for name, m in found.items()
    )
    header = ("workload", "IOPS", "MB/s", "mean latency µs", "p99 latency µs")
    return Table(key=f"{record.name}-measured", title="Measured before the test stopped", header=header, rows=rows,
                 caption=caption(found))
