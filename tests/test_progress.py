"""Progress that tells the truth, and a display that can fail without ending a run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from ssdlab.bundle import Bundle, TestRecord
from ssdlab.engines.base import ProgressUpdate
from ssdlab.engines.fake import FakeEngine
from ssdlab.errors import InternalError
from ssdlab.methods.base import TestPlan
from ssdlab.progress import RunClock, fit_line
from ssdlab.resume import ResumePoint
from ssdlab.run_events import NullObserver, PendingTest
from ssdlab.runner import Runner, new_record
from ssdlab.suites import SuiteEntry
from ssdlab.targets import parse_target

QUICK = SuiteEntry(name="quick", test="quick", params={"runs": 1, "runtime_s": 2})
CONSISTENCY = SuiteEntry(name="c", test="consistency", params={"runtime_s": 4})


class FakeTime:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def pending(name: str, estimates: Sequence[float], start: int = 0) -> PendingTest:
    return PendingTest(name, TestPlan(test=name, params={}), tuple(estimates), ResumePoint(start))


def test_clock_fraction_moves_within_an_action_and_skips_leave_the_total() -> None:
    now = FakeTime()
    clock = RunClock([pending("a", [10, 30]), pending("b", [60])], now=now)
    assert clock.total_s == 100 and clock.fraction == 0
    clock.action_started("a", 0)
    clock.progress(0.5)
    assert clock.fraction == pytest.approx(0.05)
    clock.action_finished("a", 0, skipped=False)
    clock.action_finished("a", 1, skipped=True)  # an early stop: 30 s that will not run
    assert clock.total_s == 70 and clock.fraction == pytest.approx(10 / 70)
    clock.action_started("b", 0)
    clock.progress(1.0)
    clock.action_finished("b", 0, skipped=False)
    assert clock.fraction == 1.0 and clock.eta_s() == 0.0


def test_eta_is_corrected_by_the_wall_time_work_really_took() -> None:
    """Estimates are device seconds; a simulator runs them 100x faster than estimated."""
    now = FakeTime()
    clock = RunClock([pending("a", [100, 100, 200])], initial_rate=None, now=now)
    assert clock.eta_s() is None  # simulated time says nothing about wall time yet
    clock.action_started("a", 0)
    now.t += 1.0
    clock.action_finished("a", 0, skipped=False)
    assert clock.eta_s() == pytest.approx(3.0)  # 300 estimated s left at 0.01 wall s each
    real = RunClock([pending("a", [100, 100])], now=now)
    assert real.eta_s() == pytest.approx(200.0)  # real targets: estimates are wall time


def test_clock_counts_only_what_a_resumed_test_still_has_to_do() -> None:
    clock = RunClock([pending("a", [50, 50, 100], start=2)], now=FakeTime())
    assert clock.total_s == 100


def test_test_finished_drops_what_did_not_run() -> None:
    clock = RunClock([pending("a", [10, 20, 30]), pending("b", [40])], now=FakeTime())
    clock.action_started("a", 0)
    clock.action_finished("a", 0, skipped=False)
    clock.test_finished("a")
    assert clock.total_s == 50 and clock.fraction == pytest.approx(0.2)


def test_work_run_ahead_counts_as_it_is_done_and_the_run_ends_with_the_later_half() -> None:
    """QA: with the second half running ahead on a second core (runahead.py), the ETA counted its
    work only when the run reached it: too late in the first half, then a jump at the split."""
    now = FakeTime()
    clock = RunClock([pending("a", [100]), pending("b", [100, 100])], now=now)
    ahead = RunClock([pending("b", [100, 100])], now=now)
    clock.run_ahead(1, ahead)
    for side, test in ((clock, "a"), (ahead, "b")):
        side.action_started(test, 0)
        side.progress(0.5)
    now.t += 10.0
    assert clock.fraction == pytest.approx(100 / 300)
    # This core has 50 estimated s left at 0.2 wall s each, the second one 150: its end is the run's.
    assert clock.eta_s() == pytest.approx(30.0)
    ahead.action_finished("b", 0, skipped=False)
    ahead.action_finished("b", 1, skipped=True)  # steady early: 100 s that will not run
    assert clock.fraction == pytest.approx(150 / 200) and clock.eta_s() == pytest.approx(10.0)
    # The run reaches the split and passes on the second half's events: counted once only.
    clock.action_finished("a", 0, skipped=False)
    clock.test_finished("a")
    clock.action_started("b", 0)
    clock.action_finished("b", 0, skipped=False)
    clock.test_finished("b")
    assert clock.fraction == 1.0 and clock.eta_s() == 0.0


def test_a_second_half_dropped_is_timed_by_the_run_again() -> None:
    """The second half ran from another drive: the run runs its tests in turn, counting them."""
    now = FakeTime()
    clock = RunClock([pending("a", [100]), pending("b", [100])], now=now)
    clock.run_ahead(1, RunClock([pending("b", [100])], now=now))
    clock.action_started("a", 0)
    clock.action_finished("a", 0, skipped=False)
    clock.run_ahead(1, None)
    assert clock.fraction == pytest.approx(0.5)
    clock.action_started("b", 0)
    clock.action_finished("b", 0, skipped=False)
    assert clock.fraction == 1.0


@pytest.mark.parametrize("width", [30, 50, 80, 200])
def test_progress_line_fits_the_terminal_and_keeps_its_bar(width: int) -> None:
    line = fit_line("consistency-op25 (2/10) · step 17/27", 0.42, "ETA 1h02m03s · 0h10m00s elapsed", width)
    assert line.cell_len <= max(width, 22)
    assert "━" * 16 in line.plain and "42%" in line.plain


class BrokenDisplay(NullObserver):
    """Fails the way the live display did: after the first test."""

    def __init__(self, where: str) -> None:
        self.where = where

    def test_finished(self, record: TestRecord) -> None:
        if self.where == "test_finished":
            raise IndexError("list index out of range")

    def progress(self, update: ProgressUpdate) -> None:
        if self.where == "progress":
            raise RuntimeError("terminal went away")


@pytest.mark.parametrize("where", ["test_finished", "progress"])
def test_an_exception_in_the_display_leaves_the_run_complete(tmp_path: Path, where: str) -> None:
    target, engine = parse_target("fake:"), FakeEngine()
    record = new_record(target, engine, None, [QUICK, CONSISTENCY], {}, {})
    runner = Runner(Bundle(tmp_path / "b"), target, engine, BrokenDisplay(where))
    done = runner.run(record)
    assert done.status == "complete" and all(t.status == "complete" for t in done.tests)
    assert runner.display_error is not None and where in ("test_finished", "progress")


def test_an_exception_in_the_display_does_not_interrupt_a_simulated_run(tmp_path: Path) -> None:
    """The simulator turns a failing progress callback into an interrupted run: the guard must
    keep the display's failure from reaching it."""
    from ssdlab.engines.sim import SimEngine

    target, engine = parse_target("sim:sm951-nvme-256?capacity_gib=16"), SimEngine()
    entry = SuiteEntry(name="c", test="consistency", params={"runtime_s": 5})
    done = Runner(Bundle(tmp_path / "b"), target, engine, BrokenDisplay("progress")).run(
        new_record(target, engine, None, [entry], {}, {}))
    assert done.status == "complete"
    assert not any(ref.interrupted for ref in done.test("c").measurements)


