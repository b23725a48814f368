"""The fio engine: Workloads become fio job files, fio's json+ output becomes a Measurement.

One job file per workload, kept in the bundle with fio's output and per-period logs, so
every figure can be audited against what fio itself said. Steps (purge, idle, write
cache) are done directly: blkdiscard or hole punching, sleeping, sysfs.
"""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab.bundle import NEW_FILE, atomic_write_bytes, atomic_write_text, clear_for_writer
from ssdlab.engines.base import Capabilities, ProgressUpdate, RunContext
from ssdlab.engines.fio_parse import (
    IoRow,
    RunTime,
    centred_runtime,
    complete_series,
    error_line,
    first_error_line,
    load_json_plus,
    load_results,
    log_files,
    logged_run_s,
    parse_eta,
    read_io_log,
    refined_runtime,
    results_unwritten,
    series_from_io_rows,
    series_from_logs,
    steady_state_facts,
    summarize,
)
from ssdlab.engines.fio_process import (
    CameIntoUse,
    UseWatch,
    end_leftovers,
    exit_words,
    file_key,
    held_file_comment,
    leftover_error,
    run_fio_captured,
    stop_and_wait,
    stop_with_parent,
    use_watch,
)
from ssdlab.engines.fio_steps import run_step
from ssdlab.errors import EngineError, SafetyError, StopCause, stop_cause, stop_reason
from ssdlab.measurement import Measurement, OpTotals
from ssdlab.steps import Step, StepResult
from ssdlab.targets.base import Target
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.file import FileTarget
from ssdlab.targets.safety import held_while_writing
from ssdlab.targets.sysinfo import block_facts
from ssdlab.telemetry.sampler import Sampler, telemetry_sampler, with_telemetry
from ssdlab.units import fio_size
from ssdlab.workload import MIXED_PATTERNS, RANDOM_PATTERNS, Workload

# sync=dsync (O_DSYNC) arrived in fio 3.24 (axboe/fio PR #1080, Sept 2020); json+ total-latency
# bins with lat_percentiles=1 and the io_uring engine are older than that.
MIN_VERSION = (3, 24)
INSTALL_HINT = "install it with `apt-get install fio`"
# fio's steady-state detector: 5 one-minute rounds, like the PTS window (docs/methods/steady-state.md).
SS_RULE = "iops_slope:10%"
SS_DUR_S = 300

# fio's io_uring engine up to 3.38 ran a job at its ring's size: fio_ioring_init() did
# `td->o.iodepth = roundup_pow2(td->o.iodepth)` (a ring must be a power of two), and
# thread_main() in backend.c calls td_io_init() before init_io_u(), so fio made that many I/O
# units and kept them all in flight: iodepth=3 ran at 4, 6 at 8 (its iodepth_level histogram
# says so). axboe/fio commit af0ad0fa, "engines/io_uring: don't mess with non power-of-2 queue
# depth" (Oct 2024, first in fio-3.39), rounds only the ring. No job option bounds in-flight
# I/Os below iodepth (iodepth_low, iodepth_batch_* only pace refills, submission and reaping;
# HOWTO "I/O depth"), so with an older fio such depths run on libaio, which sizes its context
# and I/O units to iodepth exactly.
IO_URING_EXACT_DEPTH = (3, 39)

# A sequential byte-bounded job of at most this many I/Os logs each I/O (its queueing in an iolog, in
# µs; its latencies in latency logs, in ns), which time it to µs where fio's runtime counts whole ms
# (fio_parse.logged_run_s): the large transfers, the short jobs. An iolog line costs fio about 0.4 µs
# of CPU as it queues the I/O (fio 3.33 here, ioengine=null, 4 KiB: 4.3 M IOPS without, 1.6 M with):
# hidden while a large transfer is in flight, not beside small CPU-bound ones. Those last long enough
# for fio's ms, centred (run_time): more I/Os than this at QD d take at least IOLOG_MAX_IOS / d drive
# latencies, 16,384 / 4 x 7 µs (Optane's) = 115 ms, ±0.45 %. The logs hold at most ~2.5 MB.
IOLOG_MAX_IOS = 16384

_engine_probe_cache: dict[str, str] = {}


def fio_escape(path: str) -> str:
    """fio splits filename= on ':'; a literal colon is written '\\:'."""
    return path.replace(":", "\\:")


