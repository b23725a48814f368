"""Real loop devices for root tests: one way to attach one, always detached afterwards."""

from __future__ import annotations

import os
import stat
import struct
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MIB = 1 << 20

# A mount namespace starts with a copy of every mount there is and holds what it copied until its
# last process ends: a loop device another test had mounted when a namespace was made stayed
# attached after that test unmounted and detached it, and its image still "backed" a loop when the
# test attached it again (a full run: test_a_device_a_loop_device_maps_is_in_use, beside the fio
# servers of test_fio_multi). A shell script a test runs in a namespace of its own (`unshare -m`)
# begins with this: it drops the copies of tests' mounts (under pytest's temporary folders), in the
# new namespace alone, before it mounts anything of its own.
DROP_TESTS_MOUNTS = (f"awk '$5 ~ \"^{tempfile.gettempdir()}/pytest-of-\" {{print $5}}' /proc/self/mountinfo | "
                     "sort -r | while read -r m; do umount -l \"$m\"; done; ")


@contextmanager
def attached_loop(backing: Path, size_bytes: int | None = 64 * MIB, direct_io: bool = False) -> Iterator[str]:
    """Attach `backing` (grown to `size_bytes` when given) as a loop device; yield its path."""
    if size_bytes is not None:
        with backing.open("ab") as handle:
            handle.truncate(size_bytes)
    flags = ["--direct-io=on"] if direct_io else []  # off is losetup's default
    device = subprocess.run(["losetup", "--find", "--show", *flags, str(backing)], check=True,
                            capture_output=True, text=True).stdout.strip()
    unopened_within(device, 5.0)
    try:
        yield device
    finally:
        # Loops a test stacked on this one first: one on a partition kept the partition (and the
        # detach of this loop) pending, and the next test that got this loop number found loopNp1
        # "held exclusively" (seen in a full run). Then the partitions, before the loop goes.
        detach_stacked()
        subprocess.run(["partx", "-d", device], check=False, capture_output=True)
        subprocess.run(["losetup", "-d", device], check=False)
        detached_within(device, 5.0)


def detached_within(device: str, seconds: float) -> bool:
    """Wait until the kernel no longer lists `device` as a loop with a backing file: `losetup -d`
    of a loop something still has open (a loop stacked on it being detached, a mount of it another
    namespace copied: DROP_TESTS_MOUNTS) only marks it to clear at its last close, and the next test
    that attached the same file found it still "backing" a loop."""
    backing_file = Path("/sys/block") / Path(device).name / "loop" / "backing_file"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not backing_file.exists():
            return True
        time.sleep(0.02)
    return False


# Loop devices a test attached on top of its target (a device that comes into use mid-write):
# detached before their target (attached_loop) and after each test of tests/engines (its conftest.py).
STACKED: list[str] = []


def detach_stacked() -> None:
    while STACKED:
        subprocess.run(["losetup", "-d", STACKED.pop()], check=False)


def unopened_within(device: str, seconds: float) -> bool:
    """Wait until no other process has `device` open, at most `seconds`: a loop number another
    test has just detached is free while that test's `losetup -d` still holds it, and a test's
    start-up safety check then (rightly) found "open for writing by pid N (losetup)" (seen in a
    full run with two workers)."""
    rdev = os.stat(device).st_rdev
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(_opens(pid, rdev) for pid in os.listdir("/proc") if pid.isdigit() and int(pid) != os.getpid()):
            return True
        time.sleep(0.02)
    return False


def _opens(pid: str, rdev: int) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            there = os.stat(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if stat.S_ISBLK(there.st_mode) and there.st_rdev == rdev:
            return True
    return False


def partition(node: str, start_sector: int = 2048, sectors: int = 65536) -> str:
    """Give the disk at `node` an MBR with one Linux partition and have the kernel read it; the
    partition's node. (No sfdisk here: the table is four fields.)"""
    entry = struct.pack("<B3sB3sII", 0, bytes(3), 0x83, bytes(3), start_sector, sectors)
    fd = os.open(node, os.O_WRONLY)
    try:
        os.pwrite(fd, entry, 446)
        os.pwrite(fd, b"\x55\xaa", 510)
        os.fsync(fd)
    finally:
        os.close(fd)
    # partx adds it, unless udev's rescan on close did so first.
    subprocess.run(["partx", "-u", node], check=False, capture_output=True)
    return f"{node}p1"
