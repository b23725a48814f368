"""--resume continues inside a test where the drive's state allows, and says what it redoes."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from run_helpers import stopping
from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import Interrupted, UsageError
from ssdlab.methods.base import Measure
from ssdlab.resume import repeatable, resume_point
from ssdlab.run_events import NullObserver, RunObserver
from ssdlab.runner import Runner, new_record
from ssdlab.steps import Idle, Purge
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target
from ssdlab.workload import Workload


def measure(name: str, pattern: str, role: str = "measure", group: str | None = None) -> Measure:
    return Measure(workload=Workload(name=name, pattern=pattern, block_size_bytes=4096, runtime_s=1),
                   role=role, group=group)  # type: ignore[arg-type]


PLAN = (
    Purge(), measure("fill", "write", role="precondition"), measure("clean", "write"),
    measure("read-back", "read"), measure("r001", "randwrite", group="torture"), Idle(seconds=1),
)


@pytest.mark.parametrize(("index", "expected"), [(0, True), (1, True), (2, False), (3, True), (4, True), (5, True)])
def test_which_actions_can_be_repeated_after_a_partial_run(index: int, expected: bool) -> None:
    assert repeatable(PLAN[index]) is expected


def test_resume_points() -> None:
    assert resume_point(PLAN, 0, keeps_state=True).index == 0
    fill = resume_point(PLAN, 1, keeps_state=True)
    assert fill.index == 1 and "step 2 (fill)" in fill.reason
    clean = resume_point(PLAN, 2, keeps_state=True)  # a measured write from a known state: back to the purge
    assert clean.index == 0 and "step 3 (clean)" in clean.reason and "step 1" in clean.reason
    assert resume_point(PLAN, 4, keeps_state=True).index == 4
    assert resume_point(PLAN, 6, keeps_state=True).index == 6
    sim = resume_point(PLAN, 4, keeps_state=False)
    assert sim.index == 0 and "not kept" in sim.reason


ROUNDS = SuiteEntry(name="c", test="consistency", params={"runtime_s": 10, "round_s": 2, "until_steady": True})
SINGLE = SuiteEntry(name="c", test="consistency", params={"runtime_s": 10})


def interrupted_then_resumed(tmp_path: Path, entry: SuiteEntry, stop: str) -> tuple[Any, Bundle]:
    target, engine = parse_target("fake:"), stopping(FakeEngine, stop)
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(Interrupted):
        Runner(bundle, target, engine).run(new_record(target, engine, None, [entry], {}, {}))
    engine.ran.clear()
    Runner(bundle, target, engine).run(bundle.load_run())
    return engine, bundle


def test_a_round_based_test_resumes_at_the_interrupted_round(tmp_path: Path) -> None:
    engine, bundle = interrupted_then_resumed(tmp_path, ROUNDS, "torture-r003")
    assert engine.ran[0] == "torture-r003"  # no purge, no fill, no earlier rounds again
    test = bundle.load_run().test("c")
    assert test.status == "complete"
    names = [ref.name for ref in test.measurements]
    assert names[:3] == ["fill-p1", "torture-r001", "torture-r002"] and names.count("torture-r003") == 1
    assert any("resumed: continues at step" in note and "torture-r003" in note for note in test.notes)
    assert test.metrics["runtime_s"] == 10.0  # every round is in the analysis


def test_a_single_torture_goes_back_to_the_purge_and_says_why(tmp_path: Path) -> None:
    engine, bundle = interrupted_then_resumed(tmp_path, SINGLE, "torture")
    assert engine.ran == ["fill-p1", "torture"]
    test = bundle.load_run().test("c")
    assert test.status == "complete" and [r.name for r in test.measurements] == ["fill-p1", "torture"]
    assert len(test.steps) == 1  # one purge, not the old one kept beside the new one
    assert any("goes back to step 1 (purge" in note for note in test.notes)


@pytest.mark.parametrize("damage", ["cut short", "gone"])
def test_a_damaged_measurement_restarts_its_test_instead_of_failing_the_resume(tmp_path: Path, damage: str) -> None:
    target, engine = parse_target("fake:"), stopping(FakeEngine, "torture-r003")
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(Interrupted):
        Runner(bundle, target, engine).run(new_record(target, engine, None, [ROUNDS], {}, {}))
    kept = bundle.path / bundle.load_run().test("c").measurements[1].file
    kept.write_text("{") if damage == "cut short" else kept.unlink()
    engine.ran.clear()
    Runner(bundle, target, engine).run(bundle.load_run())
    assert engine.ran[:2] == ["fill-p1", "torture-r001"]  # from the first step, over the damaged file
    test = bundle.load_run().test("c")
    assert test.status == "complete" and test.metrics["runtime_s"] == 10.0
    assert any("measurement torture-r001 cannot be read" in n and "restarts from its first step" in n
               for n in test.notes)
    assert all(bundle.measurement_problem(ref) is None for ref in test.measurements)


class SimStop:
    """A simulator engine that stops (like Ctrl-C) inside the measurement named `stop`, once."""

    @staticmethod
    def make(stop: str | None) -> Any:
        from ssdlab.engines.sim import SimEngine

        return stopping(SimEngine, stop)


SIM_SUITE = [
    SuiteEntry(name="consistency", test="consistency", params={"runtime_s": 160, "until_steady": True}),
    SuiteEntry(name="trim-validation", test="trim-validation",
               params={"torture_runtime_s": 160, "seq_runtime_s": 2}),
]
SIM = "sim:sm951-nvme-256?capacity_gib=16"


def _sim_run(tmp_path: Path, stop: str | None, damage: Callable[[Path], None] | None = None,
             observer: RunObserver | None = None) -> tuple[Any, Bundle]:
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    target, engine, bundle = parse_target(SIM), SimStop.make(stop), Bundle(tmp_path / "b")
    if stop is None:
        Runner(bundle, target, engine).run(new_record(target, engine, None, SIM_SUITE, {}, {}))
        return engine, bundle
    with pytest.raises(Interrupted):
        Runner(bundle, target, engine).run(new_record(target, engine, None, SIM_SUITE, {}, {}))
    assert (bundle.path / "state" / "drive.snap").is_file()  # the stopped run kept its drive
    if damage is not None:
        damage(bundle.path / "state")
    engine.ran.clear()
    resumed = Runner(bundle, parse_target(SIM), engine, observer or NullObserver())
    resumed.run(bundle.load_run())  # a new process: a fresh drive object
    return engine, bundle


@pytest.mark.parametrize("stop", ["torture-r002", "after-trim"])
def test_a_simulated_run_resumed_on_its_saved_drive_measures_what_an_uninterrupted_one_does(
    tmp_path: Path, stop: str,
) -> None:
    engine, resumed = _sim_run(tmp_path / "stopped", stop)
    # The drive saved as the stopped test began is brought to the interrupted action by
    # simulating that test's finished actions again; earlier tests are not re-run.
    assert engine.ran.count(stop) == 1 and "clean" in engine.ran
    assert (engine.ran[0] == "fill-p1") is stop.startswith("torture")
    _, whole = _sim_run(tmp_path / "whole", None)
    got, want = resumed.load_run(), whole.load_run()
    for name in ("consistency", "trim-validation"):
        assert got.test(name).status == "complete"
        assert got.test(name).metrics == want.test(name).metrics, name
    trim = got.test("trim-validation")
    assert trim.start is not None and trim.start.shared_from == "consistency"
    stopped = got.test("consistency" if stop.startswith("torture") else "trim-validation")
    assert any("restored as the run saved it" in n for n in stopped.notes)
    assert not (resumed.path / "state").exists()  # a finished run drops its saved drive, folder and all


def _moved_out(rel: str) -> Callable[[Path], None]:
    """Move state/ (or a file in it) out of the bundle and leave a link to it in its place."""
    def damage(state: Path) -> None:
        path = state / rel if rel else state
        outside = state.parent.parent / f"outside-{path.name}"
        path.rename(outside)
        path.symlink_to(outside)
    return damage


def _a_file_for_state(state: Path) -> None:
    shutil.rmtree(state)
    state.write_text("not a folder")


def _writes(name: str, data: bytes) -> Callable[[Path], None]:
    return lambda state: (state / name).write_bytes(data)


# Each way the saved drive cannot be used, and what the resume says about it: its own cause, never
# another's. QA: a state/ that is a link (refused: not the bundle's own) was "missing or cannot be
# read"; a save of another point in the run said the target's state "is not kept between runs".
LOST_DRIVES: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    "removed": (shutil.rmtree, ["no simulated drive was saved", "state does not exist"]),
    "state link": (_moved_out(""), ["state is a link to", "not the folder ssdlab wrote", "put that folder itself"]),
    "state file": (_a_file_for_state, ["state is a file, not the folder ssdlab wrote", "remove it"]),
    "snapshot link": (_moved_out("drive.snap"), ["drive.snap is a link to", "not the file ssdlab wrote"]),
    "snapshot gone": (lambda state: (state / "drive.snap").unlink(), ["drive.snap does not exist"]),
    "position damaged": (_writes("drive.json", b"[]"), ["drive.json is not a saved drive's position",
                                                        "expected a JSON object"]),
    "another point": (_writes("drive.json", b'{"test": "trim-validation", "done": 0}'),
                      ["saved in the bundle is where trim-validation stood after 0 steps",
                       "not where the run stopped (consistency after"]),
    # e.g. saved by a simulator of another snapshot format
    "not a snapshot": (_writes("drive.snap", b"not a snapshot of this format"), ["cannot be restored"]),
}


@pytest.fixture(scope="module")
def whole_sim_run(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """SIM_SUITE run without a stop: the figures every resume of it must end with."""
    return _sim_run(tmp_path_factory.mktemp("whole"), None)[1].load_run()


def _same_figures(bundle: Bundle, whole: Any) -> Any:
    got = bundle.load_run()
    assert got.status == "complete"
    for name in ("consistency", "trim-validation"):
        assert got.test(name).status == "complete"
        assert got.test(name).metrics == whole.test(name).metrics, name
    return got


@pytest.mark.parametrize("how", LOST_DRIVES)
def test_a_saved_drive_a_resume_cannot_use_is_rebuilt_and_the_note_says_why(
        tmp_path: Path, how: str, whole_sim_run: Any) -> None:
    """The drive is made again by simulating the run's finished actions (checked against the bundle's
    results), so the test continues where it stopped; the note names the cause, never another's."""
    damage, says = LOST_DRIVES[how]
    engine, bundle = _sim_run(tmp_path, "torture-r002", damage)
    assert engine.ran == ["fill-p1", "torture-r001", *engine.ran[2:]]  # simulated again to rebuild the drive
    assert engine.ran.count("torture-r002") == 1  # then on at the stopped round, not from the first step
    test = _same_figures(bundle, whole_sim_run).test("consistency")
    note = next(n for n in test.notes if "rebuilt by simulating the run's 3 finished actions again" in n)
    assert all(part in note for part in says), note
    assert "continues at step 4 (torture-r002) on the same drive" in note, note
    assert "missing or cannot be read" not in note and "not kept between runs" not in note, note
    assert not any("restarts from its first step" in n for n in test.notes)


