"""Executes tests against a target with an engine, writing the bundle after every step.

Data flows one way: plan -> engine -> measurement -> bundle. The runner never prints;
it reports to an observer (the CLI's progress display, or nothing). A failing observer
is switched off, never allowed to end a run: the display is a view, the bundle the truth.
"""

from __future__ import annotations

import secrets
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ssdlab import __version__
from ssdlab.bundle import (
    CACHED_PREP_NOTE,
    EARLY_STOP_NOTE,
    RESUMED_NOTE,
    SHORT_WINDOW_NOTE,
    ActionOutcome,
    Bundle,
    MeasurementRef,
    MissingBundle,
    RunRecord,
    StartState,
    TestRecord,
    TooShort,
    is_run_id_prefix,
    utc_now,
)
from ssdlab.effective import declared_specs
from ssdlab.engines.base import Engine, RunContext
from ssdlab.errors import (
    BundleError,
    EngineError,
    FileSystemError,
    InternalError,
    Interrupted,
    InUse,
    SafetyError,
    SsdlabError,
    UsageError,
    check_stop,
    closed_output_held,
    os_error_text,
    reworded,
    stop_notes,
    stop_reason,
    stoppable,
    stops_held,
    with_left,
)
from ssdlab.host import host_facts
from ssdlab.library import Library, with_bundle_named
from ssdlab.measurement import MIN_QUEUE_TURNS, Measurement
from ssdlab.methods import get_test
from ssdlab.methods.base import Action, Measure, TestPlan, TestResults, action_writes, groups_stopped_early
from ssdlab.planning import (
    check_engine,
    check_workloads,
    estimate_action_s,
    plan_entry,
    plan_run,
    shared_plan,
    too_short_windows,
    window_names,
    with_host_file_runs,
)
from ssdlab.rebuild import CachesPreparation, DriveRebuild, RebuildFailed, RebuildsDrive, do_again, unreadable
from ssdlab.resume import RESTORED, ResumePoint, not_this_plan, resume_point
from ssdlab.run_events import GuardedObserver, NullObserver, PendingTest, RunObserver
from ssdlab.runahead import RunAhead, drop_stale_ahead, stopped_record
from ssdlab.steps import StepResult
from ssdlab.suites import SuiteEntry
from ssdlab.targets.base import MeasuredRates, ReadingProcess, Target, TargetInfo, TargetLocks
from ssdlab.targets.identity import identity_changes
from ssdlab.targets.sim import MODEL_REVISION
from ssdlab.units import counted, seconds_apart


@runtime_checkable
class SavesDriveState(Protocol):
    """An engine whose drive lives in memory (the simulator) and can be saved and restored."""

    def checkpoint(self, target: Target) -> None: ...
    def saved_state(self, target: Target) -> bytes | None: ...
    def restore_state(self, target: Target, data: bytes) -> None: ...


def new_record(
    target: Target, engine: Engine, suite: str | None, entries: Sequence[SuiteEntry],
    overrides: Mapping[str, Any], options: Mapping[str, Any],
) -> RunRecord:
    engine_version = engine.version()
    now = utc_now()
    planned = plan_run(entries, overrides, target.info())
    tests = tuple(
        TestRecord(name=p.entry.name, test=p.entry.test, params=p.params, start=p.start) for p in planned
    )
    return RunRecord(
        ssdlab_version=__version__, created_utc=now, updated_utc=now, nonce=secrets.token_hex(8), target=target.info(),
        host=host_facts(engine.name, engine_version), engine=engine.name,
        engine_version=engine_version, suite=suite, options=dict(options), tests=tests,
    )


def _past_the_plan(test_record: TestRecord, plan: TestPlan) -> str | None:
    """Why a test's record cannot be resumed where it says: it counts more finished steps than the
    test has (a hand-edited run.json, or one an ssdlab whose test had more steps wrote). QA: the
    resume crashed ("zip() argument 2 is longer") and left the bundle marked running."""
    done, steps = len(test_record.action_outcomes), len(plan.actions)
    if done <= steps:
        return None
    return f"its record counts {done} finished steps of {test_record.name}, which has {steps}"


def recorded_results(bundle: Bundle, refs: Sequence[MeasurementRef], steps: Sequence[StepResult]) -> TestResults:
    """The measurements and step results a test's record names, read back from the bundle, as its
    analysis took them (a resume keeps those before where it starts again: Runner._restore)."""
    results = TestResults()
    for ref in refs:
        results = _add_measurement(results, bundle.load_measurement(ref))
    for step in steps:
        results = _add_step(results, step)
    return results


def _add_step(results: TestResults, step: StepResult) -> TestResults:
    name = step.step.name
    # Several steps of one kind in a plan are told apart by their position.
    key = name if name not in results.steps else f"{name}-{len(results.steps)}"
    return TestResults(measurements=results.measurements, steps={**results.steps, key: step})


def _add_measurement(results: TestResults, m: Measurement) -> TestResults:
    return TestResults(measurements={**results.measurements, m.workload.name: m}, steps=results.steps)