class Buggy(FakeEngine):
    def measure(self, *args: object, **kwargs: object) -> object:  # type: ignore[override]
        raise ZeroDivisionError("float division by zero")


def test_a_bug_inside_a_run_marks_the_bundle_failed_not_running(tmp_path: Path) -> None:
    target, engine = parse_target("fake:"), Buggy()
    bundle = Bundle(tmp_path / "b")
    with pytest.raises(InternalError, match=r"ZeroDivisionError.*resume"):
        Runner(bundle, target, engine).run(new_record(target, engine, None, [QUICK], {}, {}))
    record = bundle.load_run()
    assert record.status == "failed" and "ZeroDivisionError" in (record.error or "")


def test_done_line_figures_read_as_the_tables_print_them() -> None:
    """QA: the 'done:' line printed runs=1.0 and length_bytes=268,435,456.0, then IOPS with a
    decimal (2,097.9) that no table shows, and a span as 17,179,869,184 bytes. (A method this
    ssdlab does not know: its numbers by their names.)"""
    from ssdlab.progress import metric_summary

    metrics = {"runs": 1.0, "read_iops": 2097.9, "read_lat_us": 3812.04, "span_bytes": 17_179_869_184}
    record = TestRecord(name="quick", test="quick", metrics=metrics)
    assert metric_summary(record, None) == "runs=1; read_iops=2,098; read_lat_us=3,812.0; span_bytes=16 GiB"
    assert metric_summary(TestRecord(name="q", test="quick", metrics={"x_iops": None}), None) == "no figure measured"


