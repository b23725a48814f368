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

    def describe(self) -> str:
        return f"write cache {'on' if self.enabled else 'off'}"


Step = Purge | Idle | SetWriteCache


class StepResult(BaseModel):
    """What a step did, how long it took, and what was read back afterwards."""

    model_config = ConfigDict(frozen=True)

    step: Step = Field(discriminator="kind")
    elapsed_s: float
    detail: Mapping[str, object] = Field(default_factory=dict)