@dataclass
class Runner:
    """Runs the pending tests of a RunRecord, saving after every action."""

    bundle: Bundle
    target: Target
    engine: Engine
    observer: RunObserver = field(default_factory=NullObserver)
    rates: MeasuredRates | None = None  # measured on this device by an earlier run, for the ETA
    current: TestRecord = field(init=False)  # the running test as last saved
    # Where the engine's drive checkpoint stands: (test, actions done when it was taken).
    checkpoint_at: tuple[str, int] | None = field(init=False, default=None)
    exact: str | None = field(init=False, default=None)  # a test resumed on its exact saved drive
    replay_from: int = field(init=False, default=0)  # its actions to simulate again from there
    lost_drive: str | None = field(init=False, default=None)  # why a saved drive could not be restored
    exact_how: str = field(init=False, default=RESTORED)  # how the exact drive was had, for the resume note
    # Why this resume goes on on a fresh simulated drive, not the one the run's earlier tests left
    # (it could be neither restored nor rebuilt): said in every test it runs.
    fresh_drive: str | None = field(init=False, default=None)
    # A resume under another engine version than the run began with (fio): said in every test it runs.
    engine_change: str | None = field(init=False, default=None)
    # What taking the target down left after a run that completed (a --host run's file it could not
    # delete, a RAID-0 it could not stop): the CLI says it beside the report, which the run earned.
    left_behind: str = field(init=False, default="")
    # What the run went on without, each a line the CLI says as a warning: the drive of a run-ahead
    # split that the cache could not keep (runahead.py), so the next run does not run ahead.
    warnings: tuple[str, ...] = field(init=False, default=())
    # What a resume must confirm again (docs/safety.md): `--destroy --yes=TOKEN` when this run writes.
    resume_flags: str = field(init=False, default="")
    # The target's facts as this run read them when it began (pending): every action's engine gets
    # them (RunContext.target_facts), so a drive is asked once a run, not at every measurement.
    target_facts: TargetInfo | None = field(init=False, default=None)
    # Other programs reading the target that were said (run's start: the CLI, from the same facts;
    # since, the engine's watch): each is said once a run (RunContext.readers_said).
    readers_said: set[ReadingProcess] = field(init=False, default_factory=set)

    def __post_init__(self) -> None:
        self.guard = GuardedObserver(self.observer)

    @property
    def display_error(self) -> str | None:
        """Why the progress display was switched off, if it was."""
        return self.guard.error

    def pending(self, record: RunRecord, facts: TargetInfo | None = None) -> list[PendingTest]:
        """The tests still to run, planned for this target (`facts`: its info, else read now), each
        with where it starts."""
        info = (facts or self.target.info()).model_copy(update={"measured_rates": self.rates})
        pending: list[PendingTest] = []
        for test_record in record.tests:
            if test_record.status == "complete":
                continue
            plan = plan_entry(SuiteEntry(name=test_record.name, test=test_record.test), test_record.params, info)
            check_workloads(info, test_record.name, plan)
            check_engine(self.engine, info, test_record.name, plan)
            plan, start_state, start = self._start(plan, test_record, first=not pending,
                                                   exact=self.exact == test_record.name)
            estimates = tuple(estimate_action_s(a, info) for a in plan.actions)
            pending.append(PendingTest(test_record.name, plan, estimates, start, start_state,
                                       specs=declared_specs(test_record, info)))
        return with_host_file_runs(pending, info)

    def _start(self, plan: TestPlan, test_record: TestRecord, first: bool, exact: bool,
               ) -> tuple[TestPlan, StartState | None, ResumePoint]:
        """The plan as recorded (without a shared preparation) and where it starts; the test
        prepares the drive itself after all when the shared state cannot be trusted: it is the
        first test of this process and the target forgot its state, or it must start over."""
        keeps = self.target.keeps_state()
        done = len(test_record.action_outcomes)
        shared = test_record.start is not None and test_record.start.shared_from is not None
        recorded = shared_plan(plan) if shared else plan
        damaged = unreadable(self.bundle, test_record) or _past_the_plan(test_record, recorded) or not_this_plan(
            recorded.actions, test_record.action_outcomes, [ref.name for ref in test_record.measurements])
        began, how = test_record.action_began, self.exact_how
        if shared:
            point = resume_point(shared_plan(plan).actions, done, keeps, exact, began, how)
            if not damaged and not (first and (not keeps or (done and point.index == 0))):
                return shared_plan(plan), test_record.start, point
            before = test_record.start.shared_from if test_record.start else ""
            why = (f"{damaged}, so the test restarts and cannot trust the state {before} left" if damaged
                   else self._shared_state_lost(before))
            lost = StartState(state=plan.entry.describe() if plan.entry else "",
                              reason=f"own preparation: {why}, so the test prepares the drive itself")
            return plan, lost, resume_point(plan.actions, 0, keeps)
        point = resume_point(plan.actions, done, keeps, exact, began, how)
        if damaged:
            point = ResumePoint(0, f"{damaged}, so the test restarts from its first step")
        elif self.lost_drive and first and done and point.index == 0:
            point = ResumePoint(0, f"{self.lost_drive}, so the test restarts from its first step")
        return plan, test_record.start, point

    def _shared_state_lost(self, before: str | None) -> str:
        """Why the state the test before left is gone: the simulated drive saved with it cannot be
        used (said why: a link at state/ is not "lost"), or the drive lived in the stopped process."""
        if self.lost_drive:
            return f"the state {before} left cannot be restored: {self.lost_drive}"
        return f"the state {before} left was lost when the run stopped"

    def authorize(self, record: RunRecord, pending: Sequence[PendingTest]) -> None:
        """Refuse before anything is written when a destructive test may not write."""
        if any(p.plan.destructive for p in pending):
            self.target.authorize_writes(
                bool(record.options.get("destroy")), record.options.get("confirmed_serial")
            )
            token = self.target.confirmation_token()
            self.resume_flags = f" --destroy --yes={token}" if token else ""

    def preflight(self, record: RunRecord, facts: TargetInfo | None = None) -> None:
        """Everything that could refuse the run, checked before anything is written (`facts`: the
        target's info as the caller read it, else read now, once for all of it)."""
        facts = facts or self.target.info()
        self.check_same_engine(record, facts)
        self.check_same_drive(record, facts)
        self.authorize(record, self.pending(record, facts))

    def check_same_drive(self, record: RunRecord, facts: TargetInfo) -> None:
        """A run goes on only on the drive its bundle recorded (targets/identity.py): a target string
        names a place (/dev/loop3, /dev/sdb), which another drive can be found at after a reboot or
        in an edited run.json; its measurements would be filed under the first drive. Checked before
        anything is written or measured, and before a simulated drive is restored from the bundle
        (the restored drive is the bundle's own, whatever the target string now names)."""
        changes = identity_changes(record.target, facts)
        if changes:
            raise SafetyError(
                f"{self.target.spec} is not the drive {self.bundle.path} was measuring: {'; '.join(changes)}; "
                f"a resume continues only on that drive: attach it again, or start a new run on this one "
                f"with another --out (`ssdlab run -t {shlex.quote(self.target.spec)} -o NEW_DIR ...`)")

    def check_same_engine(self, record: RunRecord, facts: TargetInfo) -> None:
        """A resumed simulated run continues under the simulator it began with: another one (another
        ssdsim version or model revision) is another drive, so the resume is refused, and a new run
        is the way. Another fio version measures the same device: the resume goes on, and every test
        it runs says which fio measured it (engine_change)."""
        now, was = self.engine.version(), record.engine_version
        if record.engine == "sim" or self.target.kind == "sim":
            now_rev = facts.extra.get(MODEL_REVISION)
            was_rev = record.target.extra.get(MODEL_REVISION)
            # A bundle that recorded no revision predates the record (ssdsim before revision 1): its
            # drive was simulated by an older model, not this one (QA: such a run resumed silently).
            if (was and was != now) or was_rev != now_rev:
                raise UsageError(
                    f"{self.bundle.path} was run under {was or 'an unrecorded simulator'} (model revision "
                    f"{was_rev if was_rev is not None else 'unrecorded'}), and this ssdlab simulates with {now} "
                    f"(model revision {now_rev}): a resume would mix two simulators in one run; start a new run "
                    f"(`ssdlab run -t {shlex.quote(record.target.spec)} ...`) instead")
        elif was and was != now:
            self.engine_change = (f"measured with {now}, where the run began with {was}: this test's measurements "
                                  f"from this resume on are {now}'s")

    def restore_drive(self, record: RunRecord, facts: TargetInfo) -> None:
        """Continue a stopped simulated run on the drive saved in its bundle, when the save is
        where the run stopped (the first unfinished test, with as many actions done); otherwise
        keep why not (lost_drive), for the note of a test that must start over; `facts`: the
        target's info as the run read it, which a rebuild plans with."""
        first = next((t for t in record.tests if t.status != "complete"), None)
        if first is None or not isinstance(self.engine, SavesDriveState):
            return
        self.lost_drive = self._restore_saved(first)
        if self.lost_drive is not None:
            self._rebuild(record, first, facts)

    def _restore_saved(self, first: TestRecord) -> str | None:
        """Restore the drive the bundle saved; None when done, else why it cannot be."""
        assert isinstance(self.engine, SavesDriveState)
        saved = self.bundle.saved_drive()
        if isinstance(saved, str):  # none, a link, damaged: said as it is
            return saved
        data, test, at = saved
        if test != first.name or at > len(first.action_outcomes):  # e.g. an older save a failed one left
            return (f"the simulated drive saved in the bundle is where {test} stood after {at} steps, "
                    f"not where the run stopped ({first.name} after {len(first.action_outcomes)})")
        try:
            self.engine.restore_state(self.target, data)
        except EngineError as err:  # e.g. saved by another simulator version: rebuilt instead
            return str(err)
        self.exact, self.replay_from = test, at
        return None

    def _rebuild(self, record: RunRecord, first: TestRecord, facts: TargetInfo) -> None:
        """Without a usable saved drive, make the drive the run left again (rebuild.py); the stopped
        test then continues on that very drive. When that cannot be done the resume goes on on a
        fresh drive, and every test it runs says so (fresh_drive)."""
        engine = self.engine
        ran = record.tests[:[t.name for t in record.tests].index(first.name) + 1]
        if not isinstance(engine, RebuildsDrive) or self.target.keeps_state() or not any(
                t.action_outcomes for t in ran):  # nothing ran yet (a new run): the fresh drive is the drive
            return
        engine.reset_state(self.target)
        rebuild = DriveRebuild(self.bundle, self.target, engine, self.rates, facts, told=self.guard.drive_rebuilding)
        try:
            rebuilt = rebuild.run(record, first)
        except RebuildFailed as err:
            engine.reset_state(self.target)
            if any(t.action_outcomes for t in ran[:-1]):  # a first test restarted on a fresh drive is as it was
                self.fresh_drive = (f"on a fresh simulated drive, not the one the run's earlier tests left: "
                                    f"{self.lost_drive}, and it could not be rebuilt ({err}); this test's figures "
                                    "may differ from those of a run that was not stopped")
            return
        engine.rebuilt_state(self.target)
        self.exact, self.replay_from = rebuilt.test, rebuilt.upto
        cached = (f" ({rebuilt.cached} of them restored from the cache of prepared simulated drives, as simulating "
                  "them left it)") if rebuilt.cached else ""
        self.exact_how = (f"rebuilt by simulating the run's {rebuilt.count} finished actions again{cached} on a fresh "
                          f"drive with the run's seed, each giving the result the bundle holds (no usable saved drive: "
                          f"{self.lost_drive})")
        self.lost_drive = None

    def run(self, record: RunRecord) -> RunRecord:
        """Run the pending tests. A stop signal is raised only where the run can record it (stops_held):
        inside an engine's measurement and between actions; the bundle's bookkeeping is never cut into,
        so a stop, and a second one while the first is recorded, leave run.json saying where it stopped."""
        with stops_held():
            return self._run(record)

    def _run(self, record: RunRecord) -> RunRecord:
        # The target's facts, read once for the run (a block device's are sysfs reads and a smartctl
        # call): the resume's checks, a rebuild's plans and every action's engine (target_facts) take
        # them. A restored or rebuilt simulated drive keeps the identity they are of.
        facts = self.target_facts = self.target.info()
        self.readers_said.update(facts.safety.readers)
        self.check_same_engine(record, facts)
        self.check_same_drive(record, facts)
        try:
            self.restore_drive(record, facts)
        except KeyboardInterrupt as stop:  # while rebuilding the drive: nothing of the run has changed yet
            raise Interrupted(self._resume_hint(stop_reason(stop))) from None
        except Interrupted as err:  # the engine took the stop while rebuilding and said so
            raise Interrupted(self._resume_hint(str(err))) from None
        pending = self.pending(record, facts)
        self.authorize(record, pending)
        locks = TargetLocks(self.target.spec)
        ahead: RunAhead | None = None
        try:
            # Before anything is built or written: a scratch file not there yet is made and locked
            # now, so only the run holding its lock ever opens it for writing.
            locks.take(self.target.exclusive_paths(), self.target)
            self.target.prepare()  # only now: preparing may create or grow a file it was just allowed to write
            locks.take(self.target.exclusive_paths())  # what prepare made that the first look did not find
            ahead = RunAhead.begin(self.engine, self.bundle, self.target, record, pending, self._twin_runner)
            if ahead is None:  # what a second half left when its run was killed (kill -9): nothing reads it
                drop_stale_ahead(self.bundle)
            record = record.model_copy(update={"status": "running", "error": None})
            self.bundle.write_run(record)
            self.guard.run_started(pending)
            if ahead is not None and ahead.clock is not None:
                self.guard.tests_ahead(ahead.split, ahead.clock)
            for index, test in enumerate(pending):
                if ahead is not None and index == ahead.split:
                    adopted = ahead.adopt(self.target, record, self.guard, self._resume_hint)
                    if adopted is not None:  # the second half ran ahead from this very drive
                        record = adopted
                        break
                record = self._run_test(record, test, index)
            self.bundle.drop_drive_state()
        except KeyboardInterrupt as stop:  # outside a test, which records its own (no stop handler installed)
            left = self._tidy(ahead, locks, wait_store=False)
            self.bundle.write_run(stopped_record(self._written(record), stop_reason(stop)))
            raise Interrupted(self._resume_hint(stop_reason(stop)) + left) from None
        except SsdlabError as err:
            left = self._tidy(ahead, locks, wait_store=False)
            if left:  # said with why the run stopped, never instead of it
                raise with_left(err, left) from None
            raise
        except OSError as err:  # outside a test's own handler (between tests, run.json): where things are
            left = self._tidy(ahead, locks, wait_store=False)
            raise FileSystemError(f"{os_error_text(err)}; {self._resume_hint('', err)}{left}") from None
        except BaseException:
            self._tidy(ahead, locks, wait_store=False)
            raise
        record = self._ended(record)
        self.left_behind = self._tidy(ahead, locks, wait_store=True).removeprefix("; ")
        try:
            # One that came as the last test was recorded, or the run tidied up; not a reader gone
            # (a closed output): the run is complete, and the caller raises it once its own
            # bookkeeping, which needs no terminal, is done (cli/run.py).
            with closed_output_held():
                check_stop()
        except KeyboardInterrupt as stop:
            raise Interrupted(completed_hint(self.bundle.path, stop_reason(stop))) from None
        return record

    def _tidy(self, ahead: RunAhead | None, locks: TargetLocks, wait_store: bool) -> str:
        """Stop a second runner, take down what the target built (e.g. a RAID-0, a --host run's
        files), free the locks; returns "; " and what the target could not take down, or "": the
        run's own message says it, as a release that failed must not hide why the run stopped."""
        try:
            if ahead is not None:
                ahead.close(wait_store=wait_store)
                self.warnings = tuple(ahead.unkept)
        finally:
            try:
                left = self._release()
            finally:
                locks.close()
        return left

    def _release(self) -> str:
        try:
            self.target.release()
        except SsdlabError as err:
            return f"; {err}"
        return ""

    def _written(self, record: RunRecord) -> RunRecord:
        """The run as run.json has it, else `record`: a stop can come after a step wrote its record
        and before it handed it back (a test finished, and the display was told)."""
        try:
            return self.bundle.load_run()
        except BundleError:  # none yet
            return record

    def _ended(self, record: RunRecord) -> RunRecord:
        status = "complete" if any(_measured(t) for t in record.tests) else "failed"
        error = None if status == "complete" else "nothing was measured"
        record = record.model_copy(update={"status": status, "error": error, "updated_utc": utc_now()})
        self.bundle.write_run(record)
        return record

    def _twin_runner(self, bundle: Bundle, target: Target, observer: RunObserver) -> Runner:
        """A runner like this one for the second half of the run (runahead.py)."""
        return Runner(bundle, target, self.engine, observer)

    def _restore(self, test_record: TestRecord, pending: PendingTest) -> tuple[TestRecord, TestResults]:
        """Keep what the actions before the resume point produced; forget the rest."""
        keep = pending.start.index
        actions = pending.plan.actions[:keep]
        outcomes = test_record.action_outcomes[:keep]
        done = [a for a, o in zip(actions, outcomes, strict=True) if o == "done"]
        kept_names = {a.name for a in done if isinstance(a, Measure)}
        refs = tuple(r for r in test_record.measurements if r.name in kept_names)
        steps = test_record.steps[:sum(1 for a in done if not isinstance(a, Measure))]
        results = recorded_results(self.bundle, refs, steps)
        reasons = (pending.start.reason, self.fresh_drive, self.engine_change)
        resumed = tuple(RESUMED_NOTE.format(reason=reason) for reason in reasons if reason)
        notes = (*pending.plan.notes, *resumed)
        state = test_record.model_copy(update={
            "start": pending.start_state,
            "status": "running", "started_utc": test_record.started_utc if keep else utc_now(),
            "finished_utc": None, "measurements": refs, "steps": steps, "notes": notes, "error": None,
            "metrics": {}, "verdicts": (), "action_outcomes": outcomes, "action_began": False,
        })
        return state, results

    def _run_test(self, record: RunRecord, pending: PendingTest, index: int) -> RunRecord:
        test_record = record.test(pending.name)
        test = get_test(test_record.test)
        try:
            params = test.parse_params(test_record.params)
        except SsdlabError as err:  # e.g. its trace file gone while a test before it ran
            self.bundle.write_run(record.model_copy(update={"status": "failed", "error": str(err)}))
            raise reworded(err, f"{err}; {self._resume_hint('', err)}") from None  # it names the test
        if pending.plan.destructive:  # again, fresh: a device may have been mounted since
            try:
                self.authorize(record, [pending])
            except SafetyError as err:  # the run stops before this test; the bundle says why
                self.bundle.write_run(record.model_copy(update={"status": "interrupted", "error": str(err)}))
                raise SafetyError(f"{pending.name}: {err}; {self._resume_hint('', when=' once it is free')}") from None
        state, results = self._restore(test_record, pending)
        record = self._save(record, state)
        analysing = False  # a failure in the analysis comes back on resume: it analyses the same measurements
        try:
            if self.exact == pending.name:
                self._replay(pending, test_record.action_outcomes)
            self._checkpoint(pending.name, pending.start.index)
            self.guard.test_started(index, pending)
            results = self._actions(record, results, pending)
            analysing = True
            metrics = test.analyze(params, self.target.info(), results)
            verdicts = test.verdicts(params, metrics)
        except KeyboardInterrupt as stop:
            unsaved = self._fail(record, "interrupted", stop_reason(stop), stop_notes(stop))
            raise Interrupted(self._resume_hint(stop_reason(stop), unsaved=unsaved)) from None
        except InUse as err:  # nothing failed: the run waits for the device to be free
            unsaved = self._fail(record, "interrupted", str(err))
            raise InUse(f"{pending.name}: {err}; {self._resume_hint('', unsaved=unsaved, when=' once it is free')}",
                        ) from None
        except Interrupted as err:
            unsaved = self._fail(record, "interrupted", str(err))
            raise Interrupted(self._resume_hint(str(err), unsaved=unsaved)) from None
        except SsdlabError as err:
            unsaved = self._fail(record, "failed", str(err))
            hint = self._resume_hint("", err, analysing=analysing, unsaved=unsaved)
            raise reworded(err, f"{pending.name}: {err}; {hint}") from None
        except OSError as err:  # a full disk, permissions: the system said no, not a bug in ssdlab
            unsaved = self._fail(record, "failed", os_error_text(err))
            hint = self._resume_hint("", err, analysing=analysing, unsaved=unsaved)
            raise FileSystemError(f"{pending.name}: {os_error_text(err)}; {hint}") from None
        except Exception as err:
            what = f"internal error: {type(err).__name__}: {err}"
            unsaved = self._fail(record, "failed", what)
            hint = self._resume_hint("", err, analysing=analysing, unsaved=unsaved)
            raise InternalError(f"{pending.name}: {what}; {hint}") from err
        too_short, short_notes = judged_windows(pending.plan.actions, results.measurements, self.current.params)
        done = self.current.model_copy(update={
            "status": "complete", "finished_utc": utc_now(), "metrics": metrics, "verdicts": verdicts,
            "notes": (*self.current.notes, *early_stop_notes(pending.plan.actions, self.current.action_outcomes,
                                                              self.current.test),
                      *short_notes),
            "too_short": too_short,
        })
        record = self._save(record, done)
        self.guard.test_finished(done)
        return record

    def _actions(self, record: RunRecord, results: TestResults, pending: PendingTest) -> TestResults:
        state = self.current
        test = get_test(state.test)
        params = test.parse_params(state.params)
        actions = pending.plan.actions
        first, cache, key = pending.start.index, None, ""
        prep = pending.plan.prep_actions if first == 0 else 0
        if prep and isinstance(self.engine, CachesPreparation):
            cache = self.engine
            key = cache.prep_key(self.target, [a.model_dump_json() for a in actions[:prep]])
            records = cache.cached_prep(self.target, key)
            if records is not None:
                state, results = self._from_cache(state, results, actions[:prep], records)
                record = self._save(record, state)
                self._show_restored(state, actions[:prep])
                first, cache = prep, None
        began = time.perf_counter()
        for number in range(first, len(actions)):
            check_stop()  # one held since the last action began, or one swallowed on its way
            action = actions[number]
            skipped = test.skip(params, action, results.measurements)
            result = None
            if not skipped:
                writes = action_writes(action)
                if writes:
                    self._check_free()
                state = state.model_copy(update={"action_began": True})  # saved first: a resume then knows
                record = self._save(record, state)
                self.guard.action_started(state.name, action, number, len(actions))
                try:
                    result = self._do(state.name, action)
                except EngineError:
                    if writes:  # e.g. blkdiscard "Device or resource busy": the device is in use, not broken
                        self._check_free()
                    raise
            if result is not None:
                state, results = self._keep(state, results, action, result)
                if isinstance(result, Measurement) and result.interrupted:
                    self._save(record, state)
                    if result.stopped_by == "in_use":  # the engine's watch stopped it: not the user's stop
                        raise InUse(result.error or f"{self.target.spec} came into use during the write")
                    raise Interrupted(result.error or "interrupted")
            outcome: ActionOutcome = "skipped" if skipped else "done"
            state = state.model_copy(update={"action_outcomes": (*state.action_outcomes, outcome),
                                             "action_began": False})
            record = self._save(record, state)
            self.guard.action_finished(state.name, number, skipped)
            if cache is not None and number == prep - 1:
                records = prep_records(actions[:prep], state, results)
                unkept = cache.store_prep(self.target, key, records, time.perf_counter() - began)
                if unkept:  # the run goes on: a cache is a saving, never a reason to stop
                    state = state.model_copy(update={"notes": (*state.notes, unkept)})
                    record = self._save(record, state)
        return results

    def _check_free(self) -> None:
        """Right before an action that writes, read again whether the target is in use: a device
        may have been mounted (or held, or mapped) since the test began."""
        refusal = self.target.write_refusal()
        if refusal:
            raise InUse(refusal)

    def _from_cache(self, state: TestRecord, results: TestResults, prep: Sequence[Action],
                    records: Sequence[dict[str, Any]]) -> tuple[TestRecord, TestResults]:
        """Record a preparation restored from the cache of prepared drives as if it had run:
        its results are the ones simulating it gave (the simulator is deterministic)."""
        for action, rec in zip(prep, records, strict=True):
            done = rec["outcome"] == "done"
            if done and isinstance(action, Measure):
                m = Measurement.model_validate_json(rec["result"])
                ref = self.bundle.write_measurement(state.name, action.role, m)
                state = state.model_copy(update={"measurements": (*state.measurements, ref)})
                results = _add_measurement(results, m)
            elif done:
                step = StepResult.model_validate_json(rec["result"])
                state = state.model_copy(update={"steps": (*state.steps, step)})
                results = _add_step(results, step)
            outcome: ActionOutcome = "done" if done else "skipped"
            state = state.model_copy(update={"action_outcomes": (*state.action_outcomes, outcome)})
        notes = (*state.notes, CACHED_PREP_NOTE.format(steps=counted(len(prep), "step")))
        return state.model_copy(update={"notes": notes}), results

    def _show_restored(self, state: TestRecord, prep: Sequence[Action]) -> None:
        """Tell the observer of a restored preparation once it is saved: an observer that stops
        the run (Ctrl-C in a display, the run-ahead's relay) then leaves no file run.json lacks."""
        for number, action in enumerate(prep):
            done = state.action_outcomes[number] == "done"
            if done:
                self.guard.action_started(state.name, action, number, len(prep))
            self.guard.action_finished(state.name, number, not done)

    def _do(self, test: str, action: Action) -> Measurement | StepResult:
        """What the engine measured or did (it may stop early on Ctrl-C and say so)."""
        ctx = RunContext(raw_dir=self.bundle.raw_dir(test, action.name), bundle_dir=self.bundle.path,
                         progress=self.guard.progress, target_facts=self.target_facts,
                         on_reader=self.guard.competing_reader, readers_said=self.readers_said)
        with stoppable():
            if isinstance(action, Measure):
                return self.engine.measure(self.target, action.workload, ctx)
            return self.engine.step(self.target, action, ctx)

    def _keep(self, state: TestRecord, results: TestResults, action: Action, result: Measurement | StepResult,
              ) -> tuple[TestRecord, TestResults]:
        """The test with an action's result added, its measurement written to the bundle."""
        if isinstance(result, Measurement):
            assert isinstance(action, Measure)
            ref = self.bundle.write_measurement(state.name, action.role, result)
            state = state.model_copy(update={"measurements": (*state.measurements, ref)})
            return state, _add_measurement(results, result)
        state = state.model_copy(update={"steps": (*state.steps, result)})
        return state, _add_step(results, result)

    def _save(self, record: RunRecord, state: TestRecord) -> RunRecord:
        """Write the run with this test's latest state; the state is also kept for _fail."""
        self.current = state
        record = record.with_test(state)
        self.bundle.write_run(record)
        return record

    def _checkpoint(self, test: str, done: int) -> None:
        """Let an in-memory engine remember its drive as a test starts (one copy per test: a
        copy per action would cost as much as the actions on a large simulated drive)."""
        if isinstance(self.engine, SavesDriveState):
            self.engine.checkpoint(self.target)
            self.checkpoint_at = (test, done)

    def _replay(self, pending: PendingTest, outcomes: Sequence[ActionOutcome]) -> None:
        """Bring a restored drive (saved as the test started) to where the test stopped by
        simulating the finished actions again; their results are in the bundle already."""
        for number in range(self.replay_from, pending.start.index):
            if outcomes[number] == "done":
                do_again(self.engine, self.target, self.bundle, pending.name, pending.plan.actions[number],
                         self.target_facts)

    def _save_drive(self) -> None:
        """Keep the last checkpoint in the bundle, so --resume continues this very drive."""
        if isinstance(self.engine, SavesDriveState) and self.checkpoint_at is not None:
            data = self.engine.saved_state(self.target)
            if data is not None:
                self.bundle.write_drive_state(data, *self.checkpoint_at)

    def _fail(self, record: RunRecord, status: str, error: str, notes: tuple[str, ...] = ()) -> str | None:
        """Mark the current test and the run as stopped, keeping everything saved so far, with
        `notes` on what the stop cut off (errors.stop_notes); returns
        what could not be kept ("not the simulated drive: why"), if anything. The simulated drive
        never keeps the stop from being recorded (QA: a link planted at state/ left run.json
        "running"); a record that cannot be written (the disk is full) is said, never instead of
        the failure that stopped the run."""
        unsaved = None
        try:
            self._save_drive()
        except BundleError as err:  # a link or a file planted at state/: nothing is written through it
            unsaved = str(err)
        except OSError as err:  # a full disk: the snapshot is the largest file a run writes
            unsaved = os_error_text(err)
        lost: list[str] = []
        if unsaved is not None:
            error = f"{error}; the simulated drive was not kept: {unsaved}"
            lost.append(f"not the simulated drive: {unsaved}")
        state = self.current.model_copy(update={"status": status, "error": error, "finished_utc": utc_now(),
                                                "notes": (*self.current.notes, *notes)})
        record = record.with_test(state).model_copy(update={"status": status, "error": error})
        try:
            self.bundle.write_run(record)
        except OSError as err:  # run.json keeps what it last held ("running"), which a resume takes up
            lost.append(f"not this stop's record ({os_error_text(err)})")
        return " and ".join(lost) or None

    def _resume_hint(self, what: str, cause: BaseException | None = None, *, analysing: bool = False,
                     unsaved: str | None = None, when: str = "") -> str:
        """What a stop says after `what`: where the measurements are, and the resume command, unless
        the resume would stop the same way (resume_blocker): then what it would do, and why, so the
        user puts that right first instead of running a command that cannot get past it."""
        prefix = f"{what}; " if what else ""
        command = f"`ssdlab run --resume {self.bundle.path}{self.resume_flags}`"
        kept = f"measurements so far are kept in {self.bundle.path}"
        blocker = resume_blocker(cause, analysing) if cause is not None else None
        if unsaved is not None:
            kept = f"{kept}, but {unsaved}"
        if blocker is not None:
            return f"{prefix}{kept}; {command} {blocker}"
        if unsaved is not None:
            return f"{prefix}{kept}; once that is put right, resume with {command}{when} (the test may start over)"
        return f"{prefix}{kept}; resume with {command}{when}"


