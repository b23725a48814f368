from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.base import RunContext
from ssdlab.engines.fake import FakeEngine, FakeProfile
from ssdlab.errors import EngineError, Interrupted, TargetError
from ssdlab.measurement import Measurement, OpTotals
from ssdlab.runner import NullObserver, Runner, new_record, run_entries
from ssdlab.suites import SuiteEntry
from ssdlab.targets.base import MeasuredRates, Target
from ssdlab.targets.fake import FakeTarget
from ssdlab.units import MIB
from ssdlab.workload import Workload

QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 2, "runtime_s": 2})


class StopAfter(FakeEngine):
    """Interrupts (like Ctrl-C inside an engine) or fails after `limit` measurements."""

    def __init__(self, limit: int, how: str) -> None:
        super().__init__()
        self.limit, self.how, self.count = limit, how, 0

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        self.count += 1
        if self.count > self.limit:
            if self.how == "fail":
                raise EngineError("fio exited 1: boom")
            partial = super().measure(target, workload, ctx)
            return partial.model_copy(update={"interrupted": True, "error": "interrupted by the user"})
        return super().measure(target, workload, ctx)


def _run(bundle_dir: Path, target: Target, engine: FakeEngine) -> Bundle:
    bundle = Bundle(bundle_dir)
    record = new_record(target, engine, "quick", [QUICK], {}, {})
    Runner(bundle, target, engine, NullObserver()).run(record)
    return bundle


def test_full_run_writes_bundle(bundle_dir: Path, fake_target: Target) -> None:
    bundle = _run(bundle_dir, fake_target, FakeEngine())
    record = bundle.load_run()
    assert record.status == "complete"
    test = record.test("quick")
    assert test.status == "complete"
    # 1 fill + 4 entries x 2 directions x (an unmeasured run + 2 runs)
    assert len(test.measurements) == 25
    assert test.metrics["seq1m_q8t1_read_mb_s"] == pytest.approx(1999.6, abs=0.1)
    assert test.metrics["rnd4k_q32t16_read_iops"] == 300_000.0
    assert (bundle.path / "series" / "quick" / "seq1m_q8t1-read-r1.csv").read_text().startswith("t_s,")
    assert record.host["engine"] == "fake" and record.host["kernel"]


def test_interrupt_keeps_measurements_and_resumes(bundle_dir: Path, fake_target: Target) -> None:
    with pytest.raises(Interrupted, match="--resume"):
        _run(bundle_dir, fake_target, StopAfter(5, "interrupt"))
    bundle = Bundle(bundle_dir)
    record = bundle.load_run()
    assert record.status == "interrupted"
    test = record.test("quick")
    assert test.status == "interrupted"
    assert len(test.measurements) == 6 and test.measurements[-1].interrupted
    assert bundle.load_measurement(test.measurements[-1]).interrupted
    # Resume: the unfinished test runs again from its start.
    finished = Runner(bundle, fake_target, FakeEngine(), NullObserver()).run(record)
    assert finished.status == "complete"
    assert len(finished.test("quick").measurements) == 25


def test_a_record_of_more_finished_steps_than_the_test_has_restarts_it(bundle_dir: Path, fake_target: Target) -> None:
    """QA (stop 45): a run.json counting 500 finished steps of quick (hand-edited, or written by an
    ssdlab whose test had more steps) crashed the resume ("zip() argument 2 is longer") and left
    the bundle marked running; the test now starts over, and says why."""
    with pytest.raises(Interrupted):
        _run(bundle_dir, fake_target, StopAfter(5, "interrupt"))
    bundle = Bundle(bundle_dir)
    record = bundle.load_run()
    test = record.test("quick")
    edited = record.with_test(test.model_copy(update={"action_outcomes": ("done",) * 500}))
    bundle.write_run(edited)
    finished = Runner(bundle, fake_target, FakeEngine(), NullObserver()).run(bundle.load_run())
    assert finished.status == "complete" and len(finished.test("quick").measurements) == 25
    assert any("counts 500 finished steps of quick, which has" in note for note in finished.test("quick").notes)


