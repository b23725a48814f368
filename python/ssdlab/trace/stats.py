"""Summary statistics of a trace, accumulated chunk by chunk (bounded memory).

Definitions (the ones `ssdlab trace stats` prints and the generators are tested on):
- size mix: share of read+write I/Os per size class; a class holds sizes from its
  bound up to the next one (the "4K" class is 4 KiB up to 8 KiB, exclusive), as in the
  size tables of the client-bench reviews this lab follows.
- order: records are taken in issue-time order (a trace file is written sorted; a chunk that
  is not is sorted, so inter-arrival gaps are never negative).
- sequential: a read or write whose offset is the end of the previous read or write.
- burstiness: coefficient of variation of inter-arrival times (1 for Poisson arrivals)
  and the peak-second to mean-second I/O count ratio, the mean over every second from the
  first I/O's to the last one's, idle seconds included (QA: the mean was over the seconds with
  I/O alone, so a burst of 1,000 I/Os and one I/O an hour later read 2.0, not 3,597).
- footprint: bytes in the union of the extents read or written; reuse = bytes read and
  written / footprint, so never below 1 (QA: the footprint held trims' extents and the bytes
  did not: a capture of 4.1 MiB read and written, 5 MiB trimmed, read "reuse 0.45x").
- average queue depth (Little's law): sum of I/O latencies / busy time, where busy time
  is the union of intervals with at least one I/O outstanding (needs completion times).
A statistic of nothing is None, never 0: shares and the size mix need a read or write,
inter-arrival figures two I/Os, the burst ratio one, reuse a footprint (QA: an empty capture
printed "CV 0.00" and "0.0 % of I/Os", figures of I/O that never happened).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ssdlab.trace.metrics import BusyClock
from ssdlab.trace.model import FLAG_FUA, FLAG_PREFLUSH, OP_FLUSH, OP_NAMES, OP_READ, OP_WRITE, TraceChunk
from ssdlab.units import share_pct

KIB = 1024
SIZE_CLASSES: tuple[tuple[str, int], ...] = (
    ("<4K", 0), ("4K", 4 * KIB), ("8K", 8 * KIB), ("16K", 16 * KIB), ("32K", 32 * KIB),
    ("64K", 64 * KIB), ("128K", 128 * KIB), (">128K", 256 * KIB),
)
_EDGES = np.array([edge for _, edge in SIZE_CLASSES[1:]], dtype=np.int64)


@dataclass(frozen=True)
class TraceStats:
    records: int
    duration_s: float
    ios: dict[str, int]  # per op name
    bytes: dict[str, int]
    size_mix_pct: dict[str, float] | None  # None: no read or write
    sequential_pct: float | None
    interarrival_mean_us: float | None  # None: fewer than two I/Os
    interarrival_cv: float | None  # None as well when every I/O came at once (no mean gap to divide by)
    peak_to_mean_iops: float | None  # None: no I/O
    footprint_bytes: int
    reuse: float | None  # None: nothing touched
    fua_writes: int
    preflush_writes: int
    flushes: int
    avg_qd: float | None  # None without completion times, or without time an I/O was outstanding
    qd_per_second: tuple[float, ...] = ()
    completion_times: bool = True  # every I/O has its completion time (False: avg_qd is unknown)
    without_completion: int = 0  # I/Os without their completion time (one makes avg_qd unknown)

    @property
    def read_pct_ios(self) -> float | None:
        return share_pct(self.ios["read"], self.ios["read"] + self.ios["write"])

    @property
    def read_pct_bytes(self) -> float | None:
        return share_pct(self.bytes["read"], self.bytes["read"] + self.bytes["write"])

    def as_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "qd_per_second"}
        out.update(read_pct_ios=self.read_pct_ios, read_pct_bytes=self.read_pct_bytes)
        return out


def _merge_extents(starts: npt.NDArray[np.int64], ends: npt.NDArray[np.int64]) -> tuple[Any, Any]:
    """The union of [start, end) extents as sorted disjoint extents (none of none: a trace of
    flushes only touches no extent)."""
    if not len(starts):
        return starts, ends
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    run_end = np.maximum.accumulate(e)
    new = np.ones(len(s), dtype=bool)
    new[1:] = s[1:] > run_end[:-1]
    idx = np.flatnonzero(new)
    last = np.append(idx[1:] - 1, len(s) - 1)
    return s[idx], run_end[last]


@dataclass
class StatsAccumulator:
    """Feed chunks in trace order; `result()` gives the TraceStats."""

    records: int = 0
    ios: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(4, dtype=np.int64))
    nbytes: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(4, dtype=np.int64))
    size_counts: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(len(SIZE_CLASSES), dtype=np.int64))
    seq: int = 0
    prev_end: int | None = None  # end of the last read or write of earlier chunks
    first_ts: int | None = None
    last_ts: int = 0
    gap_sum: float = 0.0
    gap_sq: float = 0.0
    per_second: dict[int, int] = field(default_factory=dict)
    lat_per_second: dict[int, float] = field(default_factory=dict)
    ext_s: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ext_e: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    fua: int = 0
    preflush: int = 0
    busy: BusyClock = field(default_factory=BusyClock)
    lat_sum_ns: float = 0.0
    has_completion: bool = True
    without_completion: int = 0

    def add(self, c: TraceChunk) -> None:
        if not len(c):
            return
        # Imports write traces in time order (docs/traces.md, "Time order"); a file from before
        # that, or from elsewhere, is summarised as replay sees it: in issue order.
        c = c.in_time_order()
        self.records += len(c)
        np.add.at(self.ios, c.op, 1)
        np.add.at(self.nbytes, c.op, c.length_bytes)
        rw = (c.op == OP_READ) | (c.op == OP_WRITE)
        self._sizes_and_sequence(c, rw)
        self._timing(c)
        # a trim moves no data: its extents are not part of what the bytes moved touched
        starts = c.offset_bytes[rw]
        s, e = _merge_extents(np.concatenate([self.ext_s, starts]),
                              np.concatenate([self.ext_e, starts + c.length_bytes[rw]]))
        self.ext_s, self.ext_e = s, e
        writes = c.op == OP_WRITE
        self.fua += int(np.count_nonzero(writes & ((c.flags & FLAG_FUA) != 0)))
        # on writes only: a flush request is marked PREFLUSH too (RWBS `FF`), and counts as a flush
        self.preflush += int(np.count_nonzero(writes & ((c.flags & FLAG_PREFLUSH) != 0)))

    def _sizes_and_sequence(self, c: TraceChunk, rw: npt.NDArray[np.bool_]) -> None:
        off, ln = c.offset_bytes[rw], c.length_bytes[rw]
        if not len(off):
            return
        self.size_counts += np.bincount(np.searchsorted(_EDGES, ln, side="right"), minlength=len(SIZE_CLASSES))
        # the first I/O of the trace follows nothing: no marker value stands in for "nothing"
        sequential = np.zeros(len(off), dtype=np.bool_)
        sequential[1:] = off[1:] == (off + ln)[:-1]
        sequential[0] = self.prev_end is not None and int(off[0]) == self.prev_end
        self.seq += int(np.count_nonzero(sequential))
        self.prev_end = int(off[-1] + ln[-1])

    def _timing(self, c: TraceChunk) -> None:
        ts = c.timestamp_ns
        if self.first_ts is None:
            self.first_ts = int(ts[0])
            prev = ts[:1]
        else:
            self.first_ts = min(self.first_ts, int(ts[0]))
            prev = np.array([self.last_ts])
        # A chunk that starts before the last one ended (a file written before imports sorted)
        # gives a gap of 0 there, never a negative one.
        gaps = np.maximum(np.diff(np.concatenate([prev, ts])), 0).astype(np.float64)
        self.gap_sum += float(gaps.sum())
        self.gap_sq += float((gaps * gaps).sum())
        self.last_ts = max(self.last_ts, int(ts[-1]))
        secs, counts = np.unique(ts // 1_000_000_000, return_counts=True)
        for s, n in zip(secs.tolist(), counts.tolist(), strict=True):
            self.per_second[s] = self.per_second.get(s, 0) + n
        known = c.completion_ns >= 0
        if not known.all():
            self.has_completion = False
            self.without_completion += int(np.count_nonzero(~known))
            return
        lat = (c.completion_ns - ts).astype(np.float64)
        self.lat_sum_ns += float(lat.sum())
        self.busy.add(ts, c.completion_ns)
        lsecs = ts // 1_000_000_000
        for s, total in zip(*_group_sum(lsecs, lat), strict=True):
            self.lat_per_second[s] = self.lat_per_second.get(s, 0.0) + total

    def _size_mix_pct(self, rw: int) -> dict[str, float] | None:
        if not rw:
            return None
        return {name: 100.0 * int(n) / rw for (name, _), n in zip(SIZE_CLASSES, self.size_counts, strict=True)}

    def result(self) -> TraceStats:
        rw = int(self.ios[OP_READ] + self.ios[OP_WRITE])
        n_gaps = self.records - 1
        mean_gap = self.gap_sum / n_gaps if n_gaps > 0 else None
        var = max(self.gap_sq / n_gaps - mean_gap * mean_gap, 0.0) if mean_gap is not None else 0.0
        seconds = list(self.per_second.values())
        spanned = max(self.per_second) - min(self.per_second) + 1 if seconds else 0
        footprint = int((self.ext_e - self.ext_s).sum())
        moved = int(self.nbytes[OP_READ] + self.nbytes[OP_WRITE])
        busy_ns = self.busy.total_ns
        qd = self.lat_sum_ns / busy_ns if self.has_completion and busy_ns > 0 else None
        qd_series: tuple[float, ...] = ()
        if qd is not None and self.lat_per_second:
            lo, hi = min(self.lat_per_second), max(self.lat_per_second)
            qd_series = tuple(self.lat_per_second.get(s, 0.0) / 1e9 for s in range(lo, hi + 1))
        return TraceStats(
            records=self.records, duration_s=(self.last_ts - (self.first_ts or 0)) / 1e9,
            ios={name: int(self.ios[i]) for i, name in enumerate(OP_NAMES)},
            bytes={name: int(self.nbytes[i]) for i, name in enumerate(OP_NAMES)},
            size_mix_pct=self._size_mix_pct(rw),
            sequential_pct=share_pct(self.seq, rw),
            interarrival_mean_us=None if mean_gap is None else mean_gap / 1e3,
            interarrival_cv=(var ** 0.5) / mean_gap if mean_gap else None,
            peak_to_mean_iops=max(seconds) / (sum(seconds) / spanned) if seconds else None,
            footprint_bytes=footprint, reuse=moved / footprint if footprint else None,
            fua_writes=self.fua, preflush_writes=self.preflush, flushes=int(self.ios[OP_FLUSH]),
            avg_qd=qd, qd_per_second=qd_series, completion_times=self.has_completion,
            without_completion=self.without_completion,
        )


def _group_sum(keys: npt.NDArray[np.int64], values: npt.NDArray[np.float64]) -> tuple[list[int], list[float]]:
    uniq, inverse = np.unique(keys, return_inverse=True)
    return uniq.tolist(), np.bincount(inverse, weights=values).tolist()


def trace_stats(chunks: Iterable[TraceChunk]) -> TraceStats:
    acc = StatsAccumulator()
    for chunk in chunks:
        acc.add(chunk)
    return acc.result()
