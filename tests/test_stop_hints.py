"""A stopped run offers `ssdlab run --resume` only when a resume can get past what stopped it.

A resume writes into the same bundle, keeps the run's parameters and analyses the same
measurements again: a stop caused by one of those (a link planted in the bundle, a trace file
gone, a bug in an analysis, a file system that says no) comes back on every resume until it is
put right, so the message says that and what to do, not "resume with …" (QA: it did, and the
command printed stopped the same way). A stop a resume gets past still offers it.
"""

from __future__ import annotations

import errno
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from run_helpers import stopping
from ssdlab.bundle import Bundle, MeasurementRef, RunRecord
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import BundleError, EngineError, FileSystemError, InternalError, Interrupted, SsdlabError, UsageError
from ssdlab.measurement import Measurement
from ssdlab.methods import get_test
from ssdlab.run_events import NullObserver, PendingTest
from ssdlab.runner import Runner, new_record
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

ROUNDS = SuiteEntry(name="c", test="consistency", params={"runtime_s": 10, "round_s": 2, "until_steady": True})
LINEAR = ["--test", "linear", "--no-report", "--no-library"]
OFFERED = "resume with `ssdlab run --resume"
BLOCKED = "stops the same way until the bundle is put right"


def stopped_bundle(path: Path) -> Bundle:
    """A run on the fake engine stopped (as by Ctrl-C) in its third round, ready to resume."""
    target, engine = parse_target("fake:"), stopping(FakeEngine, "torture-r003")
    bundle = Bundle(path)
    with pytest.raises(Interrupted, match="resume with"):
        Runner(bundle, target, engine).run(new_record(target, engine, None, [ROUNDS], {}, {}))
    return bundle


def error_line(result: Any) -> str:
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert result.code == 2 and len(lines) == 1, (result.code, result.stderr)
    return lines[0]


def plant_link(bundle: Path, where: str, outside: Path) -> Path:
    """Replace the bundle's folder `where` (and what it held) by a link to a folder outside."""
    path = bundle / where
    if path.exists():
        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(outside)
    return path


@pytest.mark.parametrize("where", ["measurements/c", "measurements", "series/c", "series"])
def test_a_link_planted_in_the_bundle_is_not_answered_with_a_resume(cli: Callable[..., Any], tmp_path: Path,
                                                                    where: str) -> None:
    bundle = stopped_bundle(tmp_path / "b")
    outside = tmp_path / "outside"
    outside.mkdir()
    link = plant_link(bundle.path, where, outside)
    said = error_line(cli("run", "--resume", str(bundle.path), "--no-report", "--no-library"))
    assert f"{link} is a link to {outside}" in said and "remove it" in said
    assert OFFERED not in said and f"`ssdlab run --resume {bundle.path}` {BLOCKED}" in said
    # What it says is so: the resume it names stops the same way, until the link is gone.
    assert error_line(cli("run", "--resume", str(bundle.path), "--no-report", "--no-library")) == said
    assert list(outside.iterdir()) == [] and bundle.load_run().status == "failed"
    link.unlink()
    assert cli("run", "--resume", str(bundle.path), "--no-report", "--no-library").code == 0
    assert bundle.load_run().status == "complete"


@pytest.mark.fio
@pytest.mark.parametrize("plant", ["raw folder is a link", "output file is a folder"])
def test_a_fio_run_whose_raw_files_are_planted_is_not_answered_with_a_resume(cli: Callable[..., Any],
                                                                             tmp_path: Path, plant: str) -> None:
    """fio writes its job file, output and logs under raw/TEST/ACTION: a link there, or a folder
    where fio writes its output, is refused, and so is every resume until it is removed."""
    bundle = tmp_path / "b"
    # purge, write pass, read pass: a resume after the first two runs the read pass again
    assert cli("run", *LINEAR, "-t", f"file:{tmp_path / 'x.img'}?size=16m", "-o", str(bundle)).code == 0
    run = Bundle(bundle).load_run()
    test = run.tests[0]
    Bundle(bundle).write_run(run.model_copy(update={"status": "interrupted", "tests": (test.model_copy(update={
        "status": "interrupted", "action_outcomes": test.action_outcomes[:2]}),)}))
    outside = tmp_path / "outside"
    outside.mkdir()
    if plant == "raw folder is a link":
        planted = plant_link(bundle, "raw/linear", outside)
    else:
        action = test.measurements[-1].name  # one the resume runs again
        planted = bundle / "raw" / "linear" / action / f"{action}.json"
        planted.unlink()
        planted.mkdir()
    said = error_line(cli("run", "--resume", str(bundle), "--no-report", "--no-library"))
    assert str(planted) in said and "remove it" in said
    assert OFFERED not in said and BLOCKED in said
    assert list(outside.iterdir()) == []
    planted.unlink() if planted.is_symlink() else planted.rmdir()
    assert cli("run", "--resume", str(bundle), "--no-report", "--no-library").code == 0


