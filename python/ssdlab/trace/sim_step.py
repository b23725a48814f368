"""The ReplayTrace step on the simulator: build or load the trace, keep it in the bundle,
replay it natively and return the raw results (counts, sums, fio-layout latency bins,
per-second series). The `trace` method derives its metrics from these."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ssdlab.bundle import clear_for_writer
from ssdlab.engines.base import ProgressUpdate, RunContext
from ssdlab.engines.fio_process import use_watch
from ssdlab.errors import UsageError
from ssdlab.steps import ReplayTrace
from ssdlab.targets.safety import held_while_writing
from ssdlab.trace.metrics import busy_time_ns, fio_bins
from ssdlab.trace.model import (
    FLAG_FUA,
    OP_FLUSH,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    Provenance,
    TraceChunk,
    load_trace,
    read_provenance,
    write_trace,
)
from ssdlab.trace.replay import replay_on_drive

if TYPE_CHECKING:
    from ssdlab import _ssdsim
    from ssdlab.targets.base import Target

GENERATED = "generated:"
# How a replay applied the trace's FUA writes (`fua_replay` in its record; docs/traces.md):
FUA_NATIVE = "native"  # the simulator: the drive model sees each FUA write as one
FUA_DSYNC = "o_dsync"  # fio: O_DSYNC direct writes, which the kernel sends as FUA (or write + flush)
FUA_NOT_APPLIED = "not_applied"  # replayed as plain writes (the fake engine models no FUA)


def load_step_trace(step: ReplayTrace) -> tuple[TraceChunk, Provenance]:
    if step.trace.startswith(GENERATED):
        from ssdlab.trace.generate import generate

        prov, chunks = generate(step.trace[len(GENERATED):], seed=step.seed, scale=step.scale, fua_pct=step.fua_pct)
        return TraceChunk.concat(chunks), prov
    path = Path(step.trace)
    if step.scale != 1.0 or step.fua_pct:
        raise UsageError("scale and fua_pct apply to generated traces only; give a trace file as it is")
    return load_trace(path), read_provenance(path)


def _direction(op: npt.NDArray[np.uint8], length: npt.NDArray[np.int64], lat: npt.NDArray[np.int64],
               which: int) -> dict[str, Any]:
    sel = op == which
    lat_d = lat[sel]
    return {
        "ios": int(sel.sum()), "bytes": int(length[sel].sum()), "lat_sum_ns": int(lat_d.sum()),
        "over_10ms": int((lat_d > 10_000_000).sum()), "over_100ms": int((lat_d > 100_000_000).sum()),
        "hist": fio_bins(lat_d), "lat_max_ns": int(lat_d.max()) if len(lat_d) else None,
    }


SERIES_BINS_MAX = 300  # points per replay timeline
BIN_CHOICES_S = (0.001, 0.01, 0.1, 1.0, 10.0, 60.0)


def _series(issue: npt.NDArray[np.int64], done: npt.NDArray[np.int64], length: npt.NDArray[np.int64],
            rw: npt.NDArray[np.bool_]) -> dict[str, Any]:
    """Per bin of completions (the shortest of BIN_CHOICES_S giving at most SERIES_BINS_MAX
    bins): MB/s moved and mean latency (µs)."""
    if not len(done):
        return {"bin_s": 1.0, "t_s": [], "mb_s": [], "lat_us": []}
    span_s = float(done.max()) / 1e9
    bin_s = next((b for b in BIN_CHOICES_S if span_s / b <= SERIES_BINS_MAX), BIN_CHOICES_S[-1])
    idx = (done // round(bin_s * 1e9)).astype(np.int64)
    n = int(idx.max()) + 1
    moved = np.bincount(idx[rw], weights=length[rw], minlength=n)
    count = np.bincount(idx, minlength=n)
    lat = np.bincount(idx, weights=(done - issue).astype(np.float64), minlength=n)
    mean = np.divide(lat, count, out=np.zeros(n), where=count > 0) / 1e3
    return {"bin_s": bin_s, "t_s": [i * bin_s for i in range(n)], "mb_s": (moved / 1e6 / bin_s).tolist(),
            "lat_us": mean.tolist()}


def replay_detail(chunk: TraceChunk, prov: Provenance, issue_ns: npt.NDArray[np.int64],
                  done_ns: npt.NDArray[np.int64], summary: dict[str, Any], ctx: RunContext, fua_replay: str,
                  executed: TraceChunk | None = None) -> dict[str, Any]:
    """The raw record of one replay (issue/done in the order of `executed`, by default the
    trace in issue order), what the trace holds (its writes and FUA writes, counted here, not
    taken from a parameter), how the engine applied FUA, and the trace kept beside it."""
    kept = ctx.raw_path("trace.parquet")
    clear_for_writer(kept)  # the trace writer writes through a link (as for -o): not in a bundle
    stored = write_trace(kept, [chunk], prov)
    fua_writes = int(np.count_nonzero((chunk.op == OP_WRITE) & ((chunk.flags & FLAG_FUA) != 0)))
    # What the trace holds, by kind, counted here: "I/Os replayed" are its reads and writes on
    # every engine; flushes and trims are counted apart (a trim fio cannot replay is dropped).
    held = {name: int(np.count_nonzero(chunk.op == code))
            for name, code in (("reads", OP_READ), ("writes", OP_WRITE), ("flushes", OP_FLUSH), ("trims", OP_TRIM))}
    if executed is not None:
        chunk = executed
    order = np.argsort(chunk.timestamp_ns, kind="stable")
    op, length = chunk.op[order], chunk.length_bytes[order]
    lat = done_ns - issue_ns
    rw = (op == OP_READ) | (op == OP_WRITE)
    return {
        "elapsed_s": float(summary["elapsed_s"]), "idle_cut_s": float(summary["idle_cut_s"]),
        "ios": len(op), "busy_ns": busy_time_ns(issue_ns, done_ns), "lat_sum_ns": int(lat.sum()),
        "over_10ms": int((lat > 10_000_000).sum()), "over_100ms": int((lat > 100_000_000).sum()),
        "read": _direction(op, length, lat, OP_READ), "write": _direction(op, length, lat, OP_WRITE),
        "series": _series(issue_ns, done_ns, length, rw),
        "trace_fua_writes": fua_writes, "fua_replay": fua_replay,
        "trace_counts": held, "dropped_trims": 0,
        "trace_file": ctx.relative(ctx.raw_path("trace.parquet")),
        "trace": stored.model_dump(mode="json"),
    }


def replay_step(drive: _ssdsim.Drive, step: ReplayTrace, ctx: RunContext) -> dict[str, Any]:
    """The step on the simulator: native open-loop replay."""
    chunk, prov = load_step_trace(step)
    ctx.progress(ProgressUpdate(label=step.name, fraction=0.0, elapsed_s=0.0))
    r = replay_on_drive(drive, chunk, idle_cap_us=step.idle_cap_us, remap=step.remap)
    ctx.progress(ProgressUpdate(label=step.name, fraction=1.0, elapsed_s=float(r.summary["elapsed_s"]),
                                sim_time_s=float(drive.now_s)))
    return replay_detail(chunk, prov, r.issue_ns, r.done_ns, dict(r.summary), ctx, FUA_NATIVE)


def fake_replay_step(step: ReplayTrace, ctx: RunContext, read_lat_us: float, write_lat_us: float) -> dict[str, Any]:
    """The step on the fake engine (exact tests): every read takes read_lat_us, every
    other I/O write_lat_us, issued at the trace's own times (idle not capped). A FUA write
    costs what any write does: FUA is not applied, and the record says so."""
    chunk, prov = load_step_trace(step)
    order = np.argsort(chunk.timestamp_ns, kind="stable")
    issue = chunk.timestamp_ns[order] - (int(chunk.timestamp_ns.min()) if len(chunk) else 0)
    lat = np.where(chunk.op[order] == OP_READ, round(read_lat_us * 1e3), round(write_lat_us * 1e3))
    done = issue + lat
    elapsed = float(done.max() - issue.min()) / 1e9 if len(chunk) else 0.0
    return replay_detail(chunk, prov, issue, done, {"elapsed_s": elapsed, "idle_cut_s": 0.0}, ctx, FUA_NOT_APPLIED)


def fio_replay_step(target: Target, step: ReplayTrace, ctx: RunContext,
                    ioengine_for: Callable[[int], str], fio: str = "fio") -> dict[str, Any]:
    """The step on fio: iolog v3 onto the target's file or device (ssdlab.trace.fio_replay),
    on the engine the fio engine names for the iolog's depth (`ioengine_for`), run by the
    engine's fio program (`fio`: the one `plan --fio` prints, fio_replay_plan).

    The path is the one fio's jobs use (`fio_filename`, a property on every target: a block
    device, an assembled RAID-0); typed as a Target so mypy checks what is asked of it."""
    from ssdlab.trace.fio_replay import COMMAND_FILE, OUTPUT_FILE, replay_with_fio

    chunk, prov = load_step_trace(step)
    target.prepare()
    path, span = replay_file(target)
    ctx.progress(ProgressUpdate(label=step.name, fraction=0.0, elapsed_s=0.0))
    # As a workload that writes (FioEngine.measure): a device held O_EXCL, so a mount or mkfs of it
    # mid-replay fails with EBUSY (QA: the replay did not hold it); a file by the descriptor of the
    # file checked, never through a symlink put at its path since (FileTarget.fio_open).
    # Watched as a workload is: another program reading the target mid-replay is told once a run
    # (ctx.on_reader) and kept in the step's detail, as a measurement keeps it (competing_readers).
    watch = use_watch(target, writes=bool((chunk.op != OP_READ).any()), on_reader=ctx.on_reader,
                      said=ctx.readers_said)
    with held_while_writing(target.spec, target.write_held_paths()), target.fio_open() as filename:
        r = replay_with_fio(chunk, Path(filename), span, ctx.make_raw_dir(), remap=step.remap,
                            idle_cap_us=step.idle_cap_us, ioengine_for=ioengine_for, fio=fio,
                            shown_as=path, watch=watch)
    executed, issue, done = executed_from_lat_log(*r.lat_logs)
    elapsed = float(done.max() - issue.min()) / 1e9 if len(issue) else 0.0
    summary = {"elapsed_s": elapsed, "idle_cut_s": r.iolog.idle_cut_ns / 1e9}
    detail = replay_detail(chunk, prov, issue, done, summary, ctx, FUA_DSYNC, executed)
    jobs = r.result.get("jobs", [])
    fio_ios = sum(int(job.get(d, {}).get("total_ios", 0)) for job in jobs for d in ("read", "write"))
    detail.update(fio_ios=fio_ios, dropped_trims=r.iolog.dropped_trims, fio_drift_pct=r.drift_pct,
                  fio_lag_p50_us=r.lag_p50_us, fio_lag_p99_us=r.lag_p99_us,
                  fio_iodepth=r.iolog.max_outstanding, fio_lanes=len(r.iolog.jobs),
                  fio_fua_writes=r.iolog.fua_writes, fio_preflushes=r.iolog.preflushes, fio_flushes=r.iolog.flushes,
                  fio_jobs=[{"name": job.name, "ios": job.ios, "iodepth": job.iodepth, "ioengine": engine,
                             "dsync": job.dsync} for job, engine in zip(r.iolog.jobs, r.ioengines, strict=True)],
                  fio_command_file=ctx.relative(ctx.raw_dir / COMMAND_FILE),
                  fio_output_file=ctx.relative(ctx.raw_dir / OUTPUT_FILE))
    if watch is not None and watch.readers_seen:
        detail["competing_readers"] = [reader.model_dump() for reader in watch.readers_seen]
    return detail


def replay_file(target: Target) -> tuple[Path, int]:
    """The path fio's jobs replay onto (`fio_filename`, a property on every target: a block
    device, an assembled RAID-0) and the span the trace is remapped into."""
    from ssdlab.targets.file import FileTarget

    if isinstance(target, FileTarget):
        return target.path, target.size_bytes
    return Path(target.fio_filename), target.info().capacity_bytes


def fio_replay_plan(target: Target, step: ReplayTrace, raw_dir: Path, ioengine_for: Callable[[int], str],
                    fio: str = "fio") -> str:
    """What `ssdlab plan --fio` prints for a replay on fio: the exact command the step will run,
    its iologs as they will be written in `raw_dir` when the step starts (none is written
    now), and where the command and fio's JSON are kept."""
    import shutil

    from ssdlab.trace.fio_replay import (
        COMMAND_FILE,
        OUTPUT_FILE,
        command_text,
        fio_command,
        replay_engines,
        write_iologs,
    )

    chunk, _ = load_step_trace(step)
    path, span = replay_file(target)
    iolog = write_iologs(chunk, raw_dir, str(path), span, remap=step.remap, idle_cap_us=step.idle_cap_us, write=False)
    engines = replay_engines(iolog, ioengine_for)
    lanes = ", ".join(f"{group} {n}" for group, n in (("plain", sum(not j.dsync for j in iolog.jobs)),
                                                     ("FUA (O_DSYNC)", sum(j.dsync for j in iolog.jobs))) if n)
    command = fio_command(shutil.which(fio) or fio, iolog, str(path), raw_dir, engines)
    return (f"# fio replays the trace from iologs v3 that ssdlab writes in {raw_dir} when the step starts\n"
            f"# (one job per lane at iodepth 1; lanes: {lanes}); {COMMAND_FILE} (this command) and {OUTPUT_FILE}\n"
            f"# (fio's json+ output) are kept beside them\n{command_text(command)}")


def executed_from_lat_log(*paths: Path) -> tuple[TraceChunk, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The I/Os fio ran, from its per-I/O latency logs (`time_ms, lat_ns, ddir, bs, ...`; one
    per job), in issue order, with issue and completion times in ns (known to ±1 ms; never before
    the replay started: ssdlab.trace.fio_replay.lat_times_ns)."""
    from ssdlab.trace.fio_replay import lat_rows, lat_times_ns

    rows = lat_rows(paths)
    issue, done = lat_times_ns(rows)
    order = np.argsort(issue, kind="stable")
    issue, done = issue[order], done[order]
    n = len(issue)
    executed = TraceChunk.from_columns({
        "timestamp_ns": issue, "op": rows[order, 2], "offset_bytes": np.zeros(n), "length_bytes": rows[order, 3],
        "flags": np.zeros(n), "pid": np.full(n, -1), "completion_ns": done})
    return executed, issue.astype(np.int64), done.astype(np.int64)
