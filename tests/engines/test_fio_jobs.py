"""fio job files (what `ssdlab plan --fio` prints) and the engine's version checks."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fio_helpers import workload
from ssdlab.engines.fio import FioEngine, probe_ioengine
from ssdlab.errors import EngineError
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.file import FileTarget
from ssdlab.targets.sysinfo import SysRoot
from ssdlab.units import GIB, MIB

ENGINE = FioEngine(ioengine="io_uring")  # pinned: job files must not depend on the kernel


def file_target(path: str = "ssdlab.dat", size: int = GIB) -> FileTarget:
    """A file target in the test's directory (info() insists the directory exists)."""
    full = Path.cwd() / path
    return FileTarget(spec=f"file:{full}", path=full, size_bytes=size)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def options(text: str) -> dict[str, str]:
    lines = [line for line in text.splitlines() if "=" in line and not line.startswith(";")]
    return dict(line.split("=", 1) for line in lines)


def test_random_write_snapshot() -> None:
    w = workload(name="rw4k", pattern="randwrite", iodepth=32, runtime_s=600, ramp_s=5, seed=7)
    text = ENGINE.job_text(file_target(), w).replace(str(Path.cwd()), "/scratch")
    assert text == "\n".join([
        "; ssdlab workload rw4k: 4KiB randwrite QD32 T1 600s",
        "[global]",
        "filename=/scratch/ssdlab.dat",
        "ioengine=io_uring",
        "direct=1",
        "rw=randwrite",
        "bs=4096",
        "iodepth=32",
        "numjobs=1",
        "norandommap=1",
        "offset=0",
        "size=1g",
        "time_based=1",
        "runtime=600s",
        "ramp_time=5s",
        "refill_buffers=0",
        "scramble_buffers=1",
        "randseed=7",
        "group_reporting=1",
        "lat_percentiles=1",
        "write_iops_log=rw4k",
        "write_bw_log=rw4k",
        "write_lat_log=rw4k",
        "log_avg_msec=1000",
        "per_job_logs=1",
        "",
        "[rw4k]",
        "",
    ])


def test_read_snapshot_has_no_buffer_options() -> None:
    opts = options(ENGINE.job_text(file_target(), workload(pattern="randread")))
    assert "refill_buffers" not in opts and "buffer_compress_percentage" not in opts


def test_sequential_jobs_get_their_own_slices() -> None:
    w = workload(pattern="write", block_size_bytes=128 * 1024, jobs=4, offset_bytes=MIB, span_bytes=512 * MIB)
    opts = options(ENGINE.job_text(file_target(), w))
    assert (opts["offset"], opts["size"], opts["offset_increment"]) == (str(MIB), "128m", "128m")
    assert opts["numjobs"] == "4"


def test_random_jobs_share_the_span() -> None:
    opts = options(ENGINE.job_text(file_target(), workload(pattern="randwrite", jobs=4, span_bytes=256 * MIB)))
    assert opts["size"] == "256m" and "offset_increment" not in opts


def test_span_is_clipped_to_the_target() -> None:
    opts = options(ENGINE.job_text(file_target(size=64 * MIB), workload(offset_bytes=16 * MIB, span_bytes=GIB)))
    assert (opts["offset"], opts["size"]) == (str(16 * MIB), "48m")


def test_mixed_compressible_synchronous() -> None:
    w = workload(pattern="randrw", read_pct=70, compress_pct=50, sync="dsync")
    opts = options(ENGINE.job_text(file_target(), w))
    assert opts["rwmixread"] == "70"
    assert opts["buffer_compress_percentage"] == "50" and opts["refill_buffers"] == "1"
    assert opts["sync"] == "dsync"
    fsync = options(ENGINE.job_text(file_target(), workload(pattern="write", sync="fsync", fsync_every=8)))
    assert fsync["fsync"] == "8" and "sync" not in fsync


