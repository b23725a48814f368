"""Host CPU use per measured workload, beside the figures (report and compare).

fio reports the CPU its job threads used (usr and sys, % of one CPU); the simulator
reports, for a RAID-0 of simulated drives, the host CPU its software striping took (sys,
% of one core: ssdsim array.rs). A single simulated drive has no host CPU modelled, so a
test with no CPU figure anywhere gets no table rather than a column of dashes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.errors import SsdlabError
from ssdlab.measurement import Measurement
from ssdlab.report.formatting import MISSING, format_pct_change
from ssdlab.report.types import Table

CAPTION = ("Host CPU during each measured workload, % of one CPU: fio's usr and sys of its job threads; on a "
           "simulated RAID-0 the modelled CPU of the software striping (sys).")


def cpu_pct(m: Measurement) -> tuple[float | None, float | None]:
    return m.cpu_usr_pct, m.cpu_sys_pct


def total_pct(m: Measurement | None) -> float | None:
    """usr + sys, or None when the engine gave neither."""
    if m is None or (m.cpu_usr_pct is None and m.cpu_sys_pct is None):
        return None
    return (m.cpu_usr_pct or 0.0) + (m.cpu_sys_pct or 0.0)


def _cell(value: float | None) -> str:
    return MISSING if value is None else f"{value:.1f}"


def cpu_table(key: str, found: Mapping[str, Measurement]) -> Table | None:
    """usr, sys and total per measured workload; None when no workload has a CPU figure."""
    if all(total_pct(m) is None for m in found.values()):
        return None
    rows = tuple((name, _cell(m.cpu_usr_pct), _cell(m.cpu_sys_pct), _cell(total_pct(m))) for name, m in found.items())
    return Table(key=f"{key}-cpu", title="Host CPU", header=("workload", "usr %", "sys %", "total %"), rows=rows,
                 caption=CAPTION, collapsed=len(rows) > 8)


def measured_in(path: Path | None, test: str) -> dict[str, Measurement]:
    """The measured (not preconditioning) workloads of test `test` in the bundle at `path`."""
    if path is None:
        return {}
    try:
        bundle = Bundle(path)
        record = next((t for t in bundle.load_run().tests if t.name == test), None)
        return _measured(bundle, record) if record is not None else {}
    except SsdlabError:
        return {}


def _measured(bundle: Bundle, record: TestRecord) -> dict[str, Measurement]:
    refs = [ref for ref in record.measurements if ref.role == "measure"]
    return {ref.name: bundle.load_measurement(ref) for ref in refs}


def cpu_comparison_table(key: str, labels: Sequence[str], runs: Sequence[Mapping[str, Measurement]]) -> Table | None:
    """Total host CPU per workload for each drive side by side, Difference % against the first."""
    names = list(dict.fromkeys(name for found in runs for name in found))
    rows = []
    for name in names:
        totals = [total_pct(found.get(name)) for found in runs]
        if all(v is None for v in totals):
            continue
        base = totals[0]
        diffs = [format_pct_change(100.0 * (v - base) / base if v is not None and base else None) for v in totals[1:]]
        rows.append((name, *(_cell(v) for v in totals), *diffs))
    if not rows:
        return None
    header = ("workload", *(f"{label} CPU %" for label in labels),
              *(["Difference %"] if len(labels) == 2 else [f"Difference % ({lb})" for lb in labels[1:]]))
    return Table(key=f"{key}-cpu", title="Host CPU side by side", header=header, rows=tuple(rows), caption=CAPTION)


def telemetry_notes(found: Mapping[str, Measurement]) -> tuple[str, ...]:
    """What the telemetry sampler could not sample, once per distinct note (one line each)."""
    notes = (str(m.engine_facts.get("telemetry_note")) for m in found.values() if m.engine_facts.get("telemetry_note"))
    return tuple(f"Telemetry: {note}." for note in dict.fromkeys(notes))