def test_engine_failure_is_recorded(bundle_dir: Path, fake_target: Target) -> None:
    with pytest.raises(EngineError, match=r"boom.*resume"):
        _run(bundle_dir, fake_target, StopAfter(3, "fail"))
    record = Bundle(bundle_dir).load_run()
    assert record.status == "failed"
    assert record.test("quick").error == "fio exited 1: boom"
    assert len(record.test("quick").measurements) == 3


class OddError(EngineError):
    """An error made with more than a message (as MissingBundle is): the runner cannot make another
    of its kind with its words added, so it says them as the kind above it (an EngineError)."""

    exit_code = 7

    def __init__(self, message: str, device: str) -> None:
        super().__init__(f"{device}: {message}")
        self.device = device


class FailsOddly(FakeEngine):
    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        raise OddError("the device went away", "/dev/nvme9n1")


class UnparsedTest:
    """A test whose parameters no longer parse when it is due (its trace file gone meanwhile)."""

    def __init__(self, test: object) -> None:
        self.test = test

    def parse_params(self, params: object) -> object:
        raise OddError("the trace file is gone", "/dev/nvme9n1")

    def __getattr__(self, name: str) -> object:
        return getattr(self.test, name)


def test_an_error_made_with_more_than_a_message_is_said_not_turned_into_a_type_error(
        bundle_dir: Path, fake_target: Target, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner rebuilt a failed test's error as type(err)(text): an error class whose constructor
    takes more than the text (MissingBundle) raised a TypeError in its place, an internal error
    instead of the one line that says what failed (errors.reworded)."""
    with pytest.raises(EngineError) as failed:
        _run(bundle_dir, fake_target, FailsOddly())
    # The test's name and the resume hint are said, with the error's own exit code.
    assert str(failed.value).startswith("quick: /dev/nvme9n1: the device went away; measurements so far are kept")
    assert f"--resume {bundle_dir}" in str(failed.value) and failed.value.exit_code == 7
    assert Bundle(bundle_dir).load_run().test("quick").error == "/dev/nvme9n1: the device went away"
    import ssdlab.runner

    real = ssdlab.runner.get_test
    monkeypatch.setattr(ssdlab.runner, "get_test", lambda name: UnparsedTest(real(name)))
    with pytest.raises(EngineError) as unparsed:
        _run(tmp := bundle_dir.with_name("unparsed"), fake_target, FakeEngine())
    assert str(unparsed.value).startswith("/dev/nvme9n1: the trace file is gone; ") and unparsed.value.exit_code == 7
    assert Bundle(tmp).load_run().error == "/dev/nvme9n1: the trace file is gone"


class LeavesWork(FakeTarget):
    """A target whose release cannot take down all it built (a --host run's file on a host gone)."""

    def release(self) -> None:
        raise TargetError("file:/srv/x: the run could not delete its file /srv/x.ssdlab-1-h1 on b:1: delete it there")


def test_what_releasing_the_target_left_is_said_with_why_the_run_stopped(tmp_path: Path) -> None:
    """A release that raised replaced the run's own error (a workload that failed lost its reason and
    its resume hint), and was the only word of a run that completed: it is said after either."""
    left = "; file:/srv/x: the run could not delete its file /srv/x.ssdlab-1-h1 on b:1: delete it there"
    with pytest.raises(EngineError) as failed:
        _run(tmp_path / "failed", LeavesWork("fake:"), StopAfter(3, "fail"))
    assert str(failed.value).startswith("quick: fio exited 1: boom; measurements so far are kept in ")
    assert str(failed.value).endswith(f"--resume {tmp_path / 'failed'}`{left}")
    with pytest.raises(Interrupted) as stopped:
        _run(tmp_path / "stopped", LeavesWork("fake:"), StopAfter(3, "interrupt"))
    assert "resume with" in str(stopped.value) and str(stopped.value).endswith(left)
    # A run that completed is not failed by it (that skipped its report and library entry): the
    # runner keeps it for the CLI to say beside them.
    target, engine = LeavesWork("fake:"), FakeEngine()
    runner = Runner(Bundle(tmp_path / "done"), target, engine, NullObserver())
    runner.run(new_record(target, engine, "quick", [QUICK], {}, {}))
    assert runner.left_behind == left.removeprefix("; ")
    assert Bundle(tmp_path / "done").load_run().status == "complete"


def test_the_eta_times_fills_at_the_rate_measured_on_the_device(tmp_path: Path, fake_target: Target) -> None:
    """`ssdlab run` passes the rates an earlier run measured (ssdlab.device_rates): the live
    ETA's fill estimate then uses them instead of the transport's guess."""
    engine = FakeEngine()
    entry = SuiteEntry(name="consistency", test="consistency", params={"max_rounds": 5})
    record = new_record(fake_target, engine, None, [entry], {}, {})
    rates = MeasuredRates(write_bytes_s=2e9, run_created_utc="2026-11-23T10:00:00Z", bundle="/r/b1")
    guessed, measured = (Runner(Bundle(tmp_path), fake_target, engine, rates=r).pending(record)[0]
                         for r in (None, rates))
    fill = [a.name for a in measured.plan.actions].index("fill-p1")
    assert measured.estimates_s[fill] == pytest.approx(fake_target.info().capacity_bytes / 2e9)
    assert guessed.estimates_s[fill] == pytest.approx(fake_target.info().capacity_bytes / 1.5e9)  # NVMe


def test_a_device_put_in_use_between_tests_stops_the_run_and_the_bundle_says_why(tmp_path: Path) -> None:
    """QA: a device mounted between two tests was refused (right), but run.json stayed "running"
    with no error and the message had no resume hint."""
    from ssdlab.bundle import Bundle
    from ssdlab.errors import SafetyError
    from ssdlab.targets.fake import FakeTarget

    class MountedLater(FakeTarget):
        asked = 0

        def authorize_writes(self, destroy: bool, confirmed_serial: str | None) -> None:
            type(self).asked += 1
            if type(self).asked > 2:  # the run's own check, the first test's; then it is mounted
                raise SafetyError(f"{self.spec} is in use (fake0 is mounted at /mnt)")

    entries = [SuiteEntry(name=t, test=t, params={"runtime_s": 1}) for t in ("mixed-random", "iometer-mixed")]
    with pytest.raises(SafetyError) as refused:
        run_entries(tmp_path / "b", MountedLater.from_spec("fake:?capacity=2g"), FakeEngine(), entries)
    assert "iometer-mixed: " in str(refused.value) and "resume with `ssdlab run --resume" in str(refused.value)
    record = Bundle(tmp_path / "b").load_run()
    assert record.status == "interrupted" and "mounted at /mnt" in (record.error or "")
    assert [t.status for t in record.tests] == ["complete", "pending"]


# ---- a real device put in use during a run (docs/safety.md: checked again before every write) ----


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.root
def test_a_device_mounted_between_two_workloads_stops_the_run_before_the_next_write(
        loop_device: tuple[str, Path], tmp_path: Path) -> None:
    """QA (A6): a device mounted during a test was written by the test's next workloads; only the
    authorised flag was checked again within a test, not the device."""
    import subprocess

    from ssdlab.errors import SafetyError
    from ssdlab.targets.block import BlockTarget

    name, backing = loop_device
    subprocess.run(["mkfs.ext4", "-q", "-F", f"/dev/{name}"], check=True, capture_output=True)
    point = tmp_path / "mnt"
    point.mkdir()

    class MountsAfterTwo(FakeEngine):  # what someone else does while the run goes on
        def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
            done = super().measure(target, workload, ctx)
            if workload.name == "seq1m_q8t1-read-r1":
                subprocess.run(["mount", "-o", "ro", f"/dev/{name}", str(point)], check=True)
            return done

    target = BlockTarget.from_spec(f"/dev/{name}")
    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 1})
    record = new_record(target, FakeEngine(), None, [entry], {}, {"destroy": True, "confirmed_serial": name})
    bundle = Bundle(tmp_path / "b")
    before = _sha256(backing)
    try:
        with pytest.raises(SafetyError) as refused:
            Runner(bundle, target, MountsAfterTwo(), NullObserver()).run(record)
        message = str(refused.value)
        assert message.startswith(f"quick: /dev/{name} is in use ({name} is mounted at {point})")
        # QA: the hint left out the confirmation a resume needs again, so it was refused as printed
        assert f"resume with `ssdlab run --resume {bundle.path} --destroy --yes={name}` once it is free" in message
        assert "\n" not in message
        stopped = bundle.load_run()
        assert stopped.status == "interrupted" and "mounted at" in (stopped.error or "")
        test = stopped.test("quick")
        # kept, the reads after the mount too (CrystalDiskMark's order: every entry's read, then its
        # writes); the first write after the mount never started
        reads = [f"{entry}-read-{run}" for entry in ("seq1m_q8t1", "seq1m_q1t1", "rnd4k_q32t1", "rnd4k_q1t1")
                 for run in ("warmup", "r1")]
        assert test.status == "interrupted" and [m.name for m in test.measurements] == ["prepare-fill", *reads]
        assert _sha256(backing) == before
    finally:
        subprocess.run(["umount", str(point)], check=False)
    finished = Runner(bundle, BlockTarget.from_spec(f"/dev/{name}"), FakeEngine(), NullObserver()).run(stopped)
    assert finished.status == "complete" and finished.test("quick").status == "complete"


