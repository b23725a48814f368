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
Lanes: each job runs as lanes, one fio job per lane at iodepth 1, as many lanes as the trace had
I/Os in flight at once (UNKNOWN_DEPTH without completion times); each I/O goes to a lane the
trace had free at its time (the one free the longest), so the lanes together keep the trace's
concurrency. Not one job at that iodepth, for two faults of fio 3.33's replay at iodepth > 1:
- it reaps completions only when the queue is full (iolog_delay sleeps without reaping; fixed
  in fio 3.36, commit b85c01f7 "iolog.c: fix inaccurate clat when replay trace"), so an I/O's
  latency ran on until the queue filled: 929 µs against 100 µs at iodepth 1 for 4 KiB writes
  25 µs apart on a file;
- the I/Os not reaped when the iolog runs out are never accounted (read_iolog_get sets
  td->done, and td_io_getevents reaps nothing once done): iodepth - 1 I/Os were missing from
  the latency logs and from fio's own latency figures (a 1-write trace logged nothing).
At iodepth 1 fio reaps each I/O as soon as it is queued, so every I/O is logged with its own
completion time. A lane of flushes alone is folded into a lane with reads or writes: fio
refuses an iolog that holds no read, write or wait ("failed initializing iolog").
Drift: fio 3.33 cannot log an iolog while it replays one, so issue times come from its
per-I/O latency logs (write_lat_log, log_avg_msec=0; one per job): `time_ms, lat_ns, ...`,
the time the I/O completed, in whole ms since the job started (truncated), so the completion
lies in [time_ms, time_ms + 1 ms); an I/O was not issued before its job started, so it completed
no earlier than its latency; and a lane runs at iodepth 1, so each of its I/Os was issued no
earlier than the one before it completed (the log is in completion order, which is issue order).
The completion taken is the earliest all three allow, max(time_ms, lat_ns, previous completion
+ lat_ns), and the issue time that less the latency (never before the start, never overlapping
its lane's previous I/O, known to ±1 ms; the latency is exact). QA: without the lane's order,
every I/O that completed within the same ms was taken to complete at that ms, so I/Os of ~75 µs
at iodepth 1 overlapped, and a replay of 280 of them on a loop device counted 5.25 ms busy where
fio's latencies alone add up to 21.1 ms: a data rate of 826.6 MB/s for 205 MB/s. Drift compares those with the iologs'
read and write times: `drift_pct` = (issued span - planned span) / planned span, and the per-I/O
lag (issued - planned, both in issue order) at p50 and p99.
"""

from __future__ import annotations

import heapq
import shlex
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ssdlab.bundle import atomic_write_text, clear_for_writer
from ssdlab.engines.fio_parse import load_results, results_unwritten
from ssdlab.engines.fio_process import CameIntoUse, UseWatch, held_file_comment, run_fio_captured
from ssdlab.errors import EngineError
from ssdlab.trace.model import (
    FIO_ALIGN,
    FLAG_FUA,
    FLAG_PREFLUSH,
    OP_FLUSH,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    TraceChunk,
    no_reads_or_writes,
)
from ssdlab.trace.replay import DEFAULT_IDLE_CAP_US, Remap, remap_offsets

ALIGN = FIO_ALIGN
FIO_ACTIONS = {OP_READ: "read", OP_WRITE: "write", OP_FLUSH: "datasync"}
START_US = 1  # every iolog time is this much late (see the module docstring)
UNKNOWN_DEPTH = 32  # a job's lanes when the trace has no completion times
MAX_DEPTH = 256  # most lanes of a job
LAT_LOG = "replay_lat.{job}.log"  # fio's per-I/O latency log of job N (1, 2, ...)
# Kept beside the iologs for audit, as an ordinary workload keeps its job file and fio's output:
COMMAND_FILE = "replay.cmd"  # the fio command line the replay ran (one shell line)
OUTPUT_FILE = "replay.json"  # fio's json+ output
STDERR_FILE = "replay.stderr"  # what fio said on stderr, when it said anything


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
    iodepth: int  # 1: one lane (see the module docstring)
    dsync: bool  # opened with O_DSYNC: the trace's FUA writes


@dataclass(frozen=True)
class Iolog:
    """The iologs of one replay: the lanes of the plain job, then those of the FUA job (only
    when the trace has FUA writes)."""

    jobs: tuple[IologJob, ...]
    lanes: int  # most I/Os in flight at once: the lanes of the larger job
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
        return self.lanes

    @property
    def reads_writes(self) -> int:
        """Reads and writes in the iologs: what fio counts and logs."""
        return sum(len(job.planned_us) for job in self.jobs)


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


def assign_lanes(issue_ns: npt.NDArray[np.int64], done_ns: npt.NDArray[np.int64] | None, lanes: int) -> list[int]:
    """The lane of each entry (in issue order): one the trace had free at its time, the one free
    the longest, a lane never used before that; without completion times, in turn."""
    if done_ns is None:
        return [i % lanes for i in range(len(issue_ns))]
    unused = list(range(lanes))
    busy: list[tuple[int, int]] = []  # (free from, lane)
    out = []
    for t, done in zip(issue_ns.tolist(), done_ns.tolist(), strict=True):
        if busy and busy[0][0] <= t:
            lane = heapq.heappop(busy)[1]
        elif unused:
            lane = unused.pop(0)
        else:  # more in flight than lanes (ties): the lane that frees first
            lane = heapq.heappop(busy)[1]
        heapq.heappush(busy, (done, lane))
        out.append(lane)
    return out


def _fold_sync_lanes(lane: list[int], rw: list[bool]) -> list[int]:
    """Each entry of a lane without reads or writes moved to the lane of the read or write
    before it (after it, for flushes before the first): fio refuses an iolog of syncs alone."""
    with_rw = {k for k, is_rw in zip(lane, rw, strict=True) if is_rw}
    rw_at = [i for i, is_rw in enumerate(rw) if is_rw]
    out = list(lane)
    for i, k in enumerate(lane):
        if k not in with_rw:
            before = int(np.searchsorted(rw_at, i)) - 1
            out[i] = lane[rw_at[max(before, 0)]]
    return out


def _jobs(group: str, work_dir: Path, filename: str, t: _Lines, sel: npt.NDArray[np.bool_],
          dsync: bool, write: bool) -> list[IologJob]:
    """The lanes of the records `sel` of the trace, each its own iolog: a datasync beside each
    write with a preflush, then the I/O (see the module docstring); the files written only if
    `write`."""
    op, pre = t.c.op.tolist(), t.preflush.tolist()
    entries: list[tuple[int, bool]] = []  # (record, is it the datasync of a preflush)
    for i in np.flatnonzero(sel).tolist():
        if pre[i]:
            entries.append((i, True))
        entries.append((i, False))
    index = np.array([i for i, _ in entries], dtype=np.int64)
    issue, done = t.c.timestamp_ns[index], t.c.completion_ns[index]
    known = bool((done >= 0).all())
    lanes = min(max_outstanding(issue, done) if known else UNKNOWN_DEPTH, MAX_DEPTH)
    rw = [not sync and op[i] in (OP_READ, OP_WRITE) for i, sync in entries]
    lane = _fold_sync_lanes(assign_lanes(issue, done if known else None, lanes), rw)
    by_lane: dict[int, list[tuple[int, bool]]] = {}  # in order of each lane's first entry
    for entry, k in zip(entries, lane, strict=True):
        by_lane.setdefault(k, []).append(entry)
    jobs = []
    for n, mine in enumerate(by_lane.values(), start=1):
        lines = ["fio version 3 iolog", f"{START_US} {filename} add", f"{START_US} {filename} open"]
        for i, sync in mine:
            size = 0 if sync or op[i] == OP_FLUSH else t.length[i]
            action = "datasync" if sync else FIO_ACTIONS[op[i]]
            lines.append(f"{t.t_us[i]} {filename} {action} {t.offset[i] if size else 0} {size}")
        lines.append(f"{t.t_us[mine[-1][0]]} {filename} close")
        path = work_dir / f"{group}-{n}.iolog"
        if write:
            atomic_write_text(path, "\n".join(lines) + "\n")  # replaces a link there, never writes through it
        planned = np.array([t.t_us[i] for i, sync in mine if not sync and op[i] != OP_FLUSH], dtype=np.int64)
        jobs.append(IologJob(f"{group}-{n}", path, len(mine), planned - START_US, 1, dsync))
    return jobs


def write_iologs(c: TraceChunk, work_dir: Path, filename: str, span_bytes: int, *, remap: Remap = "modulo",
                 idle_cap_us: float | None = DEFAULT_IDLE_CAP_US, write: bool = True) -> Iolog:
    """The trace as fio iologs v3 replaying onto `filename`, in `work_dir`: replay-N.iolog for
    lane N of the plain job, fua-N.iolog for those of the FUA writes (see the module docstring).
    A trace of flushes with no read or write is refused: fio replays no iolog of syncs alone.
    `write=False`: the iologs as they would be, no file written (`ssdlab plan --fio`)."""
    c = c.in_time_order()
    rw = (c.op == OP_READ) | (c.op == OP_WRITE)
    flushes, trims = int((c.op == OP_FLUSH).sum()), int((c.op == OP_TRIM).sum())
    if not rw.any():
        raise EngineError(no_reads_or_writes(flushes, trims))  # check_replayable says it before the run
    length = np.where(c.op == OP_FLUSH, 0, -(-c.length_bytes // ALIGN) * ALIGN)
    off = remap_offsets(TraceChunk.from_columns({**c.columns(), "length_bytes": length}), span_bytes - ALIGN, remap)
    off = off // ALIGN * ALIGN
    capped = capped_times_ns(c, idle_cap_us)
    span_ns = int(c.timestamp_ns.max() - c.timestamp_ns.min())
    writes = c.op == OP_WRITE
    fua = writes & ((c.flags & FLAG_FUA) != 0)
    fua_writes = int(fua.sum())
    lines = _Lines(c, (capped // 1000 + START_US).tolist(), off.tolist(), length.tolist(),
                   writes & ((c.flags & FLAG_PREFLUSH) != 0))
    name = filename.replace(" ", "_")
    plain = (c.op != OP_TRIM) & ~fua
    if not (plain & rw).any():  # its flushes alone: an fdatasync is the same on the O_DSYNC file descriptor
        fua, plain = fua | plain, np.zeros_like(plain)
    if write:
        work_dir.mkdir(parents=True, exist_ok=True)
        clear_for_writer(*work_dir.glob("replay*.iolog"), *work_dir.glob("fua*.iolog"))
    plain_jobs = _jobs("replay", work_dir, name, lines, plain, dsync=False, write=write) if plain.any() else []
    fua_jobs = _jobs("fua", work_dir, name, lines, fua, dsync=True, write=write) if fua.any() else []
    return Iolog((*plain_jobs, *fua_jobs), max(len(plain_jobs), len(fua_jobs)), trims, fua_writes,
                 int(lines.preflush.sum()), flushes, span_ns - int(capped[-1]))


@dataclass(frozen=True)
class FioReplay:
    iolog: Iolog
    result: dict[str, Any]  # fio's JSON output
    lat_logs: tuple[Path, ...]  # fio's per-I/O latency log of each job, in job order
    ioengines: tuple[str, ...]  # the engine of each job
    issued_us: npt.NDArray[np.int64]
    drift_pct: float | None  # None: see drift()
    lag_p50_us: float | None
    lag_p99_us: float | None


def fio_command(fio: str, iolog: Iolog, target_file: str, work_dir: Path, ioengines: Sequence[str]) -> list[str]:
    """One fio run of every job of `iolog` (each with its engine), started together; as threads,
    since a replay may run a few hundred lanes. fio writes its json+ output (the format of an
    ordinary workload's, engines/fio.py) and its latency logs in `work_dir`."""
    log_prefix = work_dir / "replay"
    command = [fio, "--output-format=json+", f"--output={work_dir / OUTPUT_FILE}", "--thread"]
    for job, engine in zip(iolog.jobs, ioengines, strict=True):
        command += [f"--name={job.name}", f"--read_iolog={job.path}", f"--replay_redirect={target_file}",
                    f"--ioengine={engine}", "--direct=1", f"--iodepth={job.iodepth}",
                    f"--write_lat_log={log_prefix}", "--log_avg_msec=0", *(["--sync=dsync"] if job.dsync else [])]
    return command


def replay_engines(iolog: Iolog, ioengine_for: Callable[[int], str]) -> tuple[str, ...]:
    """The engine of each job, by its depth (see replay_with_fio)."""
    by_depth = {depth: ioengine_for(depth) for depth in dict.fromkeys(job.iodepth for job in iolog.jobs)}
    return tuple(by_depth[job.iodepth] for job in iolog.jobs)


def command_text(command: Sequence[str]) -> str:
    """A command as a shell line, one fio job to a line (`\\` continues it): what COMMAND_FILE
    holds and `ssdlab plan --fio` prints."""
    lines: list[list[str]] = [[]]
    for arg in command:
        if arg.startswith("--name="):
            lines.append([])
        lines[-1].append(arg)
    return " \\\n  ".join(shlex.join(line) for line in lines) + "\n"


def lat_times_ns(rows: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(issue, completion) in ns of latency-log rows `time_ms, lat_ns, ddir, bs, lane` (lat_rows):
    the earliest completion the log allows — no earlier than its ms, than its latency (no I/O is
    issued before its job started), nor than its lane's previous completion plus its latency (a
    lane runs at iodepth 1) — and that less the latency (see the module docstring)."""
    lat = rows[:, 1]
    done = np.maximum(rows[:, 0] * 1_000_000, lat)
    for lane in np.unique(rows[:, LANE_COLUMN]):
        at = np.flatnonzero(rows[:, LANE_COLUMN] == lane)  # in the log's order: the lane's issue order
        # done_k = max(floor_k, done_k-1 + lat_k): less the running sum of latencies, a running maximum
        ran = np.cumsum(lat[at])
        done[at] = np.maximum.accumulate(done[at] - ran) + ran
    return done - lat, done


def issued_from_lat_log(*paths: Path) -> npt.NDArray[np.int64]:
    """Issue times (µs, sorted) of the reads and writes in fio's per-I/O latency logs:
    lines `time_ms, lat_ns, ddir, bs[, ...]`, one log per lane."""
    issue, _ = lat_times_ns(lat_rows(paths))
    return np.sort(issue // 1000)


LANE_COLUMN = 4  # of lat_rows: which log (lane) a row comes from


def lat_rows(paths: Sequence[Path]) -> npt.NDArray[np.int64]:
    """The read and write lines (ddir 0 and 1) of the latency logs, one per lane, as rows of
    int64 `time_ms, lat_ns, ddir, bs, lane` (lane: the log's index in `paths`), in each log's order."""
    parts: list[npt.NDArray[np.int64]] = []
    for lane, path in enumerate(paths):
        if not (path.is_file() and path.stat().st_size):
            continue
        logged = np.loadtxt(path, delimiter=",", usecols=(0, 1, 2, 3), dtype=np.int64, ndmin=2).reshape(-1, 4)
        parts.append(np.column_stack([logged, np.full(len(logged), lane, dtype=np.int64)]))
    rows = np.concatenate(parts) if parts else np.zeros((0, 5), dtype=np.int64)
    return rows[rows[:, 2] <= 1]


def fio_messages(stdout: str, stderr: str) -> list[str]:
    """What fio said besides its JSON: its errors go to stdout before the JSON (`fio: pid=…,
    err=22/file:iolog.c:795, func=failed initializing iolog, …`) or to stderr."""
    head = stdout[:stdout.index("{")] if "{" in stdout else stdout
    return [line.strip() for line in (*head.splitlines(), *stderr.splitlines()) if line.strip()]


def drift(planned_us: npt.NDArray[np.int64], issued_us: npt.NDArray[np.int64],
          ) -> tuple[float | None, float | None, float | None]:
    """(span drift %, lag p50 µs, lag p99 µs) of fio's issue times against the iolog's. Each is
    None where there is nothing to take it over, never 0 (a replay that drifted by nothing): the
    lags need two I/Os (the first is the origin), the drift a planned span longer than none."""
    n = min(len(planned_us), len(issued_us))
    if n < 2:
        return None, None, None
    p, i = planned_us[:n].astype(np.float64), issued_us[:n].astype(np.float64)
    i = i - i[0] + p[0]
    span_p, span_i = p[-1] - p[0], i[-1] - i[0]
    lag = i - p
    pct = 100.0 * (span_i - span_p) / span_p if span_p > 0 else None
    return pct, float(np.percentile(lag, 50)), float(np.percentile(lag, 99))


def unkept_replay_note(ran: int, planned: int) -> str:
    """The note of a replay stopped part-way: what it had done, which is not kept (QA: a stopped
    replay's test said only that it "had measured nothing")."""
    return (f"The interrupted replay's {ran:,} reads and writes (of {planned:,}) are not kept: a replay "
            "restarts from its first I/O.")


def replay_with_fio(c: TraceChunk, target_file: Path, span_bytes: int, work_dir: Path, *,
                    remap: Remap = "modulo", idle_cap_us: float | None = DEFAULT_IDLE_CAP_US,
                    ioengine_for: Callable[[int], str], fio: str = "fio", timeout_s: float = 3600.0,
                    shown_as: Path | None = None, watch: UseWatch | None = None) -> FioReplay:
    """Replay onto an existing file or device (the caller answers for safety) and measure drift.
    `shown_as`: the path `target_file` stands for, said in COMMAND_FILE, when fio is given another
    name of it (a file target's descriptor held open by ssdlab, FileTarget.fio_open); `watch`:
    the device's watch while fio writes it (fio_process.use_watch: CameIntoUse, fio stopped).
    `ioengine_for` names the engine for a job's depth: the fio engine's choice
    (engines/fio.py FioEngine.ioengine_for: libaio where io_uring does not run, or where an
    older fio's io_uring would raise a depth that is not a power of two to the next one); both
    honour O_DSYNC, which the FUA job relies on."""
    binary = shutil.which(fio)
    if binary is None:
        raise EngineError("fio is not installed; apt-get install fio")
    iolog = write_iologs(c, work_dir, str(target_file), span_bytes, remap=remap, idle_cap_us=idle_cap_us)
    lat_logs = tuple(work_dir / LAT_LOG.format(job=n) for n in range(1, len(iolog.jobs) + 1))
    output, stderr_file = work_dir / OUTPUT_FILE, work_dir / STDERR_FILE
    # fio's logs and output of an earlier try, or links planted there (fio writes through them)
    clear_for_writer(*work_dir.glob("replay_*.log"), output, stderr_file)
    engines = replay_engines(iolog, ioengine_for)
    command = fio_command(binary, iolog, str(target_file), work_dir, engines)
    held = held_file_comment(str(shown_as), str(target_file), "#") if shown_as is not None else []
    atomic_write_text(work_dir / COMMAND_FILE, "".join(f"{line}\n" for line in held) + command_text(command))
    # as the workloads' fio: it stops if ssdlab is killed outright (it wrote on to the trace's end)
    try:
        done = run_fio_captured(command, timeout_s, watch=watch)
    except (KeyboardInterrupt, CameIntoUse) as stop:  # fio stopped and wrote its logs: say what the stop discards
        ran = len(lat_rows(lat_logs))
        if ran:
            stop.add_note(unkept_replay_note(ran, iolog.reads_writes))
        raise
    if done.stderr:
        atomic_write_text(stderr_file, done.stderr)
    text = output.read_text(errors="replace") if output.is_file() else ""
    # fio writes its messages to the output file, before the JSON, as well as to stderr
    said = list(dict.fromkeys([*fio_messages(text, done.stderr), *fio_messages(done.stdout, "")]))
    if done.returncode != 0:
        errors = [line for line in said if "err=" in line or "error" in line.lower()] or said
        raise EngineError(results_unwritten(output.parent, f"fio replay failed (exit status {done.returncode}): "
                                                           f"{'; '.join(errors[:2]) or 'fio said nothing'}"))
    refused = [line for line in said if "iolog" in line]
    if refused:  # fio skips an iolog line it cannot read, and says so only here: never a silent partial replay
        raise EngineError(f"fio skipped lines of the replay's iolog: {refused[0]}")
    result = load_results(text, output.parent)
    issued_us = issued_from_lat_log(*lat_logs)
    pct, p50, p99 = drift(iolog.planned_us, issued_us)
    return FioReplay(iolog, result, lat_logs, engines, issued_us, pct, p50, p99)
