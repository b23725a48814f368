"""A capture's end: the I/Os in flight get their completions, and events tracefs lost are said.

QA (2026-11-28): `trace capture --seconds 1` of a loop device busy at QD 8 ended with an I/O in
flight; its issue was kept without a completion, and one such record of 78,626 made `trace stats`
print "average QD unknown (no completion times)" and a fio replay fall back to 32 lanes. Nor did a
capture say when tracefs lost events (a buffer overrun), which leaves I/Os out silently."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from loop_helpers import attached_loop
from ssdlab.trace import capture as module
from ssdlab.trace.capture import capture, lost_events, lost_note
from ssdlab.trace.importers import import_trace
from ssdlab.trace.model import load_trace

ISSUE = " fio-9 [000] ..... 1.000000: block_rq_issue: 7,0 R 4096 () 8 + 8 be,0,4 [fio]\n"
DONE = " ksoftirqd-3 [000] ..s.. 1.000100: block_rq_complete: 7,0 R () 8 + 8 be,0,4 [0]\n"


def test_the_drain_stops_issues_and_reads_the_completions_still_to_come(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # It ends once the device is quiet, long before the drain's bound: asked to end within DRAIN_S
    # + 0.5 s (1 s) of the real clock, it failed whenever a loaded machine held the test back for
    # 0.5 s, and could not tell a quiet end from one at the bound.
    monkeypatch.setattr(module, "DRAIN_S", 600.0)
    for event in module.EVENTS:
        (tmp_path / "events" / event).mkdir(parents=True)
        (tmp_path / "events" / event / "enable").write_text("1")
    read, write = os.pipe()
    os.write(write, DONE.encode())  # the completion of an I/O in flight when the capture ended
    out = tmp_path / "out.txt"
    with out.open("w") as handle:
        started = time.monotonic()
        assert module._drain(tmp_path, read, handle) == 1
        assert time.monotonic() - started < module.DRAIN_S / 2  # quiet: it ends, not at the bound
    os.close(read)
    os.close(write)
    assert out.read_text() == DONE
    assert (tmp_path / "events" / "block/block_rq_issue" / "enable").read_text().strip() == "0"
    assert (tmp_path / "events" / "block/block_rq_complete" / "enable").read_text() == "1"


def test_lost_events_are_counted_over_every_cpu_and_said(tmp_path: Path) -> None:
    for cpu, (overrun, dropped) in enumerate([(5, 0), (0, 2)]):
        stats = tmp_path / "per_cpu" / f"cpu{cpu}" / "stats"
        stats.parent.mkdir(parents=True)
        stats.write_text(f"entries: 8\noverrun: {overrun}\ncommit overrun: 0\ndropped events: {dropped}\n")
    assert lost_events(tmp_path) == 7
    assert "tracefs lost 7 block events" in lost_note(7)[0] and lost_note(0) == ()


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[str]:
    with attached_loop(tmp_path / "loop.img") as device:
        yield device


@pytest.mark.root
@pytest.mark.fio
def test_a_timed_capture_of_a_busy_device_has_every_completion(loop: str, tmp_path: Path) -> None:
    busy = subprocess.Popen(["fio", "--name=bg", f"--filename={loop}", "--direct=1", "--rw=randread", "--bs=4k",
                             "--iodepth=8", "--ioengine=libaio", "--time_based", "--runtime=3",
                             "--output=/dev/null"])
    try:
        time.sleep(0.5)
        result = capture(loop, tmp_path / "cap.txt", seconds=0.5)
    finally:
        busy.wait()
    provenance = import_trace(tmp_path / "cap.txt", "capture", tmp_path / "cap.parquet")
    trace = load_trace(tmp_path / "cap.parquet")
    assert len(trace) > 100
    lost = [note for note in result.notes if "tracefs lost" in note]
    assert len(lost) == len(result.notes)  # the clock global: no other note
    if lost:  # a loaded machine can overrun even the grown buffer (CI, 2026-11-28): then the import says so too
        assert any("lost" in note for note in provenance.notes)
    else:
        assert (trace.completion_ns >= 0).all() and not any("lost" in note for note in provenance.notes)


def test_completions_are_recorded_before_issues_are(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA: enabled issue first, the I/Os issued before block_rq_complete was on had no completion
    (the first 7 records of a capture at QD 8)."""
    written: list[tuple[str, str]] = []
    monkeypatch.setattr(module, "_write", lambda path, text: written.append((path.parent.name, text)))
    module._enable(tmp_path, 7, 0)
    enabled = [event for event, text in written if text == "1"]
    assert enabled[-1] == "block_rq_issue" and set(enabled) == {e.split("/")[1] for e in module.EVENTS}
    assert all(text == f"dev == {7 << 20}" for _, text in written[:len(module.EVENTS)])  # filters first
