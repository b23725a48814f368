"""A program that starts reading the target during a trace replay on fio: the replay's watch
finds it as a workload's does (engines/fio_process.use_watch with the run's on_reader), the
step's detail keeps it and the trace section says the figures were taken beside it. Before,
the replay's watch looked for writers of a block device only."""

from __future__ import annotations

from pathlib import Path

import pytest

from foreign_openers import foreign_opener
from ssdlab.bundle import Bundle
from ssdlab.engines.fio import FioEngine
from ssdlab.report.section_trace import trace_section
from ssdlab.runner import run_entries
from ssdlab.suites import entry
from ssdlab.targets import parse_target
from trace_helpers import slow_writes


@pytest.mark.fio
def test_a_reader_started_mid_replay_is_kept_and_reported(tmp_path: Path) -> None:
    trace = slow_writes(tmp_path / "slow.parquet", 60, 50_000_000)  # 3 s of trace time, kept (no idle cap)
    image = tmp_path / "g.img"
    target = parse_target(f"file:{image}?size=64m")
    with foreign_opener(str(image), tmp_path, after_s=1.5) as pid:
        run_entries(tmp_path / "b", target, FioEngine(), [entry("trace", trace=str(trace), idle_cap_us=None)])
    record = Bundle(tmp_path / "b").load_run().test("trace")
    (replay,) = [s for s in record.steps if s.step.kind == "replay_trace"]
    readers = replay.detail.get("competing_readers")
    assert isinstance(readers, list) and [r["pid"] for r in readers] == [pid]
    notes = [n for n in trace_section(Bundle(tmp_path / "b"), record).notes if f"pid {pid} " in n]
    assert len(notes) == 1 and "not the drive's alone" in notes[0], notes