def resume_blocker(cause: BaseException, analysing: bool) -> str | None:
    """What a resume would do about the error that stopped a test, when it cannot get past it; None
    when it can (a stop, a device in use, a target or engine that failed and may not next time).
    A resume writes into the same bundle, keeps the run's parameters and analyses the same
    measurements again, so a failure in one of those comes back until it is put right."""
    if analysing:
        if isinstance(cause, SsdlabError) and not isinstance(cause, InternalError):
            return "analyses the same measurements again and stops the same way until that is put right"
        return "analyses the same measurements again and fails the same way: it is a bug in ssdlab; please report it"
    if isinstance(cause, BundleError):  # e.g. a link planted where ssdlab writes: it is never written through
        return "stops the same way until the bundle is put right"
    if isinstance(cause, UsageError):  # e.g. a trace file gone since the run was planned
        return ("keeps the run's parameters (--param cannot change them) and stops the same way until that is "
                "put right: put back what it names, or start a new run")
    if isinstance(cause, OSError):  # the file system said no: permissions, a read-only or full disk
        return "stops the same way until that is put right (check the path, its permissions and free space)"
    return None


def completed_hint(bundle: Path, what: str) -> str:
    """What a stop that came after the last measurement says: nothing is lost, nothing to resume."""
    return f"{what} after the run completed; its bundle {bundle} is complete: `ssdlab report {bundle}` shows it"