@pytest.mark.root
def test_a_purge_refused_as_busy_is_an_in_use_refusal_not_an_engine_failure(
        loop_device: tuple[str, Path], tmp_path: Path) -> None:
    """QA (B1): blkdiscard failed with "Device or resource busy" and the run said "resume with …",
    as if the engine had failed; the device was in use (held O_EXCL by another program)."""
    import subprocess
    import sys

    from ssdlab.errors import SafetyError
    from ssdlab.steps import Step, StepResult
    from ssdlab.targets.block import BlockTarget

    name, _ = loop_device
    holder: list[subprocess.Popen[str]] = []

    class TakenDuringPurge(FakeEngine):  # the device is taken between the runner's check and blkdiscard
        def step(self, target: Target, step: Step, ctx: RunContext) -> StepResult:
            code = "import os,sys,time; os.open(sys.argv[1], os.O_RDONLY|os.O_EXCL); print('held', flush=True); " \
                   "time.sleep(600)"
            proc = subprocess.Popen([sys.executable, "-c", code, f"/dev/{name}"], stdout=subprocess.PIPE, text=True)
            holder.append(proc)
            assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
            raise EngineError(f"purge: blkdiscard failed on /dev/{name}: blkdiscard: /dev/{name}: BLKDISCARD "
                              "ioctl failed: Device or resource busy")

    target = BlockTarget.from_spec(f"/dev/{name}")
    entry = SuiteEntry(name="linear", test="linear", params={"passes": "write"})
    record = new_record(target, FakeEngine(), None, [entry], {}, {"destroy": True, "confirmed_serial": name})
    bundle = Bundle(tmp_path / "b")
    try:
        with pytest.raises(SafetyError) as refused:
            Runner(bundle, target, TakenDuringPurge(), NullObserver()).run(record)
    finally:
        for proc in holder:
            proc.kill()
            proc.wait()
    assert f"/dev/{name} is in use ({name} is held exclusively; pid {holder[0].pid}" in str(refused.value)
    assert "once it is free" in str(refused.value)
    assert bundle.load_run().status == "interrupted"


