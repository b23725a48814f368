"""Running ahead: a `sim:` run simulates its second half on a second core when the cache of
prepared simulated drives holds the drive that half starts with (docs/simulator.md, "Running
ahead").

The simulator is deterministic, so the drive a test starts with depends only on the drive's
configuration, its seed and what the run did before. A fresh run is split at the test that best
halves its estimated duration. The first time (a miss) the runner stores the drive as it
reaches that test. The next time (a hit) a second runner, in a thread, restores that drive into
a twin target and runs the second half into a private bundle while this runner runs the first.
On reaching the split, the runner adopts the second half's records only when its own drive's
history digest is the stored drive's: the same drive, so the same results. Otherwise it drops
them and runs those tests itself.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ssdlab.bundle import (
    DRIVE_SNAPSHOT,
    DRIVE_STATE,
    RAN_AHEAD_NOTE,
    Bundle,
    RunRecord,
    TestRecord,
    make_dirs_inside,
)
from ssdlab.engines.base import Engine, ProgressUpdate
from ssdlab.errors import (
    USER_STOP,
    BundleError,
    Cancelled,
    Interrupted,
    stop_error,
    stop_reason,
    stop_received,
)
from ssdlab.host import meminfo_bytes
from ssdlab.methods.base import Action
from ssdlab.progress import RunClock
from ssdlab.run_events import PendingTest, RunObserver, WorkClock
from ssdlab.targets.base import ReadingProcess, Target

SWITCH = "SSDLAB_RUN_AHEAD"  # "0" turns running ahead off
AHEAD_DIR = ".ahead"  # the second runner's private bundle, inside the run's bundle
# A twin drive, its checkpoint copy and the compression buffers, with room to spare.
MEMORY_FACTOR = 4
# How often the run, waiting on the second runner, looks for a stop (and for that runner's end).
FOLLOW_POLL_S = 0.2


@runtime_checkable
class RunsAhead(Protocol):
    """An engine whose drive can be stored as a test starts and restored into a twin target."""

    def start_key(self, target: Target, before: Sequence[str]) -> str: ...
    def drive_history(self, target: Target) -> str: ...
    def memory_bytes(self, target: Target) -> int: ...
    def store_start(self, target: Target, key: str, tests: Sequence[str], wall_s: float,
                    unkept: Callable[[str], None]) -> threading.Thread | None: ...
    def cached_twin(self, target: Target, key: str) -> Target | None: ...
    def has_cached(self, key: str) -> bool: ...


_DONE = ("done", ())


class Relay:
    """The second runner's observer: queues its events for the first to pass on, in order, and
    keeps the clock that times them meanwhile (for the run's ETA)."""

    def __init__(self, cancel: threading.Event, clock: RunClock) -> None:
        self.events: queue.SimpleQueue[tuple[str, tuple[Any, ...]]] = queue.SimpleQueue()
        self.cancel = cancel
        self.clock = clock

    def _put(self, name: str, *args: Any) -> None:
        self.events.put((name, args))

    def _check(self) -> None:
        """Stop inside a test, where the runner saves the drive for --resume as on Ctrl-C."""
        if self.cancel.is_set():
            raise Cancelled

    def run_started(self, tests: Sequence[PendingTest]) -> None:
        self.clock.started = self.clock.now()  # its pace from here: restoring the drive it starts with is not work

    def tests_ahead(self, split: int, clock: WorkClock | None) -> None: ...

    def drive_rebuilding(self, done: int, total: int) -> None: ...  # never: the twin is a new run

    def test_started(self, index: int, test: PendingTest) -> None:
        self._put("test_started", index, test)

    def action_started(self, test: str, action: Action, index: int, count: int) -> None:
        self._check()
        self.clock.action_started(test, index)
        self._put("action_started", test, action, index, count)

    def action_finished(self, test: str, index: int, skipped: bool) -> None:
        self.clock.action_finished(test, index, skipped)
        self._put("action_finished", test, index, skipped)

    def progress(self, update: ProgressUpdate) -> None:
        self._check()
        self.clock.progress(update.fraction)
        self._put("progress", update)

    def competing_reader(self, reader: ReadingProcess) -> None:  # never: the twin is a simulated drive
        self._put("competing_reader", reader)

    def test_finished(self, record: TestRecord) -> None:
        self.clock.test_finished(record.name)
        self._put("test_finished", record)


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def split_index(pending: Sequence[PendingTest]) -> int | None:
    """The test that best halves the run's estimated duration (never the first)."""
    durations = [sum(p.estimates_s) for p in pending]
    half = sum(durations) / 2
    best: int | None = None
    best_gap, done = float("inf"), 0.0
    for index in range(1, len(pending)):
        done += durations[index - 1]
        if abs(done - half) < best_gap:
            best, best_gap = index, abs(done - half)
    return best


def tests_before(record: RunRecord, pending: Sequence[PendingTest], split: int) -> list[str]:
    """What the drive did before the split, test by test: method, params, where it started, and
    its planned actions (another plan of the same test is another history)."""
    return [
        record.test(p.name).model_dump_json(include={"name", "test", "params", "start"})
        + "".join(a.model_dump_json() for a in p.plan.actions)
        for p in pending[:split]
    ]


def is_fresh(record: RunRecord, target: Target) -> bool:
    """Nothing of the run has happened yet (a resumed run keeps to one core)."""
    return not target.keeps_state() and all(t.status == "pending" and not t.action_outcomes for t in record.tests)


def drop_stale_ahead(bundle: Bundle) -> None:
    """Remove a second half's private bundle that a run killed mid-way left (kill -9: no clean-up
    ran): its tests are not in run.json, so a resume runs them itself and nothing reads it; left,
    `report` and `library add` took it for a run of its own. A link there goes, not what it leads to."""
    path = bundle.path / AHEAD_DIR
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)


