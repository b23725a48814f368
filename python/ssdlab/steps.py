"""State-changing actions that are not measurements (docs/architecture.md, "Step").

Fills and tortures are Workloads (they are I/O); a Step is what is not: purge, idle,
write-cache changes. Each engine reads the effect back where it can.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Purge(BaseModel):
    """TRIM the span (whole target by default), or secure-erase where asked and supported."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["purge"] = "purge"
    name: str = "purge"
    offset_bytes: int = 0
    span_bytes: int | None = None
    secure_erase: bool = False

    def describe(self) -> str:
        how = "secure erase" if self.secure_erase else "TRIM"
        return f"purge ({how}, {'whole target' if self.span_bytes is None else 'span'})"


class Idle(BaseModel):
    """Leave the drive alone so background GC, SLC folding and cooling can run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["idle"] = "idle"
    name: str = "idle"
    seconds: float = Field(gt=0)

    def describe(self) -> str:
        return f"idle {self.seconds:g}s"


class SetWriteCache(BaseModel):
    """Switch the drive's volatile write cache (kernel view for real drives)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["write_cache"] = "write_cache"
    name: str = "write-cache"
    enabled: bool
    # True: the drive's own volatile cache (nvme set-feature 0x06 / hdparm -W), put back at
    # exit if the run stops first (ssdlab.trace.writecache); False: the kernel's view.
    device: bool = False

    def describe(self) -> str:
        where = "drive volatile " if self.device else ""
        return f"{where}write cache {'on' if self.enabled else 'off'}"


class ReplayTrace(BaseModel):
    """Replay a block I/O trace open loop (docs/traces.md): a generated profile
    ("generated:heavy") or an ssdlab trace file; the simulator replays it natively."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["replay_trace"] = "replay_trace"
    name: str = "replay"
    trace: str = Field(min_length=1)
    scale: float = Field(default=1.0, gt=0, le=1)
    seed: int = Field(default=1, ge=0)
    fua_pct: float = Field(default=0.0, ge=0, le=100)
    idle_cap_us: float | None = Field(default=25.0, ge=0)
    remap: Literal["modulo", "proportional"] = "modulo"

    def describe(self) -> str:
        cap = "real idle time" if self.idle_cap_us is None else f"idle capped at {self.idle_cap_us:g} µs"
        fua = f", {self.fua_pct:g} % of writes FUA" if self.fua_pct else ""
        return f"replay trace {self.trace} (scale {self.scale:g}{fua}, {cap}, offsets {self.remap})"


Step = Purge | Idle | SetWriteCache | ReplayTrace


class StepResult(BaseModel):
    """What a step did, how long it took, and what was read back afterwards."""

    model_config = ConfigDict(frozen=True)

    step: Step = Field(discriminator="kind")
    elapsed_s: float
    detail: Mapping[str, object] = Field(default_factory=dict)