def declared(test: str, params: dict[str, object] | None = None) -> tuple[dict[str, object], object]:
    """Every figure the method declares for fake: at a made-up value, and the declarations."""
    from ssdlab.methods import get_test

    method = get_test(test)
    specs = method.metric_specs(method.parse_params(params or {}), parse_target("fake:").info())
    values: dict[str, object] = {}
    for number, spec in enumerate(specs, start=1):
        values[spec.name] = "nvme" if spec.name == "profile" else 1000.0 + number
    return values, specs


def test_done_line_names_figures_by_their_labels() -> None:
    """QA: the line after each test read `seq1m_q8t1_read_mb_s=2,199.8 MB/s, ...`, the report's
    hidden keys, and led with settings and counts (`span_bytes=10 GiB`, `window_s=20.0`). It names
    what each figure is as the report does, one figure of each thing measured."""
    from ssdlab.progress import metric_summary

    metrics, specs = declared("quick")
    line = metric_summary(TestRecord(name="quick", test="quick", metrics=metrics), specs)  # type: ignore[arg-type]
    parts = line.split("; ")
    assert parts[0] == "SEQ1M Q8T1 read: throughput 1,004.0 MB/s", line  # after profile, interval_s, warmup
    assert len(parts) == 4 and len({p.split(": ")[0] for p in parts}) == 4
    assert "_" not in line and "profile" not in line and "nvme" not in line

    metrics, specs = declared("consistency")
    line = metric_summary(TestRecord(name="c", test="consistency", metrics=metrics), specs)  # type: ignore[arg-type]
    assert "_" not in line and "Analysed window" not in line and "Span" not in line, line
    assert line.startswith("Mean IOPS, analysed window 1,002 IOPS; "), line

    metrics, specs = declared("qd-sweep")
    line = metric_summary(TestRecord(name="q", test="qd-sweep", metrics=metrics), specs)  # type: ignore[arg-type]
    assert line.startswith("4 KiB random read, QD 1: IOPS 1,002; "), line  # not "IOPS 1,002 IOPS"
    nothing = {name: None for name in metrics}
    assert metric_summary(TestRecord(name="q", test="qd-sweep", metrics=nothing), specs) == "no figure measured"  # type: ignore[arg-type]


def test_the_mixed_random_done_line_spends_no_figure_on_a_part() -> None:
    """QA: mixed-random's line, four figures, spent one on "100 % reads, write part: IOPS 0" and
    another on its read part, the whole figure again: each figure now is a mix's own."""
    from ssdlab.progress import metric_summary

    metrics, specs = declared("mixed-random")
    metrics.update({"r100w0_write_iops": 0.0, "r100w0_write_mb_s": 0.0,
                    "r100w0_read_iops": metrics["r100w0_iops"], "r100w0_read_mb_s": metrics["r100w0_mb_s"]})
    line = metric_summary(TestRecord(name="m", test="mixed-random", metrics=metrics), specs)  # type: ignore[arg-type]
    assert "part" not in line, line
    assert [p.split(": ")[0] for p in line.split("; ")] == [
        f"4 KiB random QD 3, {pct} % reads" for pct in (100, 80, 60, 40)], line

    # a part that is not beside its whole, and had I/O, is still a figure
    only_parts = {k: v for k, v in metrics.items() if k.endswith(("_read_iops", "_write_iops", "_read_mb_s",
                                                                    "_write_mb_s"))}
    line = metric_summary(TestRecord(name="m", test="mixed-random", metrics=only_parts), specs)  # type: ignore[arg-type]
    assert line.startswith("4 KiB random QD 3, 100 % reads, read part: IOPS "), line
    assert "100 % reads, write part" not in line, line


