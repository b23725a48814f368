"""CrystalDiskMark-style quick preset (docs/methods/quick.md).

Each entry runs `runs` times for `runtime_s` seconds over a `size_bytes` test region, in
CrystalDiskMark's order: every entry's reads, then every entry's writes, each entry after an
unmeasured run of the same length ("Preparing...") and `interval_s` idle between entries
(`ExecDiskBenchAll` and `DiskSpd` in DiskBench.cpp). The region is written once beforehand so
reads hit real data. The NVMe profile is chosen for NVMe targets unless told otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean
from typing import Literal

from pydantic import Field

from ssdlab.errors import UsageError
from ssdlab.methods._prep import fill_action
from ssdlab.methods.base import (
    Action,
    Measure,
    MethodTest,
    Metrics,
    Params,
    TestPlan,
    TestResults,
)
from ssdlab.methods.metrics import IOPS, MB_S, SECONDS, US, MetricSet, MetricSpec, metric_set
from ssdlab.methods.params import IdleSeconds, OffsetBytes, RegionBytes, Seconds
from ssdlab.steps import Idle
from ssdlab.suites import Suite
from ssdlab.suites import entry as suite_entry
from ssdlab.targets.base import TargetInfo
from ssdlab.units import GIB, KIB, MIB
from ssdlab.workload import Workload


@dataclass(frozen=True)
class CdmEntry:
    label: str  # CrystalDiskMark's own label, e.g. SEQ1M Q8T1
    key: str  # metric prefix, e.g. seq1m_q8t1
    pattern_read: Literal["read", "randread"]
    pattern_write: Literal["write", "randwrite"]
    block_size_bytes: int
    iodepth: int
    jobs: int


def _entry(label: str, seq: bool, bs: int, qd: int, jobs: int) -> CdmEntry:
    key = label.lower().replace(" ", "_")
    if seq:
        return CdmEntry(label, key, "read", "write", bs, qd, jobs)
    return CdmEntry(label, key, "randread", "randwrite", bs, qd, jobs)


STANDARD = (
    _entry("SEQ1M Q8T1", True, MIB, 8, 1),
    _entry("SEQ1M Q1T1", True, MIB, 1, 1),
    _entry("RND4K Q32T1", False, 4 * KIB, 32, 1),
    _entry("RND4K Q1T1", False, 4 * KIB, 1, 1),
)
NVME = (
    _entry("SEQ1M Q8T1", True, MIB, 8, 1),
    _entry("SEQ128K Q32T1", True, 128 * KIB, 32, 1),
    _entry("RND4K Q32T16", False, 4 * KIB, 32, 16),
    _entry("RND4K Q1T1", False, 4 * KIB, 1, 1),
)


class QuickParams(Params):
    size_bytes: RegionBytes = GIB
    runs: int = Field(default=5, ge=1, le=9)
    runtime_s: Seconds = 5.0
    aggregate: Literal["best", "mean"] = "best"
    profile: Literal["auto", "standard", "nvme"] = "auto"
    offset_bytes: OffsetBytes = 0
    # CrystalDiskMark's IntervalTime default (5 s) between entries; None (or 0): none.
    interval_s: IdleSeconds = 5.0
    # CrystalDiskMark runs each entry once unmeasured ("Preparing...") before its measured runs.
    warmup: bool = True


def profile_entries(params: QuickParams, target: TargetInfo) -> tuple[CdmEntry, ...]:
    profile = params.profile
    if profile == "auto":
        profile = "nvme" if target.is_nvme else "standard"
    return NVME if profile == "nvme" else STANDARD


def run_name(entry: CdmEntry, direction: str, run: int) -> str:
    return f"{entry.key}-{direction}-r{run}"


def cdm_order(entries: tuple[CdmEntry, ...]) -> list[tuple[CdmEntry, str]]:
    """Every entry's read, then every entry's write, as CrystalDiskMark's "All" runs them: its
    RND4K Q1T1 read follows the deep-queue random reads, not random writes."""
    return [(entry, direction) for direction in DIRECTIONS for entry in entries]


def entry_runs(params: QuickParams, entry: CdmEntry, direction: str, common: dict[str, int]) -> list[Action]:
    """One entry in one direction: CrystalDiskMark's unmeasured first run (kept, not analysed),
    then its `runs` measured ones."""
    pattern = entry.pattern_read if direction == "read" else entry.pattern_write
    runs: list[Action] = []
    for run in range(0 if params.warmup else 1, params.runs + 1):
        name = run_name(entry, direction, run) if run else f"{entry.key}-{direction}-warmup"
        workload = Workload(name=name, pattern=pattern, block_size_bytes=entry.block_size_bytes,
                            iodepth=entry.iodepth, jobs=entry.jobs, runtime_s=params.runtime_s,
                            seed=run or params.runs + 1, **common)  # the measured runs keep their seeds
        runs.append(Measure(workload=workload, role="measure" if run else "precondition"))
    return runs


def run_windows(params: QuickParams, entry: CdmEntry, direction: str) -> tuple[str, ...]:
    """The windows of every run of one cell, which its figures are picked or averaged from."""
    return tuple(run_name(entry, direction, run) for run in range(1, params.runs + 1))


DIRECTIONS = ("read", "write")


def quick_specs(entry: CdmEntry, direction: str, windows: tuple[str, ...] = ()) -> list[MetricSpec]:
    """One CrystalDiskMark cell: MB/s, IOPS, latency and the runs behind them; `windows`: those
    runs' (run_windows)."""
    dims = {"entry": entry.key, "direction": direction}
    label = f"{entry.label} {direction}"
    prefix = f"{entry.key}_{direction}"
    return [
        MetricSpec(f"{prefix}_mb_s", f"{label}: throughput", MB_S, better="higher", dims={**dims, "rate": "mb_s"},
                   windows=windows),
        MetricSpec(f"{prefix}_iops", f"{label}: IOPS", IOPS, better="higher", dims={**dims, "rate": "iops"},
                   windows=windows),
        MetricSpec(f"{prefix}_lat_us", f"{label}: mean latency", US, better="lower", dims={**dims, "rate": "lat"},
                   windows=windows),
        MetricSpec(f"{prefix}_runs", f"{label}: runs", kind="count", dims=dims),
    ]


