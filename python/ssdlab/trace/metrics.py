"""Replay metrics, defined once here (docs/traces.md, "Metrics").

The storage-bench reviews this lab follows (AnandTech's "The Destroyer" and "Heavy"
storage benches, 2013-2016 SSD reviews, "Storage Bench" methodology pages) report:
- average data rate = bytes moved / busy time, where busy time is the union of the
  intervals with at least one I/O outstanding (idle time does not count against the drive);
- average service time = mean of (completion - issue) over all I/Os;
- latency percentiles, read and write apart (over fio's histogram bins, as every other
  latency percentile of ssdlab: the bundle keeps bins, and `trace replay` and a trace test
  print the same figures for the same replay);
- the share of I/Os that took longer than 10 ms and longer than 100 ms, all and by direction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ssdlab.measurement import LatencyHistogram
from ssdlab.trace.model import OP_READ, OP_WRITE
from ssdlab.units import share_pct

PERCENTILES = (50.0, 99.0, 99.9)
PLAT_BITS, PLAT_VAL = 6, 64  # fio's histogram layout (hist.rs), so bins merge with fio's
SLOW_MS = (10, 100)


def duration_parts(seconds: float) -> tuple[str, str]:
    """A duration as (number, unit) in the unit that keeps it short: ('75.7', 'µs'), ('1.30', 'ms'),
    ('1.234', 's'); so `trace replay` and the `trace` test's results print busy and idle time alike
    (QA: a busy time of 75.7 µs, the data rate's denominator, showed as "0.0 s")."""
    if 0 < abs(seconds) < 1:
        us = seconds * 1e6
        return (f"{us / 1e3:,.2f}", "ms") if abs(us) >= 1e3 else (f"{us:,.1f}", "µs")
    return (f"{seconds:,.3f}" if abs(seconds) < 10 else f"{seconds:,.2f}" if abs(seconds) < 60
            else f"{seconds:,.1f}"), "s"


@dataclass
class BusyClock:
    """Union of [issue, completion) intervals, fed in issue order, chunk by chunk.

    Times may be any int64, negative too (an issue time estimated from a log), so "nothing
    open yet" is None, never a marker value a time could take."""

    busy_ns: int = 0
    open_interval: tuple[int, int] | None = None  # (start, end) still open from earlier chunks

    def add(self, issue_ns: npt.NDArray[np.int64], done_ns: npt.NDArray[np.int64]) -> None:
        if not len(issue_ns):
            return
        s, e = np.asarray(issue_ns, dtype=np.int64), np.asarray(done_ns, dtype=np.int64)
        if self.open_interval is not None:  # the open interval goes on as one more I/O
            s, e = np.append(s, self.open_interval[0]), np.append(e, self.open_interval[1])
        order = np.argsort(s, kind="stable")
        s, e = s[order], e[order]
        run_end = np.maximum.accumulate(e)
        new = np.ones(len(s), dtype=np.bool_)
        new[1:] = s[1:] > run_end[:-1]  # an interval starts where nothing was outstanding
        starts = np.flatnonzero(new)
        ends = np.append(starts[1:] - 1, len(s) - 1)
        spans = run_end[ends] - s[starts]
        self.busy_ns += int(spans[:-1].sum())
        self.open_interval = (int(s[starts[-1]]), int(run_end[-1]))

    @property
    def total_ns(self) -> int:
        """Busy time including the interval still open."""
        if self.open_interval is None:
            return self.busy_ns
        return self.busy_ns + self.open_interval[1] - self.open_interval[0]


def busy_time_ns(issue_ns: npt.NDArray[np.int64], done_ns: npt.NDArray[np.int64]) -> int:
    clock = BusyClock()
    clock.add(issue_ns, done_ns)
    return clock.total_ns


@dataclass(frozen=True)
class ReplayMetrics:
    """None where nothing was measured (no reads: no read latency; no busy time: no data
    rate), as the `trace` test's results show "—", never 0."""

    ios: int
    bytes_moved: int
    busy_s: float
    elapsed_s: float
    avg_data_rate_mb_s: float | None
    avg_service_us: float | None
    read_avg_service_us: float | None
    write_avg_service_us: float | None
    read_lat_us: dict[str, float | None]  # "p50", "p99", "p99.9"
    write_lat_us: dict[str, float | None]
    over_10ms_pct: float | None
    over_100ms_pct: float | None
    read_over_10ms_pct: float | None
    read_over_100ms_pct: float | None
    write_over_10ms_pct: float | None
    write_over_100ms_pct: float | None

    def flat(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in self.__dataclass_fields__
                               if k not in ("read_lat_us", "write_lat_us")}
        for d in ("read", "write"):
            for p, v in getattr(self, f"{d}_lat_us").items():
                out[f"{d}_lat_{p.replace('.', '_')}_us"] = v
        return out


def _pct_over(lat_ns: npt.NDArray[np.int64], ms: int) -> float | None:
    return share_pct(float(np.count_nonzero(lat_ns > ms * 1_000_000)), len(lat_ns))


def fio_bins(lat_ns: npt.NDArray[np.int64]) -> list[tuple[int, int]]:
    """(bin value ns, count) pairs in fio's bin scheme (crates/ssdsim/src/hist.rs)."""
    v = np.maximum(lat_ns, 0).astype(np.uint64)
    msb = np.zeros(len(v), dtype=np.int64)
    nz = v > 0
    msb[nz] = np.floor(np.log2(v[nz].astype(np.float64))).astype(np.int64)
    small = msb <= PLAT_BITS
    err = np.maximum(msb - PLAT_BITS, 0)
    offset = (v >> err.astype(np.uint64)).astype(np.int64) & (PLAT_VAL - 1)
    idx = np.where(small, v.astype(np.int64), ((err + 1) << PLAT_BITS) + offset)
    uniq, counts = np.unique(idx, return_counts=True)
    return [(_idx_to_val(int(i)), int(c)) for i, c in zip(uniq, counts, strict=True)]


def _idx_to_val(idx: int) -> int:
    if idx < (PLAT_VAL << 1):
        return idx
    error_bits = (idx >> PLAT_BITS) - 1
    base = 1 << (error_bits + PLAT_BITS)
    return base + int(((idx % PLAT_VAL) + 0.5) * (1 << error_bits))


def _percentiles(lat_ns: npt.NDArray[np.int64]) -> dict[str, float | None]:
    """The percentiles a bundle's histogram gives (LatencyHistogram.percentile_ns): numpy's own
    rule on exact latencies took the 1999th of 2000 writes for p99.9 where the bins take the 1998th."""
    if not len(lat_ns):
        return {f"p{p:g}": None for p in PERCENTILES}
    hist = LatencyHistogram.from_pairs(fio_bins(lat_ns))
    return {f"p{p:g}": hist.percentile_ns(p, float(lat_ns.max())) / 1e3 for p in PERCENTILES}


def _mean_us(lat_ns: npt.NDArray[np.int64]) -> float | None:
    return float(lat_ns.mean()) / 1e3 if len(lat_ns) else None


def replay_metrics(op: npt.NDArray[np.uint8], length_bytes: npt.NDArray[np.int64],
                   issue_ns: npt.NDArray[np.int64], done_ns: npt.NDArray[np.int64]) -> ReplayMetrics:
    """The metrics of one replay from its per-I/O issue and completion times."""
    lat = done_ns - issue_ns
    rd, wr = op == OP_READ, op == OP_WRITE
    moved = int(length_bytes[rd | wr].sum())
    busy_ns = busy_time_ns(issue_ns, done_ns)
    elapsed = int(done_ns.max() - issue_ns.min()) if len(op) else 0
    return ReplayMetrics(
        ios=len(op), bytes_moved=moved, busy_s=busy_ns / 1e9, elapsed_s=elapsed / 1e9,
        avg_data_rate_mb_s=moved / busy_ns * 1e3 if busy_ns else None,
        avg_service_us=_mean_us(lat), read_avg_service_us=_mean_us(lat[rd]),
        write_avg_service_us=_mean_us(lat[wr]),
        read_lat_us=_percentiles(lat[rd]), write_lat_us=_percentiles(lat[wr]),
        over_10ms_pct=_pct_over(lat, 10), over_100ms_pct=_pct_over(lat, 100),
        read_over_10ms_pct=_pct_over(lat[rd], 10), read_over_100ms_pct=_pct_over(lat[rd], 100),
        write_over_10ms_pct=_pct_over(lat[wr], 10), write_over_100ms_pct=_pct_over(lat[wr], 100),
    )
