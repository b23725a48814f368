"""A short byte-bounded fio job's length in µs, not fio's whole ms: recorded fio 3.33 runs of a
transfer-sweep point (`ssdlab run --test transfer-sweep -t file:...`, a 256 MiB region at QD4),
their iolog and per-I/O latency logs (fio_parse.logged_run_s)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fio_helpers import FIO_FIXTURES
from ssdlab.engines.base import RunContext
from ssdlab.engines.fio import IOLOG_MAX_IOS, FioEngine, run_time, times_by_iolog
from ssdlab.engines.fio_parse import (
    RunTime,
    iolog_issues,
    load_json_plus,
    logged_run_s,
    read_io_log,
    refined_runtime,
    series_from_io_rows,
    summarize,
)
from ssdlab.targets.file import FileTarget
from ssdlab.units import KIB, MIB
from ssdlab.workload import Workload

REGION = 256 * MIB


def point(name: str, block: int, pattern: str = "read", **more: object) -> Workload:
    fields: dict[str, object] = {"name": name, "pattern": pattern, "block_size_bytes": block, "iodepth": 4,
                                 "span_bytes": REGION, "size_bytes": REGION, **more}
    return Workload.model_validate(fields)


def recorded(name: str, tmp_path: Path) -> tuple[RunContext, str]:
    """A run context whose raw directory holds the recorded point, and fio's output."""
    raw = tmp_path / "bundle" / "raw" / "transfer-sweep" / name
    shutil.copytree(FIO_FIXTURES / f"iolog-{name}", raw)
    ctx = RunContext(raw_dir=raw, bundle_dir=tmp_path / "bundle", progress=lambda update: None)
    return ctx, (raw / f"{name}.json").read_text()


def test_a_64_mib_read_is_bounded_by_its_logs_as_worked_by_hand() -> None:
    """bs64m-read.iolog: open at 287 µs, the four reads queued at 298, 27,058, 52,004 and 80,570 µs.
    Latest issue + total latency: 27,058,000 + 230,820,255 ns = 257,878,255; less the open:
    257,591,255 ns. Latest issue + completion latency: 27,058,000 + 205,881,807 = 232,939,807;
    less the open: 232,652,807 ns (the reads spent ~25 ms in io_uring's submission). fio says 258 ms:
    the run lasted more than 257 ms, so it lasted 257.000-257.591 ms."""
    directory = FIO_FIXTURES / "iolog-bs64m-read"
    lat = read_io_log(directory / "bs64m-read_lat.1.log")
    clat = read_io_log(directory / "bs64m-read_clat.1.log")
    bounds = logged_run_s((directory / "bs64m-read.iolog").read_text(), lat, clat)
    assert bounds == (0.232652807, 0.257591255)
    timed = refined_runtime(0.258, bounds)
    assert timed is not None
    assert timed.runtime_s == pytest.approx((0.257 + 0.257591255) / 2, abs=1e-12)
    assert timed.uncertainty_s == pytest.approx((0.257591255 - 0.257) / 2, abs=1e-12)


def test_the_engine_measures_a_recorded_short_point_by_its_logs(tmp_path: Path) -> None:
    """fio's 258 ms made 1,040.4 MB/s of 256 MiB; the run lasted 257.000-257.591 ms: 1,043.3 MB/s
    ± 0.12 % (fio's whole ms: 0-0.39 % low)."""
    ctx, text = recorded("bs64m-read", tmp_path)
    m = FioEngine(ioengine="io_uring", telemetry=False)._measurement(point("bs64m-read", 64 * MIB), ctx, text, {})
    runtime_s = (0.257 + 0.257591255) / 2
    assert m.runtime_s == pytest.approx(runtime_s, abs=1e-12)
    assert m.mb_s() == pytest.approx(REGION / runtime_s / 1e6, rel=1e-12)
    assert round(m.mb_s(), 1) == 1043.3 and round(REGION / 0.258 / 1e6, 1) == 1040.4
    assert m.engine_facts["fio_runtime_ms"] == 258
    assert m.engine_facts["runtime_uncertainty_s"] == pytest.approx((0.257591255 - 0.257) / 2, abs=1e-12)
    # Its series: one period, every I/O in it, ending with the run.
    assert m.series.t_s == (m.runtime_s,) and m.series.read_ios == (4,) and m.series.read_bytes == (REGION,)


def hand_bounds(directory: Path, name: str) -> tuple[float, float]:
    """The logs' bounds read apart from fio_parse: open, each I/O's queue stamp by offset, + latency."""
    lines = [line.split() for line in (directory / f"{name}.iolog").read_text().splitlines()[1:]]
    opened = next(int(parts[0]) for parts in lines if parts[2] == "open")
    queued = {int(parts[3]): int(parts[0]) for parts in lines if parts[2] in ("read", "write")}
    ends = []
    for kind in ("clat", "lat"):
        text = (directory / f"{name}_{kind}.1.log").read_text()
        rows = [[int(v) for v in line.split(",")] for line in text.splitlines()]
        ends.append(max(queued[row[4]] * 1000 + row[1] for row in rows) - opened * 1000)
    return ends[0] / 1e9, ends[1] / 1e9


