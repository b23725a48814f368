"""Executes tests against a target with an engine, writing the bundle after every step.

Data flows one way: plan -> engine -> measurement -> bundle. The runner never prints;
it reports to an observer (the CLI's progress display, or nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ssdlab import __version__
from ssdlab.bundle import Bundle, RunRecord, TestRecord, utc_now
from ssdlab.engines.base import Engine, ProgressUpdate, RunContext
from ssdlab.errors import BundleError, Interrupted, SsdlabError, UsageError
from ssdlab.host import host_facts
from ssdlab.measurement import Measurement
from ssdlab.steps import StepResult
from ssdlab.suites import SuiteEntry
from ssdlab.targets.base import Target, TargetInfo
from ssdlab.tests_catalog import get_test
from ssdlab.tests_catalog.base import Action, Measure, TestPlan, TestResults


class RunObserver(Protocol):
    def test_started(self, name: str, index: int, count: int, plan: TestPlan) -> None: ...
    def action_started(self, test: str, action: Action, index: int, count: int) -> None: ...
    def progress(self, update: ProgressUpdate) -> None: ...
    def test_finished(self, record: TestRecord) -> None: ...


class NullObserver:
    def test_started(self, name: str, index: int, count: int, plan: TestPlan) -> None: ...
    def action_started(self, test: str, action: Action, index: int, count: int) -> None: ...
    def progress(self, update: ProgressUpdate) -> None: ...
    def test_finished(self, record: TestRecord) -> None: ...


def resolve_params(entry: SuiteEntry, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Suite parameters, then user overrides: `key=v` for every test that has the key,
    `test.key=v` (test = the entry name or method) for one test only."""
    test = get_test(entry.test)
    fields = test.params_model.model_fields
    params = dict(entry.params)
    for key, value in overrides.items():
        scope, _, field = key.rpartition(".")
        if scope and scope not in (entry.name, entry.test):
            continue
        if field in fields:
            params[field] = value
    resolved: dict[str, Any] = test.parse_params(params).model_dump()
    return resolved


def check_overrides(entries: Sequence[SuiteEntry], overrides: Mapping[str, Any]) -> None:
    """Refuse a --param that no selected test takes, so a typo cannot pass silently."""
    for key in overrides:
        scope, _, field = key.rpartition(".")
        takers = [
            e for e in entries
            if (not scope or scope in (e.name, e.test))
            and field in get_test(e.test).params_model.model_fields
        ]
        if not takers:
            raise UsageError(f"no selected test takes parameter {key!r}; see `ssdlab list --params`")


def plan_entry(entry: SuiteEntry, params: Mapping[str, Any], info: TargetInfo) -> TestPlan:
    test = get_test(entry.test)
    return test.plan(test.parse_params(params), info)


def new_record(
    target: Target, engine: Engine, suite: str | None, entries: Sequence[SuiteEntry],
    overrides: Mapping[str, Any], options: Mapping[str, Any],
) -> RunRecord:
    check_overrides(entries, overrides)
    names = [e.name for e in entries]
    if len(set(names)) != len(names):
        raise UsageError("each test may appear once in a run; give distinct tests")
    engine_version = engine.version()
    now = utc_now()
    tests = tuple(
        TestRecord(name=e.name, test=e.test, params=resolve_params(e, overrides)) for e in entries
    )
    return RunRecord(
        ssdlab_version=__version__, created_utc=now, updated_utc=now, target=target.info(),
        host=host_facts(engine.name, engine_version), engine=engine.name,
        engine_version=engine_version, suite=suite, options=dict(options), tests=tests,
    )