def _measured(test: TestRecord) -> bool:
    """A test measured something: a workload, or a trace replay (a step that is I/O)."""
    return bool(test.measurements) or any(s.step.kind == "replay_trace" for s in test.steps)


def prep_records(prep: Sequence[Action], state: TestRecord, results: TestResults) -> list[dict[str, Any]]:
    """What a preparation gave, action by action, for the cache of prepared drives."""
    records: list[dict[str, Any]] = []
    steps = iter(state.steps)
    for action, outcome in zip(prep, state.action_outcomes, strict=False):
        result = ""
        if outcome == "done":
            result = (results.measurements[action.name].model_dump_json() if isinstance(action, Measure)
                      else next(steps).model_dump_json())
        records.append({"name": action.name, "outcome": outcome, "result": result})
    return records


def early_stop_notes(actions: Sequence[Action], outcomes: Sequence[ActionOutcome],
                     test: str | None = None) -> tuple[str, ...]:
    """Say which until-steady phases stopped early, and after how many of their rounds, as the
    test's method counts them (MethodTest.early_stops; `test` None: one action a round)."""
    stops = get_test(test).early_stops(actions, outcomes) if test is not None else \
        groups_stopped_early(actions, outcomes)
    return tuple(EARLY_STOP_NOTE.format(what=what, done=done, rounds=rounds) for what, done, rounds in stops)


