"""QA (stop 48): a block device that comes into use while fio writes it stops fio at once. ssdlab
holds the device O_EXCL for the write, but a loop device attached to it (or to a partition of it)
gets past that hold: fio wrote on to the workload's end under a file system mounted through the
new loop. The engine reads the device's uses again every WATCH_PERIOD_S (UseWatch)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from fio_helpers import fio_pids, workload
from loop_helpers import STACKED, attached_loop, partition
from ssdlab.engines.base import RunContext
from ssdlab.engines.fio import FioEngine
from ssdlab.engines.fio_process import WATCH_PERIOD_S, CameIntoUse, UseWatch, run_fio_captured, use_watch
from ssdlab.measurement import Measurement
from ssdlab.targets.base import Target
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.file import FileTarget

# A write that would run long past the test's patience, were it not stopped.
LONG = workload(name="w", pattern="randwrite", block_size_bytes=4096, iodepth=32, runtime_s=30)
# From the loop's attachment to measure() returning: a reading every WATCH_PERIOD_S, fio's SIGINT
# and its results written (about 0.3 s), and slack for a loaded machine.
STOPPED_WITHIN_S = 2.5


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def device(tmp_path: Path) -> Iterator[tuple[BlockTarget, Path]]:
    """A 64 MiB loop device (direct I/O: its image changes only when fio's writes reach it),
    authorised for writes; detached afterwards."""
    backing = tmp_path / "target.img"
    with attached_loop(backing, direct_io=True) as node:
        target = BlockTarget.from_spec(node)
        target.authorize_writes(destroy=True, confirmed_serial=target.name)
        yield target, backing


def measure_while(target: Target, ctx: RunContext, act: str) -> tuple[Measurement, float]:
    """measure(LONG) on `target`, attaching a loop device on top of `act` (a node) two seconds in:
    the measurement and how long after the attachment measure() returned."""

    def stack() -> None:
        STACKED.append(run("losetup", "--find", "--show", act))

    return measure_during(target, ctx, stack)


def measure_during(target: Target, ctx: RunContext, act: Callable[[], object]) -> tuple[Measurement, float]:
    """measure(LONG) on `target`, doing `act` two seconds in: the measurement and how long after
    `act` returned measure() returned. The write always runs to its end or stop before the test
    goes on (no fio outlives it)."""
    done: list[Measurement | BaseException] = []

    def write() -> None:
        try:
            done.append(FioEngine(telemetry=False).measure(target, LONG, ctx))
        except BaseException as error:  # handed to the test
            done.append(error)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        time.sleep(2.0)
        assert not done, f"the write ended early: {done}"
        act()
        attached_at = time.monotonic()
        writer.join(timeout=STOPPED_WITHIN_S)
        took_s = time.monotonic() - attached_at
    finally:
        writer.join()
    result = done[0]
    if isinstance(result, BaseException):
        raise result
    return result, took_s


@pytest.mark.root
@pytest.mark.fio
def test_a_loop_stacked_on_the_target_mid_write_stops_fio_at_once(device: tuple[BlockTarget, Path],
                                                                    ctx: RunContext) -> None:
    target, backing = device
    measured, took_s = measure_while(target, ctx, str(target.device_path))
    on_top = Path(STACKED[0]).name
    assert took_s < STOPPED_WITHIN_S, f"fio wrote on for {took_s:.1f} s after {on_top} was attached"
    assert not fio_pids(str(ctx.raw_dir))
    assert measured.interrupted
    assert measured.error is not None and "\n" not in measured.error
    assert measured.error.startswith(f"{target.spec} came into use during the write, so fio was stopped at once")
    assert f"{target.name} backs {on_top}" in measured.error
    # What fio did until then is kept: its results, written on its SIGINT.
    assert measured.write.ios > 0 and 0 < measured.runtime_s < LONG.runtime_s
    # And nothing is written after.
    before = digest(backing)
    time.sleep(1.0)
    assert digest(backing) == before


@pytest.mark.root
@pytest.mark.fio
def test_a_second_loop_on_the_targets_backing_file_stops_fio(device: tuple[BlockTarget, Path],
                                                             ctx: RunContext) -> None:
    """A loop target writes its backing file: another loop attached to that file (whose file
    system would be written under it) is a use too, read down the loop as the start-up check does."""
    target, backing = device
    measured, took_s = measure_while(target, ctx, str(backing))
    assert took_s < STOPPED_WITHIN_S
    assert measured.interrupted and measured.error is not None
    assert f"{backing} backs {Path(STACKED[0]).name}" in measured.error


@pytest.mark.root
@pytest.mark.fio
def test_a_loop_on_a_partition_of_the_target_stops_fio_and_its_mount_was_refused_all_along(
        device: tuple[BlockTarget, Path], ctx: RunContext, tmp_path: Path) -> None:
    """A whole disk with a partition table: mounting the partition during the write fails (the
    kernel claims no partition of a disk ssdlab holds O_EXCL), and a loop attached to the
    partition, which gets past the hold, stops fio."""
    target, _ = device
    part = partition(str(target.device_path), 2048, 32768)
    run("mkfs.ext4", "-q", "-F", part)
    mount_point = tmp_path / "mnt"
    mount_point.mkdir()
    refused: list[subprocess.CompletedProcess[str]] = []

    def mount_then_stack() -> None:
        time.sleep(1.0)
        refused.append(subprocess.run(["mount", part, str(mount_point)], capture_output=True, text=True,
                                      check=False))

    mounter = threading.Thread(target=mount_then_stack)
    mounter.start()
    try:
        measured, took_s = measure_while(target, ctx, part)
    finally:
        mounter.join()
        if os.path.ismount(mount_point):
            subprocess.run(["umount", str(mount_point)], check=False)
    # Busy, not a file system fio's writes wrecked first.
    assert refused[0].returncode != 0 and "busy" in refused[0].stderr, refused[0].stderr
    assert took_s < STOPPED_WITHIN_S
    assert measured.interrupted and measured.error is not None
    assert f"{Path(part).name} backs {Path(STACKED[0]).name}" in measured.error


# ---- the watch itself, without devices ------------------------------------------------------


def test_the_watch_reads_at_once_then_once_a_period_and_names_every_use() -> None:
    """On a clock of the test's own: on the real one, a loaded machine that ran the test 0.1 s
    late between two calls failed it (0.1 < wait_s, a second reading where none was due)."""
    now = [100.0]
    readings: list[float] = []
    uses: list[str] = []

    def read() -> list[str]:
        readings.append(now[0])
        return list(uses)

    watch = UseWatch("/dev/x", read, period_s=0.2, clock=lambda: now[0])
    assert watch.wait_s(1.0) == 0.0  # due at once: a use may have begun since the run's checks
    watch.check()
    now[0] += 0.05
    watch.check()  # not due yet: no reading
    assert readings == [100.0]
    assert watch.wait_s(1.0) == pytest.approx(0.15)  # the period counts from the reading
    assert watch.wait_s(0.1) == 0.1  # never past what the caller waits at most
    now[0] += watch.wait_s(1.0)
    uses[:] = ["a backs b", "c is mounted at /m"]
    with pytest.raises(CameIntoUse) as found:
        watch.check()
    assert readings == [100.0, pytest.approx(100.2)]
    assert str(found.value) == ("/dev/x came into use during the write, so fio was stopped at once and nothing more "
                                "is written to it: a backs b; c is mounted at /m")
    assert WATCH_PERIOD_S <= 0.5


def test_only_a_block_device_written_is_watched(scratch: FileTarget) -> None:
    assert use_watch(scratch, LONG.is_write) is None  # a file: ssdlab's own inode, see use_watch
    device = BlockTarget(spec="/dev/x", name="x")
    assert use_watch(device, workload(pattern="randread").is_write) is None  # a read harms no device in use
    watch = use_watch(device, LONG.is_write)
    assert watch is not None and watch.uses == device.uses_while_writing


def test_a_captured_fio_is_stopped_once_its_watch_finds_a_use() -> None:
    """The same watch for fio run with its output captured (run_fio_captured: a trace replay's):
    `sleep` stands in for a fio that would write for 30 s."""
    began = time.monotonic()

    def uses() -> list[str]:
        return ["x backs loop9"] if time.monotonic() - began > 0.3 else []

    with pytest.raises(CameIntoUse, match="x backs loop9"):
        run_fio_captured(["sleep", "30"], timeout_s=60, watch=UseWatch("/dev/x", uses, period_s=0.1))
    assert time.monotonic() - began < 2.0
