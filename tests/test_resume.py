"""--resume continues inside a test where the drive's state allows, and says what it redoes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from run_helpers import stopping
from ssdlab.bundle import Bundle
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import Interrupted
from ssdlab.methods.base import Measure
from ssdlab.resume import repeatable, resume_point
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
             ) -> tuple[Any, Bundle]:
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
    Runner(bundle, parse_target(SIM), engine).run(bundle.load_run())  # a new process: a fresh drive object
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


@pytest.mark.parametrize("how", LOST_DRIVES)
def test_a_saved_drive_a_resume_cannot_use_restarts_the_test_and_says_why(tmp_path: Path, how: str) -> None:
    damage, says = LOST_DRIVES[how]
    engine, bundle = _sim_run(tmp_path, "torture-r002", damage)
    assert engine.ran[0] == "fill-p1"
    test = bundle.load_run().test("consistency")
    assert test.status == "complete"
    note = next(n for n in test.notes if "restarts from its first step" in n)
    assert all(part in note for part in says), note
    assert "missing or cannot be read" not in note and "not kept between runs" not in note, note


def test_a_shared_start_whose_saved_drive_is_behind_a_link_says_so(tmp_path: Path) -> None:
    """The test after another, resumed without the drive that one left: the link is the cause,
    not a drive "lost when the run stopped" (it was saved)."""
    _, bundle = _sim_run(tmp_path, "after-trim", _moved_out(""))
    trim = bundle.load_run().test("trim-validation")
    assert trim.status == "complete" and trim.start is not None and trim.start.shared_from is None
    assert "the state consistency left cannot be restored" in trim.start.reason, trim.start.reason
    assert "state is a link to" in trim.start.reason and "lost when the run stopped" not in trim.start.reason
