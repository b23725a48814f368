"""Capture times its events with tracefs's `global` clock, one for all CPUs: the instance's default,
`local`, is each CPU's own clock, so an issue on one CPU and its completion on another could come
out of order. Where `global` cannot be set the capture keeps the instance's clock and says so."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from loop_helpers import attached_loop
from ssdlab.trace.capture import TRACEFS, CaptureResult, capture, set_clock


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[str]:
    with attached_loop(tmp_path / "loop.img") as device:
        yield device


@pytest.mark.root
def test_a_capture_runs_on_the_global_clock(loop: str, tmp_path: Path) -> None:
    seen = tmp_path / "clock.txt"
    clock_file = TRACEFS / "instances" / f"ssdlab-{os.getpid()}" / "trace_clock"  # this process's capture
    write = f"cat {clock_file} > {seen}; dd if=/dev/zero of={loop} bs=4k count=16 oflag=direct status=none"
    result = capture(loop, tmp_path / "cap.txt", command=["sh", "-c", write])
    assert result.command_status == 0 and result.lines >= 32
    assert "[global]" in seen.read_text(), seen.read_text()
    assert result.clock == "global" and result.notes == ()


def test_a_kernel_without_the_global_clock_keeps_its_own_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "trace_clock").write_text("[local] counter uptime\n")
    clock, notes = set_clock(tmp_path)
    assert clock == "local" and len(notes) == 1
    assert "tracefs's local clock, per CPU (global is not offered by this kernel)" in notes[0]
    assert (tmp_path / "trace_clock").read_text() == "[local] counter uptime\n"  # nothing written


def test_an_instance_without_a_trace_clock_file_is_noted(tmp_path: Path) -> None:
    clock, notes = set_clock(tmp_path)
    assert clock == "unknown" and len(notes) == 1 and "could not be set to global" in notes[0]


def test_trace_capture_prints_the_clock_note(cli: Callable, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ssdlab.trace.capture as module

    def captured(device: str, out_path: Path, **kwargs: Any) -> CaptureResult:
        out_path.write_text("")  # an idle device
        return CaptureResult(lines=0, seconds=1.0, command_status=None, clock="local", notes=("per CPU clock",))

    monkeypatch.setattr(module, "capture", captured)
    result = cli("trace", "capture", "-d", "/dev/null", "--seconds", "1", "-o", str(tmp_path / "c.parquet"))
    assert result.code == 0, result.stderr
    assert "Note: per CPU clock" in result.stdout


def test_a_task_name_split_between_two_reads_stays_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """trace_pipe is read in pieces: a UTF-8 character of a task name (prctl PR_SET_NAME takes any
    bytes) cut between two reads was saved as two U+FFFD."""
    import ssdlab.trace.capture as module

    line = "  café-7 [000] ..... 1.000010: block_rq_issue: 8,0 W 4096 () 0 + 8 none,0,0 [café]\n"
    read, write = os.pipe()
    os.write(write, line.encode())  # the write end stays open, as trace_pipe never ends
    monkeypatch.setattr(module, "READ_CHUNK", 6)  # "  caf\xc3" then "\xa9-7 ...": the é is cut
    out = tmp_path / "raw.txt"
    try:
        with out.open("w", encoding="utf-8") as handle:
            assert module._pump(read, handle, lambda: True) == 1
    finally:
        os.close(read)
        os.close(write)
    assert out.read_text(encoding="utf-8") == line