def parse_version(text: str) -> tuple[int, int]:
    match = re.search(r"fio-(\d+)\.(\d+)", text)
    if not match:
        raise EngineError(f"cannot read fio's version from {text.strip()[:60]!r}; reinstall fio")
    return int(match.group(1)), int(match.group(2))


def probe_ioengine(binary: str) -> str:
    """io_uring if this kernel and fio run it, else libaio; probed once per binary.

    The probe reads a 4 KiB temporary file of its own; kernels can disable io_uring
    (kernel.io_uring_disabled) even when fio was built with it.
    """
    if binary in _engine_probe_cache:
        return _engine_probe_cache[binary]
    engine = "libaio"
    with tempfile.TemporaryDirectory(prefix="ssdlab-probe-") as tmp:
        data = Path(tmp) / "probe"
        atomic_write_bytes(data, b"\0" * 4096)
        argv = [binary, "--name=probe", f"--filename={fio_escape(str(data))}", "--size=4k",
                "--rw=read", "--bs=4k", "--ioengine=io_uring", "--output-format=terse"]
        try:
            done = run_fio_captured(argv, timeout_s=20)
            if done.returncode == 0 and "io_uring" not in done.stderr:
                engine = "io_uring"
        except (OSError, subprocess.SubprocessError):
            pass
    _engine_probe_cache[binary] = engine
    return engine


def exact_depth_ioengine(ioengine: str, iodepth: int, fio_version: tuple[int, int] | None) -> str:
    """The engine that keeps exactly `iodepth` I/Os in flight: libaio instead of io_uring
    for a depth that is not a power of two on a fio older than IO_URING_EXACT_DEPTH (or of
    unknown version), see above."""
    rounds_up = fio_version is None or fio_version < IO_URING_EXACT_DEPTH
    if ioengine == "io_uring" and iodepth & (iodepth - 1) and rounds_up:
        return "libaio"
    return ioengine


def _capacity(target: Target) -> int:
    """Capacity without the full identity: info() of a drive runs nvme-cli and smartctl,
    too slow to repeat for each of a plan's dozens of job files."""
    if isinstance(target, FileTarget):
        return target.size_bytes
    if isinstance(target, BlockTarget):
        return block_facts(target.sysroot, target.name).capacity_bytes
    return target.info().capacity_bytes


def _span_lines(target: Target, w: Workload) -> list[str]:
    """offset/size per job: sequential jobs get their own slice so they never overlap."""
    span = w.resolve_span(_capacity(target))
    if w.is_sequential and w.jobs > 1:
        share = span // w.jobs
        share -= share % w.block_size_bytes
        if share <= 0:
            raise EngineError(f"workload {w.name}: span too small for {w.jobs} sequential jobs")
        lines = [f"offset={w.offset_bytes}", f"size={fio_size(share)}", f"offset_increment={fio_size(share)}"]
    else:
        lines = [f"offset={w.offset_bytes}", f"size={fio_size(span)}"]
    if w.size_bytes is not None:
        lines.append(f"io_size={fio_size(w.size_bytes)}")  # per job, like the other engines
    return lines


def _limit_lines(w: Workload) -> list[str]:
    lines = []
    if w.runtime_s is not None:
        # Time alone: loop over the span until the time is up. Time and bytes: first wins.
        if w.size_bytes is None:
            lines.append("time_based=1")
        lines.append(f"runtime={_seconds(w.runtime_s)}")
    if w.ramp_s:
        lines.append(f"ramp_time={_seconds(w.ramp_s)}")
    if w.fio_steady_state:
        lines += [f"ss={SS_RULE}", f"ss_dur={ss_duration_s(w)}s", "ss_ramp=0"]
    return lines


SS_LEAST_CHECKS = 2  # fio checks steady state once a second (steadystate.c)


