"""Trace -> fio iolog v3 conversion (exact), and real fio replays on a file target and a loop
device: flushes, preflushes and FUA writes reach the device, and the figures say how."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.fio import FioEngine
from ssdlab.engines.fio_process import held_file_comment
from ssdlab.errors import EngineError
from ssdlab.runner import run_entries
from ssdlab.suites import entry
from ssdlab.targets import parse_target
from ssdlab.targets.file import allocated_bytes
from ssdlab.trace.audit import audit_fua
from ssdlab.trace.capture import capture
from ssdlab.trace.fio_replay import (
    START_US,
    capped_times_ns,
    drift,
    fio_command,
    max_outstanding,
    replay_with_fio,
    write_iologs,
)
from ssdlab.trace.importers import import_trace, parse_text
from ssdlab.trace.model import (
    FLAG_FUA,
    FLAG_PREFLUSH,
    OP_FLUSH,
    OP_READ,
    OP_TRIM,
    OP_WRITE,
    TraceChunk,
    iter_trace,
)


def chunk(rows: list[tuple[int, int, int, int, int]], flags: list[int] | None = None) -> TraceChunk:
    ts, op, off, ln, done = zip(*rows, strict=True)
    n = len(rows)
    return TraceChunk.from_columns({"timestamp_ns": ts, "op": op, "offset_bytes": off, "length_bytes": ln,
                                    "flags": flags or [0] * n, "pid": [-1] * n, "completion_ns": done})


def test_idle_cap_cuts_only_time_with_nothing_outstanding() -> None:
    c = chunk([(0, OP_WRITE, 0, 4096, 1_000_000), (500_000, OP_READ, 0, 4096, 600_000),
               (5_000_000, OP_READ, 0, 4096, 5_100_000)])
    # The second I/O arrives while the first is outstanding: kept. The third comes 4 ms
    # after everything finished: cut to 25 µs.
    assert capped_times_ns(c, 25.0).tolist() == [0, 500_000, 1_025_000]
    assert capped_times_ns(c, None).tolist() == [0, 500_000, 5_000_000]


def test_iolog_v3_round_trip_with_remap_alignment_and_dropped_trims(tmp_path: Path) -> None:
    span = 1 << 20
    c = chunk([(0, OP_WRITE, 3 * span + 5000, 1000, 10_000), (20_000, OP_FLUSH, 0, 0, 30_000),
               (40_000, OP_TRIM, 0, 8192, 50_000), (60_000, OP_READ, 12288, 8192, 70_000)])
    log = write_iologs(c, tmp_path, "/dev/fake", span, idle_cap_us=None)
    assert log.dropped_trims == 1 and log.ios == 3 and log.flushes == 1 and len(log.jobs) == 1
    back = parse_text(log.jobs[0].path.read_text(), "fio3")
    assert back.op.tolist() == [OP_WRITE, OP_FLUSH, OP_READ]
    assert back.timestamp_ns.tolist() == [0, 20_000, 60_000]  # µs in the file, exact here
    assert back.length_bytes.tolist() == [4096, 0, 8192]  # rounded up to 4 KiB for O_DIRECT
    assert all(o % 4096 == 0 and o + n <= span for o, n in zip(back.offset_bytes, back.length_bytes, strict=True))
    assert back.offset_bytes[2] == 12288  # an offset already inside the span stays


# Plain write, FUA write, flush, write with a preflush, read, FUA write with a preflush.
MIXED = ([(0, OP_WRITE, 0, 4096, 10_000), (20_000, OP_WRITE, 8192, 4096, 30_000), (40_000, OP_FLUSH, 0, 0, 50_000),
          (60_000, OP_WRITE, 16384, 4096, 70_000), (80_000, OP_READ, 0, 4096, 90_000),
          (100_000, OP_WRITE, 24576, 4096, 110_000)],
         [0, FLAG_FUA, 0, FLAG_PREFLUSH, 0, FLAG_FUA | FLAG_PREFLUSH])


def io_lines(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines()[1:] if line.split()[2] not in ("add", "open",
                                                                                                  "close")]


def test_flushes_preflushes_and_fua_writes_have_lines_fio_runs(tmp_path: Path) -> None:
    """QA: FUA writes went out as plain writes, and flushes as `sync` lines without an offset
    and a length, which fio's v3 parser drops ("bad iolog file action"): the device saw neither."""
    log = write_iologs(chunk(*MIXED), tmp_path, "/dev/fake", 1 << 20, idle_cap_us=None)
    assert (log.fua_writes, log.preflushes, log.flushes, log.dropped_trims) == (2, 2, 1, 0)
    # Lanes (one fio job each at iodepth 1): as many as the trace had in flight at once, here 2
    # (a preflush's datasync goes beside its write).
    names = [(job.name, job.dsync, job.iodepth) for job in log.jobs]
    assert names == [("replay-1", False, 1), ("replay-2", False, 1), ("fua-1", True, 1), ("fua-2", True, 1)]
    lines = {job.name: [(t, a, o, n) for t, _, a, o, n in io_lines(job.path)] for job in log.jobs}
    assert lines == {
        "replay-1": [("1", "write", "0", "4096"), ("41", "datasync", "0", "0"), ("61", "datasync", "0", "0"),
                     ("81", "read", "0", "4096")],
        "replay-2": [("61", "write", "16384", "4096")],
        "fua-1": [("21", "write", "8192", "4096"), ("101", "datasync", "0", "0")],
        "fua-2": [("101", "write", "24576", "4096")]}
    # A FUA job's first line is not at 0: fio waits for an entry only when the one before was not at 0.
    assert all(job.path.read_text().splitlines()[1].startswith(f"{START_US} ") for job in log.jobs)
    assert [job.ios for job in log.jobs] == [4, 1, 2, 1] and log.ios == 8 and log.reads_writes == 5
    assert log.planned_us.tolist() == [0, 20, 60, 80, 100]
    command = fio_command("fio", log, "/dev/fake", tmp_path / "replay", ["io_uring", "io_uring", "libaio", "libaio"])
    fua_job = command[command.index("--name=fua-1"):]
    assert "--sync=dsync" in fua_job and "--ioengine=libaio" in fua_job
    assert "--sync=dsync" not in command[:command.index("--name=fua-1")]