def test_a_done_line_gives_each_point_the_rate_its_readers_look_at_first() -> None:
    """QA: as-ssd's line read "Seq write: IOPS 91.0", IOPS being first of a point's figures in the
    order the analysis writes them; AS SSD shows MB/s, as the report's AS SSD table does. A
    sequential curve is read by MB/s (mixed-seq, qd-sweep's sequential curves), random I/O by IOPS."""
    from ssdlab.progress import metric_summary

    def line(test: str, keep: str = "") -> str:
        metrics, specs = declared(test)
        # IOPS first, as analysis.sweeps.point_metrics writes a point's figures
        written = dict(sorted(metrics.items(), key=lambda item: not item[0].endswith("_iops")))
        picked = {k: (v if keep in k else None) for k, v in written.items()}
        return metric_summary(TestRecord(name=test, test=test, metrics=picked), specs)  # type: ignore[arg-type]

    assert line("as-ssd").startswith("Seq write: throughput 1,00"), line("as-ssd")
    assert "IOPS" not in line("as-ssd") and line("as-ssd", "access").startswith("Access time read: access time ")
    assert line("mixed-seq").startswith("128 KiB sequential QD 1, 100 % reads: throughput "), line("mixed-seq")
    assert line("qd-sweep", "seq128k").startswith("128 KiB sequential read, QD 1: throughput "), line("qd-sweep", "seq")
    assert line("qd-sweep").startswith("4 KiB random read, QD 1: IOPS "), line("qd-sweep")
    assert line("mixed-random").startswith("4 KiB random QD 3, 100 % reads: IOPS "), line("mixed-random")
    assert line("iometer-mixed").startswith("4 KiB random, 50 % reads, QD 32: IOPS "), line("iometer-mixed")
    assert line("quick").startswith("SEQ1M Q8T1 read: throughput "), line("quick")


def test_a_workload_with_no_rate_yet_does_not_show_zero() -> None:
    """QA: every workload's first tick read "0 IOPS 0.0 MB/s"; a 1 to 2 s workload showed nothing else.
    A stall later in a workload is a real zero and stays shown."""
    from ssdlab.engines.base import ProgressUpdate
    from ssdlab.progress import live_text

    assert live_text(ProgressUpdate(label="w", fraction=0.0, elapsed_s=0.2, iops=0.0, mb_s=0.0)) == "—"
    assert live_text(ProgressUpdate(label="w", fraction=0.5, elapsed_s=6.0, iops=0.0, mb_s=0.0)).startswith(
        "0 IOPS  0.0 MB/s")
    assert live_text(ProgressUpdate(label="w", fraction=0.1, elapsed_s=0.5, iops=1200.0, mb_s=4.9)).startswith(
        "1,200 IOPS")


@pytest.mark.parametrize("width", [40, 50, 60, 80, 120])
def test_a_narrow_live_line_keeps_the_steps_name_and_never_cuts_a_figure(width: int) -> None:
    """QA: at 60 columns the step line read `rnd4k-read-q… ━━━ 65% 306,236 IOPS  1,254.3…`: qd1 and
    qd32 looked alike and a figure was cut (at 80, `5.…` for the GB written)."""
    tail = "306,236 IOPS  1,254.3 MB/s  34°C  5.1 GB written"
    line = fit_line("rnd4k-read-qd4: 4KiB randread QD4 T1 60s", 0.65, tail, width, keep_name=True).plain
    assert len(line) <= width and "rnd4k-read-qd4" in line
    shown = line.split("% ", 1)[1].strip()
    assert tail.startswith(shown) and (shown in ("", tail) or tail[len(shown):].startswith("  ")), line
    run = fit_line("qd-sweep (1/2) · step 17/27", 0.53, "ETA 0m02s · 0m01s elapsed", width).plain
    assert len(run) <= width and "ETA 0m02s" in run  # the run's line keeps its ETA first


