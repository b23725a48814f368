"""Events tracefs lost: the capture keeps its buffer large, and the import takes the lines that say so.

CI flake (2026-11-28): a capture of a loop device busy at QD 8, on a loaded machine, held 140
"CPU:1 [LOST 507 EVENTS]" lines (the kernel's, where the ring buffer overran before trace_pipe was
read), and `import_trace(..., "capture")` refused the whole capture at the first of them: "not a
tracefs block event line". The instance's buffer was tracefs's default, ~1.4 MB per CPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.trace import capture as module
from ssdlab.trace.importers import import_trace
from ssdlab.trace.model import load_trace

ISSUE = " fio-9 [000] ..... 1.{us:06d}: block_rq_issue: 7,0 R 4096 () {sector} + 8 be,0,4 [fio]\n"
DONE = " ksoftirqd-3 [001] ..s.. 1.{us:06d}: block_rq_complete: 7,0 R () {sector} + 8 be,0,4 [0]\n"


def test_a_capture_with_lost_events_imports_and_says_what_is_missing(tmp_path: Path) -> None:
    lines = [ISSUE.format(us=10, sector=8), DONE.format(us=110, sector=8),
             ISSUE.format(us=200, sector=64),  # its completion lost in the overrun below
             "CPU:1 [LOST 507 EVENTS]\n",
             ISSUE.format(us=900, sector=128), DONE.format(us=1000, sector=128),
             "CPU:0 [LOST 3 EVENTS]\n"]
    src = tmp_path / "cap.txt"
    src.write_text("".join(lines))
    provenance = import_trace(src, "capture", tmp_path / "cap.parquet")
    trace = load_trace(tmp_path / "cap.parquet")
    assert list(trace.offset_bytes) == [8 * 512, 64 * 512, 128 * 512]
    assert (trace.completion_ns >= 0).tolist() == [True, False, True]
    said = [note for note in provenance.notes if "lost 510 events" in note]
    assert said and "no completion time" in said[0]


def test_a_lost_line_is_no_event_of_another_format(tmp_path: Path) -> None:
    """Only the kernel's own words are taken: anything else on such a line is still refused."""
    src = tmp_path / "cap.txt"
    src.write_text(ISSUE.format(us=10, sector=8) + "CPU:1 [LOST some EVENTS]\n")
    with pytest.raises(Exception, match="not a tracefs block event line"):
        import_trace(src, "capture", tmp_path / "cap.parquet")


@pytest.mark.parametrize(("before", "cpus", "after"), [
    ("1410", 2, 16384),  # a new instance's default, on this machine: grown to BUFFER_KB
    ("7 (expanded: 1408)", 2, 16384),  # the top instance before its first use prints this
    ("1410", 64, 4096),  # many CPUs: BUFFER_TOTAL_KB over all of them
    ("65536", 2, 65536),  # a larger buffer someone set is kept
])
def test_the_buffer_is_grown_within_a_bound(tmp_path: Path, before: str, cpus: int, after: int) -> None:
    (tmp_path / "buffer_size_kb").write_text(before + "\n")
    assert module.grow_buffer(tmp_path, cpus) == after
    # The kernel's attribute takes the written number whole; this file keeps the old text's tail.
    assert (tmp_path / "buffer_size_kb").read_text().startswith(str(after))


def test_a_buffer_the_kernel_will_not_show_is_left_alone(tmp_path: Path) -> None:
    assert module.grow_buffer(tmp_path, 2) is None  # no buffer_size_kb: the capture goes on with the default
