"""A sampler beside a measurement on a real drive: drive temperature and throttle counters,
host CPU, one sample a second, stored as per-second telemetry next to IOPS and MB/s.

The sampler reads on a fixed cadence, at whole multiples of its period from its start (a
read that overruns skips the ticks it covered), so its rows keep their place against fio's
one-second periods over a long run. Each row is stamped on the sampler's clock; the engine
then puts the rows on the measurement's own clock (with_telemetry): fio's series count from
its job's start, which comes after the sampler's by fio's start-up (0.1-0.3 s here, seconds
when fio lays out a file), and rows from before that start or after the run's end are left
out, as they stand for none of the measured time.

Drive sources, first that works: `nvme smart-log -o json` for NVMe; `smartctl -j -A` for
SATA; hwmon temp1_input. A RAID-0 reads each member's and gives the hottest member's
temperature (array_source). Reading any of them makes the drive answer a SMART / log-page
command, so the sampler asks at most once a second. An NVMe drive's throttle flag comes from its
thermal-management counters, which count host controlled thermal management only, and only once
the host has set its thresholds: a drive without that feature, or with it not enabled, gets no flag
(DriveSource.counters_indicate), as a SATA drive gets none. Whether it has it comes from the facts
the runner read of the target as the run began (`nvme id-ctrl`, `nvme get-feature`), else the
sampler asks as it starts. Host CPU comes from /proc/stat. What is
missing (no tool, no permission, a file target) becomes one note for the report, never an
error: the measurement itself does not depend on the sampler.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.measurement import Measurement
from ssdlab.targets.base import TargetInfo
from ssdlab.targets.raid import member_specs
from ssdlab.targets.spec import parse_spec
from ssdlab.targets.sysinfo import CommandRunner, hctm_counts, hctm_facts, nvme_id_ctrl, run_command
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
    # The reading drive_source probed the drive with: the sampler's first baseline, so the drive
    # answers no second command within a second of it.
    probe: Sample | None = None
    # Whether its thermal-management counters say when the drive throttled (the sampler's
    # throttle_active flag): not on an NVMe drive without host controlled thermal management, or
    # with it not enabled, whose counters count nothing and read 0 throughout (sysinfo.hctm_counts).
    # They are kept as read all the same.
    counters_indicate: bool = True


# A drive whose smart-log gives 0 K (sources.drive_kelvin): its counters are sampled, its hwmon reads
# the same nothing, and the report says why no temperature is drawn.
NO_TEMPERATURE = ("drive temperature: the drive reports none (0 K in its SMART log: no sensor, as on emulated "
                  "and cloud NVMe drives)")


def drive_source(device: str | None, run: CommandRunner = run_command, sys_root: Path = Path("/sys"),
                 known: Mapping[str, object] | None = None) -> tuple[DriveSource | None, str | None]:
    """The first drive source that answers for `device`, or None and a one-line note why. `known`:
    the drive's id-ctrl facts as the run read them (known_drive_facts), else it is asked."""
    if device is None:
        return None, "drive temperature: not sampled (the target is not a block device)"
    name = Path(device).name
    if (sys_root / "class" / "block" / name / "loop").is_dir():
        return None, (f"drive temperature: none ({name} is a loop device, a file's blocks, not a drive: it has no "
                      "temperature or throttle counters to read)")
    tried = []
    if name.startswith("nvme"):
        source = DriveSource("nvme smart-log", lambda: nvme_reader(run, device))
        source.probe = source.read()
        if source.probe is not None:
            source.counters_indicate = nvme_counters_indicate(run, device, known)
            return source, None if "temp_c" in source.probe else NO_TEMPERATURE
        tried.append("nvme smart-log (missing nvme-cli, or no permission)")
    else:
        source = DriveSource("smartctl -A", lambda: smartctl_reader(run, device))
        source.probe = source.read()
        if source.probe is not None:
            return source, None
        tried.append("smartctl -A (missing smartmontools, or no permission)")
    hwmon = find_hwmon(sys_root, name)
    probe = read_hwmon(hwmon) if hwmon is not None else None
    if hwmon is not None and probe is not None:
        return DriveSource(f"hwmon {hwmon}", lambda: read_hwmon(hwmon), probe), None
    tried.append("hwmon temp1_input (none for this device)")
    return None, f"drive temperature: not sampled; tried {', '.join(tried)}"


def nvme_counters_indicate(run: CommandRunner, device: str, known: Mapping[str, object] | None = None) -> bool:
    """Whether an NVMe drive's thermal-management counters can say it throttled: they count host
    controlled thermal management's transitions alone, which a drive makes only where it supports
    it (id-ctrl HCTMA) and the host enabled it (get-feature 0x10). From `known`, the drive's facts
    the run read as it began (sysinfo.hctm_facts), else asked now. Where it is not known (no
    id-ctrl or get-feature answer, no HCTMA), they are taken as an indicator, as before ssdlab
    read it."""
    facts = known if known is not None and "hctm" in known else hctm_facts(nvme_id_ctrl(run, device), run, device)
    return hctm_counts(facts) is not False