def test_byte_limit_and_time_limit() -> None:
    by_size = options(ENGINE.job_text(file_target(), workload(pattern="write", runtime_s=None, size_bytes=GIB)))
    assert by_size["io_size"] == "1g" and "time_based" not in by_size and "runtime" not in by_size
    both = options(ENGINE.job_text(file_target(), workload(runtime_s=30, size_bytes=GIB)))
    assert both["runtime"] == "30s" and "time_based" not in both
    short = options(ENGINE.job_text(file_target(), workload(runtime_s=1.5, ramp_s=0.25, log_period_s=0.5)))
    assert (short["runtime"], short["ramp_time"], short["log_avg_msec"]) == ("1500ms", "250ms", "500")


def test_steady_state_options() -> None:
    opts = options(ENGINE.job_text(file_target(), workload(runtime_s=3600, fio_steady_state=True)))
    assert (opts["ss"], opts["ss_dur"], opts["ss_ramp"]) == ("iops_slope:10%", "300s", "0")
    short = options(ENGINE.job_text(file_target(), workload(runtime_s=60, fio_steady_state=True)))
    assert short["ss_dur"] == "30s"


def test_trim_on_a_file_punches_holes_through_falloc() -> None:
    opts = options(ENGINE.job_text(file_target(), workload(pattern="trim", block_size_bytes=MIB)))
    assert (opts["rw"], opts["ioengine"]) == ("trim", "falloc")


def test_seed_zero_means_fresh_randomness() -> None:
    opts = options(ENGINE.job_text(file_target(), workload(seed=0)))
    assert opts["randrepeat"] == "0" and "randseed" not in opts


def test_colon_in_path_is_escaped() -> None:
    (Path.cwd() / "a:b").mkdir()
    opts = options(ENGINE.job_text(file_target("a:b/x.dat"), workload()))
    assert opts["filename"].endswith("/a\\:b/x.dat")


def test_block_target_job_needs_no_authorization(machine_dev: Path) -> None:
    """`ssdlab plan --fio` shows writes to a drive without being allowed to run them."""
    root = SysRoot(sys=machine_dev.parent / "sys", mountinfo=machine_dev.parent / "proc" / "mountinfo",
                   swaps=machine_dev.parent / "proc" / "swaps", dev=machine_dev)
    target = BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=root, run=lambda argv: None)
    opts = options(ENGINE.job_text(target, workload(pattern="randwrite")))
    assert opts["filename"] == str(machine_dev / "nvme0n1")
    assert opts["size"] == "250059096k"  # the whole namespace


@pytest.fixture
def machine_dev() -> Path:
    return Path(__file__).resolve().parents[1] / "fixtures" / "sysfs" / "machine" / "dev"


# ---- version and availability -------------------------------------------------------------


