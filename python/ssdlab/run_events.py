"""What a run tells its observer as it goes: the tests to run, and the events of running them.

The runner never prints; the CLI's progress display (progress.py), a benchmark's clock or a
second runner's relay (runahead.py) observe it through this protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ssdlab.bundle import StartState, TestRecord
from ssdlab.engines.base import ProgressUpdate
from ssdlab.methods.base import Action, TestPlan
from ssdlab.methods.metrics import MetricSet
from ssdlab.resume import ResumePoint
from ssdlab.targets.base import ReadingProcess


class WorkClock(Protocol):
    """How far some of a run's work has got, in estimated seconds (progress.RunClock times the
    tests that run ahead with one)."""

    total_s: float

    @property
    def worked_s(self) -> float: ...

    def rate(self, before_work: float | None) -> float | None: ...


@dataclass(frozen=True)
class PendingTest:
    """A test still to run: its plan, each action's estimated duration, and where it starts."""

    name: str
    plan: TestPlan
    estimates_s: tuple[float, ...]
    start: ResumePoint
    start_state: StartState | None = None
    # The run's own work after this test whatever its steps do, counted until the run ends (a
    # --host run deletes its hosts' files after its last test: planning.with_host_file_runs).
    closing_s: float = 0.0
    # The metrics its method declares for it on this target (None: a method this ssdlab does not
    # know): a display names a finished test's figures by their labels, as the report does.
    specs: MetricSet | None = None


class RunObserver(Protocol):
    """Every event a run reports. The bodies ignore it (return None rather than `...`, so an
    explicit subclass inherits them and need only define the events it cares about)."""

    def drive_rebuilding(self, done: int, total: int) -> None:
        """A resume is making the stopped run's drive again (rebuild.py), before the run starts:
        `done` of `total` finished actions simulated again."""
        return None

    def run_started(self, tests: Sequence[PendingTest]) -> None:
        return None

    def tests_ahead(self, split: int, clock: WorkClock | None) -> None:
        """The tests from `split` on run on a second core (runahead.py), timed by `clock`; their
        events come when the run reaches them. None: they run here after all, in turn."""
        return None

    def test_started(self, index: int, test: PendingTest) -> None:
        return None

    def action_started(self, test: str, action: Action, index: int, count: int) -> None:
        return None

    def action_finished(self, test: str, index: int, skipped: bool) -> None:
        return None

    def progress(self, update: ProgressUpdate) -> None:
        return None

    def competing_reader(self, reader: ReadingProcess) -> None:
        """Another program started reading the target during a workload (said once a run)."""
        return None

    def test_finished(self, record: TestRecord) -> None:
        return None


class NullObserver(RunObserver):
    """Ignores every event: the observer of a run nobody watches."""


@dataclass
class GuardedObserver:
    """Passes events on until the observer raises once; then it stays quiet and keeps the error."""

    inner: RunObserver
    error: str | None = None

    def _call(self, method: str, *args: Any) -> None:
        if self.error is not None:
            return
        try:
            getattr(self.inner, method)(*args)
        except Exception as err:  # a display bug must not end a measurement
            self.error = f"{type(err).__name__}: {err}"

    def drive_rebuilding(self, done: int, total: int) -> None:
        self._call("drive_rebuilding", done, total)

    def run_started(self, tests: Sequence[PendingTest]) -> None:
        self._call("run_started", tests)

    def tests_ahead(self, split: int, clock: WorkClock | None) -> None:
        self._call("tests_ahead", split, clock)

    def test_started(self, index: int, test: PendingTest) -> None:
        self._call("test_started", index, test)

    def action_started(self, test: str, action: Action, index: int, count: int) -> None:
        self._call("action_started", test, action, index, count)

    def action_finished(self, test: str, index: int, skipped: bool) -> None:
        self._call("action_finished", test, index, skipped)

    def progress(self, update: ProgressUpdate) -> None:
        self._call("progress", update)

    def competing_reader(self, reader: ReadingProcess) -> None:
        self._call("competing_reader", reader)

    def test_finished(self, record: TestRecord) -> None:
        self._call("test_finished", record)