def region_bytes(params: QuickParams, capacity_bytes: int) -> int:
    """The test region the entries use: size_bytes, cut to what the target has past the offset,
    in whole MiB. QA: an offset at the end of the drive left a region of 0 bytes, and the
    user, who never set span_bytes, was told "span_bytes: Input should be greater than 0"."""
    room = capacity_bytes - params.offset_bytes
    if room <= 0:
        raise UsageError(f"quick: offset_bytes={params.offset_bytes:,} is at or past the end of the target "
                         f"({capacity_bytes:,} bytes); give an offset at least 1 MiB before its end, e.g. 0")
    size = min(params.size_bytes, room)
    region = size - size % MIB
    if region <= 0:
        raise UsageError(f"quick: offset_bytes={params.offset_bytes:,} leaves {room:,} bytes before the end of "
                         f"the target ({capacity_bytes:,} bytes), less than the 1 MiB a test region needs; "
                         "give an offset at least 1 MiB before its end, e.g. 0")
    return region


class QuickTest(MethodTest[QuickParams]):
    name = "quick"
    title = "Quick benchmark (CrystalDiskMark-style)"
    summary = "SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1 (NVMe profile for NVMe), 5 x 5 s"
    params_model = QuickParams

    def plan(self, params: QuickParams, target: TargetInfo) -> TestPlan:
        size = region_bytes(params, target.capacity_bytes)
        notes: list[str] = []
        if size < params.size_bytes:
            notes.append(f"test region reduced to {size // MIB} MiB: the target is smaller")
        common = {"offset_bytes": params.offset_bytes, "span_bytes": size}
        # CrystalDiskMark prepares its test file with 1 MiB writes at QD8.
        actions: list[Action] = [fill_action(size, "prepare-fill", 1, MIB, 8, params.offset_bytes)]
        for index, (entry, direction) in enumerate(cdm_order(profile_entries(params, target))):
            if index and params.interval_s is not None:
                actions.append(Idle(name=f"interval-{index}", seconds=params.interval_s))
            actions += entry_runs(params, entry, direction, common)
        return self.make_plan(params, actions, notes)

    def measured_sizes(self, params: QuickParams, target: TargetInfo) -> dict[str, int]:
        """The region the entries used, size_bytes cut to the target (QA: a 256 MiB file's run was
        refused beside a run asked for 256 MiB, "size: 1073741824 vs 268435456")."""
        return {"size_bytes": region_bytes(params, target.capacity_bytes)}

    def metric_specs(self, params: QuickParams, target: TargetInfo) -> MetricSet:
        specs = [MetricSpec("profile", "CrystalDiskMark profile", kind="setting"),
                 # Settings: runs from before CrystalDiskMark's order, interval and unmeasured first run
                 # lack them, and compare as another method.
                 MetricSpec("interval_s", "Idle between entries", SECONDS, kind="setting"),
                 MetricSpec("warmup", "Unmeasured first run of each entry", kind="setting")]
        for entry in profile_entries(params, target):
            for direction in DIRECTIONS:
                specs += quick_specs(entry, direction, run_windows(params, entry, direction))
        return metric_set(specs)

    def analyze(self, params: QuickParams, target: TargetInfo, results: TestResults) -> Metrics:
        metrics: Metrics = {"profile": "nvme" if profile_entries(params, target) is NVME else "standard",
                            "interval_s": params.interval_s, "warmup": params.warmup}
        pick = max if params.aggregate == "best" else fmean
        for entry in profile_entries(params, target):
            for direction in DIRECTIONS:
                runs = [
                    results.measurements[name]
                    for run in range(1, params.runs + 1)
                    if (name := run_name(entry, direction, run)) in results.measurements
                ]
                if not runs:
                    continue
                prefix = f"{entry.key}_{direction}"
                metrics[f"{prefix}_mb_s"] = pick([m.mb_s() for m in runs])
                metrics[f"{prefix}_iops"] = pick([m.iops() for m in runs])
                # Latency: the best run is the one with the lowest mean, as CDM shows it.
                lats = [m.mean_lat_us() for m in runs]
                metrics[f"{prefix}_lat_us"] = min(lats) if params.aggregate == "best" else fmean(lats)
                metrics[f"{prefix}_runs"] = len(runs)
        return metrics


TESTS = (QuickTest(),)
SUITES = (Suite(name="quick", title="CrystalDiskMark-style quick suite", entries=(suite_entry("quick"),)),)