def test_a_1_mib_write_is_timed_to_tens_of_us(tmp_path: Path) -> None:
    """256 writes of 1 MiB: fio says 117 ms; the logs bound the run within ~40 µs, inside that ms."""
    least, most = hand_bounds(FIO_FIXTURES / "iolog-bs1m-write", "bs1m-write")
    assert 0.116 < least < most <= 0.117 and most - least < 50e-6
    ctx, text = recorded("bs1m-write", tmp_path)
    m = FioEngine(ioengine="io_uring", telemetry=False)._measurement(point("bs1m-write", MIB, "write"), ctx, text, {})
    assert m.runtime_s == pytest.approx((least + most) / 2, abs=1e-12)
    assert m.engine_facts["runtime_uncertainty_s"] == pytest.approx((most - least) / 2, abs=1e-12)
    assert m.write.ios == 256 and m.series.write_ios == (256,)


def test_bounds_that_miss_fios_ms_are_no_clock() -> None:
    assert refined_runtime(0.117, (0.1100, 0.1120)) is None  # ended 5 ms before fio's ms: not this run
    assert refined_runtime(0.117, (0.1190, 0.1200)) is None
    assert refined_runtime(0.117, None) is None
    # Within fio's ms by a hair past it: fio's edge, no wider.
    assert refined_runtime(0.117, (0.1171, 0.1172)) == RunTime(0.117, 0.0)


def test_without_logs_a_byte_bounded_job_takes_the_middle_of_fios_ms(tmp_path: Path) -> None:
    """fio rounds the run up to whole ms: 117 ms means 116-117 ms, 116.5 ± 0.5; a job bounded by
    time keeps fio's figure."""
    none = tmp_path / "none.iolog"
    assert run_time(point("p", 4 * KIB), 0.117, none, [], []) == RunTime(0.1165, 0.0005)
    timed = Workload(name="t", pattern="randread", block_size_bytes=4096, runtime_s=10)
    assert run_time(timed, 10.001, none, [], []) is None


def test_which_jobs_log_each_io() -> None:
    assert times_by_iolog(point("p", 16 * KIB))  # 16,384 I/Os
    assert not times_by_iolog(point("p", 8 * KIB))  # 32,768: the iolog's CPU would show
    assert REGION // (16 * KIB) == IOLOG_MAX_IOS
    assert not times_by_iolog(point("p", MIB, "randread"))  # offsets repeat
    assert not times_by_iolog(point("p", MIB, jobs=2))  # clones would share the iolog
    assert not times_by_iolog(point("p", MIB, runtime_s=5))


def options(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith(";"))


def test_plan_fio_shows_the_logs(tmp_path: Path) -> None:
    target = FileTarget.from_spec(f"file:{tmp_path}/t.dat?size=1g")
    engine = FioEngine(ioengine="io_uring")
    short = options(engine.job_text(target, point("bs16k-read", 16 * KIB)))
    assert (short["write_iolog"], short["write_lat_log"], short["log_avg_msec"], short["log_offset"]) == (
        "bs16k-read.iolog", "bs16k-read", "0", "1")
    assert "write_bw_log" not in short and "write_iops_log" not in short
    long = options(engine.job_text(target, point("bs8k-read", 8 * KIB)))
    assert "write_iolog" not in long and long["log_avg_msec"] == "1000"
    # A remote host's job (fio_multi) keeps the averaged logs: its iolog would be on that host.
    remote = options(engine.job_text_for(target, point("bs16k-read", 16 * KIB), None, "io_uring", (3, 33)))
    assert "write_iolog" not in remote


def test_an_iolog_appended_to_is_read_from_its_last_job() -> None:
    text = ("fio version 3 iolog\n5 old add\n9 old open\n12 old read 0 4096\n"
            "fio version 3 iolog\n3 /tmp/a b.dat add\n40 /tmp/a b.dat open\n51 /tmp/a b.dat read 0 4096\n"
            "60 /tmp/a b.dat read 4096 4096\n90 /tmp/a b.dat close\n")
    assert iolog_issues(text) == (40, {("read", 0): 51, ("read", 4096): 60})


def test_a_series_counted_from_each_io() -> None:
    rows = [(40, 1000, "read", 4096, 0), (99, 3000, "read", 4096, 4096), (100, 5000, "write", 8192, 0)]
    series = series_from_io_rows(rows, 0.1, 0.1504)
    assert series.t_s == (0.1, 0.1504)
    assert series.read_ios == (2, 0) and series.write_bytes == (0, 8192) and series.read_lat_sum_ns == (4000, 0)


@pytest.mark.fio
def test_a_real_short_job_is_timed_inside_fios_ms(tmp_path: Path) -> None:
    target = FileTarget.from_spec(f"file:{tmp_path}/scratch.dat?size=32m")
    target.prepare()
    ctx = RunContext(raw_dir=tmp_path / "b" / "raw" / "t" / "w", bundle_dir=tmp_path / "b", progress=lambda u: None)
    w = Workload(name="w", pattern="write", block_size_bytes=MIB, iodepth=4, span_bytes=16 * MIB, size_bytes=16 * MIB)
    m = FioEngine(telemetry=False).measure(target, w, ctx)
    fio_s = m.engine_facts["fio_runtime_ms"] / 1000  # type: ignore[operator]
    assert "iolog" in m.raw_files and fio_s - 0.001 <= m.runtime_s <= fio_s
    assert 0 <= m.engine_facts["runtime_uncertainty_s"] <= 0.0005  # type: ignore[operator]
    assert m.series.write_ios == (16,) and m.series.t_s == (m.runtime_s,)
    summary = summarize(load_json_plus((ctx.raw_dir / "w.json").read_text()))
    assert summary.write.ios == 16
