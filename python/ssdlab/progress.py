"""Run observers for the CLI: a live rich display, or one line per test for logs/--json.

Both keep a RunClock: the whole run's progress and ETA, from the plan's estimate of each
action, corrected by the wall time the finished work really took.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from ssdlab.bundle import TestRecord, says_unreliable
from ssdlab.engines.base import ProgressUpdate
from ssdlab.methods.base import Action
from ssdlab.methods.metrics import MetricSet, MetricSpec, part_moved_nothing
from ssdlab.report.contract import figure_with_unit
from ssdlab.report.formatting import format_metric
from ssdlab.report.terminal import print_hanging
from ssdlab.run_events import PendingTest, WorkClock
from ssdlab.targets.base import ReadingProcess
from ssdlab.units import counted, format_duration, is_number

# Below this much estimated work done, the wall-per-estimate ratio is noise.
MIN_WORK_FOR_RATE_S = 1e-3


@dataclass
class RunClock:
    """Progress and ETA of a whole run.

    Estimates are device seconds (wall seconds on real targets, simulated seconds on the
    simulator). The wall time spent per estimated second of work done so far turns the
    remaining estimate into wall time, so the ETA corrects itself as steps finish — a
    simulator far faster than its device time, or a drive slower than the rough rate
    assumed for a byte-limited job. Actions that are skipped (an early steady-state
    stop) leave the total, so the bar never waits for work that will not come.

    While the run's second half runs ahead on a second core (runahead.py), a clock of its own
    times it: its work counts as it is done, not when the run reaches it, and the run ends
    when the later of the two does.
    """

    tests: Sequence[PendingTest]
    initial_rate: float | None = 1.0  # wall s per estimated s before anything ran; None = unknown
    now: Callable[[], float] = time.monotonic
    started: float = field(init=False)
    remaining: dict[tuple[int, int], float] = field(init=False)
    total_s: float = field(init=False)
    done_s: float = 0.0
    current: tuple[int, int] | None = None
    action_fraction: float = 0.0
    ahead: WorkClock | None = None  # times the tests from `split` on while they run ahead
    split: int = 0
    ahead_estimate_s: float = 0.0  # those tests' estimate here: `ahead` times them instead

    def __post_init__(self) -> None:
        self.started = self.now()
        self.remaining = {
            (ti, ai): est
            for ti, test in enumerate(self.tests)
            for ai, est in enumerate(test.estimates_s) if ai >= test.start.index
        }
        # What the run does after its tests (a --host run deleting its files) stays in the total
        # until the run ends: no skip or stop takes it out, and the ETA waits for it.
        self.total_s = sum(self.remaining.values()) + sum(test.closing_s for test in self.tests)

    def test_index(self, name: str) -> int:
        return next(i for i, t in enumerate(self.tests) if t.name == name)

    def run_ahead(self, split: int, clock: WorkClock | None) -> None:
        """The tests from `split` on run on a second core, timed by `clock`: their events, passed
        on when the run reaches them, are left to it. None: they run here after all, in turn."""
        self.split, self.ahead = split, clock
        self.ahead_estimate_s = sum(est for (ti, _), est in self.remaining.items() if ti >= split)

    def _timed_ahead(self, test: str) -> bool:
        return self.ahead is not None and self.test_index(test) >= self.split

    def action_started(self, test: str, index: int) -> None:
        if not self._timed_ahead(test):
            self.current = (self.test_index(test), index)
            self.action_fraction = 0.0

    def progress(self, fraction: float) -> None:
        self.action_fraction = min(1.0, max(0.0, fraction))

    def action_finished(self, test: str, index: int, skipped: bool) -> None:
        if self._timed_ahead(test):
            return
        estimate = self.remaining.pop((self.test_index(test), index), 0.0)
        if skipped:
            self.total_s -= estimate
        else:
            self.done_s += estimate
        self.current = None

    def test_finished(self, test: str) -> None:
        """Whatever of the test did not run will not: it leaves the total."""
        if self._timed_ahead(test):
            return
        ti = self.test_index(test)
        for key in [k for k in self.remaining if k[0] == ti]:
            self.total_s -= self.remaining.pop(key)

    @property
    def worked_s(self) -> float:
        """Estimated seconds of work done here (not ahead)."""
        running = self.remaining.get(self.current, 0.0) * self.action_fraction if self.current else 0.0
        return self.done_s + running

    @property
    def own_total_s(self) -> float:
        """The estimate of the work this clock times itself."""
        return self.total_s - (self.ahead_estimate_s if self.ahead is not None else 0.0)

    @property
    def fraction(self) -> float:
        worked, total = self.worked_s, self.own_total_s
        if self.ahead is not None:
            worked, total = worked + self.ahead.worked_s, total + self.ahead.total_s
        return 1.0 if total <= 0 else min(1.0, worked / total)

    @property
    def elapsed_s(self) -> float:
        return self.now() - self.started

    def rate(self, before_work: float | None) -> float | None:
        """Wall seconds per estimated second of work done so far (`before_work` until some is)."""
        worked = self.worked_s
        return self.elapsed_s / worked if worked > MIN_WORK_FOR_RATE_S else before_work

    def eta_s(self) -> float | None:
        """Wall seconds to the end of the run, or None while there is nothing to go by."""
        rate = self.rate(self.initial_rate)
        if rate is None:
            return None
        own = max(0.0, self.own_total_s - self.worked_s) * rate
        if self.ahead is None:
            return own
        # The tests ahead at their own pace (this one's until they have done some work).
        pace = self.ahead.rate(rate)
        theirs = max(0.0, self.ahead.total_s - self.ahead.worked_s) * (rate if pace is None else pace)
        return max(own, theirs)


# Before this much of a workload has run, a rate of zero is no rate yet (a stall later is a real 0).
FIRST_RATE_S = 1.0
NO_RATE = "—"  # nothing measured yet: fio's first status lines, an idle step


def rate_text(update: ProgressUpdate) -> str:
    """'123,456 IOPS  480.0 MB/s', or NO_RATE while there is none (QA: every workload showed
    "0 IOPS 0.0 MB/s" for its first second, fio's lines then carrying no rate)."""
    iops, mb_s = update.iops, update.mb_s
    if iops is None or mb_s is None or (iops == 0 and mb_s == 0 and update.elapsed_s < FIRST_RATE_S):
        return NO_RATE
    return f"{iops:,.0f} IOPS  {mb_s:,.1f} MB/s"


def live_text(update: ProgressUpdate) -> str:
    """The live figure first (IOPS and MB/s), then simulator facts."""
    parts = [rate_text(update)]
    if update.temp_c is not None:
        parts.append(f"{update.temp_c:.0f}°C")
    if update.host_gb_written is not None:
        parts.append(f"{update.host_gb_written:,.1f} GB written")
    if update.sim_time_s is not None:
        parts.append(f"sim t={update.sim_time_s:,.0f}s")
    return "  ".join(parts)


NO_FIGURES = "no figure measured"  # not "done: ; run 50 % done"


def metric_summary(record: TestRecord, specs: MetricSet | None, limit: int = 4) -> str:
    """A finished test's first figures as the report names them ('SEQ1M Q8T1 read: throughput
    2,184 MB/s'): the first measured figure of each thing measured, in the method's order (its
    headline first), settings and counts left out. A method this ssdlab does not know: its
    first numbers by their names, as the report shows them. The read and write parts of a mixed
    point are left out beside its whole (a_part_adds_nothing). The order is the declared one, each
    point led by the rate its readers look at first (metrics.rate_specs), not the order the
    analysis wrote them in (QA: AS SSD's Seq by its IOPS, where AS SSD shows MB/s)."""
    if specs is None:
        shown = [(k, v) for k, v in record.metrics.items() if is_number(v)]
        return "; ".join(f"{k}={format_metric(k, v)}" for k, v in shown[:limit]) or NO_FIGURES
    parts: dict[str, str] = {}  # by what was measured: its label before ': throughput', ': IOPS'...
    for spec in specs:
        value = record.metrics.get(spec.name)
        measured = spec.label.split(": ")[0]
        if spec.kind == "figure" and is_number(value) and measured not in parts and not a_part_adds_nothing(
                spec, value, parts):
            parts[measured] = f"{spec.label} {figure_with_unit(spec, record.metrics)}"
    return "; ".join(list(parts.values())[:limit]) or NO_FIGURES


def a_part_adds_nothing(spec: MetricSpec, value: object, shown: Mapping[str, str]) -> bool:
    """A read or write part of a mixed point (metrics.split_specs) where the line already has
    the point's whole figure, or with no I/O at all. QA: the mixed-random line spent one of its
    four figures on '100 % reads, write part: IOPS 0', another on its read part, the whole again."""
    part = spec.dims.get("part")
    if part is None:
        return False
    whole = spec.label.split(": ")[0].removesuffix(f", {part} part")
    return part_moved_nothing(spec, value) or whole in shown


def done_line(record: TestRecord, figures: str) -> Text:
    """A finished test's line: its figures, then any note of the test's that says they are not to
    be trusted (bundle.says_unreliable), so the warning stands beside them, not only in the report."""
    line = Text(figures)
    for note in record.notes:
        if says_unreliable(note):
            line.append("; ")
            line.append("note:", style="yellow")
            line.append(f" {note}")
    return line


def declared_for(clock: RunClock | None, name: str) -> MetricSet | None:
    """The metrics the run's test `name` declares (PendingTest.specs); None before the run started."""
    return next((t.specs for t in clock.tests if t.name == name), None) if clock is not None else None


def eta_text(clock: RunClock) -> str:
    eta = clock.eta_s()
    return "ETA …" if eta is None else f"ETA {format_duration(eta)}"


BAR_WIDTH = 16


def fit_line(head: str, fraction: float, tail: str, width: int, keep_name: bool = False) -> Text:
    """`head [bar] pct tail` in at most `width` cells: the bar and percentage always show. A narrow
    terminal cuts the head with an ellipsis (`keep_name`: after its name, the step's, so qd1 and qd32
    are told apart, before the tail's figures), and leaves out the tail's last figures whole, never
    one cut ("1,254.3…" reads as another number, "823.4 MB/…" loses its unit)."""
    fixed = BAR_WIDTH + 6  # bar, two spaces, "100%" and one more space
    room = max(0, width - fixed)
    name = re.split(r":| · ", head)[0]
    keeps_name = min(room, len(name) + (len(head) > len(name))) if keep_name else 0  # and the ellipsis after it
    # The head keeps its name and at least two fifths of the room; the tail takes what is left.
    head_w = min(len(head), max(room - len(tail) - 1, room * 2 // 5, keeps_name))
    tail_w = max(0, room - head_w - 1)
    done = round(max(0.0, min(1.0, fraction)) * BAR_WIDTH)
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(_clip(head, head_w).ljust(head_w))
    line.append(" ")
    line.append("━" * done, style="green")
    line.append("━" * (BAR_WIDTH - done), style="grey37")
    line.append(f" {100 * fraction:3.0f}% ")
    line.append(_whole_parts(tail, tail_w))
    return line


FIGURES_INDENT = "    "


def step_lines(head: str, fraction: float, tail: str, width: int) -> list[Text]:
    """The step's line, and its live figures on a line of their own below it when they do not
    all fit beside its bar (QA: at 40 columns no figure showed at all; at 60 and 80 the temperature
    and GB written were left out), as many of them as fit whole."""
    line = fit_line(head, fraction, tail, width, keep_name=True)
    if line.plain.endswith(tail):
        return [line]
    figures = Text(FIGURES_INDENT + _whole_parts(tail, width - len(FIGURES_INDENT)), no_wrap=True)
    return [fit_line(head, fraction, "", width, keep_name=True), figures]


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def _whole_parts(text: str, width: int) -> str:
    """As many of the text's parts (a figure with its unit, split at two spaces or " · ") as fit
    in `width` whole, from the first."""
    if len(text) <= width:
        return text
    pieces = re.split(r"(  | · )", text)
    out = pieces[0] if len(pieces[0]) <= width else ""
    for separator, part in zip(pieces[1::2], pieces[2::2], strict=True):
        if not out or len(out) + len(separator) + len(part) > width:
            break
        out += separator + part
    return out


def rebuilding_text(done: int, total: int) -> str:
    """'rebuilding the simulated drive: 12 of 40 finished actions simulated again'."""
    return f"rebuilding the simulated drive: {done:,} of {total:,} finished actions simulated again"


class LiveObserver:
    """Two lines: the whole run (test, step, %, elapsed, ETA) and the current step with its
    live figure. The bars always show; a narrow terminal cuts the text around them."""

    def __init__(self, console: Console, initial_rate: float | None = 1.0) -> None:
        self.console = console
        self.initial_rate = initial_rate
        self.clock: RunClock | None = None
        self.run_label = "starting"
        self.step_label = ""
        self.step_fraction = 0.0
        self.step_info = ""
        self.test_label = ""
        self.live = Live(console=console, get_renderable=self.render, refresh_per_second=4, transient=True)
        self.error: str | None = None  # why the display could not start or stop

    def __enter__(self) -> LiveObserver:
        try:
            self.live.start()
        except Exception as err:  # no display is better than no run
            self.error = f"{type(err).__name__}: {err}"
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            self.live.stop()
        except Exception as err:
            self.error = self.error or f"{type(err).__name__}: {err}"

    def render(self) -> Group:
        width = self.console.width
        if self.clock is None:
            return Group(Text(self.run_label))
        run_tail = f"{eta_text(self.clock)} · {format_duration(self.clock.elapsed_s)} elapsed"
        return Group(fit_line(self.run_label, self.clock.fraction, run_tail, width),
                     *step_lines(self.step_label, self.step_fraction, self.step_info, width))

    def drive_rebuilding(self, done: int, total: int) -> None:
        self.run_label = rebuilding_text(done, total)

    def run_started(self, tests: Sequence[PendingTest]) -> None:
        self.clock = RunClock(tests, initial_rate=self.initial_rate)

    def tests_ahead(self, split: int, clock: WorkClock | None) -> None:
        if self.clock is not None:
            self.clock.run_ahead(split, clock)

    def test_started(self, index: int, test: PendingTest) -> None:
        count = len(self.clock.tests) if self.clock else index + 1
        self.test_label = f"{test.name} ({index + 1}/{count})"
        self.run_label = self.test_label
        if test.start.reason:
            self.console.print(f"[yellow]resume[/] {test.name}: {test.start.reason}", highlight=False)

    def action_started(self, test: str, action: Action, index: int, count: int) -> None:
        if self.clock is not None:
            self.clock.action_started(test, index)
        self.run_label = f"{self.test_label} · step {index + 1}/{count}"
        self.step_label, self.step_fraction, self.step_info = f"  {action.describe()}", 0.0, ""

    def action_finished(self, test: str, index: int, skipped: bool) -> None:
        if self.clock is not None:
            self.clock.action_finished(test, index, skipped)
        if not skipped:
            self.step_fraction = 1.0

    def progress(self, update: ProgressUpdate) -> None:
        if self.clock is not None:
            self.clock.progress(update.fraction)
        self.step_fraction, self.step_info = min(1.0, update.fraction), live_text(update)
        if update.fraction >= 1.0:
            self._draw()  # a workload's measured rate (FioEngine: measured_update), shown before the next step's

    def _draw(self) -> None:
        """Draw now rather than at the next of the display's 4 a second."""
        if self.live.is_started:
            try:
                self.live.refresh()
            except Exception as err:  # no display is better than no run
                self.error = self.error or f"{type(err).__name__}: {err}"

    def competing_reader(self, reader: ReadingProcess) -> None:
        self.console.print(reader_warning(reader))  # above the live lines, as a finished test's

    def test_finished(self, record: TestRecord) -> None:
        if self.clock is not None:
            self.clock.test_finished(record.name)
        summary = metric_summary(record, declared_for(self.clock, record.name))
        head = Text.from_markup(f"[green]✓[/] {escape(record.name)}: ")
        print_hanging(self.console, head, done_line(record, summary))


def reader_warning(reader: ReadingProcess) -> Text:
    """The line `run` prints for a reader at its start (cli/app.print_readers), for one that began mid-run."""
    return Text.assemble(("warning:", "yellow"), f" {reader.text}")


# Piped (a log, --json): a line on the step under way at most this often, so a log shows life
# through a test hours long (QA: nothing between "[1/1] quick: 9 steps" and "done:"); a line per
# step would flood it with a sweep's hundreds of steps of a few seconds.
PIPED_LINE_S = 30.0


class QuietObserver:
    """One line per test, on stderr, so stdout stays clean for --json and logs stay short; and
    while a test runs, a line on its step every PIPED_LINE_S at most (step_line)."""

    def __init__(self, console: Console, initial_rate: float | None = 1.0, now: Callable[[], float] = time.monotonic,
                 every_s: float = PIPED_LINE_S) -> None:
        self.console = console
        self.initial_rate = initial_rate
        self.clock: RunClock | None = None
        self.now, self.every_s = now, every_s
        self.last_line_at = now()
        self.step = ""  # "step 3/9 rnd4k-q32: 4 KiB random write, QD 32", "" between steps
        self.step_state = ""  # "started", "45 % · 1,234 IOPS  4.9 MB/s", "done"

    def __enter__(self) -> QuietObserver:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        return None

    def _print(self, text: str) -> None:
        self.console.print(text, highlight=False)
        self.last_line_at = self.now()

    def _heartbeat(self) -> None:
        """The step's line, if no line was printed for every_s."""
        if self.step and self.now() - self.last_line_at >= self.every_s:
            self._print(self.step_line())

    def step_line(self) -> str:
        """'  step 3/9 rnd4k-q32: …: 45 % · 1,234 IOPS  4.9 MB/s; run 20 % done, ETA 5 min'."""
        where = ""
        if self.clock is not None:
            where = f"; run {100 * self.clock.fraction:.0f} % done, {eta_text(self.clock)}"
        return f"  {self.step}: {self.step_state}{where}"

    def drive_rebuilding(self, done: int, total: int) -> None:
        """The first action's line, the last's, and one every every_s between."""
        if done in (1, total) or self.now() - self.last_line_at >= self.every_s:
            self._print(rebuilding_text(done, total))

    def run_started(self, tests: Sequence[PendingTest]) -> None:
        self.clock = RunClock(tests, initial_rate=self.initial_rate, now=self.now)

    def tests_ahead(self, split: int, clock: WorkClock | None) -> None:
        if self.clock is not None:
            self.clock.run_ahead(split, clock)

    def test_started(self, index: int, test: PendingTest) -> None:
        count = len(self.clock.tests) if self.clock else index + 1
        steps = len(test.plan.actions) - test.start.index
        self._print(f"[{index + 1}/{count}] {test.name}: {counted(steps, 'step')}")
        if test.start.reason:
            self._print(f"  resume: {test.start.reason}")

    def action_started(self, test: str, action: Action, index: int, count: int) -> None:
        if self.clock is not None:
            self.clock.action_started(test, index)
        self.step, self.step_state = f"step {index + 1}/{count} {action.describe()}", "started"
        self._heartbeat()

    def action_finished(self, test: str, index: int, skipped: bool) -> None:
        if self.clock is not None:
            self.clock.action_finished(test, index, skipped)
        self.step_state = "skipped" if skipped else "done"
        self._heartbeat()
        self.step = ""

    def progress(self, update: ProgressUpdate) -> None:
        if self.clock is not None:
            self.clock.progress(update.fraction)
        self.step_state = f"{100 * min(1.0, update.fraction):.0f} % · {live_text(update)}"
        self._heartbeat()

    def competing_reader(self, reader: ReadingProcess) -> None:
        self.console.print(reader_warning(reader))
        self.last_line_at = self.now()

    def test_finished(self, record: TestRecord) -> None:
        where = ""
        if self.clock is not None:
            self.clock.test_finished(record.name)
            where = f"; run {100 * self.clock.fraction:.0f} % done, {eta_text(self.clock)}"
        summary = metric_summary(record, declared_for(self.clock, record.name))
        print_hanging(self.console, Text("  done: "), done_line(record, summary + where))
        self.last_line_at = self.now()
