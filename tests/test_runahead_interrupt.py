"""Ctrl-C on every line of a run that runs its second half ahead (runahead.py), and of the
runner's own steps around it: the run stops with one line and exit status 130, its bundle says
where (or that the run was complete), and --resume measures what an unstopped run measures.

QA once saw a Ctrl-C during a run-ahead review ignored (the run finished "complete"). Here, on
the code before: a stop raised between two of the second half's events escaped the loop that
passes them on (run.json left "running", or without a test whose files were already moved into
the bundle), or came after the last event was taken and the loop waited for it forever. Typing
cannot aim at a line, so a trace function sends the SIGINT as the line starts, through `ssdlab
run` in this process (`main()`, with the CLI's own handling of signals).
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from ssdlab import runahead, runner
from ssdlab.bundle import RAN_AHEAD_NOTE, Bundle
from ssdlab.methods.base import Action
from ssdlab.runahead import Relay, RunAhead

pytest.importorskip("ssdlab._ssdsim", reason="the simulator extension is not built")
from ssdlab.engines import sim as sim_engine

# The stops test the hand-over lines, not the drive: the smallest drive of the family (5 GiB) and
# 5 s phases reach the same hand-over lines as 10 GiB and 15 s did (72 stops in the first test
# either way), each run in about two thirds of the time.
SIM = "sim:sm951-nvme-128?capacity_gib=1"
AHEAD = "trim-validation"  # the second half
RUN = ("run", "-t", SIM, "--test", "consistency", "--test", AHEAD, "-p", "runtime_s=5", "-p", "torture_runtime_s=5",
       "-p", "seq_runtime_s=1", "--no-library", "--no-report")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
WATCHED = {runahead.__file__, runner.__file__}  # the lines a Ctrl-C is sent on
RUN_LIMIT_S = 120  # a stopped run that has not ended by then hangs
# Where a stop lands as the run hands the second half's tests over, and as it ends.
HAND_OVER = {"adopt", "_follow", "_forward", "_add", "_merge", "close", "_run", "_tidy", "_ended"}
Line = tuple[str, int]


@pytest.fixture
def warm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cli: Callable[..., Any]) -> dict[str, Any]:
    """A cache that holds the drive the second half starts with, and the metrics of an unstopped run.
    The second half waits at its second action until the run follows it, so a stop can come
    while its events are passed on (or while the run is still in its first half)."""
    monkeypatch.setattr(sim_engine, "MIN_PREP_WALL_S", 0.0)
    monkeypatch.setattr(sim_engine, "RESTORE_FACTOR", 0.0)
    monkeypatch.setattr(runahead, "usable_cores", lambda: 2)
    cold = cli(*RUN, "-o", str(tmp_path / "cold"))
    assert cold.code == 0, cold.stderr
    following = threading.Event()
    action_started, follow = Relay.action_started, RunAhead._follow

    def held(self: Relay, test: str, action: Action, index: int, count: int) -> None:
        while test == AHEAD and index == 1 and not (following.is_set() or self.cancel.is_set()):
            time.sleep(0.005)
        action_started(self, test, action, index, count)

    def followed(self: RunAhead, *args: Any) -> Any:
        following.set()
        return follow(self, *args)

    monkeypatch.setattr(Relay, "action_started", held)
    monkeypatch.setattr(RunAhead, "_follow", followed)
    record = Bundle(tmp_path / "cold").load_run()
    return {"following": following, "metrics": {t.name: t.metrics for t in record.tests}}


@pytest.fixture
def own_handlers() -> Iterator[None]:
    """Ctrl-C as a program started from a terminal has it, then pytest's handlers back (`main()`
    keeps its stop handler once a stop came: the program is ending). pytest started in the
    background of a non-interactive shell inherits SIGINT ignored, which `main()` rightly keeps:
    every Ctrl-C sent here was then ignored and each run ended "complete"."""
    before = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    for sig, handler in before.items():
        signal.signal(sig, handler)


def ctrl_c_on(lines: list[Line], at: set[Line] | None = None) -> Callable[[FrameType, str, Any], Any]:
    """A trace function for the main thread: notes each watched line as it starts, the first time,
    and sends SIGINT (Ctrl-C) the first time a line in `at` starts, once per line."""
    sent: set[Line] = set()

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            line = (frame.f_code.co_name, frame.f_lineno)
            if line not in lines:
                lines.append(line)
            if at is not None and line in at and line not in sent:
                sent.add(line)
                os.kill(os.getpid(), signal.SIGINT)
        return local

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename in WATCHED else None

    return tracer


def traced_run(cli: Callable[..., Any], out: Path, lines: list[Line], at: set[Line] | None) -> Any:
    # A stop that leaves the run waiting forever (one came after the last event was taken, and the
    # loop waited for it again) ends the session, saying where it hung, rather than hanging it.
    faulthandler.dump_traceback_later(RUN_LIMIT_S, exit=True, file=sys.__stderr__)
    sys.settrace(ctrl_c_on(lines, at))
    try:
        return cli(*RUN, "-o", str(out))
    finally:
        sys.settrace(None)
        faulthandler.cancel_dump_traceback_later()


def problems(result: Any, out: Path, cli: Callable[..., Any], metrics: dict[str, Any],
             resumed: dict[str, list[str]]) -> list[str]:
    """What is wrong with how a stopped run ended: its line, its exit status, its bundle, its resume
    (`resumed`: what resuming each stopped state found, as many lines leave the same one)."""
    found: list[str] = []
    last = result.stderr.strip().splitlines()[-1:] or [""]
    bundle = Bundle(out)
    resume = f"resume with `ssdlab run --resume {bundle.path}`"
    complete = f"after the run completed; its bundle {bundle.path} is complete"
    if result.code != 130 or "Traceback" in result.stderr or not last[0].startswith("stopped: interrupted"):
        found.append(f"exit {result.code}, last line {last[0]!r}")
    record = bundle.load_run()
    if [t.name for t in record.tests if t.status == "running"] or record.status == "running":
        found.append("run.json says running")
    if (out / runahead.AHEAD_DIR).exists():
        found.append("the second half's private bundle is left")
    if any(t.name == "ssdlab-run-ahead" for t in threading.enumerate()):
        found.append("the second runner still runs")
    measured = {p.name for p in (out / "measurements").iterdir()} if (out / "measurements").is_dir() else set()
    recorded = {t.name for t in record.tests if t.measurements}
    if measured - recorded:
        found.append(f"measurements of {sorted(measured - recorded)} in the bundle, not in run.json")
    for test in record.tests:
        found += [f"{test.name}: {ref.file} missing" for ref in test.measurements if not (out / ref.file).is_file()]
    if record.status == "complete" and complete not in last[0]:
        found.append(f"complete, but the line says {last[0]!r}")
    if record.status == "interrupted":
        if resume not in last[0]:
            found.append(f"interrupted, but the line says {last[0]!r}")
        state = str([(t.name, t.status, t.action_outcomes) for t in record.tests])
        if state not in resumed:
            resumed[state] = resume_problems(out, cli, metrics)
        found += resumed[state]
    return found


def resume_problems(out: Path, cli: Callable[..., Any], metrics: dict[str, Any]) -> list[str]:
    again = cli("run", "--resume", str(out), "--no-library", "--no-report")
    resumed = Bundle(out).load_run()
    # The same figures, but for a test whose shared starting state went with the stop (a stop
    # between tests): it prepares the drive itself, and says so.
    same = {t.name: t.metrics for t in resumed.tests
            if t.start is None or not t.start.reason.startswith("own preparation")}
    if again.code != 0 or resumed.status != "complete" or any(metrics[n] != m for n, m in same.items()):
        return [f"resumed: exit {again.code}, {resumed.status}, {again.stderr.strip()[-200:]}"]
    return []


@pytest.mark.slow
def test_ctrl_c_on_every_line_of_following_the_second_half(
    tmp_path: Path, cli: Callable[..., Any], warm: dict[str, Any], own_handlers: None,
) -> None:
    lines: list[Line] = []
    unstopped = traced_run(cli, tmp_path / "unstopped", lines, None)
    assert unstopped.code == 0, unstopped.stderr
    assert RAN_AHEAD_NOTE in Bundle(tmp_path / "unstopped").load_run().test(AHEAD).notes
    # From the moment the run reaches the second half (and the runner's own steps after it).
    start = lines.index(next(line for line in lines if line[0] == "adopt"))
    failed, resumed = {}, {}
    for number, line in enumerate(line for line in lines[start:] if line[0] in HAND_OVER):
        warm["following"].clear()
        out = tmp_path / f"stop{number}"
        reached: list[Line] = []
        result = traced_run(cli, out, reached, {line})
        if line not in reached:
            # A line only timing reaches (`except queue.Empty:`, when no event came within the poll)
            # was not run this time, so no Ctrl-C was sent: the run rightly completed (fresh56).
            continue
        found = problems(result, out, cli, warm["metrics"], resumed)
        if found:
            failed[line] = found
    assert not failed, failed


@pytest.mark.slow
def test_a_second_ctrl_c_on_every_line_while_the_second_half_stops(
    tmp_path: Path, cli: Callable[..., Any], warm: dict[str, Any], own_handlers: None,
) -> None:
    """The first Ctrl-C as the run passes on the second half's first event; the second on each
    line the stopping runs after that."""
    lines: list[Line] = []
    assert traced_run(cli, tmp_path / "unstopped", lines, None).code == 0
    first = next(line for line in lines if line[0] == "_forward")
    warm["following"].clear()
    lines = []
    once = traced_run(cli, tmp_path / "once", lines, {first})
    resumed: dict[str, list[str]] = {}
    assert not problems(once, tmp_path / "once", cli, warm["metrics"], resumed)
    failed = {}
    for number, line in enumerate(line for line in lines[lines.index(first) + 1:] if line[0] in HAND_OVER):
        warm["following"].clear()
        out = tmp_path / f"stop{number}"
        found = problems(traced_run(cli, out, [], {first, line}), out, cli, warm["metrics"], resumed)
        if found:
            failed[line] = found
    assert not failed, failed
