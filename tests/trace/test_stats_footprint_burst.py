"""trace stats: footprint and reuse of the data moved, burstiness over the trace's every second.

QA (2026-11-28, a capture of fio on a loop device: 4.1 MiB read and written, 5 MiB trimmed): the
footprint held the trims' extents and the bytes moved did not, so it printed "reuse 0.45x", below
the 1 that moving each byte once gives. And the peak-second ratio's mean left out the idle
seconds: a burst and one I/O an hour later read as barely bursty."""

from __future__ import annotations

import numpy as np
import pytest

from ssdlab.trace.model import OP_READ, OP_TRIM, OP_WRITE, TraceChunk
from ssdlab.trace.stats import trace_stats

MIB = 1 << 20


def _chunk(ts_ns: list[int], ops: list[int], offsets: list[int], lengths: list[int]) -> TraceChunk:
    n = len(ts_ns)
    return TraceChunk.from_columns({"timestamp_ns": ts_ns, "op": ops, "offset_bytes": offsets, "length_bytes": lengths,
                                    "flags": np.zeros(n), "pid": np.full(n, -1), "completion_ns": np.full(n, -1)})


def test_trimmed_extents_are_no_part_of_the_footprint() -> None:
    s = trace_stats([_chunk([0, 1, 2], [OP_WRITE, OP_READ, OP_TRIM], [0, 4 * MIB, 64 * MIB], [MIB, MIB, 5 * MIB])])
    assert s.footprint_bytes == 2 * MIB
    assert s.reuse == pytest.approx(1.0)  # each byte moved once


def test_idle_seconds_count_in_the_mean_second() -> None:
    burst = [i * 1000 for i in range(1000)]  # 1,000 I/Os in the first second
    s = trace_stats([_chunk([*burst, 3600 * 10**9], [OP_READ] * 1001, [0] * 1001, [4096] * 1001)])
    # 1,001 I/Os over the 3,601 seconds from the first to the last: the mean second holds 0.278
    assert s.peak_to_mean_iops == pytest.approx(1000 / (1001 / 3601))


def test_a_queue_depth_unknown_for_a_few_ios_says_how_many() -> None:
    """QA: a capture with 1 of 78,626 I/Os without its completion printed "average QD unknown (no
    completion times)", as if the trace had none."""
    from ssdlab.cli.trace import qd_text

    c = _chunk([0, 10, 20], [OP_READ] * 3, [0, 4096, 8192], [4096] * 3)
    done = TraceChunk.from_columns({**c.columns(), "completion_ns": np.array([5, 15, -1])})
    s = trace_stats([done])
    assert s.without_completion == 1
    assert qd_text(s) == "unknown (1 of 3 I/Os have no completion time)"
    assert qd_text(trace_stats([c])) == "unknown (no completion times)"