def test_a_trace_without_fua_writes_is_one_plain_job(tmp_path: Path) -> None:
    log = write_iologs(chunk(MIXED[0][:2]), tmp_path, "/dev/fake", 1 << 20)
    assert [job.name for job in log.jobs] == ["replay-1"] and not list(tmp_path.glob("fua*.iolog"))


def test_the_idle_time_cut_is_reported(tmp_path: Path) -> None:
    """QA: fio replays always reported "Idle time cut by the cap 0.0 s"."""
    c = chunk([(0, OP_READ, 0, 4096, 100_000), (5_000_000, OP_READ, 0, 4096, 5_100_000),
               (5_050_000, OP_READ, 0, 4096, 5_150_000)])
    assert write_iologs(c, tmp_path, "/dev/fake", 1 << 20, idle_cap_us=25.0).idle_cut_ns == 5_000_000 - 100_000 - 25_000
    assert write_iologs(c, tmp_path, "/dev/fake", 1 << 20, idle_cap_us=None).idle_cut_ns == 0


def test_lines_fio_skips_fail_the_replay(tmp_path: Path) -> None:
    """fio skips an iolog line it cannot read and says so on stderr only, exiting 0: a replay of
    part of the trace must not pass for the whole."""
    fake = tmp_path / "fio"
    fake.write_text("#!/bin/sh\n"  # empty latency logs, one line on stderr, exit 0: what fio does
                    'for a in "$@"; do case "$a" in --write_lat_log=*) : > "${a#*=}_lat.1.log";; esac; done\n'
                    "echo 'fio: bad iolog file action: sync' >&2\necho '{\"jobs\": []}'\n")
    fake.chmod(0o755)
    target = tmp_path / "target.bin"
    target.write_bytes(b"")
    with pytest.raises(EngineError, match="fio skipped lines of the replay's iolog: fio: bad iolog file action"):
        replay_with_fio(chunk(*MIXED), target, 1 << 20, tmp_path / "work", ioengine_for=lambda depth: "io_uring",
                        fio=str(fake))