def fake_fio(tmp_path: Path, version: str) -> str:
    script = tmp_path / "fio"
    script.write_text(f"#!/bin/sh\necho {version}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_missing_fio_is_one_line() -> None:
    with pytest.raises(EngineError) as err:
        FioEngine(binary="ssdlab-no-such-fio").version()
    assert str(err.value) == "fio not found: install it with `apt-get install fio`"


def test_too_old_fio(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match=r"fio-3\.1 is too old: ssdlab needs fio 3\.24"):
        FioEngine(binary=fake_fio(tmp_path, "fio-3.1")).version()


def test_unreadable_version(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="cannot read fio's version"):
        FioEngine(binary=fake_fio(tmp_path, "hello")).version()


def test_new_enough_version(tmp_path: Path) -> None:
    assert FioEngine(binary=fake_fio(tmp_path, "fio-3.41")).version() == "fio-3.41"


@pytest.mark.parametrize(("version", "iodepth", "expected"), [
    ("fio-3.33", 3, "libaio"), ("fio-3.33", 6, "libaio"), ("fio-3.38", 24, "libaio"),
    ("fio-3.33", 1, "io_uring"), ("fio-3.33", 32, "io_uring"),
    ("fio-3.39", 3, "io_uring"), ("fio-3.41", 6, "io_uring"),
])
def test_io_uring_only_where_it_keeps_the_queue_depth(tmp_path: Path, version: str, iodepth: int,
                                                       expected: str) -> None:
    """fio's io_uring before 3.39 runs a depth that is not a power of two at the next one."""
    engine = FioEngine(binary=fake_fio(tmp_path, version), ioengine="io_uring")
    text = engine.job_text(file_target(), workload(iodepth=iodepth))
    opts = options(text)
    assert (opts["ioengine"], opts["iodepth"]) == (expected, str(iodepth))
    assert ("; libaio, not io_uring" in text) == (expected == "libaio")
    pinned_libaio = FioEngine(binary=fake_fio(tmp_path, version), ioengine="libaio")
    assert options(pinned_libaio.job_text(file_target(), workload(iodepth=iodepth)))["ioengine"] == "libaio"
    trim = options(engine.job_text(file_target(), workload(pattern="trim", iodepth=iodepth)))
    assert trim["ioengine"] == "falloc"


def test_unknown_fio_version_keeps_the_queue_depth() -> None:
    """`ssdlab plan --fio` without fio: assume the old io_uring."""
    engine = FioEngine(binary="ssdlab-no-such-fio", ioengine="io_uring")
    assert options(engine.job_text(file_target(), workload(iodepth=3)))["ioengine"] == "libaio"


def test_probe_without_fio_falls_back_to_libaio() -> None:
    assert probe_ioengine("ssdlab-no-such-fio") == "libaio"


def test_supports_real_targets_only(scratch: FileTarget) -> None:
    from ssdlab.targets.fake import FakeTarget

    assert scratch.kind in ENGINE.capabilities.target_kinds
    assert FakeTarget(spec="fake:").kind not in ENGINE.capabilities.target_kinds


@pytest.mark.fio
def test_real_probe_finds_an_engine() -> None:
    assert probe_ioengine("fio") in ("io_uring", "libaio")


def test_plan_prints_the_fio_jobs(cli: Callable[..., Any], tmp_path: Path) -> None:
    """`ssdlab plan --fio` on a file target shows every job file, and creates nothing."""
    spec = f"file:{tmp_path}/plan.dat?size=64m"
    result = cli("plan", "-t", spec, "--test", "quick", "--fio")
    assert result.code == 0, result.stderr
    assert result.stdout.count("[global]") >= 9
    assert f"filename={tmp_path}/plan.dat" in result.stdout
    assert "lat_percentiles=1" in result.stdout
    assert not (tmp_path / "plan.dat").exists()


@pytest.mark.parametrize("pattern", ["read", "write", "randread", "randwrite", "randrw", "rw"])
def test_random_offsets_are_independent_draws_and_sequential_ones_are_not_touched(pattern: str) -> None:
    """QA: no random job set norandommap, so fio's random map wrote every block once per pass (a
    permutation, not the independent uniform draws of Iometer and the simulator) and kept a bit per
    block in memory."""
    text = ENGINE.job_text(file_target(), workload(name="w", pattern=pattern, iodepth=4, runtime_s=1))
    assert options(text).get("norandommap") == ("1" if pattern.startswith("rand") else None)


@pytest.mark.fio
def test_a_random_pass_of_the_job_file_repeats_blocks_as_independent_draws_do() -> None:
    """The job file ssdlab writes, run by the real fio for one pass of a 256-block file: independent
    draws touch about 1 - 1/e of the blocks (162 of 256), fio's random map all 256."""
    import subprocess

    target = file_target("pass.dat", MIB)
    Path("pass.dat").write_bytes(bytes(MIB))
    w = workload(name="pass", pattern="randwrite", iodepth=1, runtime_s=None, size_bytes=MIB, seed=3)
    job = Path("pass.fio")
    job.write_text(ENGINE.job_text(target, w).replace("[pass]", "[pass]\nwrite_iolog=pass.iolog"))
    subprocess.run(["fio", "--output=/dev/null", str(job)], check=True, capture_output=True)
    offsets = [line.split()[-2] for line in Path("pass.iolog").read_text().splitlines() if " write " in line]
    assert len(offsets) == 256
    assert 120 <= len(set(offsets)) <= 200
