"""Replay a trace on the simulator (native, crates/ssdsim/src/replay.rs) and derive its
metrics (ssdlab.trace.metrics). Offsets are remapped into the target's span first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from ssdlab.errors import EngineError, UsageError
from ssdlab.trace.metrics import ReplayMetrics, replay_metrics
from ssdlab.trace.model import OP_FLUSH, TraceChunk

if TYPE_CHECKING:
    from ssdlab import _ssdsim

Remap = Literal["modulo", "proportional"]
# Idle stretches are cut to this: a nearly back-to-back replay. AnandTech's later descriptions give
# 25 ms (docs/methods/trace.md, "Published method it follows"); idle_cap_us=25000 replays that way.
DEFAULT_IDLE_CAP_US = 25.0
SECTOR = 512


def remap_offsets(c: TraceChunk, span_bytes: int, how: Remap = "modulo") -> npt.NDArray[np.int64]:
    """Offsets moved into [0, span_bytes), sector-aligned, so every I/O fits.

    - modulo: offset mod (span - largest I/O); keeps sequential runs sequential (but
      for the wrap) and maps a large footprint onto the span by folding it;
    - proportional: offset scaled by span / the trace's extent; keeps the layout's shape,
      but shrinks the distance between I/Os, so sequential runs may overlap.
    A trace that already fits is left as it is either way."""
    data = c.op != OP_FLUSH
    if not data.any():
        return c.offset_bytes.copy()
    largest = int(c.length_bytes[data].max())
    if largest >= span_bytes:
        raise UsageError(f"an I/O of {largest} bytes does not fit the span of {span_bytes} bytes")
    ends = c.offset_bytes + c.length_bytes
    if int(ends[data].max()) <= span_bytes:
        return c.offset_bytes.copy()
    room = (span_bytes - largest) // SECTOR * SECTOR
    if how == "modulo":
        off = c.offset_bytes % room
    else:
        extent = int(c.offset_bytes[data].max()) + 1
        off = (c.offset_bytes.astype(np.float64) * (room / extent)).astype(np.int64)
    off = off // SECTOR * SECTOR
    return np.where(data, off, 0).astype(np.int64)


@dataclass(frozen=True)
class SimReplay:
    summary: _ssdsim.ReplaySummary
    issue_ns: npt.NDArray[np.int64]
    done_ns: npt.NDArray[np.int64]
    metrics: ReplayMetrics


def replay_on_drive(drive: _ssdsim.Drive, c: TraceChunk, *, idle_cap_us: float | None = DEFAULT_IDLE_CAP_US,
                    remap: Remap = "modulo") -> SimReplay:
    """Replay the whole trace `c` on `drive` (open loop) and measure it."""
    span = int(drive.identity()["capacity_bytes"])
    offsets = remap_offsets(c, span, remap)
    order = np.argsort(c.timestamp_ns, kind="stable")  # replay is in issue order
    cap_ns = None if idle_cap_us is None else round(idle_cap_us * 1000)
    length = np.where(c.op == OP_FLUSH, 0, c.length_bytes)
    try:
        summary, issue, done = drive.replay(
            c.timestamp_ns[order].astype("<u8").tobytes(), c.op[order].astype(np.uint8).tobytes(),
            offsets[order].astype("<u8").tobytes(), length[order].astype("<u8").tobytes(),
            c.flags[order].astype(np.uint8).tobytes(), cap_ns)
    except ValueError as error:
        raise EngineError(f"simulator refused the trace: {error}") from None
    issue_ns = np.frombuffer(issue, dtype="<u8").astype(np.int64)
    done_ns = np.frombuffer(done, dtype="<u8").astype(np.int64)
    metrics = replay_metrics(c.op[order], length[order], issue_ns, done_ns)
    return SimReplay(summary=summary, issue_ns=issue_ns, done_ns=done_ns, metrics=metrics)
