"""Replay a trace with fio (docs/traces.md, "Replay on fio"): convert it to fio iologs v3,
run fio on them with io_uring, and measure fio's timing drift.

Conversion:
- offsets are remapped into the target's span (ssdlab.trace.replay.remap_offsets, modulo
  or proportional) and aligned down to ALIGN bytes, lengths rounded up to ALIGN, because
  the replay runs with O_DIRECT;
- idle time is capped: a gap is cut where nothing is outstanding — judged from the trace's
  own completion times where it has them, else every inter-arrival gap is capped; the time
  cut is reported (`Iolog.idle_cut_ns`);
- flushes become `datasync` (fdatasync(2): the device's flush on a block device, the file
  system's data sync on a file), written with an offset and a length of 0: fio's v3 parser
  takes a line of three fields for a file action, and drops `sync` without them as a "bad
  iolog file action";
- a write with a preflush becomes a `datasync` and the write, at the same time (fio cannot
  make the write wait for the flush, as the kernel did);
- FUA writes go to a second job that opens the target with O_DSYNC (fio's `sync=dsync`): a
  direct O_DSYNC write is what the kernel sends as a FUA write (block/fops.c sets REQ_FUA), as
  a write and a flush where the device has no FUA, or as a plain write where it has no volatile
  cache — what the traced kernel did with the trace's FUA write. fio's iolog has no FUA action
  and O_DSYNC belongs to a file descriptor, hence the job of their own; both jobs start
  together and keep the trace's times;
- trims are dropped (fio's io_uring engine cannot trim a file) and counted;
- v3 timestamps are microseconds from the start (fio's iolog.c writes utime_since_now), plus
  START_US: fio waits no time before an entry whenever the entry before it was at time 0
  (iolog.c delay_since_ttime, in 3.33 and still in 3.42), so the FUA job's first write would
  start at once, however late the trace has it.
Drift: fio 3.33 cannot log an iolog while it replays one, so issue times come from its
per-I/O latency logs (write_lat_log, log_avg_msec=0; one per job): completion time (ms) minus
total latency (ns), so each issue time is known to ±1 ms. Drift compares those with the iologs'
read and write times: `drift_pct` = (issued span - planned span) / planned span, and the per-I/O
lag (issued - planned, both in issue order) at p50 and p99.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ssdlab.errors import EngineError
from ssdlab.trace.model import FLAG_FUA, FLAG_PREFLUSH, OP_FLUSH, OP_READ, OP_TRIM, OP_WRITE, TraceChunk
from ssdlab.trace.replay import DEFAULT_IDLE_CAP_US, Remap, remap_offsets

ALIGN = 4096
FIO_ACTIONS = {OP_READ: "read", OP_WRITE: "write", OP_FLUSH: "datasync"}
START_US = 1  # every iolog time is this much late (see the module docstring)
UNKNOWN_DEPTH = 32  # a job's iodepth when the trace has no completion times
MAX_DEPTH = 256
LAT_LOG = "replay_lat.{job}.log"  # fio's per-I/O latency log of job N (1, 2, ...)


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
class IologJob:
    """One fio job of a replay: its iolog and how fio runs it."""

    name: str
    path: Path
    ios: int  # lines fio runs: reads, writes and datasyncs
    planned_us: npt.NDArray[np.int64]  # the times of its read and write lines, in order
    iodepth: int  # most of its I/Os in flight at once on the traced device
    dsync: bool  # opened with O_DSYNC: the trace's FUA writes


@dataclass(frozen=True)
class Iolog:
    """The iologs of one replay (the FUA job only when the trace has FUA writes)."""

    jobs: tuple[IologJob, ...]
    dropped_trims: int
    fua_writes: int  # replayed as O_DSYNC writes by the `fua` job
    preflushes: int  # writes with a preflush: each has a datasync beside it
    flushes: int
    idle_cut_ns: int  # trace time the idle cap cut

    @property
    def ios(self) -> int:
        return sum(job.ios for job in self.jobs)

    @property
    def planned_us(self) -> npt.NDArray[np.int64]:
        """The times of every read and write line, sorted (as fio's issue times are)."""
        return np.sort(np.concatenate([job.planned_us for job in self.jobs])) if self.jobs \
            else np.zeros(0, dtype=np.int64)

    @property
    def max_outstanding(self) -> int:
        return max((job.iodepth for job in self.jobs), default=1)


def max_outstanding(issue_ns: npt.NDArray[np.int64], done_ns: npt.NDArray[np.int64]) -> int:
    """Most I/Os in flight at once on the traced device (its queue depth)."""
    if not len(issue_ns):
        return 1
    events = np.concatenate([np.stack([issue_ns, np.ones_like(issue_ns)], 1),
                             np.stack([done_ns, -np.ones_like(done_ns)], 1)])
    order = np.lexsort((events[:, 1], events[:, 0]))  # completions first at equal times
    return max(1, int(np.cumsum(events[order, 1]).max()))


@dataclass(frozen=True)
class _Lines:
    """The trace in issue order, as iolog fields."""

    c: TraceChunk
    t_us: list[int]
    offset: list[int]
    length: list[int]
    preflush: npt.NDArray[np.bool_]


def _job(name: str, path: Path, filename: str, t: _Lines, sel: npt.NDArray[np.bool_], dsync: bool) -> IologJob:
    """The iolog of the records `sel` of the trace: a datasync before each write with a
    preflush, then the I/O (see the module docstring)."""
    lines = ["fio version 3 iolog", f"{START_US} {filename} add", f"{START_US} {filename} open"]
    op, pre = t.c.op.tolist(), t.preflush.tolist()
    picked = np.flatnonzero(sel).tolist()
    for i in picked:
        if pre[i]:
            lines.append(f"{t.t_us[i]} {filename} datasync 0 0")
        n = 0 if op[i] == OP_FLUSH else t.length[i]
        lines.append(f"{t.t_us[i]} {filename} {FIO_ACTIONS[op[i]]} {t.offset[i] if n else 0} {n}")
    last = max((t.t_us[i] for i in picked), default=START_US)
    lines.append(f"{last} {filename} close")
    path.write_text("\n".join(lines) + "\n")
    issue, done = t.c.timestamp_ns[sel], t.c.completion_ns[sel]
    extra = t.preflush[sel]  # a preflush's datasync is in flight beside its write
    issue, done = np.concatenate([issue, issue[extra]]), np.concatenate([done, done[extra]])
    depth = max_outstanding(issue, done) if (done >= 0).all() else UNKNOWN_DEPTH
    rw = sel & ((t.c.op == OP_READ) | (t.c.op == OP_WRITE))
    planned = np.asarray(t.t_us, dtype=np.int64)[rw] - START_US
    return IologJob(name, path, len(picked) + int(extra.sum()), planned, min(depth, MAX_DEPTH), dsync)


def write_iologs(c: TraceChunk, work_dir: Path, filename: str, span_bytes: int, *, remap: Remap = "modulo",
                 idle_cap_us: float | None = DEFAULT_IDLE_CAP_US) -> Iolog:
    """The trace as fio iologs v3 replaying onto `filename`, in `work_dir`: replay.iolog, and
    replay-fua.iolog for the FUA writes (see the module docstring)."""
    order = np.argsort(c.timestamp_ns, kind="stable")
    c = TraceChunk.from_columns({k: v[order] for k, v in c.columns().items()})
    length = np.where(c.op == OP_FLUSH, 0, -(-c.length_bytes // ALIGN) * ALIGN)
    off = remap_offsets(TraceChunk.from_columns({**c.columns(), "length_bytes": length}), span_bytes - ALIGN, remap)
    off = off // ALIGN * ALIGN
    capped = capped_times_ns(c, idle_cap_us)
    span_ns = int(c.timestamp_ns.max() - c.timestamp_ns.min()) if len(c) else 0
    writes = c.op == OP_WRITE
    fua = writes & ((c.flags & FLAG_FUA) != 0)
    lines = _Lines(c, (capped // 1000 + START_US).tolist(), off.tolist(), length.tolist(),
                   writes & ((c.flags & FLAG_PREFLUSH) != 0))
    name = filename.replace(" ", "_")
    plain = (c.op != OP_TRIM) & ~fua
    work_dir.mkdir(parents=True, exist_ok=True)
    jobs = [_job("replay", work_dir / "replay.iolog", name, lines, plain, dsync=False)] if plain.any() else []
    if fua.any():
        jobs.append(_job("fua", work_dir / "replay-fua.iolog", name, lines, fua, dsync=True))
    return Iolog(tuple(jobs), int((c.op == OP_TRIM).sum()), int(fua.sum()), int(lines.preflush.sum()),
                 int((c.op == OP_FLUSH).sum()), span_ns - (int(capped[-1]) if len(c) else 0))


@dataclass(frozen=True)
class FioReplay:
    iolog: Iolog
    result: dict[str, Any]  # fio's JSON output
    lat_logs: tuple[Path, ...]  # fio's per-I/O latency log of each job, in job order
    ioengines: tuple[str, ...]  # the engine of each job
    issued_us: npt.NDArray[np.int64]
    drift_pct: float
    lag_p50_us: float
    lag_p99_us: float


def fio_command(fio: str, iolog: Iolog, target_file: str, log_prefix: Path, ioengines: Sequence[str]) -> list[str]:
    """One fio run of every job of `iolog` (each with its engine), started together."""
    command = [fio, "--output-format=json"]
    for job, engine in zip(iolog.jobs, ioengines, strict=True):
        command += [f"--name={job.name}", f"--read_iolog={job.path}", f"--replay_redirect={target_file}",
                    f"--ioengine={engine}", "--direct=1", f"--iodepth={job.iodepth}",
                    f"--write_lat_log={log_prefix}", "--log_avg_msec=0", *(["--sync=dsync"] if job.dsync else [])]
    return command


def issued_from_lat_log(*paths: Path) -> npt.NDArray[np.int64]:
    """Issue times (µs, sorted) of the reads and writes in fio's per-I/O latency logs:
    lines `time_ms, lat_ns, ddir, bs[, ...]`."""
    rows = lat_rows(paths)
    return np.sort(rows[:, 0] * 1000 - rows[:, 1] // 1000)


def lat_rows(paths: Sequence[Path]) -> npt.NDArray[np.int64]:
    """The read and write lines (ddir 0 and 1) of the latency logs, as rows of int64."""
    parts = [np.loadtxt(p, delimiter=",", usecols=(0, 1, 2, 3), dtype=np.int64, ndmin=2)
             for p in paths if p.is_file() and p.stat().st_size]  # a job may log nothing (all in flight at the end)
    rows = np.concatenate([p.reshape(-1, 4) for p in parts]) if parts else np.zeros((0, 4), dtype=np.int64)
    return rows[rows[:, 2] <= 1]


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
    `ioengine_for` names the engine for a job's depth: the fio engine's choice
    (engines/fio.py FioEngine.ioengine_for: libaio where io_uring does not run, or where an
    older fio's io_uring would raise a depth that is not a power of two to the next one); both
    honour O_DSYNC, which the FUA job relies on."""
    binary = shutil.which(fio)
    if binary is None:
        raise EngineError("fio is not installed; apt-get install fio")
    iolog = write_iologs(c, work_dir, str(target_file), span_bytes, remap=remap, idle_cap_us=idle_cap_us)
    if not iolog.jobs:
        raise EngineError(f"the trace holds nothing fio can replay: its {iolog.dropped_trims} I/Os are all trims")
    lat_logs = tuple(work_dir / LAT_LOG.format(job=n) for n in range(1, len(iolog.jobs) + 1))
    for old in work_dir.glob(LAT_LOG.format(job="*")):
        old.unlink()
    engines = tuple(ioengine_for(job.iodepth) for job in iolog.jobs)
    done = subprocess.run(fio_command(binary, iolog, str(target_file), work_dir / "replay", engines),
                          capture_output=True, text=True, timeout=timeout_s, check=False)
    if done.returncode != 0:
        raise EngineError(f"fio replay failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    refused = [line for line in done.stderr.splitlines() if "iolog" in line]
    if refused:  # fio skips an iolog line it cannot read, and says so only here: never a silent partial replay
        raise EngineError(f"fio skipped lines of the replay's iolog: {refused[0].strip()}")
    result = json.loads(done.stdout[done.stdout.index("{"):])
    issued_us = issued_from_lat_log(*lat_logs)
    pct, p50, p99 = drift(iolog.planned_us, issued_us)
    return FioReplay(iolog, result, lat_logs, engines, issued_us, pct, p50, p99)
