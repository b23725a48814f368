"""A request the driver requeues is issued twice and completed once: it is one I/O.

QA (2026-11-28): blkparse's `R` (requeue) was skipped and both `D` events imported, so a requeued
write became two writes, one of them without a completion, and the whole trace's queue depth read
as unknown; capture did not record block_rq_requeue at all."""

from __future__ import annotations

from ssdlab.trace.capture import EVENTS
from ssdlab.trace.importers import parse_text
from ssdlab.trace.model import OP_WRITE

BLKPARSE = """\
  8,0    0        1     0.000000000   100  D   W 100 + 8 [a]
  8,0    0        2     0.000010000   100  R   W 100 + 8 [a]
  8,0    0        3     0.000020000   100  D   W 100 + 8 [a]
  8,0    0        4     0.000030000   100  D   R 500 + 8 [a]
  8,0    0        5     0.000100000     0  C   W 100 + 8 [0]
  8,0    0        6     0.000120000     0  C   R 500 + 8 [0]
"""

TRACEFS = """\
 dd-7 [001] ..... 10.000000: block_rq_issue: 8,0 WS 4096 () 100 + 8 be,0,4 [dd]
 kworker-9 [001] ..... 10.000010: block_rq_requeue: 8,0 WS () 100 + 8 be,0,4 [0]
 kworker-9 [001] ..... 10.000020: block_rq_issue: 8,0 WS 4096 () 100 + 8 be,0,4 [kworker]
 ksoftirqd-3 [001] ..s.. 10.000100: block_rq_complete: 8,0 WS () 100 + 8 be,0,4 [0]
"""


def test_a_requeued_blkparse_request_is_one_io_with_its_completion() -> None:
    c = parse_text(BLKPARSE, "blkparse")
    assert len(c) == 2 and int(c.op[0]) == OP_WRITE
    assert c.timestamp_ns.tolist() == [0, 10_000]  # at its last issue (times from the first record kept)
    assert c.completion_ns.tolist() == [80_000, 100_000]  # every I/O has its completion: the depth is known


def test_a_requeued_tracefs_request_is_one_io_and_capture_records_requeues() -> None:
    c = parse_text(TRACEFS, "capture")
    assert len(c) == 1 and int(c.completion_ns[0]) == 80_000
    assert "block/block_rq_requeue" in EVENTS