@pytest.mark.fio
def test_fio_runs_the_flushes_and_the_fua_writes_with_o_dsync(tmp_path: Path) -> None:
    target = tmp_path / "target.bin"
    target.write_bytes(bytes(1 << 20))
    r = replay_with_fio(chunk(*MIXED), target, 1 << 20, tmp_path / "work", idle_cap_us=None,
                        ioengine_for=FioEngine().ioengine_for)
    jobs = {job["jobname"]: job for job in r.result["jobs"]}

    def total(group: str, what: str) -> int:
        return sum(job[what]["total_ios"] if what != "sync" else job["sync"]["lat_ns"]["N"]
                   for name, job in jobs.items() if name.startswith(f"{group}-"))

    assert total("replay", "sync") == 2  # the flush and the preflush
    assert total("fua", "sync") == 1  # the preflush of the FUA write
    assert total("fua", "write") == 2 and all(job["job options"]["sync"] == "dsync"
                                              for name, job in jobs.items() if name.startswith("fua-"))
    assert total("replay", "write") == 2 and not any("sync" in job["job options"]
                                                     for name, job in jobs.items() if name.startswith("replay-"))


@pytest.mark.fio
def test_a_late_first_io_is_issued_at_its_time(tmp_path: Path) -> None:
    """fio issues an entry at once when the entry before it was at time 0: the first I/O after
    a dropped trim, and the FUA job's first write, started at once, however late they were."""
    target = tmp_path / "target.bin"
    target.write_bytes(bytes(1 << 20))
    c = chunk([(0, OP_TRIM, 0, 4096, 10_000), (200_000_000, OP_READ, 0, 4096, 200_100_000),
               (300_000_000, OP_WRITE, 8192, 4096, 300_100_000)], flags=[0, 0, FLAG_FUA])
    r = replay_with_fio(c, target, 1 << 20, tmp_path / "work", idle_cap_us=None,
                        ioengine_for=FioEngine().ioengine_for)
    read, write = r.issued_us.tolist()  # ±1 ms (fio's latency log times are in ms)
    assert 190_000 <= read <= 260_000 and 290_000 <= write <= 360_000, (read, write)


def test_drift_and_queue_depth() -> None:
    planned = np.array([0, 100, 200, 300])
    assert drift(planned, planned + 7) == (0.0, 0.0, 0.0)
    # Nothing to take a figure over is no figure, never a drift of 0 (one I/O; I/Os planned at once)
    assert drift(planned[:1], planned[:1]) == (None, None, None)
    assert drift(np.array([5, 5, 5]), np.array([0, 10, 20]))[0] is None
    pct, p50, _ = drift(planned, np.array([0, 150, 300, 450]))
    assert pct == pytest.approx(50.0) and p50 == pytest.approx(75.0)
    assert max_outstanding(np.array([0, 1, 2, 10]), np.array([5, 6, 3, 11])) == 3


@pytest.mark.fio
def test_trace_replays_with_fio_on_a_file_and_reports_drift(tmp_path: Path) -> None:
    target = parse_target(f"file:{tmp_path / 'target.bin'}?size=256m")
    done = run_entries(tmp_path / "b", target, FioEngine(), [entry("trace", trace="generated:light", scale=0.002)])
    m = done.test("trace").metrics
    assert isinstance(m["fio_drift_pct"], float)
    assert isinstance(m["avg_data_rate_mb_s"], float) and m["avg_data_rate_mb_s"] > 0
    assert isinstance(m["trace_ios"], int) and m["trace_ios"] > 900  # 1000 I/Os in the trace
    assert isinstance(m["idle_cut_s"], float) and m["idle_cut_s"] > 0  # the trace's idle gaps, cut to 25 µs


@pytest.mark.fio
@pytest.mark.root
def test_trace_replays_with_fio_on_a_loop_device(cli: Callable, loop_device: tuple[str, Path],
                                                 tmp_path: Path) -> None:
    """The replay step on a block device asks the target for the path fio uses (it once called
    the `device_path` property and every block-device replay ended in exit 70)."""
    name, backing = loop_device
    trace = tmp_path / "light.parquet"
    assert cli("trace", "generate", "light", "--scale", "0.001", "-o", str(trace)).code == 0
    bundle = tmp_path / "b"
    result = cli("run", "--test", "trace", "-p", f"trace={trace}", "-t", f"/dev/{name}", "--destroy",
                 f"--yes={name}", "--no-library", "-o", str(bundle))
    assert result.code == 0, result.stderr
    test = Bundle(bundle).load_run().test("trace")
    step = next(s for s in test.steps if s.step.name == "replay")
    assert step.detail["fio_ios"] == 500  # every read and write of the trace (it has no trims)
    # every one in the per-I/O figures: fio 3.33 left out the last iodepth - 1 at one job of iodepth N
    assert test.metrics["trace_ios"] == 500
    assert isinstance(test.metrics["fio_drift_pct"], float)
    assert allocated_bytes(backing) > 0  # purged, then the trace's writes reached the device