SIM = "sim:sm951-nvme-256?capacity_gib=16"


def test_a_stop_whose_drive_cannot_be_saved_is_recorded_and_says_what_to_do(tmp_path: Path) -> None:
    """state/ a link: saving the stopped simulated drive was refused (right), but that refusal
    replaced the stop: run.json stayed "running" and the message offered nothing."""
    pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
    from ssdlab.engines.sim import SimEngine

    target, engine = parse_target(SIM), stopping(SimEngine, "torture-r002")
    bundle = Bundle(tmp_path / "b")
    outside = tmp_path / "outside"
    outside.mkdir()
    bundle.path.mkdir()
    (bundle.path / "state").symlink_to(outside)
    entry = SuiteEntry(name="c", test="consistency", params={"runtime_s": 160, "until_steady": True})
    with pytest.raises(Interrupted) as stopped:
        Runner(bundle, target, engine).run(new_record(target, engine, None, [entry], {}, {}))
    said = str(stopped.value)
    assert said.startswith("interrupted by the user; measurements so far are kept in")
    assert f"but not the simulated drive: {bundle.path / 'state'} is a link to {outside}" in said
    assert f"once that is put right, resume with `ssdlab run --resume {bundle.path}`" in said
    run = bundle.load_run()
    assert run.status == "interrupted" and run.test("c").status == "interrupted"
    assert "the simulated drive was not kept" in (run.error or "")
    assert list(outside.iterdir()) == []


