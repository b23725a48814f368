"""Host CPU use per measured workload, beside the figures (report and compare).

fio reports the CPU its job threads used (usr and sys, % of one CPU); the simulator
reports, for a RAID-0 of simulated drives, the host CPU its software striping took (sys,
% of one core: ssdsim array.rs). A single simulated drive has no host CPU modelled, so a
test with no CPU figure anywhere gets no table rather than a column of dashes.

Workloads are named as the results tables name their figures ("4 KiB random read, QD 32",
"SEQ1M Q8T1 read, run 2"), not by the ids the bundle files them under (`rnd4k-read-qd32`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from ssdlab.bundle import Bundle, ShortWindows, TestRecord
from ssdlab.effective import declared_specs
from ssdlab.errors import SsdlabError
from ssdlab.measurement import Measurement
from ssdlab.methods.metrics import MetricSpec
from ssdlab.report.contract import mark, window_unreliable
from ssdlab.report.formatting import MISSING, format_pct_change
from ssdlab.report.section_generic import row_label
from ssdlab.report.types import Table
from ssdlab.targets.base import ReadingProcess

CAPTION = ("Host CPU during each measured workload, % of one CPU: fio's usr and sys of its job threads; on a "
           "simulated RAID-0 the modelled CPU of the software striping (sys).")


def cpu_pct(m: Measurement) -> tuple[float | None, float | None]:
    return m.cpu_usr_pct, m.cpu_sys_pct


def total_pct(m: Measurement | None) -> float | None:
    """usr + sys, or None when the engine gave neither."""
    if m is None or (m.cpu_usr_pct is None and m.cpu_sys_pct is None):
        return None
    return (m.cpu_usr_pct or 0.0) + (m.cpu_sys_pct or 0.0)


def _cell(value: float | None, unreliable: bool = False) -> str:
    """A CPU % as a cell, marked when its window was too short to trust: a window's CPU is its
    own, as its IOPS are (a dash never is)."""
    return MISSING if value is None else mark(f"{value:.1f}", unreliable)


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[-_]", name) if w]


def _labels_by_prefix(specs: Iterable[MetricSpec]) -> dict[str, str]:
    """Each run of leading words of a declared metric's name ('rnd4k_read_qd32') -> the row
    label of the first metric that starts with it ('4 KiB random read, QD 32')."""
    labels: dict[str, str] = {}
    for spec in specs:
        words = _words(spec.name)
        for end in range(1, len(words)):
            labels.setdefault("_".join(words[:end]), row_label(spec))
    return labels


def _display_name(name: str, labels: Mapping[str, str]) -> str:
    """The label of the metrics named after the workload: the longest run of its name's words
    that begins a metric name (`seq1m_q8t1-read-r2` -> seq1m_q8t1_read_mb_s, `mix-r80w20` ->
    r80w20_iops, `write-pass` -> write_avg_mb_s); the name itself when none does."""
    words = _words(name)
    for length in range(len(words), 0, -1):
        for start in range(len(words) - length + 1):
            label = labels.get("_".join(words[start:start + length]))
            if label is not None:
                return label
    return name


def workload_names(names: Iterable[str], specs: Iterable[MetricSpec]) -> dict[str, str]:
    """Each measured workload's display name, as the results tables name its figures: methods
    name a workload's metrics with the words of its id (workload `rnd4k-read-qd32` ->
    `rnd4k_read_qd32_iops`, "4 KiB random read, QD 32"). Workloads that share a name (a
    benchmark's repeated runs, a steady-state test's rounds) are numbered in run order."""
    labels = _labels_by_prefix(specs)
    shown = {name: _display_name(name, labels) for name in names}
    shared = Counter(shown.values())
    seen: Counter[str] = Counter()
    for name, label in shown.items():
        if shared[label] > 1:
            seen[label] += 1
            shown[name] = f"{label}, run {seen[label]}"
    return shown


def bundle_workload_names(bundle: Bundle, record: TestRecord, names: Iterable[str]) -> dict[str, str]:
    """workload_names of a test in its bundle (ids kept for a method this ssdlab does not know)."""
    return workload_names(names, declared_specs(record, bundle.load_run().target) or ())


def cpu_table(key: str, found: Mapping[str, Measurement], names: Mapping[str, str] | None = None,
              short: ShortWindows | None = None) -> Table | None:
    """usr, sys and total per measured workload, each by its display name in `names`
    (workload_names; the id where it has none), those of a window too short to trust (`short`)
    marked; None when no workload has a CPU figure."""
    if all(total_pct(m) is None for m in found.values()):
        return None
    shown = names or {}
    rows = tuple((shown.get(name, name), *(_cell(pct, window_unreliable(short, name)) for pct in (
                  m.cpu_usr_pct, m.cpu_sys_pct, total_pct(m)))) for name, m in found.items())
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


def cpu_comparison_table(key: str, labels: Sequence[str], runs: Sequence[Mapping[str, Measurement]],
                         names: Mapping[str, str] | None = None,
                         short: Sequence[ShortWindows | None] = ()) -> Table | None:
    """Total host CPU per workload for each drive side by side, Difference % against the first;
    workloads by their display names in `names` (workload_names; the id where it has none); a
    drive's figure from a window too short to trust (`short`, per drive) marked, and a difference
    from it."""
    ids = list(dict.fromkeys(name for found in runs for name in found))
    shown = names or {}
    rows = []
    for name in ids:
        totals = [total_pct(found.get(name)) for found in runs]
        if all(v is None for v in totals):
            continue
        marked = [v is not None and i < len(short) and window_unreliable(short[i], name) for i, v in enumerate(totals)]
        base = totals[0]
        diffs = [mark(format_pct_change(100.0 * (v - base) / base if v is not None and base else None),
                      v is not None and bool(base) and (marked[0] or marked[i]))
                 for i, v in enumerate(totals[1:], start=1)]
        cells = (_cell(v, unreliable) for v, unreliable in zip(totals, marked, strict=True))
        rows.append((shown.get(name, name), *cells, *diffs))
    if not rows:
        return None
    header = ("workload", *(f"{label} CPU %" for label in labels),
              *(["Difference %"] if len(labels) == 2 else [f"Difference % ({lb})" for lb in labels[1:]]))
    return Table(key=f"{key}-cpu", title="Host CPU side by side", header=header, rows=tuple(rows), caption=CAPTION)


def competing_notes(found: Mapping[str, Measurement], names: Mapping[str, str]) -> tuple[str, ...]:
    """One line per other program the engine's watch saw reading (or writing) the target during the
    test's workloads (Measurement.competing_readers), naming those workloads (by `names`, workload_names):
    their figures were taken beside that program's I/O, not the drive's alone."""
    during: dict[ReadingProcess, list[str]] = {}
    for workload, measured in found.items():
        for reader in measured.competing_readers:
            during.setdefault(reader, []).append(names.get(workload, workload))
    return tuple(competing_note(reader, workloads) for reader, workloads in during.items())


def competing_note(reader: ReadingProcess, during: Sequence[str]) -> str:
    """The report's words for a program seen reading the target `during` the workloads named (a
    test's, competing_notes; a trace replay's, section_trace), or writing it where a writer
    refuses nothing (a read, a scratch file: ReadingProcess.writes)."""
    verb = "wrote" if reader.writes else "read"
    return (f"Measured beside another program: pid {reader.pid} ({reader.command}) {verb} {reader.path} during "
            f"{', '.join(during)}; those figures are not the drive's alone.")


def telemetry_notes(found: Mapping[str, Measurement]) -> tuple[str, ...]:
    """What the telemetry sampler could not sample, once per distinct note (one line each)."""
    notes = (str(m.engine_facts.get("telemetry_note")) for m in found.values() if m.engine_facts.get("telemetry_note"))
    return tuple(f"Telemetry: {note}." for note in dict.fromkeys(notes))