# 50 IOPS of 1 MiB sequential reads, the fake's other rates its defaults: at QD8 a 2 s window holds
# 100 reads, 12.5 turns of the queue; every other window holds hundreds.
SLOW_SEQ_READ = FakeProfile(seq_read_mb_s=50 * MIB / 1e6)
SLOW_QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2, "profile": "standard"})
SLOW_NOTE = ("figures unreliable: 1 of 8 measured windows (seq1m_q8t1-read-r1) were too short for the drive's "
             "sustained rate: under 30 turns of their queue or one 1 s period of the series (the shortest: 2 s, 100 "
             "I/Os completed with 8 in flight), so the queue filling and draining, or a stall or burst no period "
             "shows, weigh in their figures; raise runtime_s to at least 5 s")


def test_a_window_too_short_for_its_queue_is_noted_in_the_bundle_the_report_and_the_done_line(
        bundle_dir: Path, fake_target: Target) -> None:
    """QA: quick at runtime_s=0.001 on sim: printed 1,989 MB/s sequential write on a drive that sustains
    1,283, and neither the run nor the report said the windows held one fill of the queue each."""
    from io import StringIO

    from rich.console import Console

    from ssdlab.progress import QuietObserver
    from ssdlab.report import terminal_tables

    shown = StringIO()
    record = run_entries(bundle_dir, fake_target, FakeEngine(profile=SLOW_SEQ_READ), [SLOW_QUICK],
                         observer=QuietObserver(Console(file=shown, width=100)))
    assert record.test("quick").notes == (SLOW_NOTE,)  # 30 turns at 12.5 per 2 s: 4.8 s, typed as 5
    done = next(line for line in shown.getvalue().splitlines() if line.startswith("  done: "))
    assert done.endswith(f"; note: {SLOW_NOTE}"), done
    report = Console(record=True, width=400, soft_wrap=True)
    for table in terminal_tables(bundle_dir):
        report.print(table)
    assert "figures unreliable: 1 of 8 measured windows (seq1m_q8t1-read-r1)" in report.export_text()


