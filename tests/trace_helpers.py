"""Trace files for tests that need a replay to take its time."""

from __future__ import annotations

from pathlib import Path

from ssdlab.trace.model import OP_WRITE, Provenance, TraceChunk, write_trace


def slow_writes(path: Path, count: int, gap_ns: int) -> Path:
    """`count` 4 KiB writes `gap_ns` apart, as a trace file."""
    write_trace(path, [TraceChunk.from_columns({
        "timestamp_ns": [i * gap_ns for i in range(count)], "op": [OP_WRITE] * count,
        "offset_bytes": [i * 65536 for i in range(count)], "length_bytes": [4096] * count, "flags": [0] * count,
        "pid": [-1] * count, "completion_ns": [-1] * count})], Provenance(source_format="msr", source=str(path)))
    return path