def ss_duration_s(w: Workload) -> int:
    """fio's steady-state window for the workload (ss_dur): SS_DUR_S, or half a shorter runtime,
    never less than two of fio's one-second checks: the slope of one is 0/0 (QA: a 3 s workload
    had ss_dur=1s, and fio 3.33 wrote "slope": -nan and said "attained" at its first second).
    With ss_ramp=0 fio first judges the window once it has run this long, so it may end the job
    then (planning counts that as the least a fio_ss torture takes)."""
    return min(SS_DUR_S, max(SS_LEAST_CHECKS, int((w.runtime_s or SS_DUR_S * 2) // 2)))


def _seconds(value: float) -> str:
    return f"{round(value)}s" if value == round(value) else f"{round(value * 1000)}ms"


def _data_lines(w: Workload) -> list[str]:
    """Incompressible by default, nearly, without paying for fresh random data on every I/O.

    fio fills buffers with random data once; scramble_buffers then stamps each 512 B sector with
    its offset and the submit time (cheap) so blocks never repeat, which defeats dedupe. The
    stamps are partly zeros: zlib packs a 4 KiB block to ~0.91 (docs/methods/README.md,
    bench/fio_data.py). refill_buffers would make it 1.00 but regenerates every buffer: one job
    then tops out near 4.3 GB/s at 4 KiB on the development machine, below fast drives.
    buffer_compress_percentage makes fio refill by itself, the price of exact ratios.
    """
    if not w.is_write:
        return []
    if w.compress_pct:
        return [f"buffer_compress_percentage={w.compress_pct}", "buffer_compress_chunk=4k", "refill_buffers=1"]
    return ["refill_buffers=0", "scramble_buffers=1"]


def _io_lines(w: Workload, ioengine: str, file_target: bool, fio_version: tuple[int, int] | None) -> list[str]:
    # fio's io_uring/libaio cannot trim a regular file; its falloc engine punches holes.
    engine = "falloc" if w.pattern == "trim" and file_target else exact_depth_ioengine(ioengine, w.iodepth,
                                                                                        fio_version)
    lines = [f"ioengine={engine}", "direct=1", f"rw={w.pattern}", f"bs={w.block_size_bytes}",
             f"iodepth={w.iodepth}", f"numjobs={w.jobs}"]
    if engine != ioengine and engine == "libaio":
        lines.insert(0, f"; libaio, not {ioengine}: fio's io_uring before 3.39 runs iodepth={w.iodepth} at "
                        "the next power of two")
    if w.pattern in MIXED_PATTERNS:
        lines.append(f"rwmixread={w.read_pct}")
    if w.pattern in RANDOM_PATTERNS:
        # Each offset an independent uniform draw, as Iometer's and the simulator's are: fio's
        # default random map writes every block once per pass (another workload, with another
        # write amplification) and takes a bit per block (1 GB for 512 B blocks on 4 TB).
        lines.append("norandommap=1")
    if w.sync == "dsync":
        lines.append("sync=dsync")
    elif w.sync == "fsync":
        lines.append(f"fsync={w.fsync_every}")
    return lines


def times_by_iolog(w: Workload) -> bool:
    """Whether fio's run of `w` logs each I/O to time it in µs (IOLOG_MAX_IOS): a sequential read or
    write (each offset once: an I/O's issue and latency are matched by it) that ends after its
    bytes (no runtime, no ramp, no steady-state rule), of one fio job (numjobs clones would share
    the iolog) and few enough I/Os."""
    if (w.pattern not in ("read", "write") or w.size_bytes is None or w.runtime_s is not None or w.ramp_s
            or w.fio_steady_state or w.jobs != 1):
        return False
    return -(-w.size_bytes // w.block_size_bytes) <= IOLOG_MAX_IOS


def iolog_name(prefix: str) -> str:
    return f"{prefix}.iolog"


def _io_log_lines(w: Workload, prefix: str) -> list[str]:
    """A short job's logs (times_by_iolog): each I/O's latency and offset, and its iolog; no
    averaged rate logs (its series is counted from the I/Os, fio_parse.series_from_io_rows)."""
    return ["; each I/O logged: its issue (iolog, µs) and latency (ns) time this short job, where fio's "
            "runtime counts whole ms",
            f"write_lat_log={prefix}", "log_avg_msec=0", "log_offset=1", "per_job_logs=1",
            f"write_iolog={fio_escape(iolog_name(prefix))}"]


def _log_lines(w: Workload, prefix: str) -> list[str]:
    period_ms = max(1, round(w.log_period_s * 1000))
    return [f"write_iops_log={prefix}", f"write_bw_log={prefix}", f"write_lat_log={prefix}",
            f"log_avg_msec={period_ms}", "per_job_logs=1"]


def measured_update(m: Measurement) -> ProgressUpdate:
    """The workload's last progress: done, at the rates fio measured over its whole run. fio's
    last status line is often from before its first second (a 1 s job: no rate at all) or from its
    jobs' ending ("[w=0 IOPS]"), and the display keeps a finished workload's line until the next."""
    seconds = m.runtime_s
    if seconds <= 0:
        return ProgressUpdate(label=m.workload.name, fraction=1.0, elapsed_s=0.0)
    ops = (m.read, m.write, m.trim)  # a trim workload's rate too
    return ProgressUpdate(label=m.workload.name, fraction=1.0, elapsed_s=seconds,
                          iops=sum(o.ios for o in ops) / seconds, mb_s=sum(o.bytes for o in ops) / seconds / 1e6)


def check_it_ran(workload: str, done: Mapping[str, Sequence[OpTotals]], said: str, ctx: RunContext) -> None:
    """fio aborts a job it will not start and still exits 0 with a result of no I/O: a device
    that became mounted since the run's checks ("appears mounted, and 'allow_mounted_write' isn't
    set. Aborting."), a file it cannot lay out. QA: such a workload was recorded as measured, at
    0.0 MB/s, and its test as complete. A workload that did no I/O at all failed; so does one
    whose I/O a --host run's host did not do (its zero would be averaged into the hosts' sum).

    `done`: the read, write and trim totals of each place the job ran, by address (fio_multi),
    or under "" for this machine's fio; `said`: fio's messages (stderr, or the client's output:
    its servers' lines are in it)."""
    idle = [where for where, totals in done.items() if not any(t.ios for t in totals)]
    if not idle:
        return
    on = f" on {', '.join(idle)}" if any(idle) else ""
    lines = [line.strip() for line in said.splitlines()]
    aborted = next((line for line in lines if line.endswith("Aborting.")), None)
    # A host's fio prints its job's settings first: the first line is no reason there.
    unsaid = "that host's fio refused the job (its server's output says why)" if any(idle) else None
    why = aborted or error_line(said) or unsaid or first_error_line(said)
    raise EngineError(f"fio did no I/O for {workload}{on}: {why}; nothing of it was measured (raw files in "
                      f"{ctx.raw_dir})")


def _remove_stale(directory: Path, prefix: str, files: tuple[Path, ...]) -> None:
    """A resumed run reuses the raw directory: old logs would merge into the new series. fio
    opens its output and logs following links, so whatever is at those names goes, a link
    planted in a bundle someone else made included (bundle.clear_for_writer)."""
    clear_for_writer(*(path for paths in log_files(directory, prefix).values() for path in paths), *files)


def run_time(w: Workload, fio_runtime_s: float, iolog: Path, lat: Sequence[IoRow],
             clat: Sequence[IoRow]) -> RunTime | None:
    """The job's runtime where fio's whole ms say less than can be known: narrowed by its logs where
    it logged each I/O (times_by_iolog: the iolog at `iolog`, the latency logs' rows;
    fio_parse.logged_run_s and refined_runtime), else, for a job that ends after its bytes, the
    middle of the ms fio rounded up from (fio_parse.centred_runtime). None: fio's figure as it is,
    for a job bounded by time, which runs its whole runtime (the ms is nothing beside it)."""
    try:
        text = iolog.read_text(errors="replace") if times_by_iolog(w) and lat else ""
    except OSError:  # unreadable: as if none were written
        text = ""
    refined = refined_runtime(fio_runtime_s, logged_run_s(text, lat, clat) if text else None)
    if refined is not None:
        return refined
    return centred_runtime(fio_runtime_s) if w.size_bytes is not None and w.runtime_s is None else None


def _io_rows(raw_dir: Path, w: Workload, kind: str) -> list[IoRow]:
    """A per-I/O latency log (`kind`: lat, clat) of a job that logged each I/O (times_by_iolog), []
    where fio wrote none (stopped before it could)."""
    paths = log_files(raw_dir, w.name).get(kind, [])
    try:
        return read_io_log(paths[0]) if paths else []
    except OSError:
        return []


def fio_start_wall_s(output: str, runtime_s: float) -> float | None:
    """When fio's clock started, in wall-clock seconds since the epoch: the zero of its logs' stamps,
    which the series' t_s count from (its job's start, again after a ramp); None when its output
    cannot say. fio 3.36 and newer give it as json+ `job_start` (ms, CLOCK_REALTIME unless a job
    sets job_start_clock_id; ssdlab's do not), read as the logs' clock starts. Older fio (3.33
    here) gives only `timestamp_ms`, when it wrote its output, after its job's end: less the run's
    runtime_s (where its series ends), that is the start plus the time fio takes between its last
    I/O and its output, writing its logs (about 20 ms here with averaged logs)."""
    started = fio_job_start_wall_s(output)
    if started is not None:
        return started
    try:
        data = load_json_plus(output)
    except EngineError:
        return None
    written_ms = data.get("timestamp_ms")
    if isinstance(written_ms, int | float) and not isinstance(written_ms, bool) and written_ms > 0:
        return written_ms / 1000.0 - runtime_s
    return None


def _fio_start_on(sampler: Sampler | None, output: str, runtime_s: float) -> float | None:
    """fio's start (fio_start_wall_s) on the telemetry sampler's clock, None without either: the
    sampler starts before fio does, and its rows go onto fio's clock (with_telemetry)."""
    if sampler is None:
        return None
    start_wall_s = fio_start_wall_s(output, runtime_s)
    if start_wall_s is None:
        return None
    if fio_job_start_wall_s(output) is None:
        # Only the time fio wrote its output is known: that stamp goes onto the sampler's clock (by its
        # stop's wall-clock reading, nearest it), and the runtime comes off there, on the monotonic clock.
        # Less the runtime in wall seconds first, a wall-clock step during the run (NTP) moved fio's
        # start by the step: it is a time of the clock after the step, mapped through the one before.
        return sampler.at_wall(start_wall_s + runtime_s) - runtime_s
    return sampler.at_wall(start_wall_s)


def fio_job_start_wall_s(output: str) -> float | None:
    """fio's json+ `job_start` (fio 3.36 and newer) in wall-clock seconds, None where it gives none."""
    try:
        data = load_json_plus(output)
    except EngineError:
        return None
    starts = [job.get("job_start") for job in data.get("jobs") or [] if isinstance(job, dict)]
    known = [float(ms) for ms in starts if isinstance(ms, int | float) and not isinstance(ms, bool) and ms > 0]
    return min(known) / 1000.0 if known else None


@dataclass(frozen=True)
class FioStop:
    """Why fio was stopped before its end: the cause the runner acts on (the measurement's
    stopped_by), and the words the bundle and the message tell it in."""

    cause: StopCause
    reason: str


def _stopped_code(proc: subprocess.Popen[bytes]) -> int:
    """A stopped fio's exit status; -1 while it is not known to have ended."""
    return proc.returncode if proc.returncode is not None else -1


@dataclass
class FioEngine:
    binary: str = "fio"
    name: str = "fio"
    # None: probe for io_uring once, fall back to libaio. Set to pin job files (tests).
    ioengine: str | None = None
    # Sample drive temperature / throttle counters and host CPU beside each job (telemetry/).
    telemetry: bool = True
    _version: str | None = field(default=None, repr=False)

    # ---- identity ----------------------------------------------------------------------

    def version(self) -> str:
        if self._version is None:
            path = shutil.which(self.binary)
            if path is None:
                raise EngineError(f"fio not found: {INSTALL_HINT}")
            try:
                done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20, check=False)
            except (OSError, subprocess.SubprocessError) as err:
                raise EngineError(f"fio cannot run ({err}); reinstall it: {INSTALL_HINT}") from None
            text = done.stdout.strip()
            if parse_version(text) < MIN_VERSION:
                need = ".".join(map(str, MIN_VERSION))
                raise EngineError(f"{text} is too old: ssdlab needs fio {need} or newer (sync=dsync); {INSTALL_HINT}")
            self._version = text
        return self._version

    def version_tuple(self) -> tuple[int, int] | None:
        """fio's (major, minor), or None when it cannot be run (`ssdlab plan --fio` without fio)."""
        try:
            return parse_version(self.version())
        except EngineError:
            return None

    # The kernel's write-cache switch exists for block devices only; secure erase is not done.
    capabilities: Capabilities = field(default=Capabilities(steps={
        "file": frozenset({"purge", "idle", "replay_trace"}),
        "block": frozenset({"purge", "idle", "write_cache", "replay_trace"}),
    }))

    # ---- job files ---------------------------------------------------------------------

    def job_text(self, target: Target, workload: Workload, log_prefix: str | None = None,
                 filename: str | None = None) -> str:
        """The exact job file fio runs for this workload (`ssdlab plan --fio` prints it with the
        target's path; a run names the file by what fio opens it as, `filename`: Target.fio_open)."""
        return self.job_text_for(target, workload, log_prefix, self.ioengine or probe_ioengine(self.binary),
                                 self.version_tuple(), filename, iolog=True)

    def job_text_for(self, target: Target, workload: Workload, log_prefix: str | None, ioengine: str,
                     fio_version: tuple[int, int] | None, filename: str | None = None, iolog: bool = False) -> str:
        """The job file for a fio that has `ioengine` and is `fio_version`: this machine's, or a
        remote host's (fio_multi), whose fio may be older or newer than the local one. `iolog`: a
        short byte-bounded job logs each I/O (times_by_iolog), read where fio runs: here."""
        w = workload
        prefix = log_prefix or w.name
        seed = [f"randseed={w.seed}"] if w.seed else ["randrepeat=0"]
        sections = [
            f"; ssdlab workload {w.name}: {w.describe()}",
            *held_file_comment(target.fio_filename, filename, ";"),
            "[global]",
            f"filename={fio_escape(filename or target.fio_filename)}",
            *_io_lines(w, ioengine, target.kind == "file", fio_version),
            *_span_lines(target, w),
            *_limit_lines(w),
            *_data_lines(w),
            *seed,
            "group_reporting=1",
            # json+ then carries total-latency (submit -> completion) bins, the simulator's measure.
            "lat_percentiles=1",
            *(_io_log_lines(w, prefix) if iolog and times_by_iolog(w) else _log_lines(w, prefix)),
            "",
            f"[{w.name}]",
            "",
        ]
        return "\n".join(sections)

    # ---- measuring ---------------------------------------------------------------------

    def measure(self, target: Target, workload: Workload, ctx: RunContext) -> Measurement:
        self.version()
        self._check_write_lock(target, workload)
        target.prepare()
        job = ctx.raw_path(f"{workload.name}.fio")
        output = ctx.raw_path(f"{workload.name}.json")
        stderr_path = ctx.raw_path(f"{workload.name}.stderr")
        # fio appends to an iolog it finds: a resumed run's old one goes too.
        iolog = ctx.raw_path(iolog_name(workload.name))
        _remove_stale(ctx.raw_dir, workload.name, (output, stderr_path, iolog))
        held = target.write_held_paths() if workload.is_write else ()
        with target.fio_open() as filename:
            atomic_write_text(job, self.job_text(target, workload, log_prefix=workload.name, filename=filename),
                              inside=ctx.bundle_dir)
            sampler = telemetry_sampler(target.kind, target.spec, facts=ctx.target_facts) if self.telemetry else None
            if sampler is not None:
                sampler.start()
            try:
                with held_while_writing(target.spec, held):
                    watch = use_watch(target, workload.is_write, on_reader=ctx.on_reader, said=ctx.readers_said)
                    stop, code = self._run(job, output, stderr_path, workload, ctx, watch)
            finally:
                if sampler is not None:
                    sampler.stop()
        raw = self._raw_files(ctx, workload.name, job, output, stderr_path)
        stderr = stderr_path.read_text(errors="replace") if stderr_path.exists() else ""
        text = output.read_text(errors="replace") if output.exists() else ""
        readers = tuple(watch.readers_seen) if watch is not None else ()
        if stop is not None:
            partial = self._partial(workload, ctx, text, raw, stop).model_copy(update={"competing_readers": readers})
            return with_telemetry(partial, sampler, _fio_start_on(sampler, text, partial.runtime_s))
        if code != 0:
            raise EngineError(results_unwritten(ctx.raw_dir, f"fio failed ({exit_words(code)}): "
                                                             f"{first_error_line(stderr, text)}") +
                              f"; raw files in {ctx.raw_dir}")
        measured = self._measurement(workload, ctx, text, raw).model_copy(update={"competing_readers": readers})
        check_it_ran(workload.name, {"": (measured.read, measured.write, measured.trim)}, stderr, ctx)
        ctx.progress(measured_update(measured))
        return with_telemetry(measured, sampler, _fio_start_on(sampler, text, measured.runtime_s))

    def _check_write_lock(self, target: Target, workload: Workload) -> None:
        # The second lock: the runner authorised the target; check again right before fio.
        if workload.is_write and target.kind == "block" and not target.writes_authorized():
            raise SafetyError(
                f"{target.spec}: refusing to write to a block device that was not authorised "
                "(needs --destroy --yes=SERIAL)"
            )

    def _run(self, job: Path, output: Path, stderr_path: Path, w: Workload, ctx: RunContext,
             watch: UseWatch | None = None) -> tuple[FioStop | None, int]:
        """Run fio, relaying its ETA line as progress; Ctrl-C asks fio to stop and report, and so
        does `watch` once the device it writes comes into use (then at once, see UseWatch).
        Returns why it was stopped (None: it ran to its end) and fio's exit status. However fio
        ends (killed by a signal, failed, stopped, or an error here), nothing of it is left
        running: its jobs, which outlive a fio killed outright, are killed too (end_leftovers)."""
        argv = [self.binary, "--output-format=json+", f"--output={output}", "--eta=always",
                "--eta-interval=1", str(job)]
        # fio block-buffers stdout into a pipe, which would hold every ETA line until the end;
        # a pseudo-terminal makes it write each update as it happens.
        master, slave = pty.openpty()
        try:
            # A new file (cleared above): never through a link planted since.
            with os.fdopen(os.open(stderr_path, NEW_FILE, 0o644), "wb") as err:
                keys = frozenset({file_key(slave), file_key(err.fileno())})
                # Own session: the terminal's Ctrl-C reaches us only, and we tell fio once.
                proc = subprocess.Popen(argv, cwd=ctx.raw_dir, stdout=slave, stderr=err,
                                        stdin=subprocess.DEVNULL, start_new_session=True,
                                        preexec_fn=stop_with_parent())
            os.close(slave)
            slave = -1
            try:
                stopped, code, closed = self._relay_until_stopped(master, proc, w, ctx, watch)
            except BaseException:
                end_leftovers(keys)  # never leave fio writing behind a failed run
                raise
            # A terminal no process has open any more: every process of fio has ended (the scan
            # takes tens of ms, for each workload of a sweep).
            left = [] if closed else end_leftovers(keys)
            if left:
                raise leftover_error(left)
            return stopped, code
        finally:
            os.close(master)
            if slave != -1:
                os.close(slave)

    def _relay_until_stopped(self, master: int, proc: subprocess.Popen[bytes], w: Workload, ctx: RunContext,
                             watch: UseWatch | None = None) -> tuple[FioStop | None, int, bool]:
        """Why fio was stopped (None: it was not), its exit status, and whether its terminal was
        closed by all (_relay_progress)."""
        try:
            closed = self._relay_progress(master, proc, w, ctx, watch)
            return None, proc.wait(), closed
        except KeyboardInterrupt as stop:
            self._stop(proc)
            return FioStop(stop_cause(stop), stop_reason(stop)), _stopped_code(proc), False
        except CameIntoUse as found:  # as a Ctrl-C: its jobs stop writing at the SIGINT (fio_process)
            self._stop(proc)
            return FioStop(stop_cause(found), str(found)), _stopped_code(proc), False
        except BaseException:
            self._stop(proc)
            raise

    def _relay_progress(self, fd: int, proc: subprocess.Popen[bytes], w: Workload, ctx: RunContext,
                        watch: UseWatch | None = None) -> bool:
        """Turn fio's ETA lines (about one a second) into progress updates, until fio ends. True
        when its terminal was closed by all that had it (fio and its jobs), False when fio ended
        while some process of it still holds it: a job of a fio that was killed. `watch`: read
        between fio's lines, on time (CameIntoUse once the device it writes is in use)."""
        start = time.monotonic()
        # fio's first lines carry no rates or percentage ("Jobs: 1 (f=1)", for a second or more),
        # and a ramp shows "-.-%": the bar then moves by the clock with the last known rates, none
        # (not 0: QA read "0 IOPS 0.0 MB/s" at every workload's start) until fio gives one.
        expected = (w.runtime_s or 0.0) + w.ramp_s
        last = ProgressUpdate(label=w.name, fraction=0.0, elapsed_s=0.0)
        pending = b""
        while True:
            ready, _, _ = select.select([fd], [], [], watch.wait_s(1.0) if watch else 1.0)
            if watch is not None:
                watch.check()
            if not ready:
                if proc.poll() is not None:
                    return False  # fio ended; a job it left holds the terminal (end_leftovers)
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: fio closed the terminal's other end
                return True
            if not chunk:
                return True
            pending += chunk
            *lines, pending = re.split(rb"[\r\n]", pending)
            for line in (raw.decode(errors="replace") for raw in lines):
                if not line.startswith("Jobs:"):
                    continue
                elapsed = time.monotonic() - start
                status = parse_eta(line)
                fraction = status.fraction if status else None
                if fraction is None:
                    fraction = min(1.0, elapsed / expected) if expected else last.fraction
                iops, mb_s = (status.iops, status.mb_s) if status and status.iops is not None else (last.iops,
                                                                                                   last.mb_s)
                last = ProgressUpdate(label=w.name, fraction=fraction, elapsed_s=elapsed, iops=iops, mb_s=mb_s)
                ctx.progress(last)

    def _stop(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGINT makes fio stop its jobs and still write results and logs; wait for that."""
        stop_and_wait(proc)

    def _raw_files(self, ctx: RunContext, name: str, job: Path, output: Path, stderr: Path) -> dict[str, str]:
        raw = {"job": ctx.relative(job)}
        if output.exists():
            raw["output"] = ctx.relative(output)
        if stderr.exists() and stderr.stat().st_size:
            raw["stderr"] = ctx.relative(stderr)
        for kind, paths in log_files(ctx.raw_dir, name).items():
            for path in paths:
                raw[f"{kind}_log.{path.name.rsplit('.', 2)[-2]}"] = ctx.relative(path)
        iolog = ctx.raw_path(iolog_name(name))
        if iolog.exists():
            raw["iolog"] = ctx.relative(iolog)
        return raw

    def _measurement(self, w: Workload, ctx: RunContext, text: str, raw: dict[str, str],
                     check_error: bool = True) -> Measurement:
        summary = summarize(load_results(text, ctx.raw_dir))
        if summary.error and check_error:
            raise EngineError(
                f"fio job failed: {os.strerror(summary.error)} (error {summary.error}); raw files in {ctx.raw_dir}"
            )
        each = times_by_iolog(w)
        rows, clat = (_io_rows(ctx.raw_dir, w, "lat"), _io_rows(ctx.raw_dir, w, "clat")) if each else ([], [])
        timed = run_time(w, summary.runtime_s, ctx.raw_path(iolog_name(w.name)), rows, clat)
        runtime_s = summary.runtime_s if timed is None else timed.runtime_s
        # fio's own figure and how far the one taken may be off: what a reader needs to weigh it.
        facts = {} if timed is None else {"fio_runtime_ms": round(summary.runtime_s * 1000),
                                          "runtime_uncertainty_s": timed.uncertainty_s}
        logged = (series_from_io_rows(rows, w.log_period_s, runtime_s) if rows
                  else series_from_logs(ctx.raw_dir, w.name, w.log_period_s))
        return Measurement(
            workload=w, engine=self.name, runtime_s=runtime_s,
            read=summary.read, write=summary.write, trim=summary.trim,
            series=complete_series(logged, summary.read, summary.write, runtime_s),
            cpu_usr_pct=summary.cpu_usr_pct, cpu_sys_pct=summary.cpu_sys_pct,
            engine_facts={"fio_version": self._version, **facts, **steady_state_facts(summary.steadystate)},
            raw_files=raw,
        )

    def _partial(self, w: Workload, ctx: RunContext, text: str, raw: dict[str, str], stop: FioStop) -> Measurement:
        """What fio measured before Ctrl-C (or a signal, or the device coming into use: `stop`), or
        an empty measurement if it wrote nothing."""
        try:
            # A stopped job may carry an error code (EINTR); its numbers are still real.
            full = self._measurement(w, ctx, text, raw, check_error=False)
        except EngineError:
            return Measurement(workload=w, engine=self.name, runtime_s=0.0, interrupted=True,
                               error=stop.reason, stopped_by=stop.cause, raw_files=raw)
        return full.model_copy(update={"interrupted": True, "error": stop.reason, "stopped_by": stop.cause})

    # ---- steps -------------------------------------------------------------------------

    def step(self, target: Target, step: Step, ctx: RunContext) -> StepResult:
        return run_step(target, step, ctx, self.ioengine_for, self.binary)

    def ioengine_for(self, iodepth: int) -> str:
        """The engine this fio runs `iodepth` I/Os in flight on exactly (a trace replay's depth
        is known only once its iolog is written)."""
        return exact_depth_ioengine(self.ioengine or probe_ioengine(self.binary), iodepth, self.version_tuple())