def test_a_window_long_enough_for_its_queue_has_no_note(bundle_dir: Path, fake_target: Target) -> None:
    record = run_entries(bundle_dir, fake_target, FakeEngine(), [SLOW_QUICK])
    assert record.test("quick").notes == ()


def _window(name: str, runtime_s: float, ios: int, iodepth: int = 32) -> Measurement:
    w = Workload(name=name, pattern="randread", block_size_bytes=4096, iodepth=iodepth, runtime_s=runtime_s)
    return Measurement(workload=w, engine="fake", runtime_s=runtime_s, read=OpTotals(ios=ios, bytes=ios * 4096))


def test_the_advice_names_the_parameter_that_set_each_short_window() -> None:
    """Each window's runtime comes from the parameter of its value (names with _s); one it cannot
    be traced to (a remainder round, a size-bound run) is told to run longer itself. Preparation
    is not judged."""
    from ssdlab.methods.base import Measure
    from ssdlab.runner import short_window_notes

    measured = {"a": _window("a", 0.01, 64), "b": _window("b", 0.002, 32), "c": _window("c", 0.003, 0),
                "fill": _window("fill", 0.01, 1)}
    actions = [Measure(workload=m.workload, role="precondition" if n == "fill" else "measure")
               for n, m in measured.items()]
    # cooldown_s shares a's value but sets no window (QA: a thermal run was told to raise it).
    params = {"runtime_s": 0.01, "access_runtime_s": 0.002, "runs": 1, "op_pct": 0.01, "cooldown_s": 0.01}
    (note,) = short_window_notes(actions, measured, params)
    assert note.startswith("figures unreliable: 3 of 3 measured windows (a, b, c) were too short for the drive's "
                           "sustained rate: under 30 turns of their queue or one 1 s period of the series (the "
                           "shortest: 0.002 s, 32 I/Os completed with 32 in flight)"), note
    # a: 2 turns in 0.01 s -> 0.15 s for 30 turns, b: 0.06 s, each less than a period: 1 s; c: no pace at all.
    assert note.endswith("; raise runtime_s to at least 1 s and raise access_runtime_s to at least 1 s "
                         "and run each longer"), note
    assert short_window_notes(actions, {"fill": measured["fill"]}, params) == ()