@dataclass
class Sampler:
    """Samples once a period in a thread from `start()` to `stop()`, at whole multiples of the
    period from the start; `series()` gives the channels with their t_s axis (seconds since
    start), `notes` what could not be sampled."""

    drive: DriveSource | None
    proc_stat: Path = Path("/proc/stat")
    period_s: float = MIN_PERIOD_S
    notes: list[str] = field(default_factory=list)
    rows: list[tuple[float, Sample]] = field(default_factory=list)
    clock: Callable[[], float] = time.monotonic
    # The wall clock fio stamps its output with (job_start, timestamp_ms): read beside `clock` at
    # start and stop, so at_wall can put a time fio gives onto the sampler's clock.
    wall_clock: Callable[[], float] = time.time
    # Sleeps up to the seconds given, True when stop() asked to end; None: the stop event's wait,
    # which stop() wakes at once (tests pass one that moves a fake clock).
    wait: Callable[[float], bool] | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _t0: float = 0.0
    _pairs: list[tuple[float, float]] = field(default_factory=list)  # (s since start, wall s)
    _cpu: CpuTimes | None = None
    _last_drive: Sample | None = None
    # The drive's reading taken as the sampler started (the probe, or the thread's first read), with
    # when (s on its clock): before the measured work began, the drive idle, so the temperature the
    # measurement starts at (with_telemetry), where no row was read between it and the start.
    baseline: tuple[float, Sample] | None = None

    def __post_init__(self) -> None:
        self.period_s = max(self.period_s, MIN_PERIOD_S)

    def start(self) -> None:
        self._t0 = self.clock()
        self._pairs = [(0.0, self.wall_clock())]
        self._cpu = self._read_cpu()
        if self._cpu is None:
            self.notes.append(f"host CPU: not sampled ({self.proc_stat} unreadable)")
        if self.drive is not None and self.drive.probe is not None:
            # The first row's throttle flag is judged against this; read again when it is gone
            # (the thread does, so a slow drive command does not hold up fio's launch).
            self._last_drive, self.drive.probe = dict(self.drive.probe), None
            self.baseline = (0.0, dict(self._last_drive))  # read just before start(): at its start
        self._thread = threading.Thread(target=self._loop, name="ssdlab-telemetry", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5 * self.period_s)
        self._pairs.append((self.clock() - self._t0, self.wall_clock()))

    def at_wall(self, wall_s: float) -> float:
        """A wall-clock time (s since the epoch) as seconds since start() on the sampler's clock,
        through the (clock, wall clock) pair read nearest it, start's or stop's: a wall-clock
        step during a long run then moves neither the run's start nor its end."""
        since_s, wall_then = min(self._pairs, key=lambda pair: abs(pair[1] - wall_s))
        return since_s + wall_s - wall_then

    def _loop(self) -> None:
        wait = self.wait or self._stop.wait
        if self.drive is not None and self._last_drive is None:
            self._last_drive = self.drive.read()  # the baseline (start() had no probe reading)
            if self._last_drive is not None:
                self.baseline = (self.clock() - self._t0, dict(self._last_drive))
        tick = 1
        while not self._stop.is_set():
            early_s = tick * self.period_s - (self.clock() - self._t0)
            if early_s > 0:
                if wait(early_s):
                    return
                continue  # re-read the clock: a wait may end a little early
            self.sample_once()
            # The next whole multiple of the period: rows keep their place over a long run (a
            # period after each read made 195 rows of 200 s), and a read that overran skips the
            # ticks it covered rather than bunching rows after it.
            tick = max(tick + 1, math.floor((self.clock() - self._t0) / self.period_s) + 1)

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
                if self._last_drive is not None and self.drive.counters_indicate:
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
# Engine facts: the drive's last temperature read at or before the measurement's start (°C), and how
# long before it (s). A sample stands for the time since the one before, so without it the first
# period's temperature is the first reading's, taken up to a sampling interval into the work: at 10-s
# readings, a rise to throttling 3 °C short (QA: 17.8 °C against a true 20.8 °C).
TEMP_BEFORE_C, TEMP_BEFORE_S = "temp_before_c", "temp_before_s"


def telemetry_sampler(kind: str, spec: str, run: CommandRunner = run_command,
                      facts: TargetInfo | None = None) -> Sampler:
    """The sampler for a target (its kind and target string): drive channels for a block device,
    for a RAID-0 its members' together (array_source). `facts`: what the runner read of the target
    as the run began, so a drive is not asked what it said then at every measurement."""
    known = known_drive_facts(facts)
    if kind == "block" and parse_spec(spec).kind == "raid0":
        source, note = array_source(member_specs(spec), run, known=known)
    else:
        source, note = drive_source(spec if kind == "block" else None, run, known=known.get(spec))
    return Sampler(drive=source, notes=[note] if note else [])


