"""Make a stopped simulated run's drive again when its bundle holds no usable saved drive.

A kill -9 saves no drive, and a full disk or a damaged state/ loses it. The simulator is
deterministic, so the drive the run left is had again by simulating every action the run
finished, in order, on a fresh drive with the run's seed, each checked to give the result the
bundle holds (docs/simulator.md, "Snapshots and resume"). The runner decides what a resume does with the outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ssdlab.bundle import Bundle, MeasurementRef, RunRecord, TestRecord
from ssdlab.engines.base import Engine, RunContext
from ssdlab.errors import Interrupted, SsdlabError, stoppable
from ssdlab.measurement import Measurement
from ssdlab.methods.base import Action, Measure, TestPlan
from ssdlab.planning import plan_entry, shared_plan
from ssdlab.resume import label
from ssdlab.steps import StepResult
from ssdlab.suites import SuiteEntry
from ssdlab.targets.base import MeasuredRates, Target, TargetInfo


@runtime_checkable
class RebuildsDrive(Protocol):
    """An engine whose drive can be made again by simulating what it did on a fresh one (the
    simulator is deterministic): a resume without a usable saved drive rebuilds it so."""

    def reset_state(self, target: Target) -> None: ...
    def rebuilt_state(self, target: Target) -> None: ...


@runtime_checkable
class CachesPreparation(Protocol):
    """An engine that can restore a test's preparation from a cache instead of running it (the
    runner's, and a rebuild's of a test that prepared the drive itself)."""

    def prep_key(self, target: Target, actions: Sequence[str]) -> str: ...
    def cached_prep(self, target: Target, key: str) -> list[dict[str, Any]] | None: ...
    def store_prep(self, target: Target, key: str, records: Sequence[dict[str, Any]], wall_s: float,
                   ) -> str | None: ...


class RebuildFailed(Exception):
    """The drive a stopped run left could not be made again (why: the message)."""


@dataclass(frozen=True)
class Rebuilt:
    """A drive made again: the stopped test continues after its first `upto` actions."""

    test: str
    upto: int
    count: int  # actions simulated again, of every test up to the stopped one
    cached: int = 0  # of them, those of preparations restored from the cache of prepared drives


# Told after each action simulated again: (done, total). A rebuild takes as long as the run did
# so far, so the display shows it (a resume that sat silent for minutes looked hung).
RebuildProgress = Callable[[int, int], None]


@dataclass
class DriveRebuild:
    """Simulates a run's finished actions again, on the engine's drive as it is (reset it first)."""

    bundle: Bundle
    target: Target
    engine: Engine
    rates: MeasuredRates | None
    target_facts: TargetInfo  # read once as the resume began (Runner._run): its plans and engine take them
    told: RebuildProgress

    def run(self, record: RunRecord, first: TestRecord) -> Rebuilt:
        """Simulate the finished actions of the tests before `first` and of `first` (none of its own
        when one of its measurements cannot be read: it restarts); raises RebuildFailed."""
        info = self.target_facts.model_copy(update={"measured_rates": self.rates})
        ran = record.tests[:[t.name for t in record.tests].index(first.name) + 1]
        upto = {t.name: 0 if t.name == first.name and unreadable(self.bundle, t) else len(t.action_outcomes)
                for t in ran}
        total = sum(t.action_outcomes[:upto[t.name]].count("done") for t in ran)
        done = cached = 0
        for test in ran:
            done, cached = self._test_again(test, info, upto[test.name], done, total, cached)
        return Rebuilt(first.name, upto[first.name], done, cached)


    def _test_again(self, test: TestRecord, info: TargetInfo, upto: int, done: int, total: int,
                    cached: int) -> tuple[int, int]:
        """Simulate the first `upto` actions of `test` as they ran (skipped ones skipped), each
        compared with its result in the bundle; the counts of actions done so far in the rebuild,
        and of those restored from the cache of prepared drives (_cached_prep)."""
        try:
            plan = plan_entry(SuiteEntry(name=test.name, test=test.test), test.params, info)
        except SsdlabError as err:  # e.g. its trace file gone since
            raise RebuildFailed(f"{test.name} cannot be planned again: {err}") from None
        if test.start is not None and test.start.shared_from is not None:
            plan = shared_plan(plan)
        if upto > len(plan.actions):
            raise RebuildFailed(f"{test.name} has {upto} steps recorded, and its plan {len(plan.actions)}")
        measured = {ref.name: ref for ref in test.measurements}
        steps = iter(test.steps)
        restored = self._cached_prep(test, plan, upto, measured, steps)
        for number, outcome in enumerate(test.action_outcomes[:upto]):
            if outcome != "done":
                continue
            if number < restored:
                done, cached = done + 1, cached + 1
                self.told(done, total)
                continue
            action = plan.actions[number]
            kept = self._kept_result(test, action, measured, steps)
            if self._do_again(test.name, action).model_dump_json() != kept:
                raise RebuildFailed(f"simulating {test.name}'s {label(plan.actions, number)} again gave other "
                                    "results than the bundle holds")
            done += 1
            self.told(done, total)
        return done, cached

    def _cached_prep(self, test: TestRecord, plan: TestPlan, upto: int, measured: Mapping[str, MeasurementRef],
                     steps: Iterator[StepResult]) -> int:
        """The test's own preparation restored from the cache of prepared drives, as the runner
        restores it (Runner._actions), when the test ran all of it and the cache holds the drive it
        made from this very drive (the key is the drive's history and the preparation's actions):
        its actions' count, else 0. Each of their results is the bundle's, as a simulated one must be."""
        prep, engine = plan.prep_actions, self.engine
        if not prep or upto < prep or not isinstance(engine, CachesPreparation):
            return 0
        actions = plan.actions[:prep]
        records = engine.cached_prep(self.target, engine.prep_key(self.target, [a.model_dump_json() for a in actions]))
        if records is None:
            return 0
        # The drive is the cached one from here: records that are not the bundle's fail the rebuild
        # (it goes on on a fresh drive), as simulating the actions to other results does.
        if len(records) != prep:
            raise RebuildFailed(f"the cache's prepared drive of {test.name} has {len(records)} steps, and its "
                                f"preparation {prep}")
        for number, (action, rec) in enumerate(zip(actions, records, strict=True)):
            outcome = test.action_outcomes[number]
            if rec.get("outcome") != outcome or (
                    outcome == "done" and rec.get("result") != self._kept_result(test, action, measured, steps)):
                raise RebuildFailed(f"the cache's prepared drive of {test.name} gave other results for "
                                    f"{label(plan.actions, number)} than the bundle holds")
        return prep

    def _kept_result(self, test: TestRecord, action: Action, measured: Mapping[str, MeasurementRef],
                     steps: Iterator[StepResult]) -> str:
        """The result the bundle holds for a finished action, as JSON (what simulating it again must give)."""
        if not isinstance(action, Measure):
            step = next(steps, None)
            if step is None:
                raise RebuildFailed(f"{test.name} has fewer steps recorded than it finished")
            return step.model_dump_json()
        ref = measured.get(action.name)
        problem = "it is not recorded" if ref is None else self.bundle.measurement_problem(ref)
        if ref is None or problem is not None:
            raise RebuildFailed(f"{test.name}'s measurement {action.name} cannot be read ({problem})")
        return self.bundle.load_measurement(ref).model_dump_json()

    def _do_again(self, test: str, action: Action) -> Measurement | StepResult:
        return do_again(self.engine, self.target, self.bundle, test, action, self.target_facts)


def unreadable(bundle: Bundle, test: TestRecord) -> str | None:
    """Why a stopped test cannot continue from its measurements (one is damaged or gone: a disk
    that filled, a hand edit), or None; it then restarts rather than failing (the runner), and a
    rebuild simulates none of its own actions."""
    for ref in test.measurements:
        problem = bundle.measurement_problem(ref)
        if problem is not None:
            return f"its measurement {ref.name} cannot be read ({problem})"
    return None


def do_again(engine: Engine, target: Target, bundle: Bundle, test: str, action: Action,
             target_facts: TargetInfo | None) -> Measurement | StepResult:
    """A finished action simulated again, unseen (its result is in the bundle), to bring a drive
    to where a run left it (a rebuild here, the runner's replay of a restored test's actions); a
    stop raises Interrupted with its reason."""
    ctx = RunContext(raw_dir=bundle.raw_dir(test, action.name), bundle_dir=bundle.path,
                     progress=lambda update: None, target_facts=target_facts)
    with stoppable():
        if isinstance(action, Measure):
            again = engine.measure(target, action.workload, ctx)
            if again.interrupted:  # the engine took the Ctrl-C and returned what it did until then
                raise Interrupted(again.error or "interrupted")
            return again
        return engine.step(target, action, ctx)
