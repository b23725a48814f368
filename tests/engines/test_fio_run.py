"""Real fio runs (1-2 s, small files), Ctrl-C, failures, and the steps on files and loop devices."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from fio_helpers import fio_pids, start_python, wait_until, workload
from loop_helpers import attached_loop
from ssdlab.engines.base import ProgressUpdate, RunContext
from ssdlab.engines.fio import FioEngine
from ssdlab.errors import EngineError, SafetyError, Stopped
from ssdlab.steps import Idle, Purge, SetWriteCache
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.file import FileTarget, allocated_bytes
from ssdlab.units import MIB

pytestmark = pytest.mark.fio


def ran_for(runtime_s: float, asked_s: float, not_counted_s: float = 0.0) -> bool:
    """The runtime fio reports for a job asked to run `asked_s` after `not_counted_s` of ramp: at
    least the time asked, and less than the ramp added or a second run of the job (what the faults
    this guards against would read: the ramp counted, jobs' or directions' runtimes summed, or
    milliseconds read as seconds). A loaded machine ends a job late by up to a few tenths of a
    second (1.319 s for 1 s asked, in CI), so the upper bound leaves it that and more."""
    return asked_s * 0.95 < runtime_s < asked_s + max(not_counted_s, asked_s)


def test_random_read_run(scratch: FileTarget, ctx: RunContext, updates: list[ProgressUpdate]) -> None:
    w = workload(name="rr", iodepth=8, runtime_s=2, log_period_s=0.5)
    m = FioEngine().measure(scratch, w, ctx)
    assert m.engine == "fio" and not m.interrupted and m.error is None
    assert m.read.ios > 1000 and m.write.ios == 0
    assert m.read.bytes == m.read.ios * 4096
    assert ran_for(m.runtime_s, asked_s=2)
    assert m.read.hist.count >= m.read.ios - 64  # lat bins cover (almost) every I/O
    assert 0 < m.read.lat_min_ns <= m.read.lat_max_ns
    assert len(m.series) >= 3 and sum(m.series.read_ios) == pytest.approx(m.read.ios, rel=0.05)
    assert m.cpu_usr_pct is not None
    assert str(m.engine_facts["fio_version"]).startswith("fio-3")
    for role in ("job", "output", "iops_log.1", "bw_log.1", "lat_log.1"):
        assert (ctx.bundle_dir / m.raw_files[role]).is_file(), role
    # fio's first ETA lines carry no rates: the bar still moves about once a second
    assert updates and all(u.label == "rr" and 0 <= u.fraction <= 1 for u in updates)


def test_no_rate_reads_as_none_and_a_finished_workload_shows_its_measured_rate(
        scratch: FileTarget, ctx: RunContext, updates: list[ProgressUpdate]) -> None:
    """QA: with runtime_s=1 every workload ended on "100% 0 IOPS 0.0 MB/s": fio's only status line
    for it ("Jobs: 1 (f=1)", after a second) has no rate, which was shown as 0."""
    m = FioEngine().measure(scratch, workload(name="short", iodepth=4, runtime_s=1), ctx)
    assert updates
    assert all(u.iops != 0 and u.mb_s != 0 for u in updates)  # a rate, or none yet: never a 0 made up
    last = updates[-1]
    assert last.fraction == 1.0 and last.iops == pytest.approx(m.iops()) and last.mb_s == pytest.approx(m.mb_s())
    assert m.iops() > 0


def test_the_series_periods_are_fios_own_windows(scratch: FileTarget, ctx: RunContext) -> None:
    """Audit (a linear write at 0.1 s periods): fio stamps its windows on its helper thread's clock
    (here about 145, 245, ... ms), not at multiples of the period; matched to period numbers, one
    window of a pair stamped 550 and 650 ms was dropped, a period left at zero and the tail given
    the rest: "minimum 0.0, maximum 4,159.9 MB/s" where fio's windows ran at 325.1 .. 1,709.2. Each
    period is now one window, ending at its stamp, at the rate fio logged for it."""
    w = workload(name="win", pattern="write", block_size_bytes=MIB, iodepth=1, runtime_s=1.2, log_period_s=0.1)
    m = FioEngine().measure(scratch, w, ctx)
    lines = [line.split(",") for line in (ctx.bundle_dir / m.raw_files["bw_log.1"]).read_text().splitlines()]
    rates = [int(rate) * 1024 / 1e6 for _, rate, *_ in lines]
    stamps = [int(t) / 1000 for t, *_ in
              (line.split(",") for line in (ctx.bundle_dir / m.raw_files["iops_log.1"]).read_text().splitlines())]
    # what fio logged, should this fail again (a full test run here once saw nine windows sum past fio's total)
    seen = f"runtime {m.runtime_s} s, periods ending {m.series.t_s}, bw log {[line[:2] for line in lines]}"
    assert len(stamps) >= 8 and sum(m.series.write_bytes) == pytest.approx(m.write.bytes), seen
    windows = m.series.mb_s("write")[:-1]
    # at the rates fio logged, give or take the totals' reconciliation (the ms fio's clock rounds away)
    moving = [rate for rate in windows if rate > 0]
    assert min(rates) * 0.98 <= min(moving) and max(moving) <= max(rates) * 1.02, seen
    # The tail after the last sample holds no more than the fastest window ran in a period (or in the
    # tail's time, if longer): never the bytes of a dropped window. Judged by bytes, not rate: a tail
    # of a few ms is any rate (a fresh clone's full run here: 0.063 s at 1,302.7 MB/s against fio's
    # fastest window 1,038.1, the page cache taking a burst), which the bound on its rate failed on.
    tail_s, tail_mb = m.series.durations_s()[-1], m.series.write_bytes[-1] / 1e6
    assert tail_mb <= max(rates) * max(tail_s, 0.1) * 1.02, seen
    # A period at zero only where fio logged no line for one: no 1 MiB write completed in it. A full
    # test run here, the disk loaded by other tests, once gave a window at zero (fio's log not kept;
    # not reproduced in 30 runs beside a dd): most likely such a stall, which this allows.
    gaps_s = [b - a for a, b in pairwise(stamps)]
    assert len(windows) - len(moving) <= sum(round(gap / 0.1) - 1 for gap in gaps_s if gap >= 0.15), seen
    # The series ends where the run did; a run that went on past fio's last line by over a period and
    # a half (the fresh clone's full run here: a stall from 1.05 s to 1.373 s, no write completing) is
    # left as logged, as complete_series says: the logs do not describe that time.
    if m.runtime_s - stamps[-1] < 1.5 * 0.1:
        assert m.series.t_s[-1] == m.runtime_s, seen
    else:
        assert round(m.series.t_s[-1], 3) == round(stamps[-1], 3), seen  # as the stamps are matched below
    assert {round(t, 3) for t in stamps[:-1]} <= {round(t, 3) for t in m.series.t_s}, seen  # each window its own
    assert m.series.durations_s()[0] == pytest.approx(stamps[0])  # the first window runs from the job's start


def test_mixed_write_run_with_two_jobs(scratch: FileTarget, ctx: RunContext) -> None:
    # A ramp twice the runtime: had it been counted, the runtime would read 3 s or more, well clear
    # of what a loaded machine adds to the 1 s asked (CI read 1.319 s with a 0.5 s ramp).
    w = workload(name="mix", pattern="randrw", read_pct=60, iodepth=4, jobs=2, runtime_s=1, ramp_s=2)
    m = FioEngine().measure(scratch, w, ctx)
    assert m.read.ios > 0 and m.write.ios > 0
    assert m.read.ios / (m.read.ios + m.write.ios) == pytest.approx(0.6, abs=0.05)
    assert {"iops_log.1", "iops_log.2"} <= set(m.raw_files)
    assert ran_for(m.runtime_s, asked_s=1, not_counted_s=2)  # ramp time is not measured time


def test_byte_limited_sequential_write(scratch: FileTarget, ctx: RunContext) -> None:
    w = workload(name="fill", pattern="write", block_size_bytes=MIB, iodepth=4, runtime_s=None, size_bytes=16 * MIB)
    m = FioEngine().measure(scratch, w, ctx)
    assert m.write.bytes == 16 * MIB and m.write.ios == 16


@pytest.mark.parametrize("iodepth", [3, 6])
def test_queue_depth_that_is_not_a_power_of_two_is_kept(scratch: FileTarget, ctx: RunContext, iodepth: int) -> None:
    """Little's law: I/Os in flight = IOPS x mean latency. fio's io_uring before 3.39 ran
    iodepth=3 at 4 and 6 at 8 (3.98 and 7.75 here); the engine must pick what keeps the depth."""
    w = workload(name="qd", pattern="randrw", read_pct=50, block_size_bytes=16 * 1024, iodepth=iodepth, runtime_s=1)
    m = FioEngine().measure(scratch, w, ctx)
    in_flight = (m.read.lat_sum_ns + m.write.lat_sum_ns) / (m.runtime_s * 1e9)
    assert in_flight == pytest.approx(iodepth, rel=0.1)


def test_fio_failure_is_one_line(scratch: FileTarget, ctx: RunContext) -> None:
    with pytest.raises(EngineError) as err:
        FioEngine(ioengine="ssdlab-no-such-engine").measure(scratch, workload(), ctx)
    message = str(err.value)
    assert message.startswith("fio failed (exit 1): ") and "ssdlab-no-such-engine" in message
    assert "\n" not in message
    assert (ctx.raw_dir / "job.fio").is_file()  # raw files kept for the post-mortem


def test_missing_fio_binary(scratch: FileTarget, ctx: RunContext) -> None:
    with pytest.raises(EngineError, match=r"^fio not found: install it with `apt-get install fio`$"):
        FioEngine(binary="ssdlab-no-such-fio").measure(scratch, workload(), ctx)


def _interrupt_after(seconds: float) -> threading.Timer:
    """Ctrl-C as the terminal delivers it: SIGINT to this process (the main thread handles it)."""
    timer = threading.Timer(seconds, os.kill, args=(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


@pytest.fixture
def ctrl_c_handled() -> Iterator[None]:
    """Python's own Ctrl-C handling, as in a terminal: a test run started in the background by
    a script inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("ctrl_c_handled")