@pytest.mark.fio
@pytest.mark.root
def test_fua_writes_reach_a_loop_device_and_the_results_say_how(loop_device: tuple[str, Path],
                                                                 tmp_path: Path) -> None:
    """QA: the trace test replayed with fio dropped FUA, yet its results said "Writes marked FUA
    30.0 %". A loop device has a volatile cache and no FUA: the kernel sends each O_DSYNC write to
    it as a write and a flush (concurrent ones may share a flush)."""
    name, _ = loop_device
    bundle = tmp_path / "b"
    ssdlab = Path(sys.executable).parent / "ssdlab"
    run = [str(ssdlab), "run", "--test", "trace", "-p", "trace=generated:light", "-p", "scale=0.001", "-p",
           "fua_pct=30", "-t", f"/dev/{name}", "--destroy", f"--yes={name}", "--no-library", "-o", str(bundle)]
    raw = tmp_path / "cap.txt"
    assert capture(f"/dev/{name}", raw, command=run).command_status == 0
    import_trace(raw, "capture", tmp_path / "cap.parquet")
    seen = audit_fua(iter_trace(tmp_path / "cap.parquet"))[0]
    assert seen.writes == 200 and seen.flushes > 0, seen  # before: no flush reached the device
    test = Bundle(bundle).load_run().test("trace")
    detail = next(s for s in test.steps if s.step.name == "replay").detail
    fua = detail["trace_fua_writes"]
    assert 0 < fua == detail["fio_fua_writes"] and detail["fio_ios"] == 500
    assert test.metrics["fua_replay"] == "o_dsync_flush"  # what the loop device's queue/fua=0 makes of it
    assert test.metrics["fua_pct"] == pytest.approx(100 * fua / detail["trace_counts"]["writes"])