def test_the_record_keeps_every_short_window_the_note_counts() -> None:
    """The note names three windows and counts the rest; the record (TestRecord.too_short) keeps
    them all by name, in plan order, with the note's advice. Preparation is not judged."""
    from ssdlab.methods.base import Measure
    from ssdlab.planning import too_short_windows
    from ssdlab.runner import measured_windows, short_window_notes

    measured = {name: _window(name, 0.01, 64) for name in ("fill", "e", "d", "c", "b", "a")} | {
        "long": _window("long", 2.0, 64_000)}
    actions = [Measure(workload=m.workload, role="precondition" if n == "fill" else "measure")
               for n, m in measured.items()]
    params = {"runtime_s": 0.01}
    found = too_short_windows(measured_windows(actions, measured), params)
    assert found is not None and found.windows == ("e", "d", "c", "b", "a")
    (note,) = short_window_notes(actions, measured, params)
    assert note.startswith("figures unreliable: 5 of 6 measured windows (e, d, c and 2 more) were too short")
    assert note.endswith(f"; {found.advice}") and found.advice == "raise runtime_s to at least 1 s"
    assert too_short_windows(measured_windows(actions, {"fill": measured["fill"], "long": measured["long"]}),
                             params) is None


def test_a_run_records_its_short_windows_beside_the_note(bundle_dir: Path, fake_target: Target) -> None:
    """What the runner writes: the note, as ever, and every window too short by name."""
    from ssdlab.bundle import short_windows

    record = run_entries(bundle_dir, fake_target, FakeEngine(profile=FakeProfile(read_lat_us=100_000.0,
                                                                                 write_lat_us=100_000.0)),
                         [SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2,
                                                                          "profile": "standard"})])
    test = record.test("quick")
    (note,) = test.notes
    assert "8 of 8 measured windows (seq1m_q8t1-read-r1, seq1m_q1t1-read-r1, rnd4k_q32t1-read-r1 and 5 more)" in note
    assert test.too_short is not None and len(test.too_short.windows) == 8 and note.endswith(test.too_short.advice)
    assert Bundle(bundle_dir).load_run().test("quick") == test
    short = short_windows(test)
    measured = frozenset(ref.name for ref in test.measurements if ref.role == "measure")  # not its preparation
    assert short is not None and short.names == measured


def test_on_the_simulator_a_window_of_one_queue_fill_is_noted_and_the_advised_runtime_clears_it(
        tmp_path: Path) -> None:
    """The case QA met: quick at runtime_s=0.001 on sim:, whose 1 MiB writes at QD8 completed 8 or 9 a
    window, at 1,990 MB/s against 1,290 sustained. Running at the runtime the note advises clears it."""
    import re

    from ssdlab.engines.sim import SimEngine
    from ssdlab.targets import parse_target

    target, engine = parse_target("sim:sm951-nvme-256?capacity_gib=16"), SimEngine()
    entry = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 0.001, "size_bytes": "64m"})
    (note,) = run_entries(tmp_path / "short", target, engine, [entry]).test("quick").notes
    advised = re.fullmatch(r"figures unreliable: \d+ of 8 measured windows .*; raise runtime_s to at least (\S+) s",
                           note)
    assert advised is not None, note
    longer = entry.model_copy(update={"params": {**entry.params, "runtime_s": float(advised[1])}})
    assert run_entries(tmp_path / "long", target, engine, [longer]).test("quick").notes == ()


def test_every_action_gets_the_target_s_facts_read_as_the_run_began(bundle_dir: Path, fake_target: Target) -> None:
    """RunContext.target_facts: what the runner read of the target once, as the run began, so an
    engine need not ask the drive again at every measurement (the telemetry sampler's HCTM)."""

    class Seeing(FakeEngine):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[object] = []

        def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
            self.seen.append(ctx.target_facts)
            return super().measure(target, workload, ctx)

    engine = Seeing()
    _run(bundle_dir, fake_target, engine)
    assert len(engine.seen) == 25 and all(facts is engine.seen[0] for facts in engine.seen)
    assert engine.seen[0] == fake_target.info()
