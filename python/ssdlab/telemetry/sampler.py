"""A sampler beside a measurement on a real drive: drive temperature and throttle counters,
host CPU, one sample a second, stored as per-second telemetry next to IOPS and MB/s.

Drive sources, first that works: `nvme smart-log -o json` for NVMe; `smartctl -j -A` for
SATA; hwmon temp1_input. Reading any of them makes the drive answer a SMART / log-page
command, so the sampler asks at most once a second. Host CPU comes from /proc/stat. What is
missing (no tool, no permission, a file target) becomes one note for the report, never an
error: the measurement itself does not depend on the sampler.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.measurement import Measurement
from ssdlab.targets.sysinfo import CommandRunner, run_command
from ssdlab.telemetry.sources import (
    CpuTimes,
    Sample,
    cpu_between,
    find_hwmon,
    nvme_reader,
    parse_proc_stat,
    read_hwmon,
    smartctl_reader,
    throttle_active,
)

MIN_PERIOD_S = 1.0  # a SMART / log-page command at most once a second
DriveReader = Callable[[], Sample | None]


@dataclass
class DriveSource:
    name: str  # what the report names, e.g. "nvme smart-log"
    read: DriveReader


def drive_source(device: str | None, run: CommandRunner = run_command, sys_root: Path = Path("/sys")) -> tuple[
        DriveSource | None, str | None]:
    """The first drive source that answers for `device`, or None and a one-line note why."""
    if device is None:
        return None, "drive temperature: not sampled (the target is not a block device)"
    name = Path(device).name
    tried = []
    if name.startswith("nvme"):
        source = DriveSource("nvme smart-log", lambda: nvme_reader(run, device))
        if source.read() is not None:
            return source, None
        tried.append("nvme smart-log (missing nvme-cli, or no permission)")
    else:
        source = DriveSource("smartctl -A", lambda: smartctl_reader(run, device))
        if source.read() is not None:
            return source, None
        tried.append("smartctl -A (missing smartmontools, or no permission)")
    hwmon = find_hwmon(sys_root, name)
    if hwmon is not None and read_hwmon(hwmon) is not None:
        return DriveSource(f"hwmon {hwmon}", lambda: read_hwmon(hwmon)), None
    tried.append("hwmon temp1_input (none for this device)")
    return None, f"drive temperature: not sampled; tried {', '.join(tried)}"


@dataclass
class Sampler:
    """Samples once a second in a thread from `start()` to `stop()`; `series()` gives the
    channels with their t_s axis (seconds since start), `notes` what could not be sampled."""

    drive: DriveSource | None
    proc_stat: Path = Path("/proc/stat")
    period_s: float = MIN_PERIOD_S
    notes: list[str] = field(default_factory=list)
    rows: list[tuple[float, Sample]] = field(default_factory=list)
    clock: Callable[[], float] = time.monotonic
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _t0: float = 0.0
    _cpu: CpuTimes | None = None
    _last_drive: Sample | None = None

    def __post_init__(self) -> None:
        self.period_s = max(self.period_s, MIN_PERIOD_S)

    def start(self) -> None:
        self._t0 = self.clock()
        self._cpu = self._read_cpu()
        if self._cpu is None:
            self.notes.append(f"host CPU: not sampled ({self.proc_stat} unreadable)")
        self._thread = threading.Thread(target=self._loop, name="ssdlab-telemetry", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5 * self.period_s)

    def _loop(self) -> None:
        while not self._stop.wait(self.period_s):
            self.sample_once()

    def _read_cpu(self) -> CpuTimes | None:
        try:
            return parse_proc_stat(self.proc_stat.read_text())
        except OSError:
            return None

    def sample_once(self) -> None:
        """One row: CPU since the last row, the drive's counters now (a failed read is a gap)."""
        row: Sample = {}
        cpu = self._read_cpu()
        if cpu is not None and self._cpu is not None:
            row.update(cpu_between(self._cpu, cpu))
        self._cpu = cpu or self._cpu
        if self.drive is not None:
            found = self.drive.read()
            if found is not None:
                if self._last_drive is not None:
                    active = throttle_active(self._last_drive, found)
                    if active is not None:
                        found["throttle_active"] = active
                self._last_drive = found
                row.update(found)
        self.rows.append((self.clock() - self._t0, row))

    def series(self) -> dict[str, tuple[float, ...]]:
        """Per-second channels; a channel missing in some rows is NaN there (equal lengths)."""
        channels = sorted({key for _, row in self.rows for key in row})
        out = {"t_s": tuple(t for t, _ in self.rows)} if self.rows else {}
        for key in channels:
            out[key] = tuple(row.get(key, float("nan")) for _, row in self.rows)
        return out

    def __enter__(self) -> Sampler:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


TELEMETRY_NOTE = "telemetry_note"  # engine fact: what the sampler could not sample


def telemetry_sampler(kind: str, spec: str, run: CommandRunner = run_command) -> Sampler:
    """The sampler for a target (its kind and target string): drive channels for a block device."""
    source, note = drive_source(spec if kind == "block" else None, run)
    return Sampler(drive=source, notes=[note] if note else [])


def with_telemetry(measurement: Measurement, sampler: Sampler | None) -> Measurement:
    """The measurement with the sampler's per-second channels and its notes as an engine fact."""
    if sampler is None:
        return measurement
    facts = dict(measurement.engine_facts)
    if sampler.notes:
        facts[TELEMETRY_NOTE] = "; ".join(sampler.notes)
    return measurement.model_copy(update={"telemetry": {**measurement.telemetry, **sampler.series()},
                                          "engine_facts": facts})