def measured_windows(actions: Sequence[Action], measured: Mapping[str, Measurement]) -> list[Measurement]:
    """The test's measured windows that ran, in plan order: preconditioning runs are not analysed,
    so not judged."""
    return [measured[a.name] for a in actions if isinstance(a, Measure) and a.role == "measure" and a.name in measured]


def short_window_notes(actions: Sequence[Action], measured: Mapping[str, Measurement],
                       params: Mapping[str, Any]) -> tuple[str, ...]:
    """Say which measured windows were too short to trust (too_short_windows, the first few by name),
    and how long to make them. `plan` and `run` warn before the run of the windows a period long at
    least that no rate can save (planning.short_window_warnings)."""
    return judged_windows(actions, measured, params)[1]


def judged_windows(actions: Sequence[Action], measured: Mapping[str, Measurement],
                   params: Mapping[str, Any]) -> tuple[TooShort | None, tuple[str, ...]]:
    """The test's measured windows too short to trust, found once, for its record (`too_short`) and
    its note: as a run finishes a test, and as re-analysis judges the test again."""
    windows = measured_windows(actions, measured)
    found = too_short_windows(windows, params)
    return found, short_window_note(windows, found)


def short_window_note(windows: Sequence[Measurement], found: TooShort | None) -> tuple[str, ...]:
    """short_window_notes' note from what too_short_windows found among the test's measured windows."""
    if found is None:
        return ()
    least = min((m for m in windows if m.window_too_short()), key=lambda m: m.runtime_s)
    return (SHORT_WINDOW_NOTE.format(
        windows=f"{len(found.windows)} of {len(windows)} measured windows ({window_names(found.windows)})",
        turns=MIN_QUEUE_TURNS,
        period=f"{least.series.period_s:.3g}", shortest=shortest_text(least.runtime_s, least.series.period_s),
        ios=f"{least.total_ios:,}", in_flight=f"{least.in_flight:,}", advice=found.advice),)


