"""Run observers for the CLI: a live rich display, or one line per test for logs/--json."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ssdlab.bundle import TestRecord
from ssdlab.engines.base import ProgressUpdate
from ssdlab.tests_catalog.base import Action, TestPlan


def _live_text(update: ProgressUpdate) -> str:
    parts = [f"{update.iops:,.0f} IOPS", f"{update.mb_s:,.1f} MB/s"]
    if update.sim_time_s is not None:
        parts.append(f"sim t={update.sim_time_s:,.0f}s")
    if update.host_gb_written is not None:
        parts.append(f"{update.host_gb_written:,.1f} GB written")
    if update.temp_c is not None:
        parts.append(f"{update.temp_c:.0f}°C")
    return "  ".join(parts)


def _metric_summary(record: TestRecord, limit: int = 4) -> str:
    shown = [(k, v) for k, v in record.metrics.items() if isinstance(v, int | float) and not isinstance(v, bool)]
    return ", ".join(f"{k}={v:,.1f}" for k, v in shown[:limit])


class LiveObserver:
    """Two bars: the test's actions, and the current workload with live IOPS and MB/s."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.bars = Progress(
            TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
            TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[live]}"),
            console=console, transient=False,
        )
        self.test_task: TaskID | None = None
        self.action_task: TaskID | None = None

    def __enter__(self) -> LiveObserver:
        self.bars.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.bars.stop()

    def test_started(self, name: str, index: int, count: int, plan: TestPlan) -> None:
        for task in (self.test_task, self.action_task):
            if task is not None:
                self.bars.remove_task(task)
        label = f"[bold]{name}[/] ({index + 1}/{count})"
        self.test_task = self.bars.add_task(label, total=len(plan.actions), live="")
        self.action_task = self.bars.add_task("  starting", total=1.0, live="")

    def action_started(self, test: str, action: Action, index: int, count: int) -> None:
        if self.test_task is not None:
            self.bars.update(self.test_task, completed=index)
        if self.action_task is not None:
            self.bars.reset(self.action_task, total=1.0, description=f"  {action.describe()}", live="")

    def progress(self, update: ProgressUpdate) -> None:
        if self.action_task is not None:
            self.bars.update(self.action_task, completed=min(1.0, update.fraction), live=_live_text(update))

    def test_finished(self, record: TestRecord) -> None:
        if self.test_task is not None:
            total = self.bars.tasks[self.test_task].total or 0
            self.bars.update(self.test_task, completed=total)
        self.console.print(f"[green]✓[/] {record.name}: {_metric_summary(record)}")


class QuietObserver:
    """One line per test, on stderr, so stdout stays clean for --json."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def __enter__(self) -> QuietObserver:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        return None

    def test_started(self, name: str, index: int, count: int, plan: TestPlan) -> None:
        self.console.print(f"[{index + 1}/{count}] {name}: {len(plan.actions)} actions", highlight=False)

    def action_started(self, test: str, action: Action, index: int, count: int) -> None:
        return None

    def progress(self, update: ProgressUpdate) -> None:
        return None

    def test_finished(self, record: TestRecord) -> None:
        self.console.print(f"  done: {_metric_summary(record)}", highlight=False)
