"""The engine protocol (fio's ioengine_ops, hyperfine's Executor): small on purpose.

Every engine turns a Workload into a Measurement and carries out Steps on a Target.
Progress goes out through a callback; the engine never prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ssdlab.measurement import Measurement
from ssdlab.steps import Step, StepResult
from ssdlab.targets.base import Target
from ssdlab.workload import Workload


@dataclass(frozen=True)
class ProgressUpdate:
    """A live view of the running workload for the progress display."""

    label: str
    fraction: float  # 0..1, best estimate
    elapsed_s: float  # wall seconds (or simulated seconds for the simulator)
    iops: float = 0.0
    mb_s: float = 0.0
    sim_time_s: float | None = None
    host_gb_written: float | None = None
    temp_c: float | None = None


ProgressFn = Callable[[ProgressUpdate], None]


def _no_progress(_: ProgressUpdate) -> None:
    return None


@dataclass(frozen=True)
class RunContext:
    """Where raw engine files go and who hears about progress."""

    raw_dir: Path  # absolute directory for this action's raw files
    bundle_dir: Path  # raw_files in a Measurement are relative to this
    progress: ProgressFn = field(default=_no_progress)

    def raw_path(self, name: str) -> Path:
        self.raw_dir.mkdir(parents=True, exist_ok=True)
        return self.raw_dir / name

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.bundle_dir))


class Engine(Protocol):
    """What every engine provides. Implementations: fio, sim, fake."""

    name: str

    def version(self) -> str:
        """Engine version for the bundle's host facts; raises EngineError if unusable."""
        ...

    def supports(self, target: Target) -> bool:
        """Whether this engine can drive this kind of target."""
        ...

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        """Run one workload. On interruption return what was measured with interrupted=True."""
        ...

    def step(self, target: Target, step: Step, ctx: RunContext) -> StepResult:
        """Carry out a state-changing step and read its effect back where possible."""
        ...