@pytest.mark.parametrize(("depth", "engine"), [(1, "io_uring"), (4, "io_uring"), (3, "libaio"), (6, "libaio")])
def test_a_replay_keeps_its_traced_depth_as_the_workloads_do(tmp_path: Path, depth: int, engine: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay capped at a depth that is not a power of two takes the engine the workloads would:
    fio before 3.39 ran io_uring at the next power of two (engines/fio.py)."""
    from ssdlab.engines import fio as fio_engine

    monkeypatch.setattr(fio_engine, "probe_ioengine", lambda binary: "io_uring")
    monkeypatch.setattr(fio_engine.FioEngine, "version_tuple", lambda self: (3, 33))
    assert fio_engine.FioEngine().ioengine_for(depth) == engine
    assert fio_engine.FioEngine(ioengine="libaio").ioengine_for(depth) == "libaio"  # a pinned engine stays


def planned_command(plan_out: str) -> str:
    """The fio command `ssdlab plan --fio` printed for a replay: from fio's path to the line
    that does not continue (printed as fio comments, '# ', so fio reads the whole output)."""
    lines = [line.removeprefix("# ") for line in plan_out.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{shutil.which('fio')} --output-format="))
    end = next(i for i in range(start, len(lines)) if not lines[i].endswith("\\"))
    return "\n".join(lines[start:end + 1]) + "\n"


AUDIT_PARAMS = ("-p", "trace=generated:light", "-p", "scale=0.002", "-p", "fua_pct=20")


def test_plan_fio_shows_a_replays_fio_command(cli: Callable, tmp_path: Path) -> None:
    """QA: `plan --fio` printed no fio job for a trace replay. It prints the command the step
    will run, with the lanes (FUA ones with O_DSYNC) and the iologs' paths in the bundle, and
    writes nothing (the iologs are written when the step starts)."""
    target = f"file:{tmp_path / 'target.bin'}?size=64m"
    plan = cli("plan", "--test", "trace", *AUDIT_PARAMS, "--fio", "-t", target)
    assert plan.code == 0, plan.stderr
    assert "iologs v3 that ssdlab writes in BUNDLE/raw/trace/replay when the step starts" in plan.stdout
    command = planned_command(plan.stdout)
    assert "--output=BUNDLE/raw/trace/replay/replay.json" in command and "--output-format=json+" in command
    assert "--read_iolog=BUNDLE/raw/trace/replay/replay-1.iolog" in command
    assert f"--replay_redirect={tmp_path / 'target.bin'}" in command
    fua = command[command.index("--name=fua-1"):]
    assert "--sync=dsync" in fua and "--sync=dsync" not in command[:command.index("--name=fua-1")]
    assert list(tmp_path.iterdir()) == []  # not even the target file


@pytest.mark.fio
def test_a_replay_on_fio_keeps_its_command_and_json_as_planned(cli: Callable, tmp_path: Path) -> None:
    """QA: a replay's bundle kept neither the fio command nor fio's JSON. raw/ keeps both: the
    command is the one `plan --fio` printed (the bundle's path for BUNDLE), and the JSON has the
    figures the results give."""
    target = f"file:{tmp_path / 'target.bin'}?size=64m"
    bundle = tmp_path / "b"
    run = cli("run", "--test", "trace", *AUDIT_PARAMS, "-t", target, "--no-library", "-o", str(bundle))
    assert run.code == 0, run.stderr
    raw = bundle / "raw" / "trace" / "replay"
    test = Bundle(bundle).load_run().test("trace")
    detail = next(s for s in test.steps if s.step.name == "replay").detail
    jobs = json.loads((raw / "replay.json").read_text())["jobs"]
    assert len(jobs) == len(detail["fio_jobs"]) and any("bins" in job["write"]["clat_ns"] for job in jobs)  # json+
    ios = sum(job[d]["total_ios"] for job in jobs for d in ("read", "write"))
    moved = sum(job[d]["io_bytes"] for job in jobs for d in ("read", "write"))
    assert ios == detail["fio_ios"] == test.metrics["trace_ios"] == 1000
    assert moved == detail["read"]["bytes"] + detail["write"]["bytes"] > 0
    assert (detail["fio_command_file"], detail["fio_output_file"]) == ("raw/trace/replay/replay.cmd",
                                                                        "raw/trace/replay/replay.json")
    plan = cli("plan", "--test", "trace", *AUDIT_PARAMS, "--fio", "-t", target)
    assert (raw / "replay.cmd").read_text() == held_as(planned_command(plan.stdout).replace("BUNDLE/", f"{bundle}/"),
                                                       tmp_path / "target.bin", (raw / "replay.cmd").read_text())


def held_as(planned: str, path: Path, kept: str) -> str:
    """The planned command as the run keeps it: fio given the descriptor ssdlab held of the file
    (FileTarget.fio_open), which the kept command's first line names with the path."""
    said = kept.splitlines()[0]
    assert said.startswith("# /proc/") and f": {path}, held open by ssdlab (O_NOFOLLOW)" in said, said
    held = said.removeprefix("# ").split(":")[0]
    assert [said] == held_file_comment(str(path), held, "#")  # the job files' sentence (engines/fio.py)
    return f"{said}\n{planned.replace(f'={path} ', f'={held} ')}"


@pytest.mark.fio
def test_a_replay_runs_the_engines_fio_program(tmp_path: Path) -> None:
    """Review: `plan --fio` printed the engine's fio program for a replay, but the replay ran
    plain `fio` from PATH (the step was not given the engine's binary). The replay runs the
    program the engine's workloads run, and replay.cmd names it."""
    from ssdlab.engines.base import RunContext
    from ssdlab.steps import ReplayTrace

    calls = tmp_path / "calls.txt"
    program = tmp_path / "bin" / "lab-fio"
    program.parent.mkdir()
    program.write_text(f"#!/bin/sh\necho \"$0\" >> {calls}\nexec {shutil.which('fio')} \"$@\"\n")
    program.chmod(0o755)
    engine = FioEngine(binary=str(program))
    target = parse_target(f"file:{tmp_path / 'target.bin'}?size=64m")
    raw = tmp_path / "bundle" / "raw" / "trace" / "replay"
    ctx = RunContext(raw_dir=raw, bundle_dir=tmp_path / "bundle")
    step = ReplayTrace(trace="generated:light", scale=0.002)
    try:
        result = engine.step(target, step, ctx)
    finally:
        target.release()
    assert result.detail["fio_ios"] > 0
    assert str(program) in calls.read_text().splitlines()  # the replay ran it (the probe may too)
    assert (raw / "replay.cmd").read_text().splitlines()[1].startswith(f"{program} --output-format=json+")