def test_a_failure_in_the_analysis_says_a_resume_fails_the_same_way(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A resume analyses the very measurements again (every step had run): a bug there comes back."""
    def broken(*args: Any) -> Any:
        raise ValueError("a round needs at least one sample")

    monkeypatch.setattr(type(get_test("consistency")), "analyze", broken)
    target, engine = parse_target("fake:"), FakeEngine()
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(InternalError) as failed:
        Runner(bundle, target, engine).run(new_record(target, engine, None, [ROUNDS], {}, {}))
    said = str(failed.value)
    assert said.startswith("c: internal error: ValueError: a round needs at least one sample;")
    assert OFFERED not in said
    assert "analyses the same measurements again and fails the same way: it is a bug in ssdlab" in said
    with pytest.raises(InternalError, match="analyses the same measurements again"):
        Runner(bundle, parse_target("fake:"), engine).run(bundle.load_run())


class DeletesTrace(NullObserver):
    """Removes the trace file as the test starts: after the run was planned, before the replay."""

    def __init__(self, trace: Path) -> None:
        self.trace = trace

    def test_started(self, index: int, test: PendingTest) -> None:
        self.trace.unlink()


def test_a_trace_file_gone_mid_run_says_a_resume_stops_the_same_way(cli: Callable[..., Any], tmp_path: Path) -> None:
    trace = tmp_path / "light.parquet"
    assert cli("trace", "generate", "light", "--scale", "0.001", "-o", str(trace)).code == 0
    target, engine = parse_target("fake:?capacity=2g"), FakeEngine()
    entry = SuiteEntry(name="trace", test="trace", params={"trace": str(trace)})
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(UsageError) as failed:
        Runner(bundle, target, engine, DeletesTrace(trace)).run(new_record(target, engine, None, [entry], {}, {}))
    said = str(failed.value)
    assert str(trace) in said and OFFERED not in said
    assert "keeps the run's parameters (--param cannot change them) and stops the same way" in said
    assert "no such trace file" in error_line(cli("run", "--resume", str(bundle.path), "--no-report"))


class DeletesTraceEarlier(NullObserver):
    """Removes the trace file as the test before the trace test starts."""

    def __init__(self, trace: Path) -> None:
        self.trace = trace

    def test_started(self, index: int, test: PendingTest) -> None:
        if test.name != "trace":
            self.trace.unlink()


def test_a_trace_file_gone_while_a_test_before_it_runs_is_recorded(cli: Callable[..., Any], tmp_path: Path) -> None:
    """QA: deleted while wsat ran, the trace test's parameters were refused before anything kept the
    stop: exit 2 with no hint, and run.json said "running"."""
    trace = tmp_path / "light.parquet"
    assert cli("trace", "generate", "light", "--scale", "0.001", "-o", str(trace)).code == 0
    target, engine = parse_target("fake:?capacity=2g"), FakeEngine()
    entries = [SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 1}),
               SuiteEntry(name="trace", test="trace", params={"trace": str(trace)})]
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(UsageError) as failed:
        Runner(bundle, target, engine, DeletesTraceEarlier(trace)).run(new_record(target, engine, None, entries, {},
                                                                                  {}))
    said = str(failed.value)
    assert said.startswith(f"test trace: parameter trace={trace} names no file (no such trace file)") \
        and f"kept in {bundle.path}" in said
    assert "put back what it names, or start a new run" in said and OFFERED not in said
    run = bundle.load_run()
    assert run.status == "failed" and "no such trace file" in (run.error or "")
    assert run.test("quick").status == "complete"


def test_a_file_system_that_refuses_the_bundle_says_a_resume_stops_the_same_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def full(self: Bundle, test: str, role: str, m: Measurement) -> MeasurementRef:
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path / "measurements"))

    bundle = stopped_bundle(tmp_path / "b")
    monkeypatch.setattr(Bundle, "write_measurement", full)
    with pytest.raises(FileSystemError) as failed:  # was an InternalError: "internal error: OSError"
        Runner(bundle, parse_target("fake:"), FakeEngine()).run(bundle.load_run())
    said = str(failed.value)
    assert f"No space left on device: {bundle.path / 'measurements'}" in said and OFFERED not in said
    assert "internal error" not in said
    assert "stops the same way until that is put right (check the path, its permissions and free space)" in said


def test_a_stop_that_cannot_be_recorded_still_tells_the_failure_and_the_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """QA (a 256 KiB tmpfs): the disk filled while a measurement was written, then again while the
    stop was recorded in run.json; the run said only "No space left on device: run.json", not what
    had failed, what was kept, nor the resume. run.json keeps what it last held, which a resume
    takes up once there is room."""
    def full(self: Bundle, test: str, role: str, m: Measurement) -> MeasurementRef:
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path / "measurements" / "m.json"))

    write_run = Bundle.write_run

    def full_at_the_stop(self: Bundle, record: RunRecord) -> None:
        if record.status == "failed":
            raise OSError(errno.ENOSPC, "No space left on device", str(self.run_file))
        write_run(self, record)

    bundle = stopped_bundle(tmp_path / "b")
    monkeypatch.setattr(Bundle, "write_measurement", full)
    monkeypatch.setattr(Bundle, "write_run", full_at_the_stop)
    with pytest.raises(FileSystemError) as failed:
        Runner(bundle, parse_target("fake:"), FakeEngine()).run(bundle.load_run())
    said = str(failed.value)
    assert said.startswith(f"c: No space left on device: {bundle.path / 'measurements' / 'm.json'}; ")
    assert f"kept in {bundle.path}, but not this stop's record (No space left on device: {bundle.run_file})" in said
    assert f"`ssdlab run --resume {bundle.path}`" in said
    assert bundle.load_run().status == "running"


@pytest.mark.parametrize("error", [EngineError("fio exited 1: boom"), BundleError("x")])
def test_only_what_a_resume_meets_again_drops_the_offer(tmp_path: Path, error: SsdlabError) -> None:
    """An engine that failed may not next time: its stop still offers the resume."""
    class Failing(FakeEngine):
        def measure(self, *args: Any) -> Measurement:
            raise error

    target, engine = parse_target("fake:"), Failing()
    with pytest.raises(type(error)) as failed:
        Runner(Bundle(tmp_path / "b"), target, engine).run(new_record(target, engine, None, [ROUNDS], {}, {}))
    assert (OFFERED in str(failed.value)) is isinstance(error, EngineError)


def test_a_full_disk_between_tests_says_where_the_measurements_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A write of run.json outside a test's own handler (the next test's start) that the disk
    refuses: one error with what was kept and the resume, not the bare "No space left on device"."""
    write_run = Bundle.write_run

    def full_at_the_second(self: Bundle, record: RunRecord) -> None:
        if any(t.name == "q2" and t.status == "running" for t in record.tests):
            raise OSError(errno.ENOSPC, "No space left on device", str(self.run_file))
        write_run(self, record)

    quick = {"runs": 1, "runtime_s": 1}
    entries = [SuiteEntry(name="q1", test="quick", params=quick), SuiteEntry(name="q2", test="quick", params=quick)]
    target, engine = parse_target("fake:?capacity=2g"), FakeEngine()
    bundle = Bundle(tmp_path / "b")
    monkeypatch.setattr(Bundle, "write_run", full_at_the_second)
    with pytest.raises(FileSystemError) as failed:
        Runner(bundle, target, engine).run(new_record(target, engine, None, entries, {}, {}))
    said = str(failed.value)
    assert said.startswith(f"No space left on device: {bundle.run_file}; measurements so far are kept in {bundle.path}")
    assert f"`ssdlab run --resume {bundle.path}` stops the same way until that is put right" in said
    assert bundle.load_run().test("q1").status == "complete"
