"""FUA / flush audit of a trace: how many writes carried Force Unit Access, how many writes
came with a preflush, how many flushes, overall and by process where the trace has it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ssdlab.trace.model import FLAG_FUA, FLAG_PREFLUSH, OP_FLUSH, OP_WRITE, TraceChunk
from ssdlab.units import counted, share_pct


@dataclass(frozen=True)
class AuditRow:
    who: str  # "all", or "NAME (pid N)"
    writes: int
    fua: int
    preflush: int
    flushes: int

    @property
    def fua_pct(self) -> float | None:
        """None without writes: a share of nothing is no figure (QA: "0 of 0 writes (0.0 %)")."""
        return share_pct(self.fua, self.writes)

    def sentence(self) -> str:
        if self.fua_pct is None:
            return "no writes, so none carried FUA"
        return f"{self.fua:,} of {counted(self.writes, 'write')} ({self.fua_pct:.1f} %) carried FUA"


def _count(c: TraceChunk, mask: np.ndarray, into: dict[int, np.ndarray]) -> None:  # type: ignore[type-arg]
    pids = c.pid[mask]
    for pid in np.unique(pids).tolist():
        into.setdefault(pid, np.zeros(4, dtype=np.int64))
        into[pid] += _tally(c, mask & (c.pid == pid))


def _tally(c: TraceChunk, mask: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    writes = mask & (c.op == OP_WRITE)
    # A preflush counts on a write only: the kernel marks its flush requests PREFLUSH too (RWBS
    # `FF`), and those are flushes, counted as such.
    return np.array([
        np.count_nonzero(writes), np.count_nonzero(writes & ((c.flags & FLAG_FUA) != 0)),
        np.count_nonzero(writes & ((c.flags & FLAG_PREFLUSH) != 0)), np.count_nonzero(mask & (c.op == OP_FLUSH)),
    ], dtype=np.int64)


def audit_fua(chunks: Iterable[TraceChunk], processes: Mapping[str, str] | None = None) -> list[AuditRow]:
    """The "all" row first, then one row per process by number of writes (traces with pids)."""
    total = np.zeros(4, dtype=np.int64)
    by_pid: dict[int, np.ndarray] = {}  # type: ignore[type-arg]
    for c in chunks:
        every = np.ones(len(c), dtype=bool)
        total += _tally(c, every)
        if (c.pid >= 0).any():
            _count(c, c.pid >= 0, by_pid)
    rows = [AuditRow("all", *map(int, total))]
    names = processes or {}
    for pid, t in sorted(by_pid.items(), key=lambda kv: (-int(kv[1][0]), kv[0])):
        rows.append(AuditRow(f"{names.get(str(pid), '?')} (pid {pid})", *map(int, t)))
    return rows
