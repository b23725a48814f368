"""Stop 50: the watch while fio writes (UseWatch, docs/safety.md) also covers
- a program that opens the device for writing without O_EXCL (`dd of=/dev/X`): it got past
  ssdlab's O_EXCL hold and was found only at the next action's check; a reader does not stop fio;
- a RAID-0: its array and every member, each read as a single device (until then a `raid0:` write
  had no watch). This kernel has no md: the array is played by a third loop device (mdadm played
  back), its members are real loop devices, and so is what is stacked on them mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path

import pytest
from test_fio_use_watch import LONG, STOPPED_WITHIN_S, digest, measure_during, measure_while

from fio_helpers import fio_pids, workload
from loop_helpers import STACKED, attached_loop
from ssdlab.engines.base import RunContext
from ssdlab.engines.fio import FioEngine
from ssdlab.engines.fio_process import FileKey, file_key, holders
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.raid import CmdResult, Raid0Target


@pytest.fixture
def device(tmp_path: Path) -> Iterator[tuple[BlockTarget, Path]]:
    """A 64 MiB direct-I/O loop device authorised for writes, and its image; detached afterwards."""
    backing = tmp_path / "target.img"
    with attached_loop(backing, direct_io=True) as node:
        target = BlockTarget.from_spec(node)
        target.authorize_writes(destroy=True, confirmed_serial=target.name)
        yield target, backing


class Held:
    """A program started outside this process's descendants (`setsid -f`: its parent ends at once
    and it is handed to init), as anyone else's would be: the watch spares this process's own
    (fio, its jobs, the telemetry's tools), and the test runs the engine in this process. It
    reads its input from us until end() closes it."""

    def __init__(self, argv: Sequence[str]) -> None:
        launcher = subprocess.Popen(["setsid", "-f", *argv], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
        launcher.wait(timeout=5)
        assert launcher.stdin is not None
        self.input = launcher.stdin
        self.pid = self._started(argv[0], frozenset({file_key(self.input.fileno())}))

    @staticmethod
    def _started(program: str, pipe: frozenset[FileKey]) -> int:
        """The pid of the process that reads our pipe, once it runs `program` (exec done)."""
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            for pid in holders(pipe):
                try:
                    running = Path(f"/proc/{pid}/comm").read_text().strip()
                except OSError:
                    continue  # the launcher, ending
                if running == Path(program).name:
                    time.sleep(0.1)  # past its open() of the device too
                    return pid
            time.sleep(0.02)
        raise AssertionError(f"{program} did not start")

    def end(self) -> None:
        self.input.close()  # dd reads the end of its input and ends, having written nothing
        deadline = time.monotonic() + 5.0
        while Path(f"/proc/{self.pid}/fd").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        if Path(f"/proc/{self.pid}/fd").exists():
            os.kill(self.pid, signal.SIGKILL)


def dd_writer(node: Path | str, stack: ExitStack) -> Held:
    """`dd of=NODE`: opened for writing (O_WRONLY, no O_EXCL) at once, then waiting for its input,
    which never comes: a writer that writes nothing, so the image shows fio's writes alone."""
    held = Held(["dd", f"of={node}", "bs=4096", "status=none"])
    stack.callback(held.end)
    return held


@pytest.mark.root
@pytest.mark.fio
def test_dd_opening_the_device_for_writing_mid_write_stops_fio(device: tuple[BlockTarget, Path],
                                                              ctx: RunContext) -> None:
    target, backing = device
    with ExitStack() as stack:
        started: list[Held] = []
        measured, took_s = measure_during(target, ctx, lambda: started.append(dd_writer(target.device_path, stack)))
        assert took_s < STOPPED_WITHIN_S, f"fio wrote on for {took_s:.1f} s beside dd"
        assert not fio_pids(str(ctx.raw_dir))
        assert measured.interrupted and measured.error is not None and "\n" not in measured.error
        assert measured.error.startswith(f"{target.spec} came into use during the write, so fio was stopped at once")
        assert f"dd (pid {started[0].pid}) opened {target.device_path} for writing" in measured.error
        assert measured.write.ios > 0 and 0 < measured.runtime_s < LONG.runtime_s  # kept, as on Ctrl-C
        before = digest(backing)
    assert digest(backing) == before  # nothing written after the stop (dd wrote nothing)


@pytest.mark.root
@pytest.mark.fio
def opened_within(pid: int, path: str, seconds: float) -> bool:
    """Whether process `pid` has `path` open within `seconds` (it opens it once it has started)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(os.readlink(fd) == path for fd in Path(f"/proc/{pid}/fd").iterdir()):
            return True
        time.sleep(0.02)
    return False


def test_readers_of_the_device_mid_write_do_not_stop_fio(device: tuple[BlockTarget, Path], ctx: RunContext) -> None:
    """blkid, udev's probes and smartctl open a device read-only: no use (docs/safety.md). Nor is
    fio's own opening of it for writing, nor udev's probe after fio closes it."""
    target, _ = device
    short = workload(name="w", pattern="randwrite", block_size_bytes=4096, iodepth=32, runtime_s=5)
    reader = Held(["python3", "-c", f"import os, sys; os.open({str(target.device_path)!r}, os.O_RDONLY); "
                                    "sys.stdin.read()"])
    assert opened_within(reader.pid, str(target.device_path), 10.0)  # under load the open comes late
    try:
        subprocess.run(["blkid", "-p", str(target.device_path)], check=False, capture_output=True)
        measured = FioEngine(telemetry=False).measure(target, short, ctx)
    finally:
        reader.end()
    assert not measured.interrupted, measured.error
    assert measured.runtime_s >= 4.5


# ---- a RAID-0 -------------------------------------------------------------------------------


@pytest.fixture
def raid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Raid0Target]:
    """raid0:/dev/loopA,/dev/loopB built, its array being a third loop device (this kernel has no
    md: mdadm is played back, and its absence not refused); torn down afterwards (played back too)."""
    with ExitStack() as stack:
        nodes = [stack.enter_context(attached_loop(tmp_path / f"{n}.img", direct_io=True)) for n in "abc"]
        members = tuple(BlockTarget.from_spec(node) for node in nodes[:2])
        target = Raid0Target(spec=f"raid0:{nodes[0]},{nodes[1]}", members=members,
                             exec=lambda argv: CmdResult(0, "", ""),
                             open_md=lambda path: BlockTarget.from_spec(nodes[2]))
        monkeypatch.setattr(target, "unavailable", lambda: None)
        target.authorize_writes(True, ",".join(m.name for m in members))
        target.prepare()
        stack.callback(target.release)
        yield target


def check_stopped(target: Raid0Target, measured_error: str | None, took_s: float, said: str) -> None:
    assert took_s < STOPPED_WITHIN_S
    assert measured_error is not None and "\n" not in measured_error
    assert measured_error.startswith(f"{target.spec} came into use during the write, so fio was stopped at once")
    assert said in measured_error


@pytest.mark.root
@pytest.mark.fio
def test_a_loop_stacked_on_a_raid0_member_mid_write_stops_fio(raid: Raid0Target, ctx: RunContext) -> None:
    member = raid.members[1]
    measured, took_s = measure_while(raid, ctx, str(member.device_path))
    assert not fio_pids(str(ctx.raw_dir))
    assert measured.interrupted and measured.write.ios > 0  # fio wrote the array, and what it did is kept
    check_stopped(raid, measured.error, took_s,
                  f"{member.name} backs {Path(STACKED[0]).name} (a loop device: writing {member.name} changes")


@pytest.mark.root
@pytest.mark.fio
def test_a_loop_stacked_on_the_raid0_array_mid_write_stops_fio(raid: Raid0Target, ctx: RunContext) -> None:
    array = raid.device_path
    measured, took_s = measure_while(raid, ctx, str(array))
    check_stopped(raid, measured.error, took_s, f"{array.name} backs {Path(STACKED[0]).name}")


@pytest.mark.root
@pytest.mark.fio
def test_dd_on_a_raid0_member_mid_write_stops_fio(raid: Raid0Target, ctx: RunContext) -> None:
    """md holds its members O_EXCL, which a `dd of=MEMBER` gets past as it gets past ssdlab's."""
    member = raid.members[0]
    with ExitStack() as stack:
        started: list[Held] = []
        measured, took_s = measure_during(raid, ctx, lambda: started.append(dd_writer(member.device_path, stack)))
        check_stopped(raid, measured.error, took_s,
                      f"dd (pid {started[0].pid}) opened {member.device_path} for writing")
