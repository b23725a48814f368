"""Replay a trace with fio (docs/traces.md, "Replay on fio"): convert it to a fio iolog v3,
run fio on it with io_uring, and measure fio's timing drift.

Conversion:
- offsets are remapped into the target's span (ssdlab.trace.replay.remap_offsets, modulo
  or proportional) and aligned down to ALIGN bytes, lengths rounded up to ALIGN, because
  the replay runs with O_DIRECT;
- idle time is capped: a gap is cut where nothing is outstanding — judged from the trace's
  own completion times where it has them, else every inter-arrival gap is capped;
- flushes become `sync`; trims are dropped (fio's io_uring engine cannot trim a file) and
  counted;
- v3 timestamps are microseconds from the start (fio's iolog.c writes utime_since_now).
Drift: fio 3.33 cannot log an iolog while it replays one, so issue times come from its
per-I/O latency log (write_lat_log, log_avg_msec=0): completion time (ms) minus total latency
(ns), so each issue time is known to ±1 ms. Drift compares those with the iolog's read and
write times: `drift_pct` = (issued span - planned span) / planned span, and the per-I/O lag
(issued - planned, both in issue order) at p50 and p99.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ssdlab.errors import EngineError
from ssdlab.trace.model import OP_FLUSH, OP_READ, OP_TRIM, OP_WRITE, TraceChunk
from ssdlab.trace.replay import DEFAULT_IDLE_CAP_US, Remap, remap_offsets

ALIGN = 4096
FIO_ACTIONS = {OP_READ: "read", OP_WRITE: "write", OP_FLUSH: "sync"}


def capped_times_ns(c: TraceChunk, idle_cap_us: float | None) -> npt.NDArray[np.int64]:
    """Issue times with idle time cut to the cap (see the module docstring)."""
    ts = c.timestamp_ns - (int(c.timestamp_ns.min()) if len(c) else 0)
    if idle_cap_us is None or not len(ts):
        return ts.astype(np.int64)
    cap = round(idle_cap_us * 1000)
    known = bool((c.completion_ns >= 0).all())
    done = (c.completion_ns - int(c.timestamp_ns.min())) if known else ts
    busy_until = np.maximum.accumulate(np.maximum(done, ts))
    gaps = np.diff(ts, prepend=ts[:1])
    idle = np.zeros(len(ts), dtype=np.int64)
    idle[1:] = np.maximum(ts[1:] - busy_until[:-1], 0)
    cut = np.maximum(np.minimum(idle, gaps) - cap, 0)
    return np.asarray(ts - np.cumsum(cut), dtype=np.int64)


@dataclass(frozen=True)
class Iolog:
    path: Path
    ios: int
    dropped_trims: int
    planned_us: npt.NDArray[np.int64]  # the timestamp of each read and write line, in order
    max_outstanding: int


def max_outstanding(issue_ns: npt.NDArray[np.int64], done_ns: npt.NDArray[np.int64]) -> int:
    """Most I/Os in flight at once on the traced device (its queue depth)."""
    if not len(issue_ns):
        return 1
    events = np.concatenate([np.stack([issue_ns, np.ones_like(issue_ns)], 1),
                             np.stack([done_ns, -np.ones_like(done_ns)], 1)])
    order = np.lexsort((events[:, 1], events[:, 0]))  # completions first at equal times
    return max(1, int(np.cumsum(events[order, 1]).max()))


def write_iolog(c: TraceChunk, path: Path, filename: str, span_bytes: int, *, remap: Remap = "modulo",
                idle_cap_us: float | None = DEFAULT_IDLE_CAP_US) -> Iolog:
    """The trace as a fio iolog v3 replaying onto `filename` (see the module docstring)."""
    order = np.argsort(c.timestamp_ns, kind="stable")
    c = TraceChunk.from_columns({k: v[order] for k, v in c.columns().items()})
    keep = c.op != OP_TRIM
    length = np.where(c.op == OP_FLUSH, 0, -(-c.length_bytes // ALIGN) * ALIGN)
    off = remap_offsets(TraceChunk.from_columns({**c.columns(), "length_bytes": length}), span_bytes - ALIGN, remap)
    off = off // ALIGN * ALIGN
    t_us = capped_times_ns(c, idle_cap_us) // 1000
    qd = max_outstanding(c.timestamp_ns, c.completion_ns) if (c.completion_ns >= 0).all() else 32
    name = filename.replace(" ", "_")
    lines = ["fio version 3 iolog", f"0 {name} add", f"0 {name} open"]
    for t, op, o, n in zip(t_us[keep].tolist(), c.op[keep].tolist(), off[keep].tolist(), length[keep].tolist(),
                           strict=True):
        lines.append(f"{t} {name} {FIO_ACTIONS[op]}" + ("" if op == OP_FLUSH else f" {o} {n}"))
    last = int(t_us[keep].max()) if keep.any() else 0
    lines.append(f"{last} {name} close")
    path.write_text("\n".join(lines) + "\n")
    rw = (c.op == OP_READ) | (c.op == OP_WRITE)
    return Iolog(path, int(keep.sum()), int((~keep).sum()), t_us[rw].astype(np.int64), min(qd, 256))


@dataclass(frozen=True)
class FioReplay:
    iolog: Iolog
    result: dict[str, Any]  # fio's JSON output
    issued_us: npt.NDArray[np.int64]
    drift_pct: float
    lag_p50_us: float
    lag_p99_us: float


def fio_command(fio: str, iolog: Iolog, target_file: str, log_prefix: Path, ioengine: str = "io_uring") -> list[str]:
    return [fio, "--name=replay", f"--read_iolog={iolog.path}", f"--replay_redirect={target_file}",
            f"--ioengine={ioengine}", "--direct=1", f"--iodepth={iolog.max_outstanding}",
            f"--write_lat_log={log_prefix}", "--log_avg_msec=0", "--output-format=json"]


def issued_from_lat_log(path: Path) -> npt.NDArray[np.int64]:
    """Issue times (µs, sorted) of the reads and writes in a per-I/O fio latency log:
    lines `time_ms, lat_ns, ddir, bs[, ...]`."""
    rows = np.loadtxt(path, delimiter=",", usecols=(0, 1, 2), dtype=np.int64, ndmin=2)
    if not len(rows):
        return np.zeros(0, dtype=np.int64)
    rw = rows[:, 2] <= 1
    return np.sort(rows[rw, 0] * 1000 - rows[rw, 1] // 1000)


def drift(planned_us: npt.NDArray[np.int64], issued_us: npt.NDArray[np.int64]) -> tuple[float, float, float]:
    """(span drift %, lag p50 µs, lag p99 µs) of fio's issue times against the iolog's."""
    n = min(len(planned_us), len(issued_us))
    if n < 2:
        return 0.0, 0.0, 0.0
    p, i = planned_us[:n].astype(np.float64), issued_us[:n].astype(np.float64)
    i = i - i[0] + p[0]
    span_p, span_i = p[-1] - p[0], i[-1] - i[0]
    lag = i - p
    pct = 100.0 * (span_i - span_p) / span_p if span_p > 0 else 0.0
    return pct, float(np.percentile(lag, 50)), float(np.percentile(lag, 99))


def replay_with_fio(c: TraceChunk, target_file: Path, span_bytes: int, work_dir: Path, *,
                    remap: Remap = "modulo", idle_cap_us: float | None = DEFAULT_IDLE_CAP_US,
                    ioengine_for: Callable[[int], str], fio: str = "fio", timeout_s: float = 3600.0) -> FioReplay:
    """Replay onto an existing file or device (the caller answers for safety) and measure drift.
    `ioengine_for` names the engine for the iolog's depth: the fio engine's choice
    (engines/fio.py FioEngine.ioengine_for: libaio where io_uring does not run, or where an
    older fio's io_uring would raise a depth that is not a power of two to the next one)."""
    binary = shutil.which(fio)
    if binary is None:
        raise EngineError("fio is not installed; apt-get install fio")
    work_dir.mkdir(parents=True, exist_ok=True)
    iolog = write_iolog(c, work_dir / "replay.iolog", str(target_file), span_bytes, remap=remap,
                        idle_cap_us=idle_cap_us)
    prefix = work_dir / "replay"
    lat_log = work_dir / "replay_lat.1.log"
    lat_log.unlink(missing_ok=True)
    engine = ioengine_for(iolog.max_outstanding)
    done = subprocess.run(fio_command(binary, iolog, str(target_file), prefix, engine),
                          capture_output=True, text=True, timeout=timeout_s, check=False)
    if done.returncode != 0:
        raise EngineError(f"fio replay failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    result = json.loads(done.stdout[done.stdout.index("{"):])
    issued_us = issued_from_lat_log(lat_log)
    pct, p50, p99 = drift(iolog.planned_us, issued_us)
    return FioReplay(iolog, result, issued_us, pct, p50, p99)
