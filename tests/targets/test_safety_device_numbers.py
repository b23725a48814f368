"""A block target is the device its node opens, found by device number (docs/safety.md): the
checks read sysfs of that device and the writes go through its own /dev node. A partition is in
use when its whole disk is mounted or swap, and says so; a RAID-0 refuses a disk beside its own
partition.

QA (safety audit): the kernel name was the node's file name, so `/dev/../tmp/x/loop2`, a node of
loop1 (in use as swap), was checked as loop2, found "writable", and a confirmed run wrote loop2,
a device nobody named; in a container whose /dev/sda opens the host's sdb, sda would be checked
and sdb written. The root tests use real loop devices and check with sha256 that nothing was
written."""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_in_use import image, mounted, partitioned, partitioned_loop, sha256

from loop_helpers import attached_loop
from ssdlab.errors import TargetError, UsageError
from ssdlab.targets.block import BlockTarget
from ssdlab.targets.raid import Raid0Target
from ssdlab.targets.sysinfo import SysRoot


@contextmanager
def node_named(path: Path, device: str) -> Iterator[Path]:
    """A device node for `device` at `path`, whatever its file name says (mknod, as a container's
    --device or a bind mount makes one)."""
    os.mknod(path, stat.S_IFBLK | 0o600, os.stat(device).st_rdev)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


@pytest.mark.root
def test_a_node_named_like_another_device_is_the_device_it_opens(tmp_path: Path, cli: Callable[..., Any]) -> None:
    """A node named after loop B that opens the mounted loop A: checked, confirmed and refused as
    A; B, which the node only looks like, is never written."""
    a_image, b_image = image(tmp_path / "a.img"), image(tmp_path / "b.img")
    with attached_loop(a_image, size_bytes=None) as a, attached_loop(b_image, size_bytes=None) as b, \
            mounted(a, tmp_path / "mnt") as point:
        a_name, b_name = Path(a).name, Path(b).name
        (tmp_path / "nodes").mkdir()
        with node_named(tmp_path / "nodes" / b_name, a) as node:
            target = BlockTarget.from_spec(str(node))
            assert (target.name, target.device_path) == (a_name, Path(a))
            assert f"{a_name} is mounted at {point}" in (target.write_refusal() or "")
            before = sha256(a_image), sha256(b_image)
            spec = f"/dev/..{node}"  # a block target is given as /dev/...
            run = cli("run", "--test", "linear", "-p", "passes=write", "-p", "span_bytes=8m", "-t", spec,
                      "--destroy", f"--yes={b_name}", "--out", str(tmp_path / "run"), "--no-report", "--no-library")
            assert run.code == 3, run.stderr
            assert f"{a_name} is mounted at {point}" in run.stderr and "\n" not in run.stderr.strip()
            assert (sha256(a_image), sha256(b_image)) == before


@pytest.mark.root
def test_a_dev_node_that_opens_another_device_is_refused(tmp_path: Path) -> None:
    """/dev/A opening B (a container's `--device /dev/B:/dev/A`): sysfs of A would be checked and
    B written, so the target is refused, naming both."""
    a_image, b_image = image(tmp_path / "a.img"), image(tmp_path / "b.img")
    with attached_loop(a_image, size_bytes=None) as a, attached_loop(b_image, size_bytes=None) as b:
        a_name, b_name = Path(a).name, Path(b).name
        dev = tmp_path / "dev"
        dev.mkdir()
        # In this /dev, B's node opens A and A's node opens B: each device's own node is another's.
        with node_named(dev / b_name, a), node_named(dev / a_name, b), pytest.raises(TargetError) as err:
            BlockTarget.from_spec(str(dev / b_name), SysRoot(dev=dev))
    said = str(err.value)
    assert f"is {a_name} (" in said and f"{dev / a_name} opens " in said and "another device" in said, said
    assert "\n" not in said


@pytest.mark.root
def test_a_partition_of_a_mounted_disk_says_the_disk_is_mounted(tmp_path: Path) -> None:
    """QA: the whole loop disk mounted, its partition as the target: refused, but as held "by the
    kernel (a RAID, LVM, btrfs or ZFS member ... or a mount ssdlab cannot see)"; and the disk itself
    listed its partition held "by the kernel" beside its own mount."""
    backing = partitioned(tmp_path / "disk.img")
    with partitioned_loop(backing) as disk:
        part = f"{disk}p1"
        disk_name, part_name = Path(disk).name, Path(part).name
        with mounted(disk, tmp_path / "mnt") as point:
            before = sha256(backing)
            state = BlockTarget.from_spec(part).info().safety
            assert not state.writable
            assert state.reasons == (f"its whole disk {disk_name} is mounted at {point} "
                                     f"(writing {part_name} writes into it)",), state.reasons
            whole = BlockTarget.from_spec(disk).info().safety
            assert whole.reasons == (f"{disk_name} is mounted at {point}",), whole.reasons
            assert sha256(backing) == before


@pytest.mark.root
def test_a_partition_of_a_swap_disk_says_the_disk_is_swap(tmp_path: Path) -> None:
    backing = partitioned(tmp_path / "disk.img")
    with partitioned_loop(backing) as disk:
        subprocess.run(["mkswap", disk], check=True, capture_output=True)
        subprocess.run(["swapon", disk], check=True, capture_output=True)
        try:
            state = BlockTarget.from_spec(f"{disk}p1").info().safety
        finally:
            subprocess.run(["swapoff", disk], check=False)
    assert state.swap and state.reasons == (
        f"its whole disk {Path(disk).name} is in use as swap (writing {Path(disk).name}p1 writes into it)",)


@pytest.mark.root
def test_a_raid0_of_a_disk_and_its_own_partition_is_refused(tmp_path: Path) -> None:
    """md would stripe over the same blocks twice; said before anything is checked or built."""
    backing = partitioned(tmp_path / "disk.img")
    with partitioned_loop(backing) as disk:
        with pytest.raises(UsageError, match=rf"member {disk}p1 is a partition of member {disk}; "):
            Raid0Target.from_spec(f"raid0:{disk},{disk}p1")
        with pytest.raises(UsageError, match=rf"member {disk}p1 is a partition of member {disk}; "):
            Raid0Target.from_spec(f"raid0:{disk}p1,{disk}")