def _as_killed(state: Path) -> None:
    """What kill -9 leaves: no drive saved, run.json as the run last wrote it, still "running"."""
    shutil.rmtree(state)
    run_file = state.parent / "run.json"
    record = Bundle(state.parent).load_run()
    running = tuple(t.model_copy(update={"status": "running", "error": None}) if t.status == "interrupted" else t
                    for t in record.tests)
    run_file.write_text(record.model_copy(update={"status": "running", "error": None, "tests": running})
                        .model_dump_json())


@pytest.mark.parametrize("stop", ["torture-r002", "after-trim"])
def test_a_run_killed_without_saving_its_drive_resumes_to_the_figures_of_one_not_stopped(
        tmp_path: Path, stop: str, whole_sim_run: Any) -> None:
    """QA: after kill -9 (no drive saved) the resume restarted the test on a fresh drive and ended
    "complete" with 33 as-ssd figures unlike an uninterrupted run's; the later test said nothing."""
    engine, bundle = _sim_run(tmp_path, stop, _as_killed)
    got = _same_figures(bundle, whole_sim_run)
    stopped = got.test("consistency" if stop.startswith("torture") else "trim-validation")
    assert any("the simulated drive was rebuilt" in n and "on the same drive" in n for n in stopped.notes)
    trim = got.test("trim-validation")
    assert trim.start is not None and trim.start.shared_from == "consistency"  # the state it shares was rebuilt
    assert engine.ran.count(stop) == 1