def shortest_text(runtime_s: float, period_s: float) -> str:
    """The shortest flagged window's seconds: to three figures (a 4.8-ms window is not "0"), more
    where a window under the period would read as long as it (seconds_apart: 0.9996 s is not "1")."""
    text = f"{runtime_s:.3g}"
    if runtime_s < period_s <= float(text):
        return seconds_apart(runtime_s, period_s)[0]
    return text


def run_entries(
    bundle_dir: Path, target: Target, engine: Engine, entries: Sequence[SuiteEntry],
    overrides: Mapping[str, Any] | None = None, suite: str | None = None,
    options: Mapping[str, Any] | None = None, observer: RunObserver | None = None,
) -> RunRecord:
    """Plan, run and record some tests in one call (benchmarks, scripts, tests)."""
    record = new_record(target, engine, suite, entries, overrides or {}, options or {})
    return Runner(Bundle(bundle_dir), target, engine, observer or NullObserver()).run(record)


def load_for_resume(path: Path, library: Path | None = None) -> tuple[Bundle, RunRecord]:
    """The stopped run to resume; a run id given for the bundle is answered with its bundle's path
    when `library` (default: the user's) holds it."""
    bundle = Bundle(path)
    try:
        record = bundle.load_run()
    except MissingBundle as missing:
        if is_run_id_prefix(missing.given):  # looked up there: a device, FIFO or folder is refused, never ignored
            Library(library).check_file()
        raise with_bundle_named(missing, library) from None
    if record.status == "complete":
        raise BundleError(f"{path} is complete; nothing to resume (start a new run instead)")
    return bundle, record