@pytest.mark.parametrize("width", [40, 50, 60, 80, 120, 160])
def test_a_steps_live_figures_show_whole_at_every_width(width: int) -> None:
    """QA: at 40 columns the live display showed a step's name and bar but no figure; at 60 and 80
    the temperature and GB written were left out. They go on a line of their own when they do not
    all fit beside the bar: the first figure at every width, none cut."""
    from ssdlab.progress import step_lines

    tail = "306,236 IOPS  1,254.3 MB/s  34°C  5.1 GB written  sim t=120s"
    lines = [line.plain for line in step_lines("  rnd4k-read-qd4: 4KiB randread QD4 T1 60s", 0.65, tail, width)]
    assert all(len(line) <= width for line in lines) and "rnd4k-read-qd4" in lines[0], lines
    shown = lines[-1].split("% ", 1)[-1].strip()
    assert shown.startswith("306,236 IOPS") and (shown == tail or tail[len(shown):].startswith("  ")), lines
    if width >= 60:
        assert "34°C  5.1 GB written" in shown, lines
    assert [line.plain for line in step_lines("  seq", 0.5, "1 IOPS", width)][-1].endswith("% 1 IOPS")


def test_the_done_line_carries_a_note_that_the_figures_are_unreliable_and_no_other() -> None:
    """QA: quick at runtime_s=0.001 printed impossible figures on its done line and said nothing; the
    test's note that its windows were too short now stands beside them. Its other notes (a region cut
    to fit, a resume) are the report's."""
    from io import StringIO

    from rich.console import Console

    from ssdlab.bundle import SHORT_WINDOW_NOTE
    from ssdlab.progress import LiveObserver, QuietObserver

    unreliable = SHORT_WINDOW_NOTE.format(windows="1 of 8 measured windows (x)", turns=30, period="1",
                                          shortest="0.001", ios="9", in_flight="8",
                                          advice="raise runtime_s to at least 1 s")
    record = TestRecord(name="quick", test="quick", metrics={"x_mb_s": 1989.0},
                        notes=("test region reduced to 16 MiB: the target is smaller", unreliable))
    for observer in (QuietObserver, LiveObserver):
        shown = StringIO()
        observer(Console(file=shown, width=100)).test_finished(record)
        line = shown.getvalue().strip()
        assert line.endswith(f"x_mb_s=1,989.0; note: {unreliable}"), line
        assert "region reduced" not in line


def test_no_rate_yet_reads_as_none_whenever_it_comes() -> None:
    """QA: fio's first status line ("Jobs: 1 (f=1)") comes after a second or more and carries no
    rate: the display read "0 IOPS 0.0 MB/s" until fio's next, and a 1 s workload ended on it."""
    from ssdlab.progress import live_text

    assert live_text(ProgressUpdate(label="w", fraction=0.4, elapsed_s=1.3)) == "—"
    assert live_text(ProgressUpdate(label="w", fraction=1.0, elapsed_s=5.0, temp_c=41.0)) == "—  41°C"


def test_a_piped_run_says_where_it_is_at_a_modest_interval() -> None:
    """QA: piped (`run … | cat`, a log), nothing came between "[1/1] quick: 9 steps" and "done:"
    (a review-suite test would be silent for hours). A line on the step under way now comes when
    30 s passed without one, at the step's start, while it runs or at its end, never more often."""
    from io import StringIO

    from rich.console import Console

    from ssdlab.progress import QuietObserver
    from ssdlab.steps import Idle

    out, now = StringIO(), FakeTime()
    observer = QuietObserver(Console(file=out, width=200), now=now)
    tests = [pending("quick", [10.0, 60.0, 20.0])]
    observer.run_started(tests)
    observer.test_started(0, tests[0])
    observer.action_started("quick", Idle(seconds=10), 0, 3)
    for second in range(1, 11):
        now.t += 1.0
        observer.progress(ProgressUpdate(label="idle", fraction=second / 10, elapsed_s=float(second)))
    observer.action_finished("quick", 0, skipped=False)
    assert out.getvalue().splitlines()[1:] == []  # 10 s after the test's line: nothing more yet
    step = Idle(seconds=60)
    observer.action_started("quick", step, 1, 3)
    for second in range(1, 61):
        now.t += 1.0
        observer.progress(ProgressUpdate(label="w", fraction=second / 60, elapsed_s=float(second),
                                         iops=1000.0 + second, mb_s=4.0))
    observer.action_finished("quick", 1, skipped=False)
    observer.action_started("quick", Idle(seconds=10), 2, 3)  # 10 s after the last line
    # 30 s after the test's line (20 s into the step: 10 + 20), then 30 s later; not its end, 10 s after
    assert out.getvalue().splitlines()[1:] == [
        f"  step 2/3 {step.describe()}: 33 % · 1,020 IOPS  4.0 MB/s; run 33 % done, ETA 1m00s",
        f"  step 2/3 {step.describe()}: 83 % · 1,050 IOPS  4.0 MB/s; run 67 % done, ETA 0m30s",
    ]


