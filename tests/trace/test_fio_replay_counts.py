"""QA of the fio replay: every I/O fio completes is in the per-I/O figures (fio 3.33 at one
job of iodepth N reaped completions only on a full queue and never accounted the last N - 1),
issue times taken from fio's ms log are never before the replay started, a trace of flushes
alone is refused in one line, fio's own error is what a failed replay says, and the results
count the same things on every engine."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.fio import FioEngine
from ssdlab.engines.sim import SimEngine
from ssdlab.errors import EngineError
from ssdlab.methods.trace import fua_device_path
from ssdlab.runner import run_entries
from ssdlab.suites import entry
from ssdlab.targets import parse_target
from ssdlab.trace.fio_replay import assign_lanes, lat_rows, lat_times_ns, replay_with_fio, write_iologs
from ssdlab.trace.model import FLAG_FUA, OP_FLUSH, OP_READ, OP_TRIM, OP_WRITE, Provenance, TraceChunk, write_trace


def chunk(ts: list[int], op: list[int], *, flags: list[int] | None = None, done: list[int] | None = None,
          length: int = 512) -> TraceChunk:
    n = len(ts)
    return TraceChunk.from_columns({
        "timestamp_ns": ts, "op": op,
        "offset_bytes": [(i % 64) * 4096 if o != OP_FLUSH else 0 for i, o in enumerate(op)],
        "length_bytes": [0 if o == OP_FLUSH else length for o in op], "flags": flags or [0] * n, "pid": [-1] * n,
        "completion_ns": done or [-1] * n})


def writes(n: int, gap_ns: int = 25_000, fua: bool = False) -> TraceChunk:
    """n 512-byte writes `gap_ns` apart, no completion times (as the QA's small.parquet)."""
    return chunk([i * gap_ns for i in range(n)], [OP_WRITE] * n, flags=[FLAG_FUA if fua else 0] * n)


def target_file(tmp_path: Path) -> Path:
    path = tmp_path / "target.bin"
    path.write_bytes(bytes(4 << 20))
    return path


@pytest.mark.fio
@pytest.mark.parametrize(("trace", "label"), [(writes(200), "200 plain writes"), (writes(50, fua=True), "50 FUA"),
                                              (writes(1, fua=True), "one FUA write")])
def test_every_io_fio_completes_is_in_the_latency_logs(tmp_path: Path, trace: TraceChunk, label: str) -> None:
    """QA: 200 writes logged 169, 50 FUA writes 19, one FUA write 0 ("I/Os replayed 0")."""
    r = replay_with_fio(trace, target_file(tmp_path), 4 << 20, tmp_path / "w", ioengine_for=FioEngine().ioengine_for)
    rows = lat_rows(r.lat_logs)
    counted = sum(job["write"]["total_ios"] for job in r.result["jobs"])
    assert len(rows) == counted == len(trace), label
    issue, done = lat_times_ns(rows)
    assert (issue >= 0).all() and (done - issue == rows[:, 1]).all()  # never before the start; latency exact


def test_issue_times_from_a_ms_log_are_never_before_the_start() -> None:
    """fio logs the completion in whole ms (truncated): 4 ms with a latency of 4.7 ms made an issue
    time of -0.7 ms, which crashed the busy time. The completion taken is the earliest the log allows."""
    rows = np.array([[4, 4_716_636, 1, 4096, 0], [18, 1_014_165, 1, 4096, 1], [0, 80_000, 0, 4096, 2]], dtype=np.int64)
    issue, done = lat_times_ns(rows)
    assert issue.tolist() == [0, 16_985_835, 0] and done.tolist() == [4_716_636, 18_000_000, 80_000]


def test_lanes_keep_the_traced_concurrency() -> None:
    issue = np.array([0, 1, 2, 10, 11])
    done = np.array([5, 6, 3, 11, 20])
    lane = assign_lanes(issue, done, 3)
    for k in set(lane):  # no two I/Os of a lane overlap in the trace
        mine = [(int(issue[i]), int(done[i])) for i in range(len(lane)) if lane[i] == k]
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in pairwise(mine))
    assert assign_lanes(issue, None, 2) == [0, 1, 0, 1, 0]


def test_a_trace_of_flushes_alone_is_refused_in_one_line(tmp_path: Path) -> None:
    """QA: "fio replay failed: ['}']" (fio refuses an iolog of syncs alone)."""
    flushes = chunk([i * 1000 for i in range(20)], [OP_FLUSH] * 20)
    with pytest.raises(EngineError, match=r"^fio cannot replay a trace without reads or writes \(it holds 20 "
                                          r"flushes and 0 trims\)") as error:
        write_iologs(flushes, tmp_path, "/dev/fake", 1 << 20)
    assert "\n" not in str(error.value)


