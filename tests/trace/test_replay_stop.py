"""A trace replay stopped part-way (QA): its resume purges again before replaying it from the
start, the stop says what the partial replay did and that it is not kept, and the report says
what the drive was and in which time the replay ran."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.fio import FioEngine
from ssdlab.engines.sim import SimEngine
from ssdlab.errors import Interrupted
from ssdlab.report.section_trace import trace_section
from ssdlab.resume import repeatable, resume_point
from ssdlab.runner import Runner, run_entries
from ssdlab.steps import Purge, ReplayTrace
from ssdlab.suites import entry
from ssdlab.targets import parse_target
from trace_helpers import slow_writes

REPLAY = ReplayTrace(trace="generated:light")


def test_a_replay_cut_part_way_goes_back_to_the_purge_before_it() -> None:
    """QA: the resume replayed again on the drive the partial replay had written, and the report
    still said "on the purged drive"."""
    assert repeatable(REPLAY) is False
    point = resume_point((Purge(), REPLAY), 1, keeps_state=True)
    assert point.index == 0
    assert "step 2 (replay trace" in point.reason and "goes back to step 1 (purge" in point.reason
    assert resume_point((Purge(), REPLAY), 1, keeps_state=True, began=False).index == 1  # it had not begun


@pytest.fixture
def ctrl_c_handled() -> Iterator[None]:
    """Python's own Ctrl-C handling, as in a terminal (a script may start pytest with SIGINT ignored)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.fio
@pytest.mark.usefixtures("ctrl_c_handled")
def test_a_stopped_fio_replay_says_what_it_ran_and_its_resume_purges_again(tmp_path: Path) -> None:
    """QA: Ctrl-C mid-replay left replay.json empty and no latency logs (fio was killed outright)
    and the test said only that "it had measured nothing"; the resume did not purge."""
    trace = slow_writes(tmp_path / "slow.parquet", 100, 50_000_000)  # 5 s of trace time, kept (no idle cap)
    one = [entry("trace", trace=str(trace), idle_cap_us=None)]
    target = parse_target(f"file:{tmp_path / 'g.img'}?size=64m")
    timer = threading.Timer(2.0, os.kill, args=(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(Interrupted):
            run_entries(tmp_path / "b", target, FioEngine(), one)
    finally:
        timer.cancel()
    stopped = Bundle(tmp_path / "b").load_run().test("trace")
    said = [n for n in stopped.notes if n.startswith("The interrupted replay's ")]
    assert len(said) == 1 and said[0].endswith(" reads and writes (of 100) are not kept: a replay restarts "
                                               "from its first I/O.")
    ran = int(said[0].split()[3].replace(",", ""))
    assert 0 < ran < 100
    done = Runner(Bundle(tmp_path / "b"), target, FioEngine()).run(Bundle(tmp_path / "b").load_run()).test("trace")
    assert done.status == "complete" and [s.step.kind for s in done.steps] == ["purge", "replay_trace"]
    assert any("goes back to step 1 (purge" in note for note in done.notes)
    section = trace_section(Bundle(tmp_path / "b"), done)
    assert " on the purged drive, idle time kept," in section.caption
    timeline = next(f for f in section.figures if f.key == "trace-timeline")
    assert " s of real time. MB/s" in timeline.caption  # fio runs in real time, not the simulator's


def test_the_caption_of_a_replay_not_purged_says_so(tmp_path: Path) -> None:
    """`purge=no` replays on the drive as it was: the caption said "on the purged drive" of it too."""
    trace = slow_writes(tmp_path / "t.parquet", 20, 1_000_000)
    bundle = tmp_path / "b"
    record = run_entries(bundle, parse_target("sim:sm951-nvme-256?scale=0.1"), SimEngine(),
                         [entry("trace", trace=str(trace), purge=False)]).test("trace")
    section = trace_section(Bundle(bundle), record)
    assert " on the drive as it was (not purged first: purge=no), " in section.caption
    timeline = next(f for f in section.figures if f.key == "trace-timeline")
    assert " s of virtual time (idle time cut). MB/s" in timeline.caption
    purged = trace_section(Bundle(bundle), record.model_copy(update={"params": {**record.params, "purge": True}}))
    assert " on the purged drive, " in purged.caption
