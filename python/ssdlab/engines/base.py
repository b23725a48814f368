"""The engine protocol (fio's ioengine_ops, hyperfine's Executor): small on purpose.

Every engine turns a Workload into a Measurement and carries out Steps on a Target.
Progress goes out through a callback; the engine never prints.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ssdlab.bundle import make_dirs_inside
from ssdlab.measurement import Measurement
from ssdlab.steps import Purge, Step, StepResult
from ssdlab.targets.base import ReadingProcess, Target, TargetInfo
from ssdlab.workload import Workload

# Workload features an engine may or may not honour, each with the test of whether a
# workload uses it. A workload field not listed here is honoured by every engine.
FEATURES: Mapping[str, Callable[[Workload], bool]] = {
    "compressible data": lambda w: w.compress_pct > 0,
    "sync writes (dsync / fsync)": lambda w: w.sync != "none",
    "fio's steady-state detector": lambda w: w.fio_steady_state,
    "ramp time": lambda w: w.ramp_s > 0,
    "trim workloads": lambda w: w.pattern == "trim",
    "several jobs": lambda w: w.jobs > 1,
}
ALL_FEATURES = frozenset(FEATURES)


@dataclass(frozen=True)
class StepRefusal:
    """Why an engine itself cannot do a step that the target's kind would allow (a --host run's
    trace replay), and what to do instead: said in place of "the … step on file targets"."""

    why: str  # completes "the fio engine cannot do …"
    instead: str  # what works


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do, declared once, so a plan is refused before anything runs."""

    # target kind -> the step kinds (purge, idle, write_cache, secure_erase) it can do there
    steps: Mapping[str, frozenset[str]]
    features: frozenset[str] = ALL_FEATURES
    # step kind -> the engine's own reason for not doing it, for a step not left out by the kind of target
    refused_steps: Mapping[str, StepRefusal] = field(default_factory=dict)

    @property
    def target_kinds(self) -> frozenset[str]:
        return frozenset(self.steps)

    def step_kind(self, step: Step) -> str:
        return "secure_erase" if isinstance(step, Purge) and step.secure_erase else step.kind

    def refusals(self, target_kind: str, actions: Sequence[Step | Workload]) -> list[str]:
        """One line per thing in `actions` this engine cannot do on this kind of target."""
        if target_kind not in self.steps:
            return [f"{target_kind} targets"]
        found: dict[str, None] = {}
        for action in actions:
            if isinstance(action, Workload):
                found.update((f, None) for f, used in FEATURES.items() if used(action) and f not in self.features)
            elif self.step_kind(action) not in self.steps[target_kind]:
                kind = self.step_kind(action)
                refused = self.refused_steps.get(kind)
                found[refused.why if refused else f"the {kind.replace('_', ' ')} step on {target_kind} targets"] = None
        return list(found)

    def instead(self, target_kind: str, actions: Sequence[Step | Workload]) -> list[str]:
        """What to do instead of the steps in `actions` the engine itself refuses (refused_steps)."""
        kinds = {self.step_kind(a) for a in actions if not isinstance(a, Workload)}
        return [r.instead for kind, r in self.refused_steps.items()
                if kind in kinds and kind not in self.steps.get(target_kind, frozenset())]


@dataclass(frozen=True)
class ProgressUpdate:
    """A live view of the running workload for the progress display."""

    label: str
    fraction: float  # 0..1, best estimate
    elapsed_s: float  # wall seconds (or simulated seconds for the simulator)
    iops: float | None = None  # None: no rate measured yet (not a rate of 0)
    mb_s: float | None = None
    sim_time_s: float | None = None
    host_gb_written: float | None = None
    temp_c: float | None = None


ProgressFn = Callable[[ProgressUpdate], None]


def _no_progress(_: ProgressUpdate) -> None:
    return None


@dataclass(frozen=True)
class RunContext:
    """Where raw engine files go, who hears about progress, and what the run knows of its target."""

    raw_dir: Path  # absolute directory for this action's raw files
    bundle_dir: Path  # raw_files in a Measurement are relative to this
    progress: ProgressFn = field(default=_no_progress)
    # What the runner read of the target as the run began (Target.info): what an engine needs of
    # it (the telemetry sampler, a drive's HCTM) is not asked of the drive again at every action.
    # None outside a run (tests, old callers): the engine asks.
    target_facts: TargetInfo | None = None
    # Another program that starts reading the target during a workload (the engine's watch,
    # engines/fio_process.UseWatch): told once a run (`readers_said`, the run's own set, holding
    # those said at its start), never a refusal. None: nobody listens (tests, old callers).
    on_reader: Callable[[ReadingProcess], None] | None = None
    readers_said: set[ReadingProcess] = field(default_factory=set)

    def make_raw_dir(self) -> Path:
        """The action's raw folder, made below the bundle with no link on the way: a bundle
        someone else made may hold one, and the engine would write through it (docs/safety.md)."""
        return make_dirs_inside(self.bundle_dir, self.raw_dir)

    def raw_path(self, name: str) -> Path:
        return self.make_raw_dir() / name

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.bundle_dir))


class Engine(Protocol):
    """What every engine provides. Implementations: fio, sim, fake (registered in engines/__init__)."""

    name: str
    capabilities: Capabilities

    def version(self) -> str:
        """Engine version for the bundle's host facts; raises EngineError if unusable."""
        ...

    def job_text(self, target: Target, workload: Workload) -> str:
        """The exact job this engine runs for a workload (fio job file, simulator job)."""
        ...

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        """Run one workload. On interruption return what was measured with interrupted=True."""
        ...

    def step(self, target: Target, step: Step, ctx: RunContext) -> StepResult:
        """Carry out a state-changing step and read its effect back where possible."""
        ...