def test_a_lane_of_flushes_alone_joins_one_with_writes(tmp_path: Path) -> None:
    """5 FUA writes and 5 plain flushes (QA: fuaplusflush.parquet): the plain job held only
    flushes, which fio refused; they go with the FUA writes (an fdatasync is the same there)."""
    c = chunk([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000], [OP_WRITE, OP_FLUSH] * 5,
              flags=[FLAG_FUA, 0] * 5)
    log = write_iologs(c, tmp_path, "/dev/fake", 1 << 20)
    assert all(job.dsync for job in log.jobs) and log.ios == 10 and log.reads_writes == 5
    assert all(len(job.planned_us) for job in log.jobs)  # no job without a read or a write


@pytest.mark.fio
def test_flushes_beside_fua_writes_replay(tmp_path: Path) -> None:
    c = chunk([0, 1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000], [OP_WRITE, OP_FLUSH] * 5,
              flags=[FLAG_FUA, 0] * 5)
    r = replay_with_fio(c, target_file(tmp_path), 4 << 20, tmp_path / "w", ioengine_for=FioEngine().ioengine_for)
    assert len(lat_rows(r.lat_logs)) == 5
    assert sum(job["sync"]["lat_ns"]["N"] for job in r.result["jobs"]) == 5


def test_a_failed_fio_says_what_fio_said(tmp_path: Path) -> None:
    """fio prints its errors on stdout before its JSON: the replay's error showed the JSON's
    last line, `['}']`."""
    fake = tmp_path / "fio"
    fake.write_text("#!/bin/sh\necho 'fio: pid=7, err=22/file:iolog.c:795, func=failed initializing iolog, "
                    "error=Invalid argument'\nprintf '{\\n}\\n'\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(EngineError, match=r"fio replay failed \(exit status 1\): fio: pid=7, err=22/file:iolog.c:795, "
                                          "func=failed initializing iolog, error=Invalid argument$"):
        replay_with_fio(writes(3), target_file(tmp_path), 4 << 20, tmp_path / "w", ioengine_for=lambda d: "io_uring",
                        fio=str(fake))


def mixed_trace(path: Path) -> Path:
    """Reads, writes (some FUA), trims and flushes, with completion times (as a blkparse trace)."""
    rng = np.random.default_rng(3)
    ops = [OP_READ] * 12 + [OP_WRITE] * 30 + [OP_TRIM] * 6 + [OP_FLUSH] * 8
    op = rng.permutation(ops).tolist()
    ts = [i * 50_000 for i in range(len(op))]
    flags = [FLAG_FUA if o == OP_WRITE and i % 3 == 0 else 0 for i, o in enumerate(op)]
    write_trace(path, [chunk(ts, op, flags=flags, done=[t + 30_000 for t in ts], length=4096)],
                Provenance(source_format="blkparse", source=str(path)))
    return path


@pytest.mark.fio
def test_the_counts_mean_the_same_on_fio_and_on_sim(tmp_path: Path) -> None:
    """QA: the same trace gave "I/Os replayed 294" on a file and 400 on sim, the header said
    "(400 I/Os)", and the trims fio dropped were only in run.json."""
    trace = mixed_trace(tmp_path / "mixed.parquet")
    one = [entry("trace", trace=str(trace))]
    sim = run_entries(tmp_path / "sim", parse_target("sim:sm951-nvme-256?scale=0.1"), SimEngine(), one).test("trace")
    fio = run_entries(tmp_path / "fio", parse_target(f"file:{tmp_path / 'g.img'}?size=64m"), FioEngine(),
                      one).test("trace")
    for test, trims, dropped in ((sim, 6, None), (fio, 0, 6)):  # the simulator drops none: no such row
        m = test.metrics
        assert (m["trace_ios"], m["flushes"], m["trims"], m.get("dropped_trims")) == (42, 8, trims, dropped)
    assert fio.metrics["fio_ios"] == 42
    from ssdlab.report.section_trace import trace_section

    for bundle, test in ((tmp_path / "sim", sim), (tmp_path / "fio", fio)):
        section = trace_section(Bundle(bundle), test)
        assert "(42 reads and writes, 8 flushes, 6 trims)" in section.caption
    notes = " ".join(trace_section(Bundle(tmp_path / "fio"), fio).notes)
    assert "6 trims of the trace dropped: the fio replay drops every trim, a block device's too" in notes


def test_the_fua_row_says_what_the_device_made_of_o_dsync() -> None:
    """QA: the row listed all three possibilities on a loop device whose queue/fua=0 and
    write-back cache say it was a write and a flush."""
    assert fua_device_path("write back", False) == "o_dsync_flush"
    assert fua_device_path("write back", True) == "o_dsync_fua"
    assert fua_device_path("write through", None) == "o_dsync_plain"
    assert fua_device_path(None, None) == "o_dsync"


def test_import_of_one_record_says_record(cli: Callable, tmp_path: Path) -> None:
    src = tmp_path / "one.log"
    src.write_text("fio version 3 iolog\n0 /dev/x add\n0 /dev/x open\n10 /dev/x write 0 4096\n")
    result = cli("trace", "import", str(src), "--format", "fio3", "-o", str(tmp_path / "one.parquet"))
    assert result.code == 0 and "Imported 1 record from" in result.stdout, result
