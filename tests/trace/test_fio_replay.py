"""Trace -> fio iolog v3 conversion (exact), and a real fio replay on a file target."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ssdlab.bundle import Bundle
from ssdlab.engines.fio import FioEngine
from ssdlab.runner import run_entries
from ssdlab.suites import entry
from ssdlab.targets import parse_target
from ssdlab.targets.file import allocated_bytes
from ssdlab.trace.fio_replay import capped_times_ns, drift, max_outstanding, write_iolog
from ssdlab.trace.importers import parse_text
from ssdlab.trace.model import FLAG_FUA, OP_FLUSH, OP_READ, OP_TRIM, OP_WRITE, TraceChunk


def chunk(rows: list[tuple[int, int, int, int, int]]) -> TraceChunk:
    ts, op, off, ln, done = zip(*rows, strict=True)
    n = len(rows)
    return TraceChunk.from_columns({"timestamp_ns": ts, "op": op, "offset_bytes": off, "length_bytes": ln,
                                    "flags": [FLAG_FUA] * n, "pid": [-1] * n, "completion_ns": done})


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
    log = write_iolog(c, tmp_path / "t.iolog", "/dev/fake", span, idle_cap_us=None)
    assert log.dropped_trims == 1 and log.ios == 3
    back = parse_text(log.path.read_text(), "fio3")
    assert back.op.tolist() == [OP_WRITE, OP_FLUSH, OP_READ]
    assert back.timestamp_ns.tolist() == [0, 20_000, 60_000]  # µs in the file, exact here
    assert back.length_bytes.tolist() == [4096, 0, 8192]  # rounded up to 4 KiB for O_DIRECT
    assert all(o % 4096 == 0 and o + n <= span for o, n in zip(back.offset_bytes, back.length_bytes, strict=True))
    assert back.offset_bytes[2] == 12288  # an offset already inside the span stays


def test_drift_and_queue_depth() -> None:
    planned = np.array([0, 100, 200, 300])
    assert drift(planned, planned + 7) == (0.0, 0.0, 0.0)
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
    # fio 3.33 leaves the I/Os still in flight at the end out of its per-I/O log
    assert isinstance(test.metrics["trace_ios"], int) and test.metrics["trace_ios"] > 480
    assert isinstance(test.metrics["fio_drift_pct"], float)
    assert allocated_bytes(backing) > 0  # purged, then the trace's writes reached the device


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
