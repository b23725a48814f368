"""Engine-neutral, immutable descriptions of one I/O job (docs/architecture.md, "Workload").

A Workload says *what* to do; engines decide *how* (fio job file, simulator job).
Spans are offset + length so over-provisioning is just a shorter span.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ssdlab.errors import UsageError
from ssdlab.units import format_size

Pattern = Literal["read", "write", "randread", "randwrite", "randrw", "rw", "trim"]
SyncMode = Literal["none", "dsync", "fsync"]

READ_PATTERNS = frozenset({"read", "randread"})
WRITE_PATTERNS = frozenset({"write", "randwrite"})
MIXED_PATTERNS = frozenset({"randrw", "rw"})
SEQUENTIAL_PATTERNS = frozenset({"read", "write", "rw"})
RANDOM_PATTERNS = frozenset({"randread", "randwrite", "randrw"})


class Workload(BaseModel):
    """One I/O job. Sizes in bytes, times in seconds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    pattern: Pattern
    block_size_bytes: int = Field(gt=0)
    iodepth: int = Field(default=1, ge=1, le=65536)
    jobs: int = Field(default=1, ge=1, le=1024)
    # The read share of a mixed pattern (randrw, rw) only; every other pattern ignores it, whatever it
    # says (a write job's JSON shows the default 100): effective_read_pct is the job's share. Kept so,
    # not set to 0 for writes, as it is part of every recorded job's identity (resume, the sim cache).
    read_pct: int = Field(default=100, ge=0, le=100)
    offset_bytes: int = Field(default=0, ge=0)
    # None means "to the end of the target"; engines resolve it against the capacity.
    span_bytes: int | None = Field(default=None, gt=0)
    runtime_s: float | None = Field(default=None, gt=0)
    size_bytes: int | None = Field(default=None, gt=0)
    ramp_s: float = Field(default=0.0, ge=0)
    compress_pct: int = Field(default=0, ge=0, le=99)
    sync: SyncMode = "none"
    fsync_every: int = Field(default=1, ge=1)
    log_period_s: float = Field(default=1.0, gt=0)
    seed: int = Field(default=1, ge=0)
    # fio's bitwise ss detector as a cross-check of our own steady-state analysis.
    fio_steady_state: bool = False

    @model_validator(mode="after")
    def _check(self) -> Workload:
        if self.runtime_s is None and self.size_bytes is None:
            raise ValueError("give runtime_s or size_bytes (a time or a byte limit)")
        if self.block_size_bytes % 512:
            raise ValueError("block_size_bytes must be a multiple of 512")
        return self

    @property
    def is_write(self) -> bool:
        """Whether the job changes the data on the target."""
        if self.pattern in MIXED_PATTERNS:
            return self.read_pct < 100
        return self.pattern in WRITE_PATTERNS or self.pattern == "trim"

    @property
    def outstanding_ios(self) -> int:
        """I/Os the job keeps in flight at once: each of its jobs' queue."""
        return self.iodepth * self.jobs

    @property
    def is_sequential(self) -> bool:
        return self.pattern in SEQUENTIAL_PATTERNS

    def effective_read_pct(self) -> int:
        """Share of reads, whatever the pattern (0 for write, 100 for read)."""
        if self.pattern in READ_PATTERNS:
            return 100
        if self.pattern in MIXED_PATTERNS:
            return self.read_pct
        return 0

    def resolve_span(self, capacity_bytes: int) -> int:
        """Span in bytes for a target of this capacity, aligned down to the block size."""
        if self.offset_bytes >= capacity_bytes:
            raise UsageError(
                f"workload {self.name}: offset {self.offset_bytes} is past the end of the target "
                f"({capacity_bytes} bytes); use a smaller offset or a larger target"
            )
        room = capacity_bytes - self.offset_bytes
        span = room if self.span_bytes is None else min(self.span_bytes, room)
        if span < self.block_size_bytes:  # the numbers, and the way out (QA: "span is smaller than one block")
            raise UsageError(f"workload {self.name}: its span, {format_size(span)}, is smaller than one "
                             f"{format_size(self.block_size_bytes)} block; give a span of at least one block "
                             "(span_bytes or size_bytes), or a smaller block")
        return span - span % self.block_size_bytes

    def describe(self) -> str:
        """A short human label, e.g. '4KiB randwrite QD32 T1'."""
        mix = f" {self.read_pct}%R" if self.pattern in MIXED_PATTERNS else ""
        limit = f"{self.runtime_s:g}s" if self.runtime_s else format_size(self.size_bytes or 0)
        return (
            f"{format_size(self.block_size_bytes)} {self.pattern}{mix} "
            f"QD{self.iodepth} T{self.jobs} {limit}"
        )


def workload_from_dict(data: dict[str, object]) -> Workload:
    """Build a Workload from user data with a one-line error instead of a traceback."""
    try:
        return Workload.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "workload"
        raise UsageError(f"malformed workload: {where}: {first['msg']}") from None