def test_a_piped_line_on_a_step_before_its_first_rate() -> None:
    from io import StringIO

    from rich.console import Console

    from ssdlab.progress import QuietObserver
    from ssdlab.steps import Idle

    out, now = StringIO(), FakeTime()
    observer = QuietObserver(Console(file=out, width=200), now=now)
    tests = [pending("t", [100.0])]
    observer.run_started(tests)
    observer.test_started(0, tests[0])
    now.t += 31.0
    step = Idle(seconds=100)
    observer.action_started("t", step, 0, 1)
    observer.progress(ProgressUpdate(label="w", fraction=0.01, elapsed_s=1.0))
    now.t += 98.0
    observer.progress(ProgressUpdate(label="w", fraction=0.99, elapsed_s=99.0))
    now.t += 1.0
    observer.action_finished("t", 0, skipped=False)
    assert out.getvalue().splitlines()[1:] == [
        f"  step 1/1 {step.describe()}: started; run 0 % done, ETA 1m40s",
        f"  step 1/1 {step.describe()}: 99 % · —; run 99 % done, ETA 0m01s",
        # the end 1 s after: no line (the done line follows at once)
    ]


def test_a_finished_workload_is_drawn_with_its_measured_rate() -> None:
    """The fio engine's last update of a workload carries the rate it measured (a 1 s workload's
    status lines carry none); it is drawn at once, not left to the next of 4 frames a second, by
    which time the next step has replaced it."""
    from io import StringIO

    from rich.console import Console
    from rich.live import Live

    from ssdlab.progress import LiveObserver
    from ssdlab.steps import Idle

    out = StringIO()
    console = Console(file=out, width=100, force_terminal=True)
    observer = LiveObserver(console)
    observer.live = Live(console=console, get_renderable=observer.render, auto_refresh=False, transient=True)
    with observer:  # draws only when asked
        tests = [pending("t", [1.0, 1.0])]
        observer.run_started(tests)
        observer.test_started(0, tests[0])
        observer.action_started("t", Idle(seconds=1), 0, 2)
        observer.progress(ProgressUpdate(label="w", fraction=1.0, elapsed_s=1.0, iops=12345.0, mb_s=50.6))
        drawn = out.getvalue()
        observer.action_started("t", Idle(seconds=1), 1, 2)
    assert "12,345 IOPS  50.6 MB/s" in drawn


def test_a_piped_rebuild_says_its_first_and_last_action_and_where_it_is_between() -> None:
    """A resume rebuilding its simulated drive takes as long as the run so far did; piped, it said
    nothing until the first test's line (it looked hung)."""
    from io import StringIO

    from rich.console import Console

    from ssdlab.progress import QuietObserver

    out, now = StringIO(), FakeTime()
    observer = QuietObserver(Console(file=out, width=200), now=now)
    for done in range(1, 101):
        now.t += 1.0
        observer.drive_rebuilding(done, 100)
    said = "rebuilding the simulated drive: {} of 100 finished actions simulated again"
    assert out.getvalue().splitlines() == [said.format(n) for n in (1, 31, 61, 91, 100)]


def test_a_live_rebuild_shows_how_far_it_has_got_until_the_run_starts() -> None:
    from io import StringIO

    from rich.console import Console

    from ssdlab.progress import LiveObserver

    observer = LiveObserver(Console(file=StringIO(), width=100))
    observer.drive_rebuilding(7, 40)
    assert observer.render().renderables[0].plain == (
        "rebuilding the simulated drive: 7 of 40 finished actions simulated again")