def stopped_record(record: RunRecord, error: str = USER_STOP) -> RunRecord:
    """The run as a stop leaves it: the test that was running, and the run, interrupted."""
    for test in record.tests:
        if test.status == "running":
            record = record.with_test(test.model_copy(update={"status": "interrupted", "error": error}))
    return record.model_copy(update={"status": "interrupted", "error": error})


@dataclass
class RunAhead:
    """The second half of a run: stored when the run reaches it (a miss) or run ahead (a hit)."""

    engine: RunsAhead
    bundle: Bundle
    split: int
    key: str
    names: tuple[str, ...]  # the tests before the split
    began: float = field(default_factory=time.perf_counter)
    cancel: threading.Event = field(default_factory=threading.Event)
    relay: Relay | None = None
    thread: threading.Thread | None = None
    storing: threading.Thread | None = None
    ready: threading.Event = field(default_factory=threading.Event)  # the twin was restored, or not
    history: str | None = None  # the twin's drive history (a hit)
    outcome: BaseException | None = None
    # Why the drive stored at the split could not be kept (told from the storing thread): the run
    # goes on, and the runner hands it to the CLI to say (Runner.warnings).
    unkept: list[str] = field(default_factory=list)

    @property
    def private(self) -> Bundle:
        # Bundle() resolves links: one planted at .ahead in a bundle someone else made would have
        # the second runner write, and the clean-up delete, the folder it points to. It goes.
        path = self.bundle.path / AHEAD_DIR
        if path.is_symlink():
            path.unlink()
        return Bundle(path)

    @classmethod
    def begin(cls, engine: Engine, bundle: Bundle, target: Target, record: RunRecord,
              pending: Sequence[PendingTest], make_runner: Callable[[Bundle, Target, RunObserver], Any],
              ) -> RunAhead | None:
        """Start the second half now when the cache holds its drive; None when the run keeps to one core."""
        if not isinstance(engine, RunsAhead) or os.environ.get(SWITCH) == "0" or usable_cores() < 2:
            return None
        split = split_index(pending) if is_fresh(record, target) else None
        if split is None:
            return None
        memory = meminfo_bytes("MemAvailable")
        if memory is not None and memory < MEMORY_FACTOR * engine.memory_bytes(target):
            return None
        key = engine.start_key(target, tests_before(record, pending, split))
        ahead = cls(engine, bundle, split, key, tuple(p.name for p in pending[:split]))
        if engine.has_cached(key):
            ahead.start(target, record, pending, make_runner)
        return ahead

    def start(self, target: Target, record: RunRecord, pending: Sequence[PendingTest],
              make_runner: Callable[[Bundle, Target, RunObserver], Any]) -> None:
        shutil.rmtree(self.private.path, ignore_errors=True)
        self.private.path.mkdir(parents=True)
        # Simulated time says nothing of wall time until some work has run (as for the run).
        self.relay = relay = Relay(self.cancel, RunClock(pending[self.split:], initial_rate=None))
        rest = record.model_copy(update={"tests": record.tests[self.split:]})

        def work() -> None:
            try:
                twin = self.engine.cached_twin(target, self.key)
                self.history = self.engine.drive_history(twin) if twin is not None else None
                self.ready.set()
                if twin is not None:
                    make_runner(self.private, twin, relay).run(rest)
            except BaseException as err:  # kept: the first runner decides what it means
                self.outcome = err
            finally:
                self.ready.set()
                relay.events.put(_DONE)

        self.thread = threading.Thread(target=work, name="ssdlab-run-ahead", daemon=True)
        self.thread.start()

    def reached(self, target: Target) -> None:
        """The run reached the split with nothing to adopt: store its drive for next time."""
        if self.storing is None:
            self.storing = self.engine.store_start(target, self.key, self.names, time.perf_counter() - self.began,
                                                   self.unkept.append)

    def adopt(self, target: Target, record: RunRecord, observer: RunObserver,
              hint: Callable[[str], str]) -> RunRecord | None:
        """The run with the second half's records, when the twin started from this very drive and
        ran to its end or was stopped by Ctrl-C here; else None, and the run runs them in turn
        (a test that failed ahead fails again, recorded as any failure is)."""
        if self.thread is not None:
            self.ready.wait()
            if self.history is not None and self.history == self.engine.drive_history(target):
                followed, stop = self._follow(record, observer)
                if self.outcome is None or stop is not None or isinstance(self.outcome, Interrupted):
                    return self._merge(followed, stop, hint)
            self.close(wait_store=False)
            observer.tests_ahead(self.split, None)  # the run runs them after all
        self.reached(target)
        return None

    @property
    def clock(self) -> RunClock | None:
        """What times the second half while it runs ahead, if it does."""
        return self.relay.clock if self.relay is not None else None

    def _follow(self, record: RunRecord, observer: RunObserver) -> tuple[RunRecord, KeyboardInterrupt | None]:
        """Pass the second runner's events on until it ends, adding each test it finishes to the
        run as it finishes; also say what stopped it, if a stop did (then it stops where it is and
        keeps what it measured). The run holds stop signals (Runner.run), so a stop is looked for
        here between events: one raised between taking an event and passing it on would lose it,
        or a test's files moved into the bundle but not yet in run.json."""
        assert self.relay is not None and self.thread is not None
        stop: KeyboardInterrupt | None = None
        while True:
            try:
                first = stop_received()
                if stop is None and first is not None:
                    stop = stop_error(first)
                    self.cancel.set()
                try:
                    event = self.relay.events.get(timeout=FOLLOW_POLL_S)
                except queue.Empty:
                    if self.thread.is_alive():
                        continue
                    return record, stop  # it ended and its last event was taken (_DONE too, if it was lost)
                if event == _DONE:
                    return record, stop
                record = self._forward(record, observer, *event)
            except KeyboardInterrupt as error:  # raised anywhere when no stop handler is installed
                stop = stop or error
                self.cancel.set()

    def _forward(self, record: RunRecord, observer: RunObserver, name: str, args: tuple[Any, ...]) -> RunRecord:
        assert self.relay is not None
        if name == "progress" and not self.relay.events.empty():
            return record  # a newer update is queued: show that one
        if name == "test_started":
            args = (args[0] + self.split, *args[1:])
        if name == "test_finished":
            record = self._add(record, args[0])
            self.bundle.write_run(record)
            args = (record.test(args[0].name),)
        getattr(observer, name)(*args)
        return record

    def _add(self, record: RunRecord, test: TestRecord) -> RunRecord:
        """The run with a test of the second half, its files moved into the run's bundle."""
        self._move(test.name)
        return record.with_test(test.model_copy(update={"notes": (*test.notes, RAN_AHEAD_NOTE)}))

    def _merge(self, record: RunRecord, stop: KeyboardInterrupt | None, hint: Callable[[str], str]) -> RunRecord:
        """Add what the second half left unfinished (its last test and saved drive, when it
        stopped) and raise where it stopped."""
        try:
            ahead: RunRecord | None = self.private.load_run()
        except BundleError:  # it stopped before writing its first record
            ahead = None
        for test in ahead.tests if ahead is not None else ():
            # All it did that the run lacks: what it stopped, and what it finished but the stop
            # came before it was passed on (without a stop handler a stop can come anywhere).
            if record.test(test.name).status != "complete" and (test.status != "pending" or test.action_outcomes):
                record = self._add(record, test)
        for rel in (DRIVE_SNAPSHOT, DRIVE_STATE):
            self._move_file(rel)
        halted = stop is not None or self.outcome is not None  # an Interrupted: adopt() merges no other
        reason = stop_reason(stop) if stop is not None else USER_STOP
        if halted:
            record = stopped_record(record, reason)
        self.bundle.write_run(record)
        shutil.rmtree(self.private.path, ignore_errors=True)
        if halted:
            raise Interrupted(hint(reason))
        return record

    def _move(self, test: str) -> None:
        for rel in Bundle.test_dirs(test):
            self._move_file(rel)

    def _move_file(self, rel: Path) -> None:
        source, dest = self.private.path / rel, self.bundle.path / rel
        if source.exists():
            # The folders first, none a link (BundleError): a link planted at a folder above
            # `dest` had the removal below delete a file outside the bundle (QA).
            make_dirs_inside(self.bundle.path, dest.parent)
            if dest.is_dir() and not dest.is_symlink():
                shutil.rmtree(dest, ignore_errors=True)
            else:  # a file, or a link (removed, not followed)
                dest.unlink(missing_ok=True)
            source.rename(dest)

    def close(self, wait_store: bool) -> None:
        """Stop the second runner if it still runs and tidy up; wait for a drive being stored
        when the run ended well (after Ctrl-C the store is given up rather than waited for here,
        also when the Ctrl-C comes while waiting: the process waits for it as it exits, the
        thread being no daemon, engines/sim.py)."""
        self.cancel.set()
        if self.thread is not None:
            self.thread.join()
        self.thread = None
        while wait_store and self.storing is not None and self.storing.is_alive() and stop_received() is None:
            self.storing.join(FOLLOW_POLL_S)
        shutil.rmtree(self.private.path, ignore_errors=True)