def known_drive_facts(facts: TargetInfo | None) -> dict[str, Mapping[str, object]]:
    """Each drive's `nvme id-ctrl` facts in a target's (sysinfo.apply_nvme's extra["nvme"]), by the
    string the sampler reads the drive by: the target's own, a RAID-0's members' (raid0_members)."""
    if facts is None:
        return {}
    members = facts.extra.get("raid0_members")
    drives = [m for m in members if isinstance(m, dict)] if isinstance(members, list) else []
    named = [(facts.spec, facts.extra), *((m.get("spec"), m) for m in drives)]
    return {spec: nvme for spec, extra in named
            if isinstance(spec, str) and isinstance(nvme := extra.get("nvme"), dict)}


def array_source(devices: Sequence[str], run: CommandRunner = run_command, sys_root: Path = Path("/sys"),
                 known: Mapping[str, Mapping[str, object]] | None = None) -> tuple[DriveSource | None, str | None]:
    """A RAID-0's drive channels: every member read each time, as the simulator gives an array's
    (docs/simulator.md): the hottest member's temperature, the members' thermal counters summed,
    so a member that throttles marks the array throttled. (The array's string went to the drive
    tools whole, and the hwmon of the device its last path names was read as the array's.) A
    member without a source leaves the array unsampled: the others' would pass as the array's."""
    sources = []
    for device in devices:
        source, note = drive_source(device, run, sys_root, (known or {}).get(device))
        if source is None:
            return None, f"{note} for member {device}, so the array's is not sampled either"
        sources.append(source)
    named = ", ".join(f"{device}: {source.name}" for device, source in zip(devices, sources, strict=True))
    # The summed counters say the array throttled only when every member's can: a member whose
    # counters count nothing would pass as one that never throttled.
    return DriveSource(f"hottest member ({named})", lambda: array_sample([s.read() for s in sources]),
                       array_sample([s.probe for s in sources]),
                       counters_indicate=all(s.counters_indicate for s in sources)), None


def array_sample(samples: Sequence[Sample | None]) -> Sample | None:
    """One array row from its members' (in member order): each channel every member gives, a
    temperature the hottest member's, a counter the members' sum; None (a gap) when a member
    gave nothing, as a single drive's failed read is."""
    if not samples or any(s is None for s in samples):
        return None
    rows = [s for s in samples if s is not None]
    shared = [key for key in rows[0] if all(key in row for row in rows)]
    return {key: (max if key.startswith("temp") else sum)(row[key] for row in rows) for key in shared}


def with_telemetry(measurement: Measurement, sampler: Sampler | None, start_s: float | None = None) -> Measurement:
    """The measurement with the sampler's per-second channels and its notes as an engine fact.

    `start_s`: when the measurement's clock (its series' t_s) starts, in seconds on the sampler's
    (Sampler.at_wall of fio's job start): the rows are put on the measurement's clock
    (on_measurement_clock). None: the rows stay on the sampler's clock, which starts with it."""
    if sampler is None:
        return measurement
    facts = dict(measurement.engine_facts)
    if sampler.notes:
        facts[TELEMETRY_NOTE] = "; ".join(sampler.notes)
    channels = sampler.series()
    before = reading_before(sampler, 0.0 if start_s is None else start_s)
    if before is not None:
        facts[TEMP_BEFORE_C], facts[TEMP_BEFORE_S] = before
    if start_s is not None:
        end_s = max(measurement.series.t_s[-1] if len(measurement.series) else 0.0, measurement.runtime_s)
        channels = on_measurement_clock(channels, start_s, end_s)
    return measurement.model_copy(update={"telemetry": {**measurement.telemetry, **channels},
                                          "engine_facts": facts})


def reading_before(sampler: Sampler, start_s: float) -> tuple[float, float] | None:
    """(°C, s before it) of the sampler's last temperature reading at or before `start_s` (on its
    clock): a row read while fio was starting up, else the baseline read as the sampler started;
    None without one (no drive source, or it read no temperature)."""
    rows = [*([sampler.baseline] if sampler.baseline is not None else []), *sampler.rows]
    read = [(t, float(temp)) for t, row in rows if t <= start_s and isinstance(temp := row.get("temp_c"), float | int)
            and math.isfinite(temp)]
    if not read:
        return None
    t, temp = max(read, key=lambda pair: pair[0])
    return temp, start_s - t


def on_measurement_clock(channels: Mapping[str, tuple[float, ...]], start_s: float,
                         end_s: float) -> dict[str, tuple[float, ...]]:
    """The sampler's channels on a measurement's clock that starts at `start_s` on the sampler's
    and ends at `end_s` on its own: each row's t_s less `start_s`, and only the rows that stand for
    some of the measured time (from the row before, Measurement.telemetry_samples): none read at
    or before the start (fio was still starting up), none after a row read at or after the end."""
    times = [t - start_s for t in channels.get("t_s", ())]
    keep = [i for i, t in enumerate(times) if t > 0 and (i == 0 or times[i - 1] < end_s)]
    out = {key: tuple(values[i] for i in keep) for key, values in channels.items() if key != "t_s"}
    return {"t_s": tuple(times[i] for i in keep), **out} if keep else {}