@pytest.mark.parametrize("stop", ["torture-r002", "after-trim"])
def test_a_rebuild_restores_a_preparation_the_cache_holds_and_resumes_to_the_same_figures(
        tmp_path: Path, stop: str, whole_sim_run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rebuild simulated a test's purge and fill again though the cache of prepared drives held
    the drive they made from this very one (the key is the drive's history and the steps), as the
    run itself restores it; it restores it, checks each result against the bundle's, and the
    resumed run ends with the figures of one never stopped."""
    from ssdlab.engines import sim as sim_engine

    monkeypatch.setattr(sim_engine, "MIN_PREP_WALL_S", 0.0)  # the small drive's fill is quick: stored all the same
    monkeypatch.setattr(sim_engine, "RESTORE_FACTOR", 0.0)
    observer = Rebuilding()
    engine, bundle = _sim_run(tmp_path, stop, _as_killed, observer)
    assert "fill-p1" not in engine.ran and engine.ran.count(stop) == 1  # restored, not simulated again
    got = _same_figures(bundle, whole_sim_run)
    stopped = got.test("consistency" if stop.startswith("torture") else "trim-validation")
    note = next(n for n in stopped.notes if "the simulated drive was rebuilt" in n)
    assert "(2 of them restored from the cache of prepared simulated drives, as simulating them left it)" in note
    total = observer.told[-1][1]
    assert observer.told == [(done, total) for done in range(1, total + 1)]  # the restored ones counted too


def test_a_cached_preparation_the_bundle_does_not_hold_fails_the_rebuild_as_a_simulated_one_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache entry whose results are not the bundle's (an edited sidecar): the drive is not the
    run's, so the resume goes on on a fresh drive, and says so, as when simulating gives others."""
    from ssdlab.engines import sim as sim_engine

    monkeypatch.setattr(sim_engine, "MIN_PREP_WALL_S", 0.0)
    monkeypatch.setattr(sim_engine, "RESTORE_FACTOR", 0.0)
    cached_prep = sim_engine.SimEngine.cached_prep

    def edited(self: Any, target: Any, key: str) -> Any:
        records = cached_prep(self, target, key)
        return None if records is None else [*records[:-1], {**records[-1], "result": "{}"}]

    def killed(state: Path) -> None:
        _as_killed(state)
        monkeypatch.setattr(sim_engine.SimEngine, "cached_prep", edited)

    _, bundle = _sim_run(tmp_path, "after-trim", killed)
    trim = bundle.load_run().test("trim-validation")
    fresh = next(n for n in trim.notes if "on a fresh simulated drive" in n)
    assert "the cache's prepared drive of consistency gave other results for step 2 (fill-p1)" in fresh, fresh


class Rebuilding(NullObserver):
    def __init__(self) -> None:
        self.told: list[tuple[int, int]] = []
        self.started_after: int | None = None

    def drive_rebuilding(self, done: int, total: int) -> None:
        self.told.append((done, total))

    def run_started(self, tests: Any) -> None:
        self.started_after = len(self.told)


def test_a_rebuild_tells_the_observer_how_far_it_has_got_before_the_run_starts(
        tmp_path: Path, whole_sim_run: Any) -> None:
    """A rebuild takes as long as the run so far did: a resume that sat silent for it looked hung."""
    observer = Rebuilding()
    _sim_run(tmp_path, "after-trim", _as_killed, observer)
    total = observer.told[-1][1]
    assert total > 3 and observer.told == [(done, total) for done in range(1, total + 1)]
    assert observer.started_after == total  # all of it before the run's own events


class Started(NullObserver):
    def __init__(self, reads: list[int]) -> None:
        self.reads, self.at_start = reads, -1

    def run_started(self, tests: Any) -> None:
        self.at_start = len(self.reads)


def test_a_resume_that_rebuilds_its_drive_reads_the_targets_facts_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The resume's checks (same simulator, same drive), the rebuild's plans and the run's actions
    each read target.info() again (4 reads before the run started; a block device's are sysfs reads
    and a smartctl call): it is read once and handed on."""
    from ssdlab.targets.sim import SimTarget

    reads: list[int] = []
    info = SimTarget.info

    def counted(self: SimTarget) -> Any:  # the run's reads, not the simulator engine's own of its capacity
        if not sys._getframe(1).f_code.co_filename.endswith("engines/sim.py"):
            reads.append(1)
        return info(self)

    monkeypatch.setattr(SimTarget, "info", counted)
    observer = Started(reads)

    def killed(state: Path) -> None:  # then the resume, in a new process: its reads from here
        _as_killed(state)
        reads.clear()

    _sim_run(tmp_path, "torture-r002", killed, observer)
    assert observer.at_start == 1
    test = Bundle(tmp_path / "b").load_run().test("consistency")
    assert any("rebuilt by simulating" in n for n in test.notes)


def test_a_drive_that_cannot_be_rebuilt_is_said_fresh_in_every_test_after(tmp_path: Path) -> None:
    """A finished measurement that simulating again does not give (a hand edit, another history):
    the resume goes on on a fresh drive, and says so; it never calls it the same drive."""
    def edited(state: Path) -> None:
        shutil.rmtree(state)
        record = Bundle(state.parent).load_run()
        ref = record.test("consistency").measurements[0]
        m = Bundle(state.parent).load_measurement(ref)
        (state.parent / ref.file).write_text(m.model_copy(update={"runtime_s": m.runtime_s + 1}).model_dump_json())

    _, bundle = _sim_run(tmp_path, "after-trim", edited)
    trim = bundle.load_run().test("trim-validation")
    assert trim.status == "complete"
    fresh = [n for n in trim.notes if "on a fresh simulated drive, not the one the run's earlier tests left" in n]
    assert fresh and "could not be rebuilt (simulating consistency's step 2 (fill-p1) again gave other" in fresh[0]
    assert "may differ" in fresh[0] and not any("same drive" in n for n in trim.notes), trim.notes


def test_a_shared_start_whose_saved_drive_is_behind_a_link_says_so(tmp_path: Path) -> None:
    """The test after another, resumed without the drive that one left: the link is the cause,
    not a drive "lost when the run stopped" (it was saved); the drive is rebuilt, so it still
    starts from the state the test before left."""
    _, bundle = _sim_run(tmp_path, "after-trim", _moved_out(""))
    trim = bundle.load_run().test("trim-validation")
    assert trim.status == "complete" and trim.start is not None and trim.start.shared_from == "consistency"
    note = next(n for n in trim.notes if "rebuilt" in n)
    assert "state is a link to" in note and "lost when the run stopped" not in note


@pytest.mark.parametrize("change", ["engine_version", "model_revision"])
def test_a_resume_under_another_simulator_is_refused_in_one_line(tmp_path: Path, change: str) -> None:
    """QA: a bundle whose model revision (or ssdsim version) was not this simulator's resumed with no
    refusal, and the finished run named one simulator though its tests ran under two."""
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.engines.sim import SimEngine
    from ssdlab.targets.sim import MODEL_REVISION

    target, engine, bundle = parse_target(SIM), SimEngine(), Bundle(tmp_path / "b")
    record = new_record(target, engine, None, SIM_SUITE, {}, {})
    if change == "engine_version":
        record = record.model_copy(update={"engine_version": "ssdsim-0.0.1"})
    else:
        extra = {**record.target.extra, MODEL_REVISION: 1}
        record = record.model_copy(update={"target": record.target.model_copy(update={"extra": extra})})
    record = record.model_copy(update={"status": "interrupted"})
    for attempt in (Runner(bundle, target, engine).preflight, Runner(bundle, target, engine).run):
        with pytest.raises(UsageError) as refused:
            attempt(record)
        text = str(refused.value)
        assert "a resume would mix two simulators in one run; start a new run" in text and "\n" not in text
        assert ("ssdsim-0.0.1" if change == "engine_version" else "model revision 1)") in text, text
    assert not bundle.path.exists()  # refused before anything was written


def test_a_resume_under_another_fio_version_says_so_in_each_test_it_runs(tmp_path: Path) -> None:
    """Another fio measures the same device: the resume goes on, and its tests say which fio measured them."""
    two = [SINGLE, SuiteEntry(name="d", test="consistency", params={"runtime_s": 10})]
    target, engine = parse_target("fake:"), stopping(FakeEngine, "torture")
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(Interrupted):
        Runner(bundle, target, engine).run(new_record(target, engine, None, two, {}, {}))
    bundle.write_run(bundle.load_run().model_copy(update={"engine_version": "fake-0"}))
    done = Runner(bundle, target, engine).run(bundle.load_run())
    assert done.status == "complete"
    for name in ("c", "d"):
        assert any("measured with fake-1, where the run began with fake-0" in n for n in done.test(name).notes), name


class RefusesWrites:
    """A target's write check that says "in use" from its `after`-th call on (a device mounted mid-test)."""

    def __init__(self, after: int) -> None:
        self.calls, self.after = 0, after

    def __call__(self) -> str | None:
        self.calls += 1
        return "fake: is in use (mounted at /mnt)" if self.calls >= self.after else None


def test_a_test_stopped_before_an_action_began_continues_at_that_action(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: a run refused before step 5 began (the device became busy) resumed with "step 5 … had
    started and changed the drive … the test goes back to step 1"; the run records that it had not."""
    from ssdlab.runner import InUse

    target, engine = parse_target("fake:"), FakeEngine()
    monkeypatch.setattr(target, "write_refusal", RefusesWrites(after=3))  # purge, fill, then the torture
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(InUse):
        Runner(bundle, target, engine).run(new_record(target, engine, None, [SINGLE], {}, {}))
    stopped = bundle.load_run().test("c")
    assert stopped.action_outcomes == ("done", "done") and stopped.action_began is False
    engine = stopping(FakeEngine, None)
    done = Runner(bundle, parse_target("fake:"), engine).run(bundle.load_run())
    assert engine.ran == ["torture"]  # not the purge and fill again
    test = done.test("c")
    assert test.status == "complete" and [r.name for r in test.measurements] == ["fill-p1", "torture"]
    assert any("continues at step 3 (torture), which had not begun when the run stopped" in n for n in test.notes)


def test_a_stop_between_actions_continues_at_the_next(tmp_path: Path) -> None:
    """QA: ^C between two workloads of qd-sweep redid all 23 finished steps."""
    from ssdlab.run_events import RunObserver

    class StopAfterFill(RunObserver):
        def action_finished(self, test: str, index: int, skipped: bool) -> None:
            if index == 1:
                raise KeyboardInterrupt

    target, engine = parse_target("fake:"), FakeEngine()
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(Interrupted):
        Runner(bundle, target, engine, StopAfterFill()).run(new_record(target, engine, None, [SINGLE], {}, {}))
    engine = stopping(FakeEngine, None)
    Runner(bundle, parse_target("fake:"), engine).run(bundle.load_run())
    assert engine.ran == ["torture"]


def test_an_action_that_had_begun_is_still_taken_as_changing_the_drive(tmp_path: Path) -> None:
    """The marker says when an action began: one stopped inside goes back to the purge, as before."""
    _, bundle = interrupted_then_resumed(tmp_path, SINGLE, "torture")
    assert any("goes back to step 1 (purge" in n for n in bundle.load_run().test("c").notes)


def test_an_old_bundle_without_the_marker_keeps_the_conservative_resume() -> None:
    assert resume_point(PLAN, 2, keeps_state=True, began=None).index == 0
    assert resume_point(PLAN, 2, keeps_state=True, began=True).index == 0
    assert resume_point(PLAN, 2, keeps_state=True, began=False).index == 2
    assert resume_point(PLAN, 2, keeps_state=False, began=False).index == 0  # the drive itself is gone


def test_a_run_ahead_folder_a_killed_run_left_is_removed_by_its_resume(tmp_path: Path) -> None:
    """QA: kill -9 while the second half ran ahead left .ahead/ in the bundle after the resume
    completed (`report B/.ahead` worked on it, `library add B/.ahead` offered to resume it)."""
    from ssdlab.runahead import AHEAD_DIR

    target, engine = parse_target("fake:"), stopping(FakeEngine, "torture")
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(Interrupted):
        Runner(bundle, target, engine).run(new_record(target, engine, None, [SINGLE], {}, {}))
    ahead = bundle.path / AHEAD_DIR
    (ahead / "measurements").mkdir(parents=True)
    shutil.copy(bundle.run_file, ahead / "run.json")
    Runner(bundle, target, engine).run(bundle.load_run())
    assert not ahead.exists()