@dataclass
class Runner:
    """Runs the pending tests of a RunRecord, saving after every action."""

    bundle: Bundle
    target: Target
    engine: Engine
    observer: RunObserver

    def run(self, record: RunRecord) -> RunRecord:
        record = record.model_copy(update={"status": "running", "error": None})
        self.bundle.write_run(record)
        pending = [t for t in record.tests if t.status != "complete"]
        for index, test_record in enumerate(pending):
            record = self._run_test(record, test_record, index, len(pending))
        record = record.model_copy(update={"status": "complete", "updated_utc": utc_now()})
        self.bundle.write_run(record)
        return record

    def _run_test(self, record: RunRecord, test_record: TestRecord, index: int, count: int) -> RunRecord:
        test = get_test(test_record.test)
        params = test.parse_params(test_record.params)
        info = self.target.info()
        plan = test.plan(params, info)
        if plan.destructive:
            self.target.authorize_writes(
                bool(record.options.get("destroy")), record.options.get("confirmed_serial")
            )
        state = test_record.model_copy(update={
            "status": "running", "started_utc": utc_now(), "finished_utc": None,
            "measurements": (), "steps": (), "notes": plan.notes, "error": None, "metrics": {},
        })
        self.observer.test_started(test_record.name, index, count, plan)
        results = TestResults()
        try:
            for number, action in enumerate(plan.actions):
                if test.skip(params, action, results.measurements):
                    continue
                self.observer.action_started(state.name, action, number, len(plan.actions))
                state, results = self._do(state, results, action)
                record = self._save(record, state)
                if state.measurements and state.measurements[-1].interrupted:
                    raise Interrupted(results.measurements[action.name].error or "interrupted")
            metrics = test.analyze(params, info, results)
        except KeyboardInterrupt:
            self._fail(record, state, "interrupted", "interrupted by the user")
            raise Interrupted(self._resume_hint("interrupted")) from None
        except Interrupted as err:
            self._fail(record, state, "interrupted", str(err))
            raise Interrupted(self._resume_hint(str(err))) from None
        except SsdlabError as err:
            self._fail(record, state, "failed", str(err))
            raise type(err)(f"{state.name}: {err}; {self._resume_hint('')}") from None
        done = state.model_copy(update={
            "status": "complete", "finished_utc": utc_now(), "metrics": metrics,
        })
        record = self._save(record, done)
        self.observer.test_finished(done)
        return record

    def _do(self, state: TestRecord, results: TestResults, action: Action) -> tuple[TestRecord, TestResults]:
        ctx = RunContext(
            raw_dir=self.bundle.raw_dir(state.name, action.name), bundle_dir=self.bundle.path,
            progress=self.observer.progress,
        )
        if isinstance(action, Measure):
            measurement = self.engine.measure(self.target, action.workload, ctx)
            ref = self.bundle.write_measurement(state.name, action.role, measurement)
            state = state.model_copy(update={"measurements": (*state.measurements, ref)})
            return state, self._add_measurement(results, measurement)
        step_result = self.engine.step(self.target, action, ctx)
        state = state.model_copy(update={"steps": (*state.steps, step_result)})
        return state, self._add_step(results, step_result)

    @staticmethod
    def _add_measurement(results: TestResults, m: Measurement) -> TestResults:
        return TestResults(measurements={**results.measurements, m.workload.name: m}, steps=results.steps)

    @staticmethod
    def _add_step(results: TestResults, step: StepResult) -> TestResults:
        name = step.step.name
        # Several steps of one kind in a plan are told apart by their position.
        key = name if name not in results.steps else f"{name}-{len(results.steps)}"
        return TestResults(measurements=results.measurements, steps={**results.steps, key: step})

    def _save(self, record: RunRecord, state: TestRecord) -> RunRecord:
        record = record.with_test(state)
        self.bundle.write_run(record)
        return record

    def _fail(self, record: RunRecord, state: TestRecord, status: str, error: str) -> None:
        state = state.model_copy(update={"status": status, "error": error, "finished_utc": utc_now()})
        record = record.with_test(state).model_copy(update={"status": status, "error": error})
        self.bundle.write_run(record)

    def _resume_hint(self, what: str) -> str:
        prefix = f"{what}; " if what else ""
        return (
            f"{prefix}measurements so far are kept in {self.bundle.path}; "
            f"resume with `ssdlab run --resume {self.bundle.path}`"
        )


def load_for_resume(path: Path) -> tuple[Bundle, RunRecord]:
    bundle = Bundle(path)
    record = bundle.load_run()
    if record.status == "complete":
        raise BundleError(f"{path} is complete; nothing to resume (start a new run instead)")
    return bundle, record

