"""Types of `ssdlab._ssdsim`, the pyo3 binding of the ssdsim core (crates/ssdsim-py).

Every dict the binding returns is a Rust struct serialised with serde_json, so the
TypedDicts below mirror those structs field for field (crates/ssdsim/src/drive.rs,
job/result.rs, job/spec.rs, config.rs). `make lint` runs mypy's stubtest, which fails
when a function, class or method here no longer matches the compiled module.
"""

from collections.abc import Callable
from typing import Literal, NotRequired, TypedDict, final, type_check_only

__all__ = ["Drive", "__version__", "default_preset", "model_revision", "presets"]

__version__: str

@type_check_only
class PresetInfo(TypedDict):
    """One embedded preset (config::PresetInfo)."""

    name: str
    title: str
    default: bool
    toml: str

@type_check_only
class Identity(TypedDict):
    """drive::Identity."""

    model: str
    serial: str
    firmware: str
    capacity_bytes: int
    logical_block_size: int
    physical_block_size: int
    transport: str
    link: str
    pcie_gen: int | None
    pcie_width: int | None
    write_cache: bool
    fua: bool
    plp: bool
    discard: bool
    op_pct: float
    raw_bytes: int
    slc_cache_bytes: int
    preset: str
    config_json: str
    members: list[Identity]  # a RAID-0's members (their config_json empty); [] for one drive

@type_check_only
class Job(TypedDict):
    """job::JobSpec, what `Drive.run` accepts (unknown keys are ignored)."""

    pattern: Literal["read", "write", "randread", "randwrite", "randrw", "rw", "trim"]
    block_size_bytes: int
    iodepth: int
    jobs: int
    read_pct: float
    offset_bytes: int
    span_bytes: int
    runtime_s: NotRequired[float | None]
    size_bytes: NotRequired[int | None]
    ramp_s: float
    sync: Literal["none", "dsync", "fsync"]
    fsync_every: int
    log_period_s: float
    seed: int

@type_check_only
class OpSummary(TypedDict):
    """job::OpSummary: one direction's totals; lat_hist holds [value_ns, count] pairs."""

    ios: int
    bytes: int
    lat_min_ns: int
    lat_max_ns: int
    lat_sum_ns: int
    lat_hist: list[list[int]]

@type_check_only
class Series(TypedDict):
    """job::Series: host I/O per log period."""

    t_s: list[float]
    read_ios: list[int]
    write_ios: list[int]
    read_bytes: list[int]
    write_bytes: list[int]
    read_lat_sum_ns: list[int]
    write_lat_sum_ns: list[int]

@type_check_only
class Telemetry(TypedDict):
    """job::Telemetry: drive state at the end of each log period."""

    t_s: list[float]
    temp_c: list[float]
    throttle_level: list[int]
    wa: list[float]
    free_blocks: list[int]
    gc_pages_moved: list[int]
    slc_used_bytes: list[int]
    host_bytes_written: list[int]
    nand_bytes_written: list[int]
    power_w: list[float]

@type_check_only
class RunResult(TypedDict):
    """job::RunResult."""

    elapsed_s: float
    interrupted: bool
    error: str | None
    read: OpSummary
    write: OpSummary
    trim: OpSummary
    series: Series
    telemetry: Telemetry
    host_cpu_s: NotRequired[float]  # array::ArrayRun: host CPU seconds the RAID-0 striping took

@type_check_only
class Progress(TypedDict):
    """job::Progress, the argument of the progress callback."""

    sim_time_s: float
    job_elapsed_s: float
    fraction: float
    read_iops: float
    write_iops: float
    read_mb_s: float
    write_mb_s: float
    host_bytes_written: int
    temp_c: float

@type_check_only
class TrimResult(TypedDict):
    """drive::TrimResult, from `Drive.trim` and `Drive.purge`."""

    trimmed_bytes: int
    elapsed_s: float

@type_check_only
class IdleResult(TypedDict):
    """drive::IdleResult."""

    elapsed_s: float
    gc_pages_moved: int
    temp_c: float

@type_check_only
class DriveState(TypedDict):
    """drive::DriveState."""

    free_blocks: int
    total_blocks: int
    wa: float
    host_bytes_written: int
    nand_bytes_written: int
    temp_c: float
    throttle_level: int
    slc_used_bytes: int
    valid_pages: int

@type_check_only
class ReplaySummary(TypedDict):
    """replay::ReplaySummary."""

    ios: int
    elapsed_s: float
    idle_cut_s: float

def presets() -> list[PresetInfo]:
    """Every embedded preset: name, title, whether it is the default, and its TOML text."""

def default_preset() -> str: ...

def model_revision() -> int:
    """The revision of the simulator's model (ssdsim::MODEL_REVISION), recorded with every run."""

@final
class Drive:
    """One simulated SSD; state persists across calls."""

    def __new__(cls, preset: str, overrides: dict[str, str] | None = None, seed: int = 1) -> Drive:
        """Raises ValueError for an unknown preset or a bad override (values are str()-ed)."""

    @staticmethod
    def raid0(presets: list[str], chunk_bytes: int, overrides: dict[str, str] | None = None,
              seed: int = 1) -> Drive:
        """A RAID-0 of the presets striped in chunk_bytes (array.rs); overrides apply to every
        member. Raises ValueError for fewer than two members or a bad chunk."""

    @staticmethod
    def describe(preset: str, overrides: dict[str, str] | None = None, seed: int = 1) -> Identity:
        """Drive(preset, overrides, seed).identity() without building the drive (drive.rs
        describe): the same ValueErrors, none of the mapping tables' allocation."""

    @staticmethod
    def describe_raid0(presets: list[str], chunk_bytes: int, overrides: dict[str, str] | None = None,
                       seed: int = 1) -> Identity:
        """Drive.raid0(...).identity() without building the members (array.rs describe)."""

    def identity(self) -> Identity: ...
    @property
    def now_s(self) -> float:
        """Virtual clock in seconds."""

    def run(
        self, job: Job, progress: Callable[[Progress], object] | None = None, progress_every_s: float = 1.0
    ) -> RunResult:
        """Run one job. Progress callback errors and Ctrl-C end the run early; the
        partial result comes back with "interrupted": True instead of raising.
        Raises ValueError for a job the drive cannot run."""

    def trim(self, offset_bytes: int, length_bytes: int) -> TrimResult: ...
    def purge(self) -> TrimResult: ...
    def idle(self, seconds: float) -> IdleResult: ...
    def replay(
        self, ts_ns: bytes, op: bytes, offset: bytes, length: bytes, flags: bytes, idle_cap_ns: int | None = None
    ) -> tuple[ReplaySummary, bytes, bytes]:
        """Open-loop replay of a trace (replay.rs): columns as little-endian buffers, u64
        ts_ns, u8 op (0 read, 1 write, 2 trim, 3 flush), u64 offset, u64 length, u8 flags
        (1 FUA, 2 preflush). Returns the summary and the u64 issue and completion times (ns
        from the replay's start). Raises ValueError for an I/O beyond the capacity."""

    def state(self) -> DriveState: ...
    def copy(self) -> Drive:
        """An independent copy of the drive, state and all (cheap: no compression)."""

    def snapshot(self) -> bytes:
        """The drive's whole state as compressed bytes (`Drive.restore` makes it again)."""

    @staticmethod
    def restore(data: bytes) -> Drive:
        """The drive a snapshot was taken of; ValueError for bytes that are not one."""