def test_ctrl_c_keeps_the_partial_measurement(
    scratch: FileTarget, ctx: RunContext, updates: list[ProgressUpdate]
) -> None:
    w = workload(name="long", iodepth=8, runtime_s=60)
    # fio's status line carries no rates for its first seconds ("Jobs: 1 (f=1)" until about 3 s on
    # this machine's disk): stopped at 3.5 s, a loaded disk left no line with rates (flaky, 2 in 5).
    timer = _interrupt_after(5.5)
    start = time.monotonic()
    try:
        m = FioEngine().measure(scratch, w, ctx)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 15
    assert m.interrupted and m.error == "interrupted by the user"
    assert m.read.ios > 0 and 2.5 < m.runtime_s < 10
    assert len(m.series) >= 2
    assert "output" in m.raw_files
    assert any((u.iops or 0) > 0 and (u.mb_s or 0) > 0 for u in updates)  # live rates arrived while it ran
    assert all(u.fraction < 0.2 for u in updates)


def test_a_sigterm_is_named_in_the_partial_measurement(scratch: FileTarget, ctx: RunContext) -> None:
    """The CLI turns SIGTERM into a Stopped; fio stops as on Ctrl-C and the measurement says why."""
    def raise_stopped(signum: int, frame: object) -> None:
        raise Stopped(signum)

    before = signal.signal(signal.SIGTERM, raise_stopped)
    timer = threading.Timer(2.5, os.kill, args=(os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        m = FioEngine().measure(scratch, workload(name="long", iodepth=8, runtime_s=60), ctx)
    finally:
        timer.cancel()
        signal.signal(signal.SIGTERM, before)
    assert m.interrupted and m.error == "terminated (SIGTERM)"
    assert m.read.ios > 0 and m.runtime_s < 10


def test_block_write_needs_authorization(ctx: RunContext) -> None:
    machine = Path(__file__).resolve().parents[1] / "fixtures" / "sysfs" / "machine"
    from ssdlab.targets.sysinfo import SysRoot

    root = SysRoot(sys=machine / "sys", mountinfo=machine / "proc" / "mountinfo",
                   swaps=machine / "proc" / "swaps", dev=machine / "dev")
    target = BlockTarget(spec="/dev/nvme0n1", name="nvme0n1", sysroot=root, run=lambda argv: None)
    with pytest.raises(SafetyError, match="not authorised"):
        FioEngine().measure(target, workload(pattern="randwrite"), ctx)
    with pytest.raises(SafetyError, match="--destroy"):
        FioEngine().step(target, Purge(), ctx)
    with pytest.raises(SafetyError, match="--destroy"):
        FioEngine().step(target, SetWriteCache(enabled=False), ctx)


# ---- steps on a file --------------------------------------------------------------------


def test_purge_punches_holes_in_the_file(scratch: FileTarget, ctx: RunContext) -> None:
    result = FioEngine().step(scratch, Purge(), ctx)
    assert result.detail["method"] == "punch_hole"
    assert result.detail["trimmed_bytes"] == 32 * MIB
    before, after = result.detail["allocated_bytes_before"], result.detail["allocated_bytes_after"]
    assert isinstance(before, int) and isinstance(after, int)
    assert before >= 32 * MIB and after < MIB
    assert scratch.path.stat().st_size == 32 * MIB  # size kept: the span is still there


def test_purge_of_a_span(scratch: FileTarget, ctx: RunContext) -> None:
    result = FioEngine().step(scratch, Purge(offset_bytes=8 * MIB, span_bytes=8 * MIB), ctx)
    assert result.detail["allocated_bytes_after"] == pytest.approx(24 * MIB, abs=MIB)


def test_secure_erase_is_refused(scratch: FileTarget, ctx: RunContext) -> None:
    with pytest.raises(EngineError, match="secure erase"):
        FioEngine().step(scratch, Purge(secure_erase=True), ctx)


def test_idle_and_write_cache_on_a_file(scratch: FileTarget, ctx: RunContext) -> None:
    result = FioEngine().step(scratch, Idle(seconds=0.3), ctx)
    assert 0.25 < result.elapsed_s < 3.0  # seconds, not milliseconds or minutes; a loaded machine wakes late
    with pytest.raises(EngineError, match="no drive write cache"):
        FioEngine().step(scratch, SetWriteCache(enabled=False), ctx)


# ---- a real loop device (root) ----------------------------------------------------------


@pytest.fixture
def loop(tmp_path: Path) -> Iterator[tuple[BlockTarget, Path]]:
    backing = tmp_path / "loop.img"
    with attached_loop(backing) as device:
        yield BlockTarget.from_spec(device), backing


@pytest.mark.root
def test_authorized_loop_write_then_discard(loop: tuple[BlockTarget, Path], ctx: RunContext) -> None:
    target, backing = loop
    target.authorize_writes(destroy=True, confirmed_serial=target.name)
    w = workload(name="w", pattern="write", block_size_bytes=128 * 1024, iodepth=8, runtime_s=2)
    m = FioEngine().measure(target, w, ctx)
    assert m.write.ios > 0 and ran_for(m.runtime_s, asked_s=2)
    written = allocated_bytes(backing)
    assert written > 32 * MIB
    result = FioEngine().step(target, Purge(), ctx)
    assert result.detail["method"] == "blkdiscard" and result.detail["trimmed_bytes"] == 64 * MIB
    assert allocated_bytes(backing) < written // 8  # the discards reached the backing file


@pytest.mark.root
def test_a_written_device_is_held_so_no_mount_or_mkfs_claims_it_mid_write(
        loop: tuple[BlockTarget, Path], ctx: RunContext) -> None:
    """QA (stop 45): during a write workload another process opened the device O_RDWR|O_EXCL, as
    mkfs and mount do, and succeeded; ssdlab's checks come only between actions. The engine now
    holds it exclusively while fio writes, and lets go after (the next purge must take it)."""
    target, _ = loop
    target.authorize_writes(destroy=True, confirmed_serial=target.name)
    claims: list[str] = []

    def claim_mid_write() -> None:
        time.sleep(1.0)
        try:
            os.close(os.open(target.device_path, os.O_RDWR | os.O_EXCL))
            claims.append("claimed")
        except OSError as err:
            claims.append(os.strerror(err.errno or 0))

    w = workload(name="w", pattern="write", block_size_bytes=128 * 1024, iodepth=8, runtime_s=3)
    thread = threading.Thread(target=claim_mid_write)
    thread.start()
    m = FioEngine().measure(target, w, ctx)
    thread.join()
    assert m.write.ios > 0 and claims == [os.strerror(16)]  # EBUSY
    os.close(os.open(target.device_path, os.O_RDWR | os.O_EXCL))  # let go after the workload
    assert FioEngine().step(target, Purge(), ctx).detail["method"] == "blkdiscard"


@pytest.mark.root
def test_a_device_already_held_is_not_written(loop: tuple[BlockTarget, Path], ctx: RunContext) -> None:
    target, backing = loop
    target.authorize_writes(destroy=True, confirmed_serial=target.name)
    holder = os.open(target.device_path, os.O_RDONLY | os.O_EXCL)
    try:
        with pytest.raises(SafetyError) as refused:
            FioEngine().measure(target, workload(name="w", pattern="write", runtime_s=1), ctx)
    finally:
        os.close(holder)
    assert "held exclusively by something else now" in str(refused.value) and "\n" not in str(refused.value)
    assert allocated_bytes(backing) == 0


@pytest.mark.root
def test_loop_write_cache_switch(loop: tuple[BlockTarget, Path], ctx: RunContext) -> None:
    target, _ = loop
    target.authorize_writes(destroy=True, confirmed_serial=target.name)
    off = FioEngine().step(target, SetWriteCache(enabled=False), ctx)
    assert off.detail["write_cache"] == "write through"
    assert target.info().write_cache == "write through"
    on = FioEngine().step(target, SetWriteCache(enabled=True), ctx)
    assert on.detail["write_cache"] == "write back"


def test_fio_stops_when_ssdlab_is_killed(scratch: FileTarget, tmp_path: Path) -> None:
    """SIGKILL gives ssdlab no chance to clean up; fio must still not run on alone."""
    raw = tmp_path / "killed"
    code = (
        "from pathlib import Path\n"
        "from ssdlab.engines.base import RunContext\n"
        "from ssdlab.engines.fio import FioEngine\n"
        "from ssdlab.targets.file import FileTarget\n"
        "from ssdlab.workload import Workload\n"
        f"t = FileTarget.from_spec({scratch.spec!r})\n"
        "w = Workload(name='orphan', pattern='randread', block_size_bytes=4096, runtime_s=60)\n"
        f"FioEngine().measure(t, w, RunContext(raw_dir=Path({str(raw)!r}), bundle_dir=Path({str(tmp_path)!r})))\n"
    )
    child = start_python(code)
    assert wait_until(lambda: fio_pids(str(raw)), 10), "fio did not start"
    child.kill()
    child.wait()
    assert wait_until(lambda: not fio_pids(str(raw)), 10)


def test_trim_workload_on_a_file(scratch: FileTarget, ctx: RunContext) -> None:
    w = workload(name="trim", pattern="trim", block_size_bytes=MIB, runtime_s=None, size_bytes=8 * MIB)
    m = FioEngine().measure(scratch, w, ctx)
    assert (m.trim.ios, m.trim.bytes) == (8, 8 * MIB)
    assert allocated_bytes(scratch.path) == pytest.approx(24 * MIB, abs=MIB)


@pytest.mark.root
def test_a_device_mounted_after_the_checks_fails_the_workload(loop: tuple[BlockTarget, Path], ctx: RunContext,
                                                              tmp_path: Path) -> None:
    """QA: a device mounted mid-test made fio abort the job ("appears mounted, and
    'allow_mounted_write' isn't set. Aborting.") and exit 0; the workload was recorded as
    measured at 0.0 MB/s and its test as complete. The engine's hold on the device it writes
    (held_while_writing) now finds the mount first, and nothing is written."""
    import hashlib
    import subprocess

    target, backing = loop
    target.authorize_writes(destroy=True, confirmed_serial=target.name)  # the checks, then a mount
    subprocess.run(["mkfs.ext4", "-q", target.spec], check=True)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    subprocess.run(["mount", target.spec, str(mnt)], check=True)
    try:
        before = hashlib.sha256(backing.read_bytes()).hexdigest()
        with pytest.raises(SafetyError, match=r"held exclusively by something else now \(a mount"):
            FioEngine().measure(target, workload(name="w", pattern="write", block_size_bytes=MIB, runtime_s=1), ctx)
        assert hashlib.sha256(backing.read_bytes()).hexdigest() == before
    finally:
        subprocess.run(["umount", str(mnt)], check=False)
